"""Rules found on documentation trees no earlier round had tried (issue 21, round 3): DocFX
overwrite files and toc entries above the project, legacy GitBook books, a plain folder's
front matter that does not parse, Hugo configuration keys in any case and the default
language's URL folder, Creative Commons variants."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.metadata.licences import recognise_licence
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")


def test_docfx_overwrite_files_are_no_pages_and_their_yaml_is_not_read(tmp_path: Path) -> None:
    # `*content` is DocFX's placeholder in an overwrite file, not a YAML alias.
    root = write_tree(
        tmp_path / "docfx",
        {
            "docfx.json": '{"build": {"content": [{"files": ["**.md", "toc.yml"]}],'
            ' "overwrite": "_overwrites/**.md"}}',
            "toc.yml": "- name: Intro\n  topicUid: Guide.Intro\n",
            "intro.md": "---\nuid: Guide.Intro\n---\n# Intro\n\nHello.\n",
            "_overwrites/api.md": "---\nuid: Api.Thing\nremarks: *content\n---\nMore.\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents][:1] == ["intro"]


def test_docfx_toc_entry_above_the_project_is_read_only_when_allowed(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo" / "docs",
        {
            "docfx.json": '{"build": {"content": [{"files": ["*.md", "toc.yml"]},'
            ' {"src": "../", "files": ["CHANGELOG.md"]}]}}',
            "toc.yml": "- name: Home\n  href: index.md\n- name: Changes\n  href: ../CHANGELOG.md\n",
            "index.md": "# Home\n\nWelcome.\n",
        },
    )
    (root.parent / "CHANGELOG.md").write_text("# Changes\n\nFixed.\n")
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["index"]
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("outline-entry-outside", "toc.yml", 4)
    ]
    assert "add --allow-read .. to read it" in source.warnings[0].message
    # Allowed, it is the page docfx.json maps it to (CHANGELOG.md at the project's root).
    allowed = load_markdown_tree(root, allow_read=root.parent)
    ordered = sorted(allowed.documents, key=lambda d: d.ordinal or 0)
    assert [d.id for d in ordered] == ["index", "CHANGELOG"]
    assert allowed.warnings == ()
    assert "Fixed." in ordered[1].load_body(LINKS)


def test_a_legacy_gitbook_book_names_its_author_and_shows_articles_to_come(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.json": '{"title": "Insides", "author": "Jane Roe"}',
            "SUMMARY.md": "# Summary\n\n* [Boot](boot.md)\n* [Later]()\n",
            "boot.md": "# Boot\n\nIt starts.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "Jane Roe"
    assert source.warnings == ()


def test_a_plain_folder_page_whose_front_matter_does_not_parse_is_built_without_it(
    tmp_path: Path,
) -> None:
    # GitHub shows such a page (with the YAML error above it); the build warns and goes on.
    page = '---\nname: x\ndescription: Use it. Trigger: "go" now.\n---\n# Traces\n\nSpans.\n'
    root = write_tree(tmp_path / "docs", {"README.md": "# Docs\n", "traces.md": page})
    source = load_markdown_tree(root)
    doc = next(d for d in source.documents if d.id == "traces")
    assert doc.title == "Traces"
    assert "Spans." in doc.load_body(LINKS)
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("invalid-front-matter", "traces.md", 3)
    ]


def test_hugo_reads_configuration_keys_in_any_case(tmp_path: Path) -> None:
    # `[Languages.fr]` is `languages`: page.fr.md is the French translation, left out.
    root = write_tree(
        tmp_path / "hugo",
        {
            "config.toml": 'title = "H"\nDefaultContentLanguage = "en"\n'
            "[Languages.en]\nweight = 1\n[Languages.fr]\nweight = 2\n",
            "content/_index.en.md": "---\ntitle: H\n---\nHome.\n",
            "content/page.en.md": "---\ntitle: Page\nLinkTitle: Short\n---\nText.\n",
            "content/page.fr.md": "---\ntitle: Page FR\n---\nTexte.\n",
            "content/other.en.md": "---\nTitle: Other Page\n---\n# A heading\n\nText.\n",
        },
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_index.en", "other.en", "page.en"]
    titles = {d.id: d.title for d in source.documents}
    assert (titles["page.en"], titles["other.en"]) == ("Short", "Other Page")


def test_hugo_files_under_the_default_languages_url_folder_are_found(tmp_path: Path) -> None:
    # defaultContentLanguageInSubdir publishes the site under /en/, its bundles' files too.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\ndefaultContentLanguageInSubdir = true\n',
            "content/_index.md": "---\ntitle: H\n---\nHome.\n",
            "content/basics/_index.md": (
                "---\ntitle: Basics\n---\n![Shot](/en/basics/images/shot.png?width=60pc)\n"
                "See [home](/en/).\n"
            ),
            "content/basics/images/shot.png": "png",
            # Relative to the page's URL (/docs/guide/): the site's static/images/logo.png.
            "content/docs/guide.md": "---\ntitle: Guide\n---\n![Logo](../../images/logo.png)\n",
            "static/images/logo.png": "png",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()


def test_creative_commons_non_commercial_variants_are_recognised() -> None:
    for words, spdx in (
        ("Attribution-NonCommercial-ShareAlike 4.0 International", "CC-BY-NC-SA-4.0"),
        ("Attribution-NonCommercial-NoDerivatives 4.0 International", "CC-BY-NC-ND-4.0"),
        ("Attribution-NonCommercial 4.0 International", "CC-BY-NC-4.0"),
        ("Attribution-NoDerivatives 4.0 International", "CC-BY-ND-4.0"),
    ):
        text = f"{words}\n\n=====\n\nCreative Commons Corporation is not a law firm.\n"
        found = recognise_licence(text)
        assert found is not None
        assert found.spdx == spdx


def test_hugo_taxonomy_folders_are_routes_and_config_subfolders_are_read(tmp_path: Path) -> None:
    # content/contributors/ holds the `contributors` taxonomy's pages; the main menu lives in
    # config/_default/menus/menus.en.toml and puts Showcase before Docs.
    root = write_tree(
        tmp_path / "hugo",
        {
            "config/_default/hugo.toml": (
                'title = "H"\n[taxonomies]\ncontributor = "contributors"\n'
            ),
            "config/_default/menus/menus.en.toml": (
                '[[main]]\nname = "Showcase"\npageRef = "/showcase/"\nweight = 10\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\nSee [Jane](/contributors/jane/).\n",
            "content/docs/_index.md": "---\ntitle: Docs\n---\nDocs.\n",
            "content/showcase/_index.md": "---\ntitle: Showcase\n---\nSites.\n",
            "content/contributors/_index.md": "---\ntitle: Contributors\n---\n",
            "content/contributors/jane/_index.md": "---\ntitle: Jane\n---\nWrites.\n",
        },
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_index", "docs/_index", "showcase/_index"]
    # Sections' sort keys are 2**31 + their position in the home's one order.
    sections = {t.id: int(t.sort_key) - 2**31 for t in source.topics if t.id != "demo"}
    assert sections == {"showcase": 1, "docs": 2}
    assert source.warnings == ()


def test_hugo_ref_to_a_section_page_finds_the_default_languages_own_file(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "config.toml": 'title = "H"\n[languages.en]\nweight = 1\n[languages.fr]\nweight = 2\n',
            "content/_index.en.md": '---\ntitle: H\n---\n[Pages]({{%relref "cont/_index.md" %}})\n',
            "content/cont/_index.en.md": "---\ntitle: Content\n---\nText.\n",
            "content/cont/_index.fr.md": "---\ntitle: Contenu\n---\nTexte.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert "knowledge://tester/demo/cont/_index.en" in next(
        d for d in source.documents if d.id == "_index.en"
    ).load_body(LINKS)


def test_a_legacy_gitbook_books_readme_is_its_first_page(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.json": '{"title": "Insides"}',
            "README.md": "# Insides\n\nAbout the book.\n",
            "SUMMARY.md": "# Summary\n\n* [Boot](boot.md)\n",
            "boot.md": "# Boot\n\nIt starts.\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in sorted(source.documents, key=lambda d: d.ordinal or 0)] == [
        "README",
        "boot",
    ]


def test_hugo_keeps_dated_pages_whatever_the_day_but_not_one_expired_before_publication(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/_index.md": "---\ntitle: H\n---\nHome.\n",
            # A future publishDate and a past expiryDate depend on the build's day: kept.
            "content/soon.md": "---\ntitle: Soon\npublishDate: 2999-01-01\n---\nLater.\n",
            "content/old.md": "---\ntitle: Old\nexpiryDate: 2001-01-01\n---\nGone.\n",
            # Expires before it is published: Hugo never shows it, on any day.
            "content/never.md": (
                "---\ntitle: Never\npublishDate: 2020-05-01\nexpiryDate: 2020-04-01\n---\nNo.\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_index", "old", "soon"]


def test_hugo_sections_follow_a_nested_side_menu(tmp_path: Path) -> None:
    # Doks' sidebar: first-level `docs` entries in the configuration (identifier, url), pages
    # below them by `menu: {docs: {parent: ...}}`; menu weights win over page weights. A flat
    # footer menu orders nothing.
    def page(title: str, weight: int, menu: str = "") -> str:
        return f"---\ntitle: {title}\nweight: {weight}\n{menu}---\nText.\n"

    root = write_tree(
        tmp_path / "hugo",
        {
            "config.toml": (
                'title = "H"\n'
                '[[menu.docs]]\nname = "Prologue"\nweight = 10\nidentifier = "prologue"\n'
                'url = "/docs/prologue/"\n'
                '[[menu.docs]]\nname = "Help"\nweight = 50\nidentifier = "help"\n'
                'url = "/docs/help/"\n'
                '[[menu.docs]]\nname = "Recipes"\nweight = 20\nidentifier = "recipes"\n'
                'url = "/docs/recipes/"\n'
                '[[menu.footer]]\nname = "Privacy"\nurl = "/docs/help/privacy/"\nweight = 1\n'
            ),
            "content/_index.md": page("H", 0),
            "content/docs/_index.md": page("Docs", 0),
            "content/docs/prologue/_index.md": page("Prologue", 3),
            "content/docs/recipes/_index.md": page("Recipes", 2),
            "content/docs/help/_index.md": page("Help", 1),
            "content/docs/prologue/introduction.md": page(
                "Introduction", 200, "menu:\n  docs:\n    parent: prologue\n    weight: 1\n"
            ),
            "content/docs/prologue/quick-start.md": page(
                "Quick Start", 100, "menu:\n  docs:\n    parent: prologue\n    weight: 2\n"
            ),
            "content/docs/help/faq.md": page("FAQ", 2),
            "content/docs/help/privacy.md": page("Privacy", 1, "menu: footer\n"),
        },
    )
    source = load_markdown_tree(root)
    position = {t.id: int(t.sort_key) - 2**31 for t in source.topics}
    assert sorted(["help", "recipes", "prologue"], key=position.__getitem__) == [
        "prologue",
        "recipes",
        "help",
    ]
    prologue = sorted(
        (d for d in source.documents if d.topic_path[-1] == "prologue"),
        key=lambda d: d.ordinal or 0,
    )
    assert [d.id for d in prologue] == [
        "docs/prologue/_index",
        "docs/prologue/introduction",
        "docs/prologue/quick-start",
    ]
    help_pages = sorted(
        (d for d in source.documents if d.topic_path[-1] == "help"), key=lambda d: d.ordinal or 0
    )
    assert [d.id for d in help_pages] == ["docs/help/_index", "docs/help/privacy", "docs/help/faq"]
