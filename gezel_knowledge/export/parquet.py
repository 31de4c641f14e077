"""``export_parquet``: a catalog's Parquet companion (spec section 14, and 5.2.2 for locations).

The companion holds the same documents, chunks and embeddings as the archive, for tools that
would rather scan tables than open SQLite (DuckDB, Polars, pandas, ``datasets``):

- ``documents-NNN.parquet`` and ``chunks-NNN.parquet`` per shard, ``topics.parquet``;
- ``topic_documents.parquet``: every placement, so shared table-of-contents memberships survive
  (a document's ``topic_path`` alone names only its primary placement);
- ``document_locations.parquet``: every point (zero rows for catalogs without any);
- ``parquet-manifest.json``: what was exported, with each file's rows, size and SHA-256.

Every file carries the catalog's identity and the vector rules (int8 scale, bit method,
packing, the centered-sign center, the full embedding profile) as key/value metadata.

Determinism: rows go out in primary-key order, row groups are cut by a data-only rule (a row
count, or a text budget for large bodies), the writer's options are pinned, and nothing records
the clock or the output path, so the same catalog exported with the same gezel-knowledge and
pyarrow gives byte-identical files. pyarrow writes its own version as the files' ``created_by``
and offers no way to set it; the report records it.

The export is written to a temporary folder beside the output folder and renamed into place
when complete, so a failed export leaves nothing half-written; an overwrite renames the previous
export aside first and removes it after, so the folder never holds a mix of the two.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gezel_knowledge._files import check_output_folder
from gezel_knowledge._version import __version__
from gezel_knowledge.archive.paths import ROUTER_PATH
from gezel_knowledge.archive.verify import file_sha256
from gezel_knowledge.errors import IntegrityFailure, InvalidInput
from gezel_knowledge.export._parquet_tables import (
    CompanionTable,
    TableName,
    TableSource,
    chunks_table,
    document_locations_table,
    documents_table,
    topic_documents_table,
    topic_paths,
    topics_table,
)
from gezel_knowledge.extras import require_extra
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezel_knowledge.reader import Catalog
from gezel_knowledge.reader._sqlite import open_catalog_database
from gezk.jcs import canonicalize
from gezk.manifest import CatalogManifest

__all__ = [
    "EXPORT_VERSION",
    "REPORT_NAME",
    "ROW_GROUP_ROWS",
    "ExportedFile",
    "ParquetExport",
    "export_parquet",
]

EXPORT_VERSION = 1
"""Version of the companion's layout, in every file's metadata and the report."""

REPORT_NAME = "parquet-manifest.json"
"""The report written beside the Parquet files."""

ROW_GROUP_ROWS = 32_768
"""Rows per row group (fewer when :data:`ROW_GROUP_TEXT_BYTES` of text come first)."""

ROW_GROUP_TEXT_BYTES = 64 * 1024 * 1024
"""Text (bodies, passages) per row group, so long documents do not make huge groups."""

# Every option that shapes the bytes, pinned rather than left to pyarrow's defaults.
_WRITER_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "data_page_version": "1.0",
    "data_page_size": 1024 * 1024,
    "dictionary_pagesize_limit": 1024 * 1024,
    "write_batch_size": 1024,
    "max_rows_per_page": 20_000,
    "use_byte_stream_split": False,
    "use_compliant_nested_type": True,
    "store_schema": True,
    "write_page_index": False,
    "write_page_checksum": False,
    "use_content_defined_chunking": False,
}

# Earlier exports named the locations file document-locations.parquet; it is still recognised,
# so overwriting such an export drops it.
_COMPANION_FILE = re.compile(
    r"(?:documents|chunks)-\d{3,}\.parquet|topics\.parquet|topic_documents\.parquet"
    r"|document[-_]locations\.parquet"
)


@dataclass(frozen=True, slots=True)
class ExportedFile:
    """One file of the companion: its name in the folder, table, rows, size and SHA-256."""

    path: str
    table: TableName
    rows: int
    size_bytes: int
    sha256: str
    shard_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The file's entry in ``parquet-manifest.json``."""
        entry: dict[str, Any] = {"path": self.path, "table": self.table}
        if self.shard_id is not None:
            entry["shardId"] = self.shard_id
        entry.update(rows=self.rows, sizeBytes=self.size_bytes, sha256=self.sha256)
        return entry


@dataclass(frozen=True, slots=True)
class ParquetExport:
    """What :func:`export_parquet` wrote."""

    directory: Path
    catalog_id: str
    version: str
    publisher_id: str
    format_version: str
    archive_sha256: str | None
    embedding_profile_id: str
    dimensions: int
    writer: str
    """The Parquet writer, as the files' ``created_by`` names it."""
    files: tuple[ExportedFile, ...]

    @property
    def report(self) -> Path:
        """The ``parquet-manifest.json`` beside the files."""
        return self.directory / REPORT_NAME

    def rows(self, table: TableName) -> int:
        """Rows exported for ``table``, over all its files."""
        return sum(f.rows for f in self.files if f.table == table)

    def to_json(self) -> dict[str, Any]:
        """The report, as written to ``parquet-manifest.json``."""
        return {
            "kind": "gezk-parquet-companion",
            "exportVersion": EXPORT_VERSION,
            "catalog": {
                "publisherId": self.publisher_id,
                "id": self.catalog_id,
                "version": self.version,
                "formatVersion": self.format_version,
                "archiveSha256": self.archive_sha256,
            },
            "embedding": {"id": self.embedding_profile_id, "dimensions": self.dimensions},
            "writer": self.writer,
            "exporter": {"name": "gezel-knowledge", "version": __version__},
            "files": [f.to_json() for f in self.files],
        }


def export_parquet(
    catalog: Catalog | Path | str,
    out_dir: Path | str,
    *,
    overwrite: bool = False,
    row_group_rows: int = ROW_GROUP_ROWS,
    progress: ProgressSink | None = None,
) -> ParquetExport:
    """Write the Parquet companion of ``catalog`` (an open catalog, a ``.gezk`` file or an
    extracted catalog directory) into ``out_dir``.

    ``out_dir`` must be absent or empty unless ``overwrite`` is true; then a previous export
    there is replaced as a whole (other files in the folder are kept).
    Needs the ``parquet`` extra (pyarrow).
    """
    pa = require_extra("pyarrow", "parquet", "the Parquet export")
    pq = require_extra("pyarrow.parquet", "parquet", "the Parquet export")
    if isinstance(row_group_rows, bool) or row_group_rows < 1:
        raise InvalidInput(
            f"row_group_rows must be a positive integer, not {row_group_rows!r}",
            reason="invalid-argument",
        )
    out = Path(out_dir)
    _check_output(out, overwrite=overwrite)
    handle = catalog if isinstance(catalog, Catalog) else open_catalog(catalog)
    try:
        return _export(handle, out, _Writer(pa, pq, row_group_rows, progress))
    finally:
        if handle is not catalog:
            handle.close()


def _export(catalog: Catalog, out: Path, writer: _Writer) -> ParquetExport:
    """Write every file and the report into a staging folder beside ``out``, then publish."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    # mkdtemp makes a private (0700) folder; the export is a folder like any the user makes.
    staging.chmod(0o777 & ~_umask())
    try:
        with contextlib.closing(_companion_tables(writer.pa, catalog)) as tables:
            files = tuple(writer.write(table, staging) for table in tables)
        _check_counts(catalog.manifest, files)
        name = writer.created_by(staging / files[0].path)
        result = _result(catalog, out, files, writer_name=name)
        (staging / REPORT_NAME).write_text(
            json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        _publish(staging, out, [f.path for f in files])
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


# -- tables ------------------------------------------------------------------------------------


def _companion_tables(pa: Any, catalog: Catalog) -> Generator[CompanionTable, None, None]:
    """The companion's tables in file order; each shard database is open while it is read."""
    manifest = catalog.manifest
    schema = manifest.index_schema_version
    dimensions = manifest.embedding.dimensions
    router = open_catalog_database(catalog.root / ROUTER_PATH, schema)
    try:
        src = TableSource(pa, router, schema, _file_metadata(manifest, catalog.archive_sha256))
        yield topics_table(src)
        yield topic_documents_table(src)
        yield document_locations_table(src)
        paths = topic_paths(router)
        for shard in sorted(manifest.router.shards, key=lambda s: s.id):
            yield documents_table(src, shard.id, expected_rows=shard.documents, paths=paths)
            embedded = shard.path == ROUTER_PATH
            conn = (
                router
                if embedded
                else open_catalog_database(catalog.root.joinpath(*shard.path.split("/")), schema)
            )
            try:
                yield chunks_table(
                    src, conn, shard.id, expected_rows=shard.chunks, dimensions=dimensions
                )
            finally:
                if not embedded:
                    conn.close()
    finally:
        router.close()


def _file_metadata(manifest: CatalogManifest, archive_sha256: str | None) -> dict[str, str]:
    """The key/value metadata of every companion file: identity and the vector rules."""
    profile = manifest.embedding
    dims = profile.dimensions
    centered = profile.binary.method == "centered-sign"
    bit_rule = (
        "bit[i] = 1 if x[i] - c[i] > 0 else 0, c = gezk_embedding_bit_center"
        if centered
        else "bit[i] = 1 if x[i] > 0 else 0"
    )
    metadata = {
        "gezk_parquet_export_version": str(EXPORT_VERSION),
        "gezk_publisher_id": manifest.publisher.id,
        "gezk_catalog_id": manifest.id,
        "gezk_catalog_version": manifest.version,
        "gezk_format_version": manifest.format_version,
        "gezk_license": manifest.license.name,
        "gezk_embedding_profile": profile.id,
        "gezk_embedding_dimensions": str(dims),
        "gezk_embedding_int8": (
            f"embedding holds {dims} int8 q[i] = clamp(round(x[i] * 127), -127, 127) of the unit "
            "vector x (round half up); dequantise as x[i] = q[i] / 127"
        ),
        "gezk_embedding_int8_scale": "127",
        "gezk_embedding_bit": (
            f"embedding_bit holds ceil({dims} / 8) = {(dims + 7) // 8} bytes of sign bits, "
            f"LSB-first (byte j, bit k is dimension 8j + k): {bit_rule}, x the unit vector"
        ),
        "gezk_embedding_bit_method": profile.binary.method,
        "gezk_embedding_bit_packing": "lsb-first",
    }
    if archive_sha256 is not None:
        metadata["gezk_archive_sha256"] = archive_sha256
    if profile.binary.center is not None:
        metadata["gezk_embedding_bit_center"] = json.dumps(list(profile.binary.center))
    metadata["gezk_embedding_profile_json"] = canonicalize(manifest.raw["embedding"]).decode()
    metadata["gezk_exporter"] = f"gezel-knowledge {__version__}"
    return metadata


# -- writing -----------------------------------------------------------------------------------


class _Writer:
    """Writes one table to one Parquet file in row groups, reporting progress.

    A row group closes at exactly ``group_rows`` rows, or earlier once the batches in it carry
    :data:`ROW_GROUP_TEXT_BYTES` of text: a rule of the data alone, so the cuts (and the bytes)
    are the same on every run.
    """

    def __init__(self, pa: Any, pq: Any, group_rows: int, progress: ProgressSink | None) -> None:
        self.pa = pa
        self.pq = pq
        self.group_rows = group_rows
        self.progress = progress
        self.done = 0

    def write(self, table: CompanionTable, folder: Path) -> ExportedFile:
        path = folder / table.file
        self.done = 0
        self._emit(table)
        with self.pq.ParquetWriter(str(path), table.schema, **_WRITER_OPTIONS) as out:
            pending = self.pa.Table.from_batches([], schema=table.schema)
            text = 0
            for batch in table.batches():
                pending = self.pa.concat_tables([pending, self.pa.table(batch.record_batch)])
                text += batch.text_bytes
                while pending.num_rows >= self.group_rows:
                    self._group(out, table, pending.slice(0, self.group_rows))
                    pending = pending.slice(self.group_rows)
                    text = 0
                if text >= ROW_GROUP_TEXT_BYTES:
                    self._group(out, table, pending)
                    pending = pending.slice(pending.num_rows)
                    text = 0
            if pending.num_rows:
                self._group(out, table, pending)
        return ExportedFile(
            path=table.file,
            table=table.table,
            rows=self.done,
            size_bytes=path.stat().st_size,
            sha256=file_sha256(path),
            shard_id=table.shard_id,
        )

    def _group(self, out: Any, table: CompanionTable, rows: Any) -> None:
        # One call, one row group: its size is the rule above, not pyarrow's default.
        out.write_table(rows, row_group_size=rows.num_rows)
        self.done += rows.num_rows
        self._emit(table)

    def created_by(self, path: Path) -> str:
        """The writer's name as a written file records it."""
        return str(self.pq.ParquetFile(str(path)).metadata.created_by)

    def _emit(self, table: CompanionTable) -> None:
        emit_safely(
            self.progress,
            ProgressEvent("export-parquet", table.file, self.done, table.expected_rows, "rows"),
        )


def _check_counts(manifest: CatalogManifest, files: tuple[ExportedFile, ...]) -> None:
    """The exported rows must be the manifest's counts: a catalog that disagrees is refused."""

    def rows(table: TableName) -> int:
        return sum(f.rows for f in files if f.table == table)

    expected = [
        ("documents", rows("documents"), manifest.counts.documents),
        ("chunks", rows("chunks"), manifest.counts.chunks),
    ]
    shards = {s.id: s for s in manifest.router.shards}
    for f in files:
        if f.shard_id is not None:
            shard = shards[f.shard_id]
            want = shard.documents if f.table == "documents" else shard.chunks
            expected.append((f.path, f.rows, want))
    if manifest.spatial is not None:
        expected.append(
            ("document locations", rows("document_locations"), manifest.spatial.location_count)
        )
    for what, got, want in expected:
        if got != want:
            raise IntegrityFailure(
                f"{what}: {got} rows exported, the manifest says {want}",
                reason="count-mismatch",
                subject=what,
            )


def _result(
    catalog: Catalog, out: Path, files: tuple[ExportedFile, ...], *, writer_name: str
) -> ParquetExport:
    manifest = catalog.manifest
    return ParquetExport(
        directory=out,
        catalog_id=manifest.id,
        version=manifest.version,
        publisher_id=manifest.publisher.id,
        format_version=manifest.format_version,
        archive_sha256=catalog.archive_sha256,
        embedding_profile_id=manifest.embedding.id,
        dimensions=manifest.embedding.dimensions,
        writer=writer_name,
        files=files,
    )


# -- output folder -----------------------------------------------------------------------------


def _check_output(out: Path, *, overwrite: bool) -> None:
    check_output_folder(out, "the Parquet export")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise InvalidInput(
            f"{out} is not empty: --overwrite replaces the export in it",
            reason="output-exists",
            subject=str(out),
        )


def _publish(staging: Path, out: Path, names: list[str]) -> None:
    """Put the finished export at ``out`` with one rename, so ``out`` holds the old export or the
    new one, never a mix. A previous export is renamed aside first and removed once the new one
    is in place; files in ``out`` that no export wrote (a user's notes) are carried over."""
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    if not out.exists():
        os.rename(staging, out)
        return
    exported = _previous_files(out) | set(names) | {REPORT_NAME}
    for entry in sorted(out.iterdir()):
        if entry.name not in exported:
            _carry_over(entry, staging / entry.name)
    previous = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}.previous"
    os.rename(out, previous)
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(previous, out)
        raise
    shutil.rmtree(previous, ignore_errors=True)


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link (no bytes copied, the file untouched), or a copy where links are refused."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _carry_over(entry: Path, target: Path) -> None:
    """Put ``entry`` at ``target`` as well, leaving ``entry`` where it is until the swap."""
    if entry.is_symlink():
        os.symlink(os.readlink(entry), target)
    elif entry.is_dir():
        shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
    else:
        _link_or_copy(str(entry), str(target))


def _previous_files(out: Path) -> set[str]:
    """Companion files a previous report in ``out`` lists (only names this exporter writes)."""
    try:
        report = json.loads((out / REPORT_NAME).read_text(encoding="utf-8"))
        listed = [entry["path"] for entry in report["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {p for p in listed if isinstance(p, str) and _COMPANION_FILE.fullmatch(p)}


def _umask() -> int:
    """The process's umask (read by setting it, then put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
