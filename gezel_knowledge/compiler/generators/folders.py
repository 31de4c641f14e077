"""The plain-folder fallback: a tree of Markdown files that no generator configures.

Pages: ``.md``, ``.markdown`` and ``.mdx`` files (a site of a generator not recognised is
still Markdown to read).

Navigation: the folder tree (:mod:`._tree`), named and ordered by, in this order of preference:

1. Hugo-style ``_index.md`` front matter (``title``, ``description``, ``weight``), when there is
   one anywhere;
2. per-folder ``_topic.yaml`` (``id``, ``name``, ``description``, ``order``), when there is one
   anywhere (``outline: topic-yaml``);
3. the folders themselves (``outline: folders``), in the order GitHub shows a repository's
   folder (:func:`github_order`): ``README.md``/``index.md`` lead their folder, then the
   entries a number prefix orders (``02-usage``: the number, dropped from the name; a date
   such as ``2017-04-28`` or a version is no prefix), then the other pages by file name, then
   the other folders by name. A folder with no ``catalog.yaml`` is one found as it is (a
   repository's ``docs/``): its top ``README.md`` is its index page, a document, rather
   than the catalog's description.

Links are relative file paths, read as GitHub reads them in a repository: a link to a file of
the tree that is no page (source code, ``config.json``) names that file and is kept as written,
silently; so is one leaving the source folder (``../../src/x.py``, ``../LICENSE``), which
names a file of the repository the compiler does not read. A root-relative link
(``/docs/guide.md``) is from the repository's root: its leading folders may name the source
folder itself (``docs/`` built at ``docs``), and one naming a folder the source folder does
not hold is a repository file outside it, kept silently. Anchors are GitHub's. The catalog's
metadata comes from catalog.yaml alone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, MDX, Context
from gezel_knowledge.compiler.generators._tree import (
    FIRST,
    INDEX_STEMS,
    FolderInfo,
    FolderRules,
    any_file,
    walk,
)
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.hugo import HugoFolders
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata, TopicDeclaration
from gezel_knowledge.compiler.text.data import load_yaml, read_text_file

__all__ = ["Folders", "TopicYamlFolders", "github_order"]

FolderKind = Literal["auto", "folders", "topic-yaml"]

# A number prefix orders an entry (01-intro.md); a date or a version opening a name does not.
_NUMBER_PREFIX = re.compile(r"(\d{1,9})[-_. ]+(?=\S)")
_DATE_OR_VERSION = re.compile(r"\d+[-_.]\d+[-_.]\d+(?:\D|\Z)")
_READMES = ("README.md", "readme.md", "Readme.md", "README.markdown")


def _prefix(name: str) -> int | None:
    """The order a name's number prefix gives, ``None`` without one (or for a date)."""
    if _DATE_OR_VERSION.match(name):
        return None
    match = _NUMBER_PREFIX.match(name)
    return int(match.group(1)) if match else None


def _entry_name(child: OutlineSection | OutlinePage) -> str:
    """The file or folder name of an outline entry of a folder tree."""
    if isinstance(child, OutlinePage):
        return child.path.rsplit("/", 1)[-1]
    return child.key.rstrip("/").rsplit("/", 1)[-1]


def github_order(section: OutlineSection) -> None:
    """Order a plain folder tree as GitHub shows a folder, each child's position its rank:
    the index page (``README``, ``index``) first, then the entries a number prefix orders
    (by the number), then the other pages, then the other folders, by name (case folded,
    then as written); folder names lose their number prefix, as pages' titles do."""

    def key(child: OutlineSection | OutlinePage) -> tuple[int, int, int, str, str]:
        name = _entry_name(child)
        stem = name.rsplit(".", 1)[0] if isinstance(child, OutlinePage) else name
        number = _prefix(name)
        if isinstance(child, OutlinePage) and stem.lower() in INDEX_STEMS:
            group = 0
        elif number is not None:
            group = 1
        else:
            group = 2 if isinstance(child, OutlinePage) else 3
        return (group, number or 0, 0, name.casefold(), name)

    ranked = sorted(section.children, key=key)
    for rank, child in enumerate(ranked):
        child.order = rank
        if isinstance(child, OutlineSection):
            name = _entry_name(child)
            if _prefix(name) is None:
                # No prefix (a date is none): the folder is named by its whole name.
                plain = re.sub(r"[-_]+", " ", name).strip() or name
                child.name = plain[:1].upper() + plain[1:]
            github_order(child)
    section.children = ranked


def _index_readme(ctx: Context, root: OutlineSection) -> None:
    """Make the top ``README.md`` of a folder with no ``catalog.yaml`` (a repository's
    ``docs/``, found as it is) its index page, first, rather than the catalog's description."""
    if (ctx.source_root / "catalog.yaml").exists():
        return
    for name in _READMES:
        readme = ctx.content_root / name
        if readme.is_file() and ctx.rel(readme) not in {
            c.path for c in root.children if isinstance(c, OutlinePage)
        }:
            root.children.insert(0, OutlinePage(ctx.rel(readme), None, FIRST, ctx.display(readme)))
            return


class TopicYamlFolders(FolderRules):
    """Folders named and ordered by their ``_topic.yaml``."""

    def folder(self, ctx: Context, folder: Path) -> FolderInfo:
        meta = folder / "_topic.yaml"
        if not meta.is_file():
            return FolderInfo()
        where = ctx.display(meta)
        data = load_yaml(read_text_file(meta, where=where), path=where) or {}
        if not isinstance(data, dict):
            raise SourceError(
                "_topic.yaml must be a mapping", reason="invalid-topic-yaml", path=where
            )
        order = data.get("order")
        if order is not None and (isinstance(order, bool) or not isinstance(order, int)):
            raise SourceError("order must be an integer", reason="invalid-topic-yaml", path=where)
        for key in ("id", "name", "description"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise SourceError(
                    f"{key} must be a string", reason="invalid-topic-yaml", path=where
                )
        declaration = TopicDeclaration(
            id=data.get("id") or "",
            name=data.get("name") or "",
            description=data.get("description"),
            order=order,
        )
        return FolderInfo(declaration)


class Folders(Generator):
    """A plain folder of Markdown (``kind``: which folder rules; ``auto`` looks for them)."""

    described_as = None
    marker = "a folder of Markdown"
    plain = True
    # A folder of MDX (a site of a generator not recognised, such as Rspress) is
    # still Markdown to read; MDX's imports and components stay as text, as a generator that
    # is recognised leaves them.
    page_suffixes = (*MARKDOWN_SUFFIXES, MDX)
    # GitHub renders a page whose front matter does not parse, with the error above it.
    lenient_front_matter = True

    def __init__(self, kind: FolderKind = "auto") -> None:
        self.kind = kind
        self.name = "folders" if kind == "auto" else kind

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        return Site(
            self, None, root, CatalogMetadata(), LinkStyle(files_resolve=True, repository=True)
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        kind: str = self.kind
        rules = FolderRules()
        if kind == "auto" and any_file(ctx.content_root, "_index.md"):
            kind, rules = "hugo", HugoFolders()
        elif kind == "topic-yaml" or (kind == "auto" and any_file(ctx.content_root, "_topic.yaml")):
            kind, rules = "topic-yaml", TopicYamlFolders()
        else:
            kind = "folders"
        root, declaration = walk(ctx, rules)
        if kind == "folders":
            _index_readme(ctx, root)
            github_order(root)
            return Outline(kind, root, None, root_declaration=declaration)
        # Hugo-style folders (no Hugo site) are listed as Hugo lists them; plain ones apart.
        return Outline(
            kind, root, None, ordered=False, merged=kind == "hugo", root_declaration=declaration
        )
