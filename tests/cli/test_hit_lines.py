"""How a hit's signals read in the search commands' blocks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.cli._hits import LEGEND, WORDS_ONLY, hit_lines, result_lines, signal_text
from gezel_knowledge.fusion import KEYWORD, KEYWORD_ONLY, TITLE, VECTOR
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.reader.hybrid import NAMED
from gezel_knowledge.results import SearchResult


@pytest.mark.parametrize(
    ("signal", "text"),
    [
        (Signal(VECTOR, 1, 0.6612), "meaning #1 (cosine 0.66)"),
        (Signal(TITLE, 4, -3.2), "title #4"),
        (Signal(KEYWORD, 2, -7.5), "keywords #2"),
        (Signal(NAMED, 1, 2.1), "title named #1"),
        # A mark, not a list: no "#0" rank, and the cosine that fell short of the floor.
        (Signal(KEYWORD_ONLY, 0, 0.123), "words only (cosine 0.12, below the floor)"),
    ],
)
def test_each_signal_reads_as_the_legend_explains(signal: Signal, text: str) -> None:
    assert signal_text(signal) == text
    assert "#0" not in signal_text(signal)


def test_the_legend_names_every_label_it_prints() -> None:
    for label in ("meaning", "title", "keywords", "a title the question names ('title named')"):
        assert f"by {label}" in LEGEND
    assert "'words only'" in WORDS_ONLY


def _result(*signals: Signal) -> SearchResult:
    hit = SearchHit(
        source_kind="catalog",
        source="s",
        document_id="d",
        title="T",
        text="text",
        citation="knowledge://p/c/d",
        rank=0,
        relevance=1.0,
        signals=signals,
    )
    return SearchResult("q", "hybrid", (hit,), ())


def test_words_only_is_explained_only_when_a_hit_carries_the_mark() -> None:
    marked = list(result_lines(_result(Signal(KEYWORD, 1, -2.0), Signal(KEYWORD_ONLY, 0, 0.1))))
    plain = list(result_lines(_result(Signal(KEYWORD, 1, -2.0))))
    assert WORDS_ONLY in marked[-1]
    assert WORDS_ONLY not in plain[-1]
    assert LEGEND in plain[-1]


def test_a_heading_path_that_starts_with_the_title_does_not_repeat_it() -> None:
    # A workspace passage's heading path starts at its file's top heading, which is also the
    # hit's title; a catalog passage's path starts below the title. Both read "Setup > Usage".
    workspace = SearchHit(
        "workspace",
        "/ws",
        "setup.md",
        "Setup",
        "text",
        "setup.md#line=5-7",
        0,
        1.0,
        heading_path=("Setup", "Troubleshooting"),
    )
    catalog = SearchHit(
        "catalog",
        "p/c",
        "setup",
        "Setup",
        "text",
        "knowledge://p/c/setup",
        1,
        0.9,
        heading_path=("Troubleshooting",),
    )
    for hit in (workspace, catalog):
        first = next(hit_lines(hit))
        assert first.split("  (")[0].endswith(". Setup > Troubleshooting"), first
    lone = replace(workspace, heading_path=("Setup",))
    assert next(hit_lines(lone)).startswith("1. Setup  (")


def test_a_date_already_in_the_name_is_not_printed_again() -> None:
    day = SearchHit(
        source_kind="memory",
        source="memory",
        document_id="2026-12-03.md",
        title="2026-12-03 fact (project)",
        text="the build server is ci-2",
        citation="memory:2026-12-03.md#L3",
        rank=0,
        relevance=1.0,
        line_start=3,
        date="2026-12-03",
    )
    first = next(hit_lines(day))
    assert first.count("2026-12-03") == 2  # the title and the file name, not a third time
    dated = replace(day, document_id="notes.md", title="fact (project)")
    assert next(hit_lines(dated)).endswith("(notes.md, line 3, 2026-12-03)")


def test_a_vector_search_the_floor_empties_says_why(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 25 item 12: "no results" alone, though vectors ran and every cosine was too low.
    query = ["qzxv", "blorptang", "vrumm"]
    assert main(["search", str(handbook_gezk), *query, "--mode", "vector"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "no results for 'qzxv blorptang vrumm'",
        "No passage is close enough in meaning: vector mode keeps only passages at or above "
        "the cosine floor, 0.35. --min-similarity C lowers it; --mode hybrid adds keyword "
        "matches.",
    ]
    assert (
        main(["search", str(handbook_gezk), *query, "--mode", "vector", "--min-similarity", "-1"])
        == 0
    )
    assert "1. " in capsys.readouterr().out


def test_read_of_a_passage_says_what_it_is(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 25 item 12: a passage was printed with no title or line range.
    reference = "building/signing#line=1-3"
    assert main(["read", str(handbook_gezk), reference]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Signing catalogs  (lines 1-3 of building/signing)"
    assert lines[1] == ("knowledge://gezel-knowledge/gezel-handbook/building/signing#line=1-3")
    assert lines[2] == ""
    assert lines[3] == "# Signing catalogs"
