"""mdBook: ``book.toml``, pages in ``[book] src`` (``src``).

Navigation: ``src/SUMMARY.md`` (:mod:`._summary`): prefix and suffix chapters are pages of the
root topic, part titles (``# User guide``) are topics, nested chapters are topics led by their
own page, draft chapters (``[Draft]()``) have no page and no warning (mdBook shows them as
entries without a link). Without a SUMMARY.md, the folders (with a warning: mdBook would write
one).

Metadata: ``[book]`` ``title``, ``description``, ``language``, ``authors``;
``[output.html]`` ``git-repository-url`` and ``site-url``. Pages: ``{{#include}}`` and its
kin are expanded (:mod:`._includes`). Links: ``chapter.html`` names ``chapter.md``; anchors by
mdBook's slugs.

The ``spec`` preprocessor (``[preprocessor.spec]``, mdbook-spec, which the Rust Reference
uses) is applied as it runs before rendering: a line ``r[rule.id]`` becomes the anchor
``#r-rule.id`` of its page; a link reference definition whose destination is a rule id
(``[closures]: expr.closure``) names that page and anchor; a grammar production
(``Name -> ...`` in a ``grammar`` code block) is the anchor ``#grammar-Name`` of its page,
which a definition whose destination is ``grammar-Name`` or ``Name`` names; any other link
that is no URL and names no ``.md``/``.html`` file and no ``#anchor`` (``[Vec]``, ``[bool]``,
``pointer#method.offset``) is resolved by rustdoc's intra-doc rules, so one without a suffix
is kept as written, silently.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._includes import expand_includes
from gezel_knowledge.compiler.generators._summary import summary_outline
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline
from gezel_knowledge.compiler.text.data import read_text_file

__all__ = ["MdBook"]

_RULE = re.compile(r"^r\[([^\]\n]+)\][ \t]*$", re.MULTILINE)
_GRAMMAR = re.compile(r"^```grammar\b[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_PRODUCTION = re.compile(r"^(?:@root )?([A-Za-z0-9_]+)(?: \([^)\n]+\))? ->", re.MULTILINE)
_DEFINITION = re.compile(r"^\[([^\]\n]+)\]: +(\S+)[ \t]*$", re.MULTILINE)


def _uses_spec(data: Mapping[str, object]) -> bool:
    """Whether book.toml runs mdbook-spec: a preprocessor named ``spec`` (its command is then
    ``mdbook-spec`` unless it names another) or one whose command runs mdbook-spec."""
    preprocessors = config.mapping(data.get("preprocessor"))
    for name, table in preprocessors.items():
        command = config.string(config.mapping(table).get("command")) or f"mdbook-{name}"
        if "mdbook-spec" in command:
            return True
    return False


def _productions(text: str) -> list[str]:
    """The grammar productions (``Name -> ...``) of a page's ``grammar`` code blocks."""
    return [m[1] for block in _GRAMMAR.finditer(text) for m in _PRODUCTION.finditer(block[1])]


def _definitions(content: Path, root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Where each ``r[rule.id]`` and each grammar production of the book is defined: rule id
    -> content-relative page, production name -> page."""
    rules: dict[str, str] = {}
    grammar: dict[str, str] = {}
    for page in sorted(content.rglob("*.md")):
        if page.is_file() and not page.is_symlink():
            rel = page.relative_to(content).as_posix()
            text = read_text_file(page, where=rel, within=root)
            for match in _RULE.finditer(text):
                rules[match[1]] = rel  # a rule defined twice: the later one, as mdbook-spec keeps
            for name in _productions(text):
                grammar.setdefault(name, rel)
    return rules, grammar


class MdBook(Generator):
    """mdBook."""

    name = "mdbook"
    described_as = "an mdBook book"
    marker = "book.toml"
    found_from_content = True

    def __init__(
        self, rules: Mapping[str, str] | None = None, grammar: Mapping[str, str] | None = None
    ) -> None:
        self._rules = dict(rules or {})
        """mdbook-spec's rules: rule id -> the page defining it (none: no spec preprocessor)."""
        self._grammar = dict(grammar or {})
        """mdbook-spec's grammar productions: name -> the page defining it."""
        self._spec = rules is not None

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = root / "book.toml"
        if not file.is_file():
            return None
        data = config.read_data(file, root)
        book = config.mapping(data.get("book"))
        html = config.mapping(config.get(data, "output", "html"))
        content = config.folder(root, config.string(book.get("src")), "src")
        repository = html.get("git-repository-url")
        summary = content / "SUMMARY.md"
        spec = _uses_spec(data) and content.is_dir()
        # mdBook checks no link; one climbing above the book names its host's other paths
        # (doc.rust-lang.org/nomicon/ links to ../std/), never a chapter. mdbook-spec hands
        # links that are no file or URL to rustdoc.
        quiet = {"above-root", "extensionless"} if spec else {"above-root"}
        return Site(
            MdBook(*_definitions(content, root)) if spec else self,
            file,
            content,
            config.site_metadata(
                book.get("title"),
                book.get("description"),
                book.get("language"),
                config.absolute_url(html.get("site-url"), repository),
                config.publisher(repository, book.get("authors")),
            ),
            LinkStyle(
                "html",
                "mdbook",
                prefixes=config.url_path(html.get("site-url")),
                quiet=frozenset(quiet),
                # mdBook (0.5) renders definition lists and gives each term an id as it
                # gives headings, unless `output.html.definition-lists` turns them off.
                definition_terms=html.get("definition-lists") is not False,
            ),
            outline_file=summary if summary.is_file() else None,
        )

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        body = expand_includes(body, folder=page.parent, within=within.resolve())
        if not self._spec or not page.is_relative_to(site.content_root):
            return body
        folder = page.relative_to(site.content_root).parent.as_posix() or "."

        def definition(match: re.Match[str]) -> str:
            dest = match[2]
            name = dest.removeprefix("grammar-")
            if dest in self._rules:
                page_rel, anchor = self._rules[dest], f"r-{dest}"
            elif name in self._grammar:
                page_rel, anchor = self._grammar[name], f"grammar-{name}"
            else:
                return match[0]
            return f"[{match[1]}]: {posixpath.relpath(page_rel, folder)}#{anchor}"

        body = _DEFINITION.sub(definition, body)
        # Each rule and grammar production is an anchor of its page, as mdbook-spec renders them.
        anchors = "".join(f'\n<div id="grammar-{name}"></div>' for name in _productions(body))
        return _RULE.sub(lambda m: f'<div class="rule" id="r-{m[1]}"></div>', body) + anchors

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            ctx.warn(
                "missing-outline",
                "the book has no SUMMARY.md; its folders are the outline",
                ctx.display(ctx.content_root),
            )
            return None
        return summary_outline(ctx, site.outline_file, self.name, drafts_shown=True)
