"""The plain-folder fallback: a tree of Markdown files that no generator configures.

Navigation: the folder tree (:mod:`._tree`), named and ordered by, in this order of preference:

1. Hugo-style ``_index.md`` front matter (``title``, ``description``, ``weight``), when there is
   one anywhere;
2. per-folder ``_topic.yaml`` (``id``, ``name``, ``description``, ``order``), when there is one
   anywhere (``outline: topic-yaml``);
3. the folders themselves (``outline: folders``): a number prefix (``02-usage``) orders a folder
   or page and is dropped from the name; ``index.md``/``README.md`` lead their folder.

Links are relative file paths; anchors GitHub's. The catalog's metadata comes from
catalog.yaml alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators._context import Context
from gezel_knowledge.compiler.generators._tree import FolderInfo, FolderRules, any_file, walk
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.hugo import HugoFolders
from gezel_knowledge.compiler.generators.outline import Outline
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata, TopicDeclaration
from gezel_knowledge.compiler.text.data import load_yaml, read_text_file

__all__ = ["Folders", "TopicYamlFolders"]

FolderKind = Literal["auto", "folders", "topic-yaml"]


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

    def __init__(self, kind: FolderKind = "auto") -> None:
        self.kind = kind
        self.name = "folders" if kind == "auto" else kind

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        return Site(self, None, root, CatalogMetadata(), LinkStyle())

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
        # Hugo-style folders (no Hugo site) are listed as Hugo lists them; plain ones apart.
        return Outline(
            kind, root, None, ordered=False, merged=kind == "hugo", root_declaration=declaration
        )
