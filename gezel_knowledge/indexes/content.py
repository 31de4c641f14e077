"""The workspace content index (seed, "From a file to a searchable passage", "Mutable vector
search").

Two passes over a workspace folder, each resumable on its own:

- The **structural pass** (:meth:`ContentIndex.update`) needs no model. It discovers files
  (ignore rules, no binaries, no oversized files), classifies them, gates on modification time
  and size and then on the SHA-256 of the content, extracts symbols and imports, Markdown
  headings and document text, chunks text with the workspace chunker, and removes the rows of
  deleted files. Every file is findable by name and keyword as soon as this pass has seen it.
- The **enrichment pass** (:meth:`ContentIndex.enrich`) adds text embeddings into the sqlite-vec
  table ``vec_text`` (cosine distance, rowid = chunk id), optional summaries from a
  caller-supplied summarizer, and optional image embeddings in a plain BLOB table keyed by
  image content hash. Losing the embedder never erases content; a changed embedder stamp
  regenerates the embeddings and keeps the summaries.

Search fuses independently ranked lists by reciprocal rank fusion: vector neighbours, FTS5 over
symbols, FTS5 over file names/titles/summaries and FTS5 over chunk text (and image neighbours
when an image embedder is given). Overlapping locations in one file are merged and each path
contributes at most ``per_path`` results.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.fusion import reciprocal_rank_fusion, relevance
from gezel_knowledge.hits import SearchHit, Signal
from gezel_knowledge.indexes._chunker import (
    DEFAULT_MAX_CHARS,
    DEFAULT_OVERLAP,
    WORKSPACE_CHUNKER,
    WorkspaceChunk,
    chunk_text,
    markdown_headings,
)
from gezel_knowledge.indexes._convert import document_text
from gezel_knowledge.indexes._discover import FileClass, FoundFile, classify, discover, looks_binary
from gezel_knowledge.indexes._home import content_db_path
from gezel_knowledge.indexes._storage import (
    IndexSchema,
    StoredStamp,
    open_index,
    read_meta,
    read_stamp,
    stamp_text,
    transaction,
    write_meta,
    write_stamp,
)
from gezel_knowledge.indexes._symbols import Symbol, extract_symbols
from gezel_knowledge.indexes._text import FTS_TOKENIZER, fts_query, split_identifier_words
from gezel_knowledge.indexes._vectors import (
    QueryVectors,
    create_vec_table,
    drop_vec_table,
    knn,
    query_vectors_for,
    store_pending_vectors,
    vec_table,
)
from gezel_knowledge.indexes.errors import EmbedderDimensionMismatch
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely

__all__ = [
    "CONTENT_SCHEMA_VERSION",
    "ContentIndex",
    "ContentStatus",
    "EnrichmentReport",
    "ImageEmbedder",
    "IndexOptions",
    "IndexReport",
    "StructuralReport",
    "Summarizer",
    "index_workspace",
    "search_workspace",
]

CONTENT_SCHEMA_VERSION = 1
_EXTRACTOR_VERSION = 1  # bump when symbol/heading/document extraction changes its output
_TEXT_CLASSES: frozenset[str] = frozenset({"code", "markdown", "text", "document"})
_BINARY_CLASSES: frozenset[str] = frozenset({"document", "image"})
_HEADING_SEPARATOR = "\n"

_TRIGGERS = [
    (
        "CREATE TRIGGER {t}_ai AFTER INSERT ON {t} BEGIN "
        "INSERT INTO {t}_fts (rowid, {cols}) VALUES (new.{id}, {new}); END"
    ),
    (
        "CREATE TRIGGER {t}_ad AFTER DELETE ON {t} BEGIN "
        "INSERT INTO {t}_fts ({t}_fts, rowid, {cols}) VALUES ('delete', old.{id}, {old}); END"
    ),
    (
        "CREATE TRIGGER {t}_au AFTER UPDATE OF {cols} ON {t} BEGIN "
        "INSERT INTO {t}_fts ({t}_fts, rowid, {cols}) VALUES ('delete', old.{id}, {old}); "
        "INSERT INTO {t}_fts (rowid, {cols}) VALUES (new.{id}, {new}); END"
    ),
]


def _fts_ddl(table: str, columns: Sequence[str]) -> list[str]:
    cols = ", ".join(columns)
    statements = [
        f"CREATE VIRTUAL TABLE {table}_fts USING fts5({cols}, content='{table}', "
        f"content_rowid='id', tokenize='{FTS_TOKENIZER}')"
    ]
    fmt = {
        "t": table,
        "cols": cols,
        "id": "id",
        "new": ", ".join(f"new.{c}" for c in columns),
        "old": ", ".join(f"old.{c}" for c in columns),
    }
    statements.extend(trigger.format(**fmt) for trigger in _TRIGGERS)
    return statements


_SCHEMA = IndexSchema(
    kind="content",
    version=CONTENT_SCHEMA_VERSION,
    statements=(
        "CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
        "kind TEXT NOT NULL, language TEXT, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, "
        "content_hash TEXT NOT NULL, name_words TEXT NOT NULL, title TEXT NOT NULL, "
        "summary TEXT NOT NULL DEFAULT '', summary_hash TEXT)",
        "CREATE INDEX files_by_hash ON files (content_hash)",
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, "
        "ordinal INTEGER NOT NULL, heading TEXT NOT NULL, line_start INTEGER NOT NULL, "
        "line_end INTEGER NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, "
        "text TEXT NOT NULL, embedded INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX chunks_by_file ON chunks (file_id, line_start)",
        "CREATE INDEX chunks_pending ON chunks (id) WHERE embedded = 0",
        "CREATE TABLE symbols (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, "
        "name TEXT NOT NULL, qualname TEXT NOT NULL, words TEXT NOT NULL, kind TEXT NOT NULL, "
        "line_start INTEGER NOT NULL, line_end INTEGER NOT NULL)",
        "CREATE INDEX symbols_by_file ON symbols (file_id)",
        "CREATE TABLE imports (file_id INTEGER NOT NULL, module TEXT NOT NULL, "
        "PRIMARY KEY (file_id, module)) WITHOUT ROWID",
        "CREATE INDEX imports_by_module ON imports (module)",
        "CREATE TABLE image_vectors (content_hash TEXT PRIMARY KEY, vector BLOB NOT NULL) "
        "WITHOUT ROWID",
        *_fts_ddl("files", ("name_words", "title", "summary")),
        *_fts_ddl("chunks", ("heading", "text")),
        *_fts_ddl("symbols", ("qualname", "words")),
    ),
)

_FUSION_WEIGHTS = {"vector": 1.0, "symbol": 1.0, "name": 1.0, "image": 1.0, "keyword": 0.5}
"""Rank-fusion weights: vector neighbours, symbol and name/summary matches count fully; chunk
body keyword matches count half (as the catalog search weighs its chunk-body list)."""


class Summarizer(Protocol):
    """Writes a short summary of a file for the enrichment pass (an inference call, typically)."""

    def __call__(self, path: str, text: str) -> str:
        """A summary of ``text``, the searchable text of workspace file ``path``."""
        ...


class ImageEmbedder(Protocol):
    """Embeds images and text queries into one vector space (a CLIP-style model)."""

    @property
    def stamp(self) -> str:
        """The identity of the image vector space; a change re-embeds every image."""
        ...

    def embed_images(self, images: Sequence[bytes]) -> NDArray[np.float32]:
        """One vector per encoded image."""
        ...

    def embed_texts(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One vector per text query, in the images' space."""
        ...


@dataclass(frozen=True, slots=True)
class IndexOptions:
    """Knobs of the structural pass."""

    max_text_bytes: int = 2 * 1024 * 1024
    """Code, Markdown and text files larger than this are skipped as oversized."""
    max_binary_bytes: int = 32 * 1024 * 1024
    """Documents and images larger than this are skipped as oversized."""
    chunk_chars: int = DEFAULT_MAX_CHARS
    chunk_overlap: int = DEFAULT_OVERLAP
    extra_ignores: tuple[str, ...] = ()
    """Additional gitignore-style patterns, applied at the workspace root."""
    batch_files: int = 256
    """Files written per transaction: a crash loses at most one batch of work."""


@dataclass(frozen=True, slots=True)
class StructuralReport:
    """What a structural pass did."""

    files_seen: int
    unchanged: int
    processed: tuple[str, ...]
    touched: tuple[str, ...]
    removed: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    chunks_written: int
    seconds: float


@dataclass(frozen=True, slots=True)
class EnrichmentReport:
    """What an enrichment pass did."""

    chunks_embedded: int = 0
    files_summarized: int = 0
    images_embedded: int = 0
    vectors_reset: bool = False
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class IndexReport:
    """The structural pass and (when an embedder or summarizer was given) the enrichment."""

    workspace: str
    database: str
    structure: StructuralReport
    enrichment: EnrichmentReport | None


@dataclass(frozen=True, slots=True)
class ContentStatus:
    """Counts and the embedder stamp of a content index."""

    workspace: str
    database: str
    files: int
    chunks: int
    chunks_embedded: int
    symbols: int
    summaries: int
    images: int
    images_embedded: int
    text_stamp: str | None
    vector_dimensions: int | None
    vector_metric: str | None


@dataclass(slots=True)
class _Extracted:
    kind: FileClass
    language: str | None
    title: str
    chunks: list[WorkspaceChunk] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Kept:
    path: str
    title: str
    text: str
    span: tuple[int, int] | None
    heading_path: tuple[str, ...]
    signals: list[Signal]


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


def _name_words(path: str) -> str:
    stem_words = split_identifier_words(path)
    return f"{path} {stem_words}" if stem_words else path


def _first_heading(text: str) -> str | None:
    headings = markdown_headings(text.splitlines(keepends=True)[:2000])
    if not headings:
        return None
    top = min(level for _, level, _ in headings)
    return next(title for _, level, title in headings if level == top and title) or None


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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ContentIndex:
    """The content index of one workspace folder, stored outside it (see :func:`content_db_path`).

    Use as a context manager or call :meth:`close`.
    """

    def __init__(
        self,
        workspace: Path | str,
        *,
        db_path: Path | str | None = None,
        home: Path | str | None = None,
        options: IndexOptions | None = None,
    ) -> None:
        root = Path(workspace).expanduser()
        if not root.is_dir():
            raise NotFound(f"workspace {root} is not a directory", subject=str(root))
        self.workspace = root.resolve()
        self.options = options or IndexOptions()
        self.db_path = Path(db_path) if db_path is not None else content_db_path(root, home)
        self._conn = open_index(self.db_path, _SCHEMA)
        meta = read_meta(self._conn)
        if "workspace" not in meta:
            with transaction(self._conn):
                write_meta(self._conn, {"workspace": str(self.workspace)})

    def close(self) -> None:
        """Close the database connection."""
        self._conn.close()

    def __enter__(self) -> ContentIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------------- structure

    def _structure_key(self) -> str:
        o = self.options
        return f"{WORKSPACE_CHUNKER}:{o.chunk_chars}:{o.chunk_overlap}:extract@{_EXTRACTOR_VERSION}"

    def _extract(
        self, found: FoundFile, kind: FileClass, language: str | None, data: bytes
    ) -> _Extracted | None:
        """Searchable structure of one file; ``None`` when it turns out to be binary."""
        name = found.path.rsplit("/", 1)[-1]
        o = self.options
        if kind == "image":
            return _Extracted(kind, language, name)
        if kind == "document":
            converted = document_text(language or "", data)
            if converted is None:
                return _Extracted(kind, language, name)
            chunks = chunk_text(
                converted, markdown=True, max_chars=o.chunk_chars, overlap=o.chunk_overlap
            )
            return _Extracted(kind, language, _first_heading(converted) or name, chunks)
        if looks_binary(data):
            return None
        text = _decode(data)
        markdown = kind == "markdown"
        chunks = chunk_text(
            text, markdown=markdown, max_chars=o.chunk_chars, overlap=o.chunk_overlap
        )
        title = (_first_heading(text) if markdown else None) or name
        symbols, imports = extract_symbols(language, text) if kind == "code" else ([], [])
        return _Extracted(kind, language, title, chunks, symbols, imports)

    def _vector_ids(self, file_id: int) -> list[tuple[int]]:
        return [
            (int(r[0]),)
            for r in self._conn.execute(
                "SELECT id FROM chunks WHERE file_id = ? AND embedded = 1", (file_id,)
            )
        ]

    def _delete_content(self, file_id: int, has_vectors: bool) -> None:
        conn = self._conn
        if has_vectors:
            conn.executemany("DELETE FROM vec_text WHERE rowid = ?", self._vector_ids(file_id))
        conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))

    def _write_file(
        self,
        file_id: int | None,
        found: FoundFile,
        content_hash: str,
        ex: _Extracted,
        has_vectors: bool,
    ) -> int:
        conn = self._conn
        values = (
            ex.kind,
            ex.language,
            found.size,
            found.mtime_ns,
            content_hash,
            _name_words(found.path),
            ex.title,
        )
        if file_id is None:
            cursor = conn.execute(
                "INSERT INTO files (kind, language, size, mtime_ns, content_hash, name_words, "
                "title, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, found.path),
            )
            file_id = int(cursor.lastrowid or 0)
        else:
            self._delete_content(file_id, has_vectors)
            conn.execute(
                "UPDATE files SET kind = ?, language = ?, size = ?, mtime_ns = ?, "
                "content_hash = ?, name_words = ?, title = ?, summary = '', summary_hash = NULL "
                "WHERE id = ?",
                (*values, file_id),
            )
        conn.executemany(
            "INSERT INTO chunks (file_id, ordinal, heading, line_start, line_end, char_start, "
            "char_end, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    file_id,
                    c.ordinal,
                    _HEADING_SEPARATOR.join(c.heading_path),
                    c.line_start,
                    c.line_end,
                    c.char_start,
                    c.char_end,
                    c.text,
                )
                for c in ex.chunks
            ],
        )
        conn.executemany(
            "INSERT INTO symbols (file_id, name, qualname, words, kind, line_start, line_end) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    file_id,
                    s.name,
                    s.qualname,
                    split_identifier_words(s.qualname),
                    s.kind,
                    s.line_start,
                    s.line_end,
                )
                for s in ex.symbols
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO imports (file_id, module) VALUES (?, ?)",
            [(file_id, m) for m in ex.imports],
        )
        return file_id

    def _remove_file(self, file_id: int, has_vectors: bool) -> None:
        self._delete_content(file_id, has_vectors)
        self._conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def update(self, *, progress: ProgressSink | None = None) -> StructuralReport:
        """Run the structural pass: bring files, chunks, symbols and imports up to date."""
        started = time.perf_counter()
        conn = self._conn
        has_vectors = vec_table(conn, "vec_text") is not None
        structure = self._structure_key()
        if read_meta(conn).get("structure") != structure:
            # Chunking or extraction rules changed: every file must be processed again.
            with transaction(conn):
                conn.execute("UPDATE files SET mtime_ns = -1, content_hash = ''")
                write_meta(conn, {"structure": structure})
        known: dict[str, tuple[int, int, int, str]] = {
            str(path): (int(fid), int(size), int(mtime), str(digest))
            for fid, path, size, mtime, digest in conn.execute(
                "SELECT id, path, size, mtime_ns, content_hash FROM files"
            )
        }
        emit_safely(progress, ProgressEvent(job="index", step="discover"))
        found_files = list(discover(self.workspace, extra_ignores=self.options.extra_ignores))
        total = len(found_files)
        processed: list[str] = []
        touched: list[str] = []
        removed: list[str] = []
        skipped: list[tuple[str, str]] = []
        unchanged = 0
        chunks_written = 0
        pending: list[Callable[[], object]] = []

        def flush() -> None:
            if pending:
                with transaction(conn):
                    for write in pending:
                        write()
                pending.clear()

        o = self.options
        for done, found in enumerate(found_files, start=1):
            row = known.get(found.path)
            if row is not None and row[1] == found.size and row[2] == found.mtime_ns:
                unchanged += 1
            else:
                outcome = self._examine(found, row, o)
                if isinstance(outcome, str):
                    skipped.append((found.path, outcome))
                    if row is not None:
                        removed.append(found.path)
                        pending.append(functools.partial(self._remove_file, row[0], has_vectors))
                elif outcome is None:
                    touched.append(found.path)
                    assert row is not None
                    pending.append(
                        functools.partial(
                            conn.execute,
                            "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?",
                            (found.size, found.mtime_ns, row[0]),
                        )
                    )
                else:
                    digest, extracted = outcome
                    processed.append(found.path)
                    chunks_written += len(extracted.chunks)
                    file_id = None if row is None else row[0]
                    pending.append(
                        functools.partial(
                            self._write_file, file_id, found, digest, extracted, has_vectors
                        )
                    )
            if len(pending) >= o.batch_files:
                flush()
            if done % 64 == 0 or done == total:
                emit_safely(
                    progress,
                    ProgressEvent(
                        job="index", step="structure", done=done, total=total, unit="files"
                    ),
                )
        seen = {f.path for f in found_files}
        for path, row in known.items():
            if path not in seen:
                removed.append(path)
                pending.append(functools.partial(self._remove_file, row[0], has_vectors))
        flush()
        with transaction(conn):
            conn.execute(
                "DELETE FROM image_vectors WHERE content_hash NOT IN "
                "(SELECT content_hash FROM files WHERE kind = 'image')"
            )
        return StructuralReport(
            files_seen=total,
            unchanged=unchanged,
            processed=tuple(processed),
            touched=tuple(touched),
            removed=tuple(sorted(removed)),
            skipped=tuple(skipped),
            chunks_written=chunks_written,
            seconds=time.perf_counter() - started,
        )

    def _examine(
        self, found: FoundFile, row: tuple[int, int, int, str] | None, o: IndexOptions
    ) -> str | tuple[str, _Extracted] | None:
        """A skip reason, ``None`` for same content (only the stat changed), or new content."""
        kind, language = classify(found.path)
        if kind == "other":
            return "binary"
        limit = o.max_binary_bytes if kind in _BINARY_CLASSES else o.max_text_bytes
        if found.size > limit:
            return "oversized"
        try:
            with open(self.workspace / found.path, "rb") as fh:
                data = fh.read(limit + 1)
        except OSError:
            return "unreadable"
        if len(data) > limit:
            return "oversized"
        digest = _sha256(data)
        if row is not None and row[3] == digest:
            return None
        extracted = self._extract(found, kind, language, data)
        if extracted is None:
            return "binary"
        return digest, extracted

    # ---------------------------------------------------------------------------- enrichment

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
                        subject=str(self.db_path),
                    )
                create_vec_table(conn, "vec_text", dims)
                conn.execute("UPDATE chunks SET embedded = 0 WHERE embedded != 0")
                write_stamp(conn, "text", StoredStamp(stamp, dims))
                return False
            if stored is not None and stored.stamp == stamp and table.dimensions == dims:
                return False
            if dims not in (table.dimensions, env_dim):
                raise EmbedderDimensionMismatch(
                    f"the content index at {self.db_path} holds {table.dimensions}-dimensional "
                    f"vectors but embedder {embedder.profile.id} produces {dims}; set "
                    f"GEZEL_EMBED_DIM={dims} to rebuild the vector table",
                    subject=str(self.db_path),
                )
            # A changed stamp regenerates every embedding; summaries and content stay.
            drop_vec_table(conn, "vec_text")
            create_vec_table(conn, "vec_text", dims)
            conn.execute("UPDATE chunks SET embedded = 0 WHERE embedded != 0")
            write_stamp(conn, "text", StoredStamp(stamp, dims))
            return True

    def _embed_text(
        self, embedder: Embedder, batch_size: int, progress: ProgressSink | None
    ) -> tuple[int, bool]:
        conn = self._conn
        reset = self._prepare_text_vectors(embedder)
        table = vec_table(conn, "vec_text")
        assert table is not None
        total = int(conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0])
        done = 0
        while True:
            rows = conn.execute(
                "SELECT id, heading, text FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?",
                (batch_size,),
            ).fetchall()
            if not rows:
                break
            passages = [
                (str(h).replace(_HEADING_SEPARATOR, " > ") + "\n\n" + str(t)) if h else str(t)
                for _, h, t in rows
            ]
            vectors = np.ascontiguousarray(embedder.embed_passages(passages), dtype=np.float32)
            if vectors.shape != (len(rows), table.dimensions):
                raise EmbedderDimensionMismatch(
                    f"embedder {embedder.profile.id} returned vectors of shape {vectors.shape}, "
                    f"expected ({len(rows)}, {table.dimensions})",
                    subject=embedder.profile.id,
                )
            with transaction(conn):
                stored = store_pending_vectors(
                    conn,
                    vec="vec_text",
                    table="chunks",
                    columns="heading, text",
                    rows=rows,
                    vectors=vectors,
                )
            done += stored
            emit_safely(
                progress,
                ProgressEvent(job="index", step="embed", done=done, total=total, unit="chunks"),
            )
        return done, reset

    def _file_text(self, file_id: int) -> str:
        """The searchable text of a file, reassembled from its (overlapping) chunks."""
        parts: list[str] = []
        end = 0
        for start, stop, text in self._conn.execute(
            "SELECT char_start, char_end, text FROM chunks WHERE file_id = ? ORDER BY ordinal",
            (file_id,),
        ):
            if stop <= end:
                continue
            parts.append(str(text)[max(0, end - start) :])
            end = int(stop)
        return "".join(parts)

    def _summarize(self, summarizer: Summarizer, progress: ProgressSink | None) -> int:
        conn = self._conn
        rows = conn.execute(
            "SELECT id, path, content_hash FROM files WHERE kind IN "
            "('code', 'markdown', 'text', 'document') "
            "AND (summary_hash IS NULL OR summary_hash != content_hash) ORDER BY path"
        ).fetchall()
        done = 0
        for file_id, path, digest in rows:
            text = self._file_text(int(file_id))
            summary = summarizer(str(path), text).strip() if text.strip() else ""
            with transaction(conn):
                conn.execute(
                    "UPDATE files SET summary = ?, summary_hash = ? "
                    "WHERE id = ? AND content_hash = ?",
                    (summary, digest, file_id, digest),
                )
            done += 1
            emit_safely(
                progress,
                ProgressEvent(
                    job="index", step="summarize", done=done, total=len(rows), unit="files"
                ),
            )
        return done

    def _embed_images(
        self, image_embedder: ImageEmbedder, batch_size: int, progress: ProgressSink | None
    ) -> int:
        conn = self._conn
        stored = read_stamp(conn, "image")
        if stored is None or stored.stamp != image_embedder.stamp:
            with transaction(conn):
                conn.execute("DELETE FROM image_vectors")
                write_stamp(conn, "image", StoredStamp(image_embedder.stamp, 0))
        rows = conn.execute(
            "SELECT f.content_hash, min(f.path) FROM files f WHERE f.kind = 'image' AND NOT EXISTS "
            "(SELECT 1 FROM image_vectors v WHERE v.content_hash = f.content_hash) "
            "GROUP BY f.content_hash ORDER BY min(f.path)"
        ).fetchall()
        done = 0
        for start in range(0, len(rows), batch_size):
            batch: list[tuple[str, bytes]] = []
            for digest, path in rows[start : start + batch_size]:
                try:
                    data = (self.workspace / str(path)).read_bytes()
                except OSError:
                    continue
                if _sha256(data) == digest:  # changed since the structural pass: next time
                    batch.append((str(digest), data))
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
            emit_safely(
                progress,
                ProgressEvent(
                    job="index", step="images", done=done, total=len(rows), unit="images"
                ),
            )
        return done

    def enrich(
        self,
        embedder: Embedder | None = None,
        *,
        summarizer: Summarizer | None = None,
        image_embedder: ImageEmbedder | None = None,
        batch_size: int = 32,
        progress: ProgressSink | None = None,
    ) -> EnrichmentReport:
        """Run the enrichment pass for whatever is not yet enriched; safe to interrupt and
        call again (each batch commits on its own)."""
        started = time.perf_counter()
        embedded, reset = (0, False)
        if embedder is not None:
            embedded, reset = self._embed_text(embedder, batch_size, progress)
        summarized = self._summarize(summarizer, progress) if summarizer is not None else 0
        images = (
            self._embed_images(image_embedder, batch_size, progress)
            if image_embedder is not None
            else 0
        )
        return EnrichmentReport(
            chunks_embedded=embedded,
            files_summarized=summarized,
            images_embedded=images,
            vectors_reset=reset,
            seconds=time.perf_counter() - started,
        )

    # -------------------------------------------------------------------------------- search

    def _vector_list(
        self, embedder: Embedder, vectors: QueryVectors, n: int, min_similarity: float | None
    ) -> list[tuple[int, float]]:
        table = vec_table(self._conn, "vec_text")
        stored = read_stamp(self._conn, "text")
        if table is None or stored is None or stored.stamp != stamp_text(embedder):
            return []  # no vectors, or vectors of another space: never compare across spaces
        ids, sims = knn(self._conn, table, vectors.of(embedder), n)
        keep = np.ones(len(ids), dtype=bool) if min_similarity is None else sims >= min_similarity
        return [(int(i), float(s)) for i, s in zip(ids[keep], sims[keep], strict=True)]

    def _image_list(
        self, image_embedder: ImageEmbedder, query: str, n: int
    ) -> list[tuple[int, float]]:
        conn = self._conn
        stored = read_stamp(conn, "image")
        if stored is None or stored.stamp != image_embedder.stamp:
            return []
        rows = conn.execute(
            "SELECT f.id, v.vector FROM files f JOIN image_vectors v "
            "ON v.content_hash = f.content_hash WHERE f.kind = 'image' ORDER BY f.id"
        ).fetchall()
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(
            len(rows), -1
        )
        q = np.asarray(image_embedder.embed_texts([query]), dtype=np.float32).reshape(-1)
        q = q / (np.linalg.norm(q) or 1.0)
        if q.shape[0] != matrix.shape[1]:
            return []
        scores = matrix @ q
        top = min(n, len(rows))
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.lexsort((best, -scores[best]))]
        return [(-int(rows[i][0]), float(scores[i])) for i in best]

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        embedder: Embedder | None = None,
        image_embedder: ImageEmbedder | None = None,
        per_path: int = 3,
        min_similarity: float | None = None,
        query_vectors: QueryVectors | None = None,
    ) -> list[SearchHit]:
        """Hybrid search: vector neighbours (when ``embedder`` matches the index's stamp) and
        FTS5 over symbols, names/summaries and chunks, fused by rank; overlapping locations
        merged; at most ``per_path`` hits per file.

        ``query_vectors`` shares the query's embedding with other indexes searched for it.
        """
        if not query.strip():
            raise InvalidInput("the search query is empty", reason="empty-query")
        if k <= 0 or per_path <= 0:
            raise InvalidInput("k and per_path must be positive", reason="invalid-limit")
        vectors = query_vectors_for(query, query_vectors)
        conn = self._conn
        n = max(4 * k, 40)
        lists: dict[str, list[tuple[int, float]]] = {}
        if embedder is not None:
            lists["vector"] = self._vector_list(embedder, vectors, n, min_similarity)
        match = fts_query(query)
        if match is not None:
            lists["symbol"] = [
                (int(chunk if chunk is not None else -file_id), -float(score))
                for file_id, chunk, score in conn.execute(
                    "SELECT s.file_id, (SELECT c.id FROM chunks c WHERE c.file_id = s.file_id "
                    "AND c.line_start <= s.line_start AND c.line_end >= s.line_start "
                    "ORDER BY c.line_start DESC LIMIT 1), bm25(symbols_fts) "
                    "FROM symbols_fts JOIN symbols s ON s.id = symbols_fts.rowid "
                    "WHERE symbols_fts MATCH ? ORDER BY bm25(symbols_fts) LIMIT ?",
                    (match, n),
                )
            ]
            lists["name"] = [
                (int(chunk if chunk is not None else -file_id), -float(score))
                for file_id, chunk, score in conn.execute(
                    "SELECT files_fts.rowid, (SELECT c.id FROM chunks c "
                    "WHERE c.file_id = files_fts.rowid ORDER BY c.ordinal LIMIT 1), "
                    "bm25(files_fts, 1.0, 2.0, 1.0) FROM files_fts WHERE files_fts MATCH ? "
                    "ORDER BY bm25(files_fts, 1.0, 2.0, 1.0) LIMIT ?",
                    (match, n),
                )
            ]
            lists["keyword"] = [
                (int(rowid), -float(score))
                for rowid, score in conn.execute(
                    "SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? "
                    "ORDER BY bm25(chunks_fts) LIMIT ?",
                    (match, n),
                )
            ]
        if image_embedder is not None:
            lists["image"] = self._image_list(image_embedder, query, n)
        names = [name for name, ranked in lists.items() if ranked]
        fused = reciprocal_rank_fusion(
            [[key for key, _ in lists[name]] for name in names],
            [_FUSION_WEIGHTS[name] for name in names],
        )
        signals: dict[int, list[Signal]] = {}
        for name in names:
            seen: set[int] = set()
            for position, (key, score) in enumerate(lists[name], start=1):
                if key not in seen:
                    seen.add(key)
                    signals.setdefault(key, []).append(Signal(name, position, score))
        return self._materialize([key for key, _ in fused], signals, k, per_path)

    def _materialize(
        self, keys: list[int], signals: dict[int, list[Signal]], k: int, per_path: int
    ) -> list[SearchHit]:
        conn = self._conn
        chunk_ids = [key for key in keys if key > 0]
        file_ids = [-key for key in keys if key < 0]
        chunks: dict[int, tuple[str, str, str, int, int, str]] = {}
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for cid, path, title, heading, ls, le, text in conn.execute(
                "SELECT c.id, f.path, f.title, c.heading, c.line_start, c.line_end, c.text "
                f"FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
                part,
            ):
                chunks[int(cid)] = (
                    str(path),
                    str(title),
                    str(heading),
                    int(ls),
                    int(le),
                    str(text),
                )
        files: dict[int, tuple[str, str, str]] = {}
        for start in range(0, len(file_ids), 500):
            part = file_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for fid, path, title, summary in conn.execute(
                f"SELECT id, path, title, summary FROM files WHERE id IN ({marks})", part
            ):
                files[int(fid)] = (str(path), str(title), str(summary))

        kept: list[_Kept] = []
        by_path: dict[str, list[_Kept]] = {}
        for key in keys:
            if key > 0:
                if key not in chunks:
                    continue
                path, title, heading, ls, le, text = chunks[key]
                span: tuple[int, int] | None = (ls, le)
                heading_path = tuple(heading.split(_HEADING_SEPARATOR)) if heading else ()
            else:
                if -key not in files:
                    continue
                path, title, text = files[-key]
                span = None
                heading_path = ()
            existing = by_path.setdefault(path, [])
            overlap = next((h for h in existing if _overlaps(h.span, span)), None)
            if overlap is not None:
                # The same location found again: its signals support the hit already kept.
                names = {s.name for s in overlap.signals}
                overlap.signals.extend(s for s in signals.get(key, []) if s.name not in names)
                continue
            if len(existing) >= per_path:
                continue
            hit = _Kept(path, title, text, span, heading_path, list(signals.get(key, [])))
            existing.append(hit)
            kept.append(hit)
            if len(kept) >= k:
                break
        return [
            SearchHit(
                source_kind="workspace",
                source=str(self.workspace),
                document_id=hit.path,
                title=hit.title,
                text=hit.text,
                citation=hit.path
                if hit.span is None
                else f"{hit.path}#line={hit.span[0]}-{hit.span[1]}",
                rank=position,
                relevance=relevance(position),
                heading_path=hit.heading_path,
                line_start=None if hit.span is None else hit.span[0],
                line_end=None if hit.span is None else hit.span[1],
                signals=tuple(sorted(hit.signals, key=lambda s: s.name)),
            )
            for position, hit in enumerate(kept)
        ]

    # -------------------------------------------------------------------------------- status

    def status(self) -> ContentStatus:
        """Counts of what the index holds and which embedder its vectors came from."""
        conn = self._conn

        def count(sql: str) -> int:
            return int(conn.execute(sql).fetchone()[0])

        stamp = read_stamp(conn, "text")
        table = vec_table(conn, "vec_text")
        return ContentStatus(
            workspace=str(self.workspace),
            database=str(self.db_path),
            files=count("SELECT count(*) FROM files"),
            chunks=count("SELECT count(*) FROM chunks"),
            chunks_embedded=count("SELECT count(*) FROM chunks WHERE embedded = 1"),
            symbols=count("SELECT count(*) FROM symbols"),
            summaries=count("SELECT count(*) FROM files WHERE summary != ''"),
            images=count("SELECT count(*) FROM files WHERE kind = 'image'"),
            images_embedded=count(
                "SELECT count(*) FROM files f JOIN image_vectors v "
                "ON v.content_hash = f.content_hash"
            ),
            text_stamp=None if stamp is None else stamp.stamp,
            vector_dimensions=None if table is None else table.dimensions,
            vector_metric=None if table is None else table.metric,
        )

    def imports(self, path: str) -> list[str]:
        """The modules a code file imports, as extracted by the structural pass."""
        return [
            str(r[0])
            for r in self._conn.execute(
                "SELECT i.module FROM imports i JOIN files f ON f.id = i.file_id "
                "WHERE f.path = ? ORDER BY i.module",
                (path,),
            )
        ]

    def symbols(self, path: str) -> list[Symbol]:
        """The symbols the structural pass extracted from a code file, in line order."""
        return [
            Symbol(str(n), str(q), str(kd), int(a), int(b))
            for n, q, kd, a, b in self._conn.execute(
                "SELECT s.name, s.qualname, s.kind, s.line_start, s.line_end FROM symbols s "
                "JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.line_start, s.id",
                (path,),
            )
        ]


def _overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Whether two line spans overlap; a whole-file hit (``None``) overlaps everything."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]


def index_workspace(
    workspace: Path | str,
    *,
    embedder: Embedder | None = None,
    summarizer: Summarizer | None = None,
    image_embedder: ImageEmbedder | None = None,
    db_path: Path | str | None = None,
    home: Path | str | None = None,
    options: IndexOptions | None = None,
    progress: ProgressSink | None = None,
) -> IndexReport:
    """Run the structural pass over ``workspace`` and, when given an embedder, summarizer or
    image embedder, the enrichment pass."""
    with ContentIndex(workspace, db_path=db_path, home=home, options=options) as index:
        structure = index.update(progress=progress)
        enrichment = None
        if embedder is not None or summarizer is not None or image_embedder is not None:
            enrichment = index.enrich(
                embedder, summarizer=summarizer, image_embedder=image_embedder, progress=progress
            )
        return IndexReport(
            workspace=str(index.workspace),
            database=str(index.db_path),
            structure=structure,
            enrichment=enrichment,
        )


def search_workspace(
    workspace: Path | str,
    query: str,
    *,
    embedder: Embedder | None = None,
    image_embedder: ImageEmbedder | None = None,
    k: int = 10,
    per_path: int = 3,
    min_similarity: float | None = None,
    db_path: Path | str | None = None,
    home: Path | str | None = None,
) -> list[SearchHit]:
    """Search the content index of ``workspace`` (built earlier by :func:`index_workspace`)."""
    root = Path(workspace).expanduser()
    path = Path(db_path) if db_path is not None else content_db_path(root, home)
    if not path.exists():
        raise NotFound(
            f"no content index for {root} at {path}; run 'gezel-knowledge index {root}' first",
            subject=str(path),
        )
    with ContentIndex(root, db_path=path) as index:
        return index.search(
            query,
            k=k,
            embedder=embedder,
            image_embedder=image_embedder,
            per_path=per_path,
            min_similarity=min_similarity,
        )
