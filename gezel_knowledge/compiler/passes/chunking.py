"""The ``markdown-chunks@2`` chunker (spec section 7.2) and the embed input of a chunk.

Chunk ids are content-derived (``chunk_uid`` hashes the document id, the ordinal and the text),
so a citation ``#chunk=<uid>`` stays valid across toolchains only if every toolchain cuts the
same texts in the same order. Where section 7.2 leaves a choice open, this module therefore
makes the choice the reference implementation makes:

- **Sections.** ATX headings (outside fenced code) split the body into sections: the lines
  before the first heading (the preamble), then each heading with the lines up to the next
  heading. A heading line belongs to its section's text, so a section holding only a heading
  is a chunk of its own.
- **Blocks are lines.** A section is packed line by line, greedily, while the sum of the lines'
  unit counts stays within ``target`` (joining newlines cost nothing in tokens, one in chars).
  A chunk's text is its lines joined with LF and trimmed; its line range is those lines,
  blank lines included (never past the body's last line).
- **Overlap.** After a chunk, the next one starts with the chunk's trailing lines whose counts
  sum to at most ``overlap`` (never the chunk's first line), so the overlap is whole lines and
  is counted inside the target.
- **A line longer than the target** is split at sentence ends (``.``, ``!`` or ``?`` followed
  by whitespace); consecutive sentences are joined with one space up to the target, each group
  a chunk on that line. A sentence still longer than the target is cut at unit boundaries
  (token spans of the profile tokenizer, or characters).

The differences from the reference that remain are listed in docs/build.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from gezel_knowledge.compiler.text.blocks import LineIndex, headings, parse_blocks
from gezel_knowledge.embedders.base import Tokenizer
from gezel_knowledge.errors import InvalidInput
from gezk.ids import chunk_uid, content_hash
from gezk.profiles import ChunkingProfile

__all__ = [
    "MAX_PASSAGE_TITLE_CHARS",
    "Chunk",
    "HeadedText",
    "UnitCounter",
    "chunk_markdown",
    "embed_header",
    "embed_inputs",
    "passage_title",
    "unit_counter",
]


MAX_PASSAGE_TITLE_CHARS = 1024
"""What of a document title or a heading each passage carries (its heading path, its copy of the
title, its embed header): a 256 KB heading is stored once in the body, not once per passage,
so a catalog stays proportional to its source. Titles and headings this long are rare enough
that the cut never meets a real one (spec section 7.2 would drop such a header anyway)."""


def passage_title(text: str) -> str:
    """``text`` as a passage carries it: at most :data:`MAX_PASSAGE_TITLE_CHARS` characters."""
    return text[:MAX_PASSAGE_TITLE_CHARS]


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

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Units in each of ``texts``, in one call to the tokenizer when it can batch."""
        if self.tokenizer is None:
            return [len(t) for t in texts]
        batch = getattr(self.tokenizer, "counts", None)
        if callable(batch):
            return [int(n) for n in batch(list(texts))]
        return [self.tokenizer.count(t) for t in texts]

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
        raise InvalidInput(
            f"chunking profile {profile.id} counts tokens but no tokenizer was given",
            reason="no-tokenizer",
            subject=profile.id,
        )
    return UnitCounter("tokens", tokenizer)


def embed_header(
    title: str, heading_path: Sequence[str], count: Callable[[str], int], limit: int
) -> str:
    """The context header of an embed input (spec section 7.2 step 5), truncated to ``limit``."""
    title = passage_title(title)
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


class HeadedText(Protocol):
    """A passage as embed inputs need it: its heading path and its text (a :class:`Chunk`, or a
    row read back from a shard)."""

    @property
    def heading_path(self) -> Sequence[str]: ...

    @property
    def text(self) -> str: ...


def embed_inputs(
    title: str, chunks: Iterable[HeadedText], counter: UnitCounter, chunking: ChunkingProfile
) -> list[str]:
    """The embed input of each passage of one document: its context header, then its text
    (spec section 7.2 step 5), as the compiler embeds them and the exact-dense baseline
    re-creates them."""
    headers: dict[tuple[str, ...], str] = {}
    inputs: list[str] = []
    for chunk in chunks:
        path = tuple(chunk.heading_path)
        header = headers.get(path)
        if header is None:  # passages of one section share a header: count it once
            header = embed_header(title, path, counter.count, chunking.context_header_max)
            headers[path] = header
        inputs.append(header + chunk.text)
    return inputs


# The whitespace of ECMAScript's String.prototype.trim and of \s in its regular expressions.
# Python's str.strip() and \s differ at the edges (U+FEFF, U+001C-U+001F), and the chunk text
# must be the reference's to the character, since it is hashed into the chunk id.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SENTENCE_BREAK = re.compile(f"(?<=[.!?])[{_JS_SPACE}]+")


def _trim(text: str) -> str:
    return text.strip(_JS_SPACE)


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    line_start: int
    line_end: int


class _SectionPacker:
    """Packs line ranges of one body into chunk texts (the module docstring's rules)."""

    def __init__(self, lines: list[str], counter: UnitCounter, target: int, overlap: int) -> None:
        self.lines = lines
        self.counter = counter
        self.target = target
        self.overlap = overlap
        self.join_cost = 1 if counter.unit == "chars" else 0
        # Every line is counted once per body, in one batch; empty lines are free.
        filled = [i for i, line in enumerate(lines) if line]
        self.sizes = [0] * len(lines)
        for i, n in zip(filled, counter.counts([lines[i] for i in filled]), strict=True):
            self.sizes[i] = n

    def pack(self, start: int, end: int) -> list[_Piece]:
        """Chunks of the 0-based inclusive line range ``start..end``."""
        out: list[_Piece] = []
        sizes, target = self.sizes, self.target
        cursor = start
        while cursor <= end:
            if sizes[cursor] > target:
                out.extend(
                    _Piece(t, cursor + 1, cursor + 1) for t in self._split_line(self.lines[cursor])
                )
                cursor += 1
                continue
            last, size = cursor, sizes[cursor]
            while last < end and size + sizes[last + 1] + self.join_cost <= target:
                last += 1
                size += sizes[last] + self.join_cost
            text = _trim("\n".join(self.lines[cursor : last + 1]))
            if text:
                out.append(_Piece(text, cursor + 1, last + 1))
            if last >= end:
                break
            # Replay the trailing lines that fit the overlap; always move on by one line at least.
            following, carried = last + 1, 0
            for i in range(last, cursor, -1):
                carried += sizes[i] + self.join_cost
                if carried > self.overlap:
                    break
                following = i
            cursor = max(cursor + 1, following)
        return out

    def _split_line(self, line: str) -> list[str]:
        """A line over the target: sentence groups, then unit pieces of an oversized sentence."""
        out: list[str] = []
        group: list[str] = []
        group_units = 0

        def flush() -> None:
            nonlocal group_units
            if group:
                text = _trim(" ".join(group))
                if text:
                    out.append(text)
                group.clear()
                group_units = 0

        for sentence in _SENTENCE_BREAK.split(line):
            units = self.counter.count(sentence)
            if units > self.target:
                flush()
                out.extend(self._pieces(sentence))
                continue
            if group_units + units > self.target:
                flush()
            group.append(sentence)
            group_units += units
        flush()
        return out

    def _pieces(self, text: str) -> list[str]:
        """``text`` cut at unit boundaries into pieces of at most ``target`` units."""
        spans = self.counter.boundaries(text)
        out: list[str] = []
        first = 0
        while first < len(spans):
            last = min(first + self.target, len(spans)) - 1
            while True:
                piece = text[spans[first][0] : spans[last][1]]
                # A subword tokenizer may count a cut-out piece differently; shrink until it fits.
                if last == first or self.counter.count(piece) <= self.target:
                    break
                last -= 1
            piece = _trim(piece)
            if piece:
                out.append(piece)
            first = last + 1
        return out


def chunk_markdown(
    document_id: str,
    title: str,
    body: str,
    profile: ChunkingProfile,
    counter: UnitCounter,
) -> list[Chunk]:
    """Chunk a normalised body with ``markdown-chunks@2`` (spec section 7.2)."""
    # As in the reference, the lines are the body split at LF, so a body ending with LF has a
    # final empty line; it never holds text, and no line range reaches past the body's end.
    lines = body.split("\n")
    line_count = len(lines) - 1 if body.endswith("\n") else len(lines)
    packer = _SectionPacker(lines, counter, profile.target, profile.overlap)
    sections: list[tuple[int, int, tuple[str, ...]]] = []
    found = headings(parse_blocks(body, LineIndex(body)))
    if not found:
        sections.append((0, len(lines) - 1, ()))
    elif found[0].line > 1:
        sections.append((0, found[0].line - 2, ()))
    stack: list[tuple[int, str]] = []
    short_title = passage_title(title)
    for i, heading in enumerate(found):
        while stack and stack[-1][0] >= heading.depth:
            stack.pop()
        stack.append((heading.depth, passage_title(heading.text)))
        path = tuple(text for d, text in stack if text and not (d == 1 and text == short_title))
        end = found[i + 1].line - 2 if i + 1 < len(found) else len(lines) - 1
        sections.append((heading.line - 1, end, path))

    pieces = [(piece, path) for start, end, path in sections for piece in packer.pack(start, end)]
    # One batch, as for the lines: a chunk's count is its own (joined and trimmed text can
    # tokenize differently from the sum of its lines).
    counts = counter.counts([piece.text for piece, _ in pieces])
    return [
        Chunk(
            ordinal=ordinal,
            text=piece.text,
            heading_path=path,
            line_start=piece.line_start,
            line_end=min(piece.line_end, line_count),
            token_count=count,
            content_hash=content_hash(piece.text),
            chunk_uid=chunk_uid(document_id, ordinal, piece.text),
        )
        for ordinal, ((piece, path), count) in enumerate(zip(pieces, counts, strict=True))
    ]
