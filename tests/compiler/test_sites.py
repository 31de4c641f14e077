"""Generator projects: recognised, their content folder found, their metadata read."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase, SourceError
from gezel_knowledge.compiler.generators.registry import detect_site
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezk.manifest import Publisher
from tests.compiler.trees import write_tree

# One small project per generator, each with its configuration written the way its authors'
# documentation describes: (files, generator, content folder, name, description, language,
# publisher, source URL).
SITES = {
    "mkdocs": (
        {
            "mkdocs.yml": (
                "site_name: Widgets\nsite_description: All about widgets.\n"
                "site_url: https://widgets.example/\nrepo_url: https://github.com/acme/widgets\n"
                "docs_dir: documentation\ntheme:\n  name: material\n  language: de\n"
            ),
            "documentation/index.md": "# Start\n",
        },
        "documentation",
        ("Widgets", "All about widgets.", "de"),
        Publisher("acme", "acme", "https://github.com/acme"),
        "https://widgets.example/",
    ),
    "mdbook": (
        {
            "book.toml": (
                '[book]\ntitle = "The Widget Book"\ndescription = "Widgets, bound."\n'
                'authors = ["Ada Lovelace", "Alan Turing"]\nsrc = "chapters"\n'
            ),
            "chapters/SUMMARY.md": "# Summary\n\n- [Start](start.md)\n",
            "chapters/start.md": "# Start\n",
        },
        "chapters",
        ("The Widget Book", "Widgets, bound.", "en"),
        Publisher("ada-lovelace-alan-turing", "Ada Lovelace, Alan Turing"),
        None,
    ),
    "docusaurus": (
        {
            "docusaurus.config.js": (
                "// @ts-check\nconst config = {\n"
                "  title: \"Widget Docs\",\n  tagline: 'Widgets for everyone',\n"
                '  url: "https://widgets.example",\n  baseUrl: "/",\n'
                '  organizationName: "acme",\n  i18n: { defaultLocale: "fr", locales: ["fr"] },\n'
                "  presets: [['classic', { docs: { path: 'guides', routeBasePath: '/' } }]],\n"
                "  themeConfig: { navbar: { title: 'Navbar title' } },\n};\n"
                "module.exports = config;\n"
            ),
            "guides/intro.md": "# Intro\n",
        },
        "guides",
        ("Widget Docs", "Widgets for everyone", "fr"),
        Publisher("acme", "acme"),
        "https://widgets.example",
    ),
    "hugo": (
        {
            "hugo.toml": (
                'baseURL = "https://widgets.example/"\ntitle = "Widgets"\n'
                'contentDir = "content/en"\ndefaultContentLanguage = "en"\n'
                '[params]\ndescription = "Hugo widgets"\n'
                'github_repo = "https://github.com/acme/widgets"\n'
                '[languages.en]\ntitle = "Widgets (English)"\n'
            ),
            "content/en/_index.md": "---\ntitle: Home\n---\n",
            "content/en/docs/page.md": "# Page\n",
            "content/no/docs/side.md": "# Side\n",
        },
        "content/en",
        ("Widgets (English)", "Hugo widgets", "en"),
        Publisher("acme", "acme", "https://github.com/acme"),
        "https://widgets.example/",
    ),
    "jupyter-book": (
        {
            "_toc.yml": "format: jb-book\nroot: intro\n",
            "_config.yml": (
                "title: Widget notebooks\nauthor: The <b>Widget</b> team\n"
                "repository:\n  url: https://gitlab.com/acme/notebooks\n"
            ),
            "intro.md": "# Intro\n",
        },
        ".",
        ("Widget notebooks", None, "en"),
        Publisher("acme", "acme", "https://gitlab.com/acme"),
        "https://gitlab.com/acme/notebooks",
    ),
    "docfx": (
        {
            "docfx.json": '{"build": {"globalMetadata": {"_appTitle": "Widget API"}}}',
            "toc.yml": "- name: Intro\n  href: intro.md\n",
            "intro.md": "# Intro\n",
        },
        ".",
        ("Widget API", None, "en"),
        None,
        None,
    ),
    "gitbook": (
        {
            "SUMMARY.md": "# Summary\n\n* [Intro](intro.md)\n",
            "book.json": '{"title": "Widget space", "description": "Spaced widgets."}',
            "intro.md": "# Intro\n",
        },
        ".",
        ("Widget space", "Spaced widgets.", "en"),
        None,
        None,
    ),
}


@pytest.mark.parametrize("generator", list(SITES))
def test_each_generator_is_recognised_with_its_metadata(tmp_path: Path, generator: str) -> None:
    files, content, (name, description, language), publisher, url = SITES[generator]
    root = write_tree(tmp_path / generator, files, catalog=None)
    site = detect_site(root)
    assert site is not None
    assert site.generator.name == generator
    assert site.content_root == (root / content if content != "." else root)
    meta = site.metadata
    assert (meta.name, meta.description, meta.language) == (name, description, language)
    assert meta.publisher == publisher
    assert meta.source_url == url
    source = load_markdown_tree(root)
    assert source.site == generator
    assert source.metadata.name == name


def test_catalog_yaml_wins_over_the_site_configuration(tmp_path: Path) -> None:
    files, *_ = SITES["mkdocs"]
    root = write_tree(
        tmp_path / "s", files, catalog="name: Own name\npublisher: {id: me, name: Me}\n"
    )
    meta = load_markdown_tree(root).metadata
    assert (meta.name, meta.description, meta.publisher) == (
        "Own name",
        "All about widgets.",
        Publisher("me", "Me"),
    )


def test_hugo_reads_only_the_default_languages_content(tmp_path: Path) -> None:
    files, *_ = SITES["hugo"]
    root = write_tree(tmp_path / "h", files, catalog=None)
    assert [d.id for d in load_markdown_tree(root).documents] == ["_index", "docs/page"]


def test_a_plain_folder_is_no_site(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.md": "# A\n"}, catalog=None)
    assert detect_site(root) is None
    assert load_markdown_tree(root).site is None


def test_configuration_is_read_never_run(tmp_path: Path) -> None:
    # A JavaScript value the config computes is left out, never evaluated.
    root = write_tree(
        tmp_path / "d",
        {
            "docusaurus.config.js": "module.exports = { title: `Docs ${year}`, tagline: x };\n",
            "docs/a.md": "# A\n",
        },
        catalog=None,
    )
    site = detect_site(root)
    assert site is not None
    assert (site.metadata.name, site.metadata.description) == (None, None)


def test_an_unreadable_configuration_is_a_typed_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "b", {"book.toml": "[book\ntitle = 1\n"}, catalog=None)
    with pytest.raises(SourceError) as err:
        detect_site(root)
    assert (err.value.reason, err.value.path) == ("invalid-config", "book.toml")


def test_asking_for_a_generator_that_is_not_there_is_refused(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "n", {"a.md": "# A\n"}, catalog="outline: mdbook\n")
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "missing-outline"
    assert "book.toml" in str(err.value)


def test_a_content_folder_is_recognised_from_the_configuration_above_it(tmp_path: Path) -> None:
    files, *_ = SITES["mkdocs"]
    root = write_tree(tmp_path / "repo", files, catalog=None)
    source = load_markdown_tree(root / "documentation")
    assert (source.site, source.metadata.name) == ("mkdocs", "Widgets")
    assert [d.id for d in source.documents] == ["index"]


def test_a_books_introduction_is_a_document_not_the_catalog_readme(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "B"\n',
            "src/SUMMARY.md": "[Introduction](README.md)\n\n- [A](a.md)\n",
            "src/README.md": "# Introduction\n",
            "src/a.md": "# A\n",
            "LICENSE": "CC BY 4.0\n",
        },
        catalog=None,
        notices=False,
    )
    # Pointed at the book, or at its src/ folder: the same book, the same documents.
    for folder in (root, root / "src"):
        source = load_markdown_tree(folder)
        assert (source.site, source.outline) == ("mdbook", "mdbook")
        assert [d.id for d in source.documents] == ["README", "a"]
        assert source.readme is None


@pytest.mark.parametrize(
    ("files", "page"),
    [
        # MkDocs reads a meta-data block that is not YAML as no meta-data.
        ({"mkdocs.yml": "site_name: T\nnav:\n  - a.md\n"}, "docs/a.md"),
        # myst-parser (Sphinx, Jupyter Book 1) warns (myst.topmatter) and builds the page.
        (
            {
                "conf.py": 'extensions = ["myst_parser"]\n',
                "index.md": "# I\n\n```{toctree}\na\n```\n",
            },
            "a.md",
        ),
        (
            {
                "_toc.yml": "format: jb-book\nroot: index\nchapters:\n  - file: a\n",
                "index.md": "# I\n",
            },
            "a.md",
        ),
    ],
)
def test_front_matter_that_is_not_yaml_is_left_out_with_a_warning(
    tmp_path: Path, files: dict[str, str], page: str
) -> None:
    # The Jupyter Enhancement Proposals' `issue-number: [#117](https://...)`.
    bad = "---\ntitle: Restart\nissue: [#117](https://x.test/117)\n---\n\n# Restart\n\nText.\n"
    root = write_tree(tmp_path / "site", {**files, page: bad})
    source = load_markdown_tree(root)
    doc = next(d for d in source.documents if d.id == "a")
    assert doc.title == "Restart"
    assert "Text." in doc.load_body(LinkBase("tester", "demo"))
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("invalid-front-matter", page, 3)
    ]
