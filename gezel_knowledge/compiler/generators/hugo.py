"""Hugo: ``hugo.*`` or ``config.*`` (also under ``config/_default/``) and a content folder.

Navigation: the content folder's sections (:mod:`._tree`): a folder's ``_index.md`` names,
describes and orders it (``title``, ``description``, ``weight``) and leads it when it has a
body; a folder with an ``index.md`` is a leaf bundle, one page; pages are ordered by
``weight``; ``draft: true`` pages are left out, as Hugo leaves them out of a published site.

Metadata: ``title``, ``params.description``, ``languageCode``, ``params.github_repo`` (or
``params.repository``), ``params.author``, ``baseURL``; the default language's ``contentDir``
and its own ``title`` and ``params``. Links: URLs (lowercased unless ``disablePathToLower``,
moved by ``slug`` and ``url`` front matter, also found by ``aliases``), ``ref``/``relref``
shortcodes; images from ``static/``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import Context, pretty
from gezel_knowledge.compiler.generators._tree import FolderInfo, FolderRules, front, walk
from gezel_knowledge.compiler.generators.base import (
    Generator,
    LinkStyle,
    LinkTarget,
    PageUrl,
    Site,
)
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage
from gezel_knowledge.compiler.metadata.catalog_yaml import TopicDeclaration
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["Hugo", "HugoFolders", "hugo_ref"]

_CONFIG_NAMES = ("hugo", "config")
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
_REF = re.compile(
    r"\{\{[<%]\s*(?:rel)?ref\s+(?:path\s*=\s*)?(?:\"([^\"]*)\"|'([^']*)'|(\S+?))\s*[^{}]*?[>%]\}\}"
)


def hugo_ref(target: str) -> str | None:
    """The path a Hugo ``ref``/``relref`` shortcode names, or ``None`` when it is none."""
    match = _REF.fullmatch(target.strip())
    if match is None:
        return None
    return next(g for g in match.groups() if g is not None)


def _text(front: Mapping[str, Any], key: str) -> str | None:
    value = front.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _weight(data: Mapping[str, Any], where: str) -> int | None:
    weight = data.get("weight")
    if weight is not None and (isinstance(weight, bool) or not isinstance(weight, int)):
        raise SourceError(
            "front matter weight must be an integer",
            reason="invalid-front-matter",
            path=where,
            line=1,
        )
    return weight


class HugoFolders(FolderRules):
    """Hugo's sections: ``_index.md`` front matter, leaf bundles, ``weight``, drafts."""

    def folder(self, ctx: Context, folder: Path) -> FolderInfo:
        index = folder / "_index.md"
        if not index.is_file():
            return FolderInfo()
        where = ctx.display(index)
        found = split_front_matter(read_text_file(index, where=where), path=where)
        data = found.data
        weight = _weight(data, where)
        title = data.get("title")
        description = data.get("description") or data.get("summary")
        declaration = TopicDeclaration(
            id=str(data.get("topicId") or ""),
            name=str(title) if title else "",
            description=str(description) if description else None,
            order=weight,
        )
        leads = bool(found.body.strip()) and data.get("draft") is not True
        return FolderInfo(declaration, index if leads else None)

    def leaf(self, entry: Path) -> Path | None:
        # A leaf bundle: one page, its index.md; the rest of the folder is its resources.
        index = entry / "index.md"
        return index if index.is_file() else None

    def page(self, ctx: Context, entry: Path) -> OutlinePage | None:
        data = front(ctx, entry)
        if data.get("draft") is True:
            ctx.warn("draft-skipped", "is a draft (draft: true); left out", ctx.display(entry))
            return None
        order = _weight(data, ctx.display(entry))
        if order is None:
            order = pretty(entry.stem)[1]
        if order is None and entry.stem.lower() in ("index", "readme"):
            order = 0
        return OutlinePage(ctx.rel(entry), None, order, ctx.display(entry), None)


def _config_file(root: Path) -> Path | None:
    for folder in (root, root / "config" / "_default"):
        for name in _CONFIG_NAMES:
            for suffix in _CONFIG_SUFFIXES:
                if (folder / (name + suffix)).is_file():
                    return folder / (name + suffix)
    return None


class Hugo(Generator):
    """Hugo."""

    name = "hugo"
    described_as = "a Hugo site"
    marker = "Hugo configuration"
    found_from_content = True

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = _config_file(root)
        data = config.read_data(file, root) if file is not None else {}
        language = config.string(data.get("defaultContentLanguage")) or "en"
        own = config.mapping(config.get(data, "languages", language))
        content_dir = config.string(own.get("contentDir")) or config.string(data.get("contentDir"))
        content = config.folder(root, content_dir, "content")
        if file is None or not content.is_dir():
            if not forced:
                return None
            content = content if content.is_dir() else root
        params = {**config.mapping(data.get("params")), **config.mapping(own.get("params"))}
        repository = params.get("github_repo") or params.get("repository")
        author = params.get("author")
        return Site(
            self,
            file,
            content,
            config.site_metadata(
                own.get("title") or data.get("title"),
                params.get("description"),
                own.get("languageCode") or data.get("languageCode") or language,
                config.absolute_url(data.get("baseURL"), repository),
                config.publisher(
                    repository, config.get(author, "name") if isinstance(author, dict) else author
                ),
            ),
            LinkStyle(
                "directory",
                lowercase=not data.get("disablePathToLower", False),
                prefixes=config.url_path(data.get("baseURL")),
                static_roots=(root / "static",),
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        root, declaration = walk(ctx, HugoFolders())
        return Outline(self.name, root, None, ordered=False, root_declaration=declaration)

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        default = super().page_url(rel, front)
        url = _text(front, "url")
        if url is not None:
            return PageUrl(url.strip("/"), default.folder)
        slug = _text(front, "slug")
        segments = default.path.split("/") if default.path else []
        if slug and segments:
            return PageUrl("/".join([*segments[:-1], slug]), default.folder)
        return default

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        aliases = front.get("aliases")
        return tuple(a for a in aliases if isinstance(a, str)) if isinstance(aliases, list) else ()

    def link_target(self, raw: str) -> LinkTarget | None:
        path = hugo_ref(raw)
        return None if path is None else LinkTarget(path)
