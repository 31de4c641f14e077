"""examples/handbook: the sample catalog source builds into what the issue asks for."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import brotli

from gezel_knowledge.compiler import load_markdown_tree
from gezel_knowledge.validate import validate_catalog
from tests.compiler.trees import build, entries, extract

HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"


def test_handbook_source_shape() -> None:
    source = load_markdown_tree(HANDBOOK)
    assert source.outline == "topic-yaml"
    assert source.warnings == ()
    assert 10 <= len(source.documents) <= 15
    parents = {t.id: t.parent_id for t in source.topics}
    assert parents["search"] == "inside"  # nested topics
    assert {a.path for a in source.assets} == {
        "assets/building/images/pipeline.svg",
        "assets/building/images/shards.png",
    }
    glossary = next(d for d in source.documents if d.id == "reference/glossary")
    assert [r.topic_path for r in glossary.toc_references] == [("getting-started",)]


def test_handbook_builds_validates_and_links(tmp_path: Path) -> None:
    result = build(HANDBOOK, tmp_path / "handbook.gezk")
    assert result.manifest["id"] == "gezel-handbook"
    assert [q["query"] for q in result.manifest["smokeQueries"]] == [
        "signing keys",
        "shard routing centroids",
    ]
    archive = entries(result.path)
    assert archive["assets/building/images/shards.png"].startswith(b"\x89PNG")
    assert archive["LICENSES/catalog.txt"] == (HANDBOOK / "LICENSE").read_bytes()
    out = extract(result.path, tmp_path / "x")
    report = validate_catalog(out, deep=True)
    assert report.ok, report.findings
    router = sqlite3.connect(out / "index/router.db")
    codec, body = router.execute(
        "SELECT body_codec, body_blob FROM documents WHERE id = 'welcome'"
    ).fetchone()
    text = (brotli.decompress(body) if codec == "br" else body).decode("utf-8")
    assert "(knowledge://gezel-knowledge/gezel-handbook/getting-started/install)" in text
    assert "(knowledge://gezel-knowledge/gezel-handbook/reference/glossary)" in text
