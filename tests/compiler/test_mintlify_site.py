"""Mintlify sites: docs.json's navigation (divisions, groups with root pages, the default
language and version) and the older mint.json's groups and tabs, hidden pages, snippets,
root-absolute links and the anchors Mintlify gives headings and components."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.generators.mintlify import _config_in
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.text.anchors import slugify
from tests.compiler.test_vitepress_site import toc_order
from tests.compiler.trees import write_tree
from tests.faults import assert_linear_time

LINKS = LinkBase("tester", "demo")

DOCS_JSON = {
    "$schema": "https://mintlify.com/docs.json",
    "name": "Gadget",
    "description": "Gadget's docs.",
    "footer": {"socials": {"github": "https://github.com/acme/gadget"}},
    "redirects": [{"source": "/old-start", "destination": "/quickstart"}],
    "navigation": {
        "languages": [
            {"language": "fr", "groups": [{"group": "Début", "pages": ["fr/index"]}]},
            {
                "language": "en",
                "default": True,
                "tabs": [
                    {
                        "tab": "Guides",
                        "groups": [
                            {"group": "Start", "pages": ["index", "quickstart"]},
                            {
                                "group": "Setup",
                                "root": "setup/index",
                                "pages": [
                                    "setup/install",
                                    {"group": "Advanced", "pages": ["setup/advanced.mdx"]},
                                    "GET /users",
                                    "https://example.org/elsewhere",
                                ],
                            },
                            {"group": "Secret", "hidden": True, "pages": ["secret"]},
                        ],
                    },
                    {"tab": "API", "pages": ["api/overview", "api/get-user"]},
                    {"tab": "Blog", "href": "https://example.org/blog"},
                ],
            },
        ]
    },
}


def _page(title: str, extra: str = "", body: str = "") -> str:
    return f"---\ntitle: {title}\n{extra}---\n\n{body}"


def _site(tmp_path: Path, config: dict[str, object] | None = None) -> Path:
    return write_tree(
        tmp_path / "site",
        {
            "docs/docs.json": json.dumps(config or DOCS_JSON),
            "docs/index.mdx": _page("Welcome", body="Start with [the quickstart](/quickstart).\n"),
            "docs/quickstart.mdx": _page(
                "Quickstart",
                'sidebarTitle: "Quick start"\n',
                "import Note from '/snippets/note.mdx';\n\n<Note />\n\n"
                "See [install](/setup/install#step-1:-download), [old](/old-start), "
                "[unlisted](/unlisted), [français](/fr/index), [a field](/api/get-user#body-name), "
                "[branch](/setup/install#branch) and [gone](/gone).\n",
            ),
            "docs/setup/index.mdx": _page("Setup"),
            "docs/setup/install.mdx": _page(
                "Install",
                body='## Step 1: Download\n\n<Accordion title="Branch">\nText.\n</Accordion>\n',
            ),
            "docs/setup/advanced.mdx": _page("Advanced"),
            "docs/secret.mdx": _page("Secret"),
            "docs/unlisted.mdx": _page("Unlisted"),
            "docs/api/overview.mdx": _page("API", "hidden: true\n"),
            "docs/api/get-user.mdx": _page("Get user", "openapi: get /users/{id}\n"),
            "docs/snippets/note.mdx": "A note shown in [the setup](/setup) page.\n",
            "docs/fr/index.mdx": _page("Bienvenue"),
            "docs/README.md": "# About these docs\n",
        },
        catalog=None,
    )


def test_the_default_languages_navigation_is_the_order(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path) / "docs")
    assert source.site == "mintlify"
    # Tabs, groups and nested groups depth first, a group's root page leading it; the hidden
    # group, the hidden: true page, other languages, unlisted pages, snippets, README and
    # OpenAPI endpoints are no documents.
    assert toc_order(source) == [
        "index",
        "quickstart",
        "setup/index",
        "setup/install",
        "setup/advanced",
        "api/get-user",
    ]
    # A tab that is a link holds no page: no topic.
    assert [t.name for t in source.topics] == ["Guides", "Start", "Setup", "Advanced", "API"]
    titles = {d.id: d.title for d in source.documents}
    assert titles["quickstart"] == "Quick start"
    assert source.metadata.name == "Gadget"
    assert source.metadata.description == "Gadget's docs."
    assert source.metadata.language == "en"
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "acme"


def test_links_from_the_site_root_snippets_and_component_anchors(tmp_path: Path) -> None:
    source = load_markdown_tree(_site(tmp_path) / "docs")
    # Unlisted pages, other languages and redirect sources are routes; an API page's
    # parameter anchors are Mintlify's; only the missing page warns.
    assert [w.message.split("'")[1] for w in source.warnings] == ["/gone"]
    body = next(d for d in source.documents if d.id == "quickstart").load_body(LINKS)
    assert "A note shown in [the setup](knowledge://tester/demo/setup/index)" in body
    assert "[install](knowledge://tester/demo/setup/install#line=" in body
    assert "[branch](knowledge://tester/demo/setup/install#line=" in body
    assert "[old](/old-start)" in body


def test_seo_indexing_all_puts_hidden_and_unlisted_pages_after_the_navigation(
    tmp_path: Path,
) -> None:
    config = dict(DOCS_JSON, seo={"indexing": "all"})
    source = load_markdown_tree(_site(tmp_path, config) / "docs")
    order = toc_order(source)
    assert order[:2] == ["index", "quickstart"]
    assert set(order) >= {"secret", "unlisted", "api/overview", "fr/index"}
    assert order.index("unlisted") > order.index("api/get-user")


def test_mint_json_takes_the_first_versions_groups_and_its_tabs(tmp_path: Path) -> None:
    mint = {
        "name": "Old",
        "versions": ["v2", "v1"],
        "tabs": [{"name": "API reference", "url": "api"}],
        "navigation": [
            {"group": "API", "pages": ["api/a"], "version": "v2"},
            {"group": "", "pages": ["v2/intro"], "version": "v2"},
            {"group": "Start", "pages": ["v1/intro", "v1/missing"], "version": "v1"},
            {"group": "Guides", "pages": ["v2/guide"]},
        ],
        "footerSocials": {"github": "https://github.com/old/docs"},
    }
    root = write_tree(
        tmp_path / "site",
        {
            "mint.json": json.dumps(mint),
            "api/a.mdx": _page("A"),
            "v2/intro.mdx": _page("Intro"),
            "v2/guide.mdx": _page("Guide"),
            "v1/intro.mdx": _page("Old intro"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["v2/intro", "v2/guide", "api/a"]
    # v1's navigation names a page the tree lacks: Mintlify reports it too.
    assert [w.reason for w in source.warnings] == ["missing-outline-page"]
    assert source.metadata.publisher is not None
    assert source.metadata.publisher.name == "old"


def test_mintignore_leaves_files_out(tmp_path: Path) -> None:
    config = {"name": "G", "navigation": {"pages": ["index", "drafts/wip", "notes"]}}
    root = write_tree(
        tmp_path / "site",
        {
            "docs.json": json.dumps(config),
            ".mintignore": "# drafts\ndrafts/\n*.draft.mdx\n",
            "index.mdx": _page("G", body="[x](/notes.draft)\n"),
            "drafts/wip.mdx": _page("WIP"),
            "notes.mdx": _page("Notes"),
            "notes.draft.mdx": _page("Notes draft"),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert toc_order(source) == ["index", "notes"]
    assert sorted(w.reason for w in source.warnings) == ["missing-outline-page", "unresolved-link"]


def test_mintlify_heading_ids() -> None:
    # Mintlify's documented examples (create/text.mdx).
    assert slugify("Config.json options", "mintlify") == "config-json-options"
    assert slugify("What's new", "mintlify") == "what\u2019s-new"
    assert slugify("Rate limits (per minute)", "mintlify") == "rate-limits-per-minute"
    assert slugify("Read/write access", "mintlify") == "read/write-access"
    assert slugify("Fees & billing", "mintlify") == "fees-&-billing"


def test_an_api_page_with_no_text_gets_its_operation_from_the_openapi_file(
    tmp_path: Path,
) -> None:
    spec = {
        "openapi": "3.0.0",
        "paths": {
            "/users/{id}": {
                "get": {
                    "summary": "Get a user",
                    "description": "Returns one user by id.",
                    "parameters": [{"name": "id", "in": "path", "description": "The user's id."}],
                    "responses": {
                        "200": {
                            "description": "The user.",
                            "content": {
                                "application/json": {
                                    "schema": {"properties": {"name": {"description": "Name."}}}
                                }
                            },
                        }
                    },
                },
                "post": {
                    "summary": "Update a user",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {"properties": {"email": {"description": "New email."}}}
                            }
                        }
                    },
                },
            }
        },
    }
    config = {
        "name": "G",
        "navigation": {
            "groups": [
                {"group": "API", "openapi": "api.json", "pages": ["get-user", "update-user"]}
            ]
        },
    }
    root = write_tree(
        tmp_path / "site",
        {
            "docs.json": json.dumps(config),
            "api.json": json.dumps(spec),
            "get-user.mdx": "---\ntitle: Get user\nopenapi: GET /users/{id}\n---\n",
            "update-user.mdx": "---\ntitle: Update user\nopenapi: api.json POST /users/{id}\n---\n",
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert [w.reason for w in source.warnings] == []
    bodies = {d.id: d.load_body(LINKS) for d in source.documents}
    assert "Returns one user by id." in bodies["get-user"]
    assert "- `id` (path): The user's id." in bodies["get-user"]
    assert "- `name`: Name." in bodies["get-user"]
    assert "- `email`: New email." in bodies["update-user"]


def test_a_mint_json_of_many_groups_and_tabs_is_read_in_linear_time(tmp_path: Path) -> None:
    # Each group's tab was found by trying every tab, once per tab: groups x tabs x tabs. A
    # 60 KB mint.json of a thousand of each took hours.
    count = 1_000
    mint = {
        "name": "Many",
        "navigation": [
            *({"group": f"g{i}", "pages": ["a"]} for i in range(count)),
            {"group": "Nested", "pages": ["t7/deep/b"]},
        ],
        "tabs": [{"name": f"t{i}", "url": f"t{i}"} for i in range(count)],
    }
    text = json.dumps(mint)
    tree = {"mint.json": text, "a.mdx": _page("A"), "t7/deep/b.mdx": _page("B")}
    root = write_tree(tmp_path / "site", tree, catalog=None)
    assert_linear_time(
        lambda: load_markdown_tree(root), len(text), seconds_per_mb=60, what="mint.json"
    )
    source = load_markdown_tree(root)
    # The groups outside every tab first (the first names the page), then tab t7's group.
    assert toc_order(source) == ["a", "t7/deep/b"]
    assert [t.name for t in source.topics] == ["g0", "t7", "Nested"]


def test_detection_reads_only_the_head_of_a_large_configuration(tmp_path: Path) -> None:
    # Detection looks for "navigation" in a docs.json's first 2 MB: a huge file (or one linked
    # from elsewhere) must not be read whole into memory for it.
    root = tmp_path / "site"
    root.mkdir()
    with (root / "docs.json").open("wb") as fh:
        fh.write(b'{"navigation": {}, "name": "x"}')
        fh.truncate(200_000_000)  # sparse: no disk used
    tracemalloc.start()
    try:
        found = _config_in(root)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == root / "docs.json"
    assert peak < 20_000_000


def test_a_parameter_field_answers_to_param_and_its_kebab_name(tmp_path: Path) -> None:
    config = {"name": "Gadget", "navigation": {"pages": ["index", "client"]}}
    root = write_tree(
        tmp_path / "site",
        {
            "docs.json": json.dumps(config),
            "index.mdx": _page(
                "Welcome",
                body="See [onError](/client#param-on-error), [the flag](/client#param-max-age), "
                "[by kind](/client#path-onerror) and [none](/client#param-missing).\n",
            ),
            "client.mdx": _page(
                "Client",
                body='<ParamField path="onError" type="function">\nCalled.\n</ParamField>\n\n'
                '<ParamField body="--max-age" type="number">\nSeconds.\n</ParamField>\n',
            ),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    assert [w.message.split("'")[1] for w in source.warnings] == ["/client#param-missing"]


def test_an_api_page_finds_its_operation_in_any_openapi_file_and_url_pages_are_links(
    tmp_path: Path,
) -> None:
    spec = {
        "openapi": "3.1.0",
        "paths": {"/agents": {"post": {"summary": "Create an agent", "description": "Makes one."}}},
    }
    config = {"name": "Gadget", "navigation": {"pages": ["index", "api/create", "ios"]}}
    root = write_tree(
        tmp_path / "site",
        {
            "docs.json": json.dumps(config),
            "index.mdx": _page("Welcome", body="See [iOS](/ios).\n"),
            "api/create.mdx": _page("Create", 'openapi: "POST /agents"\n'),
            "api/rest/openapi.json": json.dumps(spec, indent=2),
            "ios.mdx": _page("iOS SDK", 'url: "https://ios.example.com/"\n'),
        },
        catalog=None,
    )
    source = load_markdown_tree(root)
    # The spec under api/rest/ is found though docs.json names none; the `url:` page is a
    # link of the navigation, no document, and a link to it is kept silently.
    assert toc_order(source) == ["index", "api/create"]
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "api/create").load_body(LINKS)
    assert "Makes one." in body


def test_an_openapi_file_behind_a_linked_folder_is_not_read(tmp_path: Path) -> None:
    spec = {"openapi": "3.1.0", "paths": {"/agents": {"post": {"description": "Outside."}}}}
    outside = write_tree(tmp_path / "outside", {"openapi.json": json.dumps(spec)}, catalog=None)
    config = {"name": "Gadget", "navigation": {"pages": ["index", "api/create"]}}
    root = write_tree(
        tmp_path / "site",
        {
            "docs.json": json.dumps(config),
            "index.mdx": _page("Welcome"),
            "api/create.mdx": _page("Create", 'openapi: "POST /agents"\n'),
        },
        catalog=None,
    )
    (root / "specs").symlink_to(outside, target_is_directory=True)
    source = load_markdown_tree(root)
    body = next(d for d in source.documents if d.id == "api/create").load_body(LINKS)
    assert "Outside." not in body
