"""The examples in docs/integrations.md (Parquet companion) run as written."""

from __future__ import annotations

import re
import shlex
import shutil
import sqlite3
from pathlib import Path

import duckdb
import numpy as np
import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrations.md"


def _blocks(language: str) -> list[str]:
    """The page's ``language`` blocks in its Parquet section (other sections have their own
    tests, in tests/integrations/test_docs.py)."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("\n## Parquet companion\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    return re.findall(rf"^```{language}\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "examples" / "handbook", tmp_path / "examples" / "handbook")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def companion(workdir: Path) -> Path:
    """Run the page's console commands; the companion folder they write."""
    commands = [
        line[2:]
        for block in _blocks("console")
        for line in block.splitlines()
        if line.startswith("$ gezel-knowledge ")
    ]
    assert len(commands) == 2
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
    out = workdir / "handbook-parquet"
    assert (out / "parquet-manifest.json").is_file()
    return out


def test_the_recipe_queries_score_as_the_archive_stores_the_vectors(
    workdir: Path, companion: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage2, stage1, rules = _blocks("sql")
    query = HashEmbedder().embed_queries(["how do I sign a catalog"])[0]
    bits = np.packbits(query > 0, bitorder="little").tobytes()
    monkeypatch.chdir(companion)
    with duckdb.connect() as con:
        ranked = con.execute(stage2, {"query_vector": query.tolist()}).fetchall()
        hamming = con.execute(stage1, {"query_bits": bits}).fetchall()
        kv = dict(con.execute(rules).fetchall())

    # The same scores from the catalog's own int8 vectors, read with sqlite3.
    with open_catalog(workdir / "handbook.gezk") as catalog:
        router = catalog.root / "index" / "router.db"
    conn = sqlite3.connect(router.as_uri() + "?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT c.chunk_uid, q.v, b.v FROM chunks c "
        "JOIN chunk_vectors_int8 q ON q.chunk_id = c.id "
        "JOIN chunk_vectors_bit b ON b.chunk_id = c.id"
    ).fetchall()
    conn.close()
    vectors = np.stack([np.frombuffer(v, dtype=np.int8) for _, v, _ in rows]) / 127.0
    cosine = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    expected = dict(zip([uid for uid, _, _ in rows], cosine, strict=True))
    assert len(ranked) == min(24, len(rows))
    for uid, _, score in ranked:
        assert score == pytest.approx(expected[uid], abs=1e-6)
    assert ranked[0][0] == max(expected, key=lambda uid: expected[uid])

    distances = {
        uid: int(np.unpackbits(np.frombuffer(b, np.uint8) ^ np.frombuffer(bits, np.uint8)).sum())
        for uid, _, b in rows
    }
    assert len(hamming) == len(rows)
    assert [d for _, d in hamming] == sorted(distances.values())
    assert all(distances[uid] == d for uid, d in hamming)

    assert kv["gezk_embedding_int8_scale"] == "127"
    assert kv["gezk_embedding_bit_method"] == "sign"
    assert all(key.startswith("gezk_embedding_") for key in kv)


def test_python_example_prints_what_the_page_says(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (code,) = _blocks("python")
    (expected,) = _blocks("text")
    exec(compile(code, str(PAGE), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out == expected
    assert (workdir / "rivers-parquet" / "parquet-manifest.json").is_file()


def test_the_pages_link_to_each_others_sections() -> None:
    build = (ROOT / "docs" / "build.md").read_text(encoding="utf-8")
    integrations = PAGE.read_text(encoding="utf-8")
    assert "(build.md#parquet-document-lists)" in integrations
    assert "\n### Parquet document lists\n" in build
    assert "(integrations.md#from-python-both-ways)" in build
    assert "\n### From Python, both ways\n" in integrations
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| [integrations](docs/integrations.md) |" in readme
