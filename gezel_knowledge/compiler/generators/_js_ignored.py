"""Folders a JavaScript documentation site's build writes, as its ``.gitignore`` says.

A site's deploy script often writes pages before the generator runs (tutorials rendered
from notebooks into ``docs/tutorials/``, plugin pages into ``reference/plugins/``, an API
reference into ``pages/api/``), and its repository keeps them out of git with ``.gitignore``
lines such as ``docs/tutorials/*`` or ``src/content/docs/reference/plugins/``. A link into
such a folder names a page the generator publishes, which the tree cannot hold.

Read: the ``.gitignore`` of each folder from the source folder down to the site's folder;
its anchored patterns (a ``/`` before the last character) naming a folder or a folder's
contents (``a/b/``, ``a/b/*``, ``a/b/**``) with no other wildcard. A pattern that matches at
any depth (``dist/``, ``node_modules/``) names build output, not pages, and is not read; a
``!`` line re-includes a file, which exists anyway.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config

__all__ = ["ignored_folders", "routes_below"]

_MAX_PATTERNS = 2000
_WILDCARDS = frozenset("*?[]\\")


def _folder(line: str) -> str | None:
    """The folder an anchored ``.gitignore`` line names (itself or its contents), else
    ``None``."""
    line = line.strip()
    if not line or line.startswith(("#", "!")):
        return None
    for ending in ("/**", "/*", "/"):
        if line.endswith(ending):
            line = line[: -len(ending)]
            break
    else:
        return None  # a file pattern
    line = line.lstrip("/")
    if not line:
        return None
    parts = PurePosixPath(line).parts
    if any(_WILDCARDS & set(p) or p in (".", "..") for p in parts):
        return None
    return "/".join(parts) or None


def _anchored(raw: str) -> bool:
    """Whether a ``.gitignore`` line is anchored (a ``/`` before its last character)."""
    return "/" in raw.strip().rstrip("/")


def ignored_folders(site: Path, root: Path) -> tuple[Path, ...]:
    """The folders the ``.gitignore`` files from ``root`` (the source folder) down to
    ``site`` list as ignored (see the module docstring), deepest first."""
    try:
        chain = [site, *site.relative_to(root).parents]
    except ValueError:
        return ()
    folders: list[Path] = []
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
            name = _folder(line) if _anchored(line) else None
            if name is not None:
                folders.append(base.joinpath(*name.split("/")))
    return tuple(sorted(set(folders), key=lambda p: (-len(p.parts), str(p))))


def routes_below(folders: tuple[Path, ...], base: Path) -> tuple[str, ...]:
    """The folders inside ``base`` as routes below them (``tutorials/``), relative to it."""
    out = []
    for folder in folders:
        if folder != base and folder.is_relative_to(base):
            out.append(folder.relative_to(base).as_posix() + "/")
    return tuple(out)
