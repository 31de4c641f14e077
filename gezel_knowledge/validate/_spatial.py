"""Spatial checks (spec section 5.2.2): point rows, and the manifest summary recomputed."""

from __future__ import annotations

import math

from gezel_knowledge.reader.browse import parse_json_object
from gezel_knowledge.validate._context import Context
from gezk.ids import is_document_id
from gezk.spatial import CRS, DISTANCE_MODEL, SPATIAL_SCHEMA, coverage

__all__ = ["check_spatial"]


def check_spatial(ctx: Context) -> None:
    """Every point valid; ``locationCount``, ``locatedDocuments`` and ``coverage`` reconcile."""
    conn = ctx.router
    if conn is None or ctx.schema < 4:
        return
    rows = conn.execute(
        "SELECT l.document_id, l.location_id, l.latitude, l.longitude, l.role,"
        " l.provenance_json, d.id FROM document_locations l"
        " LEFT JOIN documents d ON d.id = l.document_id"
    ).fetchall()
    per_document: dict[str, int] = {}
    subjects: list[tuple[float, float]] = []
    for doc, loc, lat, lon, role, provenance, exists in rows:
        per_document[doc] = per_document.get(doc, 0) + 1
        subject = _check_point(ctx, f"{doc}#{loc}", (loc, lat, lon, role, provenance, exists))
        if subject is not None:
            subjects.append(subject)
    for doc, n in per_document.items():
        if n > ctx.limits.max_locations_per_document:
            ctx.add("invalid-location", f"{n} points exceed the per-document limit", doc)
    _check_summary(ctx, len(rows), len(per_document), subjects)


def _coordinates(lat: object, lon: object) -> tuple[float, float] | None:
    """The point, or ``None`` when it is not finite latitude/longitude within range."""
    if not (isinstance(lat, float | int) and isinstance(lon, float | int)):
        return None
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon < 180):
        return None
    return float(lat), float(lon)


def _check_point(ctx: Context, where: str, row: tuple[object, ...]) -> tuple[float, float] | None:
    """One ``document_locations`` row (location id, latitude, longitude, role, provenance, the
    joined document id); return its coordinates when it is a valid subject point."""
    loc, lat, lon, role, provenance, exists = row
    if exists is None:
        ctx.add("invalid-location", "the location names a missing document", where)
    if not isinstance(loc, str) or not is_document_id(loc):
        ctx.add("invalid-location", "location id does not follow the id grammar", where)
    point = _coordinates(lat, lon)
    if point is None:
        ctx.add("invalid-location", f"coordinates ({lat!r}, {lon!r}) are out of range", where)
    subject = None
    if role not in ("subject", "associated"):
        ctx.add("invalid-location", f"role {role!r} is not subject or associated", where)
    elif role == "subject":
        subject = point
    if provenance is not None and (
        parse_json_object(provenance) is None
        or len(str(provenance).encode("utf-8")) > ctx.limits.max_provenance_json_bytes
    ):
        ctx.add(
            "invalid-location",
            "provenance_json must be a JSON object of at most "
            f"{ctx.limits.max_provenance_json_bytes} bytes",
            where,
        )
    return subject


def _check_summary(
    ctx: Context, points: int, documents: int, subjects: list[tuple[float, float]]
) -> None:
    """The manifest's spatial summary against the points the router holds."""
    summary = ctx.manifest.spatial
    if summary is None:
        return  # reported by the manifest checks
    if (summary.schema, summary.crs, summary.distance_model) != (
        SPATIAL_SCHEMA,
        CRS,
        DISTANCE_MODEL,
    ):
        ctx.add(
            "spatial-mismatch",
            "spatial must be document-points@1 / EPSG:4326 / sphere-6371000",
            "$.spatial",
        )
    if summary.location_count != points:
        ctx.add(
            "spatial-mismatch",
            f"locationCount is {summary.location_count}, the router has {points} points",
            "$.spatial.locationCount",
        )
    if summary.located_documents != documents:
        ctx.add(
            "spatial-mismatch",
            f"locatedDocuments is {summary.located_documents}, {documents} documents have points",
            "$.spatial.locatedDocuments",
        )
    declared = [(b.west, b.south, b.east, b.north) for b in summary.coverage]
    expected = [(b.west, b.south, b.east, b.north) for b in coverage(subjects)]
    if declared != expected:
        ctx.add(
            "spatial-mismatch",
            f"coverage {declared} differs from the recomputed {expected}",
            "$.spatial.coverage",
        )
