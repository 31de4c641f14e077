"""A small, independent catalog writer for the reader and validator tests.

It writes what the spec says, with gezk.ddl and plain SQL, for the cases the compiler does not
produce: legacy 0.5/0.6 generations, hand-picked shard layouts, and catalogs that tests then
break on purpose (``mutate_router`` / ``mutate_shard`` followed by ``reseal``). Chunking is one
chunk per paragraph; vectors come from ``test-hash-embed@1`` of the spec's embed input.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import sqlite3
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import brotli
import numpy as np

from gezk.ddl import create_schema, seal, write_meta
from gezk.hashembed import hash_embed
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import MARKDOWN_CHUNKS_2, TEST_HASH_EMBED_1, EmbeddingProfile
from gezk.signing import sign_manifest
from gezk.spatial import Location, spatial_summary

MIMETYPE = b"application/vnd.gezk+zip"
_SCHEMA = {"0.5": 2, "0.6": 3, "0.7": 4}


@dataclass
class Doc:
    """One document of a hand-built catalog."""

    id: str
    title: str
    body: str
    topic_path: tuple[str, ...]
    ordinal: int | None = None
    summary: str | None = None
    aliases: tuple[str, ...] = ()
    refs: tuple[tuple[tuple[str, ...], int | None], ...] = ()
    locations: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] | None = None
    shard: int = 0


@dataclass
class Topic:
    id: str
    name: str
    parent: str | None = None
    sort_key: str | None = None


@dataclass
class Chunk:
    document_id: str
    ordinal: int
    title: str
    heading_path: list[str]
    line_start: int
    line_end: int
    text: str

    @property
    def embed_input(self) -> str:
        if self.heading_path and self.heading_path != [self.title]:
            return f"{self.title}\n{' > '.join(self.heading_path)}\n{self.text}"
        return f"{self.title}\n{self.text}"


def chunk_document(doc: Doc) -> list[Chunk]:
    """One chunk per paragraph; ATX headings set the heading path and are not chunks."""
    lines = doc.body.split("\n")
    chunks: list[Chunk] = []
    stack: list[tuple[int, str]] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            text = "\n".join(t for _, t in block)
            path = [h for _, h in stack]
            if path[:1] == [doc.title]:
                path = path[1:]
            chunks.append(
                Chunk(doc.id, len(chunks), doc.title, path, block[0][0], block[-1][0], text)
            )
            block.clear()

    for number, line in enumerate(lines, start=1):
        if not line.strip():
            flush()
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            stack[:] = [(lv, h) for lv, h in stack if lv < level]
            stack.append((level, line.lstrip("#").strip()))
        else:
            block.append((number, line))
    flush()
    return chunks


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _quantize(vectors: np.ndarray, center: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    scaled = vectors.astype(np.float64) * 127.0
    q = np.clip(np.floor(scaled + 0.5), -127, 127).astype(np.int8)
    signs = vectors - center if center is not None else vectors
    bits = np.packbits((signs > 0).astype(np.uint8), axis=1, bitorder="little")
    return q, bits


def _paths_ok(topics: dict[str, Topic], path: Sequence[str]) -> None:
    assert path, path
    assert topics[path[0]].parent is None, path
    for parent, child in itertools.pairwise(path):
        assert topics[child].parent == parent, path


@dataclass(frozen=True)
class _Plan:
    """Where each chunk goes and its vector, worked out once per :meth:`CatalogBuild.write`."""

    shard_ids: list[int]
    embedded: bool
    chunks_by_shard: dict[int, list[Chunk]]
    all_chunks: list[Chunk]
    by_uid: dict[tuple[str, int], np.ndarray]
    profile: EmbeddingProfile


def _fill_shard(conn: sqlite3.Connection, plan: _Plan, s: int) -> None:
    """Shard ``s``'s chunks, their sign bits and int8 codes, and its FTS index."""
    rows = plan.chunks_by_shard[s]
    vecs = (
        np.stack([plan.by_uid[(c.document_id, c.ordinal)] for c in rows])
        if rows
        else np.zeros((0, plan.profile.dimensions), np.float32)
    )
    q, bits = _quantize(vecs, plan.profile.center_array())
    for i, c in enumerate(rows, start=1):
        conn.execute(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                i,
                chunk_uid(c.document_id, c.ordinal, c.text),
                c.document_id,
                c.ordinal,
                c.title,
                json.dumps(c.heading_path, ensure_ascii=False),
                " > ".join(c.heading_path),
                c.line_start,
                c.line_end,
                len(c.text.split()),
                content_hash(c.text),
                c.text,
            ),
        )
        conn.execute("INSERT INTO chunk_vectors_bit VALUES (?, ?)", (i, bits[i - 1].tobytes()))
        conn.execute("INSERT INTO chunk_vectors_int8 VALUES (?, ?)", (i, q[i - 1].tobytes()))
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")


def _sealed(path: Path, role: str, schema: int, fill: Callable[[sqlite3.Connection], None]) -> None:
    """A database of ``role`` filled by ``fill``, sealed into ``path`` with VACUUM INTO."""
    work = path.with_suffix(".work")
    conn = sqlite3.connect(work)
    create_schema(conn, role, schema)  # type: ignore[arg-type]
    fill(conn)
    conn.commit()
    if path.exists():
        path.unlink()
    seal(conn, str(path))
    conn.close()
    work.unlink()


def _insert_location(conn: sqlite3.Connection, doc_id: str, loc: Location) -> None:
    conn.execute(
        "INSERT INTO document_locations VALUES (?,?,?,?,?,?)",
        (
            doc_id,
            loc.id,
            loc.latitude,
            loc.longitude,
            loc.role,
            json.dumps(dict(loc.provenance)) if loc.provenance is not None else None,
        ),
    )


@dataclass
class CatalogBuild:
    """Inputs of a hand-built catalog; :meth:`write` produces an extracted catalog directory."""

    docs: list[Doc]
    topics: list[Topic]
    format_version: str = "0.7"
    catalog_id: str = "demo"
    publisher_id: str = "tester"
    version: str = "1.0.0"
    external_shards: bool = False
    profile: EmbeddingProfile = TEST_HASH_EMBED_1
    assets: dict[str, bytes] = field(default_factory=dict)
    smoke: list[dict[str, Any]] = field(default_factory=list)
    embed: Callable[[list[str]], np.ndarray] = field(default=hash_embed)
    language: str = "en"

    @property
    def schema(self) -> int:
        return _SCHEMA[self.format_version]

    def write(self, root: Path, *, sign_with: Any = None) -> Path:
        """Write the extracted catalog (databases, notices, manifest) under ``root``."""
        root.mkdir(parents=True, exist_ok=True)
        (root / "index").mkdir(exist_ok=True)
        self._check_topic_paths()
        plan = self._plan()
        files = self._write_files(root)
        common = {
            "format_version": self.format_version,
            "index_schema_version": self.schema,
            "catalog_id": self.catalog_id,
            "catalog_version": self.version,
            "embedding_profile_id": plan.profile.id,
            "chunking_profile_id": MARKDOWN_CHUNKS_2.id,
        }
        shard_rows, centroids = self._shard_rows(plan)
        if not plan.embedded:
            (root / "index" / "shards").mkdir(exist_ok=True)
            for s in plan.shard_ids:
                path = root / "index" / "shards" / f"{s:03d}.db"

                def fill_one(conn: sqlite3.Connection, s: int = s) -> None:
                    meta = {**common, "shard_id": s, "chunk_count": len(plan.chunks_by_shard[s])}
                    write_meta(conn, meta)
                    _fill_shard(conn, plan, s)

                _sealed(path, "shard", self.schema, fill_one)
                files[f"index/shards/{s:03d}.db"] = path

        def fill_router(conn: sqlite3.Connection) -> None:
            self._fill_router(conn, plan, common)
            for row in shard_rows:
                conn.execute(
                    "INSERT INTO shards VALUES (?,?,?,?,?,?,?)",
                    (
                        row["id"],
                        row["path"],
                        row["chunks"],
                        row["documents"],
                        json.dumps(row["topics"]),
                        row["centroids"],
                        0 if plan.embedded else files[row["path"]].stat().st_size,
                    ),
                )
            for s, c in sorted(centroids.items()):
                conn.execute(
                    "INSERT INTO route_centroids(shard_id, embedding, weight) VALUES (?,?,?)",
                    (s, c.tobytes(), len(plan.chunks_by_shard[s])),
                )
            if plan.embedded:
                _fill_shard(conn, plan, 0)

        role = "router+shard" if plan.embedded else "router"
        _sealed(root / "index" / "router.db", role, self.schema, fill_router)
        files["index/router.db"] = root / "index" / "router.db"

        manifest = self._manifest(files, shard_rows, plan.profile, centroids, plan.all_chunks)
        if sign_with is not None:
            manifest = sign_manifest(manifest, sign_with)
        (root / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        return root

    def _check_topic_paths(self) -> None:
        topics = {t.id: t for t in self.topics}
        for d in self.docs:
            _paths_ok(topics, d.topic_path)
            for path, _ in d.refs:
                _paths_ok(topics, path)

    def _plan(self) -> _Plan:
        """The chunks of each shard in storage order, their vectors, and the profile."""
        shard_ids = sorted({d.shard for d in self.docs}) or [0]
        embedded = not self.external_shards and shard_ids == [0]
        chunks_by_shard: dict[int, list[Chunk]] = {s: [] for s in shard_ids}
        for d in sorted(self.docs, key=lambda d: d.id):
            chunks_by_shard[d.shard].extend(chunk_document(d))
        for s in shard_ids:
            chunks_by_shard[s].sort(key=lambda c: (c.document_id.encode(), c.ordinal))
        all_chunks = [c for s in shard_ids for c in chunks_by_shard[s]]
        vectors = self.embed([c.embed_input for c in all_chunks]) if all_chunks else None
        profile = self.profile
        if profile.centered:
            center = vectors.mean(axis=0) if vectors is not None else np.zeros(profile.dimensions)
            center = center / max(1e-12, float(np.linalg.norm(center)))
            profile = profile.with_center(center)
        by_uid: dict[tuple[str, int], np.ndarray] = {}
        if vectors is not None:
            for c, v in zip(all_chunks, vectors, strict=True):
                by_uid[(c.document_id, c.ordinal)] = v
        return _Plan(shard_ids, embedded, chunks_by_shard, all_chunks, by_uid, profile)

    def _write_files(self, root: Path) -> dict[str, Path]:
        """The README, the licence notice and the assets; their archive paths."""
        files: dict[str, Path] = {}
        (root / "README.md").write_text("# Demo catalog\n", encoding="utf-8")
        (root / "LICENSES").mkdir(exist_ok=True)
        (root / "LICENSES" / "catalog.txt").write_text("CC0-1.0\n", encoding="utf-8")
        files["README.md"] = root / "README.md"
        files["LICENSES/catalog.txt"] = root / "LICENSES" / "catalog.txt"
        for path, data in self.assets.items():
            target = root.joinpath(*path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files[path] = target
        return files

    def _shard_rows(self, plan: _Plan) -> tuple[list[dict[str, Any]], dict[int, np.ndarray]]:
        """The router's ``shards`` rows and each non-empty shard's centroid."""
        shard_rows: list[dict[str, Any]] = []
        centroids: dict[int, np.ndarray] = {}
        for s in plan.shard_ids:
            rows = plan.chunks_by_shard[s]
            if rows:
                mat = np.stack([plan.by_uid[(c.document_id, c.ordinal)] for c in rows])
                mean = mat.mean(axis=0)
                centroids[s] = (mean / max(1e-12, float(np.linalg.norm(mean)))).astype("<f4")
            docs_in = [d for d in self.docs if d.shard == s]
            shard_rows.append(
                {
                    "id": s,
                    "path": "index/router.db" if plan.embedded else f"index/shards/{s:03d}.db",
                    "chunks": len(rows),
                    "documents": len(docs_in),
                    "centroids": 1 if rows else 0,
                    "topics": sorted({d.topic_path[-1] for d in docs_in}),
                }
            )
        return shard_rows, centroids

    def _fill_router(self, conn: sqlite3.Connection, plan: _Plan, common: dict[str, Any]) -> None:
        """Meta, topics, documents, placements and locations of the router."""
        write_meta(
            conn,
            {
                **common,
                "shard_id": 0,
                "chunk_count": len(plan.all_chunks) if plan.embedded else 0,
                "embedding_profile_json": json.dumps(plan.profile.to_json()),
                "chunking_profile_json": json.dumps(MARKDOWN_CHUNKS_2.to_json()),
                "created_at": "2026-01-01T00:00:00.000Z",
            },
        )
        placements: list[tuple[str, str, int | None]] = []
        for d in self.docs:
            leaf = d.topic_path[0] if self.format_version == "0.5" else d.topic_path[-1]
            placements.append((leaf, d.id, d.ordinal))
            if self.schema >= 4:
                placements += [(p[-1], d.id, o) for p, o in d.refs]
        for t in self.topics:
            count = sum(1 for tid, _, _ in placements if tid == t.id)
            conn.execute(
                "INSERT INTO topics VALUES (?,?,?,?,?,?)",
                (t.id, t.parent, t.name, None, t.sort_key or t.id, count),
            )
        for d in self.docs:
            self._insert_document(conn, d)
        if self.schema >= 4:
            for tid, did, o in placements:
                conn.execute("INSERT INTO topic_documents VALUES (?,?,?)", (tid, did, o))
            for d in self.docs:
                for loc in d.locations:
                    _insert_location(conn, d.id, Location.from_json(loc))

    def _insert_document(self, conn: sqlite3.Connection, d: Doc) -> None:
        """A ``documents`` row of this generation, its aliases and its FTS row."""
        body = d.body.encode("utf-8")
        codec, blob = (
            ("br", brotli.compress(body, quality=5, mode=brotli.MODE_TEXT))
            if len(body) >= 512
            else ("none", body)
        )
        leaf = d.topic_path[0] if self.format_version == "0.5" else d.topic_path[-1]
        n_chunks = len(chunk_document(d))
        base = [d.id, d.title, d.id.lower().replace(" ", "-"), d.summary, "en", leaf]
        tail = [d.shard, n_chunks, None, None, None, None]
        if self.schema >= 3:
            meta = (
                json.dumps(d.meta, sort_keys=True, separators=(",", ":"))
                if d.meta is not None
                else None
            )
            values = [*base, d.ordinal, *tail, meta, codec, blob]
        else:
            values = [*base, *tail, codec, blob]
        conn.execute(f"INSERT INTO documents VALUES ({','.join('?' * len(values))})", values)
        for alias in d.aliases:
            conn.execute("INSERT INTO aliases VALUES (?, ?)", (alias, d.id))
        conn.execute(
            "INSERT INTO fts_documents(title, summary, aliases, document_id) VALUES (?,?,?,?)",
            (d.title, d.summary or "", " ".join(d.aliases), d.id),
        )

    def _manifest(
        self,
        files: dict[str, Path],
        shard_rows: list[dict[str, Any]],
        profile: EmbeddingProfile,
        centroids: dict[int, np.ndarray],
        all_chunks: list[Chunk],
    ) -> dict[str, Any]:
        topics_json = []
        for t in self.topics:
            item: dict[str, Any] = {"id": t.id, "name": t.name}
            if self.schema >= 3:
                if t.parent:
                    item["parentId"] = t.parent
                item["sortKey"] = t.sort_key or t.id
            topics_json.append(item)
        manifest: dict[str, Any] = {
            "kind": "gezk-catalog",
            "formatVersion": self.format_version,
            "indexSchemaVersion": self.schema,
            "id": self.catalog_id,
            "version": self.version,
            "name": "Demo catalog",
            "language": self.language,
            "publisher": {"id": self.publisher_id, "name": "Tester"},
            "createdAt": "2026-01-01T00:00:00.000Z",
            "license": {
                "name": "CC0",
                "noticePath": "LICENSES/catalog.txt",
                "attributionRequired": False,
            },
            "embedding": profile.to_json(),
            "chunking": MARKDOWN_CHUNKS_2.to_json(),
            "topics": topics_json,
            "router": {
                "shardTargetChunks": 200000,
                "shards": [
                    {
                        "id": r["id"],
                        "path": r["path"],
                        "chunks": r["chunks"],
                        "documents": r["documents"],
                        "centroids": r["centroids"],
                        "sha256": _sha(files[r["path"]].read_bytes()),
                    }
                    for r in shard_rows
                ],
                "totalCentroids": len(centroids),
            },
            "counts": {
                "documents": len(self.docs),
                "chunks": len(all_chunks),
                "shards": len(shard_rows),
            },
            "files": [],
            "requires": {"formatVersion": self.format_version, "features": []},
            "smokeQueries": self.smoke,
            "toolchain": {"name": "tests.catalog_builder", "version": "1"},
        }
        if self.schema >= 3:
            manifest["counts"]["assets"] = len(self.assets)
        if self.schema >= 4:
            rows = [(d.id, Location.from_json(loc)) for d in self.docs for loc in d.locations]
            manifest["spatial"] = spatial_summary(rows)
        manifest["files"] = [
            {"path": p, "sizeBytes": f.stat().st_size, "sha256": _sha(f.read_bytes())}
            for p, f in sorted(files.items())
        ]
        return manifest


def reseal(
    root: Path,
    *,
    sign_with: Any = None,
    manifest_edit: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Recompute ``manifest.files`` (and shard digests) after a test changed catalog files."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("signature", None)
    digests = {}
    for f in manifest["files"]:
        data = root.joinpath(*f["path"].split("/")).read_bytes()
        f["sizeBytes"] = len(data)
        f["sha256"] = digests[f["path"]] = _sha(data)
    for s in manifest["router"]["shards"]:
        s["sha256"] = digests[s["path"]]
    if manifest_edit is not None:
        manifest_edit(manifest)
    if sign_with is not None:
        manifest = sign_manifest(manifest, sign_with)
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def mutate_db(path: Path, *statements: str | tuple[str, Sequence[Any]]) -> None:
    """Run SQL against a sealed catalog database in place (tests only: catalogs are immutable)."""
    conn = sqlite3.connect(path)
    # A hostile writer is not bound by the DDL's CHECK constraints; neither are these tests.
    conn.execute("PRAGMA ignore_check_constraints = ON")
    for st in statements:
        if isinstance(st, tuple):
            conn.execute(st[0], st[1])
        else:
            conn.executescript(st)
    conn.commit()
    conn.close()


def pack(root: Path, dest: Path) -> Path:
    """Zip an extracted catalog directory as the spec writes it: mimetype first, stored, sorted."""
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(dest, "w") as zf:
        for name, data in [
            ("mimetype", MIMETYPE),
            ("manifest.json", (root / "manifest.json").read_bytes()),
        ] + [
            (f["path"], root.joinpath(*f["path"].split("/")).read_bytes())
            for f in sorted(manifest["files"], key=lambda f: f["path"].encode())
        ]:
            info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            zf.writestr(info, data)
    return dest


def copy_catalog(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    return dest


_WORD_TEXT = (
    "lattice ember meridian drift orchard lumen copper beacon vellum saffron sonata garnet "
    "anvil tide jasper russet quartz harbor cinder willow falcon marble thistle cobalt"
)
WORDS = _WORD_TEXT.split()


def sample_docs(n: int = 12) -> tuple[list[Doc], list[Topic]]:
    """A deterministic little corpus over a two-level topic tree with shared placements."""
    topics = [
        Topic("craft", "Craft", None, "2147483648"),
        Topic("metals", "Metals", "craft", "2147483649"),
        Topic("wood", "Wood", "craft", "2147483650"),
        Topic("nature", "Nature", None, "2147483651"),
    ]
    docs: list[Doc] = []
    for i in range(n):
        words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(14)]
        leaf = (
            ("craft",)
            if i % 4 == 0
            else ("craft", "metals")
            if i % 4 == 1
            else ("craft", "wood")
            if i % 4 == 2
            else ("nature",)
        )
        title = f"{WORDS[i % len(WORDS)]} {WORDS[(i + 5) % len(WORDS)]} {i:04d}"
        body = (
            f"# {title}\n\n"
            f"{' '.join(words).capitalize()}.\n\n"
            f"## Details\n\n"
            f"Second paragraph {i:04d} about {words[0]} and {words[1]} near the {words[2]}.\n"
            f"It continues on a second line with {words[3]}.\n"
        )
        docs.append(
            Doc(
                f"doc-{i:04d}",
                title,
                body,
                leaf,
                ordinal=(n - i) if i % 3 == 0 else None,
                summary=f"Summary of {title}",
            )
        )
    return docs, topics
