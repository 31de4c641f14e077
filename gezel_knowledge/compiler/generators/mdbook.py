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
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._includes import expand_includes
from gezel_knowledge.compiler.generators._summary import summary_outline
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline

__all__ = ["MdBook"]


class MdBook(Generator):
    """mdBook."""

    name = "mdbook"
    described_as = "an mdBook book"
    marker = "book.toml"
    found_from_content = True

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
        return Site(
            self,
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
                # mdBook checks no link; one climbing above the book names its host's other
                # paths (doc.rust-lang.org/nomicon/ links to ../std/), never a chapter.
                quiet=frozenset({"above-root"}),
            ),
            outline_file=summary if summary.is_file() else None,
        )

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        return expand_includes(body, folder=page.parent, within=within.resolve())

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            ctx.warn(
                "missing-outline",
                "the book has no SUMMARY.md; its folders are the outline",
                ctx.display(ctx.content_root),
            )
            return None
        return summary_outline(ctx, site.outline_file, self.name, drafts_shown=True)
