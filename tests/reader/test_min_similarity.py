"""A cosine floor outside [-1, 1] is refused by every search, not answered with nothing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders.base import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes import ContentIndex, MemoryIndex
from gezel_knowledge.install import HomeState
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.query import check_min_similarity
from gezel_knowledge.search import KnowledgeSearch

BAD = [1.5, -1.01, math.nan, math.inf]


@pytest.mark.parametrize("value", [None, -1.0, 0.0, 0.35, 1.0])
def test_a_floor_from_minus_one_to_one_is_accepted(value: float | None) -> None:
    check_min_similarity(value)


@pytest.mark.parametrize("value", BAD)
def test_a_floor_outside_the_cosine_range_is_refused(value: float) -> None:
    with pytest.raises(InvalidInput) as err:
        check_min_similarity(value)
    assert err.value.reason == "invalid-similarity"


@pytest.mark.parametrize("value", BAD)
def test_every_searchable_refuses_it(tmp_path: Path, shared_catalog: Path, value: float) -> None:
    (tmp_path / "ws").mkdir()
    memory = MemoryIndex(tmp_path, embedder=HashEmbedder())
    content = ContentIndex(tmp_path / "ws", home=tmp_path, embedder=HashEmbedder())
    catalogs = KnowledgeSearch(HomeState(tmp_path))
    with open_catalog(shared_catalog, embedder=HashEmbedder()) as catalog, memory, content:
        for search in (catalog.search, memory.search, content.search, catalogs.search):
            with pytest.raises(InvalidInput) as err:
                search("anything", min_similarity=value)
            assert err.value.reason == "invalid-similarity"


def test_the_search_command_refuses_it(
    shared_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["search", str(shared_catalog), "anything", "--min-similarity", "2"])
    err = capsys.readouterr().err
    assert code == 1
    assert "[invalid-similarity]" in err
