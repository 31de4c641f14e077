"""Saved memory reads back exactly, whatever its text (issue 25 item 2), and is bounded (issue 26
item 19): Markdown headings, fences, front matter, list markers, indentation, CRLF, lone
carriage returns, Unicode line separators and emoji all survive the daily file."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes import MemoryIndex
from gezel_knowledge.indexes._memory_format import (
    MAX_MEMORY_BYTES,
    format_entry,
    parse_memory_file,
)

TODAY = date(2026, 12, 2)

_FRAGMENTS = st.sampled_from(
    [
        "# Heading",
        "#123 was a race",
        "## sub",
        "```python\nprint('x')\n```",
        "~~~\nfenced\n~~~",
        "---\ntitle: front matter\n---",
        "- a list item",
        "* another",
        "- (status, project) looks like a tag",
        "  indented",
        "\ttabbed",
        "trailing  ",
        "\r\n",
        "\r",
        "\n\n",
        "\u2028",
        "\x85",
        '"quoted"',
        "\\n not a newline",
        "héllo wörld ✓ 🧠 日本語",
        "> quote",
        "",
    ]
)
TEXTS = st.one_of(
    st.lists(st.one_of(_FRAGMENTS, st.text(max_size=12)), min_size=1, max_size=8).map("".join),
    st.lists(_FRAGMENTS, min_size=1, max_size=6).map("\n".join),
    st.text(min_size=1, max_size=200),
).filter(lambda t: t.strip() != "")


def _round_trip(folder: Path, texts: list[str]) -> None:
    with MemoryIndex(folder) as memory:
        saved = [memory.add(t, kind="fact", day=TODAY) for t in texts]
        read = memory.entries(TODAY)
    assert [e.text for e in read] == texts
    assert [e.kind for e in read] == ["fact"] * len(texts)
    assert [(e.line_start, e.line_end) for e in read] == [(e.line_start, e.line_end) for e in saved]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TEXTS, min_size=1, max_size=3))
def test_whatever_is_saved_reads_back_exactly(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as home:
        _round_trip(Path(home), texts)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.sampled_from(["fact", "decision", "preference", "status"]))
def test_the_format_alone_round_trips(text: str, kind: str) -> None:
    entry = format_entry(text, kind, "project:gezel-knowledge")
    # What the file holds is read with universal newlines, as MemoryIndex.entries reads it.
    parsed = parse_memory_file(TODAY, "# 2026-12-02\n\n" + entry.replace("\r\n", "\n"))
    assert [(e.text, e.kind, e.scope) for e in parsed] == [(text, kind, "project:gezel-knowledge")]


@pytest.mark.parametrize(
    "text",
    [
        "Root cause found\n#123 was a race",  # the example: recalled as "Root cause found"
        "Root cause found\n\n#123 was a race",
        "Steps:\n- one\n- two",
        "---\ntitle: x\n---\nbody",
        "```\ncode\n```",
        "line one\r\nline two\r\n",
    ],
)
def test_the_reported_notes_read_back_exactly(tmp_path: Path, text: str) -> None:
    _round_trip(tmp_path, [text, "a second note", text])


def test_a_plain_note_stays_readable_markdown(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("Root cause found\n#123 was a race", kind="decision", day=TODAY)
    assert (tmp_path / "memory" / "2026-12-02.md").read_text() == (
        "# 2026-12-02\n\n- (decision, project) Root cause found\n  #123 was a race\n"
    )


def test_a_note_over_the_size_bound_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("x" * MAX_MEMORY_BYTES, day=TODAY)  # at the bound: kept
        with pytest.raises(InvalidInput) as refused:
            memory.add("é" * (MAX_MEMORY_BYTES // 2 + 1), day=TODAY)  # bytes, not characters
        assert refused.value.reason == "memory-too-large"
        assert len(memory.entries(TODAY)) == 1


def test_a_note_that_is_no_valid_unicode_is_refused(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory, pytest.raises(InvalidInput) as refused:
        memory.add("lone \ud800 surrogate", day=TODAY)
    assert refused.value.reason == "invalid-unicode"
    assert not (tmp_path / "memory" / "2026-12-02.md").exists()
