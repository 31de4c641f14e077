"""The Parquet document-list adapter: a Parquet file of normalised documents to a source.

The columns are the JSON Lines list's fields
(:mod:`~gezel_knowledge.compiler.sources.document_list`): ``id``, ``title``, the body as
``markdown`` (or ``body``), and optionally ``topicPath``, ``slug``, ``summary``, ``language``,
``ordinal``, ``tocReferences``, ``aliases``, ``sourceUrl``, ``sourceRevision``, ``sourceUpdatedAt``,
``attribution``, ``meta`` and ``locations``. A null is an absent field. A row without a
``topicPath`` is placed in the catalog's root topic (catalog.yaml ``rootTopic``, else one named
after the catalog), as top-level pages of a Markdown tree are. Where the JSON Lines list takes a
list or an object (``topicPath``, ``tocReferences``, ``locations``, ``meta``, ``attribution``, a
location's ``provenance``) the column may hold it as Parquet lists, structs and maps, or as JSON
text.

The file is read one row group at a time (never whole). Each row is transcoded into the
line a JSON Lines list would hold for it, in a temporary file that the JSON Lines adapter then
reads: the two inputs follow one set of rules, and the same documents give the same archive.
Bodies are read back from that file when the build reaches them; it is deleted when the source
is no longer referenced. Errors name the Parquet row, counted from 1. Needs the ``parquet``
extra (pyarrow).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogFile,
    CatalogMetadata,
    TopicDeclaration,
    source_metadata,
)
from gezel_knowledge.compiler.metadata.overrides import MetadataInput, apply_metadata
from gezel_knowledge.compiler.sources.document_list import ListedDocuments, load_document_list
from gezel_knowledge.compiler.sources.inputs import notice_files
from gezel_knowledge.compiler.sources.source import CatalogSource
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezel_knowledge.extras import require_extra

__all__ = ["DocumentRowError", "load_parquet_document_list"]

BATCH_ROWS = 256
"""Rows decoded from the Parquet file at a time (never more than one row group)."""

_SPILL_NAME = "rows.jsonl"
_TEXT_FIELDS = frozenset(
    {
        "id",
        "title",
        "slug",
        "summary",
        "language",
        "markdown",
        "body",
        "sourceUrl",
        "sourceRevision",
        "sourceUpdatedAt",
    }
)
# Fields the JSON Lines list never takes as a string, so a string column holds JSON text.
# (``aliases`` may be one string, as in a JSON Lines list, so it is not among them.)
_JSON_TEXT_FIELDS = frozenset({"topicPath", "tocReferences", "locations", "meta", "attribution"})
_KNOWN_FIELDS = _TEXT_FIELDS | _JSON_TEXT_FIELDS | {"aliases", "ordinal"}


class DocumentRowError(SourceError):
    """A row of a Parquet document list that cannot be built; ``row`` counts from 1."""

    def __init__(self, message: str, *, reason: str, path: str, row: int) -> None:
        super().__init__(message, reason=reason, path=f"{path} row {row}")
        self.path = path
        self.row = row


def load_parquet_document_list(
    path: Path | str,
    *,
    metadata: MetadataInput | None = None,
    assets_dir: Path | None = None,
    catalog: CatalogFile | None = None,
) -> CatalogSource:
    """Read a Parquet document list (and the catalog.yaml beside it, or ``catalog`` instead of
    it) into a source; ``metadata`` overrides field by field."""
    pa = require_extra("pyarrow", "parquet", "reading a Parquet document list")
    pq = require_extra("pyarrow.parquet", "parquet", "reading a Parquet document list")
    path = Path(path).resolve()
    if not path.is_file():
        raise SourceError("is not a file", reason="not-a-file", path=str(path))
    root = path.parent
    meta = apply_metadata(source_metadata(root / "catalog.yaml", catalog), metadata)
    staging = tempfile.TemporaryDirectory(prefix="gezk-parquet-list-")
    spill = Path(staging.name) / _SPILL_NAME
    try:
        transcoder = _Transcoder(pa, path.name, _root_topic(meta))
        with spill.open("wb") as out:
            transcoder.write(pq, path, out)
        if transcoder.used_root:
            meta = _declaring(meta, transcoder.root)
        source = load_document_list(spill, assets_dir=assets_dir or root, catalog=meta)
    except SourceError as exc:
        staging.cleanup()
        if exc.path != _SPILL_NAME:
            raise
        # The JSON Lines adapter names its line; line N of the spill file is row N.
        message = exc.message.removeprefix(f"{exc.subject}: ")
        raise DocumentRowError(
            message, reason=exc.reason, path=path.name, row=exc.line or 0
        ) from None
    except BaseException:
        staging.cleanup()
        raise
    readme, license_file = notice_files(source.metadata, root)
    assert isinstance(source.documents, ListedDocuments)
    return replace(
        source,
        root=root,
        # The staged rows are deleted when the last document referring to them goes.
        documents=source.documents.as_rows(path.name, staging),
        readme=readme if readme.is_file() else None,
        license_notice=license_file,
    )


def _root_topic(meta: CatalogMetadata) -> TopicDeclaration:
    """The topic of rows without a ``topicPath``: catalog.yaml ``rootTopic``, else the
    catalog's own (its id and name), as for top-level pages of a Markdown tree."""
    declared = meta.root_topic
    name = (declared.name if declared and declared.name else None) or meta.name or "Overview"
    topic_id = (declared.id if declared and declared.id else None) or meta.id
    if topic_id is None:
        topic_id = derive_topic_id(name)
    description = declared.description if declared else None
    return TopicDeclaration(topic_id, name, description=description)


def _declaring(meta: CatalogMetadata, topic: TopicDeclaration) -> CatalogMetadata:
    declared = meta.topics or ()
    if any(t.id == topic.id for t in declared):
        return meta
    return replace(meta, topics=(*declared, topic))


class _Transcoder:
    """Parquet rows to JSON Lines objects, one line per row."""

    def __init__(self, pa: Any, name: str, root: TopicDeclaration) -> None:
        self.pa = pa
        self.name = name
        self.root = root
        self.used_root = False
        self.row = 0

    def write(self, pq: Any, path: Path, out: BinaryIO) -> None:
        try:
            # pre_buffer would read every row group's columns up front: the whole file in memory.
            parquet = pq.ParquetFile(str(path), pre_buffer=False)
            self._check_schema(parquet.schema_arrow)
            for group in range(parquet.num_row_groups):
                for batch in parquet.iter_batches(
                    batch_size=BATCH_ROWS, row_groups=[group], use_threads=False
                ):
                    for obj in self._objects(batch):
                        out.write(self._line(obj))
        except (self.pa.ArrowException, OSError) as exc:
            where = f" after row {self.row}" if self.row else ""
            raise SourceError(
                f"cannot read the Parquet file{where}: {exc}",
                reason="invalid-parquet",
                path=self.name,
            ) from None

    def _check_schema(self, schema: Any) -> None:
        names = list(schema.names)
        unknown = sorted(set(names) - _KNOWN_FIELDS)
        if unknown:
            raise SourceError(
                f"unknown columns {unknown}", reason="invalid-document", path=self.name
            )
        missing = [c for c in ("id", "title") if c not in names]
        if "markdown" not in names and "body" not in names:
            missing.append("markdown")
        if missing:
            raise SourceError(
                f"missing columns {missing}: a document list needs id, title and markdown",
                reason="invalid-document",
                path=self.name,
            )
        for field in schema:
            if not _plain_type(self.pa, field.type):
                raise SourceError(
                    f"column {field.name} has type {field.type}, which a document list cannot "
                    "hold (use strings, integers, floats, lists, structs or maps)",
                    reason="invalid-column-type",
                    path=self.name,
                )

    def _objects(self, batch: Any) -> Iterator[dict[str, Any]]:
        names = batch.schema.names
        columns = [
            _values(self.pa, batch.column(i), batch.schema.field(i).type) for i in range(len(names))
        ]
        for values in zip(*columns, strict=True):
            self.row += 1
            yield self._object(dict(zip(names, values, strict=True)))

    def _object(self, row: Mapping[str, Any]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, raw in row.items():
            if raw is None:
                continue
            value = self._json_text(raw, key) if key in _JSON_TEXT_FIELDS else raw
            if key == "locations" and isinstance(value, list):
                value = [self._location(item) for item in value]
            obj[key] = value
        if "topicPath" not in obj:
            self.used_root = True
            obj["topicPath"] = [self.root.id]
        return obj

    def _location(self, item: Any) -> Any:
        if isinstance(item, dict) and isinstance(item.get("provenance"), str):
            return {**item, "provenance": self._json_text(item["provenance"], "provenance")}
        return item

    def _json_text(self, text: Any, key: str) -> Any:
        """``text`` parsed as JSON when it is a string; any other value as it is."""
        if not isinstance(text, str):
            return text
        try:
            return json.loads(text)
        except ValueError as exc:
            raise DocumentRowError(
                f"{key} is text but not JSON: {exc}",
                reason="invalid-json",
                path=self.name,
                row=self.row,
            ) from None

    def _line(self, obj: dict[str, Any]) -> bytes:
        try:
            return json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"
        except (UnicodeEncodeError, ValueError) as exc:
            raise DocumentRowError(
                f"cannot be read as a document: {exc}",
                reason="invalid-document",
                path=self.name,
                row=self.row,
            ) from None


def _plain_type(pa: Any, t: Any) -> bool:
    """Whether values of Arrow type ``t`` are JSON values (strings, numbers, lists, objects)."""
    types = pa.types
    if types.is_dictionary(t):
        return bool(_plain_type(pa, t.value_type))
    if types.is_map(t):
        return bool(types.is_string(t.key_type) or types.is_large_string(t.key_type)) and bool(
            _plain_type(pa, t.item_type)
        )
    if types.is_list(t) or types.is_large_list(t) or types.is_fixed_size_list(t):
        return bool(_plain_type(pa, t.value_type))
    if types.is_list_view(t) or types.is_large_list_view(t):
        return bool(_plain_type(pa, t.value_type))
    if types.is_struct(t):
        return all(_plain_type(pa, t.field(i).type) for i in range(t.num_fields))
    return bool(
        types.is_string(t)
        or types.is_large_string(t)
        or types.is_string_view(t)
        or types.is_integer(t)
        or types.is_floating(t)
        or types.is_boolean(t)
        or types.is_null(t)
    )


def _has_map(pa: Any, t: Any) -> bool:
    types = pa.types
    if types.is_map(t):
        return True
    if types.is_struct(t):
        return any(_has_map(pa, t.field(i).type) for i in range(t.num_fields))
    value_type = getattr(t, "value_type", None)
    return value_type is not None and _has_map(pa, value_type)


def _values(pa: Any, column: Any, t: Any) -> list[Any]:
    """A column's values as JSON values: Arrow maps (pairs in Python) become objects."""
    values: list[Any] = column.to_pylist()
    if not _has_map(pa, t):
        return values
    return [_plain(pa, v, t) for v in values]


def _plain(pa: Any, value: Any, t: Any) -> Any:
    types = pa.types
    if value is None:
        return None
    if types.is_dictionary(t):
        return _plain(pa, value, t.value_type)
    if types.is_map(t):
        return {k: _plain(pa, v, t.item_type) for k, v in value}
    if types.is_struct(t):
        return {
            t.field(i).name: _plain(pa, value[t.field(i).name], t.field(i).type)
            for i in range(t.num_fields)
        }
    if isinstance(value, list):
        return [_plain(pa, v, t.value_type) for v in value]
    return value
