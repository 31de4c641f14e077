"""Every bad-input case of the issue: a typed error naming the document (and line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.compiler import SourceError
from tests.compiler.trees import CATALOG_YAML, build, write_jsonl, write_tree


def _doc(doc_id: str = "a", **fields: Any) -> dict[str, Any]:
    return {"id": doc_id, "title": "A", "topicPath": ["t"], "markdown": "Text.\n", **fields}


def _fails(tmp_path: Path, docs: list[dict[str, Any]], catalog: str = CATALOG_YAML) -> SourceError:
    root = write_tree(tmp_path / "src", {}, catalog=catalog)
    source = write_jsonl(root / "docs.jsonl", docs)
    with pytest.raises(SourceError) as err:
        build(source, tmp_path / "out.gezk")
    assert not (tmp_path / "out.gezk").exists()
    assert not list(tmp_path.glob(".out.gezk*"))
    return err.value


def _location(**fields: Any) -> dict[str, Any]:
    return {"id": "p", "latitude": 1.0, "longitude": 2.0, "role": "subject", **fields}


@pytest.mark.parametrize(
    ("docs", "reason", "document", "line"),
    [
        ([_doc(" padded")], "invalid-document-id", " padded", 1),
        ([_doc("ctl\u0001")], "invalid-document-id", "ctl\u0001", 1),
        ([_doc("x" * 257)], "invalid-document-id", "x" * 257, 1),
        ([_doc("e\u0301")], "invalid-document-id", "e\u0301", 1),
        ([_doc("a"), _doc("b"), _doc("a")], "duplicate-document-id", "a", 3),
        ([_doc(topicPath=["Bad_Topic"])], "invalid-topic-id", None, None),
        ([_doc(title="  ")], "invalid-title", "a", 1),
        ([_doc(ordinal=2**31)], "invalid-ordinal", "a", 1),
        ([_doc(tocReferences=[{"topicPath": ["t"]}])], "repeated-placement", "a", 1),
        (
            [
                _doc("b", topicPath=["u"]),
                _doc(tocReferences=[{"topicPath": ["u"]}, {"topicPath": ["u"], "ordinal": 2}]),
            ],
            "repeated-placement",
            "a",
            2,
        ),
        (
            [_doc("b", topicPath=["u", "v"]), _doc(tocReferences=[{"topicPath": ["v"]}])],
            "invalid-topic-path",
            "a",
            2,
        ),
        ([_doc(locations=[_location(latitude=91)])], "invalid-coordinate", "a", 1),
        ([_doc(locations=[_location(longitude=-180.5)])], "invalid-coordinate", "a", 1),
        ([_doc(locations=[_location(latitude="north")])], "invalid-coordinate", None, 1),
        ([_doc(locations=[_location(role="home")])], "invalid-location-role", "a", 1),
        ([_doc(locations=[_location(), _location()])], "duplicate-location-id", "a", 1),
        (
            [_doc(locations=[_location(id=f"p{i}") for i in range(257)])],
            "too-many-locations",
            "a",
            1,
        ),
        ([_doc(meta={"gezk.reserved": 1})], "reserved-meta-key", "a", 1),
        ([_doc(meta={"big": "x" * 17000})], "meta-too-large", "a", 1),
    ],
)
def test_bad_documents_are_refused(
    tmp_path: Path, docs: list[dict[str, Any]], reason: str, document: str | None, line: int | None
) -> None:
    err = _fails(tmp_path, docs)
    assert err.reason == reason
    if document is not None:
        assert err.document == document
    if line is not None:
        assert (err.path, err.line) == ("docs.jsonl", line)
        assert f"docs.jsonl:{line}" in str(err)


def test_more_than_sixteen_topic_levels_are_refused(tmp_path: Path) -> None:
    err = _fails(tmp_path, [_doc(topicPath=[f"t{i}" for i in range(17)])])
    assert err.reason == "topic-too-deep"


def test_sixteen_topic_levels_are_fine(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {})
    source = write_jsonl(root / "docs.jsonl", [_doc(topicPath=[f"t{i}" for i in range(16)])])
    assert build(source, tmp_path / "ok.gezk").documents == 1


def test_topic_cycles_are_refused(tmp_path: Path) -> None:
    catalog = (
        CATALOG_YAML
        + "topics:\n  - {id: a, name: A, parentId: b}\n  - {id: b, name: B, parentId: a}\n"
    )
    err = _fails(tmp_path, [_doc(topicPath=["a"])], catalog=catalog)
    assert err.reason == "topic-cycle"
    assert "a -> b -> a" in str(err) or "b -> a -> b" in str(err)


def test_a_body_over_16_mib_is_refused(tmp_path: Path) -> None:
    big = ("word " * 200 + "\n\n") * (16 * 1024 * 1024 // 1000 + 10)
    err = _fails(tmp_path, [_doc(), _doc("big", markdown=big)])
    assert (err.reason, err.document, err.line) == ("body-too-large", "big", 2)


def test_invalid_catalog_identity_is_refused(tmp_path: Path) -> None:
    err = _fails(tmp_path, [_doc()], catalog=CATALOG_YAML.replace("id: demo", "id: Not_Valid"))
    assert err.reason == "invalid-catalog-id"
    err = _fails(tmp_path / "v", [_doc()], catalog=CATALOG_YAML.replace('"1.0.0"', '"1.0/x"'))
    assert err.reason == "invalid-version"


def test_missing_metadata_says_where_to_set_it(tmp_path: Path) -> None:
    err = _fails(tmp_path, [_doc()], catalog="id: demo\n")
    assert err.reason == "missing-metadata"
    assert "catalog.yaml" in str(err)


def test_bad_front_matter_names_file_and_line(tmp_path: Path) -> None:
    # A page of a generator that stops on it (Hugo fails to unmarshal it); a plain folder's,
    # MkDocs', Sphinx's and Jupyter Book's are only warned about (tests/compiler/test_sites).
    files = {"hugo.toml": 'title = "T"\n', "content/a.md": "---\ntitle: A\nordinal: [1\n---\nB.\n"}
    root = write_tree(tmp_path / "t", files)
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "t.gezk")
    assert err.value.reason == "invalid-front-matter"
    assert err.value.path == "content/a.md"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("catalog.yaml", "invalid-yaml"),
        ("toc.yml", "invalid-yaml"),
        ("a.md", "invalid-front-matter"),
    ],
)
def test_invalid_yaml_names_the_file_and_the_line_yaml_points_at(
    tmp_path: Path, name: str, reason: str
) -> None:
    broken = "title: A\nlist: [1, 2\nnext: 3\n"
    files = {"a.md": f"---\n{broken}---\nBody.\n"} if name == "a.md" else {name: broken}
    if name == "a.md":
        # A Hugo page: Hugo stops on it (a plain folder's page is only warned about).
        files["hugo.toml"] = 'title = "T"\n'
        files = {("content/a.md" if k == "a.md" else k): v for k, v in files.items()}
    root = write_tree(tmp_path / "t", {"a.md": "# A\n", **files})
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "t.gezk")
    # PyYAML points at line 3 of the YAML text, which is line 4 of a file behind '---'.
    line = 4 if name == "a.md" else 3
    what = "invalid YAML front matter" if name == "a.md" else "invalid YAML"
    assert (err.value.reason, err.value.line) == (reason, line)
    assert err.value.path is not None
    assert err.value.path.endswith(name)
    assert str(err.value).endswith(f":{line}: {what}: expected ',' or ']', but got ':'")


def test_duplicate_ids_from_files_are_refused(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"a.md": "# A\n", "a.markdown": "# A again\n"})
    with pytest.raises(SourceError) as err:
        build(root, tmp_path / "t.gezk")
    assert err.value.reason == "duplicate-document-id"
    assert "a.md" in str(err.value)
    assert "a.markdown" in str(err.value)
