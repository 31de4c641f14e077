"""One topic's own documents in table-of-contents order, a page or a neighbour at a time.

``list_documents(topic, descendants=False, order="toc")`` answers the same question by ranking
every placement of the topic for each page (a window over all of them, then a sort), so every
page of a topic of 50,000 documents costs what listing all of them costs. :class:`TopicOrder`
walks the router's indexes instead: the documents filed at the topic through ``documents_topic
(topic_id, ordinal, slug)``, a page by its offset along that index and a neighbour by a seek to
the next key, so a page costs what it lists. The order is the same: ``(ordinal IS NULL),
ordinal, slug, id``.

Placements by reference (schema 4: ``topic_documents`` rows of documents whose primary topic is
another) are not in that index. A topic that has any (its placements outnumber the documents
filed at it) reads them once, in one pass over its placements, and merges them in by key.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from gezel_knowledge._rows import Row, fetch_all, fetch_one
from gezel_knowledge._untrusted import MAX_COUNT
from gezel_knowledge.errors import NotFound
from gezel_knowledge.reader.models import DocumentPage, DocumentSummary

__all__ = ["TopicOrder"]

T = TypeVar("T")
Key = tuple[int, int, str, str]
"""A placement's place in the order: (no ordinal, ordinal, slug, id)."""
Runner = Callable[[Callable[[sqlite3.Connection], Any]], Any]
"""Runs a reading of the router under the catalog handle's lock."""

# (condition, its parameters' names, ORDER BY) of the two runs of the filed documents: those
# with an ordinal first, then those without, each ascending or descending.
_WITH_ORDINAL = ("ordinal IS NOT NULL", "ordinal, slug, id", "ordinal DESC, slug DESC, id DESC")
_WITHOUT_ORDINAL = ("ordinal IS NULL", "slug, id", "slug DESC, id DESC")


def _key(row: DocumentSummary) -> Key:
    if row.ordinal is None:
        return (1, 0, row.slug, row.id)
    return (0, row.ordinal, row.slug, row.id)


@dataclass(frozen=True, slots=True)
class _Placed:
    key: Key
    document: DocumentSummary


class TopicOrder:
    """The documents placed at one topic itself (not its subtopics), in table-of-contents
    order; get one with :meth:`Catalog.topic_order <gezel_knowledge.reader.Catalog.topic_order>`.
    """

    def __init__(self, run: Runner, schema: int, topic_id: str) -> None:
        self._run = run
        self.topic_id = topic_id
        self._ordinal = "ordinal" if schema >= 3 else "NULL"
        self._columns = f"id, title, slug, {self._ordinal} AS ordinal, summary"
        opened: tuple[int, int, list[_Placed]] = run(lambda conn: self._open(conn, schema))
        filed, with_ordinal, references = opened
        self._filed = filed
        self._with_ordinal = with_ordinal
        self._references: list[_Placed] = references
        self._reference_keys = [r.key for r in references]

    def _open(self, conn: sqlite3.Connection, schema: int) -> tuple[int, int, list[_Placed]]:
        if conn.execute("SELECT 1 FROM topics WHERE id = ?", (self.topic_id,)).fetchone() is None:
            raise NotFound(
                f"no topic {self.topic_id!r} in this catalog",
                reason="topic-not-found",
                subject=self.topic_id,
            )
        filed = self._count(conn, "1", ())
        with_ordinal = self._count(conn, "ordinal IS NOT NULL", ())
        references: list[_Placed] = []
        if schema >= 4:
            (placed,) = conn.execute(
                "SELECT COUNT(*) FROM topic_documents WHERE topic_id = ?", (self.topic_id,)
            ).fetchone()
            if placed != filed:
                references = self._read_references(conn)
        return filed, with_ordinal, references

    def _read_references(self, conn: sqlite3.Connection) -> list[_Placed]:
        rows = fetch_all(
            conn,
            "SELECT d.id, d.title, d.slug, td.ordinal AS ordinal, d.summary"
            " FROM topic_documents td JOIN documents d ON d.id = td.document_id"
            " WHERE td.topic_id = ? AND d.topic_id != ?",
            (self.topic_id, self.topic_id),
        )
        placed = [_Placed(_key(doc), doc) for doc in map(self._summary, rows)]
        return sorted(placed, key=lambda p: p.key)

    # -- the documents filed at the topic, through the index ------------------------------------

    def _where(self, condition: str) -> str:
        return condition.replace("ordinal", self._ordinal)

    def _count(self, conn: sqlite3.Connection, condition: str, params: Sequence[Any]) -> int:
        (n,) = conn.execute(
            f"SELECT COUNT(*) FROM documents WHERE topic_id = ? AND {self._where(condition)}",
            (self.topic_id, *params),
        ).fetchone()
        return int(n)

    def _summary(self, row: Row) -> DocumentSummary:
        return DocumentSummary(
            id=row["id"],
            title=row["title"],
            slug=row["slug"],
            topic_id=self.topic_id,
            ordinal=row["ordinal"],
            summary=row["summary"],
        )

    def _rows(  # noqa: PLR0917
        self,
        conn: sqlite3.Connection,
        condition: str,
        params: Sequence[Any],
        order: str,
        limit: int,
        offset: int = 0,
    ) -> list[_Placed]:
        if limit <= 0:
            return []
        rows = fetch_all(
            conn,
            f"SELECT {self._columns} FROM documents WHERE topic_id = ? AND"
            f" {self._where(condition)} ORDER BY {self._where(order)} LIMIT ? OFFSET ?",
            (self.topic_id, *params, limit, offset),
        )
        return [_Placed(_key(doc), doc) for doc in map(self._summary, rows)]

    def _filed_after(self, conn: sqlite3.Connection, key: Key | None, n: int) -> list[_Placed]:
        """Up to ``n`` filed documents after ``key`` (from the start when ``None``), ascending."""
        runs: list[tuple[str, Sequence[Any], str]]
        if key is None:
            runs = [(_WITH_ORDINAL[0], (), _WITH_ORDINAL[1])]
            runs.append((_WITHOUT_ORDINAL[0], (), _WITHOUT_ORDINAL[1]))
        elif key[0] == 0:
            runs = [
                ("ordinal = ? AND (slug, id) > (?, ?)", key[1:], _WITHOUT_ORDINAL[1]),
                ("ordinal > ?", key[1:2], _WITH_ORDINAL[1]),
                (_WITHOUT_ORDINAL[0], (), _WITHOUT_ORDINAL[1]),
            ]
        else:
            runs = [("ordinal IS NULL AND (slug, id) > (?, ?)", key[2:], _WITHOUT_ORDINAL[1])]
        out: list[_Placed] = []
        for condition, params, order in runs:
            out += self._rows(conn, condition, params, order, n - len(out))
        return out

    def _filed_before(self, conn: sqlite3.Connection, key: Key | None, n: int) -> list[_Placed]:
        """Up to ``n`` filed documents before ``key`` (from the end when ``None``), nearest
        first."""
        runs: list[tuple[str, Sequence[Any], str]]
        if key is None:
            runs = [(_WITHOUT_ORDINAL[0], (), _WITHOUT_ORDINAL[2])]
            runs.append((_WITH_ORDINAL[0], (), _WITH_ORDINAL[2]))
        elif key[0] == 0:
            runs = [
                ("ordinal = ? AND (slug, id) < (?, ?)", key[1:], _WITHOUT_ORDINAL[2]),
                ("ordinal < ?", key[1:2], _WITH_ORDINAL[2]),
            ]
        else:
            runs = [
                ("ordinal IS NULL AND (slug, id) < (?, ?)", key[2:], _WITHOUT_ORDINAL[2]),
                (_WITH_ORDINAL[0], (), _WITH_ORDINAL[2]),
            ]
        out: list[_Placed] = []
        for condition, params, order in runs:
            out += self._rows(conn, condition, params, order, n - len(out))
        return out

    def _filed_page(self, conn: sqlite3.Connection, offset: int, limit: int) -> list[_Placed]:
        """``limit`` filed documents from position ``offset``. Stepping over ``offset`` rows to
        reach them would read each one from the table (the order's last key, the id, is not in
        the index); instead the index alone finds the (ordinal, slug) at that position, a count
        says how many documents of that pair come before it, and the page is read from there."""
        if offset <= 0 or limit <= 0:
            return self._filed_after(conn, None, limit)
        with_ordinal = offset < self._with_ordinal
        position = offset if with_ordinal else offset - self._with_ordinal
        run = _WITH_ORDINAL[0] if with_ordinal else _WITHOUT_ORDINAL[0]
        found = conn.execute(
            f"SELECT {self._ordinal} AS ordinal, slug FROM documents WHERE topic_id = ? AND"
            f" {self._where(run)} ORDER BY {self._where('ordinal')}, slug LIMIT 1 OFFSET ?",
            (self.topic_id, position),
        ).fetchone()
        if found is None:
            return []
        ordinal, slug = found
        params: tuple[Any, ...]
        if with_ordinal:
            earlier = self._count(conn, "ordinal IS NOT NULL AND (ordinal, slug) < (?, ?)", found)
            same, params = "ordinal = ? AND slug = ?", (ordinal, slug)
        else:
            earlier = self._count(conn, "ordinal IS NULL AND slug < ?", (slug,))
            same, params = "ordinal IS NULL AND slug = ?", (slug,)
        out = self._rows(conn, same, params, "id", limit, position - earlier)
        if out and len(out) < limit:
            out += self._filed_after(conn, out[-1].key, limit - len(out))
        return out

    def _filed_before_count(self, conn: sqlite3.Connection, key: Key) -> int:
        """How many filed documents come before ``key``."""
        if key[0] == 0:
            lower = self._count(conn, "ordinal IS NOT NULL AND ordinal < ?", key[1:2])
            return lower + self._count(conn, "ordinal = ? AND (slug, id) < (?, ?)", key[1:])
        return self._with_ordinal + self._count(
            conn, "ordinal IS NULL AND (slug, id) < (?, ?)", key[2:]
        )

    # -- the order, references merged in --------------------------------------------------------

    @property
    def references(self) -> frozenset[str]:
        """The ids of the documents placed here by reference (filed under another topic)."""
        return frozenset(p.document.id for p in self._references)

    @property
    def total(self) -> int:
        """How many documents are placed at the topic itself."""
        return self._filed + len(self._references)

    def page(self, offset: int = 0, limit: int = 200) -> DocumentPage:
        """The documents from position ``offset`` on, at most ``limit`` of them."""
        # Clamped, not refused, as a negative one is: past MAX_COUNT no topic has a document,
        # and a larger number bound into SQLite failed as if the catalog were damaged.
        offset, limit = min(max(offset, 0), MAX_COUNT), min(max(limit, 0), MAX_COUNT)

        def read(conn: sqlite3.Connection) -> list[_Placed]:
            if not self._references:
                return self._filed_page(conn, offset, limit)
            # How many references come before position ``offset``: reference i sits at
            # (filed documents before it) + i, which grows with i.
            low, high = 0, len(self._references)
            while low < high:
                middle = (low + high) // 2
                at = self._filed_before_count(conn, self._reference_keys[middle]) + middle
                if at < offset:
                    low = middle + 1
                else:
                    high = middle
            filed = self._filed_page(conn, offset - low, limit)
            merged = sorted([*filed, *self._references[low : low + limit]], key=lambda p: p.key)
            return merged[:limit]

        placed: list[_Placed] = self._run(read)
        documents = tuple(p.document for p in placed)
        return DocumentPage(documents, self.total, offset, limit, self.topic_id, False)

    def neighbours(self, document_id: str) -> tuple[DocumentSummary | None, DocumentSummary | None]:
        """The documents before and after ``document_id`` at this topic (``None`` at either end,
        and both ``None`` when the document is not placed here)."""

        def read(conn: sqlite3.Connection) -> tuple[_Placed | None, _Placed | None]:
            key = self._key_of(conn, document_id)
            if key is None:
                return None, None
            before = self._filed_before(conn, key, 1)
            after = self._filed_after(conn, key, 1)
            i = bisect.bisect_left(self._reference_keys, key)
            j = bisect.bisect_right(self._reference_keys, key)
            earlier = [*before, *self._references[i - 1 : i]] if i > 0 else before
            later = [*after, *self._references[j : j + 1]]
            return (
                max(earlier, key=lambda p: p.key, default=None),
                min(later, key=lambda p: p.key, default=None),
            )

        previous, following = self._run(read)
        return (
            None if previous is None else previous.document,
            None if following is None else following.document,
        )

    def first(self) -> DocumentSummary | None:
        """The first document placed at the topic, if any."""
        found = self._run(lambda conn: self._filed_after(conn, None, 1))
        candidates = [*found, *self._references[:1]]
        best = min(candidates, key=lambda p: p.key, default=None)
        return None if best is None else best.document

    def last(self) -> DocumentSummary | None:
        """The last document placed at the topic, if any."""
        found = self._run(lambda conn: self._filed_before(conn, None, 1))
        candidates = [*found, *self._references[-1:]]
        best = max(candidates, key=lambda p: p.key, default=None)
        return None if best is None else best.document

    def _key_of(self, conn: sqlite3.Connection, document_id: str) -> Key | None:
        row = fetch_one(
            conn,
            f"SELECT {self._columns}, topic_id FROM documents WHERE id = ?",
            (document_id,),
        )
        if row is not None and row["topic_id"] == self.topic_id:
            return _key(self._summary(row))
        for placed in self._references:
            if placed.document.id == document_id:
                return placed.key
        return None
