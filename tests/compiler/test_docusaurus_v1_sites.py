"""Docusaurus 1 sites: ``website/siteConfig.js`` and ``website/sidebars.json`` beside ``docs/``,
its own front matter reader, doc ids with their subfolder, URLs under ``docs/``."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import CatalogSource, LinkBase
from gezel_knowledge.compiler.generators.docusaurus_v1 import split_v1_front_matter
from gezel_knowledge.compiler.generators.registry import detect_site
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import toc_order, write_tree

LINKS = LinkBase("tester", "demo")
REF = "knowledge://tester/demo/"

SITE_CONFIG = """\
const baseUrl = '/proj/';
const siteConfig = {
  title: 'Proj',
  tagline: 'A tagline',
  url: 'https://example.org',
  baseUrl: baseUrl,
  organizationName: 'example-org',
  projectName: 'proj',
  headerLinks: [{ doc: 'intro', label: 'Docs' }, { page: 'help', label: 'Help' }],
  cleanUrl: true,
};
module.exports = siteConfig;
"""

SIDEBARS = """{
  "docs": {
    "Start": ["intro", "setup"],
    "Guides": ["guides/first", {"type": "subcategory", "label": "Deep", "ids": ["guides/deep"]}]
  },
  "more": {"Other": ["faq", "gone"]}
}"""

TREE = {
    "LICENSE": "MIT License\n\nCopyright (c) 2020 Example\n",
    "website/siteConfig.js": SITE_CONFIG,
    "website/sidebars.json": SIDEBARS,
    "website/pages/en/help.js": "module.exports = () => null;\n",
    "website/static/img/shot.png": "\x89PNG\r\n\x1a\n",
    "docs/intro.md": (
        "---\nid: intro\ntitle: Intro: the start\n---\n\n[setup](setup) [first](guides/first.md) "
        "[help](/help) ![shot](/proj/img/shot.png)\n"
    ),
    "docs/install.md": '---\nid: setup\ntitle: "Setting up"\n---\n\nInstall it.\n',
    "docs/guides/first.md": "---\ntitle: First\n---\n\n[intro](../intro.md) [deep](deep)\n",
    "docs/guides/deep.md": "---\nid: deep\ntitle: Deep\n---\n\nDeep.\n",
    "docs/faq.md": "---\ntitle: FAQ\n---\n\nQuestions.\n",
    "docs/unlisted.md": "---\ntitle: Unlisted\n---\n\nNot in a sidebar.\n",
}


def _body(source: CatalogSource, doc_id: str) -> str:
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def test_front_matter_is_read_line_by_line_as_docusaurus_1_reads_it() -> None:
    text = '---\nid: a\ntitle: Styling: Tailwind CSS\nsidebar_label: "Quoted"\nn: 3\n---\nBody\n'
    front = split_v1_front_matter(text, path="a.md")
    # Not YAML (a second colon would be an error there): the key is before the first colon.
    assert front.data == {
        "id": "a",
        "title": "Styling: Tailwind CSS",
        "sidebar_label": "Quoted",
        "n": 3,
    }
    assert front.body == "Body\n"
    assert front.body_line == 7
    unclosed = split_v1_front_matter("---\ntitle: x\n", path="b.md")
    assert unclosed.data == {}


def test_a_docusaurus_1_site_builds_at_its_root(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "site", TREE)
    site = detect_site(root)
    assert site is not None
    assert site.generator_name == "docusaurus"
    assert site.content_root == root / "docs"
    assert site.metadata.name == "Proj"
    assert site.metadata.description == "A tagline"
    assert site.metadata.language == "en"
    assert site.metadata.publisher is not None
    assert site.metadata.publisher.name == "example-org"
    source = load_markdown_tree(root)
    # Sidebars, categories and items in file order; a subcategory in place; the docs no
    # sidebar lists after, in path order. Ids: front matter id after the subfolder.
    assert toc_order(source) == [
        ("intro", "start"),
        ("setup", "start"),
        ("guides/first", "guides"),
        ("guides/deep", "deep"),
        ("faq", "other"),
        ("unlisted", "demo"),
    ]
    titles = {d.id: d.title for d in source.documents}
    assert titles["intro"] == "Intro: the start"
    assert titles["setup"] == "Setting up"
    # Links by URL (relative to docs/), by file, to the site's own pages, and images under
    # the base URL from static/.
    body = _body(source, "intro")
    assert f"[setup]({REF}setup)" in body
    assert f"[first]({REF}guides/first)" in body
    assert "[help](/help)" in body
    assert f"[intro]({REF}intro)" in _body(source, "guides/first")
    assert f"[deep]({REF}guides/deep)" in _body(source, "guides/first")
    # The one sidebar id no page has is the only warning (the image under the base URL is
    # static/img/shot.png: found).
    assert [(w.reason, w.path) for w in source.warnings] == [
        ("missing-outline-page", "website/sidebars.json")
    ]


def test_a_docs_folder_named_by_custom_docs_path(tmp_path: Path) -> None:
    config = SITE_CONFIG.replace(
        "cleanUrl: true,", "cleanUrl: true, customDocsPath: 'documentation',"
    )
    tree = {k.replace("docs/", "documentation/"): v for k, v in TREE.items()}
    root = write_tree(tmp_path / "site", {**tree, "website/siteConfig.js": config})
    site = detect_site(root)
    assert site is not None
    assert site.content_root == root / "documentation"


def test_a_docusaurus_2_configuration_wins_over_a_left_over_site_config(tmp_path: Path) -> None:
    modern = "module.exports = { title: 'Two', presets: [['classic', {}]] };\n"
    root = write_tree(tmp_path / "site", {**TREE, "docusaurus.config.js": modern})
    site = detect_site(root)
    assert site is not None
    assert site.metadata.name == "Two"


def test_docs_built_on_their_own_keep_the_sites_static_images(tmp_path: Path) -> None:
    # Pointing at docs/ of the site: it is the site's content folder; an image served from
    # website/static (above the source folder) is the generator's, kept as written and noted.
    tree = {**TREE, "docs/faq.md": "---\ntitle: FAQ\n---\n\n![shot](/img/shot.png)\n"}
    root = write_tree(tmp_path / "site", tree)
    source = load_markdown_tree(root / "docs")
    assert source.site == "docusaurus"
    assert "![shot](/img/shot.png)" in _body(source, "faq")
    assert not [w for w in source.warnings if w.reason == "missing-image"]
    assert any("above the source folder" in n for n in source.notes)
