"""Document point locations and radius predicates (spec section 5.2.2).

Coordinates are WGS84 decimal degrees with named fields. Distances use the ``sphere-6371000``
contract: the haversine form below on a sphere of radius 6,371,000 m, with equivalent +/-180
longitudes and identical poles at distance zero. Bounding boxes are conservative candidates
only; membership is always decided by the unrounded distance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gezk.errors import InvalidIdentifier, InvalidLocation
from gezk.ids import validate_location_id

__all__ = [
    "CRS",
    "DISTANCE_MODEL",
    "EARTH_RADIUS_M",
    "MAX_DOCUMENT_LOCATIONS",
    "SPATIAL_SCHEMA",
    "Bounds",
    "Location",
    "LocationRole",
    "RadiusQuery",
    "SpatialSummary",
    "arc_coverage",
    "bounding_boxes",
    "coverage",
    "distance_meters",
    "distances_meters",
    "normalize_longitude",
    "spatial_summary",
    "validate_coordinate",
]

EARTH_RADIUS_M = 6_371_000.0
MAX_DOCUMENT_LOCATIONS = 256
SPATIAL_SCHEMA = "document-points@1"
CRS = "EPSG:4326"
DISTANCE_MODEL = "sphere-6371000"

LocationRole = Literal["subject", "associated"]

# Widen candidate boxes by a hair so float rounding never drops a boundary point.
_BOX_PAD_DEGREES = 1e-9


def normalize_longitude(longitude: float) -> float:
    """Map +180 to -180 and negative zero to zero; other longitudes are unchanged."""
    if longitude == 180.0:
        return -180.0
    if longitude == 0.0:
        return 0.0
    return float(longitude)


def validate_coordinate(latitude: object, longitude: object) -> tuple[float, float]:
    """Check a point (finite, latitude in [-90, 90], longitude in [-180, 180]); normalise it."""
    for name, value in (("latitude", latitude), ("longitude", longitude)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidLocation(f"{name} {value!r} is not a number", subject=str(value))
        if not math.isfinite(value):
            raise InvalidLocation(f"{name} {value!r} is not finite", subject=str(value))
    lat = float(cast(float, latitude))
    lon = float(cast(float, longitude))
    if not -90.0 <= lat <= 90.0:
        raise InvalidLocation(f"latitude {lat} is outside [-90, 90]", subject=str(lat))
    if not -180.0 <= lon <= 180.0:
        raise InvalidLocation(f"longitude {lon} is outside [-180, 180]", subject=str(lon))
    return (0.0 if lat == 0.0 else lat), normalize_longitude(lon)


def distance_meters(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """The normative ``sphere-6371000`` distance between two points, in metres."""
    lon1 = normalize_longitude(lon1)
    lon2 = normalize_longitude(lon2)
    if lat1 == lat2 and (abs(lat1) == 90.0 or lon1 == lon2):
        return 0.0
    rad = math.pi / 180.0
    p1 = lat1 * rad
    p2 = lat2 * rad
    a = (
        math.sin((p2 - p1) / 2.0) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin((lon2 - lon1) * rad / 2.0) ** 2
    )
    a = min(1.0, max(0.0, a))
    return 2.0 * EARTH_RADIUS_M * math.atan2(math.sqrt(a), math.sqrt(1.0 - a))


def distances_meters(
    latitude: float, longitude: float, latitudes: ArrayLike, longitudes: ArrayLike
) -> NDArray[np.float64]:
    """Distances from one point to many, vectorised; identical to :func:`distance_meters`."""
    lats = np.asarray(latitudes, dtype=np.float64)
    lons = np.asarray(longitudes, dtype=np.float64)
    lons = np.where(lons == 180.0, -180.0, lons)
    lon0 = normalize_longitude(longitude)
    rad = math.pi / 180.0
    p1 = latitude * rad
    p2 = lats * rad
    a = (
        np.sin((p2 - p1) / 2.0) ** 2
        + math.cos(p1) * np.cos(p2) * np.sin((lons - lon0) * rad / 2.0) ** 2
    )
    a = np.clip(a, 0.0, 1.0)
    d = 2.0 * EARTH_RADIUS_M * np.arctan2(np.sqrt(a), np.sqrt(1.0 - a))
    same = (lats == latitude) & ((abs(latitude) == 90.0) | (lons == lon0))
    return np.where(same, 0.0, d)


@dataclass(frozen=True, slots=True)
class Bounds:
    """A non-wrapping latitude/longitude box in degrees (``west <= east``)."""

    west: float
    south: float
    east: float
    north: float

    def contains(self, latitude: float, longitude: float) -> bool:
        """Whether the point lies in the box (boundaries included)."""
        lon = normalize_longitude(longitude)
        return self.south <= latitude <= self.north and self.west <= lon <= self.east

    def to_json(self) -> dict[str, float]:
        """The manifest ``{west, south, east, north}`` object."""
        return {"west": self.west, "south": self.south, "east": self.east, "north": self.north}


@dataclass(frozen=True, slots=True)
class RadiusQuery:
    """A radius request: a centre point and a non-negative radius in metres."""

    latitude: float
    longitude: float
    radius_meters: float

    def validate(self) -> RadiusQuery:
        """This query with a normalised longitude; raise :class:`InvalidLocation` if invalid."""
        lat, lon = validate_coordinate(self.latitude, self.longitude)
        r = self.radius_meters
        if isinstance(r, bool) or not isinstance(r, int | float) or not math.isfinite(r):
            raise InvalidLocation(f"radius {r!r} is not a finite number", subject=str(r))
        if r < 0:
            raise InvalidLocation(f"radius {r} is negative", subject=str(r))
        return RadiusQuery(lat, lon, float(r))

    def contains(self, latitude: float, longitude: float) -> bool:
        """Whether a point is within the radius (``d <= radiusMeters``)."""
        return (
            distance_meters(self.latitude, self.longitude, latitude, longitude)
            <= self.radius_meters
        )

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RadiusQuery:
        """Parse ``{latitude, longitude, radiusMeters}`` and validate it."""
        extra = set(obj) - {"latitude", "longitude", "radiusMeters"}
        if extra:
            raise InvalidLocation(f"unexpected radius fields: {', '.join(sorted(extra))}")
        try:
            return cls(obj["latitude"], obj["longitude"], obj["radiusMeters"]).validate()
        except KeyError as exc:
            raise InvalidLocation(f"radius query lacks {exc.args[0]}") from None


def bounding_boxes(query: RadiusQuery) -> list[Bounds]:
    """Conservative candidate boxes for a radius: one, or two split at the date line.

    Every point within the radius lies in some returned box; a circle that reaches a pole gets
    all longitudes.
    """
    q = query.validate()
    delta = min(math.pi, q.radius_meters / EARTH_RADIUS_M)
    deg = 180.0 / math.pi
    south = q.latitude - delta * deg - _BOX_PAD_DEGREES
    north = q.latitude + delta * deg + _BOX_PAD_DEGREES
    if south <= -90.0 or north >= 90.0:
        return [Bounds(-180.0, max(-90.0, south), 180.0, min(90.0, north))]
    ratio = math.sin(delta) / math.cos(q.latitude / deg)
    half_width = math.asin(min(1.0, ratio)) * deg + _BOX_PAD_DEGREES
    west = q.longitude - half_width
    east = q.longitude + half_width
    if half_width >= 180.0:
        return [Bounds(-180.0, south, 180.0, north)]
    if west < -180.0:
        return [Bounds(west + 360.0, south, 180.0, north), Bounds(-180.0, south, east, north)]
    if east >= 180.0:
        return [Bounds(west, south, 180.0, north), Bounds(-180.0, south, east - 360.0, north)]
    return [Bounds(west, south, east, north)]


@dataclass(frozen=True, slots=True)
class Location:
    """A typed document point: ``subject`` (what the document is about) or ``associated``."""

    id: str
    latitude: float
    longitude: float
    role: LocationRole
    provenance: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Location:
        """Parse compiler input ``{id, latitude, longitude, role, provenance?}``; normalise it."""
        if not isinstance(obj, Mapping):
            raise InvalidLocation("a location must be an object")
        extra = set(obj) - {"id", "latitude", "longitude", "role", "provenance"}
        if extra:
            raise InvalidLocation(f"unexpected location fields: {', '.join(sorted(extra))}")
        try:
            loc_id = validate_location_id(obj.get("id"))
        except InvalidIdentifier as exc:
            raise InvalidLocation(str(exc), reason="invalid-location-id") from None
        if "latitude" not in obj or "longitude" not in obj:
            raise InvalidLocation(f"location {loc_id!r} needs latitude and longitude")
        lat, lon = validate_coordinate(obj["latitude"], obj["longitude"])
        role = obj.get("role")
        if role not in ("subject", "associated"):
            raise InvalidLocation(
                f"location {loc_id!r} has role {role!r}; expected 'subject' or 'associated'",
                reason="invalid-location-role",
                subject=loc_id,
            )
        provenance = obj.get("provenance")
        if provenance is not None and not isinstance(provenance, Mapping):
            raise InvalidLocation(f"location {loc_id!r}: provenance must be an object")
        return cls(loc_id, lat, lon, cast(LocationRole, role), provenance)

    def to_json(self) -> dict[str, Any]:
        """The compiler-input object form."""
        out: dict[str, Any] = {
            "id": self.id,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "role": self.role,
        }
        if self.provenance is not None:
            out["provenance"] = dict(self.provenance)
        return out


def coverage(subject_points: Iterable[tuple[float, float]]) -> list[Bounds]:
    """The manifest ``coverage``: the minimal longitudinal arc around subject points.

    Unique normalised longitudes are sorted; the largest gap between neighbours (the wrap gap
    included; on ties the first in the ascending scan) is excluded and the complement taken.
    A wrapping arc is split at +/-180 into two bounds, the western-positive part first. No
    points give ``[]``.
    """
    points = [(lat, normalize_longitude(lon)) for lat, lon in subject_points]
    if not points:
        return []
    south = float(min(lat for lat, _ in points))
    north = float(max(lat for lat, _ in points))
    return arc_coverage(sorted({lon for _, lon in points}), south, north)


def arc_coverage(longitudes: Iterable[float], south: float, north: float) -> list[Bounds]:
    """:func:`coverage` from its parts: the subject points' unique normalised longitudes in
    ascending order (read once, so they may stream from a database) and their latitude range."""
    ascending = iter(longitudes)
    first = next(ascending, None)
    if first is None:
        return []
    best_gap = -1.0
    west = east = previous = first
    for lon in ascending:
        if lon - previous > best_gap:
            best_gap, west, east = lon - previous, lon, previous
        previous = lon
    if first + 360.0 - previous > best_gap:  # the wrap gap, last in the scan
        west, east = first, previous
    if west <= east:
        return [Bounds(west, south, east, north)]
    return [Bounds(west, south, 180.0, north), Bounds(-180.0, south, east, north)]


@dataclass(frozen=True, slots=True)
class SpatialSummary:
    """The manifest ``spatial`` summary (required in 0.7): point counts and subject coverage."""

    location_count: int
    located_documents: int
    coverage: tuple[Bounds, ...]
    schema: str = SPATIAL_SCHEMA
    crs: str = CRS
    distance_model: str = DISTANCE_MODEL

    @classmethod
    def of(cls, locations: Iterable[tuple[str, Location]]) -> SpatialSummary:
        """The summary of ``(document_id, location)`` rows: counts, and coverage of subjects."""
        rows = list(locations)
        return cls(
            location_count=len(rows),
            located_documents=len({doc for doc, _ in rows}),
            coverage=tuple(
                coverage((loc.latitude, loc.longitude) for _, loc in rows if loc.role == "subject")
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """The manifest ``spatial`` object."""
        return {
            "schema": self.schema,
            "crs": self.crs,
            "distanceModel": self.distance_model,
            "locationCount": self.location_count,
            "locatedDocuments": self.located_documents,
            "coverage": [b.to_json() for b in self.coverage],
        }


def spatial_summary(locations: Iterable[tuple[str, Location]]) -> dict[str, Any]:
    """The manifest ``spatial`` object for ``(document_id, location)`` rows."""
    return SpatialSummary.of(locations).to_json()
