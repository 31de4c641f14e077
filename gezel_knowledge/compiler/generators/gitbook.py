"""GitBook: ``.gitbook.yaml`` (``root``, ``structure.summary``) or a ``SUMMARY.md``.

Navigation: ``SUMMARY.md`` (:mod:`._summary`): ``##`` headings are parts, nested list items
nest. Metadata: legacy ``book.json`` ``title``, ``description``, ``language``. Links: relative
file links, ``folder/`` for its ``README.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._summary import summary_outline
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline

__all__ = ["GitBook"]


class GitBook(Generator):
    """GitBook (its Git-synced spaces, and legacy GitBook CLI books)."""

    name = "gitbook"
    described_as = "a GitBook space"
    marker = "SUMMARY.md"
    outline_required = "outline file"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = root / ".gitbook.yaml"
        summary_name, content = "SUMMARY.md", root
        if file.is_file():
            data = config.read_data(file, root)
            content = config.folder(root, config.string(data.get("root")), ".")
            summary_name = config.string(config.get(data, "structure", "summary")) or summary_name
        elif not (root / summary_name).is_file():
            return None
        summary = content / summary_name
        book_json = root / "book.json"
        book: dict[str, Any] = config.read_data(book_json, root) if book_json.is_file() else {}
        if not summary.is_file() and not forced:
            return None
        return Site(
            self,
            file if file.is_file() else None,
            content,
            config.site_metadata(book.get("title"), book.get("description"), book.get("language")),
            LinkStyle(),
            outline_file=summary if summary.is_file() else None,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        return summary_outline(ctx, site.outline_file, self.name)
