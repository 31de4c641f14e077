"""examples/handbook: the sample catalog source builds into what the issue asks for."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import brotli
import pytest

from gezel_knowledge.compiler import load_catalog_yaml
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.embedders import OnnxEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.stemming import stemmer_for
from gezel_knowledge.validate import validate_catalog
from tests.compiler.conftest import ModelBuild
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
    assert result.manifest.to_json()["id"] == "gezel-handbook"
    assert [q["query"] for q in result.manifest.to_json()["smokeQueries"]] == [
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


def test_the_handbook_builds_with_the_default_model() -> None:
    # The README's main command must give real semantic search: no stand-in embedder pinned.
    assert load_catalog_yaml(HANDBOOK / "catalog.yaml").embedder is None


def _words(text: str) -> set[str]:
    # What keyword search can match in an English catalog: lowercase runs of letters and
    # digits (unicode61), by their Snowball stem (the reader groups words by stem).
    stem = stemmer_for("en")
    assert stem is not None
    return {stem(w) for w in re.findall(r"[0-9a-z]+", text.lower())}


@pytest.mark.parametrize(
    "case",
    [
        # The README's query: found by words and by meaning.
        ("how do I sign a catalog", "building/signing", True),
        # A paraphrase sharing no word, nor a word's stem, with its page (title, front matter
        # and body included): only the vector list can find it.
        ("arranging chapters into hierarchy", "building/outlines", False),
    ],
)
def test_default_model_search_finds_the_page_through_its_vector(
    handbook_minilm: ModelBuild,
    minilm: OnnxEmbedder,
    tmp_path: Path,
    case: tuple[str, str, bool],
) -> None:
    query, document, keywords = case
    page = (HANDBOOK / f"{document}.md").read_text(encoding="utf-8")
    assert bool(_words(query) & _words(page)) is keywords
    with open_catalog(handbook_minilm.result.path, embedder=minilm, cache_dir=tmp_path) as c:
        hits = c.search(query).hits
    assert hits[0].document_id == document
    vector = hits[0].signal("vector")
    assert vector is not None
    assert vector.rank == 1
    if not keywords:
        assert {s.name for s in hits[0].signals} == {"vector"}
