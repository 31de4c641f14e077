"""Search snippets: a window of a hit's passage around the query's terms, with the terms marked.

The terms are the ones keyword search matched (:func:`gezel_knowledge.query.query_terms`, the
one query-terms function), compared case-insensitively on whole words. The snippet is escaped
text with ``<mark>`` around each term, never the passage's own markup.
"""

from __future__ import annotations

import functools
import html
import re

from gezel_knowledge.query import query_terms

__all__ = ["marked_snippet", "plain_text"]

_HEADING = re.compile(r"^ {0,3}#{1,6}(?=\s|$)", re.MULTILINE)
_MARKUP = re.compile(r"[*_`>|]+|!?\[([^\]]*)\]\([^)]*\)")


def plain_text(text: str) -> str:
    """Passage Markdown folded to one line of words (links keep their text)."""
    flat = _MARKUP.sub(lambda m: m.group(1) or " ", _HEADING.sub("", text))
    return " ".join(flat.split())


@functools.lru_cache(maxsize=64)
def _pattern(query: str) -> re.Pattern[str] | None:
    """One pattern per query (a page marks ten snippets with it)."""
    terms = sorted({t for term in query_terms(query) for t in term.split()}, key=len, reverse=True)
    if not terms:
        return None
    return re.compile(
        r"(?<!\w)(" + "|".join(re.escape(t) for t in terms) + r")(?!\w)", re.IGNORECASE
    )


def marked_snippet(text: str, query: str, width: int = 280) -> str:
    """Escaped HTML: up to ``width`` characters around the first query term, terms marked."""
    flat = plain_text(text)
    pattern = _pattern(query)
    first = pattern.search(flat) if pattern is not None else None
    start = 0
    if first is not None and first.start() > width // 3:
        start = flat.rfind(" ", 0, first.start() - width // 4) + 1
    window = flat[start : start + width]
    if start + width < len(flat):
        window = window[: window.rfind(" ")] if " " in window else window
    prefix = "… " if start > 0 else ""
    suffix = " …" if start + len(window) < len(flat) else ""
    if pattern is None:
        return html.escape(prefix + window + suffix)
    out: list[str] = [html.escape(prefix)]
    last = 0
    for match in pattern.finditer(window):
        out.append(html.escape(window[last : match.start()]))
        out.append(f"<mark>{html.escape(match.group(0))}</mark>")
        last = match.end()
    out.append(html.escape(window[last:] + suffix))
    return "".join(out)
