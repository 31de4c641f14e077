"""Hugo: where pages are published (permalinks), the pages it publishes outside its
navigation (a search page its layout fills, ``list: never``) kept as routes, and the home
ordered by its ``main`` menu (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import CatalogSource, LinkBase, SourceError
from gezel_knowledge.compiler.generators._hugo_mounts import MAX_MOUNTS
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")
REF = "knowledge://tester/demo/"


def _body(source: CatalogSource, doc_id: str) -> str:
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def _warnings(source: CatalogSource) -> list[tuple[str, str | None, int | None]]:
    return [(w.reason, w.path, w.line) for w in source.warnings]


def test_links_written_against_permalinks_find_their_pages(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": (
                "title: H\npermalinks:\n  posts: /:year/:month/:title/\n"
                "  page:\n    docs: /manual/:sections/:slugorfilename/\n"
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/posts/_index.md": "---\ntitle: Posts\n---\n",
            "content/posts/launch.md": (
                "---\ntitle: We Launched Today\ndate: 2026-03-04\n---\nHello.\n"
            ),
            "content/docs/_index.md": "---\ntitle: Docs\n---\n",
            "content/docs/guide/setup.md": "---\ntitle: Setup\nslug: install\n---\nDo it.\n",
            "content/docs/guide/tune.md": "---\ntitle: Tune\n---\n## Knobs\n\nTurn.\n",
            "content/about.md": (
                "---\ntitle: About\n---\n"
                "[launch](/2026/03/we-launched-today/) [setup](/manual/docs/guide/install/)\n"
                "[knobs](/manual/docs/guide/tune/#knobs) [docs](/docs/) "
                "[old](/posts/launch/)\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    body = _body(source, "about")
    assert f"[launch]({REF}posts/launch)" in body
    assert f"[setup]({REF}docs/guide/setup)" in body
    assert f"[knobs]({REF}docs/guide/tune#line=" in body
    assert f"[docs]({REF}docs/_index)" in body  # a section page keeps its folder's URL
    # The post's file path still finds it, by the file rules every generator shares.
    assert f"[old]({REF}posts/launch)" in body
    assert _warnings(source) == []


def test_a_search_page_its_layout_fills_and_unlisted_pages_are_routes(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/_index.md": (
                "---\ntitle: H\n---\nSee [search](/search/) and [hidden](/hidden/).\n"
            ),
            "content/search.md": "---\ntitle: Search Results\nlayout: search\n---\n",
            "content/hidden.md": (
                "---\ntitle: Hidden\nbuild:\n  list: never\n---\nPublished, listed nowhere.\n"
            ),
            "content/gone.md": "---\ntitle: Gone\n_build:\n  render: never\n---\nNot published.\n",
            "content/shaped.md": "---\ntitle: Shaped\ntype: landing\n---\nReal text here.\n",
            "content/page.md": "---\ntitle: Page\n---\n[gone](/gone/)\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # Routes, not pages: no empty search page, no unlisted page in the navigation; a page
    # with a layout and text of its own is a page; a page Hugo does not render is none.
    assert sorted(d.id for d in source.documents) == ["_index", "page", "shaped"]
    body = _body(source, "_index")
    assert "[search](/search/)" in body
    assert "[hidden](/hidden/)" in body
    assert _warnings(source) == [("unresolved-link", "content/page.md", 4)]


def test_the_homes_sections_follow_the_main_menu(tmp_path: Path) -> None:
    # The navbar (the main menu) orders the home: menu weight, 0 last, then name; a page
    # only the configuration's menu names (pageRef) counts too; the rest follow in Hugo's
    # default order (weight, date, title).
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": (
                "title: H\nmenus:\n  main:\n    - name: Help\n      pageRef: /help\n"
                "      weight: 25\n    - name: Aside\n      pageRef: /aside\n      parent: Docs\n"
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/about/index.md": "---\ntitle: About\nmenu: {main: {weight: 10}}\n---\nA.\n",
            "content/blog/_index.md": "---\ntitle: Blog\nmenu: {main: {weight: 30}}\n---\n",
            "content/blog/post.md": "---\ntitle: Post\n---\nP.\n",
            "content/docs/_index.md": "---\ntitle: Docs\nweight: 1\nmenu: main\n---\n",
            "content/docs/start.md": "---\ntitle: Start\n---\nS.\n",
            "content/help.md": "---\ntitle: Help\n---\nH.\n",
            "content/aside.md": "---\ntitle: Aside\n---\nA.\n",
            "content/legal.md": "---\ntitle: Legal\nweight: 5\n---\nL.\n",
            # A child entry sits under its parent in the navbar: not a top-level one.
            "content/zeta.md": (
                "---\ntitle: Zeta\nweight: 9\nmenu: {main: {parent: Docs, weight: 1}}\n---\nZ.\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # The home's one order: its pages' ordinals and its sections' sort keys are positions.
    pages = {d.id: d.ordinal for d in source.documents if d.topic_path == ("h",)}
    # A sort key is 2**31 + the position (signed order as an unsigned key).
    sections = {t.id: int(t.sort_key) - 2**31 for t in source.topics if t.parent_id == "h"}
    # docs has no menu weight of its own: its page weight (1) is the entry's.
    assert {**pages, **sections} == {
        "_index": 0,
        "docs": 1,
        "about/index": 2,
        "help": 3,
        "blog": 4,
        "legal": 5,
        "zeta": 6,
        "aside": 7,
    }


def test_the_default_languages_own_index_files_lead_their_folders(tmp_path: Path) -> None:
    # `_index.en.md` and `index.en.md` are the default language's `_index.md`/`index.md`:
    # a section and a leaf bundle published at their folder's URL; `.fr` is another site's.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n[languages.en]\n[languages.fr]\n',
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/glossary/_index.en.md": "---\ntitle: Glossary\nlayout: glossary\n---\n",
            "content/glossary/_index.fr.md": "---\ntitle: Glossaire\n---\n",
            "content/glossary/term.md": "---\ntitle: Term\n---\nT.\n",
            "content/guide/index.en.md": "---\ntitle: Guide\n---\nG.\n",
            "content/page.md": (
                "---\ntitle: Page\n---\n"
                '[a]({{% relref "/glossary" %}}) [b](/glossary/) [c](/guide/)\n'
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert {d.id: d.topic_path for d in source.documents} == {
        "_index": ("h",),
        "glossary/_index.en": ("h", "glossary"),
        "glossary/term": ("h", "glossary"),
        "guide/index.en": ("h",),
        "page": ("h",),
    }
    body = _body(source, "page")
    assert f"[a]({REF}glossary/_index.en)" in body
    assert f"[b]({REF}glossary/_index.en)" in body
    assert f"[c]({REF}guide/index.en)" in body
    assert source.warnings == ()


def test_render_link_pages_element_ids_and_refs_by_name(tmp_path: Path) -> None:
    # `_build: {render: link}` is a URL only (the host redirects it): a route. Any element's
    # id is an anchor. A one-segment ref no path finds names the one page of that name.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/docs/_index.md": "---\ntitle: Docs\n---\n",
            "content/docs/go/_index.md": "---\ntitle: Go\n---\n## Dev stories\n\nStories.\n",
            "content/docs/go/api.md": "---\ntitle: API\n_build: {render: link}\n---\n",
            "content/docs/go/start.md": (
                "---\ntitle: Start\n---\nSee [API](../api) and [back](#a1).\n\n"
                'Channels<sup id="a1">[1](#f1)</sup>.\n\n1. <a id="f1"></a> Note.\n'
            ),
            "content/docs/a/intro.md": "---\ntitle: Intro A\n---\nOne.\n",
            "content/docs/b/intro.md": "---\ntitle: Intro B\n---\nTwo.\n",
            "content/blog/post.md": (
                '---\ntitle: Post\n---\n[go]({{< relref "go#dev-stories" >}}) '
                '[many]({{< relref "intro" >}})\n'
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert "docs/go/api" not in {d.id for d in source.documents}
    assert f"[go]({REF}docs/go/_index#line=" in _body(source, "blog/post")
    start = _body(source, "docs/go/start")
    assert "[API](../api)" in start
    assert f"[back]({REF}docs/go/start#line=" in start
    # Two pages are named intro: ambiguous, so Hugo fails on it too.
    assert _warnings(source) == [("unresolved-link", "content/blog/post.md", 4)]


def test_cascaded_build_hook_literals_and_definition_term_ids(tmp_path: Path) -> None:
    # A section's cascade passes `build` to the pages below it (snippets Hugo never renders);
    # a destination the site's link render hook compares with a literal is the hook's; with
    # autoDefinitionTermID, definition terms are link targets (numbered after headings).
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": ('title = "H"\n[markup.goldmark.parser]\nautoDefinitionTermID = true\n'),
            "layouts/_markup/render-link.html": (
                "{{- $u := urls.Parse .Destination -}}\n"
                '{{- if eq $u.String "g" }}<a href="/glossary/">{{ .Text }}</a>{{ end -}}\n'
                '{{- if eq $level "warning" }}x{{ end -}}\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/_common/_index.md": (
                "---\ncascade:\n  build:\n    list: never\n    render: never\n---\n"
            ),
            "content/_common/snippet.md": "---\n---\nA snippet.\n",
            "content/conf.md": (
                "---\ntitle: Conf\n---\n## publishDir\n\nHeading.\n\n"
                "`publishDir`\n: Where the site goes.\n\n`cacheDir`\n: Caches.\n\n"
                "See [dir](#publishdir-1), [cache](#cachedir), a [term](g), [warn](warning) "
                "and [nope](#nope).\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_common/_index", "_index", "conf"]
    body = _body(source, "conf")
    assert f"[dir]({REF}conf#line=" in body
    assert f"[cache]({REF}conf#line=" in body
    assert "[term](g)" in body
    assert sorted(_warnings(source)) == [
        ("missing-anchor", "content/conf.md", 14),
        ("unresolved-link", "content/conf.md", 14),
    ]


def test_a_mount_from_above_the_site_is_read_only_when_named(tmp_path: Path) -> None:
    # module.mounts brings the repository's README into the site: confinement stops the build
    # naming the one option that allows it; with it, the file is the page at its target, in
    # Hugo's order, and links to it resolve.
    repo = tmp_path / "repo"
    write_tree(repo, {"README.md": "# Widget\n\nThe repository's own page.\n"}, catalog=None)
    root = write_tree(
        repo / "site",
        {
            "hugo.yaml": (
                "title: H\nmodule:\n  mounts:\n    - {source: content, target: content}\n"
                "    - {source: ../README.md, target: content/project/README.md}\n"
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/project/_index.md": "---\ntitle: Project\n---\n[readme](README.md)\n",
            "content/project/plan.md": "---\ntitle: Plan\nweight: 1\n---\nPlan.\n",
        },
        catalog=None,
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "missing-input"
    assert "add --allow-read .." in str(err.value)
    source = load_markdown_tree(root, allow_read=repo)
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "_index": (("h",), 0),
        "project/_index": (("project",), 0),
        "project/plan": (("project",), 1),
        "project/README": (("project",), 2),
    }
    assert f"[readme]({REF}project/README)" in _body(source, "project/_index")
    assert next(d for d in source.documents if d.id == "project/README").origin == "../README.md"
    assert source.warnings == ()


def test_include_shortcodes_and_a_render_hook_that_looks_pages_up(tmp_path: Path) -> None:
    # {{% include "file.md" %}} alone on its line renders that content file into the page
    # (its headings are the page's); a link render hook calling GetPage resolves a relative
    # destination as a ref does: beside the page, else from the content root.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "layouts/_markup/render-link.html": (
                "{{ with .PageInner.GetPage .Destination }}x{{ end }}"
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/_common/_index.md": "---\ncascade:\n  build:\n    render: never\n---\n",
            "content/_common/spec.md": (
                "---\n_comment: snippet\n---\n\n## Processing specification\n\nSizes.\n"
            ),
            "content/methods/_index.md": "---\ntitle: Methods\n---\n",
            "content/methods/crop.md": (
                "---\ntitle: Crop\n---\nSee [the spec](#processing-specification).\n\n"
                '{{% include "/_common/spec.md" %}}\n\n{{% include "/_common/none.md" %}}\n'
            ),
            "content/guide/intro.md": (
                "---\ntitle: Intro\n---\n[crop](methods/crop/) [missing](methods/gone/)\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    crop = _body(source, "methods/crop")
    assert "## Processing specification\n\nSizes." in crop
    assert f"[the spec]({REF}methods/crop#line=" in crop
    assert f"[crop]({REF}methods/crop)" in _body(source, "guide/intro")
    assert _warnings(source) == [("unresolved-link", "content/guide/intro.md", 4)]


def test_a_languages_own_menus_file_orders_the_home(tmp_path: Path) -> None:
    # config/_default/menus.en.toml is the `menus` of the language en (Hugo's file naming).
    root = write_tree(
        tmp_path / "hugo",
        {
            "config/_default/hugo.toml": 'title = "H"\ndefaultContentLanguage = "en"\n',
            "config/_default/menus.en.toml": (
                '[[main]]\nname = "Docs"\npageRef = "/docs"\nweight = 10\n'
                '[[main]]\nname = "Blog"\npageRef = "/blog"\nweight = 20\n'
            ),
            "config/_default/menus.nl.toml": (
                '[[main]]\nname = "Blog"\npageRef = "/blog"\nweight = 1\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/blog/_index.md": "---\ntitle: Blog\n---\n",
            "content/blog/post.md": "---\ntitle: Post\n---\nP.\n",
            "content/docs/_index.md": "---\ntitle: Docs\n---\n",
            "content/docs/start.md": "---\ntitle: Start\n---\nS.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    order = sorted((t.sort_key, t.id) for t in source.topics if t.parent_id is None)
    # "h" holds the home page; without the menu, Blog would come before Docs (by title).
    assert [topic for _, topic in order] == ["h", "docs", "blog"]


def test_a_bundles_files_are_published_at_their_paths(tmp_path: Path) -> None:
    # A page's URL is a folder (/ops/monitoring/), so `../grafana.json` is /ops/grafana.json:
    # the file beside the section's _index.md, which Hugo publishes there. A file only a
    # path from the page's file would name, or none at all, still warns.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "H"\n',
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/ops/_index.md": "---\ntitle: Ops\n---\n",
            "content/ops/monitoring.md": (
                "---\ntitle: Monitoring\n---\nImport [the dashboard](../grafana.json), "
                "[the rules](/ops/rules.yml) and [the spec](../api/spec.json).\n\n"
                "[gone](../gone.json)\n"
            ),
            "content/ops/grafana.json": "{}\n",
            "content/ops/rules.yml": "groups: []\n",
            "content/ops/api/spec.json": "{}\n",
            "content/gone.json": "{}\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert _warnings(source) == [("link-not-rewritten", "content/ops/monitoring.md", 6)]


def test_a_sections_pages_follow_the_main_menu_they_nest_in(tmp_path: Path) -> None:
    # kind's shape: the layouts show the main menu as the sidebar; pages of one section
    # (guide/ and design/ have no _index.md) name their parent entry in the main menu. They
    # are listed under their parents in the menu's order (User Guide, weight 2, before
    # Design, weight 5), each parent's pages by weight (0 last), then name.
    root = write_tree(
        tmp_path / "hugo",
        {
            "config.toml": (
                'title = "K"\n[menu]\n[[menu.main]]\nidentifier = "user"\nname = "User Guide"\n'
                'weight = 2\n[[menu.main]]\nidentifier = "design"\nname = "Design"\n'
                'url = "/docs/design/"\nweight = 5\n'
            ),
            "content/_index.md": "---\ntitle: K\n---\n",
            "content/docs/design/alpha.md": (
                "---\ntitle: Alpha\nmenu:\n  main:\n    parent: design\n---\nA.\n"
            ),
            "content/docs/design/omega.md": (
                "---\ntitle: Omega\nmenu:\n  main:\n    parent: design\n    weight: 1\n---\nO.\n"
            ),
            "content/docs/guide/start.md": (
                "---\ntitle: Start\nmenu:\n  main:\n    parent: user\n    weight: 1\n---\nS.\n"
            ),
            "content/docs/guide/more.md": (
                "---\ntitle: More\nmenu:\n  main:\n    parent: user\n    weight: 3\n---\nM.\n"
            ),
            "content/docs/plain.md": "---\ntitle: Plain\n---\nP.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    docs = sorted((d.ordinal, d.id) for d in source.documents if d.topic_path == ("docs",))
    assert [doc_id for _, doc_id in docs] == [
        "docs/guide/start",
        "docs/guide/more",
        "docs/design/omega",
        "docs/design/alpha",
        "docs/plain",
    ]


def test_a_page_whose_name_opens_with_an_underscore_is_an_ordinary_page(tmp_path: Path) -> None:
    # Hugo treats _index.md (any language's) as the section's page and nothing else that
    # opens with `_`: the glossary's _TEMPLATE.md is published at /_template/.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": 'title = "G"\n',
            "content/_index.md": "---\ntitle: G\n---\n",
            "content/_index.fr.md": "---\ntitle: G fr\n---\n",
            "content/_TEMPLATE.md": "---\ntitle: Template\n---\nT.\n",
            "content/term.md": "---\ntitle: Term\n---\nSee [the template](/_template/).\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_TEMPLATE", "_index", "term"]
    assert source.warnings == ()


_VERSIONED = (
    "title: H\nmodule:\n  mounts:\n"
    "    - {source: content, target: content, files: ['! docs/v?', '! old.md']}\n"
    "    - {source: content/docs/v2, target: content/docs, files: '! _*'}\n"
    "    - {source: content/docs/v2/_dev, target: content/docs/2.dev}\n"
    "    - {source: static/logo.svg, target: assets/logo.svg}\n"
)


def test_mounts_inside_the_content_place_each_page_at_its_mounted_path(tmp_path: Path) -> None:
    # A versioned site (Jaeger's) mounts content/docs/v2 at content/docs, leaving out its
    # `_*` files, and its _dev folder at docs/2.dev; the content mount leaves out docs/v? and
    # old.md. Pages are Hugo's: at their mounted paths, read from their files, links between
    # them resolving, and no warning.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": _VERSIONED,
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/old.md": "---\ntitle: Old\n---\nOld home.\n",
            "content/docs/_index.md": "---\ntitle: Docs\n---\nAll versions.\n",
            "content/docs/v2/_index.md": "---\ntitle: Version 2\n---\nList.\n",
            "content/docs/v2/2.1/_index.md": "---\ntitle: Two one\nweight: 2\n---\nText.\n",
            "content/docs/v2/2.1/start.md": (
                "---\ntitle: Start\n---\nStart here; see [the next](/docs/2.dev/start/).\n"
            ),
            "content/docs/v2/2.0/_index.md": "---\ntitle: Two zero\nweight: 3\n---\nOld.\n",
            "content/docs/v2/_dev/_index.md": "---\ntitle: Next\nweight: 1\n---\nSoon.\n",
            "content/docs/v2/_dev/start.md": "---\ntitle: Start next\n---\nNext start.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == [
        "_index",
        "docs/2.0/_index",
        "docs/2.1/_index",
        "docs/2.1/start",
        "docs/2.dev/_index",
        "docs/2.dev/start",
        "docs/_index",
    ]
    assert "Start here" in _body(source, "docs/2.1/start")
    assert source.warnings == ()


def test_exclude_and_include_filters_of_the_content_mount_leave_pages_out(
    tmp_path: Path,
) -> None:
    # A declared content mount replaces the default one: only what its filters keep is
    # content (includeFiles keeps drafts/ out of the glob; excludeFiles drops one folder).
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.toml": (
                'title = "H"\n[[module.mounts]]\nsource = "content"\ntarget = "content"\n'
                'includeFiles = ["*.md", "guide/**"]\nexcludeFiles = "guide/internal"\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/a.md": "---\ntitle: A\n---\nA.\n",
            "content/guide/_index.md": "---\ntitle: Guide\n---\nG.\n",
            "content/guide/b.md": "---\ntitle: B\n---\nB.\n",
            "content/guide/internal/c.md": "---\ntitle: C\n---\nC.\n",
            "content/drafts/d.md": "---\ntitle: D\n---\nD.\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_index", "a", "guide/_index", "guide/b"]
    assert source.warnings == ()


def test_a_mount_never_reads_outside_the_site_nor_follows_links(tmp_path: Path) -> None:
    # A mount whose source is a link out of the site is not read; a linked folder or file
    # inside a mounted folder is not followed.
    outside = write_tree(
        tmp_path / "outside",
        {"secret.md": "---\ntitle: Secret\n---\nSecret.\n"},
        catalog=None,
    )
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": (
                "title: H\nmodule:\n  mounts:\n"
                "    - {source: content, target: content}\n"
                "    - {source: away, target: content/away}\n"
                "    - {source: docs, target: content/docs}\n"
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "docs/_index.md": "---\ntitle: Docs\n---\nD.\n",
        },
        catalog=None,
    )
    (root / "away").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "linked").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "page.md").symlink_to(outside / "secret.md")
    source = load_markdown_tree(root)
    assert sorted(d.id for d in source.documents) == ["_index", "docs/_index"]
    assert all("Secret" not in _body(source, d.id) for d in source.documents)


def test_mounts_past_the_cap_are_not_read(tmp_path: Path) -> None:
    # At most 64 content mounts are read: a site declaring more keeps the first 64.
    mounts = "".join(
        f"    - {{source: parts/p{i}, target: content/p{i}}}\n" for i in range(MAX_MOUNTS + 1)
    )
    files = {
        f"parts/p{i}/_index.md": f"---\ntitle: P{i}\n---\nPart {i}.\n"
        for i in range(MAX_MOUNTS + 1)
    }
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": "title: H\nmodule:\n  mounts:\n" + mounts,
            "content/_index.md": "---\ntitle: H\n---\n",
            **files,
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    ids = {d.id for d in source.documents}
    assert MAX_MOUNTS == 64
    assert f"p{MAX_MOUNTS - 1}/_index" in ids
    assert f"p{MAX_MOUNTS}/_index" not in ids
    assert len(ids) == MAX_MOUNTS


def test_a_shortcode_whose_template_writes_ids_gives_its_page_anchors(tmp_path: Path) -> None:
    # The theme's {{< cli/tools-list >}} writes <h2 id="{{ $tool }}"> from the site's data:
    # links to the page's anchors are not checked; a plain shortcode's page still is.
    root = write_tree(
        tmp_path / "hugo",
        {
            "hugo.yaml": "title: H\ntheme: [base]\n",
            "themes/base/layouts/shortcodes/cli/tools-list.html": (
                '{{ range .Site.Data.tools }}<h2 id="{{ . }}">{{ . }}</h2>{{ end }}\n'
            ),
            # An id with a fixed prefix is never a heading's: the page's anchors are checked.
            "themes/base/layouts/shortcodes/note.html": (
                '<div id="note-{{ .Ordinal }}">{{ .Inner }}</div>\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\n",
            "content/cli.md": "---\ntitle: CLI\nweight: 1\n---\n{{< cli/tools-list >}}\n",
            "content/notes.md": "---\ntitle: Notes\nweight: 2\n---\n{{< note >}}x{{< /note >}}\n",
            "content/use.md": (
                "---\ntitle: Use\nweight: 3\n---\n[collector](../cli/#collector), "
                "[gone](../notes/#gone)\n"
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path) for w in source.warnings] == [("missing-anchor", "content/use.md")]
    assert "#gone" in source.warnings[0].message
