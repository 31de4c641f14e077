"""Document bodies: codec handling with a hard decompression cap, and line slices (section 5.2).

Bodies are NFC-normalized, LF-terminated Markdown, stored plain (``none``) or brotli-compressed
(``br``). A decompressed body larger than 16 MiB is refused without ever being materialised:
the brotli decoder is given an output limit, so a small hostile blob cannot expand in memory.
"""

from __future__ import annotations

import brotli

from gezel_knowledge.errors import IntegrityFailure, InvalidInput

__all__ = ["body_lines", "decode_body", "slice_lines"]


def decode_body(document_id: str, codec: object, blob: object, max_bytes: int) -> str:
    """The UTF-8 text of a stored body; refuse unknown codecs, bombs and bad UTF-8."""
    if not isinstance(blob, bytes):
        raise IntegrityFailure(
            f"document {document_id!r} body is not a blob",
            reason="corrupt-body",
            subject=document_id,
        )
    if codec == "none":
        raw = blob
    elif codec == "br":
        decoder = brotli.Decompressor()
        try:
            raw = decoder.process(blob, output_buffer_limit=max_bytes + 1)
        except brotli.error as exc:
            raise IntegrityFailure(
                f"document {document_id!r} body is not valid brotli: {exc}",
                reason="corrupt-body",
                subject=document_id,
            ) from exc
        if len(raw) <= max_bytes and not decoder.is_finished():
            # Either the stream is truncated or output stopped at the limit.
            more = (
                b""
                if decoder.can_accept_more_data()
                else decoder.process(b"", output_buffer_limit=1)
            )
            if not more:
                raise IntegrityFailure(
                    f"document {document_id!r} body is a truncated brotli stream",
                    reason="corrupt-body",
                    subject=document_id,
                )
            raw = raw + more
    else:
        raise IntegrityFailure(
            f"document {document_id!r} uses unknown body codec {codec!r}",
            reason="corrupt-body",
            subject=document_id,
        )
    if len(raw) > max_bytes:
        raise IntegrityFailure(
            f"document {document_id!r} body exceeds {max_bytes} bytes when decompressed",
            reason="body-too-large",
            subject=document_id,
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IntegrityFailure(
            f"document {document_id!r} body is not UTF-8",
            reason="corrupt-body",
            subject=document_id,
        ) from exc


def body_lines(body: str) -> list[str]:
    """The body's lines, 1-based by index + 1; the LF terminating the last line adds none."""
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def slice_lines(body: str, start: int, end: int | None) -> str:
    """Lines ``start..end`` (1-based, inclusive; ``end`` defaults to ``start``) of a body."""
    lines = body_lines(body)
    last = start if end is None else end
    if last == len(lines) + 1 and start <= len(lines) and body.endswith("\n"):
        # The reference toolchain counts the empty "line" after the body's final LF, so its
        # last passage of a body may end one past our last line; it names the same text.
        last = len(lines)
    if start < 1 or last < start or last > len(lines):
        raise InvalidInput(
            f"line range {start}-{last} is outside the document's {len(lines)} lines",
            reason="line-out-of-range",
            subject=f"{start}-{last}",
        )
    return "\n".join(lines[start - 1 : last]) + "\n"
