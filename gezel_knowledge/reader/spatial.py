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

from gezel_knowledge._rows import fetch_all
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
    rows = fetch_all(
        conn,
        "SELECT document_id, location_id, latitude, longitude FROM document_locations"
        f" WHERE role = 'subject' AND ({' OR '.join(clauses)})",
        params,
    )
    if not rows:
        return []
    docs = np.array([r["document_id"] for r in rows], dtype=str)
    locs = np.array([r["location_id"] for r in rows], dtype=str)
    lats = np.fromiter((r["latitude"] for r in rows), dtype=np.float64, count=len(rows))
    lons = np.fromiter((r["longitude"] for r in rows), dtype=np.float64, count=len(rows))
    dist = distances_meters(q.latitude, q.longitude, lats, lons)
    inside = np.flatnonzero(dist <= q.radius_meters)
    if inside.size == 0:
        return []
    # Code-point order of numpy strings equals SQLite's bytewise order of their UTF-8.
    doc_codes = np.unique(docs[inside], return_inverse=True)[1]
    loc_codes = np.unique(locs[inside], return_inverse=True)[1]
    # Per document, its nearest point (ties by location id) comes first ...
    order = inside[np.lexsort((loc_codes, dist[inside], doc_codes))]
    first = np.unique(np.unique(docs[order], return_inverse=True)[1], return_index=True)[1]
    nearest = order[first]
    # ... and documents are ordered by that distance, then by id.
    ranked = nearest[np.lexsort((docs[nearest], dist[nearest]))]
    return [
        Eligible(str(docs[i]), str(locs[i]), float(lats[i]), float(lons[i]), float(dist[i]))
        for i in ranked
    ]
