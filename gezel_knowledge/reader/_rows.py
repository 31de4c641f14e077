"""Typed rows of the catalog databases (spec section 5.2), read by column name.

Columns that older schemas lack are selected as ``NULL`` under the same name, so one row type
serves every supported schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gezel_knowledge._rows import Row
from gezk import untrusted_json

__all__ = ["CHUNK_COLUMNS", "ChunkRow", "DocumentRow", "ShardInfo", "document_columns"]

CHUNK_COLUMNS = (
    "id, chunk_uid, document_id, ordinal, title, heading_path, line_start, line_end, text"
)
"""The ``chunks`` columns a :class:`ChunkRow` is read from."""


def document_columns(schema: int) -> str:
    """The ``documents`` columns a :class:`DocumentRow` is read from, for index ``schema``."""
    extra = "ordinal, meta_json" if schema >= 3 else "NULL AS ordinal, NULL AS meta_json"
    return (
        "id, title, slug, summary, language, topic_id, shard_id, chunk_count, source_url,"
        f" source_revision, source_updated_at, attribution_json, {extra}"
    )


def _heading_path(raw: object) -> tuple[str, ...]:
    try:
        value = untrusted_json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(str(v) for v in value if isinstance(v, str))


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """A shard as the router lists it."""

    id: int
    path: str
    chunk_count: int
    document_count: int

    @classmethod
    def from_row(cls, row: Row) -> ShardInfo:
        """A ``shards`` row."""
        return cls(
            int(row["id"]), str(row["path"]), int(row["chunk_count"]), int(row["document_count"])
        )


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """A ``documents`` row of the router (JSON columns still encoded)."""

    id: str
    title: str
    slug: str
    summary: str | None
    language: str
    topic_id: str
    shard_id: int
    chunk_count: int
    source_url: str | None
    source_revision: str | None
    source_updated_at: str | None
    attribution_json: str | None
    ordinal: int | None
    meta_json: str | None

    @classmethod
    def from_row(cls, row: Row) -> DocumentRow:
        """A row selected with :func:`document_columns`."""
        return cls(
            id=str(row["id"]),
            title=str(row["title"]),
            slug=str(row["slug"]),
            summary=row["summary"],
            language=str(row["language"]),
            topic_id=str(row["topic_id"]),
            shard_id=int(row["shard_id"]),
            chunk_count=int(row["chunk_count"]),
            source_url=row["source_url"],
            source_revision=row["source_revision"],
            source_updated_at=row["source_updated_at"],
            attribution_json=row["attribution_json"],
            ordinal=_optional_int(row["ordinal"]),
            meta_json=row["meta_json"],
        )


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A passage as stored in a shard."""

    shard_id: int
    chunk_id: int
    chunk_uid: str
    document_id: str
    ordinal: int
    title: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    text: str

    @classmethod
    def from_row(cls, shard_id: int, row: Row) -> ChunkRow:
        """A row selected with :data:`CHUNK_COLUMNS` from shard ``shard_id``."""
        return cls(
            shard_id=shard_id,
            chunk_id=int(row["id"]),
            chunk_uid=str(row["chunk_uid"]),
            document_id=str(row["document_id"]),
            ordinal=int(row["ordinal"]),
            title=str(row["title"]),
            heading_path=_heading_path(row["heading_path"]),
            line_start=int(row["line_start"]),
            line_end=int(row["line_end"]),
            text=str(row["text"]),
        )
