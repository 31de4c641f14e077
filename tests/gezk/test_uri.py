from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gezk.errors import InvalidReference
from gezk.ids import is_document_id
from gezk.uri import KnowledgeUri, parse_fragment

ids = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
segment = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12
)
document_ids = (
    st.lists(segment, min_size=1, max_size=4)
    .map(lambda parts: unicodedata.normalize("NFC", "/".join(parts)))
    .filter(is_document_id)
)
fragments = st.one_of(
    st.just({}),
    st.from_regex(r"[0-9a-f]{32}", fullmatch=True).map(lambda c: {"chunk": c}),
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)).map(
        lambda t: {"line_start": min(t), "line_end": max(t)}
    ),
    st.integers(0, 10**6).map(lambda n: {"line_start": n}),
)


@given(ids, ids, document_ids, fragments)
def test_format_then_parse_round_trips(
    publisher: str, catalog: str, document: str, fragment: dict[str, object]
) -> None:
    uri = KnowledgeUri(publisher, catalog, document, **fragment)  # type: ignore[arg-type]
    assume(len(uri.encoded_document_id) <= 512)
    text = str(uri)
    assert text.isascii()
    assert KnowledgeUri.parse(text) == uri
    assert str(KnowledgeUri.parse(text)) == text


@given(st.text(max_size=60))
def test_parse_never_raises_anything_but_invalid_reference(text: str) -> None:
    try:
        parsed = KnowledgeUri.parse("knowledge://" + text)
    except InvalidReference:
        return
    assert str(parsed).startswith("knowledge://")


@pytest.mark.parametrize(
    "text",
    [
        "http://me/notes/doc",
        "knowledge://me/notes/",
        "knowledge://me/notes",
        "knowledge://me//doc",
        "knowledge://me/notes/a//b",
        "knowledge://me/notes/a b",
        "knowledge://me/notes/a%2",
        "knowledge://me/notes/a%zz",
        "knowledge://me/notes/%FF",
        "knowledge://me/notes/doc!",
        "knowledge://me/notes/doc(1)",
        "knowledge://me/notes/doc#",
        "knowledge://me/notes/doc#chunk=ABCDEFabcdef0123456789abcdef0123",
        "knowledge://me/notes/doc#chunk=abc",
        "knowledge://me/notes/doc#line=",
        "knowledge://me/notes/doc#line=9-3",
        "knowledge://me/notes/doc#line=-3",
        "knowledge://me/notes/doc#line=3-",
        "knowledge://me/notes/%20doc",
        "knowledge://me/notes/" + "a" * 513,
        "KNOWLEDGE://me/notes/doc",
    ],
)
def test_ill_formed_references_are_rejected(text: str) -> None:
    with pytest.raises(InvalidReference) as info:
        KnowledgeUri.parse(text)
    assert info.value.reason == "invalid-reference"


def test_every_byte_outside_unreserved_is_encoded() -> None:
    uri = KnowledgeUri("me", "notes", "a!b(c)/é ~x_y.z-")
    assert uri.encoded_document_id == "a%21b%28c%29/%C3%A9%20~x_y.z-"


def test_lowercase_percent_escapes_parse_to_the_same_document() -> None:
    assert KnowledgeUri.parse("knowledge://me/notes/a%c3%a9").document_id == "aé"


def test_line_fragment_forms() -> None:
    single = KnowledgeUri.parse("knowledge://me/notes/doc#line=7")
    assert (single.line_start, single.line_end) == (7, None)
    assert str(single) == "knowledge://me/notes/doc#line=7"
    assert single.without_fragment() == KnowledgeUri("me", "notes", "doc")
    assert single.catalog_ref == "me/notes"


def test_constructor_refuses_both_fragments_and_bad_ids() -> None:
    with pytest.raises(InvalidReference):
        KnowledgeUri("me", "notes", "doc", chunk="0" * 32, line_start=1)
    with pytest.raises(InvalidReference):
        KnowledgeUri("Me", "notes", "doc")


@pytest.mark.parametrize("document_id", ["a//b", "a/", "/a", "//"])
def test_ids_with_empty_segments_are_cited_as_one_encoded_segment(document_id: str) -> None:
    uri = KnowledgeUri("me", "notes", document_id, line_start=3)
    text = str(uri)
    assert text.startswith("knowledge://me/notes/")
    assert text.count("/") == 4  # scheme's two, publisher/catalog's two: the id has none left
    assert KnowledgeUri.parse(text) == uri


@pytest.mark.parametrize(
    ("fragment", "parts"),
    [
        ("chunk=" + "0a" * 16, ("0a" * 16, None, None)),
        ("line=7", (None, 7, None)),
        ("line=3-9", (None, 3, 9)),
        ("line=9-3", (None, 9, 3)),
        ("line=", None),
        ("chunk=" + "0A" * 16, None),
        ("page=2", None),
        ("line=1-", None),
    ],
)
def test_parse_fragment(
    fragment: str, parts: tuple[str | None, int | None, int | None] | None
) -> None:
    assert parse_fragment(fragment) == parts
