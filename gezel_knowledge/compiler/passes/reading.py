"""A build's first passes: list the documents, then read, chunk and embed them in order.

**Listing** validates the source's documents one at a time into the staging database, which
catches repeated ids and sorts them into processing order ``(topicPathKey, documentId)``; no
list of documents is held.

**Reading** loads each body in that order (the input adapters rewrite links and normalise it),
groups bodies into batches of about :data:`BATCH_CHARS` characters, and hands the batches to an
executor (this process, local worker processes, or Ray). The results come back in order; the
driver stages every document's body and chunks and gives every chunk its vector
(:class:`~gezel_knowledge.compiler.passes.embedding.PassageVectors`). Only the batches in flight are
in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.errors import BuildWarning, SourceError
from gezel_knowledge.compiler.passes.bodies import MAX_BODY_BYTES
from gezel_knowledge.compiler.passes.embedding import PassageVectors
from gezel_knowledge.compiler.passes.executors import Executor
from gezel_knowledge.compiler.passes.passages import DocumentText
from gezel_knowledge.compiler.passes.staging import Staging
from gezel_knowledge.compiler.sources.source import LinkBase, SourceDocument
from gezel_knowledge.compiler.sources.validation import duplicate_document, validate_document
from gezk.toc import Topic

_SECTION_PAGE_STEMS = frozenset({"index", "readme", "_index"})

__all__ = ["BATCH_CHARS", "ReadPass", "list_documents"]

BATCH_CHARS = 64 * 1024
"""Body characters per batch of documents (a batch closes once it holds this many, or as many
documents as one embed call takes passages: every document gives at least one passage)."""

Report = Callable[[int, int, int], None]
"""``(documents done, documents, chunks done)``: called after each batch is staged."""


def list_documents(
    staging: Staging,
    documents: Sequence[SourceDocument],
    topics: Mapping[str, Topic],
    default_language: str,
) -> int:
    """Validate every document into ``staging`` (in source order); the number listed."""

    def unique(doc: SourceDocument) -> None:
        holder = staging.holder_of(doc.id)
        if holder is not None:
            raise duplicate_document(doc, *holder)

    count = 0
    for index, doc in enumerate(documents):
        staging.list_document(
            index, validate_document(doc, topics, default_language, unique=unique)
        )
        count += 1
    return count


@dataclass(slots=True)
class ReadPass:
    """Pass 1 over the listed documents (see the module docstring)."""

    documents: Sequence[SourceDocument]
    links: LinkBase
    staging: Staging
    vectors: PassageVectors
    warnings: list[BuildWarning]
    batch_documents: int
    chunks: int = 0

    def run(self, executor: Executor, report: Report) -> int:
        """Read, chunk and embed every listed document; the number of chunks."""
        order = self.staging.processing_order()
        done = 0
        for batch in executor.run(self._batches(order)):
            first_row = self.vectors.rows
            for doc in batch.documents:
                index = int(order[doc.seq])
                self.staging.add(
                    doc.seq,
                    index,
                    body_codec=doc.body_codec,
                    body_blob=doc.body_blob,
                    chunks=doc.chunks,
                    first_row=first_row,
                )
                first_row += len(doc.chunks)
                if not doc.chunks:
                    self._empty(index)
            self.vectors.take(batch)
            self.chunks += batch.chunks
            done += len(batch.documents)
            report(done, int(order.shape[0]), self.chunks)
        return self.chunks

    def _batches(self, order: NDArray[np.int64]) -> Iterator[list[DocumentText]]:
        batch: list[DocumentText] = []
        size = 0
        for seq, index in enumerate(order.tolist()):
            src = self.documents[index]
            text = self._body(src)
            batch.append(DocumentText(seq, src.id, src.title, text))
            size += len(text)
            if size >= BATCH_CHARS or len(batch) >= self.batch_documents:
                yield batch
                batch, size = [], 0
        if batch:
            yield batch

    def _body(self, src: SourceDocument) -> str:
        text = src.load_body(self.links)
        size = len(text.encode("utf-8"))
        if size > MAX_BODY_BYTES:
            raise SourceError(
                f"body is {size:,} bytes (limit {MAX_BODY_BYTES:,})",
                reason="body-too-large",
                document=src.id,
                path=src.origin,
                line=src.origin_line,
            )
        return text

    def _empty(self, index: int) -> None:
        src = self.documents[index]
        if src.id.rsplit("/", 1)[-1].split(".", 1)[0].lower() in _SECTION_PAGE_STEMS:
            # A section's own page (Hugo's _index.md, or _index.en.md for its language, an
            # index.md or README.md leading a folder) with no text is what generators show
            # as the section's listing: the site is fine, so nothing is said.
            return
        self.warnings.append(
            BuildWarning(
                "empty-document",
                "has no text to search (no passages)",
                document=src.id,
                path=src.origin,
                line=src.origin_line,
            )
        )
