"""The memory index: recall over daily memory files (seed, "Mutable vector search", "Memory
recall has an additional time dimension").

The daily Markdown files under ``<home>/memory/`` are the source of truth (format in
:mod:`._memory_format`); the index at ``<home>/indexes/memory.db`` holds a ``mem`` table (text,
scope, date, kind), an FTS5 table over it and a sqlite-vec ``vec_mem`` table joined by rowid,
and can be rebuilt from the files at any time.

Recall is hybrid: FTS5 keyword matches and vector neighbours fused by reciprocal rank
(:mod:`._memory_search`). For
*automatic* recall (context a session pulls in unasked), ``status`` notes decay with age,
``weight = 0.5 ** (age_days / STATUS_HALF_LIFE_DAYS)``, while facts, decisions and preferences
keep their full weight; an explicit search ranks without decay. Every hit carries its date,
scope and kind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge._faults import storage_faults
from gezel_knowledge._locking import FileLock
from gezel_knowledge._untrusted import check_count, check_text, read_bounded
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.fusion import RRF, FusionPreset
from gezel_knowledge.indexes._home import memory_db_path, memory_dir
from gezel_knowledge.indexes._memory_format import (
    MemoryEntry,
    format_entry,
    parse_memory_file,
    validate_kind,
    validate_scope,
)
from gezel_knowledge.indexes._memory_search import (
    STATUS_HALF_LIFE_DAYS,
    MemoryQuery,
    decay_weight,
    search_memory,
)
from gezel_knowledge.indexes._storage import (
    IndexSchema,
    StoredStamp,
    open_index,
    read_stamp,
    stamp_text,
    transaction,
    write_stamp,
)
from gezel_knowledge.indexes._text import FTS_TOKENIZER
from gezel_knowledge.indexes._vectors import (
    create_vec_table,
    drop_vec_table,
    store_pending_vectors,
    vec_table,
)
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezel_knowledge.query import QueryVectors, check_min_similarity, query_vectors_for
from gezel_knowledge.rerank import Reranker, rerank_depth, rerank_result
from gezel_knowledge.results import SearchMode, SearchResult

__all__ = [
    "MAX_DAY_FILE_BYTES",
    "MEMORY_SCHEMA_VERSION",
    "STATUS_HALF_LIFE_DAYS",
    "MemoryIndex",
    "MemorySyncReport",
    "decay_weight",
]

MEMORY_SCHEMA_VERSION = 1
MAX_DAY_FILE_BYTES = 16 * 1024 * 1024
"""A daily memory file larger than this is not read: sync skips it with a note, and adding to it
is refused (``input-too-large``). A day of notes is a few kilobytes."""
_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")

_SCHEMA = IndexSchema(
    kind="memory",
    version=MEMORY_SCHEMA_VERSION,
    statements=(
        "CREATE TABLE mem_files (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
        "size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, content_hash TEXT NOT NULL)",
        "CREATE TABLE mem (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, date TEXT NOT NULL, "
        "kind TEXT NOT NULL, scope TEXT NOT NULL, text TEXT NOT NULL, "
        "line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, "
        "embedded INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX mem_by_file ON mem (file_id)",
        "CREATE INDEX mem_pending ON mem (id) WHERE embedded = 0",
        f"CREATE VIRTUAL TABLE mem_fts USING fts5(text, scope, content='mem', "
        f"content_rowid='id', tokenize='{FTS_TOKENIZER}')",
        "CREATE TRIGGER mem_ai AFTER INSERT ON mem BEGIN "
        "INSERT INTO mem_fts (rowid, text, scope) VALUES (new.id, new.text, new.scope); END",
        "CREATE TRIGGER mem_ad AFTER DELETE ON mem BEGIN "
        "INSERT INTO mem_fts (mem_fts, rowid, text, scope) "
        "VALUES ('delete', old.id, old.text, old.scope); END",
    ),
)


@dataclass(frozen=True, slots=True)
class MemorySyncReport:
    """What a sync or rebuild did."""

    files_seen: int
    files_indexed: tuple[str, ...]
    files_removed: tuple[str, ...]
    entries: int
    entries_embedded: int
    seconds: float
    files_skipped: tuple[tuple[str, str], ...] = ()
    """``(file name, why)`` of day files left unread: ``oversized`` (over
    :data:`MAX_DAY_FILE_BYTES`) or ``unreadable`` (gone, or no regular file)."""


class MemoryIndex:
    """Daily memory files and their index under one Gezel home."""

    def __init__(
        self,
        home: Path | str | None = None,
        *,
        db_path: Path | str | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.folder = memory_dir(home)
        self.db_path = Path(db_path) if db_path is not None else memory_db_path(home)
        self.embedder = embedder
        self._conn = open_index(self.db_path, _SCHEMA)

    def _faults(self, doing: str) -> contextlib.AbstractContextManager[None]:
        """Machine faults (a full disk, a read-only home, a lock held) as
        :class:`~gezel_knowledge.errors.StorageUnavailable` naming the file; the daily files and
        the index keep what they held before the failed write."""
        return storage_faults(self.db_path, f"{doing} the memory index")

    def close(self) -> None:
        """Close the database connection."""
        self._conn.close()

    def __enter__(self) -> MemoryIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------- writing

    def add(
        self,
        text: str,
        *,
        kind: str = "fact",
        scope: str = "project",
        day: date | None = None,
    ) -> MemoryEntry:
        """Append an entry to the day's file (atomically: temp file + rename) and index it.

        ``text`` must be valid Unicode (``invalid-unicode``); a day file over
        :data:`MAX_DAY_FILE_BYTES` is not added to (``input-too-large``). A full disk or a
        read-only home is a :class:`~gezel_knowledge.errors.StorageUnavailable` naming the
        file, and the day's file keeps what it held.
        """
        check_text(text, "the memory text")
        entry_text = format_entry(text, kind, scope)
        day = day or date.today()
        path = self.folder / f"{day.isoformat()}.md"
        # Writers of the memory folder take turns (another process may append to the same day).
        with storage_faults(path, "add to the memory file"):
            self.folder.mkdir(parents=True, exist_ok=True)
            with FileLock(self.folder / ".lock", timeout=None):
                existing = self._day_bytes(path)
                if not existing.strip():
                    existing = f"# {day.isoformat()}\n\n".encode()
                elif not existing.endswith(b"\n"):
                    existing += b"\n"
                data = existing + entry_text.encode("utf-8")
                write_atomic(path, data)
        self.sync()
        entries = parse_memory_file(day, data.decode("utf-8", errors="replace"))
        return entries[-1]

    @staticmethod
    def _day_bytes(path: Path) -> bytes:
        """A day file's bytes (``b""`` when there is none yet), refused past the size limit."""
        if not path.exists():
            return b""
        return read_bounded(path, "the memory file", limit=MAX_DAY_FILE_BYTES)

    # ------------------------------------------------------------------------------ indexing

    def _day_files(self) -> dict[str, tuple[Path, date, os.stat_result]]:
        found: dict[str, tuple[Path, date, os.stat_result]] = {}
        if not self.folder.is_dir():
            return found
        for entry in os.scandir(self.folder):
            match = _DAY_FILE.match(entry.name)
            if not match or not entry.is_file(follow_symlinks=False):
                continue
            try:
                day = date.fromisoformat(match.group(1))
            except ValueError:
                continue
            found[entry.name] = (Path(entry.path), day, entry.stat(follow_symlinks=False))
        return found

    def _delete_file_rows(self, file_id: int) -> None:
        conn = self._conn
        if vec_table(conn, "vec_mem") is not None:
            conn.executemany(
                "DELETE FROM vec_mem WHERE rowid = ?",
                [
                    (int(r[0]),)
                    for r in conn.execute(
                        "SELECT id FROM mem WHERE file_id = ? AND embedded = 1", (file_id,)
                    )
                ],
            )
        conn.execute("DELETE FROM mem WHERE file_id = ?", (file_id,))

    def sync(self, *, progress: ProgressSink | None = None) -> MemorySyncReport:
        """Bring the index up to date with the daily files (changed files only), then embed
        entries that have no vector yet when an embedder is set. A day file that cannot be read
        (over :data:`MAX_DAY_FILE_BYTES`, or no regular file) is skipped with a note."""
        with self._faults("write"):
            return self._sync(progress)

    def _sync(self, progress: ProgressSink | None) -> MemorySyncReport:
        started = time.perf_counter()
        skipped: list[tuple[str, str]] = []
        conn = self._conn
        files = self._day_files()
        indexed: list[str] = []
        with transaction(conn):
            # Read under the write lock: a concurrent sync (another writer adding memory) may
            # have indexed these files since this one started.
            known = {
                str(name): (int(fid), int(size), int(mtime), str(digest))
                for fid, name, size, mtime, digest in conn.execute(
                    "SELECT id, name, size, mtime_ns, content_hash FROM mem_files"
                )
            }
            removed = sorted(set(known) - set(files))
            for name in removed:
                self._delete_file_rows(known[name][0])
                conn.execute("DELETE FROM mem_files WHERE id = ?", (known[name][0],))
            for name in sorted(files):
                path, day, st = files[name]
                row = known.get(name)
                if row is not None and row[1] == st.st_size and row[2] == st.st_mtime_ns:
                    continue
                try:
                    data = read_bounded(path, "the memory file", limit=MAX_DAY_FILE_BYTES)
                except InvalidInput as exc:
                    why = "oversized" if exc.reason == "input-too-large" else "unreadable"
                    skipped.append((name, why))
                    continue
                digest = hashlib.sha256(data).hexdigest()
                if row is not None and row[3] == digest:
                    conn.execute(
                        "UPDATE mem_files SET size = ?, mtime_ns = ? WHERE id = ?",
                        (st.st_size, st.st_mtime_ns, row[0]),
                    )
                    continue
                if row is None:
                    cursor = conn.execute(
                        "INSERT INTO mem_files (name, size, mtime_ns, content_hash) "
                        "VALUES (?, ?, ?, ?)",
                        (name, st.st_size, st.st_mtime_ns, digest),
                    )
                    file_id = int(cursor.lastrowid or 0)
                else:
                    file_id = row[0]
                    self._delete_file_rows(file_id)
                    conn.execute(
                        "UPDATE mem_files SET size = ?, mtime_ns = ?, content_hash = ? "
                        "WHERE id = ?",
                        (st.st_size, st.st_mtime_ns, digest, file_id),
                    )
                entries = parse_memory_file(day, data.decode("utf-8", errors="replace"))
                conn.executemany(
                    "INSERT INTO mem (file_id, date, kind, scope, text, line_start, line_end) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (file_id, e.date, e.kind, e.scope, e.text, e.line_start, e.line_end)
                        for e in entries
                    ],
                )
                indexed.append(name)
        emit_safely(
            progress,
            ProgressEvent(
                job="memory", step="sync", done=len(files), total=len(files), unit="files"
            ),
        )
        embedded = self._embed_pending(progress) if self.embedder is not None else 0
        count = int(conn.execute("SELECT count(*) FROM mem").fetchone()[0])
        return MemorySyncReport(
            files_seen=len(files),
            files_indexed=tuple(indexed),
            files_removed=tuple(removed),
            entries=count,
            entries_embedded=embedded,
            seconds=time.perf_counter() - started,
            files_skipped=tuple(skipped),
        )

    def rebuild(self, *, progress: ProgressSink | None = None) -> MemorySyncReport:
        """Throw the index away and build it again from the daily files."""
        conn = self._conn
        with self._faults("write"), transaction(conn):
            drop_vec_table(conn, "vec_mem")
            write_stamp(conn, "memory", None)
            conn.execute("DELETE FROM mem")
            conn.execute("DELETE FROM mem_files")
            conn.execute("INSERT INTO mem_fts (mem_fts) VALUES ('rebuild')")
        return self.sync(progress=progress)

    def _embed_pending(self, progress: ProgressSink | None, batch_size: int = 64) -> int:
        embedder = self.embedder
        assert embedder is not None
        conn = self._conn
        stamp = stamp_text(embedder)
        dims = int(embedder.profile.dimensions)

        def stale() -> bool:
            stored = read_stamp(conn, "memory")
            table = vec_table(conn, "vec_mem")
            return (
                table is None or stored is None or stored.stamp != stamp or table.dimensions != dims
            )

        if stale():
            # Memory vectors are rebuilt from the files' text, so a new embedder (even one of
            # other dimensions) simply gets a fresh table.
            with transaction(conn):
                # Checked again under the write lock: another writer with this embedder may
                # have made the table since, and dropping it would throw its vectors away.
                if stale():
                    drop_vec_table(conn, "vec_mem")
                    create_vec_table(conn, "vec_mem", dims)
                    conn.execute("UPDATE mem SET embedded = 0 WHERE embedded != 0")
                    write_stamp(conn, "memory", StoredStamp(stamp, dims))
        total = int(conn.execute("SELECT count(*) FROM mem WHERE embedded = 0").fetchone()[0])
        done = 0
        while True:
            rows = conn.execute(
                "SELECT id, text FROM mem WHERE embedded = 0 ORDER BY id LIMIT ?", (batch_size,)
            ).fetchall()
            if not rows:
                break
            vectors = np.ascontiguousarray(
                embedder.embed_passages([str(r[1]) for r in rows]), dtype=np.float32
            )
            with transaction(conn):
                stored = store_pending_vectors(
                    conn, vec="vec_mem", table="mem", columns="text", rows=rows, vectors=vectors
                )
            done += stored
            emit_safely(
                progress,
                ProgressEvent(job="memory", step="embed", done=done, total=total, unit="entries"),
            )
        return done

    # -------------------------------------------------------------------------------- recall

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        min_similarity: float | None = None,
        fusion: FusionPreset | None = None,
        query_vectors: QueryVectors | None = None,
        reranker: Reranker | None = None,
        scopes: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        automatic: bool = False,
        today: date | None = None,
    ) -> SearchResult:
        """Hybrid keyword + vector recall; with ``automatic`` status notes decay with age.

        Vector neighbours below the embedding profile's measured cosine floor are dropped (an
        unrelated entry is still somebody's nearest neighbour); ``min_similarity`` replaces the
        floor (``-1`` keeps every neighbour).

        Keyword and vector lists are fused with the ``rrf`` preset unless ``fusion`` says
        otherwise. When the embedder cannot embed the query, keywords answer alone and the
        result says why. ``query_vectors`` shares the query's embedding with other sources.
        """
        check_text(query, "the search query")
        if not query.strip():
            raise InvalidInput("the search query is empty", reason="empty-query")
        check_count(k, "k")
        if k <= 0:
            raise InvalidInput("k must be positive", reason="invalid-limit")
        check_min_similarity(min_similarity)
        recall = MemoryQuery(
            text=query,
            vectors=query_vectors_for(query, query_vectors),
            k=rerank_depth(k, reranker),
            mode=mode,
            fusion=fusion or RRF,
            embedder=self.embedder,
            min_similarity=min_similarity,
            scopes=frozenset(validate_scope(s) for s in scopes) if scopes else None,
            kinds=frozenset(validate_kind(kd) for kd in kinds) if kinds else None,
            today=(today or date.today()) if automatic else None,
        )
        with self._faults("search"):
            found = search_memory(self._conn, str(self.folder), recall)
        return rerank_result(reranker, found, k)

    def recall(
        self,
        query: str,
        *,
        k: int = 5,
        scopes: Sequence[str] | None = None,
        today: date | None = None,
    ) -> SearchResult:
        """Automatic recall: :meth:`search` with status notes decaying by age."""
        return self.search(query, k=k, scopes=scopes, automatic=True, today=today)

    def entries(self, day: date) -> list[MemoryEntry]:
        """The entries of one day's file, parsed from the file itself."""
        path = self.folder / f"{day.isoformat()}.md"
        data = self._day_bytes(path)
        return parse_memory_file(day, data.decode("utf-8", errors="replace")) if data else []
