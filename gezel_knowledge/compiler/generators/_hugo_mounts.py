"""Hugo's ``module.mounts`` of the site's own folders into its content: the virtual content tree.

When a site declares a mount whose target is ``content`` or a folder or file under it, Hugo's
default content mount is replaced: the content is only what the declared mounts bring, each
file at its mounted path (``content/docs/v2`` at ``content/docs``: ``v2/2.20/a.md`` is the page
``docs/2.20/a.md``), less what a mount's filters leave out (``files``, ``includeFiles``,
``excludeFiles``: globs on the path relative to the mount's source, ``! `` negating in
``files``; a pattern matching a folder matches everything below it). An earlier mount wins
where two bring a file to the same path. Mounts of other languages and mounts from above the
site (read elsewhere, only when allowed) are not part of it.

Bounded: at most :data:`MAX_MOUNTS` mounts and :data:`MAX_FILES` files; a source that leaves the
site (``..``, or a symbolic link resolving outside) is not read; linked folders and files are
not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.generators import _config as config

__all__ = ["MAX_FILES", "MAX_MOUNTS", "ContentTree", "Mount", "content_mounts", "content_tree"]

MAX_MOUNTS = 64
"""Content mounts read; later ones are left out (a real site declares a handful)."""
MAX_FILES = 200_000
"""Files a content tree holds; the walk stops there."""


@dataclass(frozen=True, slots=True)
class Mount:
    """One content mount: its source (relative to the site), its target (relative to the
    content, ``""`` for the content itself), and its filters."""

    source: str
    target: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def keeps(self, rel: str) -> bool:
        """Whether the filters keep the file at ``rel`` (relative to the source)."""
        parts = rel.lower().split("/")
        paths = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(_glob(p).fullmatch(path) for p in self.exclude for path in paths):
            return False
        return not self.include or any(
            _glob(p).fullmatch(path) for p in self.include for path in paths
        )


@dataclass(slots=True)
class ContentTree:
    """The content as the mounts build it: content path -> file, and each folder's children."""

    files: dict[str, Path] = field(default_factory=dict)
    children: dict[str, set[str]] = field(default_factory=dict)

    def add(self, rel: str, file: Path) -> None:
        """Place ``file`` at ``rel`` unless an earlier mount placed one there."""
        if rel in self.files or not rel:
            return
        self.files[rel] = file
        path = PurePosixPath(rel)
        for parent in (path, *path.parents[:-1]):
            folder = parent.parent.as_posix()
            self.children.setdefault("" if folder == "." else folder, set()).add(parent.name)

    def is_folder(self, rel: str) -> bool:
        """Whether ``rel`` is a folder of the tree (``""``: the content itself)."""
        return rel in self.children

    def names(self, rel: str) -> list[str]:
        """The names in folder ``rel``, sorted."""
        return sorted(self.children.get(rel, ()))


def _strings(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [s.strip() for s in items if isinstance(s, str) and s.strip()]


def _pattern(text: str) -> str:
    return text.strip().lstrip("/").lower()


def _mount(mount: Mapping[str, Any]) -> Mount | None:
    """A content mount from its configuration entry, or ``None`` when it is none."""
    source = config.string(mount.get("source"))
    target = (config.string(mount.get("target")) or "").strip().strip("/")
    if source is None or not (target == "content" or target.startswith("content/")):
        return None
    include = [_pattern(p) for p in _strings(mount.get("includeFiles"))]
    exclude = [_pattern(p) for p in _strings(mount.get("excludeFiles"))]
    for item in _strings(mount.get("files")):
        if item.startswith("!"):
            exclude.append(_pattern(item[1:]))
        else:
            include.append(_pattern(item))
    rel = target.removeprefix("content").strip("/")
    return Mount(source.strip().strip("/"), rel, tuple(include), tuple(exclude))


def content_mounts(mounts: Any, applies: Any) -> list[Mount]:
    """The content mounts of the site's own folders that apply (``applies(entry)``), in order,
    at most :data:`MAX_MOUNTS`."""
    found: list[Mount] = []
    for entry in mounts if isinstance(mounts, list) else ():
        if not isinstance(entry, dict) or not applies(entry):
            continue
        mount = _mount(entry)
        if mount is None or ".." in PurePosixPath(mount.source).parts:
            continue
        if PurePosixPath(mount.source).is_absolute():
            continue
        found.append(mount)
        if len(found) >= MAX_MOUNTS:
            break
    return found


def content_tree(root: Path, mounts: list[Mount]) -> ContentTree:
    """The content the mounts build from the site at ``root`` (:class:`ContentTree`)."""
    tree = ContentTree()
    base = root.resolve()
    seen = 0
    for mount in mounts:
        source = root / mount.source
        if source.is_symlink() or not source.resolve().is_relative_to(base):
            continue  # never read outside the site
        if source.is_file():
            if mount.target:
                tree.add(mount.target, source)
            continue
        if not source.is_dir():
            continue
        for here, dirs, files in os.walk(source):  # never follows linked folders
            dirs[:] = sorted(d for d in dirs if not (Path(here) / d).is_symlink())
            for name in sorted(files):
                file = Path(here) / name
                seen += 1
                if seen > MAX_FILES:
                    return tree
                if file.is_symlink():
                    continue
                rel = file.relative_to(source).as_posix()
                if mount.keeps(rel):
                    tree.add("/".join(p for p in (mount.target, rel) if p), file)
    return tree


def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as Hugo reads one: ``**`` any path, ``*`` and ``?`` within a segment, ``[...]``
    a class, ``{a,b}`` alternatives."""
    hit = _CACHE.get(pattern)
    if hit is None:
        try:
            hit = re.compile(_translate(pattern))
        except re.error:
            hit = re.compile(re.escape(pattern))
        if len(_CACHE) < 1024:
            _CACHE[pattern] = hit
    return hit


_CACHE: dict[str, re.Pattern[str]] = {}
_SIMPLE = {"*": "[^/]*", "?": "[^/]"}


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, depth = 0, 0
    while i < len(pattern):
        c = pattern[i]
        end = pattern.find("]", i + 1) if c == "[" else -1
        if pattern.startswith("**", i):
            out.append(".*")
            i += 1
        elif c in _SIMPLE:
            out.append(_SIMPLE[c])
        elif end > 0:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else f"[{body}]")
            i = end
        elif c == "{" or (c in "},{" and depth > 0):
            depth += {"{": 1, "}": -1}.get(c, 0)
            out.append({"{": "(?:", "}": ")", ",": "|"}[c])
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out) + ")" * depth
