"""Placing one entry of a MyST table of contents (Jupyter Book 1's ``_toc.yml``, mystmd's
``project.toc``): a page alone, or a section its page leads."""

from __future__ import annotations

from gezel_knowledge.compiler.generators.outline import OutlinePage, OutlineSection

__all__ = ["place_entry"]


def place_entry(
    into: OutlineSection,
    page: OutlinePage | None,
    title: str | None,
    *,
    key: str,
    nests: bool,
) -> OutlineSection | None:
    """Put an entry at the end of ``into``: without nested entries (``nests``), its page at
    that position; with them, a section there (named by ``title``, else after its page, else
    ``Section N``) led by its page, returned for the nested entries to fill."""
    position = len(into.children)
    if not nests:
        if page is not None:
            page.order = position
            into.children.append(page)
        return None
    section = OutlineSection(
        name=title or ("" if page else f"Section {position + 1}"),
        key=key,
        order=position,
        title_page=page.path if page else None,
    )
    if page is not None:
        page.order = 0
        section.children.append(page)
    into.children.append(section)
    return section
