"""A hostile source tree cannot publish files from outside itself, blow up its catalog, hang the
build or end it in a traceback (issue 26 items 1, 4, 5, 9, 10, 11, 12, 13, 14)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.cli import main
from gezel_knowledge.compiler import BuildOptions, MetadataOverrides, compile_catalog
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators._summary import _find_link, _heading
from gezel_knowledge.compiler.text import anchors
from gezel_knowledge.compiler.text.blocks import parse_blocks
from gezel_knowledge.compiler.writing import smoke
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput
from tests.compiler.trees import CATALOG_YAML, CREATED_AT, build, entries, write_jsonl, write_tree

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot for publishing\n"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".ssh" / "id_rsa"
    path.parent.mkdir(parents=True)
    path.write_text(SECRET)
    return path


def _refused(source: Path, out: Path, reason: str, **options: Any) -> str:
    with pytest.raises(InvalidInput) as err:
        build(source, out, **options)
    assert reason in (err.value.reason, *re.findall(r"\[([a-z-]+)\]", str(err.value)))
    assert not out.exists()
    return str(err.value)


# -- item 1: source confinement ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["README.md", "LICENSE"])
def test_a_symlinked_notice_cannot_publish_a_file_from_outside(
    tmp_path: Path, secret: Path, name: str
) -> None:
    root = write_tree(tmp_path / "src", {"a.md": "# A\n"})
    (root / name).unlink()
    (root / name).symlink_to(secret)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "out.gezk")
    assert "outside the source folder" in str(err.value)
    assert err.value.reason == "unsafe-path"
    assert SECRET not in str(err.value)
    assert not (tmp_path / "out.gezk").exists()


@pytest.mark.parametrize(
    ("key", "flag"),
    [("readme: {path}", "--readme"), ("license:\n  name: X\n  file: {path}", "--license-file")],
)
def test_catalog_yaml_cannot_name_a_file_outside_the_source(
    tmp_path: Path, secret: Path, key: str, flag: str
) -> None:
    for path in (str(secret), "../home/.ssh/id_rsa"):
        catalog = CATALOG_YAML.replace("license: {", "x-license: {") if "license" in key else ""
        text = (catalog or CATALOG_YAML) + key.format(path=path) + "\n"
        root = write_tree(tmp_path / "src", {"a.md": "# A\n"}, catalog=text)
        with pytest.raises(SourceError) as err:
            build(root, tmp_path / "out.gezk")
        assert flag in str(err.value)
        assert not (tmp_path / "out.gezk").exists()


def test_a_licence_above_the_source_is_used_only_when_named(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "LICENSE").write_text("CC BY 4.0\n")
    docs = write_tree(repo / "docs", {"a.md": "# A\n"}, notices=False)
    (docs / "README.md").write_text("# Docs\n")
    with pytest.raises(SourceError) as err:
        build(docs, tmp_path / "out.gezk")
    assert "--license-file" in str(err.value)
    named = MetadataOverrides(license_file=repo / "LICENSE")
    build(docs, tmp_path / "out.gezk", metadata=named)
    assert entries(tmp_path / "out.gezk")["LICENSES/catalog.txt"] == b"CC BY 4.0\n"


def test_a_file_the_user_names_may_lie_outside(tmp_path: Path) -> None:
    elsewhere = tmp_path / "notes" / "README.md"
    elsewhere.parent.mkdir()
    elsewhere.write_text("# Chosen on purpose\n")
    root = write_tree(tmp_path / "src", {"a.md": "# A\n"})
    assert (
        main(
            [
                "build",
                str(root),
                "-o",
                str(tmp_path / "out.gezk"),
                "--embedder",
                "test-hash-embed@1",
                "--created-at",
                CREATED_AT,
                "--readme",
                str(elsewhere),
            ]
        )
        == 0
    )
    assert entries(tmp_path / "out.gezk")["README.md"] == b"# Chosen on purpose\n"


def test_a_symlink_loop_between_pages_is_a_typed_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {"a.md": "# A\n"})
    (root / "x.md").symlink_to("y.md")
    (root / "y.md").symlink_to("x.md")
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason == "symlink-loop"


# -- items 5 and 11: YAML, TOML and JSON in sources --------------------------------------------

LAUGHS = "".join(
    [f"a0: &a0 [{', '.join(['lol'] * 9)}]\n"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)]
)


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"a.md": "# A\n"}, "yaml-aliases"),  # catalog.yaml below
        ({"mkdocs.yml": "site_name: S\n" + LAUGHS, "docs/a.md": "# A\n"}, "yaml-aliases"),
        ({"_toc.yml": "format: jb-book\nroot: a\n" + LAUGHS, "a.md": "# A\n"}, "yaml-aliases"),
        ({"a.md": "---\ntitle: A\n" + LAUGHS + "---\n# A\n"}, "yaml-aliases"),
        ({"a.md": "---\nexclude: &x [*x]\n---\n# A\n"}, "yaml-aliases"),
        ({"a.md": "---\nt: " + "[" * 3000 + "]" * 3000 + "\n---\n# A\n"}, "too-deep"),
        ({"a.md": "+++\nt = " + "[" * 3000 + "]" * 3000 + "\n+++\n# A\n"}, "too-deep"),
        ({"a.md": "---\nordinal: " + "1" * 5000 + "\n---\n# A\n"}, "number-too-long"),
    ],
    ids=["catalog", "mkdocs", "jupyter-book", "front-matter", "recursive", "deep", "toml", "num"],
)
def test_hostile_yaml_toml_and_numbers_are_typed(
    tmp_path: Path, files: dict[str, str], reason: str
) -> None:
    catalog = CATALOG_YAML + (LAUGHS if files == {"a.md": "# A\n"} else "")
    root = write_tree(tmp_path / "src", files, catalog=catalog)
    with pytest.raises(InvalidInput) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason == reason


def test_a_mkdocs_nav_three_thousand_levels_deep_is_too_deep(tmp_path: Path) -> None:
    nav = "nav:\n" + "".join("  " * (i + 1) + f"- L{i}:\n" for i in range(3000))
    nav += "  " * 3001 + "- a.md\n"
    root = write_tree(tmp_path / "src", {"mkdocs.yml": "site_name: S\n" + nav, "docs/a.md": "#\n"})
    with pytest.raises(InvalidInput) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason == "too-deep"


def test_a_summary_five_thousand_levels_deep_is_too_deep(tmp_path: Path) -> None:
    summary = "# Summary\n\n" + "".join(" " * i + f"- [P{i}](p{i}.md)\n" for i in range(5000))
    files = {"book.toml": "[book]\ntitle = 'B'\n", "src/SUMMARY.md": summary}
    files.update({f"src/p{i}.md": f"# P{i}\n" for i in range(70)})
    root = write_tree(tmp_path / "src", files)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "out.gezk")
    assert (err.value.reason, err.value.line) == ("too-deep", 3 + 64)


def test_docfx_tocs_nested_three_hundred_deep_end_typed(tmp_path: Path) -> None:
    files = {"docfx.json": "{}", "a.md": "# A\n"}
    folder = ""
    for i in range(300):
        files[f"{folder}toc.yml"] = f"- name: L{i}\n  href: d/\n"
        folder += "d/"
    files[f"{folder}toc.yml"] = "- name: A\n  href: ~/a.md\n"
    root = write_tree(tmp_path / "src", files)
    with pytest.raises(InvalidInput) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason in ("too-deep", "topic-too-deep")


def test_a_deep_category_file_is_too_deep(tmp_path: Path) -> None:
    deep = '{"label": ' + '{"a": ' * 2000 + "1" + "}" * 2000 + "}"
    files = {"docusaurus.config.js": "module.exports = {};\n", "docs/sub/a.md": "# A\n"}
    # A category file names its folder's category (the docs folder itself is none).
    files["docs/sub/_category_.json"] = deep
    root = write_tree(tmp_path / "src", files)
    with pytest.raises(InvalidInput) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason == "too-deep"


# -- items 13 and 14: JSON Lines ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"id": "a", "title": "\\ud800", "topicPath": ["t"], "markdown": "x"}', "invalid-unicode"),
        (
            '{"id": "a", "title": "A", "topicPath": ["t"], "markdown": "x", "ordinal": 1'
            + "0" * 5000
            + "}",
            "number-too-long",
        ),
        (
            '{"id": "a", "title": "A", "topicPath": ["t"], "markdown": "x", "meta": '
            + '{"m": ' * 3000
            + "1"
            + "}" * 3000
            + "}",
            "too-deep",
        ),
    ],
    ids=["surrogate-title", "ordinal", "meta"],
)
def test_hostile_json_lines_are_typed_with_their_line(
    tmp_path: Path, line: str, reason: str
) -> None:
    root = write_tree(tmp_path / "src", {})
    source = root / "docs.jsonl"
    source.write_text('{"id": "ok", "title": "Ok", "topicPath": ["t"], "markdown": "x"}\n' + line)
    with pytest.raises(SourceError) as err:
        build(source, tmp_path / "out.gezk")
    assert (err.value.reason, err.value.line) == (reason, 2)


# -- item 10: sizes before reading -------------------------------------------------------------


def test_a_sparse_gigabyte_page_is_refused_by_its_size(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {"a.md": "# A\n"})
    with (root / "huge.md").open("wb") as fh:
        fh.truncate(1 << 30)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "out.gezk")
    assert (err.value.reason, err.value.path) == ("input-too-large", "huge.md")


def test_a_fifo_page_does_not_block_the_build(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {"a.md": "# A\n"})
    os.mkfifo(root / "pipe.md")
    result = build(root, tmp_path / "out.gezk")  # a FIFO is no page: the walk leaves it out
    assert result.documents == 1


# -- items 4 and 9: derived text ---------------------------------------------------------------


def test_a_long_title_is_stored_once_not_once_per_passage(tmp_path: Path) -> None:
    page = "# " + "word " * 52_000 + "\n\n" + "Body text. " * 100 + "\n"
    root = write_tree(tmp_path / "src", {"page.md": page})
    build(root, tmp_path / "out.gezk")
    size = (tmp_path / "out.gezk").stat().st_size
    assert size < 12 * len(page.encode())  # was 460x (a 256 KB page made a 120 MB catalog)


def test_same_titled_documents_are_searched_once_for_smoke_queries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = smoke.smoke_query_hits

    def counted(router: Any, query: str) -> list[str]:
        calls.append(query)
        return list(real(router, query))

    monkeypatch.setattr(smoke, "smoke_query_hits", counted)
    docs = [
        {"id": f"d{i:04d}", "title": "Overview", "topicPath": ["t"], "markdown": f"Doc {i}.\n"}
        for i in range(1500)
    ]
    root = write_tree(tmp_path / "src", {})
    build(write_jsonl(root / "docs.jsonl", docs), tmp_path / "out.gezk")
    assert calls == ["Overview"]  # one query for 1,500 candidates (each was queried before)


# -- item 3: the rewritten scanners read as the expressions did ---------------------------------

_OLD_CODE = re.compile(r"(`+)(.+?)\1")


@given(st.text(alphabet="`a \n", max_size=24))
@settings(max_examples=3000, deadline=None)
def test_code_spans_are_found_as_the_expression_found_them(text: str) -> None:
    expected = [
        (m.start(), m.start() + len(m.group(1)), m.end() - len(m.group(1)), m.end())
        for m in _OLD_CODE.finditer(text)
    ]
    assert anchors._code_spans(text) == expected


_OLD_LINK = re.compile(r"\[(.*)\]\(\s*<?([^)>]*?)>?\s*\)")
_OLD_HEADING = re.compile(r" {0,3}(#{1,6})\s+(.*?)\s*#*\s*\Z")


def _texts(*pieces: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=14).map("".join)


@given(_texts("[", "]", "(", ")", "<", ">", " ", "a", "](", "\t"))
@settings(max_examples=3000, deadline=None)
def test_summary_links_are_read_as_the_expression_read_them(line: str) -> None:
    old = _OLD_LINK.search(line)
    found = _find_link(line)
    assert (None if old is None else (old.group(1), old.group(2))) == (
        None if found is None else (found.label, found.target)
    )


@given(_texts("#", " ", "\t", "a", "##"))
@settings(max_examples=3000, deadline=None)
def test_summary_headings_are_read_as_the_expression_read_them(line: str) -> None:
    old = _OLD_HEADING.match(line)
    assert _heading(line) == (None if old is None else (old.group(1), old.group(2)))


_OLD_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*\Z")
_OLD_ID = re.compile(r"[ \t]*\{#([A-Za-z0-9_][A-Za-z0-9_:.-]*)\}\Z")


@given(_texts("#", " ", "\t", "a", "{#", "}", "x"))
@settings(max_examples=3000, deadline=None)
def test_heading_text_and_ids_are_parsed_as_the_expressions_did(rest: str) -> None:
    line = "## " + rest
    (block,) = parse_blocks(line) or [None]
    heading = block.heading if block is not None else None
    text = _OLD_CLOSING.sub("", rest.strip(" \t"))
    explicit = _OLD_ID.search(text)
    if explicit:
        text = text[: explicit.start()]
    expected = (text.strip(" \t"), explicit.group(1) if explicit else None)
    assert heading is not None
    assert (heading.text, heading.explicit_id) == expected


def test_json_lines_build_reads_a_valid_list_unchanged(tmp_path: Path) -> None:
    docs = [{"id": "a", "title": "A \u00e9", "topicPath": ["t"], "markdown": "Text.\n"}]
    root = write_tree(tmp_path / "src", {})
    result = compile_catalog(
        write_jsonl(root / "docs.jsonl", docs),
        tmp_path / "out.gezk",
        BuildOptions(embedder=HashEmbedder(), created_at=CREATED_AT),
    )
    assert result.documents == 1
    assert json.loads(entries(tmp_path / "out.gezk")["manifest.json"])["counts"]["documents"] == 1


@pytest.mark.parametrize("name", ["catalog.yaml", "mkdocs.yml", "SUMMARY.md"])
def test_a_symlinked_configuration_or_outline_is_not_read(
    tmp_path: Path, secret: Path, name: str
) -> None:
    files = {"a.md": "# A\n"}
    if name == "mkdocs.yml":
        files["docs/a.md"] = "# A\n"
    if name == "SUMMARY.md":
        files["book.toml"] = "[book]\ntitle = 'B'\n"
        files["src/a.md"] = "# A\n"
        name = "src/SUMMARY.md"
    root = write_tree(tmp_path / "src", files)
    (root / name).unlink(missing_ok=True)
    (root / name).symlink_to(secret)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "out.gezk")
    assert err.value.reason == "unsafe-path"
    assert "outside the source folder" in str(err.value)
