"""The workspace chunker contract (workspace-chars@1)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.indexes._chunker import chunk_text


def test_markdown_headings_start_passages_and_give_context() -> None:
    text = "# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n### Linux\n\nApt.\n\n## Use\n\nCall.\n"
    chunks = chunk_text(text, markdown=True)
    assert [c.heading_path for c in chunks] == [
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Use"),
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 4), (5, 8), (9, 12), (13, 15)]
    assert chunks[1].text == "## Install\n\nRun it.\n\n"


def test_a_heading_without_body_stays_with_the_next_section() -> None:
    chunks = chunk_text("# Title\n## Part\nBody.\n", markdown=True)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("Title", "Part")
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 3)


def test_headings_inside_fences_are_text() -> None:
    text = "# Real\n\n```\n# not a heading\n```\n"
    chunks = chunk_text(text, markdown=True)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ("Real",)


def test_long_sections_split_on_lines_with_overlap() -> None:
    lines = [f"line {i:03d} " + "x" * 40 + "\n" for i in range(100)]
    text = "".join(lines)
    chunks = chunk_text(text, max_chars=1000, overlap=200)
    assert all(len(c.text) <= 1000 for c in chunks)
    for before, after in itertools.pairwise(chunks):
        carried = before.line_end - after.line_start + 1
        assert carried >= 1
        assert sum(len(lines[i]) for i in range(after.line_start - 1, before.line_end)) <= 200
    assert chunks[0].line_start == 1
    assert chunks[-1].line_end == 100


def test_one_overlong_line_is_cut_at_character_bounds() -> None:
    text = "a" * 2500
    chunks = chunk_text(text, max_chars=1000, overlap=100)
    assert [(c.char_start, c.char_end) for c in chunks] == [(0, 1000), (900, 1900), (1800, 2500)]
    assert all((c.line_start, c.line_end) == (1, 1) for c in chunks)


def test_invalid_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_text("x", max_chars=10, overlap=10)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="ab \n", max_size=80),
            st.sampled_from(["# H1\n", "## H2\n", "```\n", "\n"]),
        ),
        max_size=40,
    ),
    st.integers(min_value=20, max_value=200),
    st.booleans(),
)
def test_passages_are_exact_slices_within_bounds_covering_all_text(
    parts: list[str], max_chars: int, markdown: bool
) -> None:
    text = "".join(parts)
    chunks = chunk_text(text, markdown=markdown, max_chars=max_chars, overlap=max_chars // 4)
    covered = [False] * len(text)
    for c in chunks:
        assert c.text == text[c.char_start : c.char_end]
        assert 0 < len(c.text) <= max_chars
        assert c.text.strip()
        for i in range(c.char_start, c.char_end):
            covered[i] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
