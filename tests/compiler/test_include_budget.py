"""Include directives share one budget of characters per page (generators/_budget.py).

Each test builds a hostile fan-out: a file including another (or itself) many times, several
levels deep. With a depth limit alone the text grows as fan-out ** depth; with the budget it
stops at MAX_EXPANDED characters added to the page. The budget is lowered so that the
unbounded growth would be a few megabytes (fast to show, were the limit missing).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gezel_knowledge.compiler.generators import _budget, hugo
from gezel_knowledge.compiler.generators._includes import expand_includes as mdbook_includes
from gezel_knowledge.compiler.generators._snippets import expand_snippets
from gezel_knowledge.compiler.generators.vitepress import _includes as vitepress_includes

LIMIT = 20_000
FILLER = "x" * 100


@pytest.fixture(autouse=True)
def _small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_budget, "MAX_EXPANDED", LIMIT)


def test_a_budget_counts_what_it_takes_and_refuses_what_does_not_fit() -> None:
    budget = _budget.Budget("p" * 1000)
    assert budget.left == LIMIT - 1000
    assert budget.take("a" * (LIMIT - 1000))
    assert budget.left == 0
    assert not budget.take("b")
    assert budget.take("")


def test_mdbook_includes_of_a_file_including_itself_stop_at_the_budget(tmp_path: Path) -> None:
    # Four self-includes per copy, ten levels deep: 4**10 copies of 100 characters unbounded.
    (tmp_path / "p.md").write_text(FILLER + "\n" + "{{#include p.md}}\n" * 4)
    body = "# Chapter\n\n{{#include p.md}}\n"
    start = time.process_time()
    out = mdbook_includes(body, folder=tmp_path, within=tmp_path)
    assert time.process_time() - start < 10
    assert out.count(FILLER) >= 2  # included, and expanded in turn
    assert len(out) <= LIMIT + len(body)
    assert "{{#include p.md}}" in out  # the directives past the budget are left as written


def test_mdbook_includes_well_inside_the_budget_are_unchanged(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("alpha {{#include b.md}}\n")
    (tmp_path / "b.md").write_text("beta\n")
    out = mdbook_includes("{{#include a.md}}", folder=tmp_path, within=tmp_path)
    assert out.startswith("alpha beta")
    assert "{{#" not in out


def test_hugo_includes_fanning_out_stop_at_the_budget(tmp_path: Path) -> None:
    # Hugo's include shortcodes are followed four deep: 30**4 copies unbounded.
    content = tmp_path / "content"
    content.mkdir()
    line = '{{% include "/p.md" %}}\n'
    (content / "p.md").write_text(FILLER + "\n" + line * 30)
    page = content / "page.md"
    body = "Text.\n" + line
    out = hugo.expand_includes(content, page, body, tmp_path)
    assert out.count(FILLER) >= 2
    assert len(out) <= LIMIT + len(body)


def test_vitepress_includes_of_a_file_including_itself_stop_at_the_budget(
    tmp_path: Path,
) -> None:
    line = "<!--@include: ./p.md-->\n"
    (tmp_path / "p.md").write_text(FILLER + "\n" + line * 4)
    body = "# Page\n" + line
    out = vitepress_includes(
        body, tmp_path, tmp_path, tmp_path.resolve(), 0, budget=_budget.Budget(body)
    )
    assert out.count(FILLER) >= 2
    assert len(out) <= LIMIT + len(body)


def test_snippets_chained_with_fan_out_stop_at_the_budget(tmp_path: Path) -> None:
    # a -> b -> c -> d, each naming the next 40 times: 40**3 copies of d unbounded.
    names = ["a", "b", "c", "d"]
    for name, following in zip(names, [*names[1:], None], strict=True):
        text = FILLER + "\n"
        if following is not None:
            text += f'--8<-- "{following}.md"\n' * 40
        (tmp_path / f"{name}.md").write_text(text)
    body = 'Intro\n--8<-- "a.md"\n'
    out = expand_snippets(body, bases=(tmp_path,), within=tmp_path.resolve())
    assert out.count(FILLER) >= 2
    assert len(out) <= LIMIT + len(body)
