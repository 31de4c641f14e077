"""Notebook display and tables: results, hits, passages, listings and catalogs show what they
are, escape what catalogs supplied, and become Arrow tables and pandas frames."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.extras import MissingExtra
from gezel_knowledge.hits import Provenance, SearchHit, Signal
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog, DocumentPage, NearbyPage, TopicListing
from gezel_knowledge.results import SearchResult, SourceReport
from gezk.spatial import RadiusQuery
from tests.reader.catalog_builder import CatalogBuild, sample_docs

HOSTILE_TITLE = '<img src=x onerror="alert(1)">'
HOSTILE_TEXT = "<script>alert('pwned')</script> & friends"


@pytest.fixture
def handbook(handbook_gezk: Path) -> Iterator[Catalog]:
    with open_catalog(handbook_gezk, embedder=HashEmbedder()) as catalog:
        yield catalog


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog whose titles, headings, text and topic names carry markup."""
    docs, topics = sample_docs(4)
    docs[0].title = HOSTILE_TITLE
    docs[0].body = f"# {HOSTILE_TITLE}\n\n## <b>Bold</b> heading\n\nquasar {HOSTILE_TEXT}\n"
    docs[0].summary = HOSTILE_TEXT
    docs[1].locations = ({"id": "<here>", "latitude": 52.37, "longitude": 4.89, "role": "subject"},)
    topics[0].name = "<i>Craft</i>"
    return CatalogBuild(docs, topics).write(tmp_path_factory.mktemp("hostile") / "catalog")


@pytest.fixture
def hostile(hostile_root: Path) -> Iterator[Catalog]:
    with open_catalog(hostile_root, embedder=HashEmbedder()) as catalog:
        yield catalog


def _no_markup_from_the_catalog(html: str) -> None:
    assert "<script" not in html
    assert "<img" not in html
    assert "<b>" not in html
    assert "<i>" not in html
    assert "<here>" not in html


def _cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.DOTALL)
    return [re.findall(r"<td>(.*?)</td>", row, flags=re.DOTALL) for row in rows[1:]]


def test_a_search_result_renders_as_a_table_of_its_hits(handbook: Catalog) -> None:
    result = handbook.search("how do I sign a catalog", k=4)
    assert result.hits
    html = result._repr_html_()
    rows = _cells(html)
    assert len(rows) == len(result.hits)
    for hit, row in zip(result.hits, rows, strict=True):
        number, title, heading, score, relevance, signals, excerpt = row
        assert number == str(hit.rank + 1)
        assert title.startswith(hit.title)
        assert "gezel-knowledge/gezel-handbook 2026.12.1" in title
        assert heading == " › ".join(hit.heading_path)
        assert relevance == f"{hit.relevance:.3f}"
        assert hit.score is not None
        assert score == f"{hit.score:.3f}"
        assert [s.split(" ")[0] for s in signals.split("<br>")] == [s.name for s in hit.signals]
        assert excerpt.endswith(f"<code>{hit.citation}</code>")
    assert "untrusted" in html


def test_text_a_catalog_supplied_is_escaped_everywhere(hostile: Catalog) -> None:
    result = hostile.search("quasar", k=5)
    hit = next(h for h in result.hits if h.document_id == "doc-0000")
    page = hostile.list_documents(limit=10)
    nearby = hostile.nearby(RadiusQuery(52.37, 4.89, 1000))
    assert nearby.results
    for html in (
        result._repr_html_(),
        hit._repr_html_(),
        hostile.read(hit.citation)._repr_html_(),
        hostile.topics()._repr_html_(),
        page._repr_html_(),
        nearby._repr_html_(),
    ):
        _no_markup_from_the_catalog(html)
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in result._repr_html_()
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; &amp; friends" in (
        hit._repr_html_()
    )
    assert "&lt;i&gt;Craft&lt;/i&gt;" in hostile.topics()._repr_html_()


def test_a_hit_shows_every_fact_and_its_whole_text(handbook: Catalog) -> None:
    hit = handbook.search("signing keys", k=1).hits[0]
    html = hit._repr_html_()
    assert hit.citation in html
    assert f"{hit.relevance:.3f} (rank-based, not a probability)" in html
    assert hit.provenance is not None
    assert hit.provenance.archive_sha256 in html
    assert f"<pre>{hit.text}</pre>" in html.replace("&#x27;", "'").replace("&quot;", '"')


def test_reprs_say_what_each_value_is(handbook: Catalog, handbook_gezk: Path) -> None:
    result = handbook.search("install", k=2)
    assert repr(result) == (
        f"<SearchResult 'install' hybrid: {len(result.hits)} hits from "
        "gezel-knowledge/gezel-handbook>"
    )
    hit = result.hits[0]
    assert hit.score is not None
    assert repr(hit) == f"<SearchHit #1 {hit.title!r} score {hit.score:.3f} {hit.citation}>"
    passage = handbook.read(hit.citation)
    assert repr(passage) == (
        f"<Passage passage, lines {passage.line_start}-{passage.line_end} of "
        f"{passage.title!r}, {len(passage.text)} characters: {passage.citation}>"
    )
    documents = handbook.manifest.counts.documents
    chunks = handbook.manifest.counts.chunks
    assert repr(handbook) == (
        f"<Catalog gezel-knowledge/gezel-handbook 2026.12.1: {documents} documents, {chunks} "
        f"passages in 1 shards, test-hash-embed@1, at {handbook.root}>"
    )
    topics = handbook.topics()
    roots = sum(1 for t in topics if t.parent_id is None)
    assert repr(topics) == f"<TopicListing: {len(topics)} topics, {roots} roots>"
    assert repr(handbook.list_documents(limit=3)) == f"<DocumentPage 1-3 of {documents} documents>"


def test_the_catalog_shows_its_identity_in_a_notebook(handbook: Catalog) -> None:
    html = handbook._repr_html_()
    assert "knowledge://gezel-knowledge/gezel-handbook/" in html
    assert handbook.manifest.name in html
    assert str(handbook.archive_sha256) in html
    assert "test-hash-embed@1" in html


def test_topics_are_still_a_tuple_of_topics(handbook: Catalog) -> None:
    topics = handbook.topics()
    assert isinstance(topics, TopicListing)
    assert isinstance(topics, tuple)
    assert topics[0].depth == 0
    assert [t.id for t in topics] == [t.id for t in tuple(topics)]


def test_a_result_becomes_an_arrow_table_one_typed_row_per_hit(handbook: Catalog) -> None:
    result = handbook.search("how do I sign a catalog", k=5)
    table = result.to_arrow()
    assert table.num_rows == len(result.hits)
    assert table.column("citation").to_pylist() == [h.citation for h in result.hits]
    assert table.column("relevance").to_pylist() == [h.relevance for h in result.hits]
    assert table.column("score").to_pylist() == [h.score for h in result.hits]
    assert table.column("heading_path").to_pylist() == [list(h.heading_path) for h in result.hits]
    assert table.column("signals").to_pylist() == [
        [{"name": s.name, "rank": s.rank, "score": s.score} for s in h.signals] for h in result.hits
    ]
    assert set(table.column("catalog_version").to_pylist()) == {"2026.12.1"}
    assert table.column("untrusted").to_pylist() == [True] * len(result.hits)
    assert table.schema.field("rank").type == pa.int64()
    assert table.schema.field("heading_path").type == pa.list_(pa.string())
    empty = SearchResult("nothing", "hybrid", ()).to_arrow()
    assert empty.num_rows == 0
    assert empty.schema == table.schema


def test_a_mark_that_is_no_ranked_list_shows_no_rank() -> None:
    # keyword-only is a mark (rank 0), not a place in a list: no "#0" in a notebook's tables.
    hit = SearchHit(
        "catalog",
        "p/c",
        "doc",
        "Title",
        "text",
        "knowledge://p/c/doc",
        0,
        1.0,
        signals=(Signal("keyword", 2, 7.5), Signal("keyword-only", 0, 0.0612)),
    )
    for html in (hit._repr_html_(), SearchResult("q", "hybrid", (hit,))._repr_html_()):
        assert "keyword #2 (7.5)" in html
        assert "keyword-only (0.0612)" in html
        assert "#0" not in html


def test_a_result_becomes_a_pandas_frame_with_nullable_columns() -> None:
    hits = (
        SearchHit(
            "catalog",
            "p/c",
            "doc",
            "Title",
            "text",
            "knowledge://p/c/doc#chunk=" + "0" * 32,
            0,
            1.0,
            heading_path=("A", "B"),
            line_start=3,
            line_end=9,
            chunk_uid="0" * 32,
            signals=(Signal("vector", 1, 0.8),),
            provenance=Provenance("p", "c", "1.0", "ab" * 32),
        ),
        SearchHit("memory", "m", "2026-12-02", "Note", "remember", "memory/x.md", 1, 11 / 12),
    )
    frame = SearchResult("q", "hybrid", hits, (SourceReport("p/c", "catalog"),)).to_pandas()
    assert list(frame["citation"]) == [h.citation for h in hits]
    assert str(frame["line_start"].dtype) == "Int64"
    assert frame["line_start"].tolist()[0] == 3
    assert frame["line_start"].isna().tolist() == [False, True]
    assert frame["catalog_version"].isna().tolist() == [False, True]
    assert frame["heading_path"].tolist() == [["A", "B"], []]
    assert list(frame.columns) == result_columns()


def result_columns() -> list[str]:
    return SearchResult("q", "hybrid", ()).to_arrow().schema.names


def test_listings_become_tables(hostile: Catalog) -> None:
    topics = hostile.topics()
    table = topics.to_arrow()
    assert table.column("id").to_pylist() == [t.id for t in topics]
    assert table.column("subtree_count").to_pylist() == [t.subtree_count for t in topics]
    page = hostile.list_documents(limit=2, offset=1)
    frame = page.to_pandas()
    assert list(frame["id"]) == [d.id for d in page.documents]
    assert page.to_arrow().num_rows == 2
    nearby = hostile.nearby(RadiusQuery(52.37, 4.89, 1000))
    assert nearby.to_arrow().column("location_id").to_pylist() == ["<here>"]
    assert nearby.to_pandas()["document_id"].tolist() == ["doc-0001"]
    hit = hostile.search("quasar", k=1).hits[0]
    assert hit.to_arrow().column("citation").to_pylist() == [hit.citation]


def test_tables_without_the_extra_name_it(
    handbook: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = handbook.search("install", k=1)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingExtra) as arrow:
        result.to_arrow()
    assert arrow.value.reason == "missing-extra"
    assert arrow.value.extra == "notebook"
    with pytest.raises(MissingExtra) as pandas:
        handbook.topics().to_pandas()
    assert "gezel-knowledge[notebook]" in str(pandas.value)


def test_a_catalog_that_finds_its_embedder_does_not_claim_keyword_search_only(
    handbook_gezk: Path,
) -> None:
    # Issue 25 item 11: the display said "keyword search only" until a search loaded the model.
    with open_catalog(handbook_gezk) as catalog:
        before = catalog._repr_html_()
        assert "keyword search only" not in before
        assert "test-hash-embed@1&#x27;s, loaded on the first semantic search" in before
        catalog.search("signing", k=1)
        assert "<td>ready</td>" in catalog._repr_html_()
    with open_catalog(handbook_gezk, embedder=None) as keywords:
        assert "none: keyword search only" in keywords._repr_html_()


def test_tables_are_typed_as_arrow_tables_and_data_frames() -> None:
    # Issue 25 item 11: to_pandas() and to_arrow() were typed Any.
    for kind in (SearchResult, SearchHit, TopicListing, DocumentPage, NearbyPage):
        assert inspect.signature(kind.to_arrow).return_annotation == "pyarrow.Table"
        assert inspect.signature(kind.to_pandas).return_annotation == "pandas.DataFrame"
