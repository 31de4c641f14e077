"""Folders a JavaScript documentation site's build writes, as its ``.gitignore`` says.

A site's deploy script often writes pages before the generator runs (tutorials rendered
from notebooks into ``docs/tutorials/``, plugin pages into ``reference/plugins/``, an API
reference into ``pages/api/``), and its repository keeps them out of git with ``.gitignore``
lines such as ``docs/tutorials/*`` or ``src/content/docs/reference/plugins/``. A link into
such a folder names a page the generator publishes, which the tree cannot hold.

Read: the ``.gitignore`` of each folder from the source folder down to the site's folder;
its anchored patterns (a ``/`` before the last character) naming a folder or a folder's
contents (``a/b/``, ``a/b/*``, ``a/b/**``, or ``/a/b`` with no suffix, which git matches as a
folder too), or a file (``/docs/releases.md``, a page a script writes), with no other
wildcard; ``a/b/*.md`` names the folder's pages. A pattern that matches at any depth
(``dist/``, ``node_modules/``) names build output, not pages, and is not read; a ``!`` line
re-includes a file, which exists anyway.

A ``.gitignore`` in a folder below the site (``src/content/docs/reference/.gitignore``, beside
the pages a script writes) is read the same way, and there an unanchored line naming pages
is read too: ``*`` or ``*.md`` (the folder's pages), ``config.md`` (a page of that folder).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config

__all__ = ["ignored_files", "ignored_folders", "page_routes", "routes_below"]

_MAX_PATTERNS = 2000
_MAX_FOLDERS = 5000
_WILDCARDS = frozenset("*?[]\\")
_PAGE_SUFFIXES = (".md", ".mdx", ".mdoc", ".markdown")
_SKIPPED = frozenset({"node_modules", "dist", "build"})


def _path(line: str) -> tuple[str, bool] | None:
    """The folder (itself or its contents) or file an anchored ``.gitignore`` line names, and
    whether it is a folder; else ``None``."""
    line = line.strip()
    if not line or line.startswith(("#", "!")):
        return None
    folder = False
    for ending in ("/**", "/*", "/", *(f"/*{s}" for s in _PAGE_SUFFIXES)):
        if line.endswith(ending):
            line, folder = line[: -len(ending)], True
            break
    line = line.lstrip("/")
    if not line:
        return None
    parts = PurePosixPath(line).parts
    if not parts or any(_WILDCARDS & set(p) or p in (".", "..") for p in parts):
        return None
    # Without a trailing slash git ignores a file or a folder of that name: one with no
    # suffix (`/docs/api`, where an API reference is generated) is read as a folder.
    folder = folder or "." not in parts[-1]
    return "/".join(parts), folder


def _anchored(raw: str) -> bool:
    """Whether a ``.gitignore`` line is anchored (a ``/`` before its last character)."""
    return "/" in raw.strip().rstrip("/")


def ignored_folders(site: Path, root: Path) -> tuple[Path, ...]:
    """The folders the ``.gitignore`` files from ``root`` (the source folder) down to
    ``site`` list as ignored (see the module docstring), deepest first."""
    return tuple(p for p, folder in _ignored(site, root) if folder)


def ignored_files(site: Path, root: Path) -> tuple[Path, ...]:
    """The files (``/docs/src/content/docs/releases.md``) those ``.gitignore`` files list."""
    return tuple(p for p, folder in _ignored(site, root) if not folder)


def _unanchored(line: str) -> tuple[str, bool] | None:
    """What an unanchored line of a ``.gitignore`` inside the site names: the folder's own
    pages (``*``, ``*.md``: the folder) or a page of it (``config.md``)."""
    line = line.strip()
    if line in ("*", "**", *(f"*{s}" for s in _PAGE_SUFFIXES)):
        return "", True
    if "/" in line or _WILDCARDS & set(line) or not line.endswith(_PAGE_SUFFIXES):
        return None
    return line, False


def _nested(site: Path) -> list[Path]:
    """The ``.gitignore`` files in the folders below ``site`` (hidden folders and
    :data:`SKIPPED` ones left out), at most :data:`_MAX_FOLDERS` folders visited."""
    found: list[Path] = []
    for visited, (folder, dirs, files) in enumerate(os.walk(site)):  # never follows links
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED)
        if visited >= _MAX_FOLDERS:
            break
        if ".gitignore" in files and Path(folder) != site:
            found.append(Path(folder) / ".gitignore")
    return found


def _ignored(site: Path, root: Path) -> list[tuple[Path, bool]]:
    try:
        chain = [site, *site.relative_to(root).parents]
    except ValueError:
        return []
    found: set[tuple[Path, bool]] = set()
    for ignore in _nested(site):
        base = ignore.parent
        try:
            text = config.read_text(ignore, root)
        except SourceError:
            continue
        for line in text.splitlines()[:_MAX_PATTERNS]:
            named = _path(line) if _anchored(line) else _unanchored(line)
            if named is not None:
                path = base.joinpath(*named[0].split("/")) if named[0] else base
                found.add((path, named[1]))
    for rel in chain:
        base = site if rel == site else root / rel
        ignore = base / ".gitignore"
        if not ignore.is_file():
            continue
        try:
            text = config.read_text(ignore, root)
        except SourceError:
            continue  # unreadable, or a link leaving the source folder: not read
        for line in text.splitlines()[:_MAX_PATTERNS]:
            named = _path(line) if _anchored(line) else None
            if named is not None:
                found.add((base.joinpath(*named[0].split("/")), named[1]))
    return sorted(found, key=lambda f: (-len(f[0].parts), str(f[0]), f[1]))


def page_routes(files: tuple[Path, ...], base: Path) -> tuple[str, ...]:
    """The ignored page files inside ``base`` as routes: the path, and the path without its
    suffix (``releases``; an ``index`` page its folder), relative to it."""
    out = []
    for file in files:
        if file.is_relative_to(base) and file.suffix in _PAGE_SUFFIXES:
            rel = PurePosixPath(file.relative_to(base).as_posix())
            page = rel.with_suffix("")
            bare = page.parent.as_posix() if page.name == "index" else page.as_posix()
            out.append(rel.as_posix())
            if bare != ".":
                out.append(bare)
    return tuple(out)


def routes_below(folders: tuple[Path, ...], base: Path) -> tuple[str, ...]:
    """The folders inside ``base`` as routes below them (``tutorials/``), relative to it."""
    out = []
    for folder in folders:
        if folder != base and folder.is_relative_to(base):
            out.append(folder.relative_to(base).as_posix() + "/")
    return tuple(out)
