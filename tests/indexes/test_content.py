"""The workspace content index: structural pass, enrichment, search."""

from __future__ import annotations

import io
import itertools
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.hits import merge_hits
from gezel_knowledge.indexes import (
    ContentIndex,
    EmbedderDimensionMismatch,
    IndexOptions,
    index_workspace,
    search_workspace,
)
from gezel_knowledge.indexes._home import content_db_path
from gezk.hashembed import hash_embed
from tests.indexes.helpers import (
    CountingSummarizer,
    LabelImageEmbedder,
    MeetingEmbedder,
    bump_mtime,
    hash_embedder,
    write_tree,
)

FILES = {
    "src/config.py": (
        "import json\n\n\ndef parse_config(path):\n"
        '    """Read the configuration."""\n    with open(path) as fh:\n'
        "        return json.load(fh)\n"
    ),
    "src/billing.py": "def invoice_total(lines):\n    return sum(lines)\n",
    "docs/guide.md": "# Guide\n\n## Install\n\nRun pip install quokka.\n\n## Use\n\nCall it.\n",
    "notes.txt": "remember the wombat\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    return root


@pytest.fixture
def index(workspace: Path, tmp_path: Path) -> ContentIndex:
    ix = ContentIndex(workspace, home=tmp_path / "home")
    ix.update()
    return ix


def _vec_rows(ix: ContentIndex) -> int:
    return int(ix._conn.execute("SELECT count(*) FROM vec_text").fetchone()[0])


def _chunk_ids(ix: ContentIndex, path: str) -> list[int]:
    return [
        int(r[0])
        for r in ix._conn.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ? "
            "ORDER BY c.ordinal",
            (path,),
        )
    ]


def test_database_lives_under_the_home_not_in_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    report = index_workspace(workspace, home=tmp_path / "home")
    expected = content_db_path(workspace, tmp_path / "home")
    assert Path(report.database) == expected
    assert expected.parent.parent == tmp_path / "home" / "indexes"
    assert len(expected.parent.name) == 16
    assert not any(p.suffix == ".db" for p in workspace.rglob("*"))


def test_incremental_reindex_touches_only_changed_files(
    index: ContentIndex, workspace: Path
) -> None:
    first = index.enrich(hash_embedder())
    assert first.chunks_embedded == index.status().chunks
    kept_ids = _chunk_ids(index, "src/billing.py")

    (workspace / "notes.txt").write_text("remember the platypus\n")
    bump_mtime(workspace / "notes.txt")
    bump_mtime(workspace / "docs/guide.md")  # new mtime, same bytes
    report = index.update()

    assert report.processed == ("notes.txt",)
    assert report.touched == ("docs/guide.md",)
    assert report.unchanged == 2
    assert report.removed == ()
    assert _chunk_ids(index, "src/billing.py") == kept_ids
    again = index.enrich(hash_embedder())
    assert again.chunks_embedded == 1
    assert _vec_rows(index) == index.status().chunks
    assert index.update().processed == ()


def test_deleted_file_disappears_from_results(index: ContentIndex, workspace: Path) -> None:
    index.enrich(hash_embedder())
    assert [h.document_id for h in index.search("wombat").hits] == ["notes.txt"]
    (workspace / "notes.txt").unlink()
    report = index.update()
    assert report.removed == ("notes.txt",)
    embedder = hash_embedder()
    index.embedder = embedder
    hits = index.search("remember the wombat\n").hits
    assert "notes.txt" not in {h.document_id for h in hits}
    assert _vec_rows(index) == index.status().chunks


def test_findable_by_name_and_keyword_before_enrichment(index: ContentIndex) -> None:
    assert index.status().chunks_embedded == 0
    by_name = index.search("billing").hits
    assert by_name[0].document_id == "src/billing.py"
    assert by_name[0].signal("name") is not None
    by_word = index.search("quokka").hits
    assert by_word[0].document_id == "docs/guide.md"
    assert by_word[0].heading_path == ("Guide", "Install")
    assert by_word[0].citation == "docs/guide.md#line=1-6"


def test_exact_symbol_name_finds_the_function(index: ContentIndex) -> None:
    hit = index.search("parse_config", k=3).hits[0]
    assert hit.document_id == "src/config.py"
    assert hit.signal("symbol") is not None
    assert hit.line_start is not None
    assert hit.line_end is not None
    assert hit.line_start <= 4 <= hit.line_end
    assert [s.qualname for s in index.symbols("src/config.py")] == ["parse_config"]
    assert index.imports("src/config.py") == ["json"]


def test_losing_the_embedder_never_erases_content(index: ContentIndex) -> None:
    index.enrich(hash_embedder())
    before = index.status()
    hits = index.search("quokka").hits  # no embedder at all
    assert hits[0].document_id == "docs/guide.md"
    other_space = hash_embedder(passage_instruction="passage: ")
    index.embedder = other_space
    result = index.search("quokka")  # vectors of another space: unused, and the result says so
    assert all(h.signal("vector") is None for h in result.hits)
    report = result.sources[0]
    assert (report.status, report.semantic, report.reason) == (
        "degraded",
        "unavailable",
        "other-vector-space",
    )
    assert index.status() == before


def test_stamp_change_reembeds_and_keeps_summaries(index: ContentIndex) -> None:
    summarizer = CountingSummarizer()
    index.enrich(hash_embedder(), summarizer=summarizer)
    summarized = sorted(summarizer.calls)
    assert summarized == sorted(FILES)
    old_stamp = index.status().text_stamp

    report = index.enrich(hash_embedder(passage_instruction="passage: "), summarizer=summarizer)

    assert report.vectors_reset
    assert report.chunks_embedded == index.status().chunks
    assert report.files_summarized == 0
    assert sorted(summarizer.calls) == summarized
    status = index.status()
    assert status.text_stamp != old_stamp
    assert status.summaries == len(FILES)
    assert index.search("zebracorn billing.py").hits[0].document_id == "src/billing.py"


def test_summaries_are_redone_only_for_changed_content(
    index: ContentIndex, workspace: Path
) -> None:
    summarizer = CountingSummarizer()
    index.enrich(summarizer=summarizer)
    summarizer.calls.clear()
    (workspace / "src/billing.py").write_text("def invoice_total(lines):\n    return 0\n")
    bump_mtime(workspace / "src/billing.py")
    index.update()
    index.enrich(summarizer=summarizer)
    assert summarizer.calls == ["src/billing.py"]


def test_dimension_change_without_gezel_embed_dim_is_a_clear_error(
    index: ContentIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEZEL_EMBED_DIM", raising=False)
    index.enrich(hash_embedder())
    small = hash_embedder(dimensions=128, profile_id="test-hash-embed-128@1")
    with pytest.raises(EmbedderDimensionMismatch) as info:
        index.enrich(small)
    assert info.value.reason == "embed-dimension-mismatch"
    assert "GEZEL_EMBED_DIM=128" in str(info.value)
    assert index.status().vector_dimensions == 384
    assert _vec_rows(index) == index.status().chunks

    monkeypatch.setenv("GEZEL_EMBED_DIM", "128")
    report = index.enrich(small)
    assert report.vectors_reset
    assert index.status().vector_dimensions == 128
    assert report.chunks_embedded == index.status().chunks
    text = FILES["notes.txt"]
    index.embedder = small
    assert index.search(text).hits[0].document_id == "notes.txt"


def test_gezel_embed_dim_must_match_a_new_index(
    index: ContentIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_EMBED_DIM", "768")
    with pytest.raises(EmbedderDimensionMismatch):
        index.enrich(hash_embedder())
    monkeypatch.setenv("GEZEL_EMBED_DIM", "many")
    with pytest.raises(InvalidInput) as info:
        index.enrich(hash_embedder())
    assert info.value.reason == "invalid-embed-dim"


def test_enrichment_resumes_after_an_interruption(index: ContentIndex) -> None:
    class Failing(HashEmbedder):
        calls = 0

        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            Failing.calls += 1
            if Failing.calls > 1:
                raise RuntimeError("model went away")
            return super().embed_passages(texts)

    with pytest.raises(RuntimeError):
        index.enrich(Failing(), batch_size=2)
    assert index.status().chunks_embedded == 2
    report = index.enrich(hash_embedder(), batch_size=2)
    assert report.chunks_embedded == index.status().chunks - 2
    assert _vec_rows(index) == index.status().chunks


def test_per_path_cap(tmp_path: Path) -> None:
    sections = "".join(f"## Part {i}\n\nalpha section {i}\n\n" for i in range(8))
    write_tree(tmp_path / "ws", {"big.md": "# Big\n\n" + sections, "small.md": "alpha once\n"})
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h") as ix:
        ix.update()
        capped = ix.search("alpha", k=10, per_path=2).hits
        assert [h.document_id for h in capped].count("big.md") == 2
        assert "small.md" in {h.document_id for h in capped}
        wider = ix.search("alpha", k=10, per_path=5).hits
        assert [h.document_id for h in wider].count("big.md") == 5
        with pytest.raises(InvalidInput):
            ix.search("alpha", per_path=0)


def test_overlapping_locations_are_merged(tmp_path: Path) -> None:
    lines = "".join(f"gamma line {i} " + "x" * 60 + "\n" for i in range(40))
    write_tree(tmp_path / "ws", {"long.txt": lines})
    options = IndexOptions(chunk_chars=800, chunk_overlap=300)
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h", options=options) as ix:
        ix.update()
        assert ix.status().chunks > 3
        hits = ix.search("gamma", k=10, per_path=10).hits
        spans = sorted((h.line_start or 0, h.line_end or 0) for h in hits)
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert start > end  # no two results share a line


def test_legacy_l2_vector_table_is_read_by_its_own_metric(index: ContentIndex) -> None:
    embedder = hash_embedder()
    index.enrich(embedder)
    conn = index._conn
    rows = conn.execute("SELECT rowid, embedding FROM vec_text").fetchall()
    conn.execute("DROP TABLE vec_text")
    conn.execute("CREATE VIRTUAL TABLE vec_text USING vec0(embedding float[384])")
    conn.executemany("INSERT INTO vec_text (rowid, embedding) VALUES (?, ?)", rows)
    assert index.status().vector_metric == "l2"

    query = "how do I pay an invoice"
    index.embedder = embedder
    hits = index.search(query, k=10, per_path=10).hits
    q = hash_embed([query])[0].astype(np.float64)
    texts = {int(cid): str(text) for cid, text in conn.execute("SELECT id, text FROM chunks")}
    by_text = {t: cid for cid, t in texts.items()}
    checked = 0
    for hit in hits:
        signal = hit.signal("vector")
        if signal is None or hit.heading_path:  # headed passages embed "heading\n\ntext"
            continue
        vector = hash_embed([hit.text])[0].astype(np.float64)
        assert by_text[hit.text] in texts
        assert signal.score == pytest.approx(float(vector @ q), abs=1e-5)
        checked += 1
    assert checked >= 3


def test_binary_oversized_and_ignored_files_are_skipped(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "ws",
        {
            "ok.txt": "fine\n",
            "blob.dat": b"\x00\x01\x02",
            "archive.zip": b"PK\x03\x04",
            "huge.txt": "y" * 5000,
            "ignored.log": "x",
            ".gitignore": "*.log\n",
        },
    )
    options = IndexOptions(max_text_bytes=1000)
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h", options=options) as ix:
        report = ix.update()
        assert dict(report.skipped) == {
            "archive.zip": "binary",
            "blob.dat": "binary",
            "huge.txt": "oversized",
        }
        assert set(report.processed) == {"ok.txt", ".gitignore"}


def _docx(paragraphs: list[tuple[str | None, str]]) -> bytes:
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = "".join(
        "<w:p>"
        + (f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else "")
        + f"<w:r><w:t>{text}</w:t></w:r></w:p>"
        for style, text in paragraphs
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "word/document.xml", f"<w:document {ns}><w:body>{body}</w:body></w:document>"
        )
    return buffer.getvalue()


def test_convertible_documents_are_searchable_with_headings(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "ws",
        {
            "report.docx": _docx(
                [("Title", "Quarterly"), ("Heading2", "Risks"), (None, "tapir delay")]
            ),
            "page.html": "<html><head><style>p{}</style></head><body><h1>Home</h1>"
            "<p>narwhal facts</p><script>var hidden = 'okapi';</script></body></html>",
            "scan.pdf": b"%PDF-1.4 binary",
        },
    )
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h") as ix:
        ix.update()
        hit = ix.search("tapir").hits[0]
        assert hit.document_id == "report.docx"
        assert hit.heading_path == ("Quarterly", "Risks")
        assert ix.search("narwhal").hits[0].title == "Home"
        assert ix.search("okapi").hits == ()
        assert ix.search("scan").hits[0].document_id == "scan.pdf"  # by name only


def test_images_are_embedded_by_content_hash_and_searched_by_cosine(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "ws",
        {"a.png": b"red fox", "b.png": b"blue sea", "c.png": b"red fox"},
    )
    images = LabelImageEmbedder()
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h") as ix:
        ix.update()
        report = ix.enrich(image_embedder=images)
        assert report.images_embedded == 2  # a.png and c.png share their bytes
        assert ix.status().images_embedded == 3
        ix.image_embedder = images
        hits = ix.search("blue sea", k=3).hits
        assert hits[0].document_id == "b.png"
        signal = hits[0].signal("image")
        assert signal is not None
        assert signal.score == pytest.approx(1.0, abs=1e-5)
        assert ix.status().vector_dimensions is None  # independent of vec_text
        again = ix.enrich(image_embedder=images)
        assert again.images_embedded == 0
        assert ix.enrich(image_embedder=LabelImageEmbedder("other@2")).images_embedded == 2


def test_workspace_hits_merge_with_other_sources(index: ContentIndex) -> None:
    hits = index.search("quokka").hits
    assert all(h.source_kind == "workspace" and h.untrusted for h in hits)
    assert [h.rank for h in hits] == list(range(len(hits)))
    assert merge_hits(hits)[0] == hits[0]


def test_search_without_an_index_is_not_found(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        search_workspace(workspace, "x", home=tmp_path / "nowhere")
    with pytest.raises(NotFound):
        ContentIndex(tmp_path / "missing-dir", home=tmp_path)


def test_the_database_can_be_deleted_and_rebuilt(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = index_workspace(workspace, home=home, embedder=hash_embedder())
    Path(first.database).unlink()
    again = index_workspace(workspace, home=home, embedder=hash_embedder())
    assert sorted(again.structure.processed) == sorted(first.structure.processed)
    hits = search_workspace(workspace, "parse_config", home=home, embedder=hash_embedder()).hits
    assert hits[0].document_id == "src/config.py"


def test_changed_chunking_options_reprocess_every_file(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    index_workspace(workspace, home=home)
    report = index_workspace(
        workspace, home=home, options=IndexOptions(chunk_chars=100, chunk_overlap=10)
    )
    assert len(report.structure.processed) == len(FILES)


def test_concurrent_enrichment_stores_each_vector_once(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with ContentIndex(workspace, home=home) as ix:
        ix.update()
        chunks = int(ix._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    barrier = threading.Barrier(2, timeout=10)

    def enrich() -> int:
        with ContentIndex(workspace, home=home) as ix:
            report = ix.enrich(MeetingEmbedder(barrier), batch_size=chunks)
            return report.chunks_embedded

    with ThreadPoolExecutor(max_workers=2) as pool:
        embedded = list(pool.map(lambda _: enrich(), range(2)))
    assert sorted(embedded) == [0, chunks]
    with ContentIndex(workspace, home=home) as ix:
        conn = ix._conn
        ids = sorted(r[0] for r in conn.execute("SELECT rowid FROM vec_text"))
        assert ids == sorted(r[0] for r in conn.execute("SELECT id FROM chunks"))
        assert conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0] == 0
