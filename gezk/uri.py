"""``knowledge://`` references (spec section 11).

::

    knowledge-uri   = "knowledge://" publisher-id "/" catalog-id "/" enc-document-id
                      [ "#" fragment ]
    enc-document-id = seg *( "/" seg )                 ; <= 512 characters encoded
    seg             = 1*( unreserved / pct-encoded )
    fragment        = ("chunk=" 32HEXDIG) / ("line=" 1*DIGIT ["-" 1*DIGIT])

Document ids are percent-encoded per ``/``-separated segment: every byte outside RFC 3986
``unreserved`` is encoded. An ill-formed reference is rejected, never repaired. A ``%2F``
inside a segment decodes to ``/``; it is how an id with an empty segment (``a//b``), which the
per-segment form cannot carry, is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from gezk.errors import InvalidIdentifier, InvalidReference
from gezk.ids import is_chunk_uid, is_id, validate_document_id

__all__ = [
    "MAX_ENCODED_DOCUMENT_ID",
    "MAX_LINE_DIGITS",
    "SCHEME",
    "KnowledgeUri",
    "decode_segment",
    "encode_segment",
    "parse_fragment",
]

SCHEME = "knowledge://"
MAX_ENCODED_DOCUMENT_ID = 512
MAX_LINE_DIGITS = 18
"""Digits a ``line=`` number may have (any body's line count has far fewer)."""

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_SEG = re.compile(r"(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+")
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_CHUNK_FRAGMENT = re.compile(r"chunk=([0-9a-f]{32})")
_LINE_FRAGMENT = re.compile(r"line=([0-9]+)(?:-([0-9]+))?")


def encode_segment(segment: str) -> str:
    """Percent-encode one document-id segment (every UTF-8 byte outside ``unreserved``)."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in segment.encode("utf-8"))


def decode_segment(segment: str) -> str:
    """Decode one percent-encoded segment; raise :class:`InvalidReference` if ill-formed."""
    if _SEG.fullmatch(segment) is None:
        raise InvalidReference(
            f"document-id segment {segment!r} has characters outside unreserved / pct-encoded",
            subject=segment,
        )
    raw = bytearray()
    pos = 0
    for m in _PCT.finditer(segment):
        raw += segment[pos : m.start()].encode("ascii")
        raw.append(int(m.group(1), 16))
        pos = m.end()
    raw += segment[pos:].encode("ascii")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidReference(
            f"document-id segment {segment!r} does not decode to UTF-8", subject=segment
        ) from None


@dataclass(frozen=True, slots=True)
class KnowledgeUri:
    """A parsed ``knowledge://publisher/catalog/document[#chunk=...|#line=a[-b]]`` reference."""

    publisher_id: str
    catalog_id: str
    document_id: str
    chunk: str | None = None
    line_start: int | None = None
    line_end: int | None = None

    def __post_init__(self) -> None:
        if not is_id(self.publisher_id):
            raise InvalidReference(
                f"invalid publisher id {self.publisher_id!r} in knowledge reference",
                subject=self.publisher_id,
            )
        if not is_id(self.catalog_id):
            raise InvalidReference(
                f"invalid catalog id {self.catalog_id!r} in knowledge reference",
                subject=self.catalog_id,
            )
        try:
            validate_document_id(self.document_id)
        except InvalidIdentifier as exc:
            raise InvalidReference(str(exc), subject=self.document_id) from None
        if self.chunk is not None and (self.line_start is not None or self.line_end is not None):
            raise InvalidReference("a knowledge reference has a chunk or a line fragment, not both")
        if self.chunk is not None and not is_chunk_uid(self.chunk):
            raise InvalidReference(
                f"chunk fragment {self.chunk!r} is not 32 lowercase hex characters",
                subject=self.chunk,
            )
        if self.line_end is not None and self.line_start is None:
            raise InvalidReference("a line range needs its start line")
        for n in (self.line_start, self.line_end):
            if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                raise InvalidReference(f"line number {n!r} is not a non-negative integer")
        if (
            self.line_start is not None
            and self.line_end is not None
            and self.line_end < self.line_start
        ):
            raise InvalidReference(
                f"line range {self.line_start}-{self.line_end} ends before it starts"
            )
        if len(self.encoded_document_id) > MAX_ENCODED_DOCUMENT_ID:
            raise InvalidReference(
                f"encoded document id is longer than {MAX_ENCODED_DOCUMENT_ID} characters",
                subject=self.document_id,
            )

    @property
    def encoded_document_id(self) -> str:
        """The document id percent-encoded per ``/``-separated segment.

        A valid document id may contain an empty segment (``a//b``, ``a/``), which ``seg``
        cannot express; such an id is encoded as one segment with its slashes as ``%2F``, a
        form the grammar accepts and :meth:`parse` decodes back to the same id.
        """
        segments = self.document_id.split("/")
        if any(not s for s in segments):
            return encode_segment(self.document_id)
        return "/".join(encode_segment(s) for s in segments)

    @property
    def fragment(self) -> str | None:
        """The fragment without ``#`` (``chunk=...`` or ``line=a[-b]``), if any."""
        if self.chunk is not None:
            return f"chunk={self.chunk}"
        if self.line_start is not None:
            end = "" if self.line_end is None else f"-{self.line_end}"
            return f"line={self.line_start}{end}"
        return None

    @property
    def catalog_ref(self) -> str:
        """``publisher/catalog``: the catalog identity the reference resolves through."""
        return f"{self.publisher_id}/{self.catalog_id}"

    def without_fragment(self) -> KnowledgeUri:
        """The reference to the whole document."""
        return replace(self, chunk=None, line_start=None, line_end=None)

    def __str__(self) -> str:
        base = f"{SCHEME}{self.publisher_id}/{self.catalog_id}/{self.encoded_document_id}"
        fragment = self.fragment
        return base if fragment is None else f"{base}#{fragment}"

    @classmethod
    def parse(cls, text: str) -> KnowledgeUri:
        """Parse a reference strictly; raise :class:`InvalidReference` if it is ill-formed."""
        if not isinstance(text, str) or not text.startswith(SCHEME):
            raise InvalidReference(f"not a knowledge:// reference: {text!r}", subject=str(text))
        rest = text[len(SCHEME) :]
        body, hash_sign, fragment = rest.partition("#")
        parts = body.split("/", 2)
        if len(parts) != 3:
            raise InvalidReference(
                f"knowledge reference {text!r} needs publisher, catalog and document",
                subject=text,
            )
        publisher_id, catalog_id, encoded = parts
        if not is_id(publisher_id):
            raise InvalidReference(
                f"invalid publisher id {publisher_id!r} in {text!r}", subject=text
            )
        if not is_id(catalog_id):
            raise InvalidReference(f"invalid catalog id {catalog_id!r} in {text!r}", subject=text)
        if not encoded or len(encoded) > MAX_ENCODED_DOCUMENT_ID:
            raise InvalidReference(
                f"encoded document id in {text!r} must be 1-{MAX_ENCODED_DOCUMENT_ID} characters",
                subject=text,
            )
        segments = encoded.split("/")
        if any(not s for s in segments):
            raise InvalidReference(f"empty document-id segment in {text!r}", subject=text)
        document_id = "/".join(decode_segment(s) for s in segments)
        if not hash_sign:
            return cls(publisher_id, catalog_id, document_id)
        parsed = parse_fragment(fragment)
        if parsed is None:
            raise InvalidReference(
                f"unknown fragment {fragment!r} in {text!r} (expected chunk=<32 hex> or "
                "line=<n>[-<m>])",
                subject=text,
            )
        return cls(publisher_id, catalog_id, document_id, *parsed)


def parse_fragment(fragment: str) -> tuple[str | None, int | None, int | None] | None:
    """``(chunk, line_start, line_end)`` of a ``chunk=<uid>`` or ``line=a[-b]`` fragment.

    ``None`` when the fragment is neither; range order is checked by :class:`KnowledgeUri`.
    A line number of more than :data:`MAX_LINE_DIGITS` digits raises :class:`InvalidReference`.
    """
    if (m := _CHUNK_FRAGMENT.fullmatch(fragment)) is not None:
        return m.group(1), None, None
    if (m := _LINE_FRAGMENT.fullmatch(fragment)) is not None:
        numbers = [g for g in m.groups() if g is not None]
        if any(len(g) > MAX_LINE_DIGITS for g in numbers):
            # Before int(): Python refuses to convert more than 4,300 digits with a bare
            # ValueError, and no body has a line number this long.
            raise InvalidReference(
                f"line number in fragment {fragment[:40]!r}... has more than {MAX_LINE_DIGITS} "
                "digits",
                subject=fragment[:80],
            )
        return None, int(m.group(1)), None if m.group(2) is None else int(m.group(2))
    return None
