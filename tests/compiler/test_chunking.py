"""markdown-chunks@2 (spec section 7.2), cut as the reference implementation cuts it."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.compiler.passes.chunking import (
    chunk_markdown,
    embed_header,
    embed_inputs,
    unit_counter,
)
from gezel_knowledge.compiler.text.blocks import LineIndex, normalize_body, parse_blocks
from gezel_knowledge.embedders.base import WhitespaceTokenizer
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import MARKDOWN_CHUNKS_2, ChunkingProfile
from tests.compiler.kit_corpus import kit_corpus

WS = WhitespaceTokenizer()


def _profile(target: int, overlap: int, header: int = 64, unit: str = "tokens") -> ChunkingProfile:
    return dataclasses.replace(
        MARKDOWN_CHUNKS_2,
        target=target,
        overlap=overlap,
        context_header_max=header,
        unit=unit,  # type: ignore[arg-type]
        tokenizer="profile" if unit == "tokens" else "none",
    )


def _chunks(body: str, profile: ChunkingProfile = MARKDOWN_CHUNKS_2, title: str = "Doc") -> Any:
    return chunk_markdown("doc", title, normalize_body(body), profile, unit_counter(profile, WS))


def test_conformance_semantic_probe_chunk(kit: dict[str, Any]) -> None:
    # The kit's fixture document starts with a one-sentence preamble before its first section.
    probe = kit["fixture"]["semanticProbe"]
    title, text = probe["embedInput"].split("\n", 1)
    body = f"{text}\n\n## Section 1 lumen\n\nAnvil tide marrow.\n"
    counter = unit_counter(MARKDOWN_CHUNKS_2, WS)
    chunks = chunk_markdown(probe["documentId"], title, body, MARKDOWN_CHUNKS_2, counter)
    first = chunks[0]
    assert first.text == text
    assert first.ordinal == 0
    assert first.chunk_uid == probe["chunkUid"]
    header = embed_header(title, first.heading_path, WS.count, 64)
    assert header + first.text == probe["embedInput"]


def test_the_kit_corpus_gives_the_kit_fixture_chunks(kit: dict[str, Any]) -> None:
    # The kit's fixture was chunked by the reference from this generated corpus: the same
    # number of chunks, and the probe document's first chunk has the kit's id.
    counter = unit_counter(MARKDOWN_CHUNKS_2, WS)
    corpus = kit_corpus(40, 7)
    assert len(corpus) == kit["fixture"]["documents"]
    chunked = {
        d.id: chunk_markdown(d.id, d.title, normalize_body(d.markdown), MARKDOWN_CHUNKS_2, counter)
        for d in corpus
    }
    assert sum(len(c) for c in chunked.values()) == kit["fixture"]["chunks"]
    probe = kit["fixture"]["semanticProbe"]
    assert chunked[probe["documentId"]][0].chunk_uid == probe["chunkUid"]
    # Heading lines open their section's text.
    second = chunked[probe["documentId"]][1]
    assert second.text.startswith("## Section 1 ")
    assert second.heading_path == (second.text.split("\n")[0][3:],)


def test_normalisation_crlf_nfc_bom_and_final_newline() -> None:
    assert normalize_body("\ufeffa\r\nb\rc") == "a\nb\nc\n"
    assert normalize_body("e\u0301") == "\u00e9\n"
    assert normalize_body("") == ""


def test_headings_inside_fenced_code_are_not_headings() -> None:
    body = "# Title\n\n```bash\n# comment\n## not a heading\n```\n\n~~~~\n# also code\n~~~~\n"
    blocks = parse_blocks(body, LineIndex(body))
    assert [b.kind for b in blocks] == ["heading", "fence", "fence"]
    chunks = _chunks(body, title="Title")
    assert len(chunks) == 1
    assert chunks[0].heading_path == ()
    assert "# comment" in chunks[0].text


def test_unclosed_fence_runs_to_the_end() -> None:
    body = "Intro.\n\n```\n# inside\n\n## still inside\n"
    assert [b.kind for b in parse_blocks(body)] == ["text", "fence"]


def test_heading_path_stack_and_title_h1_excluded() -> None:
    body = (
        "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n### Linux\n\nApt.\n\n"
        "## Use\n\nRun it.\n\n# Appendix\n\nMore.\n"
    )
    chunks = _chunks(body, title="Guide")
    assert [(c.heading_path, c.text) for c in chunks] == [
        ((), "# Guide\n\nIntro."),
        (("Install",), "## Install\n\nSteps."),
        (("Install", "Linux"), "### Linux\n\nApt."),
        (("Use",), "## Use\n\nRun it."),
        (("Appendix",), "# Appendix\n\nMore."),
    ]
    assert chunks[2].heading_text == "Install > Linux"
    other = _chunks(body, title="Another title")
    assert other[1].heading_path == ("Guide", "Install")


def test_chunk_records_lines_hash_uid_and_count() -> None:
    body = "Preface line.\n\n## Part\n\nFirst line\nsecond line.\n"
    chunks = _chunks(body)
    lines = normalize_body(body).split("\n")
    for c in chunks:
        assert c.text == "\n".join(lines[c.line_start - 1 : c.line_end]).strip()
        assert c.content_hash == content_hash(c.text)
        assert c.chunk_uid == chunk_uid("doc", c.ordinal, c.text)
        assert c.token_count == WS.count(c.text)
    # A chunk's lines are the lines it was packed from, blank ones included, and never the
    # empty "line" after the body's final LF.
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (3, 6)]
    assert [c.text for c in chunks] == ["Preface line.", "## Part\n\nFirst line\nsecond line."]
    assert [c.ordinal for c in chunks] == [0, 1]


def test_lines_are_packed_up_to_the_target() -> None:
    paragraphs = [" ".join(f"w{p}x{i}" for i in range(4)) for p in range(5)]
    body = "\n\n".join(paragraphs) + "\n"
    chunks = _chunks(body, _profile(target=8, overlap=0))
    assert [c.token_count for c in chunks] == [8, 8, 4]
    assert chunks[0].text == paragraphs[0] + "\n\n" + paragraphs[1]
    assert all(c.token_count <= 8 for c in chunks)


def test_oversized_line_splits_at_sentences_then_units() -> None:
    long_sentence = " ".join(f"t{i}" for i in range(25)) + "."
    body = f"Short one.   Another short one. {long_sentence} Tail end.\nNext line.\n"
    chunks = _chunks(body, _profile(target=10, overlap=0))
    assert [c.text for c in chunks] == [
        # Sentences of one line are regrouped with single spaces up to the target...
        "Short one. Another short one.",
        # ...a sentence over the target is cut at token boundaries...
        " ".join(f"t{i}" for i in range(10)),
        " ".join(f"t{i}" for i in range(10, 20)),
        " ".join(f"t{i}" for i in range(20, 25)) + ".",
        # ...and the sentences after it start a new group.
        "Tail end.",
        "Next line.",
    ]
    assert [(c.line_start, c.line_end) for c in chunks[:5]] == [(1, 1)] * 5
    assert (chunks[5].line_start, chunks[5].line_end) == (2, 2)
    assert all(c.token_count <= 10 for c in chunks)


def test_overlap_carries_trailing_whole_lines() -> None:
    body = "One two three.\nFour five six.\nSeven eight nine.\n\nTen eleven twelve thirteen.\n"
    chunks = _chunks(body, _profile(target=10, overlap=3))
    assert chunks[0].text == "One two three.\nFour five six.\nSeven eight nine."
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 4)
    # The next chunk starts with the trailing lines worth at most 3 tokens: the blank line
    # (free) and "Seven eight nine." (3).
    assert chunks[1].text == "Seven eight nine.\n\nTen eleven twelve thirteen."
    assert (chunks[1].line_start, chunks[1].line_end) == (3, 5)


def test_a_line_too_long_to_join_the_overlap_leaves_the_overlap_alone() -> None:
    # As in the reference: the carried lines and the next line exceed the target together, so
    # the carried lines make a chunk of their own before the long line gets its chunk.
    long_line = " ".join(f"w{i}" for i in range(9))
    chunks = _chunks(f"a b c\nd e f\n{long_line}\n", _profile(target=10, overlap=3))
    assert [c.text for c in chunks] == ["a b c\nd e f", "d e f", long_line]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (2, 2), (3, 3)]


def test_overlap_never_crosses_a_section() -> None:
    body = "## A\n\nAlpha beta gamma.\n\n## B\n\nDelta epsilon zeta.\n"
    chunks = _chunks(body, _profile(target=10, overlap=5))
    assert [c.text for c in chunks] == ["## A\n\nAlpha beta gamma.", "## B\n\nDelta epsilon zeta."]


def test_a_heading_only_section_is_a_chunk_of_its_own() -> None:
    body = "# Doc\n\n## Empty\n\n## Full\n\nText here.\n"
    chunks = _chunks(body)
    assert [(c.heading_path, c.text) for c in chunks] == [
        ((), "# Doc"),
        (("Empty",), "## Empty"),
        (("Full",), "## Full\n\nText here."),
    ]
    assert _chunks("") == []
    assert _chunks("\n\n") == []


def test_chunk_text_is_trimmed_as_ecmascript_trims() -> None:
    # U+FEFF is trimmed by String.prototype.trim, not by str.strip; U+001C the other way round.
    chunks = _chunks("\u00a0Text one\ufeff\n\n## Next\n\nText two\x1c\n")
    assert [c.text for c in chunks] == ["Text one", "## Next\n\nText two\x1c"]


def test_chars_unit() -> None:
    profile = _profile(target=20, overlap=0, unit="chars")
    counter = unit_counter(profile, None)
    body = normalize_body("abcdefghij klmnopqrst uvwxyzabcd\n")
    chunks = chunk_markdown("doc", "T", body, profile, counter)
    assert all(len(c.text) <= 20 for c in chunks)
    assert [c.token_count for c in chunks] == [len(c.text) for c in chunks]
    assert "".join(c.text for c in chunks).replace(" ", "") == body.strip().replace(" ", "")


def test_context_header_and_its_truncation() -> None:
    assert embed_header("Title", (), WS.count, 64) == "Title\n"
    assert embed_header("Title", ("Title",), WS.count, 64) == "Title\n"
    assert embed_header("Title", ("A", "B"), WS.count, 64) == "Title\nA > B\n"
    # "Title\nA > B\n" is four tokens: a limit of three keeps the title alone...
    assert embed_header("Title", ("A", "B"), WS.count, 3) == "Title\n"
    # ...and a title longer than the limit leaves no header at all.
    assert embed_header("A long title", ("A",), WS.count, 2) == ""


@dataclasses.dataclass(frozen=True)
class _Passage:
    heading_path: tuple[str, ...]
    text: str


def test_embed_inputs_put_each_passages_context_header_before_its_text() -> None:
    passages = [
        _Passage((), "intro"),
        _Passage(("A",), "first"),
        _Passage(("A", "B"), "deep"),
        _Passage(("A",), "second"),
    ]
    roomy = _profile(420, 0, header=64)
    assert embed_inputs("Doc", passages, unit_counter(roomy, WS), roomy) == [
        "Doc\nintro",
        "Doc\nA\nfirst",
        "Doc\nA > B\ndeep",
        "Doc\nA\nsecond",
    ]
    # "Doc\nA > B\n" is four tokens: with room for three, that passage keeps the title alone.
    tight = _profile(420, 0, header=3)
    inputs = embed_inputs("Doc", passages, unit_counter(tight, WS), tight)
    assert inputs[2] == "Doc\ndeep"
    assert inputs[1] == "Doc\nA\nfirst"


def test_chunking_is_deterministic() -> None:
    body = "# T\n\n" + "\n\n".join(f"Para {i}. " * 30 for i in range(20))
    profile = _profile(target=50, overlap=10)
    assert _chunks(body, profile) == _chunks(body, profile)


_WORD = st.text(alphabet="abcdefghij.!?é", min_size=1, max_size=8)
_LINE = st.lists(_WORD, min_size=1, max_size=30).map(" ".join)
_BLOCK = st.one_of(
    st.lists(_LINE, min_size=1, max_size=4).map("\n".join),
    st.integers(1, 6).flatmap(lambda d: _LINE.map(lambda t: "#" * d + " " + t)),
    st.lists(_LINE, min_size=0, max_size=3).map(
        lambda ls: "```\n" + "\n".join(["# x", *ls]) + "\n```"
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    blocks=st.lists(_BLOCK, min_size=0, max_size=12),
    target=st.integers(3, 40),
    overlap=st.integers(0, 10),
)
def test_chunks_cover_the_content_within_the_target(
    blocks: list[str], target: int, overlap: int
) -> None:
    body = normalize_body("\n\n".join(blocks))
    chunks = _chunks(body, _profile(target=target, overlap=overlap))
    lines = body.split("\n")
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    covered: dict[int, set[str]] = {}
    for c in chunks:
        assert c.text
        assert c.token_count <= target
        assert c.text in "\n".join(lines[c.line_start - 1 : c.line_end])
        for n in range(c.line_start, c.line_end + 1):
            covered.setdefault(n, set()).update(c.text.split())
    index = LineIndex(body)
    for block in parse_blocks(body, index):
        for n in range(block.line_start, block.line_end + 1):
            for token in lines[n - 1].split():
                # Every token of the body, headings included, is in a chunk spanning its line:
                # nothing is dropped, and unit splits cut between tokens, never inside one.
                assert token in covered.get(n, set()), (n, token)
