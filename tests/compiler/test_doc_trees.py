"""Documentation trees as their authors publish them: built with default flags, deep-valid,
their outlines as the generator shows them, and warnings that say what was kept as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge import open_catalog
from gezel_knowledge.cli import main
from tests.compiler.trees import write_tree

HASH = ["--embedder", "test-hash-embed@1", "--no-cache", "--created-at", "2026-12-01"]
MIT_LIKE = "Permission is hereby granted, free of charge, to any person obtaining a copy...\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _mkdocs_site(root: Path) -> Path:
    """A repository with an MkDocs site at its root, no catalog.yaml, no README in docs/."""
    return write_tree(
        root,
        {
            "mkdocs.yml": (
                "site_name: Kettle\nsite_description: A library for boiling water.\n"
                "repo_url: https://github.com/brewers/kettle\n"
                "theme:\n  name: material\n  features: [navigation.indexes]\n"
                "markdown_extensions:\n  - toc:\n      permalink: true\n"
                "  - pymdownx.emoji:\n"
                "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                "nav:\n"
                "  - Introduction: index.md\n"
                "  - Guide:\n"
                "      - guide/index.md\n"
                "      - Heating: guide/heating.md\n"
                "      - Safety: guide/safety.md\n"
                "  - Reference:\n"
                "      - Settings: settings.md\n"
                "  - Changelog: https://github.com/brewers/kettle/releases\n"
            ),
            "LICENSE.md": MIT_LIKE,
            "docs/index.md": (
                "# Kettle\n\nStart with the [guide](guide/) or [settings](settings.md).\n"
            ),
            "docs/guide/index.md": "# Guide\n\nRead [heating](heating.md) first.\n",
            "docs/guide/heating.md": (
                "# Heating\n\nSee [KETTLE_MAX_TEMP](../../settings#kettle_max_temp) and "
                "[safety](../safety/#boiling-dry).\n\n## Boost mode\n\nFaster.\n"
            ),
            "docs/guide/safety.md": "# Safety\n\n## Boiling dry\n\nDo not.\n",
            "docs/settings.md": (
                "# Settings\n\n## KETTLE_MAX_TEMP\n\nDegrees.\n\n## KETTLE_LID\n\n"
                "See [the old page](../old/lid.md).\n"
            ),
        },
        catalog=None,
        notices=False,
    )


def _mdbook_guide(repo: Path) -> Path:
    """A repository with an mdBook guide in guide/, its licence at the repository root."""
    (repo / ".git").mkdir(parents=True)
    (repo / "LICENSE").write_text(MIT_LIKE)
    return write_tree(
        repo / "guide",
        {
            "book.toml": (
                '[book]\ntitle = "Kettle Guide"\nauthors = ["A. Brewer"]\nlanguage = "en"\n'
                '[output.html]\ngit-repository-url = "https://github.com/brewers/kettle"\n'
            ),
            "src/SUMMARY.md": (
                "# Summary\n\n[Introduction](README.md)\n\n# User guide\n\n"
                "- [Filling](user/filling.md)\n- [Pouring](user/pouring.md)\n\n"
                "# Reference guide\n\n- [Format](format/README.md)\n"
                "    - [Theme](format/theme/README.md)\n    - [Draft chapter]()\n\n"
                "---\n\n[Contributors](misc/contributors.md)\n"
            ),
            "src/README.md": "# Introduction\n\nSee [the theme](format/theme/index.html).\n",
            "src/user/filling.md": "# Filling\n\nThen [pour](pouring.md#a-steady-hand).\n",
            "src/user/pouring.md": "# Pouring\n\n## A steady hand\n\nSlowly.\n",
            "src/format/README.md": "# Format\n\n[Theme](theme/index.html#colours_and_fonts)\n",
            "src/format/theme/README.md": "# Theme\n\n## colours_and_fonts\n\nBlue.\n",
            "src/misc/contributors.md": "# Contributors\n\nEveryone.\n",
        },
        catalog=None,
        notices=False,
    )


def _topics(catalog: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str | None]]:
    assert main(["topics", str(catalog), "--json"]) == 0
    topics = json.loads(capsys.readouterr().out)
    return [(t["id"], t.get("parentId", t.get("parent_id"))) for t in topics]


def test_an_unmodified_mkdocs_site_builds_with_default_flags(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _mkdocs_site(tmp_path / "kettle")
    out = tmp_path / "kettle.gezk"
    assert main(["build", str(site), "-o", str(out), *HASH]) == 0
    captured = capsys.readouterr()
    assert "(kettle 2026.12.1)" in captured.out
    assert "; 1 warning\n" in captured.out
    assert captured.err == (
        "gezel-knowledge: warning: docs/settings.md:9: link '../old/lid.md' names no page of "
        "the tree; kept as written [unresolved-link]\n"
    )
    assert main(["validate", str(out), "--deep"]) == 0
    assert "valid (deep checks)" in capsys.readouterr().out
    assert _topics(out, capsys) == [("kettle", None), ("guide", None), ("reference", None)]


def test_an_unmodified_mdbook_guide_builds_with_default_flags(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guide = _mdbook_guide(tmp_path / "repo")
    out = tmp_path / "guide.gezk"
    # The licence above the guide ships only when named (issue 26: a source cannot publish a
    # file from outside itself on its own).
    assert main(["build", str(guide), "-o", str(out), *HASH]) == 1
    err = capsys.readouterr().err
    assert "license is missing" not in err
    assert f"add --license-file {tmp_path / 'repo' / 'LICENSE'}" in err
    licence = ["--license-file", str(tmp_path / "repo" / "LICENSE")]
    assert main(["build", str(guide), "-o", str(out), *HASH, *licence, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["catalogId"], report["documents"]) == ("kettle-guide", 6)
    # mdBook shows its draft chapter as an entry without a link: no warning.
    assert report["warnings"] == []
    assert main(["validate", str(out), "--deep"]) == 0
    capsys.readouterr()
    # The suffix chapter after the parts makes them subtopics of the book's root topic.
    assert _topics(out, capsys) == [
        ("kettle-guide", None),
        ("user-guide", "kettle-guide"),
        ("reference-guide", "kettle-guide"),
        ("format", "reference-guide"),
    ]
    with open_catalog(out) as catalog:
        introduction = catalog.body("README")
        filling = catalog.body("user/filling")
    assert "(knowledge://brewers/kettle-guide/format/theme/README)" in introduction
    assert "(knowledge://brewers/kettle-guide/user/pouring#line=3-5)" in filling


def test_strict_turns_warnings_into_an_error_and_writes_nothing(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _mkdocs_site(tmp_path / "kettle")
    out = tmp_path / "kettle.gezk"
    assert main(["build", str(site), "-o", str(out), *HASH, "--strict"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "gezel-knowledge: warning: docs/settings.md:9: link '../old/lid.md' names no page of "
        "the tree; kept as written [unresolved-link]",
        "gezel-knowledge: error: strict build stopped at a warning: docs/settings.md:9: link "
        "'../old/lid.md' names no page of the tree; kept as written [unresolved-link] "
        "[strict-warnings]",
    ]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kettle"]
