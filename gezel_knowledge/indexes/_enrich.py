"""The content index's enrichment pass (seed, "Mutable vector search").

Text embeddings go to the sqlite-vec table ``vec_text`` (cosine distance, rowid = chunk id);
summaries come from a caller-supplied summarizer; image embeddings live in a plain BLOB table
keyed by image content hash. Each batch commits on its own, so the pass can be interrupted and
resumed. Losing the embedder never erases content; a changed embedder stamp regenerates the
embeddings and keeps the summaries.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import numpy as np

from gezel_knowledge._rows import fetch_all
from gezel_knowledge._untrusted import read_bounded
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes._content_schema import HEADING_SEPARATOR
from gezel_knowledge.indexes._content_types import (
    Describer,
    EnrichmentReport,
    ImageEmbedder,
    IndexOptions,
    Summarizer,
    Transcriber,
)
from gezel_knowledge.indexes._storage import (
    StoredStamp,
    read_stamp,
    stamp_text,
    transaction,
    write_stamp,
)
from gezel_knowledge.indexes._structure import sha256_hex
from gezel_knowledge.indexes._vectors import (
    create_vec_table,
    drop_vec_table,
    store_pending_vectors,
    vec_table,
)
from gezel_knowledge.indexes.errors import EmbedderDimensionMismatch
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely

__all__ = ["Enrichment"]


def _env_embed_dim() -> int | None:
    raw = os.environ.get("GEZEL_EMBED_DIM", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) <= 0:
        raise InvalidInput(
            f"GEZEL_EMBED_DIM must be a positive integer, got {raw!r}",
            reason="invalid-embed-dim",
            subject="GEZEL_EMBED_DIM",
        )
    return int(raw)


def _passage(heading: str, text: str) -> str:
    """What is embedded for a chunk: its heading path, then its text."""
    return (heading.replace(HEADING_SEPARATOR, " > ") + "\n\n" + text) if heading else text


class Enrichment:
    """The enrichment pass over an open content index."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        workspace: Path,
        db_path: Path,
        progress: ProgressSink | None = None,
    ) -> None:
        self._conn = conn
        self._workspace = workspace
        self._db_path = db_path
        self._progress = progress

    def run(
        self,
        embedder: Embedder | None,
        summarizer: Summarizer | None,
        image_embedder: ImageEmbedder | None,
        batch_size: int,
        *,
        transcriber: Transcriber | None = None,
        describer: Describer | None = None,
    ) -> EnrichmentReport:
        """Embed, summarize, transcribe, describe and embed images, whichever was given."""
        started = time.perf_counter()
        embedded, reset = (0, False)
        if embedder is not None:
            embedded, reset = self._embed_text(embedder, batch_size)
        summarized = self._summarize(summarizer) if summarizer is not None else 0
        transcribed = 0 if transcriber is None else self._describe("audio", transcriber)
        described = 0 if describer is None else self._describe("image", describer)
        images = 0 if image_embedder is None else self._embed_images(image_embedder, batch_size)
        return EnrichmentReport(
            chunks_embedded=embedded,
            files_summarized=summarized,
            images_embedded=images,
            audio_transcribed=transcribed,
            images_described=described,
            vectors_reset=reset,
            seconds=time.perf_counter() - started,
        )

    def _emit(self, step: str, done: int, total: int, unit: str) -> None:
        event = ProgressEvent(job="index", step=step, done=done, total=total, unit=unit)
        emit_safely(self._progress, event)

    # -- text embeddings ---------------------------------------------------------------------

    def _prepare_text_vectors(self, embedder: Embedder) -> bool:
        """Make ``vec_text`` match ``embedder``'s stamp; True when existing vectors were reset."""
        conn = self._conn
        stamp = stamp_text(embedder)
        dims = int(embedder.profile.dimensions)
        env_dim = _env_embed_dim()
        # Decided under the write lock: another writer may be preparing the same table, and
        # acting on what was read before it committed would create the table twice or drop
        # the vectors it has stored.
        with transaction(conn):
            stored = read_stamp(conn, "text")
            table = vec_table(conn, "vec_text")
            if table is None:
                if env_dim is not None and env_dim != dims:
                    raise EmbedderDimensionMismatch(
                        f"GEZEL_EMBED_DIM={env_dim} but embedder {embedder.profile.id} produces "
                        f"{dims}-dimensional vectors; set GEZEL_EMBED_DIM={dims} or unset it",
                        subject=str(self._db_path),
                    )
                self._new_text_table(stamp, dims)
                return False
            if stored is not None and stored.stamp == stamp and table.dimensions == dims:
                return False
            if dims not in (table.dimensions, env_dim):
                raise EmbedderDimensionMismatch(
                    f"the content index at {self._db_path} holds {table.dimensions}-dimensional "
                    f"vectors but embedder {embedder.profile.id} produces {dims}; set "
                    f"GEZEL_EMBED_DIM={dims} to rebuild the vector table",
                    subject=str(self._db_path),
                )
            # A changed stamp regenerates every embedding; summaries and content stay.
            drop_vec_table(conn, "vec_text")
            self._new_text_table(stamp, dims)
            return True

    def _new_text_table(self, stamp: str, dims: int) -> None:
        create_vec_table(self._conn, "vec_text", dims)
        self._conn.execute("UPDATE chunks SET embedded = 0 WHERE embedded != 0")
        write_stamp(self._conn, "text", StoredStamp(stamp, dims))

    def _embed_text(self, embedder: Embedder, batch_size: int) -> tuple[int, bool]:
        conn = self._conn
        reset = self._prepare_text_vectors(embedder)
        table = vec_table(conn, "vec_text")
        assert table is not None
        (total,) = conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()
        done = 0
        while True:
            rows = fetch_all(
                conn,
                "SELECT id, heading, text FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?",
                (batch_size,),
            )
            if not rows:
                break
            passages = [_passage(str(r["heading"]), str(r["text"])) for r in rows]
            vectors = np.ascontiguousarray(embedder.embed_passages(passages), dtype=np.float32)
            if vectors.shape != (len(rows), table.dimensions):
                raise EmbedderDimensionMismatch(
                    f"embedder {embedder.profile.id} returned vectors of shape {vectors.shape}, "
                    f"expected ({len(rows)}, {table.dimensions})",
                    subject=embedder.profile.id,
                )
            with transaction(conn):
                done += store_pending_vectors(
                    conn,
                    vec="vec_text",
                    table="chunks",
                    columns="heading, text",
                    rows=[(r["id"], r["heading"], r["text"]) for r in rows],
                    vectors=vectors,
                )
            self._emit("embed", done, int(total), "chunks")
        return done, reset

    # -- summaries ---------------------------------------------------------------------------

    def _file_text(self, file_id: int) -> str:
        """The searchable text of a file, reassembled from its (overlapping) chunks."""
        parts: list[str] = []
        end = 0
        for r in fetch_all(
            self._conn,
            "SELECT char_start, char_end, text FROM chunks WHERE file_id = ? ORDER BY ordinal",
            (file_id,),
        ):
            if r["char_end"] <= end:
                continue
            parts.append(str(r["text"])[max(0, end - r["char_start"]) :])
            end = int(r["char_end"])
        return "".join(parts)

    def _summarize(self, summarizer: Summarizer) -> int:
        conn = self._conn
        rows = fetch_all(
            conn,
            "SELECT id, path, content_hash FROM files WHERE kind IN "
            "('code', 'markdown', 'text', 'document') "
            "AND (summary_hash IS NULL OR summary_hash != content_hash) ORDER BY path",
        )
        done = 0
        for r in rows:
            text = self._file_text(int(r["id"]))
            summary = summarizer(str(r["path"]), text).strip() if text.strip() else ""
            digest = r["content_hash"]
            with transaction(conn):
                conn.execute(
                    "UPDATE files SET summary = ?, summary_hash = ? "
                    "WHERE id = ? AND content_hash = ?",
                    (summary, digest, r["id"], digest),
                )
            done += 1
            self._emit("summarize", done, len(rows), "files")
        return done

    # -- transcripts and descriptions ----------------------------------------------------------

    def _describe(self, kind: str, provider: Transcriber | Describer) -> int:
        """Give every ``kind`` file whose content changed since its last text (audio: a
        transcript, image: a description) that text as its searchable summary."""
        conn = self._conn
        rows = fetch_all(
            conn,
            "SELECT id, path, content_hash FROM files WHERE kind = ? "
            "AND (summary_hash IS NULL OR summary_hash != content_hash) ORDER BY path",
            (kind,),
        )
        step = "transcribe" if kind == "audio" else "describe"
        done = 0
        for r in rows:
            data = self._read(str(r["path"]))
            if data is None:
                continue
            digest = str(r["content_hash"])
            if sha256_hex(data) != digest:  # changed since the structural pass: next time
                continue
            text = " ".join(provider(str(r["path"]), data).split())
            with transaction(conn):
                conn.execute(
                    "UPDATE files SET summary = ?, summary_hash = ? "
                    "WHERE id = ? AND content_hash = ?",
                    (text, digest, r["id"], digest),
                )
            done += 1
            self._emit(step, done, len(rows), "files")
        return done

    def _read(self, path: str) -> bytes | None:
        """A workspace file's bytes, or ``None`` when it is gone, no longer a regular file or
        larger than a file the structural pass would index (it changed since: next time)."""
        try:
            return read_bounded(
                self._workspace / path, "workspace file", limit=IndexOptions().max_binary_bytes
            )
        except InvalidInput:
            return None

    # -- images ------------------------------------------------------------------------------

    def _image_batch(self, rows: list[tuple[str, str]]) -> list[tuple[str, bytes]]:
        """``(content_hash, bytes)`` of the images that still have the content indexed."""
        batch: list[tuple[str, bytes]] = []
        for digest, path in rows:
            data = self._read(path)
            if data is None:
                continue
            if sha256_hex(data) == digest:  # changed since the structural pass: next time
                batch.append((digest, data))
        return batch

    def _embed_images(self, image_embedder: ImageEmbedder, batch_size: int) -> int:
        conn = self._conn
        stored = read_stamp(conn, "image")
        if stored is None or stored.stamp != image_embedder.stamp:
            with transaction(conn):
                conn.execute("DELETE FROM image_vectors")
                write_stamp(conn, "image", StoredStamp(image_embedder.stamp, 0))
        rows = [
            (str(r["content_hash"]), str(r["path"]))
            for r in fetch_all(
                conn,
                "SELECT f.content_hash, min(f.path) AS path FROM files f WHERE f.kind = 'image' "
                "AND NOT EXISTS (SELECT 1 FROM image_vectors v "
                "WHERE v.content_hash = f.content_hash) "
                "GROUP BY f.content_hash ORDER BY min(f.path)",
            )
        ]
        done = 0
        for start in range(0, len(rows), batch_size):
            batch = self._image_batch(rows[start : start + batch_size])
            if not batch:
                continue
            vectors = np.asarray(
                image_embedder.embed_images([d for _, d in batch]), dtype=np.float32
            )
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
            with transaction(conn):
                conn.executemany(
                    "INSERT OR REPLACE INTO image_vectors (content_hash, vector) VALUES (?, ?)",
                    [(d, vectors[i].tobytes()) for i, (d, _) in enumerate(batch)],
                )
                write_stamp(conn, "image", StoredStamp(image_embedder.stamp, vectors.shape[1]))
            done += len(batch)
            self._emit("images", done, len(rows), "images")
        return done
