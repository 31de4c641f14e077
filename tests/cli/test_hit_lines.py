"""How a hit's signals read in the search commands' blocks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gezel_knowledge.cli._hits import LEGEND, hit_lines, signal_text
from gezel_knowledge.fusion import KEYWORD, KEYWORD_ONLY, TITLE, VECTOR
from gezel_knowledge.hits import SearchHit, Signal


@pytest.mark.parametrize(
    ("signal", "text"),
    [
        (Signal(VECTOR, 1, 0.6612), "meaning #1 (cosine 0.66)"),
        (Signal(TITLE, 4, -3.2), "title #4"),
        (Signal(KEYWORD, 2, -7.5), "keywords #2"),
        # A mark, not a list: no "#0" rank, and the cosine that fell short of the floor.
        (Signal(KEYWORD_ONLY, 0, 0.123), "words only (cosine 0.12, below the floor)"),
    ],
)
def test_each_signal_reads_as_the_legend_explains(signal: Signal, text: str) -> None:
    assert signal_text(signal) == text
    assert "#0" not in signal_text(signal)


def test_the_legend_names_every_label_it_prints() -> None:
    for label in ("meaning", "title", "keywords", "words only"):
        assert f"by {label}" in LEGEND or f"'{label}'" in LEGEND


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
