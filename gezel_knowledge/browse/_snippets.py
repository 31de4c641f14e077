"""Search snippets: a window of a hit's passage around the query's terms, with the terms marked.

The terms are the ones keyword search matched (:func:`gezel_knowledge.query.query_terms`, the
one query-terms function), compared as the keyword index compares them: on whole words, ignoring
case and diacritics (``cafe`` marks ``Café``), a CJK word by its pairs of characters. The
snippet is escaped text with ``<mark>`` around each term, never the passage's own markup: code
fences and their language names are left out, and a heading is set off from the text after it.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata

from gezel_knowledge.cjk import has_cjk, token_parts
from gezel_knowledge.query import query_terms

__all__ = ["marked_snippet", "plain_text"]

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*$", re.MULTILINE)
_BLOCK_MARKS = re.compile(r"^ {0,3}(?:>[ >]*|[-|: ]*\|[-|: ]*$)", re.MULTILINE)
"""Quote marks opening a line, and a table's separator row."""
_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`+|\||(?<!\w)[*_]+|[*_]+(?!\w)")
"""Links and images (their text kept), code ticks, table pipes, and emphasis marks at the edge
of a word (``snake_case`` keeps its underscore)."""


def plain_text(text: str) -> str:
    """Passage Markdown folded to one line of words (links keep their text, a heading ends with
    `` · ``, code fences and their language names are left out)."""
    text = _HEADING.sub(lambda m: f"{m.group(1)} · ", _FENCE.sub(" ", text))
    flat = _MARKUP.sub(_unmarked, _BLOCK_MARKS.sub(" ", text))
    return " ".join(flat.split())


def _unmarked(match: re.Match[str]) -> str:
    mark = match.group(0)
    if mark.endswith(")"):
        return match.group(1)  # a link's or an image's text
    return " " if mark == "|" else ""


def _fold(text: str) -> str:
    """``text`` with each character's diacritics removed and lowercased, one character for one
    (so positions in the folded text are positions in ``text``)."""
    if text.isascii():
        return text.lower()
    return "".join(_base(c) for c in text)


@functools.lru_cache(maxsize=4096)
def _base(char: str) -> str:
    folded = unicodedata.normalize("NFD", char)[0].lower()
    return folded if len(folded) == 1 else char


@functools.lru_cache(maxsize=64)
def _pattern(query: str) -> re.Pattern[str] | None:
    """One pattern per query (a page marks ten snippets with it), on folded text."""
    words = {_fold(t) for term in query_terms(query) for t in term.split()}
    # A CJK word is matched as keyword search matches it (gezel_knowledge.cjk): by its pairs of
    # characters, inside a run, and the words joined to it as words.
    parts = [p for w in words if has_cjk(w) for p in token_parts(w)]
    words = {w for w in words if not has_cjk(w)} | {p for p, cjk in parts if not cjk}
    terms = sorted(words, key=len, reverse=True)
    pairs = sorted({p for p, cjk in parts if cjk}, key=len, reverse=True)
    alternatives = (
        [r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")(?!\w)"] if terms else []
    )
    if pairs:
        alternatives.append("|".join(re.escape(p) for p in pairs))
    return re.compile("|".join(alternatives)) if alternatives else None


def marked_snippet(text: str, query: str, width: int = 280) -> str:
    """Escaped HTML: up to ``width`` characters around the first query term, terms marked."""
    flat = plain_text(text)
    pattern = _pattern(query)
    first = pattern.search(_fold(flat)) if pattern is not None else None
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
    for match in pattern.finditer(_fold(window)):
        out.append(html.escape(window[last : match.start()]))
        out.append(f"<mark>{html.escape(window[match.start() : match.end()])}</mark>")
        last = match.end()
    out.append(html.escape(window[last:] + suffix))
    return "".join(out)
