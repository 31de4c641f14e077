from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gezk.errors import InvalidLocation
from gezk.spatial import (
    EARTH_RADIUS_M,
    Bounds,
    Location,
    RadiusQuery,
    bounding_boxes,
    coverage,
    distance_meters,
    distances_meters,
    normalize_longitude,
    spatial_summary,
)

lats = st.floats(-90, 90, allow_nan=False)
lons = st.floats(-180, 180, allow_nan=False)


def test_normalize_longitude() -> None:
    assert normalize_longitude(180.0) == -180.0
    assert math.copysign(1.0, normalize_longitude(-0.0)) == 1.0
    assert normalize_longitude(-180.0) == -180.0
    assert normalize_longitude(12.5) == 12.5


def test_one_degree_of_equator() -> None:
    assert distance_meters(0, 0, 0, 1) == pytest.approx(EARTH_RADIUS_M * math.pi / 180, rel=1e-12)


def test_poles_and_antimeridian_are_distance_zero() -> None:
    assert distance_meters(90, 0, 90, 180) == 0.0
    assert distance_meters(-90, 10, -90, -170) == 0.0
    assert distance_meters(0, 180, 0, -180) == 0.0
    assert distance_meters(90, 0, -90, 0) == pytest.approx(math.pi * EARTH_RADIUS_M)


@given(lats, lons, lats, lons)
def test_vectorised_distances_equal_the_scalar_form(
    lat1: float, lon1: float, lat2: float, lon2: float
) -> None:
    got = distances_meters(lat1, lon1, np.array([lat2]), np.array([lon2]))[0]
    assert got == pytest.approx(distance_meters(lat1, lon1, lat2, lon2), rel=1e-12, abs=1e-6)


@given(lats, lons, lats, lons)
def test_distance_is_symmetric_and_bounded(
    lat1: float, lon1: float, lat2: float, lon2: float
) -> None:
    d = distance_meters(lat1, lon1, lat2, lon2)
    assert 0.0 <= d <= math.pi * EARTH_RADIUS_M + 1e-6
    assert d == pytest.approx(distance_meters(lat2, lon2, lat1, lon1), rel=1e-12, abs=1e-6)


@given(lats, lons, st.floats(0, 2.5e7, allow_nan=False), lats, lons)
def test_bounding_boxes_contain_every_point_in_the_radius(
    lat: float, lon: float, radius: float, plat: float, plon: float
) -> None:
    query = RadiusQuery(lat, lon, radius)
    if query.contains(plat, plon):
        assert any(box.contains(plat, plon) for box in bounding_boxes(query))


def test_bounding_boxes_split_at_the_date_line_and_open_at_poles() -> None:
    boxes = bounding_boxes(RadiusQuery(0, 179.9, 50_000))
    assert len(boxes) == 2
    assert boxes[0].east == 180.0
    assert boxes[1].west == -180.0
    polar = bounding_boxes(RadiusQuery(89.9, 0, 50_000))
    assert polar == [Bounds(-180.0, polar[0].south, 180.0, 90.0)]
    (point,) = bounding_boxes(RadiusQuery(10, 20, 0))
    assert point.contains(10, 20)
    assert not point.contains(10, 20.000001)
    assert point.east - point.west < 1e-8
    (pole,) = bounding_boxes(RadiusQuery(90, 20, 0))
    assert (pole.west, pole.east, pole.north) == (-180, 180, 90)


def test_radius_at_least_half_the_circumference_includes_everything() -> None:
    query = RadiusQuery(12.0, 34.0, math.pi * EARTH_RADIUS_M)
    assert query.contains(-12.0, -146.0)


@pytest.mark.parametrize(
    "raw",
    [
        {"latitude": 91, "longitude": 0, "radiusMeters": 1},
        {"latitude": 0, "longitude": -180.5, "radiusMeters": 1},
        {"latitude": 0, "longitude": 0, "radiusMeters": -1},
        {"latitude": float("nan"), "longitude": 0, "radiusMeters": 1},
        {"latitude": 0, "longitude": 0, "radiusMeters": float("inf")},
        {"latitude": 0, "longitude": 0},
        {"latitude": 0, "longitude": 0, "radiusMeters": 1, "unit": "km"},
        {"latitude": True, "longitude": 0, "radiusMeters": 1},
    ],
)
def test_invalid_radius_queries(raw: dict[str, object]) -> None:
    with pytest.raises(InvalidLocation):
        RadiusQuery.from_json(raw)


def test_location_parsing_normalises_and_rejects() -> None:
    loc = Location.from_json({"id": "p", "latitude": -0.0, "longitude": 180, "role": "subject"})
    assert (loc.latitude, loc.longitude) == (0.0, -180.0)
    assert math.copysign(1.0, loc.latitude) == 1.0
    with pytest.raises(InvalidLocation) as info:
        Location.from_json({"id": "p", "latitude": 0, "longitude": 0, "role": "home"})
    assert info.value.reason == "invalid-location-role"
    with pytest.raises(InvalidLocation) as info:
        Location.from_json({"id": " p", "latitude": 0, "longitude": 0, "role": "subject"})
    assert info.value.reason == "invalid-location-id"


def test_coverage_of_nothing_is_empty() -> None:
    assert coverage([]) == []


def test_coverage_single_point_and_simple_arc() -> None:
    assert coverage([(1.0, 2.0)]) == [Bounds(2.0, 1.0, 2.0, 1.0)]
    assert coverage([(0, -10), (5, 20), (-3, 0)]) == [Bounds(-10, -3, 20, 5)]


def test_coverage_wrapping_arc_splits_western_positive_part_first() -> None:
    got = coverage([(0, 170), (1, -170), (2, 175)])
    assert got == [Bounds(170, 0, 180, 2), Bounds(-180, 0, -170, 2)]


def test_coverage_tied_gaps_choose_the_first_in_the_ascending_scan() -> None:
    got = coverage([(0, -180), (0, -60), (0, 60)])
    # Gaps are 120, 120, 120: the first (after -180) is excluded, arc runs -60..-180 wrapping.
    assert got == [Bounds(-60, 0, 180, 0), Bounds(-180, 0, -180, 0)]


def test_spatial_summary_counts_and_ignores_associated_points_for_coverage() -> None:
    rows = [
        ("a", Location("s1", 10.0, 10.0, "subject")),
        ("a", Location("s2", 12.0, 11.0, "subject")),
        ("b", Location("x", -50.0, -100.0, "associated")),
    ]
    summary = spatial_summary(rows)
    assert summary["locationCount"] == 3
    assert summary["locatedDocuments"] == 2
    assert summary["coverage"] == [{"west": 10.0, "south": 10.0, "east": 11.0, "north": 12.0}]
    assert (summary["schema"], summary["crs"], summary["distanceModel"]) == (
        "document-points@1",
        "EPSG:4326",
        "sphere-6371000",
    )


def _destination(lat: float, lon: float, bearing: float, meters: float) -> tuple[float, float]:
    """The point ``meters`` from (lat, lon) along ``bearing`` on the sphere (for test points)."""
    p1, l1, b = math.radians(lat), math.radians(lon), math.radians(bearing)
    ang = meters / EARTH_RADIUS_M
    p2 = math.asin(math.sin(p1) * math.cos(ang) + math.cos(p1) * math.sin(ang) * math.cos(b))
    l2 = l1 + math.atan2(
        math.sin(b) * math.sin(ang) * math.cos(p1), math.cos(ang) - math.sin(p1) * math.sin(p2)
    )
    lon2 = (math.degrees(l2) + 540.0) % 360.0 - 180.0
    return max(-90.0, min(90.0, math.degrees(p2))), lon2


@given(
    lats,
    lons,
    st.floats(1.0, 2.0e7, allow_nan=False),
    st.floats(0, 360, allow_nan=False),
    st.floats(0.0, 1.0, allow_nan=False),
)
def test_points_near_the_circle_edge_fall_in_a_candidate_box(
    lat: float, lon: float, radius: float, bearing: float, fraction: float
) -> None:
    plat, plon = _destination(lat, lon, bearing, radius * fraction)
    query = RadiusQuery(lat, lon, radius)
    if query.contains(plat, plon):
        assert any(box.contains(plat, plon) for box in bounding_boxes(query))
