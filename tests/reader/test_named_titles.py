"""The named-title list: documents whose title a question names, and how little it weighs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.fusion import KEYWORD, RRF10, TITLE, VECTOR
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.query import query_terms
from gezel_knowledge.reader import Catalog, _titles
from gezel_knowledge.reader._kwcache import KEYWORD_INDEX_ENV
from gezel_knowledge.reader._rows import ChunkRow
from gezel_knowledge.reader._titles import _scored_by_fts5, _title_words, named_titles
from gezel_knowledge.reader.hybrid import NAMED, RankedDocument, RankedPassage, fuse_documents
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic

TOPICS = [Topic("all", "All", None, "1")]


def _doc(doc_id: str, title: str, text: str) -> Doc:
    return Doc(doc_id, title, f"# {title}\n\n{text}\n", ("all",))


@pytest.fixture(scope="module")
def titled_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = [
        _doc("templates", "Templates", "Render a page from a Jinja2 file with its context."),
        _doc("release-notes", "Release notes", "Version 0.8: Jinja2 templates render faster."),
        _doc("routing", "Routing", "Each route maps a path to an endpoint."),
        _doc("philosophy", "Option philosophy", "Why so few options exist."),
        _doc("where-in", "Where in", "Filter rows by a list of values."),
    ]
    # Other pages, so that no word of the titles above is in a quarter of the passages.
    docs += [_doc(f"page-{i:02d}", f"Page {i:02d}", f"Quiet notes {i:02d}.") for i in range(12)]
    return CatalogBuild(docs, TOPICS).write(tmp_path_factory.mktemp("named") / "catalog")


@pytest.fixture
def catalog(titled_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(titled_catalog, embedder=HashEmbedder()) as c:
        yield c


def _named(catalog: Catalog, question: str) -> list[str]:
    result = catalog.search(question, mode="keyword", k=5)
    return [h.document_id for h in result.hits if h.signal(NAMED) is not None]


def test_a_question_names_a_title_all_of_whose_words_it_says(catalog: Catalog) -> None:
    # Neither title holds every word of the question: the title list is empty.
    result = catalog.search("How do I render Jinja2 templates?", mode="keyword", k=5)
    assert all(h.signal(TITLE) is None for h in result.hits)
    assert _named(catalog, "How do I render Jinja2 templates?") == ["templates"]
    assert NAMED in result.sources[0].signals


def test_a_title_is_named_by_a_word_sharing_its_stem(catalog: Catalog) -> None:
    assert _named(catalog, "How do I define path parameters in routes?") == ["routing"]


def test_a_title_word_the_question_lacks_keeps_it_unnamed(catalog: Catalog) -> None:
    assert _named(catalog, "Which options are there?") == []
    assert _named(catalog, "What is the philosophy behind the options?") == ["philosophy"]


def test_a_title_of_stopwords_only_is_never_named(catalog: Catalog) -> None:
    assert _named(catalog, "How do I use a where in clause?") == []


def test_vector_mode_has_no_named_title_list(catalog: Catalog) -> None:
    result = catalog.search("How do I render Jinja2 templates?", mode="vector", k=5)
    assert NAMED not in result.sources[0].signals


def _row(document_id: str) -> ChunkRow:
    return ChunkRow(0, hash(document_id) % 1000, document_id, document_id, 0, "", (), 1, 1, "")


def _passages(*ids: str) -> list[RankedPassage]:
    return [RankedPassage(_row(d), 1.0 / (i + 1)) for i, d in enumerate(ids)]


def test_a_named_title_settles_a_tie_of_the_passage_lists() -> None:
    lists = {
        VECTOR: _passages("notes", "templates", "index"),
        KEYWORD: _passages("templates", "notes", "index"),
    }
    # Tied, the vector list's first wins (lists are read vector first).
    assert [f.key for f in fuse_documents(lists, RRF10)][:2] == ["notes", "templates"]
    named = {**lists, NAMED: [RankedDocument("templates", 2.0)]}
    assert [f.key for f in fuse_documents(named, RRF10)][:2] == ["templates", "notes"]


def test_a_named_title_never_outvotes_both_passage_lists() -> None:
    lists = {
        VECTOR: _passages("background", "responses", "index"),
        KEYWORD: _passages("background", "index", "other", "more", "responses"),
        NAMED: [RankedDocument("responses", 5.0)],
    }
    fused = fuse_documents(lists, RRF10)
    assert fused[0].key == "background"
    # At a full title list's weight the named title would have won.
    as_title = {VECTOR: lists[VECTOR], KEYWORD: lists[KEYWORD], TITLE: lists[NAMED]}
    assert fuse_documents(as_title, RRF10)[0].key == "responses"


@pytest.fixture(scope="module")
def product_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # "Bulbkeeper" is in every passage: the catalog's own subject, as a product's name is.
    docs = [
        _doc("about", "Bulbkeeper", "Bulbkeeper keeps notes on bulbs."),
        _doc("why", "Why Bulbkeeper?", "Bulbkeeper is small."),
        _doc("storage", "Storage", "Bulbkeeper stores tulip bulbs in a cool dry place."),
        _doc("planting", "Planting", "Bulbkeeper plants daffodils in autumn."),
    ]
    return CatalogBuild(docs, TOPICS).write(tmp_path_factory.mktemp("product") / "catalog")


@pytest.mark.parametrize("index", ["on", "off"])
def test_a_word_of_every_page_names_no_title_by_itself(
    product_catalog: Path, index: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Passage counts come from the derived keyword index, or from FTS5 without it.
    monkeypatch.setenv(KEYWORD_INDEX_ENV, index)
    with open_catalog(product_catalog, embedder=HashEmbedder()) as catalog:
        # "Bulbkeeper" and "Why Bulbkeeper?" hold only the common word: never named.
        assert _named(catalog, "Where does Bulbkeeper store tulip bulbs?") == []
        assert _named(catalog, "What is the storage of Bulbkeeper like?") == ["storage"]
        # A title's common word must still be said for the title to be named.
        assert _named(catalog, "What is Bulbkeeper?") == []
        store, shard = catalog._store, catalog._store.shards[0]
        counted = store.keyword.passages_with(shard, "bulbkeeper")
        assert counted == (4 if index == "on" else None)


@pytest.mark.parametrize(
    "question",
    [
        "How do I render Jinja2 templates?",
        "What is the philosophy behind the options, and the templates?",
        "How do I define path parameters in routes and routing?",
        "Notes on page 03 and page 07 of the release",
    ],
)
def test_named_titles_are_scored_as_fts5_scores_them(catalog: Catalog, question: str) -> None:
    # The named documents' BM25 is computed from the titles' token counts; SQLite's own
    # bm25() over the same documents is the reference, scores and order alike.
    store = catalog._store
    terms = query_terms(question)
    named = named_titles(store, terms, 10, None)
    assert named
    rowids = [
        int(r[0])
        for r in store.router.execute(
            "SELECT rowid FROM fts_documents WHERE document_id IN (SELECT value FROM json_each(?))"
            " ORDER BY rowid",
            (json.dumps([n.document_id for n in named]),),
        )
    ]
    # The named documents were scored from the token counts and FTS5's totals.
    assert (
        _title_words(store).rows
        == store.router.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    )
    phrases = [v for t in terms for v in store.keyword.title_variants(t)]
    reference = _scored_by_fts5(store, np.array(rowids, dtype=np.int64), phrases, 10)
    assert [n.document_id for n in named] == [r.document_id for r in reference]
    assert [n.score for n in named] == pytest.approx([r.score for r in reference], rel=1e-12)


def test_a_phrase_in_the_question_is_scored_by_fts5(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A snake_case word is a phrase, which title token counts cannot score: FTS5 does.
    def counted(*_: object) -> None:
        raise AssertionError("a phrase was scored from token counts")

    monkeypatch.setattr(_titles, "_bm25", counted)
    named = _named(catalog, "Does release_notes list the templates?")
    assert set(named) == {"release-notes", "templates"}


def test_titles_are_scored_by_fts5_when_its_totals_cannot_be_read(
    titled_catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(*_: object) -> tuple[int, int]:
        return 0, 0

    monkeypatch.setattr(_titles, "_totals", unreadable)
    calls: list[object] = []
    monkeypatch.setattr(_titles, "_bm25", lambda *a: calls.append(a))
    with open_catalog(titled_catalog, embedder=HashEmbedder()) as catalog:
        assert _named(catalog, "How do I render Jinja2 templates?") == ["templates"]
    assert calls == []
