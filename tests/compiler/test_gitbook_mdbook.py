"""GitBook and mdBook rules, each with a small tree of its own (issue 21)."""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler import LinkBase
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezk.ids import sort_key_for_order
from tests.compiler.trees import write_tree

LINKS = LinkBase("tester", "demo")


def test_a_gitbook_space_reads_its_readme_and_entries_above_its_root(tmp_path: Path) -> None:
    # .gitbook.yaml's root is docs/, its readme and two summary entries are in the
    # repository above it (as Git Sync reads them): the content folder widens to hold them.
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitbook.yaml": "root: ./docs/\n\nstructure:\n  readme: ../README.md\n"
            "  summary: ./summary.md\n",
            "docs/summary.md": (
                "# Summary\n\n## Start\n\n- [Deploy](deploy.md)\n\n## Contributing\n\n"
                "- [Guide](../CONTRIBUTING.md)\n"
            ),
            "docs/deploy.md": "# Deploy\n\nSee [the guide](../CONTRIBUTING.md).\n",
            "CONTRIBUTING.md": "# Contributing\n\nWelcome.\n",
            "README.md": "# Mesh\n\nThe project.\n",
        },
    )
    source = load_markdown_tree(root)
    assert (source.site, source.outline) == ("gitbook", "gitbook")
    # The readme is the space's first page although the summary does not list it.
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "README": (("demo",), 0),
        "docs/deploy": (("start",), 0),
        "CONTRIBUTING": (("contributing",), 0),
    }
    assert [(t.id, t.sort_key) for t in source.topics] == [
        ("demo", sort_key_for_order(0)),
        ("start", sort_key_for_order(1)),
        ("contributing", sort_key_for_order(2)),
    ]
    assert source.warnings == ()
    deploy = next(d for d in source.documents if d.id == "docs/deploy").load_body(LINKS)
    assert "[the guide](knowledge://tester/demo/CONTRIBUTING)" in deploy


def test_a_gitbook_entry_leaving_the_source_folder_is_left_out_with_a_warning(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "space",
        {
            "SUMMARY.md": "# Summary\n\n* [A](a.md)\n* [Elsewhere](../../etc/passwd.md)\n",
            "a.md": "# A\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["a"]
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("outline-entry-outside", "SUMMARY.md", 4)
    ]


def test_a_lowercase_summary_and_link_titles_are_read(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "space",
        {
            "summary.md": '# Summary\n\n* [Intro](README.md)\n* [Setting up](setup.md "Setup")\n',
            "setup.md": "# Setting up the project\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.outline == "gitbook"
    assert [d.id for d in source.documents] == ["README", "setup"]
    assert source.warnings == ()


def test_gitbook_links_to_dotted_and_numbered_headings_resolve(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "space",
        {
            "SUMMARY.md": "# Summary\n\n* [Intro](README.md)\n* [Notes](notes.md)\n",
            "README.md": (
                "# Intro\n\nSee [4.9](notes.md#release-4.9) and [step](notes.md#id-1.-install).\n"
            ),
            "notes.md": "# Notes\n\n## Release 4.9\n\nText.\n\n## 1. Install\n\nRun.\n",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    body = next(d for d in source.documents if d.id == "README").load_body(LINKS)
    assert "[4.9](knowledge://tester/demo/notes#line=3-5)" in body
    assert "[step](knowledge://tester/demo/notes#line=7-9)" in body


def test_mdbook_draft_chapters_are_shown_without_a_warning(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "Drafts"\n',
            "src/SUMMARY.md": "# Summary\n\n- [Ready](ready.md)\n- [Later]()\n    - [Sub]()\n",
            "src/ready.md": "# Ready\n",
        },
    )
    source = load_markdown_tree(root)
    assert [d.id for d in source.documents] == ["ready"]
    assert source.warnings == ()


def test_a_draft_in_a_gitbook_summary_still_warns(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "space",
        {"SUMMARY.md": "# Summary\n\n* [Intro](README.md)\n* [Later]()\n"},
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.line) for w in source.warnings] == [("draft-chapter", 4)]


def test_mdbook_includes_are_expanded_before_the_chapter_is_read(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "Includes"\n',
            "src/SUMMARY.md": "# Summary\n\n- [Usage](usage.md)\n",
            "src/usage.md": (
                "# Usage\n\n{{#title Using it}}\n{{#include parts/flags.md}}\n\n"
                "```rust\n{{#include ../code/lib.rs:setup}}\n```\n\n"
                "```rust\n{{#rustdoc_include ../code/lib.rs:2:3}}\n```\n\n"
                "{{#playground ../code/lib.rs editable}}\n\n"
                "Literal: \\{{#include parts/flags.md}} and {{#include gone.md}} "
                "and {{#include ../../outside.md}}\n"
            ),
            "src/parts/flags.md": "## Flags\n\nSee {{#include more.md}}.\n",
            "src/parts/more.md": "more",
            "code/lib.rs": "// ANCHOR: setup\nlet a = 1;\n// ANCHOR_END: setup\nlet b = 2;\n",
        },
    )
    (tmp_path / "outside.md").write_text("secret\n", encoding="utf-8")
    source = load_markdown_tree(root)
    assert source.warnings == ()
    body = source.documents[0].load_body(LINKS)
    assert body == (
        "# Usage\n\n\n## Flags\n\nSee more.\n\n"
        "```rust\nlet a = 1;\n```\n\n"
        "```rust\nlet a = 1;\n```\n\n"
        "```rust,editable\n// ANCHOR: setup\nlet a = 1;\n// ANCHOR_END: setup\nlet b = 2;\n```\n\n"
        "Literal: {{#include parts/flags.md}} and {{#include gone.md}} "
        "and {{#include ../../outside.md}}\n"
    )


def test_mdbook_links_above_the_book_are_the_hosts_other_paths(tmp_path: Path) -> None:
    # The Rustonomicon lives at doc.rust-lang.org/nomicon/ and links to ../std/...: mdBook
    # checks no link, and one climbing above the book names another part of the host.
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "B"\n',
            "src/SUMMARY.md": "[A](a.md)\n- [V](vec/v.md)\n",
            "src/a.md": "# A\n\n[std](../std/mem/fn.transmute.html) [gone](missing.html)\n",
            "src/vec/v.md": "# V\n\n[alloc](../../alloc/alloc/fn.alloc.html) [a](../a.html)\n",
        },
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path, w.line) for w in source.warnings] == [
        ("unresolved-link", "src/a.md", 3)
    ]


def test_mdbook_spec_rules_grammar_and_std_links_resolve_as_the_preprocessor_makes_them(
    tmp_path: Path,
) -> None:
    # The Rust Reference's mdbook-spec: r[rule.id] lines are anchors (#r-rule.id), definitions
    # naming a rule or a grammar production link to its page, rustdoc takes the remaining
    # links with no suffix ([Vec], pointer#method.offset); a mistyped file still warns.
    book = {
        "book.toml": (
            '[book]\ntitle = "Spec"\n\n[preprocessor.spec]\n'
            'command = "cargo run --manifest-path tools/mdbook-spec/Cargo.toml"\n'
        ),
        "LICENSE": "MIT\n",
        "src/SUMMARY.md": "# Summary\n\n- [Exprs](exprs/closure.md)\n- [Items](items.md)\n",
        "src/exprs/closure.md": (
            "# Closures\n\nr[expr.closure]\n\nText.\n\n```grammar,expressions\n"
            "ClosureExpression ->\n    `|` Params `|`\n```\n"
        ),
        "src/items.md": (
            "# Items\n\nr[items.fn]\n\nSee [closures] and [syntax], [here](#r-items.fn), "
            "[there](exprs/closure.md#r-expr.closure), [Vec] and [offset].\n"
            "Also [gone](exprs/closure.mdr).\n\n"
            "[closures]: expr.closure\n[syntax]: grammar-ClosureExpression\n"
            "[Vec]: std::vec::Vec\n[offset]: pointer#method.offset\n"
        ),
    }
    source = load_markdown_tree(write_tree(tmp_path / "spec", book, catalog=None))
    assert [(w.reason, w.path) for w in source.warnings] == [("unresolved-link", "src/items.md")]
    assert "exprs/closure.mdr" in source.warnings[0].message
    items = next(d for d in source.documents if d.id == "items").load_body(LINKS)
    assert items.count("knowledge://tester/demo/exprs/closure") == 3
    # Without the preprocessor the same links are what mdBook sees: a rule id names no file.
    plain = {**book, "book.toml": '[book]\ntitle = "Spec"\n'}
    source = load_markdown_tree(write_tree(tmp_path / "plain", plain, catalog=None))
    assert ("unresolved-link", "src/items.md") in [(w.reason, w.path) for w in source.warnings]
    assert len(source.warnings) > 1


def _book(root: Path, *, legacy: bool) -> Path:
    files: dict[str, str | bytes] = {
        "SUMMARY.md": "# Summary\n\n* [Intro](README.md)\n",
        "README.md": (
            "# Intro\n\nSee [the Dockerfile](examples/Dockerfile), [notes](demo/README.md) "
            "and [gone](examples/gone.yaml).\n"
        ),
        "examples/Dockerfile": "FROM scratch\n",
        "demo/README.md": "# Demo\n",
    }
    if legacy:
        files["book.json"] = '{"title": "Book"}\n'
    return write_tree(root, files)


def test_a_legacy_book_links_its_static_files_silently(tmp_path: Path) -> None:
    # GitBook CLI copies every file its summary does not list to the site, so the links to
    # the Dockerfile and to the unlisted README work there; the missing file still warns.
    source = load_markdown_tree(_book(tmp_path / "legacy", legacy=True))
    assert [(w.reason, w.line) for w in source.warnings] == [("unresolved-link", 3)]
    # Without book.json (a Git-synced space, a bare SUMMARY.md folder) only pages publish.
    source = load_markdown_tree(_book(tmp_path / "space", legacy=False))
    assert sorted((w.reason, w.line) for w in source.warnings) == [
        ("link-not-rewritten", 3),
        ("link-not-rewritten", 3),
        ("unresolved-link", 3),
    ]


def test_summary_reference_links_are_chapters_and_mdbook_terms_are_anchors(
    tmp_path: Path,
) -> None:
    # `[Plugins][plugins]` names the file its reference definition gives (pulldown-cmark
    # resolves it); mdBook gives definition-list terms ids as it gives headings.
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "Refs"\n',
            "src/SUMMARY.md": (
                "# Summary\n\n[Intro](intro.md)\n\n- [Plugins][plugins]\n  - [Use][]\n\n"
                "[Glossary](glossary.md)\n\n[plugins]: ./plugins/index.md\n[use]: plugins/use.md\n"
            ),
            "src/intro.md": (
                "# Intro\n\nSee [plugins](plugins/index.md), [attached](glossary.md#attached)"
                " and [smart pointers](glossary.md#smart-pointer).\n"
            ),
            "src/plugins/index.md": "# Plugins\n\n- [Glossary](../glossary.md)\n",
            "src/plugins/use.md": "# Use\n",
            "src/glossary.md": (
                "# Glossary\n\nattached\n  : Bound to the interpreter.\n\n"
                "smart pointer\n: Manages memory.\n"
            ),
        },
    )
    source = load_markdown_tree(root)
    assert {d.id: (d.topic_path, d.ordinal) for d in source.documents} == {
        "intro": (("demo",), 0),
        "plugins/index": (("demo", "plugins"), 0),
        "plugins/use": (("demo", "plugins"), 1),
        "glossary": (("demo",), 2),
    }
    assert source.warnings == ()


def test_a_space_links_its_uploaded_files_and_numbers_repeated_heading_ids(
    tmp_path: Path,
) -> None:
    # Git Sync writes an OpenAPI block's file link into .gitbook/assets/ (GitBook's own
    # uploads), and a heading's id as an `<a id>` in it, numbered when repeated.
    root = write_tree(
        tmp_path / "space",
        {
            ".gitbook.yaml": "root: ./\n",
            "SUMMARY.md": "# Table of contents\n\n* [Intro](README.md)\n* [API](api.md)\n",
            "README.md": (
                "# Intro\n\nSee [the second sample](api.md#sample-1) and [the first](api.md#sample)"
                " and [nothing](api.md#sample-2).\n"
            ),
            "api.md": (
                '# API\n\n{% openapi src=".gitbook/assets/spec.yaml" path="/v1" %}\n'
                "[spec.yaml](.gitbook/assets/spec.yaml)\n{% endopenapi %}\n\n"
                '## Title block <a href="#sample" id="sample"></a>\n\nOne.\n\n'
                '## List block <a href="#sample" id="sample"></a>\n\nTwo.\n'
            ),
            ".gitbook/assets/spec.yaml": "openapi: 3.0.0\n",
        },
    )
    source = load_markdown_tree(root)
    assert [(w.reason, w.path) for w in source.warnings] == [("missing-anchor", "README.md")]
    assert "#sample-2" in source.warnings[0].message
