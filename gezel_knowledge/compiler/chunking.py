"""The ``markdown-chunks@2`` chunker (spec section 7.2) and the embed input of a chunk.

A normalised body is split into blocks; ATX headings open sections and keep a heading stack.
Within a section, consecutive blocks are packed up to ``target`` units; a block that alone
exceeds the target is split at sentence boundaries, and a sentence that still exceeds it at unit
boundaries (token spans from the profile tokenizer, or characters for the ``chars`` unit). Each
chunk after the first of a section starts with an overlap of trailing complete sentences or
blocks of the previous chunk, at most ``overlap`` units, counted inside the target so that
``target + contextHeader.max`` stays within the model window.

Every chunk's text is an exact slice of the body, so its ``line_start``/``line_end`` are the
lines that slice covers. A heading line opens its section and names it (``heading_path``, and
the context header of the embed input) but is not packed into the text itself: a chunk never
consists of a stranded heading, and a section holding nothing but its heading yields no chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from gezel_knowledge.compiler.blocks import Block, LineIndex, parse_blocks
from gezel_knowledge.embedders.base import Tokenizer
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import ChunkingProfile

__all__ = ["Chunk", "UnitCounter", "chunk_markdown", "embed_header", "unit_counter"]


@dataclass(frozen=True, slots=True)
class Chunk:
    """One passage of a document, as stored in a shard's ``chunks`` table."""

    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    token_count: int
    content_hash: str
    chunk_uid: str

    @property
    def heading_text(self) -> str:
        """The heading path joined with ``" > "``."""
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class UnitCounter:
    """What a chunking profile counts: tokens of the profile tokenizer, or characters."""

    unit: Literal["tokens", "chars"]
    tokenizer: Tokenizer | None = None

    def count(self, text: str) -> int:
        """Units in ``text`` (special tokens excluded)."""
        if self.tokenizer is None:
            return len(text)
        return self.tokenizer.count(text)

    def boundaries(self, text: str) -> list[tuple[int, int]]:
        """Character spans of each unit of ``text``."""
        if self.tokenizer is None:
            return [(i, i + 1) for i in range(len(text))]
        return self.tokenizer.offsets(text)


def unit_counter(profile: ChunkingProfile, tokenizer: Tokenizer | None) -> UnitCounter:
    """The unit counter a chunking profile asks for, given the embedder's tokenizer."""
    if profile.unit == "chars":
        return UnitCounter("chars")
    if tokenizer is None:
        raise ValueError(f"chunking profile {profile.id} counts tokens but no tokenizer was given")
    return UnitCounter("tokens", tokenizer)


def embed_header(
    title: str, heading_path: Sequence[str], count: Callable[[str], int], limit: int
) -> str:
    """The context header of an embed input (spec section 7.2 step 5), truncated to ``limit``."""
    path = list(heading_path)
    if not path or path == [title]:
        header = f"{title}\n"
    else:
        header = f"{title}\n{' > '.join(path)}\n"
        if count(header) > limit:
            header = f"{title}\n"
    if count(header) > limit:
        return ""
    return header


ItemKind = Literal["block", "sentence", "piece"]


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    units: int
    kind: ItemKind


# A sentence ends at terminal punctuation (plus closing quotes or brackets) followed by
# whitespace, or at an ideographic full stop.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)|[。！？]+[」』”’）]*")
_WHITESPACE = re.compile(r"\s+")


def _sentences(body: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the sentences of ``body[start:end]``, surrounding whitespace excluded."""
    text = body[start:end]
    spans: list[tuple[int, int]] = []
    cursor = 0
    for match in _SENTENCE_END.finditer(text):
        stop = match.end()
        if text[cursor:stop].strip():
            spans.append((cursor, stop))
        gap = _WHITESPACE.match(text, stop)
        cursor = gap.end() if gap else stop
    if text[cursor:].strip():
        spans.append((cursor, len(text)))
    result = []
    for s, e in spans:
        piece = text[s:e]
        lead = len(piece) - len(piece.lstrip())
        trail = len(piece) - len(piece.rstrip())
        result.append((start + s + lead, start + e - trail))
    return result


class _Packer:
    def __init__(self, body: str, counter: UnitCounter, target: int, overlap: int) -> None:
        self.body = body
        self.counter = counter
        self.target = target
        self.overlap = overlap

    def items(self, blocks: Sequence[Block]) -> list[_Item]:
        out: list[_Item] = []
        for block in blocks:
            units = self.counter.count(self.body[block.start : block.end])
            if units <= self.target:
                out.append(_Item(block.start, block.end, units, "block"))
                continue
            for s, e in _sentences(self.body, block.start, block.end):
                n = self.counter.count(self.body[s:e])
                if n <= self.target:
                    out.append(_Item(s, e, n, "sentence"))
                else:
                    out.extend(self._pieces(s, e))
        return out

    def _pieces(self, start: int, end: int) -> list[_Item]:
        """Split a span into consecutive pieces of at most ``target`` units."""
        text = self.body[start:end]
        spans = self.counter.boundaries(text)
        out: list[_Item] = []
        first = 0
        while first < len(spans):
            last = min(first + self.target, len(spans)) - 1
            while True:
                s, e = spans[first][0], spans[last][1]
                units = self.counter.count(text[s:e])
                # A subword tokenizer may count a cut-out piece differently; shrink until it fits.
                if units <= self.target or last == first:
                    break
                last -= 1
            out.append(_Item(start + s, start + e, units, "piece"))
            first = last + 1
        return out

    def _overlap(self, previous: Sequence[_Item]) -> list[_Item]:
        """Trailing complete sentences or blocks of the previous chunk, within ``overlap``."""
        budget = self.overlap
        taken: list[_Item] = []
        for item in reversed(previous):
            if item.kind == "piece":
                break  # a piece is a fragment of a sentence, never a complete one
            if item.units <= budget:
                taken.append(item)
                budget -= item.units
                continue
            if item.kind == "block":
                for s, e in reversed(_sentences(self.body, item.start, item.end)):
                    units = self.counter.count(self.body[s:e])
                    if units > budget:
                        break
                    taken.append(_Item(s, e, units, "sentence"))
                    budget -= units
            break
        taken.reverse()
        return taken

    def pack(self, items: Sequence[_Item]) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        previous: list[_Item] = []
        i = 0
        while i < len(items):
            members = self._overlap(previous) if previous else []
            total = sum(m.units for m in members)
            while members and total + items[i].units > self.target:
                total -= members.pop(0).units
            while i < len(items) and total + items[i].units <= self.target:
                members.append(items[i])
                total += items[i].units
                i += 1
            spans.append((members[0].start, members[-1].end))
            previous = members
        return spans


def chunk_markdown(
    document_id: str,
    title: str,
    body: str,
    profile: ChunkingProfile,
    counter: UnitCounter,
) -> list[Chunk]:
    """Chunk a normalised body with ``markdown-chunks@2`` (spec section 7.2)."""
    index = LineIndex(body)
    blocks = parse_blocks(body, index)
    packer = _Packer(body, counter, profile.target, profile.overlap)
    chunks: list[Chunk] = []
    stack: list[tuple[int, str]] = []
    section: list[Block] = []
    path: tuple[str, ...] = ()

    def flush() -> None:
        content = [b for b in section if b.kind != "heading"]
        for start, end in packer.pack(packer.items(content)):
            text = body[start:end]
            ordinal = len(chunks)
            chunks.append(
                Chunk(
                    ordinal=ordinal,
                    text=text,
                    heading_path=path,
                    line_start=index.line_of(start),
                    line_end=index.line_of(end - 1),
                    token_count=counter.count(text),
                    content_hash=content_hash(text),
                    chunk_uid=chunk_uid(document_id, ordinal, text),
                )
            )

    for block in blocks:
        if block.heading is not None:
            flush()
            section.clear()
            depth = block.heading.depth
            while stack and stack[-1][0] >= depth:
                stack.pop()
            stack.append((depth, block.heading.text))
            path = tuple(text for d, text in stack if text and not (d == 1 and text == title))
        section.append(block)
    flush()
    return chunks
