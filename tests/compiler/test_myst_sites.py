"""MyST sites: mystmd's ``myst.yml``, Sphinx's ``conf.py`` and ``toctree``, Jupyter Book's
``_toc.yml``, and the labels, roles and footnotes their pages use (issue 21)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogSource, LinkBase, SourceError
from gezel_knowledge.compiler.generators import sphinx
from gezel_knowledge.compiler.generators.registry import recognise_outline, source_site
from gezel_knowledge.compiler.generators.sphinx import assigned_names, read_conf
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.sources.toc import outline_pages
from gezel_knowledge.compiler.text.blocks import normalize_body
from gezel_knowledge.compiler.text.links import find_links
from gezel_knowledge.compiler.text.myst import directive_lines, myst_targets, mystmd_id, toctrees
from tests.compiler.trees import write_tree
from tests.faults import MB, assert_linear_time

LINKS = LinkBase("tester", "demo")


def _repeat(unit: str, size: int = MB) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _order(source: CatalogSource) -> list[str]:
    """Document ids in navigation order: topics by sort key, documents by ordinal, merged."""
    children: dict[str | None, list[tuple[str, str]]] = {}
    for topic in source.topics:
        children.setdefault(topic.parent_id, []).append((topic.sort_key, topic.id))
    out: list[str] = []

    def visit(topic_id: str) -> None:
        items: list[tuple[str, int, str]] = []
        for doc in source.documents:
            if doc.topic_path[-1] == topic_id:
                items.append((f"{(doc.ordinal or 0) + 2**31:010d}", 0, doc.id))
        for sort_key, child in children.get(topic_id, []):
            items.append((sort_key, 1, child))
        for _, kind, ident in sorted(items):
            if kind == 0:
                out.append(ident)
            else:
                visit(ident)

    for _, root in sorted(children.get(None, [])):
        visit(root)
    return out


def _body(source: CatalogSource, doc_id: str) -> str:
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def _warnings(source: CatalogSource) -> list[tuple[str, str | None, int | None]]:
    return [(w.reason, w.path, w.line) for w in source.warnings]


# ── mystmd ──────────────────────────────────────────────────────────────────────────────


MYST_YML = """\
version: 1
project:
  title: Demo project
  description: A MyST project.
  github: https://github.com/demo-org/demo
  error_rules:
    - rule: link-resolves
      severity: ignore
      keys: [/robots.txt]
  toc:
    - file: index.md
    - title: Guides
      children:
        - file: guides/b.md
        - file: guides/a.md
          children:
            - file: guides/a-detail.md
    - url: https://example.test
      title: Elsewhere
    - title: Notes
      children:
        - file: notes/note10.md
          title: Ten
        - pattern: notes/*.md
"""


def _myst_tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "myst",
        {
            "myst.yml": MYST_YML,
            "index.md": "# Home\n\nSee [the detail](#detail-label) and [](#guide-b-heading).\n",
            "guides/b.md": "# Guide B heading\n\n[Robots](/robots.txt) and [a](a.md).\n",
            "guides/a.md": "# Guide A\n",
            "guides/a-detail.md": "# Detail\n\n:::{figure} x.png\n:label: detail-label\n:::\n",
            "notes/note10.md": "# Note 10\n",
            "notes/note9.md": "# Note 9\n",
            "notes/index.md": "# Notes\n",
            "unlisted.md": "# Not in the toc\n",
        },
        catalog=None,
    )


def test_myst_yml_toc_order_sections_and_patterns(tmp_path: Path) -> None:
    source = load_markdown_tree(_myst_tree(tmp_path))
    assert source.outline == "myst"
    assert source.site == "myst"
    # children depth first after their page; a pattern: what no entry names, index first,
    # then natural order (note9 before note10)
    assert _order(source) == [
        "index",
        "guides/b",
        "guides/a",
        "guides/a-detail",
        "notes/note10",
        "notes/index",
        "notes/note9",
    ]
    assert {t.name for t in source.topics} >= {"Guides", "Guide A"}
    assert "unlisted" not in {d.id for d in source.documents}


def test_myst_yml_metadata_comes_from_the_project(tmp_path: Path) -> None:
    meta = load_markdown_tree(_myst_tree(tmp_path)).metadata
    assert (meta.name, meta.description, meta.language) == (
        "Demo project",
        "A MyST project.",
        "en",
    )
    assert meta.publisher is not None
    assert (meta.publisher.id, meta.publisher.name) == ("demo-org", "demo-org")
    assert meta.source_url == "https://github.com/demo-org/demo"


def test_myst_toc_from_an_extends_file_and_the_licence_the_project_names(tmp_path: Path) -> None:
    # 2i2c's infrastructure guide keeps its toc in toc.yml (extends: [remote, ./toc.yml]);
    # jupyter/governance names its licence in myst.yml (license: CC0-1.0).
    root = write_tree(
        tmp_path / "site",
        {
            "myst.yml": (
                "version: 1\nextends:\n  - https://example.test/shared.yml\n  - ./toc.yml\n"
                "project:\n  title: Guide\n  license: cc0-1.0\n"
            ),
            "toc.yml": (
                "version: 1\nproject:\n  toc:\n    - file: index.md\n    - title: Part\n"
                "      children:\n        - file: z.md\n        - file: a.md\n"
            ),
            "index.md": "# Home\n",
            "a.md": "# A\n",
            "z.md": "# Z\n",
            "unlisted.md": "# Not in the toc\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "z", "a"]
    assert source.metadata.license is not None
    assert (source.metadata.license.spdx, source.metadata.license.attribution_required) == (
        "CC0-1.0",
        False,
    )


def test_myst_content_licence_of_a_split_licence_and_an_unknown_id(tmp_path: Path) -> None:
    files = {"index.md": "# Home\n", "LICENSE": "Some licence.\n"}
    split = "version: 1\nproject:\n  license: {content: CC-BY-4.0, code: MIT}\n"
    root = write_tree(tmp_path / "split", {**files, "myst.yml": split}, catalog=None)
    licence = load_markdown_tree(root).metadata.license
    assert licence is not None
    assert licence.spdx == "CC-BY-4.0"
    odd = "version: 1\nproject:\n  license: Not-A-Known-Id\n"
    root = write_tree(tmp_path / "odd", {**files, "myst.yml": odd}, catalog=None)
    assert load_markdown_tree(root).metadata.license is None


def test_mystmd_labels_and_implicit_heading_ids_resolve_across_pages(tmp_path: Path) -> None:
    source = load_markdown_tree(_myst_tree(tmp_path))
    body = _body(source, "index")
    assert "[the detail](knowledge://tester/demo/guides/a-detail#line=3-5)" in body
    assert "[](knowledge://tester/demo/guides/b#line=1-3)" in body
    # error_rules silences /robots.txt; nothing else is unresolved
    assert _warnings(source) == []


def test_mystmd_unknown_label_warns(tmp_path: Path) -> None:
    root = _myst_tree(tmp_path)
    (root / "guides/a.md").write_text("# Guide A\n\nSee [](#no-such-label).\n", encoding="utf-8")
    source = load_markdown_tree(root)
    assert _warnings(source) == [("missing-anchor", "guides/a.md", 3)]


def test_mystmd_id_follows_mystmd() -> None:
    assert mystmd_id("In a `myst.yml` file") == "in-a-myst-yml-file"
    assert mystmd_id("2. Install") == "id-2-install"
    assert mystmd_id("“Quoted” heading!") == "quoted-heading"


# ── Sphinx ──────────────────────────────────────────────────────────────────────────────


CONF_PY = """\
import os
from datetime import date

project = "Demo Docs"
author = "Demo Team"
copyright = f"{date.today().year}, {author}"
language = "en"
master_doc = "start"
extensions = ["myst_parser"]
html_theme_options = {"repository_url": "https://github.com/demo-org/docs", "x": os.sep}
open("ran.txt", "w").write("conf.py was run")
raise SystemExit("conf.py must never run")
"""


def _sphinx_tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "sphinx",
        {
            "conf.py": CONF_PY,
            "start.md": (
                "# Start\n\n"
                "```{toctree}\n:hidden:\n\nintro\nself\nhttps://example.test\n```\n\n"
                "````{grid}\n```{toctree}\n:caption: Guides\n:glob:\n\n"
                "Custom title <guides/zeta>\nguides/*\n```\n````\n\n"
                "```{toctree}\n:caption: Reference\n\nref/api.rst\nmissing\n```\n"
            ),
            "intro.md": "(intro-label)=\n# Intro\n\nGo to [the api target](api-target).\n",
            "guides/zeta.md": "# Zeta\n",
            "guides/alpha.md": (
                "# Alpha\n\n:::{toctree}\nchild\n:::\n\n"
                "A note[^1] and [intro](intro-label) and [](#intro-label).\n\n"
                "[^1]: not-a-link-target\n"
            ),
            "guides/child.md": "# Child\n",
            "ref/api.rst": "API\n===\n\n.. toctree::\n   :maxdepth: 1\n\n   api-detail\n",
            "ref/api-detail.md": "# API detail\n\n```{py:function} api-target(x)\n```\n",
            "orphan.md": "---\norphan: true\n---\n# Orphan\n",
        },
        catalog=None,
    )


def test_sphinx_toctree_order_from_the_root_document(tmp_path: Path) -> None:
    root = _sphinx_tree(tmp_path)
    source = load_markdown_tree(root)
    assert source.site == "sphinx"
    assert _order(source) == [
        "start",
        "intro",
        "guides/zeta",
        "guides/alpha",
        "guides/child",
        "ref/api-detail",
        "orphan",  # built outside every toctree: after the navigation
    ]
    assert {"Guides", "Reference"} <= {t.name for t in source.topics}
    # ``Title <path>`` labels the page in the navigation
    site = source_site(root)
    assert outline_pages(recognise_outline(root, site).outline)["guides/zeta.md"] == "Custom title"
    # ref/api.rst is built by Sphinx but unreadable here: left out silently, its toctree
    # followed; only the missing document warns, as Sphinx does
    assert _warnings(source) == [("missing-outline-page", "start.md", 25)]
    assert not (root / "ran.txt").exists()


def test_sphinx_conf_py_is_read_statically(tmp_path: Path) -> None:
    meta = load_markdown_tree(_sphinx_tree(tmp_path)).metadata
    assert (meta.name, meta.language) == ("Demo Docs", "en")
    assert meta.publisher is not None
    assert meta.publisher.id == "demo-org"
    conf = read_conf(CONF_PY)
    assert "copyright" not in conf  # date.today() is not a literal: unknown, never run
    assert conf["master_doc"] == "start"
    assert conf["html_theme_options"] == {"repository_url": "https://github.com/demo-org/docs"}
    assert read_conf("def broken(:\n") == {}


def test_conf_py_lists_grown_under_a_condition_are_read(tmp_path: Path) -> None:
    # pip's conf.py: extensions starts as one name and gains myst_parser inside
    # `if "man" not in tags:`; the HTML build loads it, so .md pages are read.
    conf = (
        'extensions = ["own_ext"]\n'
        'if "man" not in tags:\n'
        '    extensions.extend(("sphinx.ext.todo", "myst_parser"))\n'
        "try:\n"
        "    import x\n"
        "except ImportError:\n"
        '    extensions.append("fallback")\n'
        'project = "Pipe"\n'
        "def setup(app):\n"
        '    extensions.append("never")\n'
    )
    assert read_conf(conf)["extensions"] == [
        "own_ext",
        "sphinx.ext.todo",
        "myst_parser",
        "fallback",
    ]
    assert "extensions" not in read_conf('extensions = ["a"]\nextensions.append(name())\n')
    root = write_tree(
        tmp_path / "site",
        {"conf.py": conf, "index.md": "# Pipe\n\n```{toctree}\nguide\n```\n", "guide.md": "# G\n"},
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "sphinx"
    assert source.metadata.name == "Pipe"
    assert _order(source) == ["index", "guide"]


def test_sphinx_orphan_pages_follow_the_navigation_in_name_order(tmp_path: Path) -> None:
    # `orphan:` pages are built outside every toctree (pip's ResolutionImpossible example,
    # linked from its UX guidance); a page without it that no toctree includes is left out.
    root = write_tree(
        tmp_path / "site",
        {
            "conf.py": 'extensions = ["myst_parser"]\nexclude_patterns = ["drafts/*"]\n',
            "index.md": "# Home\n\n```{toctree}\nguide\n```\n",
            "guide.md": "# Guide\n\nSee [the example](z/example).\n",
            "z/example.md": "---\norphan:\n---\n\n# Example error\n",
            "a/early.md": "---\norphan: true\n---\n\n# Early\n",
            "stray.md": "# Stray\n",
            "drafts/note.md": "---\norphan:\n---\n# Draft\n",
        },
    )
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "guide", "a/early", "z/example"]
    guide = _body(source, "guide")
    assert "[the example](knowledge://tester/demo/z/example)" in guide
    assert source.warnings == ()


def test_an_orphan_page_linked_from_outside_the_source_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # review5's note: the orphan rule read the front matter of a page that is a symbolic link
    # out of the tree (and then stopped the build on it); such a page is left out unread.
    outside = tmp_path / "outside.md"
    outside.write_text("---\norphan: true\n---\n# Secret\n", encoding="utf-8")
    root = write_tree(
        tmp_path / "site",
        {
            "conf.py": 'extensions = ["myst_parser"]\n',
            "index.md": "# Home\n\n```{toctree}\nguide\n```\n",
            "guide.md": "# Guide\n",
            "kept.md": "---\norphan: true\n---\n# Kept\n",
        },
    )
    (root / "secret.md").symlink_to(outside)
    read: list[Path] = []
    real = sphinx.read_text_file

    def recording(path: Path, **kwargs: object) -> str:
        read.append(path.resolve())
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sphinx, "read_text_file", recording)
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "guide", "kept"]
    assert outside.resolve() not in read
    assert (root / "kept.md").resolve() in read  # the rule still reads pages inside


def test_sphinx_labels_domain_objects_and_footnotes(tmp_path: Path) -> None:
    source = load_markdown_tree(_sphinx_tree(tmp_path))
    alpha = _body(source, "guides/alpha")
    assert "[intro](knowledge://tester/demo/intro#line=2-4)" in alpha  # the labelled heading
    assert "[](knowledge://tester/demo/intro#line=2-4)" in alpha
    assert "[^1]: not-a-link-target" in alpha  # a footnote, not a link definition
    intro = _body(source, "intro")
    assert "[the api target](knowledge://tester/demo/ref/api-detail#line=3-4)" in intro


def test_sphinx_unknown_label_warns_unless_intersphinx_may_hold_it(tmp_path: Path) -> None:
    root = _sphinx_tree(tmp_path)
    (root / "intro.md").write_text(
        "(intro-label)=\n# Intro\n\n[x](no-such-label)\n", encoding="utf-8"
    )
    assert ("unresolved-link", "intro.md", 4) in _warnings(load_markdown_tree(root))
    mapping = 'intersphinx_mapping = {"py": ("https://x", None)}\n'
    conf = CONF_PY.replace("language =", mapping + "language =")
    (root / "conf.py").write_text(conf, encoding="utf-8")
    assert ("unresolved-link", "intro.md", 4) not in _warnings(load_markdown_tree(root))


# ── Jupyter Book 1 ─────────────────────────────────────────────────────────────────────


def test_a_toc_yml_beside_conf_py_takes_sphinxs_metadata_and_link_rules(tmp_path: Path) -> None:
    conf = (
        'project = "Viewer"\nauthor = "The viewer team"\n'
        'extensions = ["myst_parser", "sphinx_external_toc", "sphinx.ext.autosummary"]\n'
    )
    root = write_tree(
        tmp_path / "docs",
        {
            "conf.py": conf,
            "_toc.yml": "root: index\nsubtrees:\n- entries:\n  - file: guide\n",
            "index.md": "# Viewer: a fast viewer for images\n",
            "guide.md": "# Guide\n\nSee {class}`viewer.Layer` and [the layer](viewer.Layer).\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "jupyter-book"
    assert source.metadata.name == "Viewer"  # conf.py's project, not the root page's title
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "The viewer team"
    assert _warnings(source) == []  # autosummary documents viewer.Layer: no page holds it
    (root / "conf.py").write_text(conf.replace(', "sphinx.ext.autosummary"', ""))
    assert _warnings(load_markdown_tree(root)) == [("unresolved-link", "guide.md", 3)]


def test_a_pages_own_toctree_follows_its_toc_yml_entries(tmp_path: Path) -> None:
    # napari's naps/index.md: a hidden {toctree} of its own beside the _toc.yml subtree.
    toc = (
        "root: index\nsubtrees:\n- entries:\n"
        "  - file: naps/index\n    subtrees:\n    - entries:\n      - file: naps/one\n"
        "  - file: last\n"
    )
    own = "# NAPs\n\n```{toctree}\n---\nhidden:\n---\ntemplate\none\nhttps://example.org\n```\n"
    root = write_tree(
        tmp_path / "docs",
        {
            "_toc.yml": toc,
            "index.md": "# Home\n\n```{toctree}\nlast\n```\n",  # listed in _toc.yml: kept there
            "naps/index.md": own,
            "naps/one.md": "# One\n",
            "naps/template.md": "# Template\n",
            "last.md": "# Last\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert _order(source) == ["index", "naps/index", "naps/one", "naps/template", "last"]
    assert _warnings(source) == []
    # sphinx-tags writes _tags/ when Sphinx builds (conf.py beside _toc.yml): not missing.
    (root / "last.md").write_text("# Last\n\n```{toctree}\n_tags/tagsindex\ngone\n```\n")
    assert [w.line for w in load_markdown_tree(root).warnings] == [4, 5]
    conf = 'extensions = ["myst_parser", "sphinx_external_toc", "sphinx_tags"]\n'
    (root / "conf.py").write_text(conf + "tags_create_tags = True\n")
    assert [w.line for w in load_markdown_tree(root).warnings] == [5]


def test_entries_nested_under_a_missing_file_are_in_no_toctree(tmp_path: Path) -> None:
    toc = (
        "root: index\nsubtrees:\n- entries:\n"
        "  - file: guide\n"
        "  - file: release/index\n"
        "    subtrees:\n    - entries:\n      - file: release/v2\n      - file: release/v1\n"
        "  - file: api/index\n"
        "    entries:\n      - file: api/one\n"
        "  - file: last\n"
    )
    root = write_tree(
        tmp_path / "docs",
        {
            "conf.py": 'project = "Demo"\nextensions = ["myst_parser", "sphinx_external_toc"]\n',
            "_toc.yml": toc,
            "index.md": "# Home\n",
            "guide.md": "# Guide\n",
            "release/v2.md": "# v2\n",
            "release/v1.md": "# v1\n",
            "api/index.rst": "API\n===\n",  # built by Sphinx, unreadable here: kept a parent
            "api/one.md": "# One\n",
            "last.md": "# Last\n",
        },
    )
    source = load_markdown_tree(root)
    # Sphinx builds the nested pages but no toctree lists them: they follow the navigation.
    assert _order(source) == ["index", "guide", "api/one", "last", "release/v2", "release/v1"]
    assert _warnings(source) == [
        ("missing-outline-page", "_toc.yml", 5),
        ("missing-outline-page", "_toc.yml", 5),
    ]
    assert "in no toctree" in source.warnings[1].message


def test_jupyter_book_empty_title_is_the_root_pages_and_labels_resolve(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "jb",
        {
            "_config.yml": 'title: ""\nauthor: Book Team\n',
            "_toc.yml": "format: jb-book\nroot: intro\nchapters:\n  - file: a\n  - file: b\n",
            "intro.md": "---\ntitle: Books with Labels\n---\n\nWelcome.\n",
            "a.md": "# A\n\n(a-label)=\n## Part\n\nText.\n",
            "b.md": "# B\n\nSee [part](a-label).\n",
            "b.Rmd": "unused\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.metadata.name == "Books with Labels"
    assert "[part](knowledge://tester/demo/a#line=4-6)" in _body(source, "b")
    assert _warnings(source) == []


# ── the MyST readers ───────────────────────────────────────────────────────────────────


def test_toctrees_in_myst_and_rst() -> None:
    text = (
        "```python\n```{toctree}\nnot-a-toctree\n```\n"
        "::::{tab-set}\n:::{toctree}\n---\ncaption: Part\nglob:\n---\na\nTitle <b.md>\n:::\n::::\n"
    )
    (tree,) = toctrees(text)
    assert tree.options == {"caption": "Part", "glob": ""}
    assert [(e.title, e.target) for e in tree.entries] == [(None, "a"), ("Title", "b.md")]
    rst_text = (
        "Title\n=====\n\n.. toctree::\n   :hidden:\n\n   one\n   .. a comment\n   ../two\n\nAfter\n"
    )
    (rst,) = toctrees(rst_text, rst=True)
    assert rst.options == {"hidden": ""}
    assert [e.target for e in rst.entries] == ["one", "../two"]


def test_a_toctree_inside_eval_rst_is_read_as_restructuredtext() -> None:
    text = (
        "# Usage\n\n```{eval-rst}\n.. toctree::\n   :hidden:\n\n   files.md\n   webworker\n"
        "```\n\n```{toctree}\nlast\n```\n"
    )
    first, second = toctrees(text)
    assert first.options == {"hidden": ""}
    assert [(e.target, e.line) for e in first.entries] == [("files.md", 7), ("webworker", 8)]
    assert [e.target for e in second.entries] == ["last"]
    # shown as code, an eval-rst block is never read
    assert toctrees("````markdown\n```{eval-rst}\n.. toctree::\n\n   no\n```\n````\n") == []


def test_sphinx_follows_a_toctree_in_an_eval_rst_block(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "conf.py": 'project = "Demo"\nextensions = ["myst_parser"]\n',
            "index.md": "# Home\n\n```{toctree}\nusage/index\n```\n",
            "usage/index.md": (
                "# Usage\n\n```{eval-rst}\n.. toctree::\n   :hidden:\n\n   files.md\n```\n"
            ),
            "usage/files.md": "# Files\n",
        },
    )
    assert _order(load_markdown_tree(root)) == ["index", "usage/index", "usage/files"]


def test_myst_targets_skip_code_but_read_directive_options() -> None:
    body = (
        "(top)=\n# Top\n\n"
        "```{code-block} python\n:name: code-label\n(not-a-label)=\n```\n\n"
        "```{glossary}\nTerm one\n  Its definition.\n```\n\n"
        "$$ e = mc^2 $$ (eq-label)\n\n"
        '+++ {"label": "block-label"}\n\n'
        "```python\n#| label: cell-label\nprint(1)\n```\n"
    )
    found = myst_targets(body, front={"label": "page-label"})
    assert set(found) == {
        "top",
        "code-label",
        "Term one",
        "eq-label",
        "block-label",
        "cell-label",
        "page-label",
    }
    assert found["code-label"] == (4, 7)
    assert "top-1" not in myst_targets(body, implicit=True)
    assert myst_targets(body, implicit=True)["top"] == (1, 1)


def test_sphinx_source_folder_layout_and_unknown_extensions(tmp_path: Path) -> None:
    # sphinx-quickstart's separate layout keeps conf.py in source/; an extensions list that
    # is not a literal still lets Markdown pages and notebooks be found
    root = write_tree(
        tmp_path / "docs",
        {
            "source/conf.py": 'project = "Split"\nextensions = BASE + ["myst_parser"]\n',
            "source/index.md": "# Home\n\n```{toctree}\nguide\nbook\n```\n",
            "source/guide.md": "# Guide\n",
            "source/book.ipynb": (
                '{"cells": [{"cell_type": "markdown", "source": ["# Notebook"]}], '
                '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.site == "sphinx"
    assert source.metadata.name == "Split"
    assert _order(source) == ["index", "guide", "book"]
    assert _warnings(source) == []


def test_myst_without_toc_takes_the_implicit_table_of_contents(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "implicit",
        {
            "myst.yml": "version: 1\nproject:\n  title: Implicit\n  exclude: [drafts/*]\n",
            "main.md": "# Main\n",
            "chapter10.md": "# Ten\n",
            "Chapter9.md": "# Nine\n",
            "appendix/b.md": "# B\n",
            "appendix/a.ipynb": (
                '{"cells": [{"cell_type": "markdown", "source": ["# A"]}], '
                '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
            ),
            "drafts/wip.md": "# Work in progress\n",
            "_build/html/out.md": "# Built\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.outline == "myst"
    # the root page, then files before folders, in natural order, case aside
    assert _order(source) == ["main", "Chapter9", "chapter10", "appendix/a", "appendix/b"]
    assert "Appendix" in {t.name for t in source.topics}


def test_sphinx_api_generators_pages_and_objects_are_not_warned(tmp_path: Path) -> None:
    # sphinx-autoapi writes api/ at build time, conf.py's code the file it names; an object
    # autodoc documents has no page here
    conf = (
        'extensions = ["myst_parser"]\nextensions += ["autoapi.extension"]\n'
        'autoapi_dirs = [os.path.join("..", "src")]\nautoapi_root = "api"\n'
        'Path("made/at-build.md").write_text("# Made by conf.py")\n'
    )
    root = write_tree(
        tmp_path / "api",
        {
            "conf.py": conf,
            "index.md": (
                "# Home\n\nSee [the class](pkg.Thing).\n\n"
                "```{toctree}\napi/index\nmade/at-build\ngone\n```\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert read_conf(conf)["extensions"] == ["myst_parser", "autoapi.extension"]
    assert assigned_names(conf) >= {"extensions", "autoapi_dirs", "autoapi_root"}
    # only the document nothing writes warns
    assert _warnings(source) == [("missing-outline-page", "index.md", 8)]


def test_links_inside_myst_directives_are_read_but_not_in_code(tmp_path: Path) -> None:
    note = (
        "# Home\n\n```{toctree}\nguide\n```\n\n"
        "````{note}\n:class: tip\nSee [the guide](guide.md).\n\n"
        "```python\n[x](nope.md)\n```\n````\n"
        "\n$$ \\label{euler} e^{i\\pi} = -1 $$\n\nBy [](#euler).\n"
    )
    files = {"index.md": note, "guide.md": "# Guide\n"}
    site = write_tree(
        tmp_path / "s", {"conf.py": 'extensions = ["myst_parser"]\n', **files}, catalog=None
    )
    source = load_markdown_tree(site)
    body = _body(source, "index")
    assert "See [the guide](knowledge://tester/demo/guide)." in body
    assert "[x](nope.md)" in body  # code: shown, never read
    assert "By [](knowledge://tester/demo/index#line=16-16)." in body
    assert _warnings(source) == []
    # a plain folder's ```{note} is a code block, as any CommonMark renderer shows it
    plain = write_tree(tmp_path / "p", files)
    assert "See [the guide](guide.md)." in _body(load_markdown_tree(plain), "index")


def test_a_conf_py_without_its_root_document_is_no_sphinx_site(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"conf.py": "project = 'Tool'\n", "notes.md": "# Notes\n"})
    source = load_markdown_tree(root)
    assert source.site is None
    assert [d.id for d in source.documents] == ["notes"]


MYST_FAMILIES = [
    # (what a line starts with, what it repeats): one megabyte-long line, or many lines
    ("# ", " "),
    ("# a {", "#b "),
    ("", "(a)=\n"),
    ("```{note}\n:name: x", " "),
    ("```{note}\n---\nname: x", " "),
    ("```{toctree}\n:maxdepth:", " "),
    ("```a", " "),
    ("", "```{note}\n:name: a\n"),
    ("", "::::{tab-set}\n"),
    ("", "$$ ("),
    ("+++ {", '"label": '),
    ("", "\\label{a"),
    ("```{toctree}\nTitle", " <"),
    ("```{toctree}\nTitle", " "),
    (".. toctree::\n   :glob:", " "),
]


def test_a_myst_comment_line_holds_no_link() -> None:
    body = (
        "Text [kept](a.md)\n% ![old](../images/gone.png)\n   % [also](b.md)\n"
        "    % indented code, not a comment\n\n100% [done](c.md)\n"
    )
    assert [r.target for r in find_links(body, myst=True)] == ["a.md", "c.md"]
    # In plain Markdown a % line is text.
    assert len(find_links(body)) == 4


@pytest.mark.parametrize(("head", "unit"), MYST_FAMILIES)
def test_myst_scanners_are_linear(head: str, unit: str) -> None:
    # issue 26's budget: about ten times this machine's time, far below a quadratic scan
    text = head + _repeat(unit, MB - len(head) - 1) + "x"  # a run, then something else

    def scan() -> None:
        body = normalize_body(text)
        myst_targets(body, implicit=True)
        directive_lines(body)
        find_links(body, myst=True)
        toctrees(body)
        toctrees(body, rst=True)
        toctrees("```{toctree}\n" + body)

    assert_linear_time(scan, len(text), seconds_per_mb=40, what=f"MyST page {head!r} {unit!r}")


def test_toctrees_nested_three_hundred_deep_end_typed(tmp_path: Path) -> None:
    files = {"conf.py": "extensions = ['myst_parser']\n"}
    for i in range(300):
        files["index.md" if i == 0 else f"p{i}.md"] = f"# P{i}\n\n```{{toctree}}\np{i + 1}\n```\n"
    files["p300.md"] = "# Last\n"
    root = write_tree(tmp_path / "deep", files, catalog=None)
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert (err.value.reason, err.value.path, err.value.line) == ("too-deep", "p64.md", 4)


def test_myst_extends_local_files_and_hidden_entries(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "ext",
        {
            "myst.yml": (
                "version: 1\nextends:\n  - https://example.test/site.yml\n  - shared/base.yml\n"
                "project:\n  description: Own description\n  toc:\n    - file: index.md\n"
                "    - file: secret.md\n      hidden: true\n    - file: shown.md\n"
            ),
            "shared/base.yml": (
                "version: 1\nproject:\n  title: From the base\n  description: Base description\n"
                "  github: base-org/book\n"
            ),
            "index.md": "# Index\n\n[Secret](secret.md)\n",
            "secret.md": "# Secret\n",
            "shown.md": "# Shown\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    meta = source.metadata
    assert (meta.name, meta.description) == ("From the base", "Own description")
    assert meta.publisher is not None
    assert meta.publisher.id == "base-org"
    assert _order(source) == ["index", "shown"]
    assert _warnings(source) == []  # a hidden page is still a file of the project


def test_jupyter_book_unknown_labels_warn_unless_sphinx_may_find_them(tmp_path: Path) -> None:
    files = {
        "_config.yml": "title: Book\n",
        "_toc.yml": "format: jb-book\nroot: intro\n",
        "intro.md": "# Intro\n\nSee [the function](pkg.func).\n",
    }
    root = write_tree(tmp_path / "jb", files)
    assert _warnings(load_markdown_tree(root)) == [("unresolved-link", "intro.md", 3)]
    (root / "_config.yml").write_text(
        "title: Book\nsphinx:\n  extra_extensions: [sphinx.ext.autodoc]\n", encoding="utf-8"
    )
    assert _warnings(load_markdown_tree(root)) == []


def test_sphinx_labels_are_found_whatever_their_case(tmp_path: Path) -> None:
    # Sphinx registers labels lowercased and looks them up lowercased: repo2docker's
    # [](#postBuild) finds (postbuild)=; mystmd's labels keep their case (a miss warns).
    files = {
        "index.md": "# Home\n\n```{toctree}\nactions\n```\n\nA [](#postBuild) file.\n",
        "actions.md": "# Actions\n\n(postbuild)=\n## postBuild\n\nRun code.\n",
    }
    sphinx = {**files, "conf.py": 'project = "Demo"\nextensions = ["myst_parser"]\n'}
    source = load_markdown_tree(write_tree(tmp_path / "sphinx", sphinx))
    assert _warnings(source) == []
    assert "knowledge://tester/demo/actions" in _body(source, "index")


def test_a_linked_page_outside_the_source_is_not_read_for_its_toctrees(tmp_path: Path) -> None:
    # A _toc.yml page that is a link out of the source folder: refused before it is read
    # (the file there is not UTF-8, which reading it would report instead).
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"# Secret \xff\n")
    root = write_tree(
        tmp_path / "docs",
        {"_toc.yml": "root: index\nchapters:\n- file: linked\n", "index.md": "# Home\n"},
        catalog=None,
    )
    (root / "linked.md").symlink_to(outside)
    with pytest.raises(SourceError) as caught:
        load_markdown_tree(root)
    assert caught.value.reason == "unsafe-path"


def test_an_image_a_notebooks_own_code_writes_is_not_reported_missing(tmp_path: Path) -> None:
    # The radar cookbook's tracer notebook writes storm-animation.gif beside itself when the
    # site executes it, and shows it; an image no code cell names is still reported.
    notebook = {
        "cells": [
            {
                "cell_type": "markdown",
                "source": ["# Storm\n", "\n", "![](storm.gif) ![](gone.gif)\n"],
            },
            {"cell_type": "code", "source": ["with writer('storm.gif') as w:\n", "    w.add(f)\n"]},
            {"cell_type": "markdown", "source": "![](../images/storm.gif)\n"},
        ],
        "metadata": {},
    }
    root = write_tree(
        tmp_path / "book",
        {
            "myst.yml": (
                "version: 1\nproject:\n  title: Storms\n  toc:\n    - file: nb/storm.ipynb\n"
            ),
            "nb/storm.ipynb": json.dumps(notebook),
        },
    )
    source = load_markdown_tree(root)
    assert sorted(w.message for w in source.warnings) == [
        "link '../images/storm.gif' names a missing file; kept as written",
        "link 'gone.gif' names a missing file; kept as written",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "extensions.extend(extensions)\n",
        "extensions += extensions\n",
        "extensions = extensions + extensions\n",
        "html_title = html_title + html_title\n",
    ],
)
def test_a_conf_py_value_doubled_again_and_again_is_unknown(line: str) -> None:
    # Sixty doublings would be 2^60 items: a value larger than conf.py itself could be is no
    # literal the file spells, so it is unknown (and costs nothing).
    text = 'extensions = ["myst_parser"]\nhtml_title = "Docs"\n' + line * 60
    started = time.process_time()
    known = read_conf(text)
    assert time.process_time() - started < 5
    name = "html_title" if "html_title" in line else "extensions"
    assert name not in known
    assert read_conf('extensions = ["a"]\nextensions.extend(["b"])\n')["extensions"] == ["a", "b"]
