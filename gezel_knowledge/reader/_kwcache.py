"""Where a catalog's keyword indexes come from: loaded from the cache, or built off the query path.

One file per shard, ``shard-NNN.gzkw``, in the catalog's derived folder: for a ``.gezk`` opened
by path, ``<extraction cache>/.keyword/<archive digest>`` beside its extraction (pruned with
it); otherwise ``<GEZEL_HOME>/cache/keyword/<archive digest>`` (an installed catalog's, removed
when the version is), or ``.../keyword/dir-<digest of the folder's path>`` for an extracted
folder opened as it is. A file is used only when its header names this shard of these bytes
built this way; anything else is rebuilt.

A shard of fewer than :data:`SYNC_BUILD_MAX_CHUNKS` passages is indexed on its first search
(at most a fraction of a second, once), so a small catalog answers its first search and every
later one alike. A larger shard is indexed on a background thread from its second search
through a handle, while its searches run on FTS5 until the index is ready. Builders take the
file's lock, so two processes building at once leave one good copy; a folder that cannot be
written keeps the index in memory for the handle's life.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import logging
import mmap
import os
import sqlite3
import threading
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

import numpy as np
import snowballstemmer
from numpy.typing import NDArray

from gezel_knowledge._locking import FileLock, LockTimeout
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.cjk import CJK_GLOB, JOINED, has_cjk, token_keys
from gezel_knowledge.home import gezel_home
from gezel_knowledge.reader._fold import fold_term
from gezel_knowledge.reader._kwfile import IndexRefused, read_index, write_index
from gezel_knowledge.reader._kwindex import K1, B, KeywordIndex, build_index, docsize_lengths
from gezel_knowledge.reader._kwkeys import term_keys
from gezel_knowledge.reader._kwscoped import INSTANCES, scoped_index
from gezel_knowledge.reader._rows import ShardInfo
from gezel_knowledge.stemming import snowball_algorithm, stemmer_for
from gezk.manifest import CatalogManifest

__all__ = [
    "KEYWORD_INDEX_ENV",
    "SYNC_BUILD_MAX_CHUNKS",
    "KeywordIndexes",
    "default_derived_dir",
    "keyword_cache_root",
]

KEYWORD_INDEX_ENV: Final = "GEZEL_KNOWLEDGE_KEYWORD_INDEX"
"""``off`` keeps passage keyword search on FTS5 alone (the reference path)."""

SYNC_BUILD_MAX_CHUNKS: Final = 20_000
"""Shards smaller than this are indexed on their first search; larger ones in the background."""

_KeyMap = tuple[list[str], list[int], list[int], list[int], list[str]]
"""Sorted keys, each key's range of pairs, each pair's term and repeats, the terms."""

_MAX_CJK_VARIANTS: Final = 4096
"""Vocabulary terms a CJK key stands for in an FTS5 query at most (as for stem variants)."""

_LOCK_TIMEOUT: Final = 600.0
_BUILD_AFTER_SEARCHES: Final = 2  # as for the compiled vector kernels: a shard searched again
_log = logging.getLogger("gezel_knowledge.reader")


def keyword_cache_root() -> Path:
    """``<GEZEL_HOME>/cache/keyword``: indexes of installed catalogs and of plain folders."""
    return gezel_home() / "cache" / "keyword"


def default_derived_dir(root: Path, archive_sha256: str | None) -> Path:
    """The derived folder of a catalog not opened through the extraction cache."""
    if archive_sha256:
        return keyword_cache_root() / archive_sha256
    folder = hashlib.sha256(str(Path(root).resolve()).encode("utf-8")).hexdigest()[:32]
    return keyword_cache_root() / f"dir-{folder}"


def _disabled() -> bool:
    return os.environ.get(KEYWORD_INDEX_ENV, "").strip().lower() in {"off", "0", "fts5"}


def build_connection(path: Path) -> sqlite3.Connection:
    """A read-only connection of the builder's own (it creates a temporary vocabulary table)."""
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA trusted_schema = OFF")
    # FTS5 cuts a token at 32,768 bytes, possibly inside a character: such a vocabulary term is
    # no UTF-8, and sqlite3 would refuse to read it (and so every search of a CJK question).
    conn.text_factory = _lenient_text
    return conn


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class KeywordIndexes:
    """A catalog handle's keyword indexes, one per shard, loaded or built on demand."""

    def __init__(
        self,
        root: Path,
        manifest: CatalogManifest,
        archive_sha256: str | None,
        derived_dir: Path | None,
    ) -> None:
        self.root = root
        self.manifest = manifest
        self.archive_sha256 = archive_sha256
        self.folder = derived_dir or default_derived_dir(root, archive_sha256)
        self.algorithm = snowball_algorithm(manifest.language)
        self.stem = stemmer_for(manifest.language)
        self._declared = {f.path: f.sha256 for f in manifest.files}
        self._ready: dict[int, KeywordIndex] = {}
        self._maps: list[mmap.mmap] = []
        self._failed: set[int] = set()
        self._threads: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()
        self._asked: dict[int, int] = {}
        self._variants: dict[tuple[str, str, str], list[str]] = {}
        self._vocab: dict[tuple[str, str], sqlite3.Connection] = {}
        self._cjk_terms: dict[tuple[str, str], list[str]] = {}
        self._lengths: dict[int, tuple[NDArray[np.uint32], int]] = {}
        self._key_maps: dict[tuple[str, str], _KeyMap] = {}
        self._large: set[tuple[str, str]] = set()

    def path_of(self, shard: ShardInfo) -> Path:
        """The shard's cache file."""
        return self.folder / f"shard-{shard.id:03d}.gzkw"

    def identity(self, shard: ShardInfo) -> dict[str, Any]:
        """What a cache file must say to be this shard's index."""
        stat = self._shard_file(shard).stat()
        return {
            "archive_sha256": self.archive_sha256,
            "shard_id": shard.id,
            "shard_path": shard.path,
            "shard_sha256": self._declared.get(shard.path),
            "shard_bytes": stat.st_size,
            "shard_mtime_ns": stat.st_mtime_ns,
            "chunk_count": shard.chunk_count,
            "stemmer": self.algorithm,
            "snowball": snowballstemmer.__name__ + "@" + _snowball_version(),
            "bm25": {"k1": K1, "b": B, "weights": [1.0, 1.0, 1.0]},
        }

    def _shard_file(self, shard: ShardInfo) -> Path:
        return self.root.joinpath(*shard.path.split("/"))

    # -- getting an index --------------------------------------------------------------------

    def get(
        self, shard: ShardInfo, *, wait: bool = False, start: bool = False
    ) -> KeywordIndex | None:
        """The shard's index if it can be had now (a small shard's is built at once); else
        ``None``, starting its build in the background when the shard is searched again
        through this handle or ``start`` asks (``wait``: build it now).

        A one-shot search of a large shard (a CLI call) thus never spends its CPU on a build
        its process would not live to use."""
        if _disabled() or shard.chunk_count == 0:
            return None
        with self._lock:
            self._asked[shard.id] = self._asked.get(shard.id, 0) + 1
            start = start or self._asked[shard.id] >= _BUILD_AFTER_SEARCHES
            found = self._ready.get(shard.id)
            if found is not None or shard.id in self._failed:
                return found
            thread = self._threads.get(shard.id)
        if thread is not None:
            if not wait:
                return None
            thread.join()
            with self._lock:
                return self._ready.get(shard.id)
        loaded = self._load(shard)
        if loaded is not None:
            return loaded
        if wait or shard.chunk_count < SYNC_BUILD_MAX_CHUNKS:
            self._build(shard)
            with self._lock:
                return self._ready.get(shard.id)
        if not start:
            return None
        with self._lock:
            if shard.id not in self._threads:
                thread = threading.Thread(
                    target=self._build, args=(shard,), name="gezel-knowledge-keyword", daemon=True
                )
                self._threads[shard.id] = thread
                thread.start()
        return None

    def discard(self, shard: ShardInfo) -> None:
        """Forget a shard's index found damaged while searching and delete its file; the
        next search builds it again."""
        with self._lock:
            self._ready.pop(shard.id, None)
            self._threads.pop(shard.id, None)
        _log.warning("keyword index of shard %s was damaged; it is built again", shard.id)
        with contextlib.suppress(OSError):
            self.path_of(shard).unlink()

    def _load(self, shard: ShardInfo) -> KeywordIndex | None:
        try:
            built, mapped = read_index(self.path_of(shard), self.identity(shard))
        except IndexRefused:
            return None
        except OSError:
            return None
        index = KeywordIndex(built, stemmed=self.stem is not None)
        with self._lock:
            self._maps.append(mapped)
            self._ready[shard.id] = index
        return index

    def _build(self, shard: ShardInfo) -> None:
        try:
            index = self._built(shard)
        except Exception as exc:  # the index is an accelerator: FTS5 answers without it
            _log.warning(
                "keyword index of shard %s not built, FTS5 answers instead: %s",
                shard.id,
                " ".join(f"{type(exc).__name__}: {exc}".split()),
            )
            with self._lock:
                self._failed.add(shard.id)
            return
        with self._lock:
            self._ready[shard.id] = index

    def _built(self, shard: ShardInfo) -> KeywordIndex:
        path = self.path_of(shard)
        try:
            lock = FileLock(path.with_name(path.name + ".lock"), timeout=_LOCK_TIMEOUT)
            lock.acquire()
        except (OSError, LockTimeout):
            lock = None  # no writable cache: build for this handle only
        try:
            if lock is not None:
                # Another process may have built it while this one waited for the lock.
                with contextlib.suppress(IndexRefused, OSError):
                    built, mapped = read_index(path, self.identity(shard))
                    with self._lock:
                        self._maps.append(mapped)
                    return KeywordIndex(built, stemmed=self.stem is not None)
            conn = build_connection(self._shard_file(shard))
            try:
                built = build_index(conn, self.stem)
            finally:
                conn.close()
            if lock is not None:
                try:
                    write_index(path, built, self.identity(shard))
                except OSError as exc:
                    _log.warning("keyword index of shard %s kept in memory: %s", shard.id, exc)
            return KeywordIndex(built, stemmed=self.stem is not None, verified=True)
        finally:
            if lock is not None:
                lock.release()

    def passages_with(self, shard: ShardInfo, token: str) -> int | None:
        """Passages of ``shard`` holding the folded ``token`` or a word of its stem, from the
        shard's index when it is loaded (``None`` when not: nothing is built for it)."""
        with self._lock:
            index = self._ready.get(shard.id)
        if index is None:
            return None
        keys = token_keys(token, self.stem)
        if len(keys) != 1:
            return None  # a token of several keys: counted by FTS5
        term_id = index.term_id(keys[0])
        return 0 if term_id is None else index.df(term_id)

    # -- the FTS5 fallback's view of stems ------------------------------------------------------

    def variants(self, shard: ShardInfo, term: str, *, joined: bool = False) -> list[str]:
        """The shard's vocabulary terms sharing ``term``'s stem (``[term]`` when unstemmed, a
        phrase, or none found), for an FTS5 search that should rank as the index does; with
        ``joined`` (a question holding CJK characters), also the terms joining a word of that
        stem to CJK characters."""
        with self._lock:
            index = self._ready.get(shard.id)
        indexes = [] if index is None else [index]
        self._note_size(shard)
        if has_cjk(term):
            return self._cjk_variants(indexes, self._shard_file(shard), "fts_chunks", term)
        if index is not None and self.stem is not None and " " not in term:
            found = self._indexed_variants([index], term)
        else:
            found = self._variants_in(self._shard_file(shard), "fts_chunks", term)
        if joined:
            found = self._joined_variants(
                indexes, self._shard_file(shard), "fts_chunks", term, found
            )
        return found

    def title_variants(self, term: str, *, joined: bool = False) -> list[str]:
        """The same over the titles, summaries and aliases (the router's ``fts_documents``).

        Every passage carries its document's title, so the shards' indexes know the titles'
        words: their variant lists answer at once; the vocabulary is read only without them.
        """
        with self._lock:
            ready = list(self._ready.values())
        router = self.root / ROUTER_PATH
        # CJK keys stand for the titles' own words (read once): the passages' words holding a
        # common pair run to thousands, and an FTS5 query OR-ing them all costs milliseconds.
        if has_cjk(term):
            return self._cjk_variants([], router, "fts_documents", term)
        if ready and self.stem is not None and " " not in term:
            found = self._indexed_variants(ready, term)
        else:
            found = self._variants_in(router, "fts_documents", term)
        if joined:
            found = self._joined_variants([], router, "fts_documents", term, found)
        return found

    def _indexed_variants(self, indexes: list[KeywordIndex], term: str) -> list[str]:
        assert self.stem is not None
        tokens = fold_term(term)
        if len(tokens) != 1:
            return [term]
        key = self.stem(tokens[0])
        found: dict[str, None] = {tokens[0]: None}  # a word of a summary only is kept too
        for index in indexes:
            term_id = index.term_id(key)
            if term_id is not None:
                found.update(dict.fromkeys(index.variants(term_id)))
        return list(found)

    def _cjk_variants(
        self, indexes: list[KeywordIndex], path: Path, table: str, term: str
    ) -> list[str]:
        """The vocabulary terms holding a CJK key of ``term`` (a bigram, or a lone character
        by itself: ``gezel_knowledge.cjk``), from the indexes when given, else from the table's
        vocabulary; ``term`` itself first, as FTS5 would match it."""
        tokens = fold_term(term)
        if len(tokens) != 1:
            return [term]  # a phrase: its tokens as written
        keys = [k for k in dict.fromkeys(token_keys(tokens[0])) if has_cjk(k)]
        return self._holding(indexes, path, table, keys, [tokens[0]])

    def _joined_variants(
        self, indexes: list[KeywordIndex], path: Path, table: str, term: str, found: list[str]
    ) -> list[str]:
        """``found`` and the vocabulary terms joining a word of ``term``'s stem to CJK
        characters (its marked key, ``cjk.JOINED``)."""
        tokens = fold_term(term)
        if len(tokens) != 1:
            return found
        key = JOINED + (tokens[0] if self.stem is None else self.stem(tokens[0]))
        return self._holding(indexes, path, table, [key], found)

    def _holding(
        self,
        indexes: list[KeywordIndex],
        path: Path,
        table: str,
        keys: list[str],
        first: list[str],
    ) -> list[str]:
        """``first``, then the vocabulary terms holding any of ``keys`` (at most
        :data:`_MAX_CJK_VARIANTS`), from the indexes when given, else from the vocabulary."""
        found: dict[str, None] = dict.fromkeys(first)
        for key in keys:
            if indexes:
                for index in indexes:
                    term_id = index.term_id(key)
                    if term_id is not None:
                        found.update(dict.fromkeys(index.variants(term_id)))
            else:
                found.update(dict.fromkeys(self._vocabulary_holding(path, table, key)))
        return list(found)[:_MAX_CJK_VARIANTS]

    def _vocabulary_holding(self, path: Path, table: str, key: str) -> list[str]:
        """The table's vocabulary terms holding CJK characters whose keys include ``key``."""
        return [t for t, _ in self._holding_times(path, table, key)]

    def _holding_times(self, path: Path, table: str, key: str) -> list[tuple[str, int]]:
        """The same, each with the times ``key`` occurs in it."""
        keys, bounds, pair_term, times, terms = self._cjk_keys(path, table)
        at = bisect.bisect_left(keys, key)
        if at == len(keys) or keys[at] != key:
            return []
        span = range(bounds[at], bounds[at + 1])
        return [(terms[pair_term[i]], times[i]) for i in span]

    def _cjk_keys(self, path: Path, table: str) -> _KeyMap:
        """The keys of the table's CJK vocabulary (``reader._kwkeys``), each with its terms
        and repeats, made once per handle: a key's terms are then a binary search away."""
        found = self._key_maps.get((str(path), table))
        if found is None:
            terms = self._cjk_vocabulary(path, table)
            keys, pair_term, key_of, times = term_keys(terms, self.stem)
            bounds = np.zeros(len(keys) + 1, dtype=np.int64)
            np.cumsum(np.bincount(key_of, minlength=len(keys)), out=bounds[1:])
            found = (keys, bounds.tolist(), pair_term.tolist(), times.tolist(), terms)
            self._key_maps[(str(path), table)] = found
        return found

    def _cjk_vocabulary(self, path: Path, table: str) -> list[str]:
        """The table's vocabulary terms holding a CJK character, read once per handle; in a
        large shard only those starting with one."""
        found = self._cjk_terms.get((str(path), table))
        if found is None:
            conn = self._vocabulary(path, table)
            # fts5vocab counts every term's postings as it lists it, so a whole vocabulary
            # costs about what an index build reads (0.57 s of CPU on 200,000 passages): a
            # large shard, which builds its index after its first searches anyway, reads only
            # the terms starting with a CJK character (they sort after every Latin letter).
            # Its fallback then misses words like ``redis集成`` that the index has.
            start = "\u1100" if (str(path), table) in self._large else ""
            rows = conn.execute(
                "SELECT term FROM temp.vocab WHERE term >= ? AND term GLOB ?", (start, CJK_GLOB)
            )
            found = self._cjk_terms[(str(path), table)] = [str(t) for (t,) in rows]
        return found

    def _note_size(self, shard: ShardInfo) -> None:
        if shard.chunk_count >= SYNC_BUILD_MAX_CHUNKS:
            # The passages' vocabulary only: the titles' (the router's) is far smaller.
            self._large.add((str(self._shard_file(shard)), "fts_chunks"))

    def _vocabulary(self, path: Path, table: str) -> sqlite3.Connection:
        """A connection with ``temp.vocab``, the table's ``fts5vocab`` row view (kept)."""
        conn = self._vocab.get((str(path), table))
        if conn is None:
            conn = build_connection(path)
            conn.execute(f"CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, {table}, row)")
            self._vocab[(str(path), table)] = conn
        return conn

    def _variants_in(self, path: Path, table: str, term: str) -> list[str]:
        if self.stem is None or " " in term:
            return [term]
        key = (str(path), table, term)
        found = self._variants.get(key)
        if found is None:
            found = self._vocabulary_variants(path, table, term) or [term]
            if len(self._variants) >= 4096:
                self._variants.clear()
            self._variants[key] = found
        return found

    def _vocabulary_variants(self, path: Path, table: str, term: str) -> list[str]:
        """Snowball changes a word's ending only, so every variant starts with the part the
        word and its stem share; that range of the vocabulary is read and stemmed."""
        assert self.stem is not None
        tokens = fold_term(term)
        if len(tokens) != 1:
            return []
        stem = self.stem(tokens[0])
        word = tokens[0]
        shared = next((i for i, (a, b) in enumerate(zip(stem, word, strict=False)) if a != b), None)
        prefix = word[: min(len(stem), len(word)) if shared is None else shared]
        if len(prefix) < 3:
            return [word]
        conn = self._vocabulary(path, table)
        rows = conn.execute(
            "SELECT term FROM temp.vocab WHERE term >= ? AND term < ? LIMIT 4096",
            (prefix, prefix + "\U0010ffff"),
        )
        return [str(t) for (t,) in rows if self.stem(str(t)) == stem]

    # -- the FTS5 fallback's index of one question's keys ---------------------------------------

    def scoped(self, shard: ShardInfo, words: dict[str, str | None]) -> KeywordIndex:
        """An index of the question's keys only, read from the shard's FTS5 tables
        (``reader._kwscoped``): ``words`` maps each key to the question's word it stems from,
        ``None`` for a CJK pair or a joined word's key."""
        path = self._shard_file(shard)
        self._note_size(shard)
        conn = self._vocabulary(path, "fts_chunks")
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {INSTANCES}"
            " USING fts5vocab(main, fts_chunks, instance)"
        )
        with self._lock:
            sized = self._lengths.get(shard.id)
        if sized is None:
            sized = docsize_lengths(conn, "fts_chunks")
            with self._lock:
                self._lengths[shard.id] = sized
        variants: dict[str, list[tuple[str, int]]] = {}
        for key, word in words.items():
            if word is None:
                variants[key] = self._holding_times(path, "fts_chunks", key)
            else:
                plain = self._variants_in(path, "fts_chunks", word)
                variants[key] = [(fold_term(t)[0], 1) for t in plain if not has_cjk(t)]
        built = scoped_index(conn, sized[0], sized[1], variants)
        return KeywordIndex(built, stemmed=self.stem is not None, verified=True)

    def wait(self) -> None:
        """Wait for every background build started so far."""
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join()

    def close(self) -> None:
        """Forget the indexes (their maps close when no array uses them any more)."""
        with self._lock:
            self._ready.clear()
            self._maps.clear()
            for conn in self._vocab.values():
                conn.close()
            self._vocab.clear()
            self._cjk_terms.clear()
            self._lengths.clear()
            self._key_maps.clear()


@functools.cache
def _snowball_version() -> str:
    try:
        return version("snowballstemmer")
    except PackageNotFoundError:  # pragma: no cover - installed as a dependency
        return "unknown"
