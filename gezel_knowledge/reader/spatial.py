"""Radius eligibility over ``document_locations`` (spec section 5.2.2).

Only ``subject`` points qualify a document; ``associated`` points never do. Conservative
bounding boxes (date-line split, all longitudes around a pole) select candidate rows with plain
SQL; the normative ``sphere-6371000`` distance, unrounded, decides membership. Each eligible
document is represented by its nearest matching subject point, equal distances broken by
location id; documents are ordered by that distance, then document id. Catalogs of 0.5 and 0.6
have no location table, so no document is eligible there.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from gezk.spatial import RadiusQuery, bounding_boxes, distances_meters

__all__ = ["Eligible", "eligible_documents"]


@dataclass(frozen=True, slots=True)
class Eligible:
    """A document inside the radius, by its nearest matching subject point."""

    document_id: str
    location_id: str
    latitude: float
    longitude: float
    distance_meters: float


def eligible_documents(conn: sqlite3.Connection, schema: int, query: RadiusQuery) -> list[Eligible]:
    """Every document with a subject point within the radius, nearest first."""
    q = query.validate()
    if schema < 4:
        return []
    clauses = []
    params: list[float] = []
    for box in bounding_boxes(q):
        clauses.append("(latitude BETWEEN ? AND ? AND longitude BETWEEN ? AND ?)")
        params += [box.south, box.north, box.west, box.east]
    rows = conn.execute(
        "SELECT document_id, location_id, latitude, longitude FROM document_locations"
        f" WHERE role = 'subject' AND ({' OR '.join(clauses)})",
        params,
    ).fetchall()
    if not rows:
        return []
    lats = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    lons = np.fromiter((r[3] for r in rows), dtype=np.float64, count=len(rows))
    dist = distances_meters(q.latitude, q.longitude, lats, lons)
    inside = np.flatnonzero(dist <= q.radius_meters)
    best: dict[str, Eligible] = {}
    for i in inside:
        doc, loc = rows[i][0], rows[i][1]
        d = float(dist[i])
        current = best.get(doc)
        if current is None or (d, loc) < (current.distance_meters, current.location_id):
            best[doc] = Eligible(doc, loc, float(rows[i][2]), float(rows[i][3]), d)
    return sorted(best.values(), key=lambda e: (e.distance_meters, e.document_id))
