"""Keyword keys of Chinese, Japanese and Korean text: overlapping character bigrams.

The format's FTS5 tables use the ``unicode61`` tokenizer (spec sections 5.2 and 5.3), which
splits text at spaces and punctuation only. Chinese and Japanese write no spaces between
words, and Korean attaches particles to them, so a whole run of such characters is one token
(``如何配置路由拦截``) and a question's run almost never equals a passage's. Keyword search
therefore reads such a token as the overlapping pairs of characters it holds
(``如何 何配 配置 置路 路由 由拦 拦截``), a run of one character as that character, and the
letters and digits a token joins to them (``redis集成``) as words of their own: a question and
a passage then share the pairs of the words they share, whatever else their runs hold. Tokens
without such characters keep their one key, so other languages rank exactly as before.

The rule lives here once: the derived keyword index groups a shard's vocabulary by it, the
query side splits the question by it, and the local indexes expand a question with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "CJK_GLOB",
    "JOINED",
    "all_cjk",
    "has_cjk",
    "key_parts",
    "term_units",
    "token_keys",
    "token_parts",
]

# Han (with its extensions, radicals and compatibility ideographs), the ideographic marks
# (々 〆 〇), Hiragana, Katakana (with the prolonged sound mark and the halfwidth forms),
# Bopomofo, Hangul syllables and jamo. Only token characters ever reach these functions
# (FTS5's tokens and the query's terms), so the blocks' punctuation needs no exclusion.
_CJK_RANGES = (
    "\u1100-\u11ff"
    "\u2e80-\u2fdf"
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b\u303c"
    "\u3040-\u30ff"
    "\u3100-\u31ff"
    "\u3400-\u4dbf"
    "\u4e00-\u9fff"
    "\ua960-\ua97f"
    "\uac00-\ud7ff"
    "\uf900-\ufaff"
    "\uff66-\uffdc"
    "\U00020000-\U0003ffff"
)
_CJK = re.compile(f"[{_CJK_RANGES}]")
_ALL_CJK = re.compile(f"[{_CJK_RANGES}]+")
_RUNS = re.compile(f"[{_CJK_RANGES}]+|[^{_CJK_RANGES}]+")


JOINED = "\x00"
"""Starts the key of a word joined to CJK characters in one token (``redis`` in ``redis集成``)
in the derived keyword index: such a word is found by questions that hold CJK characters, and
a question without any (in English, say) ranks a multilingual catalog's passages exactly as
before, when a Japanese page's ``MotionBuilderは`` was no word ``motionbuilder``."""


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character."""
    return _CJK.search(text) is not None


def all_cjk(text: str) -> bool:
    """Whether every character of ``text`` (at least one) is Chinese, Japanese or Korean."""
    return _ALL_CJK.fullmatch(text) is not None


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def token_parts(token: str) -> list[tuple[str, bool]]:
    """The keys of one token before stemming, in order and with repeats, each with whether it
    is CJK: the token itself when it holds no CJK character; else its runs of other
    characters as they are and each CJK run's overlapping bigrams (one character alone)."""
    if not has_cjk(token):
        return [(token, False)]
    parts: list[tuple[str, bool]] = []
    for run in _RUNS.findall(token):
        if has_cjk(run):
            parts += [(b, True) for b in _bigrams(run)]
        else:
            parts.append((run, False))
    return parts


def key_parts(
    token: str, stem: Callable[[str], str] | None = None, *, mark_joined: bool = False
) -> list[tuple[str, bool]]:
    """:func:`token_parts` with the non-CJK parts stemmed by ``stem`` when given, and, with
    ``mark_joined``, the words of a token holding CJK characters marked (:data:`JOINED`)."""
    parts = token_parts(token)
    if len(parts) == 1 and not parts[0][1]:
        return [(token if stem is None else stem(token), False)]
    mark = JOINED if mark_joined else ""
    return [
        (p, True) if cjk else (mark + (p if stem is None else stem(p)), False) for p, cjk in parts
    ]


def token_keys(
    token: str, stem: Callable[[str], str] | None = None, *, mark_joined: bool = False
) -> list[str]:
    """The keys a folded FTS5 token stands for in keyword search, in order and with repeats
    (:func:`key_parts` without the flags)."""
    return [k for k, _ in key_parts(token, stem, mark_joined=mark_joined)]


def term_units(term: str) -> list[str]:
    """The parts of a query term searched on their own, in order and with repeats: a word
    holding CJK characters gives :func:`token_parts` (unfolded: FTS5 folds them), any other
    term (a word, or a ``snake_case`` phrase, which needs the tokens as written) itself."""
    if " " in term or not has_cjk(term):
        return [term]
    return [p for p, _ in token_parts(term)]


CJK_GLOB = "*[" + _CJK_RANGES.replace("\\", "") + "]*"
"""An SQLite ``GLOB`` pattern matching text that holds a CJK character."""
