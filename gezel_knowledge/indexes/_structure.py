"""The content index's structural pass (seed, "From a file to a searchable passage").

It needs no model: it discovers files (ignore rules, no binaries, no oversized files),
classifies them, gates on modification time and size and then on the SHA-256 of the content,
extracts symbols and imports, Markdown headings and document text, chunks text with the
workspace chunker, and removes the rows of deleted files. Files are written in batches, each in
its own transaction, so an interrupted pass keeps what it finished.

A workspace is untrusted input: one file that cannot be taken in never fails the run. It is
skipped with a note in :attr:`StructuralReport.skipped` (``(path, why)``) and the pass goes on:
``binary``, ``oversized``, ``unreadable`` (it vanished or cannot be opened), ``too-large``
(a document expanding beyond its budget), ``unparseable`` (anything its reader raised, a parser
giving up on ``a+a+...`` included), and from the walk ``name-not-utf8`` and
``ignore-file-too-large``.
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gezel_knowledge._rows import fetch_all
from gezel_knowledge._untrusted import read_bounded
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes._chunker import (
    WORKSPACE_CHUNKER,
    WorkspaceChunk,
    chunk_text,
    markdown_headings,
)
from gezel_knowledge.indexes._content_schema import HEADING_SEPARATOR
from gezel_knowledge.indexes._content_types import IndexOptions, StructuralReport
from gezel_knowledge.indexes._convert import DocumentTooLarge, document_text
from gezel_knowledge.indexes._discover import FileClass, FoundFile, classify, discover, looks_binary
from gezel_knowledge.indexes._storage import read_meta, transaction, write_meta
from gezel_knowledge.indexes._symbols import Symbol, extract_symbols
from gezel_knowledge.indexes._text import split_identifier_words
from gezel_knowledge.indexes._vectors import vec_table
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely

__all__ = ["StructuralPass", "sha256_hex"]

_EXTRACTOR_VERSION = 1  # bump when symbol/heading/document extraction changes its output
_BINARY_CLASSES: frozenset[str] = frozenset({"document", "image", "audio"})


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of ``data`` (the content hash of a file)."""
    return hashlib.sha256(data).hexdigest()


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


@dataclass(slots=True)
class _Extracted:
    kind: FileClass
    language: str | None
    title: str
    chunks: list[WorkspaceChunk] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Known:
    """A ``files`` row as the change gate reads it."""

    id: int
    size: int
    mtime_ns: int
    content_hash: str


class StructuralPass:
    """One run of the structural pass over a workspace into an open content index."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        workspace: Path,
        options: IndexOptions,
        progress: ProgressSink | None = None,
    ) -> None:
        self._conn = conn
        self._workspace = workspace
        self._options = options
        self._progress = progress
        self._has_vectors = vec_table(conn, "vec_text") is not None
        self._pending: list[Callable[[], object]] = []
        self._processed: list[str] = []
        self._touched: list[str] = []
        self._removed: list[str] = []
        self._skipped: list[tuple[str, str]] = []
        self._unchanged = 0
        self._chunks_written = 0

    def _structure_key(self) -> str:
        o = self._options
        return f"{WORKSPACE_CHUNKER}:{o.chunk_chars}:{o.chunk_overlap}:extract@{_EXTRACTOR_VERSION}"

    def run(self) -> StructuralReport:
        """Bring files, chunks, symbols and imports up to date with the workspace."""
        started = time.perf_counter()
        self._reset_if_rules_changed()
        known = self._known()
        emit_safely(self._progress, ProgressEvent(job="index", step="discover"))
        found_files = list(
            discover(
                self._workspace,
                extra_ignores=self._options.extra_ignores,
                on_skip=lambda path, why: self._skipped.append((path, why)),
            )
        )
        total = len(found_files)
        for done, found in enumerate(found_files, start=1):
            self._visit(found, known.get(found.path))
            if len(self._pending) >= self._options.batch_files:
                self._flush()
            if done % 64 == 0 or done == total:
                event = ProgressEvent(
                    job="index", step="structure", done=done, total=total, unit="files"
                )
                emit_safely(self._progress, event)
        seen = {f.path for f in found_files}
        for path, row in known.items():
            if path not in seen:
                self._removed.append(path)
                self._pending.append(functools.partial(self._remove_file, row.id))
        self._flush()
        with transaction(self._conn):
            self._conn.execute(
                "DELETE FROM image_vectors WHERE content_hash NOT IN "
                "(SELECT content_hash FROM files WHERE kind = 'image')"
            )
        return StructuralReport(
            files_seen=total,
            unchanged=self._unchanged,
            processed=tuple(self._processed),
            touched=tuple(self._touched),
            removed=tuple(sorted(self._removed)),
            skipped=tuple(self._skipped),
            chunks_written=self._chunks_written,
            seconds=time.perf_counter() - started,
        )

    def _reset_if_rules_changed(self) -> None:
        structure = self._structure_key()
        if read_meta(self._conn).get("structure") != structure:
            # Chunking or extraction rules changed: every file must be processed again.
            with transaction(self._conn):
                self._conn.execute("UPDATE files SET mtime_ns = -1, content_hash = ''")
                write_meta(self._conn, {"structure": structure})

    def _known(self) -> dict[str, _Known]:
        rows = fetch_all(self._conn, "SELECT id, path, size, mtime_ns, content_hash FROM files")
        return {
            str(r["path"]): _Known(
                int(r["id"]), int(r["size"]), int(r["mtime_ns"]), str(r["content_hash"])
            )
            for r in rows
        }

    def _flush(self) -> None:
        if self._pending:
            with transaction(self._conn):
                for write in self._pending:
                    write()
            self._pending.clear()

    def _visit(self, found: FoundFile, row: _Known | None) -> None:
        """Queue what one discovered file needs: nothing, a stat update, a rewrite, a removal."""
        if row is not None and row.size == found.size and row.mtime_ns == found.mtime_ns:
            self._unchanged += 1
            return
        outcome = self._examine(found, row)
        if isinstance(outcome, str):
            self._skipped.append((found.path, outcome))
            if row is not None:
                self._removed.append(found.path)
                self._pending.append(functools.partial(self._remove_file, row.id))
        elif outcome is None:
            assert row is not None
            self._touched.append(found.path)
            self._pending.append(
                functools.partial(
                    self._conn.execute,
                    "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?",
                    (found.size, found.mtime_ns, row.id),
                )
            )
        else:
            digest, extracted = outcome
            self._processed.append(found.path)
            self._chunks_written += len(extracted.chunks)
            file_id = None if row is None else row.id
            self._pending.append(
                functools.partial(self._write_file, file_id, found, digest, extracted)
            )

    def _examine(self, found: FoundFile, row: _Known | None) -> str | tuple[str, _Extracted] | None:
        """A skip reason, ``None`` for same content (only the stat changed), or new content."""
        o = self._options
        kind, language = classify(found.path)
        if kind == "other":
            return "binary"
        limit = o.max_binary_bytes if kind in _BINARY_CLASSES else o.max_text_bytes
        if found.size > limit:
            return "oversized"
        try:
            # Opened without blocking and checked on the descriptor: a file replaced by a FIFO
            # since the walk is refused, not waited on.
            data = read_bounded(self._workspace / found.path, "workspace file", limit=limit)
        except InvalidInput as exc:
            return "oversized" if exc.reason == "input-too-large" else "unreadable"
        digest = sha256_hex(data)
        if row is not None and row.content_hash == digest:
            return None
        try:
            extracted = self._extract(found, kind, language, data)
        except DocumentTooLarge:
            return "too-large"
        except Exception:
            # One hostile file (a parser giving up, an extractor's bug) is skipped with a note,
            # never the end of the run. RecursionError and MemoryError are Exceptions too.
            return "unparseable"
        if extracted is None:
            return "binary"
        return digest, extracted

    def _extract(
        self, found: FoundFile, kind: FileClass, language: str | None, data: bytes
    ) -> _Extracted | None:
        """Searchable structure of one file; ``None`` when it turns out to be binary."""
        name = found.path.rsplit("/", 1)[-1]
        o = self._options
        if kind in ("image", "audio"):
            # Found by name now; the enrichment pass adds a description or transcript.
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

    # -- writes (run inside a batch transaction) ---------------------------------------------

    def _delete_content(self, file_id: int) -> None:
        conn = self._conn
        if self._has_vectors:
            rows = fetch_all(
                conn, "SELECT id FROM chunks WHERE file_id = ? AND embedded = 1", (file_id,)
            )
            conn.executemany("DELETE FROM vec_text WHERE rowid = ?", [(r["id"],) for r in rows])
        conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM symbols WHERE file_id = ?", (file_id,))
        conn.execute("DELETE FROM imports WHERE file_id = ?", (file_id,))

    def _remove_file(self, file_id: int) -> None:
        self._delete_content(file_id)
        self._conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def _upsert_file(
        self, file_id: int | None, found: FoundFile, content_hash: str, ex: _Extracted
    ) -> int:
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
            cursor = self._conn.execute(
                "INSERT INTO files (kind, language, size, mtime_ns, content_hash, name_words, "
                "title, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, found.path),
            )
            return int(cursor.lastrowid or 0)
        self._delete_content(file_id)
        self._conn.execute(
            "UPDATE files SET kind = ?, language = ?, size = ?, mtime_ns = ?, "
            "content_hash = ?, name_words = ?, title = ?, summary = '', summary_hash = NULL "
            "WHERE id = ?",
            (*values, file_id),
        )
        return file_id

    def _write_file(
        self, file_id: int | None, found: FoundFile, content_hash: str, ex: _Extracted
    ) -> int:
        conn = self._conn
        file_id = self._upsert_file(file_id, found, content_hash, ex)
        conn.executemany(
            "INSERT INTO chunks (file_id, ordinal, heading, line_start, line_end, char_start, "
            "char_end, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    file_id,
                    c.ordinal,
                    HEADING_SEPARATOR.join(c.heading_path),
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
