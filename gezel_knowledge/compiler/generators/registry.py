"""The generators, in the order they are looked for, and what finds a source's site and outline.

A source folder is the project of the first generator whose marker it holds (or the generator
catalog.yaml's ``outline`` names). A folder that is the content folder of a project configured
one or two folders up (``docs/`` of an MkDocs site, ``src/`` of an mdBook, ``content/en`` of a
Hugo site, ``docs/`` of a Docusaurus site) is that project's. A folder no generator configures
is a plain folder tree (:mod:`.folders`).

The outline is the generator's navigation; where it has none (a Hugo site, Docusaurus' folders,
MkDocs without ``nav``), the folder tree stands in. Pages are the generator's page files. An
outline entry naming a file that does not exist, or one that is not a page, is left out with a
warning (as the generators warn); one leaving the content folder is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge.compiler.errors import BuildWarning, SourceError
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators.base import Generator, Site
from gezel_knowledge.compiler.generators.docfx import DocFx
from gezel_knowledge.compiler.generators.docsify import Docsify
from gezel_knowledge.compiler.generators.docusaurus import Docusaurus
from gezel_knowledge.compiler.generators.folders import Folders
from gezel_knowledge.compiler.generators.fumadocs import Fumadocs
from gezel_knowledge.compiler.generators.gitbook import GitBook
from gezel_knowledge.compiler.generators.hugo import Hugo
from gezel_knowledge.compiler.generators.jekyll import Jekyll
from gezel_knowledge.compiler.generators.jupyter_book import JupyterBook
from gezel_knowledge.compiler.generators.mdbook import MdBook
from gezel_knowledge.compiler.generators.mintlify import Mintlify
from gezel_knowledge.compiler.generators.mkdocs import MkDocs
from gezel_knowledge.compiler.generators.myst import Myst
from gezel_knowledge.compiler.generators.nextra import Nextra
from gezel_knowledge.compiler.generators.outline import Outline
from gezel_knowledge.compiler.generators.quarto import Quarto
from gezel_knowledge.compiler.generators.rspress import Rspress
from gezel_knowledge.compiler.generators.sphinx import Sphinx
from gezel_knowledge.compiler.generators.starlight import Starlight
from gezel_knowledge.compiler.generators.vitepress import VitePress
from gezel_knowledge.compiler.generators.vuepress import VuePress
from gezel_knowledge.compiler.generators.zola import Zola

__all__ = [
    "FALLBACK",
    "GENERATORS",
    "OUTLINE_KINDS",
    "PAGE_SUFFIXES",
    "Recognised",
    "detect_site",
    "generator_named",
    "recognise_outline",
    "source_site",
]

GENERATORS: tuple[Generator, ...] = (
    MdBook(),
    GitBook(),
    MkDocs(),
    JupyterBook(),
    Myst(),
    Quarto(),
    DocFx(),
    Docusaurus(),
    VitePress(),
    VuePress(),
    Starlight(),
    Mintlify(),
    Nextra(),
    Fumadocs(),
    Rspress(),
    # Before Hugo: both read config.toml beside content/; Zola's sets base_url.
    Zola(),
    Hugo(),
    Sphinx(),
    Jekyll(),
    Docsify(),
)
"""Every generator recognised, in the order they are looked for."""

FALLBACK = Folders("auto")
"""A folder no generator configures."""

_FOLDER_KINDS = (Folders("topic-yaml"), Folders("folders"))
_BY_NAME = {g.name: g for g in (*GENERATORS, *_FOLDER_KINDS)}

OUTLINE_KINDS = ("auto", *_BY_NAME)
"""What catalog.yaml's ``outline`` may name."""

PAGE_SUFFIXES = tuple(dict.fromkeys(s for g in GENERATORS for s in g.page_suffixes))
"""Every suffix some generator takes as a page."""

_LEVELS_ABOVE = 2


def generator_named(name: str) -> Generator | None:
    """The generator (or folder outline) catalog.yaml's ``outline`` names, if any."""
    return _BY_NAME.get(name)


@dataclass(frozen=True, slots=True)
class Recognised:
    """A recognised outline, the folder its page paths are relative to, and its warnings."""

    outline: Outline
    content_root: Path
    warnings: tuple[BuildWarning, ...] = ()


def detect_site(root: Path, kind: str = "auto") -> Site | None:
    """The generator project at ``root`` (``kind``: ``auto`` or a generator to insist on);
    ``None`` for a plain folder tree, or when ``kind`` asks for a folder outline."""
    if kind == "auto":
        above = _site_above(root)
        if above is not None:
            return above
        tentative: Site | None = None
        for generator in GENERATORS:
            site = generator.detect(root, forced=False)
            if site is not None and not site.tentative:
                return site
            tentative = tentative or site
        return tentative
    named = generator_named(kind)
    if named is None or named.plain:
        return None
    site = named.detect(root, forced=True)
    if site is None:
        raise SourceError(
            f"catalog.yaml asks for the {kind} outline but there is no {named.marker}",
            reason="missing-outline",
        )
    return site


def source_site(root: Path, kind: str = "auto") -> Site:
    """The site at ``root`` (:func:`detect_site`), else the folder tree as one."""
    site = detect_site(root, kind)
    if site is not None:
        return site
    folders = generator_named(kind)
    fallback = folders if isinstance(folders, Folders) else FALLBACK
    found = fallback.detect(root, forced=False)
    assert found is not None  # a folder is always a folder tree
    return found


def _site_above(root: Path) -> Site | None:
    """The project whose content folder ``root`` is, configured one or two folders up (a user
    pointing at ``docs/`` of an MkDocs site, ``guide/src`` of an mdBook, ``content/en``)."""
    resolved = root.resolve()
    for parent in list(resolved.parents)[:_LEVELS_ABOVE]:
        for generator in GENERATORS:
            if not generator.found_from_content:
                continue
            try:
                site = generator.detect(parent, forced=False)
            except SourceError:
                continue  # a broken configuration above is not this source's business
            if site is not None and site.content_root.resolve() == resolved:
                return site
    return None


def recognise_outline(
    source_root: Path,
    site: Site,
    *,
    forced: bool = False,
    exclude: Sequence[str] = (),
    reserved: set[Path] | None = None,
    allow_read: Path | None = None,
) -> Recognised:
    """The outline of ``site``'s pages (its generator's navigation, else the folder tree);
    ``forced`` when catalog.yaml insists on the generator, whose navigation file must then
    exist."""
    generator = site.generator
    ctx = Context(
        source_root,
        site.content_root,
        exclude,
        reserved or set(),
        generator.page_suffixes,
        allow_read=allow_read,
    )
    outline = generator.outline(site, ctx)
    if outline is None:
        if forced and generator.outline_required is not None:
            raise SourceError(
                f"catalog.yaml asks for the {generator.name} outline but there is no "
                f"{generator.outline_required}",
                reason="missing-outline",
            )
        outline = FALLBACK.outline(site, ctx)
        assert outline is not None  # the folder tree is always an outline
    return Recognised(outline, ctx.content_root, tuple(ctx.warnings))
