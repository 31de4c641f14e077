"""How a hit's signals read in the search commands' blocks."""

from __future__ import annotations

import pytest

from gezel_knowledge.cli._hits import LEGEND, signal_text
from gezel_knowledge.fusion import KEYWORD, KEYWORD_ONLY, TITLE, VECTOR
from gezel_knowledge.hits import Signal


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
