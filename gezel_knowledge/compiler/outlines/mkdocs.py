"""MkDocs' ``nav``: pages (``- page.md`` or ``- Title: page.md``) and sections
(``- Section: [...]``), paths relative to ``docs_dir``.

A section's pages keep their nav order, so a section whose first entry is its ``index.md``
(Material's section index pages) is led by it. External links (``- Blog: https://...``) are no
pages and are left out, as are entries naming files that do not exist (with a warning, as
MkDocs gives one).
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.frontmatter import YamlNode
from gezel_knowledge.compiler.outlines._context import Context, items
from gezel_knowledge.compiler.topics import Outline, OutlinePage, OutlineSection

__all__ = ["mkdocs_outline"]


def mkdocs_outline(ctx: Context, config: Path, nav: YamlNode) -> Outline:
    """The outline ``nav`` of ``config`` (mkdocs.yml) describes."""
    where = ctx.display(config)
    root = OutlineSection(name="", key=where)

    def page(target: str, title: str | None, position: int, line: int) -> OutlinePage | None:
        path = ctx.page(ctx.content_root, target, origin=config, line=line)
        return None if path is None else OutlinePage(path, title, position, where, line)

    def entries(node: YamlNode, into: OutlineSection) -> None:
        for entry in items(node, "nav", where):
            position = len(into.children)
            if isinstance(entry.value, str):
                found = page(entry.value, None, position, entry.line)
                if found is not None:
                    into.children.append(found)
                continue
            if not isinstance(entry.value, dict) or len(entry.value) != 1:
                raise SourceError(
                    "each nav entry must be a path or a single 'Title: target' pair",
                    reason="invalid-outline",
                    path=where,
                    line=entry.line,
                )
            ((title, target),) = entry.value.items()
            if isinstance(target.value, list):
                section = OutlineSection(name=title, key=f"{where}:{entry.line}", order=position)
                entries(target, section)
                into.children.append(section)
            elif isinstance(target.value, str):
                found = page(target.value, title, position, target.line)
                if found is not None:
                    into.children.append(found)
            else:
                raise SourceError(
                    f"nav entry {title!r} has no target",
                    reason="invalid-outline",
                    path=where,
                    line=entry.line,
                )

    entries(nav, root)
    return Outline("mkdocs", root, where)
