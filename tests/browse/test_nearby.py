"""Nearby by meaning with the default model (a test dependency): the handbook built with
all-MiniLM-L6-v2, whose vectors place related pages close, unlike the test hash embedder's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from gezel_knowledge.browse import GuardSettings, Library, create_app
from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import load_embedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import cosine_floor
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1
from tests.browse.catalogs import HANDBOOK, HANDBOOK_KEY
from tests.browse.conftest import BASE, PORT

SIGNING = f"/c/{HANDBOOK_KEY}/nearby/building/signing"


@pytest.fixture(scope="module")
def model_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The handbook built and searched with the default model."""
    out = tmp_path_factory.mktemp("handbook-minilm")
    embedder = load_embedder(ALL_MINILM_L6_V2_INT8_1)
    options = BuildOptions(embedder=embedder, created_at="2026-12-01T00:00:00Z")
    compile_catalog(HANDBOOK, out / "handbook.gezk", options)
    library = Library([open_catalog(out / "handbook.gezk", embedder=embedder)])
    with TestClient(create_app(library, GuardSettings("127.0.0.1", PORT)), base_url=BASE) as c:
        yield c
    library.close()


def test_nearby_finds_related_pages_with_the_default_model(model_client: TestClient) -> None:
    data = model_client.get(f"{SIGNING}?format=json").json()
    assert data["unavailable"] is None
    hits = data["nearby"]
    assert len(hits) >= 3
    floor = cosine_floor(ALL_MINILM_L6_V2_INT8_1)
    assert floor is not None
    assert all(h["cosine"] >= floor for h in hits)
    assert [h["cosine"] for h in hits] == sorted((h["cosine"] for h in hits), reverse=True)
    assert not any(h["url"].split("?")[0].endswith("/d/building/signing") for h in hits)
    assert all(h["citation"].startswith(f"knowledge://{HANDBOOK_KEY}/") for h in hits)
    page = model_client.get(SIGNING).text
    assert "cosine" in page
    assert "No other passage is close in meaning" not in page


def test_the_hash_embedder_finds_nothing_close_and_says_so(named: TestClient) -> None:
    data = named.get(f"{SIGNING}?format=json").json()
    assert data["unavailable"] is None
    assert data["nearby"] == []  # hash vectors of different pages sit below the floor
    assert "No other passage is close in meaning" in named.get(SIGNING).text
