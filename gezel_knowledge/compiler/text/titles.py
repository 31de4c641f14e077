"""Titles as readers see them: the Markdown a heading or navigation label is written in, dropped.

A generator shows ``## `From` and `Into` `` as *From and Into*, ``[Guide](guide.md)`` as
*Guide*, ``**Bold** move`` as *Bold move*. A catalog title is that text: code spans keep their
content verbatim, links their text, emphasis and strikethrough their words, inline HTML its
text, images nothing (their alt text when the title is only an image), MyST roles
(``{doc}`Setup <setup>` ``) their text, backslash escapes and character references the
character they stand for; a trailing attribute list goes (``{#id}``, ``{.class}``, Pandoc's
``{-}``).
"""

from __future__ import annotations

import html
import re

__all__ = ["plain_title"]

_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_ROLE = re.compile(r"\{[A-Za-z][\w:.-]*\}(`+)(.+?)\1", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)|!\[([^\]]*)\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)|\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_EMPHASIS = (
    re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"),
    re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"),
    re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"),
)
_ATTRIBUTES = re.compile(r"\{\s*(?:[#.][^}]*|-\s*)\}\Z")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ROLE_TARGET = re.compile(r"<[^<>]*>\Z")
_SPACES = re.compile(r"\s+")


def _without_last(text: str, stops: str, construct: re.Pattern[str]) -> str:
    """``text`` without a ``construct`` that ends it (trailing blanks aside) and the blanks
    before it. The construct's last character is one of ``stops`` and it holds no other, so it
    lies after the last of them before the end: searched there only, as a pattern opening with
    ``\\s*`` and searched over the whole text would retry each blank of a long run (quadratic
    on a hostile heading)."""
    stripped = text.rstrip()
    if not stripped:
        return text
    after = max(stripped.rfind(ch, 0, len(stripped) - 1) for ch in stops) + 1
    found = construct.search(stripped, after)
    return stripped[: found.start()].rstrip() if found else text


def _role_text(content: str) -> str:
    """A MyST role's text: its content without the ``<target>`` that ends it."""
    return _without_last(_strip_space(content), ">", _ROLE_TARGET)


def plain_title(text: str) -> str:
    """``text`` (a heading or a navigation label) without its Markdown (module docstring)."""
    text = _without_last(text, "}", _ATTRIBUTES)
    spans: list[str] = []

    def keep(content: str) -> str:
        spans.append(content)
        return f"\x00{len(spans) - 1}\x00"

    # Code spans first: their content is literal, never emphasis or a link.
    text = _ROLE.sub(
        lambda m: keep(_without_last(_strip_space(m.group(2)), ">", _ROLE_TARGET)), text
    )
    text = _CODE.sub(lambda m: keep(_strip_space(m.group(2))), text)
    text = _ESCAPE.sub(lambda m: keep(m.group(1)), text)
    without_images = _IMAGE.sub("", text)
    if without_images.strip():
        text = without_images
    else:  # a title that is only an image (a logo) is its alt text
        text = _IMAGE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = _AUTOLINK.sub(r"\1", text)
    previous = None
    while previous != text:  # a link's text may itself hold a link or emphasis
        previous = text
        text = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = _TAG.sub("", text)
    for pattern in _EMPHASIS:
        previous = None
        while previous != text:
            previous = text
            text = pattern.sub(lambda m: m.group(m.lastindex or 1), text)
    text = html.unescape(text)
    text = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)
    return _SPACES.sub(" ", text).strip()


def _strip_space(code: str) -> str:
    """A code span's content: one space each side is padding (CommonMark)."""
    if len(code) > 2 and code.startswith(" ") and code.endswith(" ") and code.strip():
        return code[1:-1]
    return code
