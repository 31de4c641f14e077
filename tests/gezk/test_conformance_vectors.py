"""Every entry of the gezk 0.7 conformance kit that needs no fixture archive.

Quantization and hamming vectors are checked in ``test_quantize.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gezk.errors import InvalidReference
from gezk.hashembed import hash_embed
from gezk.ids import chunk_uid, content_hash
from gezk.jcs import canonicalize
from gezk.signing import key_id, public_key_from_pem
from gezk.spatial import Location, RadiusQuery, distance_meters
from gezk.uri import KnowledgeUri
from gezk.versions import WRITTEN
from tests.conftest import load_kit

KIT = load_kit()


def test_kit_is_the_generation_we_write(kit: dict[str, Any]) -> None:
    assert kit["formatVersion"] == WRITTEN.format_version


@pytest.mark.parametrize("case", KIT["chunkUid"], ids=lambda c: c["documentId"])
def test_chunk_uid(case: dict[str, Any]) -> None:
    assert chunk_uid(case["documentId"], case["ordinal"], case["text"]) == case["expected"]


@pytest.mark.parametrize("case", KIT["contentHash"])
def test_content_hash(case: dict[str, Any]) -> None:
    assert content_hash(case["text"]) == case["expected"]


@pytest.mark.parametrize("case", KIT["jcs"])
def test_jcs(case: dict[str, Any]) -> None:
    assert canonicalize(case["input"]) == case["canonical"].encode("utf-8")


def _parsed(uri: KnowledgeUri) -> dict[str, Any]:
    out: dict[str, Any] = {
        "publisherId": uri.publisher_id,
        "catalogId": uri.catalog_id,
        "documentId": uri.document_id,
    }
    if uri.chunk is not None:
        out["fragment"] = {"chunk": uri.chunk}
    elif uri.line_start is not None:
        fragment: dict[str, int] = {"lineStart": uri.line_start}
        if uri.line_end is not None:
            fragment["lineEnd"] = uri.line_end
        out["fragment"] = fragment
    return out


@pytest.mark.parametrize("case", KIT["uri"], ids=lambda c: c["uri"])
def test_uri_parse(case: dict[str, Any]) -> None:
    if case["parsed"] is None:
        with pytest.raises(InvalidReference):
            KnowledgeUri.parse(case["uri"])
    else:
        parsed = KnowledgeUri.parse(case["uri"])
        assert _parsed(parsed) == case["parsed"]
        assert str(parsed) == case["uri"]


def test_uri_format(kit: dict[str, Any]) -> None:
    case = kit["uriFormat"]
    src = case["input"]
    uri = KnowledgeUri(
        src["publisherId"], src["catalogId"], src["documentId"], chunk=src["fragment"]["chunk"]
    )
    assert str(uri) == case["expected"]


def test_hash_embedder_sample(kit: dict[str, Any]) -> None:
    spec = kit["hashEmbedder"]
    assert spec["id"] == "test-hash-embed@1"
    vector = hash_embed([spec["sample"]["text"]], spec["dimensions"])[0]
    assert vector.shape == (spec["dimensions"],)
    np.testing.assert_allclose(vector[:8], spec["sample"]["unitVector"], rtol=0, atol=1e-7)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-6


def test_signature_key_id(kit: dict[str, Any]) -> None:
    spec = kit["signature"]
    key = public_key_from_pem(spec["publicKeyPem"].encode("ascii"))
    assert key_id(key) == spec["keyId"] == spec["manifestSignatureKeyId"]


@pytest.mark.parametrize("case", KIT["spatial"]["distance"])
def test_spatial_distance(case: dict[str, Any]) -> None:
    a, b = case["from"], case["to"]
    got = distance_meters(a["latitude"], a["longitude"], b["latitude"], b["longitude"])
    assert got == pytest.approx(case["expectedMeters"], rel=1e-12, abs=1e-9)


# The kit's radius probes run against its fixture catalog, which is not shipped here. These are
# points consistent with those probes (a Seattle subject, a date-line subject stored at -180, a
# pole subject, an exact point), plus associated points that must never qualify.
_POINTS: dict[str, list[dict[str, Any]]] = {
    "doc-0000": [{"id": "seattle", "latitude": 47.6062, "longitude": -122.3321, "role": "subject"}],
    "doc-0001": [{"id": "antimeridian", "latitude": 0.0, "longitude": 180, "role": "subject"}],
    "doc-0002": [{"id": "north-pole", "latitude": 90, "longitude": -45.5, "role": "subject"}],
    "doc-0003": [
        {"id": "birthplace", "latitude": 47.61, "longitude": -122.33, "role": "associated"},
        {"id": "pole-visit", "latitude": 90, "longitude": 170, "role": "associated"},
    ],
    "doc-0004": [{"id": "exact", "latitude": 30.1, "longitude": 50.2, "role": "subject"}],
}


@pytest.mark.parametrize("case", KIT["spatial"]["nearby"], ids=lambda c: str(c["radius"]))
def test_spatial_nearby(case: dict[str, Any]) -> None:
    query = RadiusQuery.from_json(case["radius"])
    hits = sorted(
        doc
        for doc, points in _POINTS.items()
        for loc in map(Location.from_json, points)
        if loc.role == "subject" and query.contains(loc.latitude, loc.longitude)
    )
    assert sorted(set(hits)) == sorted(case["expectedDocumentIds"])
