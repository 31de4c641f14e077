"""Resolving references: knowledge:// URIs and document ids, with #line= and #chunk=."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezk.errors import InvalidReference
from gezk.ids import chunk_uid
from tests.reader.catalog_builder import chunk_document
from tests.reader.conftest import shared_toc_build


@pytest.fixture
def catalog(shared_catalog: Path) -> Iterator[Catalog]:
    with open_catalog(shared_catalog) as c:
        yield c


def test_whole_document_by_uri_and_by_id(catalog: Catalog) -> None:
    doc = shared_toc_build().docs[3]
    by_uri = catalog.read("knowledge://tester/demo/doc-0003")
    by_id = catalog.read("doc-0003")
    assert by_uri == by_id
    assert by_uri.kind == "document"
    assert by_uri.text == doc.body
    assert by_uri.title == doc.title
    assert by_uri.citation == "knowledge://tester/demo/doc-0003"


def test_line_slice_of_the_normalized_body(catalog: Catalog) -> None:
    body_lines = shared_toc_build().docs[3].body.split("\n")
    passage = catalog.read("knowledge://tester/demo/doc-0003#line=3-5")
    assert passage.kind == "lines"
    assert passage.text == "\n".join(body_lines[2:5]) + "\n"
    assert (passage.line_start, passage.line_end) == (3, 5)
    assert passage.citation.endswith("#line=3-5")
    single = catalog.read("doc-0003#line=1")
    assert single.text == body_lines[0] + "\n"
    assert (single.line_start, single.line_end) == (1, 1)


def test_chunk_passage_with_its_line_range(catalog: Catalog) -> None:
    doc = shared_toc_build().docs[3]
    chunk = chunk_document(doc)[1]
    uid = chunk_uid(doc.id, chunk.ordinal, chunk.text)
    passage = catalog.read(f"knowledge://tester/demo/doc-0003#chunk={uid}")
    assert passage.kind == "chunk"
    assert passage.text == chunk.text
    assert (passage.line_start, passage.line_end) == (chunk.line_start, chunk.line_end)
    assert passage.heading_path == ("Details",)
    assert passage.chunk_uid == uid
    assert catalog.read(f"doc-0003#chunk={uid}") == passage


def test_reference_to_another_catalog_is_a_typed_error(catalog: Catalog) -> None:
    with pytest.raises(NotFound) as info:
        catalog.read("knowledge://tester/other/doc-0003")
    assert info.value.reason == "other-catalog"
    with pytest.raises(NotFound) as info:
        catalog.read("knowledge://someone/demo/doc-0003")
    assert info.value.reason == "other-catalog"


def test_missing_chunk_and_document(catalog: Catalog) -> None:
    with pytest.raises(NotFound) as info:
        catalog.read("knowledge://tester/demo/doc-0003#chunk=" + "0" * 32)
    assert info.value.reason == "chunk-not-found"
    with pytest.raises(NotFound) as info:
        catalog.read("knowledge://tester/demo/nope")
    assert info.value.reason == "document-not-found"


@pytest.mark.parametrize("fragment", ["line=0", "line=90-95", "line=2-999"])
def test_line_ranges_outside_the_body(catalog: Catalog, fragment: str) -> None:
    with pytest.raises(InvalidInput) as info:
        catalog.read(f"knowledge://tester/demo/doc-0003#{fragment}")
    assert info.value.reason == "line-out-of-range"


@pytest.mark.parametrize(
    "reference",
    [
        "knowledge://tester/demo",
        "knowledge://Tester/demo/doc-0003",
        "knowledge://tester/demo/doc-0003#page=2",
        "knowledge://tester/demo/doc-0003#chunk=XYZ",
        "knowledge://tester/demo/doc-0003#line=5-2",
    ],
)
def test_ill_formed_uris_are_rejected_not_repaired(catalog: Catalog, reference: str) -> None:
    with pytest.raises(InvalidReference):
        catalog.read(reference)


def test_bare_id_with_unknown_fragment(catalog: Catalog) -> None:
    with pytest.raises(InvalidInput) as info:
        catalog.read("doc-0003#page=1")
    assert info.value.reason == "invalid-reference"


@pytest.mark.parametrize("fragment", ["line=5-2", "chunk=XYZ", "line=", "chunk=" + "A" * 32])
def test_bare_id_with_an_ill_formed_fragment(catalog: Catalog, fragment: str) -> None:
    with pytest.raises(InvalidInput) as info:
        catalog.read(f"doc-0003#{fragment}")
    assert info.value.reason == "invalid-reference"
    assert info.value.subject == f"doc-0003#{fragment}"


def test_percent_encoded_document_ids_round_trip(tmp_path: Path) -> None:
    build = shared_toc_build()
    build.docs[7].id = "Mechanics/Newton laws ü"
    root = build.write(tmp_path / "c")
    with open_catalog(root) as c:
        doc = c.document("Mechanics/Newton laws ü")
        assert doc.citation == "knowledge://tester/demo/Mechanics/Newton%20laws%20%C3%BC"
        assert c.read(doc.citation).document_id == "Mechanics/Newton laws ü"
