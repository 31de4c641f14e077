"""Heading anchors as documentation generators make them, and the lines each one names.

A link to ``page.md#some-heading`` is rewritten to the page's ``knowledge://`` reference with
``#line=a-b``, the heading's section in the stored body, so the anchor has to be found the way
the generator that publishes the page would find it:

- ``github``: GitHub, Hugo (goldmark's default), Docusaurus, DocFX, GitBook, Jupyter Book
  (MyST): the heading's text lowercased, punctuation other than ``-`` and ``_`` removed, each
  space turned into ``-``; repeats get ``-1``, ``-2``...
- ``python-markdown``: MkDocs (Python-Markdown's ``toc`` extension): the text folded to ASCII,
  characters other than letters, digits, ``_``, ``-`` and spaces removed, runs of ``-`` and
  spaces turned into one ``-``, lowercased; repeats get ``_1``, ``_2``...
- ``mdbook``: mdBook: letters, digits, ``_`` and ``-`` kept (ASCII letters lowercased), each
  whitespace character turned into ``-``, everything else removed; repeats get ``-1``, ``-2``...
- ``gitbook``: GitBook: letters, digits, ``_``, ``-`` and ``.`` kept (lowercased), each
  whitespace character turned into ``-``, everything else removed (``Release 4.9`` is
  ``release-4.9``); a slug opening with a digit also answers as ``id-`` and the slug (the HTML
  id GitBook gives it); repeats get ``-1``, ``-2``...
- ``vitepress``: VitePress (markdown-it-anchor with its own slug rule): accents folded
  (NFKD, combining marks dropped), control characters removed, each run of whitespace and
  ASCII punctuation (``-`` and ``_`` included) turned into one ``-``, ``-`` trimmed from both
  ends, ``_`` put before a leading digit, lowercased (``config.build`` is ``config-build``);
  repeats get ``-1``, ``-2``...
- ``mintlify``: Mintlify (its documented rules): lowercased, each whitespace character and
  ``.`` turned into ``-``, ``'`` into ``’``, parentheses removed, other characters kept
  (``Rate limits (per minute)`` is ``rate-limits-per-minute``, ``Read/write access``
  ``read/write-access``, ``Example: connect`` ``example:-connect``); repeats get ``-2``,
  ``-3``... It is no fallback for the other generators' sites.

The text is the heading as rendered: link and emphasis markup removed, code spans kept
verbatim, images and HTML tags dropped, backslash escapes resolved. Besides the generator's own
slugs, a page answers to explicit ids (``{#id}``, ``{: #id .class}``), HTML anchors
(``<a id="x">`` or ``<a name="x">`` on or just above a heading), MyST targets (``(label)=`` just
above a heading) and, as a fallback for links written against another renderer's preview, the
slugs of the other styles. Headings inside block quotes (``> #### name``) and list items
(``- #### name``) get their slugs too (every renderer gives them ids), and attribute lists on
inline text (``**name**{ #id }``, Python-Markdown's ``attr_list``) give ids to the block that
holds them.

A site may configure its own slug function in place of its generator's (MkDocs'
``toc: slugify:``): a :class:`SlugRule` stands for it, and its slugs come first.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gezel_knowledge.compiler.text.blocks import Block, LineIndex

__all__ = [
    "SLUG_STYLES",
    "SlugRule",
    "SlugStyle",
    "definition_term_anchors",
    "heading_text",
    "page_anchors",
    "slugify",
]

SlugStyle = Literal[
    "github",
    "python-markdown",
    "mdbook",
    "gitbook",
    "vitepress",
    "docsify",
    "mintlify",
    "zola",
    "zola-unslugified",
]
SLUG_STYLES: tuple[SlugStyle, ...] = (
    "github",
    "python-markdown",
    "mdbook",
    "gitbook",
    "vitepress",
    "docsify",
    "mintlify",
    "zola",
    "zola-unslugified",
)


@dataclass(frozen=True, slots=True)
class SlugRule:
    """A slug function a site configures for Python-Markdown's ``toc`` (MkDocs), with the
    ``toc`` extension's ``separator``; repeats get ``_1``, ``_2``... as ``toc`` numbers them.

    ``python-markdown``: ``toc``'s own ``slugify`` (``unicode=False``: folded to ASCII) or
    ``slugify_unicode`` (``unicode=True``: kept); characters other than letters, digits,
    ``_``, ``-`` and spaces removed, lowercased, runs of the separator and spaces turned into
    one separator. ``pymdownx``: ``pymdownx.slugs.slugify`` (and its older ``uslugify``
    names): the text normalised (``normalize``, NFC by default), HTML tags removed, ``case``
    applied (``lower``, ``lower-ascii``, ``fold``, else kept), characters other than letters,
    digits, ``_``, ``-`` and spaces removed, each space turned into the separator.
    """

    family: Literal["python-markdown", "pymdownx"] = "python-markdown"
    unicode: bool = False
    case: str = "lower"
    normalize: str = "NFC"
    separator: str = "-"


# Heading text is untrusted and may be long: no part of these expressions scans past a bracket
# or tag it cannot pair, so each runs in time linear in the heading (code spans are found by
# _code_spans, which pairs backtick runs in one pass).
_IMAGE = re.compile(r"!\[(?:[^\[\]\\]|\\.)*\]\([^()]*\)")
_LINK = re.compile(r"(?<!\\)\[((?:[^\[\]\\]|\\.)*)\](?:\([^()]*\)|\[[^\[\]]*\])")
_BACKTICKS = re.compile(r"`+")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# What CommonMark takes for an HTML tag (a name, then attributes each after whitespace): only
# such a tag is dropped from a heading; `map<string, AnyValue>` is text. Applied to one `_TAG`
# match at a time, so its cost stays within that match.
_VALID_TAG = re.compile(
    r"</?[A-Za-z][A-Za-z0-9-]*"
    r"(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*\s*/?>"
)
_EMPHASIS = re.compile(r"(?<!\\)(?:\*+|~~)")
_UNDERSCORES = re.compile(r"(?<!\\)_+")
_ALNUM = re.compile(r"[^\W_]")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ATTRIBUTES = re.compile(r"\{:?[ \t]*([^{}]*)\}[ \t]*\Z")
_ATTRIBUTE_ID = re.compile(r"(?:^|\s)#([\w:.-]+)")
# An attribute value may be unquoted (`<a id=opt-base></a>`), as HTML allows.
_HTML_ANCHOR = re.compile(
    r"<a\s[^<>]*?\b(?:id|name)\s*=\s*(?:[\"']([^\"'<>]+)[\"']|([^\s\"'<>=`]+))[^<>]*>",
    re.IGNORECASE,
)
# Any other element's id is a target too (<sup id="a1">, <span id="x">): a browser scrolls to it.
_HTML_ID = re.compile(r"<(?![aA]\s)[A-Za-z][\w-]*\s[^<>]*?\bid\s*=\s*[\"']([^\"'<>]+)[\"'][^<>]*>")
_MYST_TARGET = re.compile(r" {0,3}\(([^()\s]+)\)=[ \t]*\Z")
# Both read in one pass: the heading's text is taken whole (its closing #s stripped after), and
# an id is followed at once by "}" or a blank, so a long unclosed one is not rescanned.
_QUOTED_HEADING = re.compile(r" {0,3}(?:>[ \t]?)+ {0,3}#{1,6}[ \t]+(.*)\Z")
# A list item opening with a heading (`- #### \`includeProcessedMarkdown\``), nested lists too.
_LISTED_HEADING = re.compile(r"[ \t]{0,12}(?:[-+*]|\d{1,9}[.)])[ \t]+#{1,6}[ \t]+(.*)\Z")
_INLINE_ATTRIBUTES = re.compile(r"\{:?[ \t]*#([\w:.-]+)(?:[ \t][^{}\n]*)?\}")
_PY_MARKDOWN_STRIP = re.compile(r"[^\w\s-]")
_PY_MARKDOWN_JOIN = re.compile(r"[-\s]+")
_GITHUB_STRIP = re.compile(r"[^\w\- ]")
_CONTROL = re.compile(r"[\x00-\x1f]")
# VitePress: whitespace and ASCII punctuation runs (one character class, so linear).
_VITEPRESS_SPECIAL = re.compile(
    r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'\u201c\u201d\u2018\u2019<>,.?/]+"
)
# Docsify's slugify: general and supplemental punctuation and ASCII punctuation but `-` and
# `_` removed (one character class, so linear); emoji removed (the pictographic planes and
# the dingbat and symbol blocks, as `\p{Extended_Pictographic}` mostly covers).
_DOCSIFY_STRIP = re.compile(r"[\u2000-\u206F\u2E00-\u2E7F\\'!\"#$%&()*+,./:;<=>?@\[\]^`{|}~]")
_DOCSIFY_EMOJI = re.compile(r"[\uFE0F\u2600-\u27BF\U0001F000-\U0001FAFF]")
_WHITESPACE = re.compile(r"\s")
# Mintlify: what is left out of an id once whitespace and periods are hyphens.
_MINTLIFY_DROP = re.compile(r"[()]")
# A Hugo shortcode in a heading ({{% param x %}}) renders as something else (often an icon);
# the heading's id comes from the rest of its text.
_SHORTCODE = re.compile(r"\{\{[<%][^{}]*[%>]\}\}")


def _without_markup(text: str) -> str:
    """Inline markup removed from text that holds no code span."""
    text = _SHORTCODE.sub("", text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _TAG.sub(lambda m: "" if _VALID_TAG.fullmatch(m.group()) else m.group(), text)
    text = _EMPHASIS.sub("", _without_underscore_emphasis(text))
    return html.unescape(_ESCAPE.sub(r"\1", text))


def _without_underscore_emphasis(text: str) -> str:
    """``_x_`` and ``__x__`` unwrapped; an underscore run that opens nothing it closes (the
    ``_`` of ``to _PyExc_Error``, or ``snake_case``'s) is text, as CommonMark renders it."""
    runs = list(_UNDERSCORES.finditer(text))
    dropped: set[int] = set()
    openers: list[int] = []
    for i, run in enumerate(runs):
        before = text[run.start() - 1] if run.start() else " "
        after = text[run.end()] if run.end() < len(text) else " "
        if openers and not _ALNUM.match(after) and not before.isspace():
            dropped.update((openers.pop(), i))
        elif not _ALNUM.match(before) and not after.isspace():
            openers.append(i)
    if not dropped:
        return text
    return (
        "".join(
            text[(runs[i - 1].end() if i else 0) : runs[i].start()]
            + ("" if i in dropped else runs[i].group())
            for i in range(len(runs))
        )
        + text[runs[-1].end() :]
    )


_CODE_MARK = "\ue000"
"""Stands for a code span while the markup around it is removed (a private-use character)."""


def heading_text(text: str) -> str:
    """A heading's text as a renderer shows it (see the module docstring)."""
    spans = _code_spans(text)
    contents: list[str] = []
    pieces: list[str] = []
    cursor = 0
    for start, content_start, content_end, end in spans:
        pieces.append(text[cursor:start])
        content = text[content_start:content_end]
        contents.append(content.strip(" ") or content)
        cursor = end
    pieces.append(text[cursor:])
    # The markup around code spans is removed with each span as one mark, so a link whose
    # text is code (`[`name`](url)`) loses its URL as any link does.
    marked = _CODE_MARK.join(pieces)
    if _CODE_MARK not in text:
        parts = _without_markup(marked).split(_CODE_MARK)
        if len(parts) == len(contents) + 1:
            out = [parts[0]]
            for content, part in zip(contents, parts[1:], strict=True):
                out += [content, part]
            return unicodedata.normalize("NFC", "".join(out)).strip()
    # A mark lost to the markup around it: each piece on its own.
    out = []
    for piece, content in zip(pieces, [*contents, ""], strict=True):
        out += [_without_markup(piece), content]
    return unicodedata.normalize("NFC", "".join(out)).strip()


def _code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """``(start, content start, content end, end)`` of each code span, exactly as
    ``(`+)(.+?)\\1`` finds them with ``finditer`` (a run of backticks, then at least one
    character on the same line, then the first run of as many backticks), but in one pass: that
    expression retries every shorter opening and every later start inside an unclosed run, and
    scans to the end of the text each time (cubic in a long run)."""
    spans: list[tuple[int, int, int, int]] = []
    offset = 0
    for line in text.split("\n"):
        spans += [
            (a + offset, b + offset, c + offset, d + offset) for a, b, c, d in _line_spans(line)
        ]
        offset += len(line) + 1
    return spans


def _line_spans(line: str) -> list[tuple[int, int, int, int]]:
    runs = [[m.start(), m.end()] for m in _BACKTICKS.finditer(line)]
    # longest[k]: the longest run after run k, so an opening knows at once whether any later
    # run could close it.
    longest = [0] * (len(runs) + 1)
    for k in range(len(runs) - 1, -1, -1):
        longest[k] = max(longest[k + 1], runs[k][1] - runs[k][0])
    spans: list[tuple[int, int, int, int]] = []
    k = 0
    while k < len(runs):
        start, end = runs[k]
        length = end - start
        # The longest opening that closes: by a later run at least as long, or inside this
        # run itself (2L + 1 backticks: L, one as content, L).
        size = max(min(length, longest[k + 1]), (length - 1) // 2)
        if size < 1:
            k += 1  # no later run, and too short to close itself: no span from this run
            continue
        if length >= 2 * size + 1:
            close = start + size + 1
            spans.append((start, start + size, close, close + size))
            runs[k][0] = close + size
            if runs[k][0] == end:
                k += 1
            continue
        j = k + 1
        while runs[j][1] - runs[j][0] < size:
            j += 1
        close = runs[j][0]
        spans.append((start, start + size, close, close + size))
        runs[j][0] = close + size
        k = j if runs[j][0] < runs[j][1] else j + 1
    return spans


_PYMDOWNX_TAGS = re.compile(r"</?[^>]*>")
_PYMDOWNX_STRIP = re.compile(r"[^\w\- ]")
_UNICODE_FORMS: tuple[Literal["NFC", "NFKC", "NFD", "NFKD"], ...] = ("NFC", "NFKC", "NFD", "NFKD")


def _custom_slug(text: str, rule: SlugRule) -> str:
    """The slug ``rule`` gives a heading's rendered text."""
    sep = rule.separator
    if rule.family == "python-markdown":
        if not rule.unicode:
            text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        value = _PY_MARKDOWN_STRIP.sub("", text).strip().lower()
        return re.sub(f"[{re.escape(sep)}\\s]+", lambda _: sep, value)
    form: Literal["NFC", "NFKC", "NFD", "NFKD"] = "NFC"
    for each in _UNICODE_FORMS:
        form = each if each == rule.normalize else form
    value = _PYMDOWNX_TAGS.sub("", unicodedata.normalize(form, text)).strip()
    if rule.case == "lower":
        value = value.lower()
    elif rule.case == "lower-ascii":
        value = "".join(c.lower() if "A" <= c <= "Z" else c for c in value)
    elif rule.case == "fold":
        value = value.casefold()
    return _PYMDOWNX_STRIP.sub("", value).replace(" ", sep)


def slugify(text: str, style: SlugStyle | SlugRule) -> str:
    """The anchor a heading with this rendered text gets in ``style`` (before de-duplication)."""
    if isinstance(style, SlugRule):
        return _custom_slug(text, style)
    if style == "python-markdown":
        folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        value = _PY_MARKDOWN_STRIP.sub("", folded).strip().lower()
        return _PY_MARKDOWN_JOIN.sub("-", value)
    if style in ("mdbook", "gitbook"):
        kept = "_-." if style == "gitbook" else "_-"
        out = []
        for ch in text:
            if ch.isalnum() or ch in kept:
                out.append(ch.lower() if ch.isascii() else ch)
            elif ch.isspace():
                out.append("-")
        return "".join(out)
    if style == "vitepress":
        folded = "".join(
            c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
        )
        folded = _CONTROL.sub("", folded)
        slug = _VITEPRESS_SPECIAL.sub("-", folded).strip("-")
        return ("_" + slug if slug[:1].isdigit() else slug).lower()
    if style == "docsify":
        value = _DOCSIFY_EMOJI.sub("", unicodedata.normalize("NFC", text.strip()))
        value = "".join(c.lower() if "A" <= c <= "Z" else c for c in value)
        value = _WHITESPACE.sub("-", _DOCSIFY_STRIP.sub("", _TAG.sub("", value)))
        first = value[:1]
        return "_" + value if first.isascii() and first.isdigit() else value
    if style == "mintlify":
        value = _WHITESPACE.sub("-", unicodedata.normalize("NFC", text).lower().strip())
        value = value.replace("'", "\u2019").replace(".", "-")
        return _MINTLIFY_DROP.sub("", value)
    if style == "zola":
        return _zola_slug(text)
    if style == "zola-unslugified":
        # `slugify.anchors = "safe"` or `"off"`: the text as it is, ASCII whitespace as `_`.
        return re.sub(r"[ \t\n\r\f]", "_", text)
    return _GITHUB_STRIP.sub("", text.lower()).replace(" ", "-")


def _zola_slug(text: str) -> str:
    """The ``slug`` crate's ``slugify`` (Zola's ``slugify.anchors = "on"``): ASCII letters
    and digits kept, lowercased; every run of anything else one ``-``, none at either end; a
    letter with an accent loses it (the crate transliterates; other scripts are not, here)."""
    out: list[str] = []
    dash = True  # no leading dash
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        if ch.isascii() and ch.isalnum():
            out.append(ch.lower())
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    return "".join(out).rstrip("-")


def _repeat(slug: str, n: int, style: SlugStyle | SlugRule) -> str:
    if n == 0:
        return slug
    if style == "mintlify":
        return f"{slug}-{n + 1}"  # Mintlify's second `Overview` is `overview-2`
    underscore = style == "python-markdown" or isinstance(style, SlugRule)
    return f"{slug}_{n}" if underscore else f"{slug}-{n}"


def _split_attributes(text: str) -> tuple[str, list[str]]:
    """A heading's text without a trailing attribute list, and the ids that list gives."""
    match = _ATTRIBUTES.search(text)
    if match is None or "#" not in match.group(1):
        return text, []
    return text[: match.start()], _ATTRIBUTE_ID.findall(match.group(1))


def _sections(blocks: Sequence[Block], line_count: int) -> list[tuple[Block, tuple[int, int]]]:
    """Each heading block and its section: the heading through the last line before the next
    heading of the same or a higher level."""
    found = []
    for i, block in enumerate(blocks):
        heading = block.heading
        if heading is None:
            continue
        last_line = block.line_end
        # By index: a slice would copy the rest of the list for every heading.
        for j in range(i + 1, len(blocks)):
            later = blocks[j]
            other = later.heading
            if other is not None and other.depth <= heading.depth:
                break
            last_line = later.line_end
        found.append((block, (heading.line, min(last_line, line_count))))
    return found


def _is_anchor_only(line: str) -> bool:
    """Whether a line holds nothing but MyST targets or empty HTML anchors."""
    rest = _HTML_ANCHOR.sub("", line).replace("</a>", "").replace("</A>", "")
    return bool(_MYST_TARGET.match(line)) or (rest.strip() == "" and rest != line)


def _line_targets(
    blocks: Sequence[Block], body: str, spans: dict[int, tuple[int, int]]
) -> list[tuple[str, tuple[int, int]]]:
    """MyST ``(label)=`` targets and HTML ``<a id>`` anchors outside headings, with the lines
    they name: the heading right below them (its section), else their own block."""
    found: list[tuple[str, tuple[int, int]]] = []
    for i, block in enumerate(blocks):
        if block.kind != "text":
            continue
        lines = body[block.start : block.end].split("\n")
        labels = [m.group(1) for m in (_MYST_TARGET.match(line) for line in lines) if m]
        labels += [q or u for line in lines for q, u in _HTML_ANCHOR.findall(line)]
        labels += [a for line in lines for a in _HTML_ID.findall(line)]
        labels += [a for line in lines for a in _INLINE_ATTRIBUTES.findall(line)]
        if not labels:
            continue
        span = (block.line_start, block.line_end)
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        if all(_is_anchor_only(line) for line in lines) and after is not None:
            span = spans.get(after.line_start, span)
        found.extend((label, span) for label in labels)
    return found


def _quoted_headings(blocks: Sequence[Block], body: str) -> list[tuple[str, tuple[int, int]]]:
    """Headings inside block quotes and list items, with the rest of their block as their
    lines."""
    found = []
    for block in blocks:
        if block.kind != "text" or "#" not in body[block.start : block.end]:
            continue
        lines = body[block.start : block.end].split("\n")
        for offset, line in enumerate(lines):
            match = _QUOTED_HEADING.match(line) or _LISTED_HEADING.match(line)
            if match is not None:
                text, _ = _split_attributes(match.group(1).rstrip(" \t#"))
                found.append((heading_text(text), (block.line_start + offset, block.line_end)))
    return found


_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*\Z")
_NOT_PARAGRAPH = re.compile(r" {4}|\t| {0,3}(?:[-+*>|<]|\d{1,9}[.)])(?:[ \t]|\Z)")


def _setext_headings(
    blocks: Sequence[Block], body: str, line_count: int
) -> list[tuple[str, tuple[int, int]]]:
    """Setext headings (a paragraph underlined by ``===`` or ``---``), which the format does
    not open sections with but every renderer gives an id: their text, and their lines up
    to the next heading of either kind."""
    found: list[tuple[str, int]] = []
    for block in blocks:
        chunk = body[block.start : block.end]
        if block.kind != "text" or ("=" not in chunk and "-" not in chunk):
            continue
        lines = chunk.split("\n")
        first = 0
        for offset, line in enumerate(lines):
            if offset > first and _SETEXT_UNDERLINE.match(line):
                paragraph = lines[first:offset]
                if not any(_NOT_PARAGRAPH.match(p) for p in paragraph):
                    text, _ = _split_attributes(" ".join(p.strip() for p in paragraph))
                    found.append((heading_text(text), block.line_start + first))
                first = offset + 1
    starts = sorted({b.line_start for b in blocks if b.heading is not None} | {n for _, n in found})
    out = []
    for words, number in found:
        later = bisect_right(starts, number)
        out.append((words, (number, starts[later] - 1 if later < len(starts) else line_count)))
    return out


def page_anchors(
    blocks: Sequence[Block],
    index: LineIndex,
    body: str,
    style: SlugStyle | SlugRule = "github",
) -> dict[str, tuple[int, int]]:
    """Anchor -> inclusive line range of what it names, ``style``'s slugs first (see the module
    docstring for the rest)."""
    sections = _sections(blocks, index.count)
    spans = {block.line_start: span for block, span in sections}
    found: dict[str, tuple[int, int]] = {}
    texts = []
    repeats: dict[str, int] = {}
    for block, span in sections:
        heading = block.heading
        assert heading is not None
        text, ids = _split_attributes(heading.text)
        if heading.explicit_id:
            ids.insert(0, heading.explicit_id)
        html_ids = [q or u for q, u in _HTML_ANCHOR.findall(text)]
        ids += html_ids
        for anchor in ids:
            found.setdefault(anchor, span)
        if style == "gitbook" and html_ids:
            # GitBook writes a heading's id as an `<a id>` in it, and numbers a repeated one
            # in page order as it numbers repeated slugs (`sample-file`, `sample-file-1`).
            n = repeats.get(html_ids[0], 0)
            repeats[html_ids[0]] = n + 1
            found.setdefault(_repeat(html_ids[0], n, style), span)
        texts.append((heading_text(text), span))
    for label, span in _line_targets(blocks, body, spans):
        found.setdefault(label, span)
    texts += _quoted_headings(blocks, body)
    texts += _setext_headings(blocks, body, index.count)
    texts.sort(key=lambda item: item[1][0])  # repeats are numbered in document order
    # Mintlify's ids keep most punctuation, Zola's unslugified ones keep case and join words
    # with `_`: each a fallback for its own sites only (Zola's slugified ones too), so that a
    # link another site's generator would not resolve is still reported there.
    own_only = ("mintlify", "zola", "zola-unslugified")
    others = (s for s in SLUG_STYLES if s != style and s not in own_only)
    styles: tuple[SlugStyle | SlugRule, ...] = (style, *others)
    for each in styles:
        seen: dict[str, int] = {}
        for text, span in texts:
            base = slugify(text, each)
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.setdefault(_repeat(base, n, each), span)
            if each == "gitbook" and base[:1].isdigit():
                found.setdefault(f"id-{_repeat(base, n, each)}", span)
    return found


# A definition's line: its colon may be indented up to three spaces (`  : text`), as
# pulldown-cmark and goldmark both read it.
_DEFINITION_LINE = re.compile(r" {0,3}: ")


def definition_term_anchors(
    blocks: Sequence[Block],
    body: str,
    style: SlugStyle | SlugRule,
    taken: Mapping[str, object],
) -> dict[str, tuple[int, int]]:
    """The ids a renderer gives the terms of definition lists (``term`` then ``: definition``;
    goldmark's ``autoDefinitionTermID``): each term's slug, numbered after the ids ``taken``
    already (``-1``, ``-2``), naming the term and its definition."""
    found: dict[str, tuple[int, int]] = {}
    seen: dict[str, int] = {}
    for block in blocks:
        if block.kind != "text":
            continue
        lines = body[block.start : block.end].split("\n")
        for i, line in enumerate(lines[:-1]):
            term = line.strip()
            if not term or term.startswith(":") or not _DEFINITION_LINE.match(lines[i + 1]):
                continue
            base = slugify(heading_text(term), style)
            n = seen.get(base, 0)
            while _repeat(base, n, style) in taken and n < 1000:
                n += 1
            seen[base] = n + 1
            line_no = block.line_start + i
            found.setdefault(_repeat(base, n, style), (line_no, line_no + 1))
    return found
