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
        subject = f"{doc}#{loc}"
        per_document[doc] = per_document.get(doc, 0) + 1
        if exists is None:
            ctx.add("invalid-location", "the location names a missing document", subject)
        if not isinstance(loc, str) or not is_document_id(loc):
            ctx.add("invalid-location", "location id does not follow the id grammar", subject)
        coordinates_ok = (
            isinstance(lat, float | int)
            and isinstance(lon, float | int)
            and math.isfinite(lat)
            and math.isfinite(lon)
            and -90 <= lat <= 90
            and -180 <= lon < 180
        )
        if not coordinates_ok:
            ctx.add("invalid-location", f"coordinates ({lat!r}, {lon!r}) are out of range", subject)
        if role not in ("subject", "associated"):
            ctx.add("invalid-location", f"role {role!r} is not subject or associated", subject)
        elif role == "subject" and coordinates_ok:
            subjects.append((float(lat), float(lon)))
        if provenance is not None and (
            parse_json_object(provenance) is None
            or len(str(provenance).encode("utf-8")) > ctx.limits.max_provenance_json_bytes
        ):
            ctx.add(
                "invalid-location",
                "provenance_json must be a JSON object of at most "
                f"{ctx.limits.max_provenance_json_bytes} bytes",
                subject,
            )
    for doc, n in per_document.items():
        if n > ctx.limits.max_locations_per_document:
            ctx.add("invalid-location", f"{n} points exceed the per-document limit", doc)

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
    if summary.location_count != len(rows):
        ctx.add(
            "spatial-mismatch",
            f"locationCount is {summary.location_count}, the router has {len(rows)} points",
            "$.spatial.locationCount",
        )
    if summary.located_documents != len(per_document):
        ctx.add(
            "spatial-mismatch",
            f"locatedDocuments is {summary.located_documents}, {len(per_document)} documents "
            "have points",
            "$.spatial.locatedDocuments",
        )
    expected = [(b.west, b.south, b.east, b.north) for b in coverage(subjects)]
    if list(summary.coverage) != expected:
        ctx.add(
            "spatial-mismatch",
            f"coverage {list(summary.coverage)} differs from the recomputed {expected}",
            "$.spatial.coverage",
        )
