"""MkDocs: ``mkdocs.yml`` (or ``mkdocs.yaml``), pages in ``docs_dir`` (``docs``).

Navigation: ``nav``: pages (``- page.md`` or ``- Title: page.md``) and sections
(``- Section: [...]``), paths relative to ``docs_dir``. A section's pages keep their nav
order, so a section whose first entry is its ``index.md`` (Material's section index pages) is
led by it. External links (``- Blog: https://...``) are no pages and are left out, as are
entries naming files that do not exist (with a warning, as MkDocs gives one). Without ``nav``,
the ``docs_dir`` tree, as MkDocs builds its navigation then.

Metadata: ``site_name``, ``site_description``, ``theme.language``, ``site_author``,
``repo_url``, ``site_url``. Links: URLs with ``use_directory_urls`` (``page.md`` is published
at ``page/``) or without (``page.html``); anchors by Python-Markdown's ``toc`` slugs.
"""

from __future__ import annotations

from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context, items
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import YamlNode, load_yaml_nodes

__all__ = ["MkDocs"]

_CONFIGS = ("mkdocs.yml", "mkdocs.yaml")


class MkDocs(Generator):
    """MkDocs (and Material for MkDocs)."""

    name = "mkdocs"
    described_as = "an MkDocs site"
    marker = "mkdocs.yml"
    found_from_content = True
    outline_required = "mkdocs.yml with nav"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = next((root / n for n in _CONFIGS if (root / n).is_file()), None)
        if file is None:
            return None
        text = config.read_text(file, root)
        nodes = load_yaml_nodes(text, path=file.name)
        data = config.read_data(file, root)
        content = config.folder(root, config.string(data.get("docs_dir")), "docs")
        if not content.is_dir():
            raise SourceError(
                f"mkdocs docs_dir {display_path(content, root)!r} does not exist",
                reason="missing-file",
                path=file.name,
            )
        nav = nodes.value.get("nav") if isinstance(nodes.value, dict) else None
        theme = data.get("theme")
        language = (
            config.get(theme, "language") or config.get(theme, "locale")
            if isinstance(theme, dict)
            else None
        )
        directory_urls = data.get("use_directory_urls", True) is not False
        repository = data.get("repo_url")
        return Site(
            self,
            file,
            content,
            config.site_metadata(
                data.get("site_name"),
                data.get("site_description"),
                language,
                config.absolute_url(data.get("site_url"), repository),
                config.publisher(repository, data.get("site_author")),
            ),
            LinkStyle(
                "directory" if directory_urls else "html",
                "python-markdown",
                prefixes=config.url_path(data.get("site_url")),
            ),
            outline_file=file if nav is not None else None,
            nav=nav,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.nav is None or site.outline_file is None:
            return None
        return _nav_outline(ctx, site.outline_file, site.nav)


def _nav_outline(ctx: Context, config: Path, nav: YamlNode) -> Outline:
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
