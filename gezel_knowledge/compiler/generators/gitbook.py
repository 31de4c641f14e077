"""GitBook: ``.gitbook.yaml`` (``root``, ``structure.readme``, ``structure.summary``) or a
``SUMMARY.md``.

Where: ``root`` (``./``) is the space's folder; ``structure.summary`` (``SUMMARY.md``) and
``structure.readme`` (``README.md``) are relative to it, and a file of that name in another
case (``summary.md``) is taken when the exact name is missing. Without ``.gitbook.yaml``, a
``SUMMARY.md`` (any case) at the source root.

Navigation: ``SUMMARY.md`` (:mod:`._summary`): ``##`` headings are parts, nested list items
nest; a link title (``[Page](page.md "Sidebar")``) is the sidebar's wording only, the link
text (the page's main title) is its label. In a space with ``.gitbook.yaml``, the readme is
its first page: put first when the summary does not list it (a bare ``SUMMARY.md`` folder
lists its introduction itself).

Content folder: ``root``, widened to the nearest folder that also holds the readme and every
existing file the summary names above ``root`` (``readme: ../README.md``, as Git Sync reads
them from the repository), never above the source folder; an entry that would leave the
source folder is left out with a warning. Document ids are relative to that folder.

Metadata: legacy ``book.json`` ``title``, ``description``, ``language``, ``author`` (the
publisher). Links: relative file
links, ``folder/`` for its ``README.md``; anchors by GitBook's slugs (dots kept). A legacy book
(``book.json``) copies every file its summary does not list to the site as a static file, so a
link to an existing file of its folder that is no page (a ``Dockerfile``, a ``README.md`` the
summary leaves out) is kept as written, silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context, is_markdown, normalise
from gezel_knowledge.compiler.generators._summary import summary_outline, summary_targets
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline

_ASSETS = ".gitbook/assets"
"""Where a space keeps the files uploaded to it (relative to its root)."""

__all__ = ["GitBook"]


@dataclass(frozen=True, slots=True)
class _Structure:
    """Where a GitBook space's parts are: its content folder, summary and readme."""

    config: Path | None
    content: Path
    summary: Path | None
    readme: Path | None


def _named(folder: Path, name: str) -> Path | None:
    """``folder/name``, else the one file there whose name differs only in case."""
    exact = folder / name
    if exact.is_file():
        return exact
    if not folder.is_dir() or "/" in name:
        return None
    found = [p for p in sorted(folder.iterdir()) if p.name.lower() == name.lower() and p.is_file()]
    return found[0] if len(found) == 1 else None


def _widened(content: Path, files: list[Path], source_root: Path) -> Path:
    """The nearest folder at or above ``content`` holding ``files``, within ``source_root``."""
    for file in files:
        while content != source_root and not file.is_relative_to(content):
            content = content.parent
    return content


def _structure(root: Path) -> _Structure | None:
    """The space at ``root`` (see the module docstring), ``None`` when there is none."""
    file = root / ".gitbook.yaml"
    if not file.is_file():
        summary = _named(root, "SUMMARY.md")
        readme = _named(root, "README.md")
        return None if summary is None else _Structure(None, root, summary, readme)
    data = config.read_data(file, root)
    base = config.folder(root, config.string(data.get("root")), ".")
    summary_name = config.string(config.get(data, "structure", "summary")) or "SUMMARY.md"
    readme_name = config.string(config.get(data, "structure", "readme")) or "README.md"
    summary_path = normalise(base, summary_name, root)
    readme_path = normalise(base, readme_name, root)
    summary = None if summary_path is None else _named(summary_path.parent, summary_path.name)
    readme = None if readme_path is None else _named(readme_path.parent, readme_path.name)
    files = [f for f in (summary, readme) if f is not None]
    if summary is not None:
        text = config.read_text(summary, root)
        for target in summary_targets(text):
            path = normalise(summary.parent, target, root)
            if path is not None and path.is_file() and is_markdown(path):
                files.append(path)  # only pages widen the space, never a linked data file
    return _Structure(file, _widened(base, files, root), summary, readme)


class GitBook(Generator):
    """GitBook (its Git-synced spaces, and legacy GitBook CLI books)."""

    name = "gitbook"
    described_as = "a GitBook space"
    marker = "SUMMARY.md"
    outline_required = "outline file"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        found = _structure(root)
        if found is None or (found.summary is None and not forced):
            return None
        book_json = root / "book.json"
        book: dict[str, Any] = config.read_data(book_json, root) if book_json.is_file() else {}
        return Site(
            self,
            found.config,
            found.content,
            config.site_metadata(
                book.get("title"),
                book.get("description"),
                book.get("language"),
                # Legacy GitBook's `author` names the book's author (its publisher here).
                publisher=config.publisher(None, book.get("author")),
            ),
            # A legacy GitBook CLI book copies every file its summary does not list to the
            # site as a static file, so a link to one works there.
            LinkStyle(
                slug="gitbook",
                quiet=frozenset({"content-file"}) if book_json.is_file() else frozenset(),
                # A space's uploaded files (an OpenAPI block's `src`, and the link to it
                # Git Sync writes inside the block) are GitBook's: kept as written.
                routes=(f"{_ASSETS}/",),
            ),
            outline_file=found.summary,
            # A bare SUMMARY.md (no .gitbook.yaml, no book.json) is often a leftover beside
            # the configuration of the generator that publishes the folder now.
            tentative=found.config is None and not book_json.is_file(),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        found = _structure(ctx.source_root)
        # A Git-synced space (.gitbook.yaml) opens on its readme; a bare SUMMARY.md folder
        # lists its introduction itself, and its README.md may be the catalog's own.
        # So does a legacy GitBook CLI book (book.json): its README.md is the introduction.
        legacy = (ctx.source_root / "book.json").is_file()
        spaced = found is not None and (found.config is not None or legacy)
        readme = found.readme if found is not None and spaced else None
        first = (
            ctx.rel(readme)
            if readme is not None
            and readme.is_relative_to(ctx.content_root)
            and ctx.is_page(readme)
            else None
        )
        # In a legacy GitBook CLI book (book.json), an entry without a file (`* [RCU]()`) is
        # an article to come, shown unlinked by design as an mdBook draft is: no warning.
        return summary_outline(
            ctx, site.outline_file, self.name, drafts_shown=legacy, first_page=first
        )
