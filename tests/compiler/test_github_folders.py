"""A repository's plain Markdown folder, found as it is (no catalog.yaml): GitHub's rules.

Order: ``README.md`` first, numbered entries, pages by file name, folders by name. Links: as
GitHub reads them in the repository (a file that is no page, a path leaving the folder, a
root-relative path from the repository's root), warning only where GitHub shows a broken link.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogSource, LinkBase, SourceError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import PNG, write_tree

LINKS = LinkBase("tester", "demo")


def _docs_folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    """A repository with ``docs/`` holding ``files``; the docs folder is returned."""
    repo = tmp_path / "repo"
    write_tree(repo, {"LICENSE": "MIT\n", "src/x.py": "print()\n"}, catalog=None, notices=False)
    return write_tree(repo / "docs", files, catalog=None, notices=False)


def _order(source: CatalogSource) -> list[str]:
    topics = {t.id: t for t in source.topics}
    return [
        d.id
        for d in sorted(
            source.documents,
            key=lambda d: ([topics[t].sort_key for t in d.topic_path], d.ordinal),
        )
    ]


def test_the_readme_is_the_index_page_and_pages_follow_by_file_name(tmp_path: Path) -> None:
    docs = _docs_folder(
        tmp_path,
        {
            "README.md": "# Documentation\n\nStart here.\n",
            "zeta.md": "# A title that sorts first\n",
            "alpha.md": "# Z title that sorts last\n",
            "Beta.md": "# Beta\n",
            "guide/README.md": "# Guide\n",
            "guide/2017-04-28.md": "# Report\n",
            "guide/intro.md": "# Intro\n",
        },
    )
    source = load_markdown_tree(docs)
    assert source.readme is None  # the README is a page, so the catalog's is generated
    assert _order(source) == [
        "README",
        "alpha",
        "Beta",
        "zeta",
        "guide/README",
        "guide/2017-04-28",
        "guide/intro",
    ]
    assert [t.name for t in source.topics][1:] == ["Guide"]


def test_links_are_read_as_github_reads_them_in_the_repository(tmp_path: Path) -> None:
    docs = _docs_folder(
        tmp_path,
        {
            "README.md": (
                "[src](../src/x.py) [licence](../LICENSE) [cfg](config.json)\n"
                "[root](/docs/b.md#second-part) [other](/scripts/run.sh)\n"
                "[named](b.md#legacy) [gone](c.md) [img](../images/shot.png)\n"
            ),
            "b.md": '# B\n\n<a name="legacy"></a>\n## Second part\n\ntext\n',
            "config.json": "{}\n",
        },
    )
    source = load_markdown_tree(docs)
    assert [(w.reason, w.message) for w in source.warnings] == [
        ("unresolved-link", "link 'c.md' names no page of the tree; kept as written")
    ]
    body = next(d for d in source.documents if d.id == "README").load_body(LINKS)
    assert "[src](../src/x.py) [licence](../LICENSE) [cfg](config.json)" in body
    assert "[root](knowledge://tester/demo/b#line=" in body
    assert "[other](/scripts/run.sh)" in body
    assert "[named](knowledge://tester/demo/b#line=" in body
    assert "[img](../images/shot.png)" in body
    assert source.assets == ()


def test_at_the_repository_root_a_missing_repository_file_warns(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {
            "README.md": "# Tool\n\n[docs](/docs/a.md) [x](/src/x.py) [no](/src/missing.py)\n",
            "docs/a.md": "# A\n",
            "src/x.py": "print()\n",
        },
        catalog=None,
        notices=False,
    )
    (repo / "LICENSE").write_text("MIT\n", encoding="utf-8")
    source = load_markdown_tree(repo)
    assert [w.message for w in source.warnings] == [
        "link '/src/missing.py' names no page of the tree; kept as written"
    ]
    assert _order(source) == ["README", "docs/a"]


def test_png_beside_the_page_is_still_shipped(tmp_path: Path) -> None:
    docs = _docs_folder(tmp_path, {"README.md": "![s](img/s.png)\n", "img/s.png": PNG})
    source = load_markdown_tree(docs)
    assert [a.path for a in source.assets] == ["assets/img/s.png"]


def test_an_image_climbing_out_through_assets_never_reads_as_a_shipped_asset(
    tmp_path: Path,
) -> None:
    # GitHub resolves it in the repository, so it is kept silently; but a body target
    # starting assets/ would name an asset of the archive, which the verifier refuses.
    body = '# A\n\n![up](assets/../../LICENSE) <img src="assets/images/../../../../x">\n'
    docs = _docs_folder(tmp_path, {"README.md": body})
    source = load_markdown_tree(docs)
    assert source.warnings == ()
    assert source.documents[0].load_body(LINKS) == (
        '# A\n\n![up](./assets/../../LICENSE) <img src="./assets/images/../../../../x">\n'
    )


def test_a_folder_of_mdx_pages_is_read_as_markdown(tmp_path: Path) -> None:
    docs = _docs_folder(
        tmp_path,
        {
            "index.mdx": "import { Callout } from 'nextra/components'\n\n# Home\n\nWelcome.\n",
            "guide/setup.mdx": "# Setup\n\nRun the installer.\n",
            "guide/notes.md": "# Notes\n\n[setup](setup.mdx)\n",
        },
    )
    source = load_markdown_tree(docs)
    assert _order(source) == ["index", "guide/notes", "guide/setup"]
    assert source.warnings == ()


def test_a_link_written_by_templating_is_kept_silently(tmp_path: Path) -> None:
    docs = _docs_folder(
        tmp_path,
        {
            "README.md": (
                "# Docs\n\n[linked]({% link b.md %}) [base]({{ site.baseurl }}/b/)\n"
                "![avatar]({{ contributor.avatar_url }}) [gone](c.md)\n"
            ),
            "b.md": "# B\n",
        },
    )
    source = load_markdown_tree(docs)
    assert [(w.reason, w.message) for w in source.warnings] == [
        ("unresolved-link", "link 'c.md' names no page of the tree; kept as written")
    ]


def test_a_folder_of_restructuredtext_says_its_pages_are_not_read(tmp_path: Path) -> None:
    docs = _docs_folder(
        tmp_path,
        {"index.rst": "Home\n====\n", "api.rst": "API\n===\n", "conf.py": "project = 'x'\n"},
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(docs)
    assert err.value.reason == "no-pages"
    assert "holds no page (.md" in err.value.message
    assert "its 2 reStructuredText files are not read" in err.value.message


def test_an_empty_folder_holds_no_page(tmp_path: Path) -> None:
    docs = _docs_folder(tmp_path, {"notes.txt": "plain text\n"})
    with pytest.raises(SourceError) as err:
        load_markdown_tree(docs)
    assert err.value.reason == "no-pages"
    assert "not read" not in err.value.message


def test_a_source_below_a_hidden_folder_still_names_its_markup(tmp_path: Path) -> None:
    docs = _docs_folder(tmp_path / ".cache", {"index.rst": "Home\n====\n"})
    with pytest.raises(SourceError) as err:
        load_markdown_tree(docs)
    assert "its 1 reStructuredText files are not read" in err.value.message
