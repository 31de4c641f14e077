"""Property: whatever is done to a good archive, every outcome is a valid catalog or a typed
refusal with a reason, and a catalog opened by path is one deep validation accepts (issue 17
item 3).

Four kinds of mutation, each a strategy: bytes of the archive (flips, truncation, insertion),
fields of the ZIP headers (local and central), pages and rows of the SQLite databases (resealed,
so the digests match and the databases themselves are what is tested), and members of the
manifest. Runs are derandomised and bounded so CI is deterministic and quick;
``GEZEL_MUTATION_EXAMPLES`` asks for a longer, randomly seeded local run.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezel_knowledge.validate import validate_archive
from gezk.ddl import declared_tables
from gezk.errors import ReasonedError
from tests.reader.catalog_builder import CatalogBuild, mutate_db, pack, reseal, sample_docs

EXAMPLES = int(os.environ.get("GEZEL_MUTATION_EXAMPLES", "25"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    # Deterministic unless a longer exploratory run was asked for.
    derandomize="GEZEL_MUTATION_EXAMPLES" not in os.environ,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


class Good(tuple[Path, bytes]):
    """A good extracted catalog and its packed bytes (shown short in a falsifying example)."""

    def __repr__(self) -> str:
        return f"Good({self[0].name}, {len(self[1])} bytes)"


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Good:
    """A good extracted catalog (external shard, locations, a smoke query) and its bytes."""
    docs, topics = sample_docs(6)
    docs[1].locations = ({"id": "a", "latitude": 47.6, "longitude": -122.3, "role": "subject"},)
    base = tmp_path_factory.mktemp("mutations")
    root = CatalogBuild(
        docs,
        topics,
        external_shards=True,
        smoke=[{"query": docs[2].title, "expectedDocumentIds": [docs[2].id]}],
    ).write(base / "catalog")
    archive = pack(root, base / "good.gezk")
    return Good((root, archive.read_bytes()))


def _exercise(catalog: Catalog) -> None:
    """Every reading call; each may answer or raise a typed error, nothing else."""
    calls: list[Callable[[], object]] = [
        catalog.topics,
        lambda: catalog.list_documents(limit=100),
        lambda: [catalog.body(d.id) for d in catalog.list_documents(limit=100).documents],
        lambda: [catalog.document(f"doc-{i:04d}") for i in range(6)],
        lambda: [catalog.read(f"doc-{i:04d}") for i in range(6)],
        lambda: catalog.search("lattice ember", mode="keyword"),
        lambda: catalog.search("lattice ember", mode="vector"),
        lambda: catalog.search("lattice ember"),
    ]
    for call in calls:
        try:
            call()
        except ReasonedError as exc:
            _typed(exc)


def _typed(exc: ReasonedError) -> None:
    """A refusal a caller can act on: a reason and a one-line message."""
    if not exc.reason or "\n" in str(exc):
        pytest.fail(f"an untyped or multi-line refusal: {exc!r}")


def _check(archive: Path, work: Path) -> None:
    """The property itself."""
    report = validate_archive(archive, deep=True)
    assert all(f.reason for f in report.findings)
    try:
        catalog = open_catalog(archive, cache_dir=work / "cache", embedder=HashEmbedder())
    except ReasonedError as exc:
        _typed(exc)
        if report.ok:
            pytest.fail(f"validation accepted what opening refused: {exc}")
        return
    with catalog:
        assert report.ok, f"opened by path, refused by validation: {report.findings[:3]}"
        _exercise(catalog)


# -- bytes and ZIP headers ------------------------------------------------------------------------


@st.composite
def _byte_edits(draw: st.DrawFn, size: int) -> list[tuple[str, int, bytes]]:
    kinds = st.sampled_from(["set", "set", "set", "truncate", "insert"])
    return draw(
        st.lists(
            st.tuples(kinds, st.integers(0, size - 1), st.binary(min_size=1, max_size=4)),
            min_size=1,
            max_size=4,
        )
    )


def _apply_bytes(data: bytes, edits: list[tuple[str, int, bytes]]) -> bytes:
    out = bytearray(data)
    for kind, offset, value in edits:
        at = min(offset, len(out))
        if kind == "set":
            out[at : at + len(value)] = value
        elif kind == "truncate":
            del out[at:]
        else:
            out[at:at] = value
    return bytes(out)


def _header_offsets(data: bytes) -> list[tuple[int, int]]:
    """(offset, header length) of every local and central header and the end record."""
    found = []
    for signature, length in ((b"PK\x03\x04", 30), (b"PK\x01\x02", 46), (b"PK\x05\x06", 22)):
        at = data.find(signature)
        while at >= 0:
            found.append((at, length))
            at = data.find(signature, at + 1)
    return found


@SETTINGS
@given(data=st.data())
def test_mutated_archive_bytes_are_valid_or_refused(good: Good, data: Any) -> None:
    _, raw = good
    edits = data.draw(_byte_edits(len(raw)))
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "x.gezk"
        archive.write_bytes(_apply_bytes(raw, edits))
        _check(archive, Path(tmp))


@SETTINGS
@given(data=st.data())
def test_mutated_zip_header_fields_are_valid_or_refused(good: Good, data: Any) -> None:
    _, raw = good
    headers = _header_offsets(raw)
    at, length = data.draw(st.sampled_from(headers))
    field = data.draw(st.integers(4, length - 2))
    width = data.draw(st.sampled_from([1, 2, 4]))
    value = data.draw(
        st.sampled_from([0, 1, 0x08, 0x20, 0x40, 0x800, 0xFFFF, 0xFFFFFFFF, 99, 63, 65])
        | st.integers(0, 0xFFFFFFFF)
    )
    out = bytearray(raw)
    packed = struct.pack("<I", value & 0xFFFFFFFF)[:width]
    out[at + field : at + field + width] = packed
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "x.gezk"
        archive.write_bytes(bytes(out))
        _check(archive, Path(tmp))


# -- SQLite pages and rows ------------------------------------------------------------------------

_DATABASES = {"index/router.db": "router", "index/shards/000.db": "shard"}
_VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([0, -1, 1, 2**31, -(2**31) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.binary(max_size=64),
    st.sampled_from(["[", "{}", "[]", '{"a": 1}', "[" * 5000 + "]" * 5000, "x" * 70_000]),
    st.just(b"\xc3\x28").map(lambda b: ("invalid-utf8", b)),
)


def _tables(role: str) -> list[str]:
    names = [t.name for t in declared_tables(role, 4)]  # type: ignore[arg-type]
    shadows = [
        f"{t.name}_{s}"
        for t in declared_tables(role, 4)  # type: ignore[arg-type]
        if t.fts5
        for s in ("data", "idx", "docsize", "config")
    ]
    return sorted(names + shadows)


def _update(path: Path, table: str, column: int, row: int, value: Any) -> None:
    conn = sqlite3.connect(path)
    try:
        columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    finally:
        conn.close()
    assume(columns)
    name = columns[column % len(columns)]
    key = "key" if table == "meta" else "rowid"
    where = f'{key} = (SELECT {key} FROM "{table}" LIMIT 1 OFFSET {row})'
    if isinstance(value, tuple):  # text that is not UTF-8
        sql: Any = (f'UPDATE "{table}" SET "{name}" = CAST(? AS TEXT) WHERE {where}', [value[1]])
    else:
        sql = (f'UPDATE "{table}" SET "{name}" = ? WHERE {where}', [value])
    try:
        mutate_db(path, sql)
    except sqlite3.Error:
        assume(False)  # a constraint the database itself enforces


@SETTINGS
@given(data=st.data())
def test_mutated_database_rows_are_valid_or_refused(good: Good, data: Any) -> None:
    root, _ = good
    rel = data.draw(st.sampled_from(sorted(_DATABASES)))
    table = data.draw(st.sampled_from(_tables(_DATABASES[rel])))
    column, row = data.draw(st.integers(0, 20)), data.draw(st.integers(0, 8))
    value = data.draw(_VALUES)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "catalog"
        shutil.copytree(root, copy)
        _update(copy / rel, table, column, row, value)
        reseal(copy)
        _check(pack(copy, Path(tmp) / "x.gezk"), Path(tmp))


@SETTINGS
@given(data=st.data())
def test_mutated_database_pages_are_valid_or_refused(good: Good, data: Any) -> None:
    root, _ = good
    rel = data.draw(st.sampled_from(sorted(_DATABASES)))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "catalog"
        shutil.copytree(root, copy)
        db = copy / rel
        raw = bytearray(db.read_bytes())
        page = data.draw(st.integers(0, len(raw) // 8192 - 1))
        offset = data.draw(st.integers(0, 8191))
        value = data.draw(st.binary(min_size=1, max_size=16))
        start = page * 8192 + offset
        raw[start : start + len(value)] = value
        db.write_bytes(bytes(raw))
        reseal(copy)
        _check(pack(copy, Path(tmp) / "x.gezk"), Path(tmp))


# -- the manifest ---------------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


@SETTINGS
@given(data=st.data())
def test_mutated_manifest_members_are_valid_or_refused(good: Good, data: Any) -> None:
    root, _ = good
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    key = data.draw(st.sampled_from(sorted(manifest)))
    member = manifest[key]
    inner = (
        data.draw(st.sampled_from(sorted(member))) if isinstance(member, dict) and member else None
    )
    value = data.draw(_JSON)

    def edit(m: dict[str, Any]) -> None:
        if inner is None:
            m[key] = value
        else:
            m[key][inner] = value

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "catalog"
        shutil.copytree(root, copy)
        reseal(copy, manifest_edit=edit)
        try:
            archive = pack(copy, Path(tmp) / "x.gezk")
        except (KeyError, TypeError, ValueError, AttributeError):
            assume(False)  # the test's own packer needs a usable files list
        _check(archive, Path(tmp))


def test_the_unmutated_archive_is_valid_and_opens(good: Good, tmp_path: Path) -> None:
    _, raw = good
    archive = tmp_path / "good.gezk"
    archive.write_bytes(raw)
    assert validate_archive(archive, deep=True).ok
    with open_catalog(archive, cache_dir=tmp_path / "cache", embedder=HashEmbedder()) as c:
        _exercise(c)
        assert c.list_documents().documents
