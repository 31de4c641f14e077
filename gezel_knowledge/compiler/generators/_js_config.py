"""A JavaScript configuration file and the local files it imports, read without running them.

VitePress and Astro sites often split their configuration: ``.vitepress/config/index.ts``
spreads ``enConfig`` from ``./en.ts``, ``astro.config.mjs`` imports its sidebar from
``./sidebar.mjs``. Each file's literals are read by :mod:`._js`; relative imports
(``import x from './en'``, ``export * from '../y.js'``) are followed, breadth first, to at most
:data:`MAX_FILES` files inside the source folder. What a module imports from a package is not
read; an imported ``.json`` file (``import locales from './locales.json'``) stands for its value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import normalise
from gezel_knowledge.compiler.generators._js import (
    UNKNOWN,
    Returning,
    imports,
    read_module,
    walk_values,
)

__all__ = [
    "MAX_FILES",
    "SKIPPED_FOLDERS",
    "WORKSPACE_FOLDERS",
    "JsFile",
    "file_head",
    "find_config",
    "marked_config",
    "read_config",
    "score_settings",
    "workspace_config",
]

MAX_FILES = 32
_SUFFIXES = (".ts", ".mts", ".js", ".mjs", ".cts", ".cjs", ".json")
_TS_SOURCE = {".js": ".ts", ".mjs": ".mts", ".cjs": ".cts"}
# `import ... from './x'`, `export ... from './x'`, `import './x'`: the string after `from`
# or `import`; only relative ones are followed.
_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*(['"])(\.{1,2}/[^'"\n]{1,300})\1""")


@dataclass(frozen=True, slots=True)
class JsFile:
    """One file read: its path, literals (and every dict and list inside them) and export."""

    path: Path
    values: list[Any]
    exported: Any
    text: str
    names: dict[str, Any]
    """The names bound to literals in this file and the files read before it."""


def _resolve(base: Path, name: str, root: Path) -> Path | None:
    """The file a relative import names (its suffix, or ``/index`` and a suffix, added)."""
    target = normalise(base, name, root)
    if target is None:
        return None
    candidates = [target, *(target.with_name(target.name + s) for s in _SUFFIXES)]
    # TypeScript's ESM imports name the emitted file: `./configs/index.js` is `index.ts`.
    emitted = _TS_SOURCE.get(target.suffix)
    if emitted is not None:
        candidates.append(target.with_suffix(emitted))
    candidates += [target / f"index{s}" for s in _SUFFIXES]
    return next((c for c in candidates if c.is_file() and c.suffix in _SUFFIXES), None)


def read_config(file: Path, root: Path) -> list[JsFile]:
    """``file`` and the local files it imports (see the module docstring), in that order.
    The imported files are read first, so that a name one binds stands for its literal in
    the files importing it."""
    texts: list[tuple[Path, str]] = []
    queue, seen = [file], {file.resolve()}
    while queue and len(texts) < MAX_FILES:
        path = queue.pop(0)
        try:
            text = config.read_text(path, root)
        except SourceError:
            continue  # an import outside the source folder, or unreadable: not followed
        texts.append((path, text))
        for match in _IMPORT.finditer(text):
            found = _resolve(path.parent, match.group(2), root)
            if found is not None and found.resolve() not in seen:
                seen.add(found.resolve())
                queue.append(found)
    names: dict[str, Any] = {}
    exports: dict[Path, tuple[Any, dict[str, Any], dict[str, Returning]]] = {}
    out: list[JsFile] = []
    for path, text in reversed(texts):
        # `import Customizations from './customizations'`: the name stands for what that file
        # exports (read before this one); `import { a as b }` for the name it binds.
        known = dict(names)
        functions: dict[str, Returning] = {}
        for imported in imports(text):
            source = imported.source
            target = _resolve(path.parent, source, root) if source[:1] == "." else None
            if target is None or target.resolve() not in exports:
                continue
            exported, bound, defined = exports[target.resolve()]
            member = imported.member
            value = exported if member is None else bound.get(member, UNKNOWN)
            if value is not UNKNOWN:
                known[imported.name] = value
            elif member is not None and member in defined:
                functions[imported.name] = defined[member]
        if path.suffix == ".json":
            # `import locales from './locales.json'`: the name stands for the file's value.
            value = _json_value(text)
            exports[path.resolve()] = (value, {}, {})
            values = walk_values(value) if value is not UNKNOWN else []
            out.append(JsFile(path, values, value, text, dict(names)))
            continue
        module = read_module(text, known, functions)
        exports[path.resolve()] = (module.exported, module.names, module.functions)
        names.update(module.names)
        values = [v for literal in module.literals for v in walk_values(literal)]
        out.append(JsFile(path, values, module.exported, text, dict(names)))
    return out[::-1]


def _json_value(text: str) -> Any:
    """A JSON file's value (``UNKNOWN`` when it is not JSON)."""
    try:
        return json.loads(text)
    except ValueError:
        return UNKNOWN


def score_settings(values: list[Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The mapping among ``values`` holding most of ``keys`` (the site's settings object),
    else an empty one."""
    best: dict[str, Any] = {}
    score = 0
    for value in values:
        if isinstance(value, dict):
            here = sum(k in value for k in keys)
            if here > score:
                best, score = value, here
    return best


SKIPPED_FOLDERS = ("node_modules", "dist")
"""Folders of a JavaScript project that hold no pages of its site."""


def file_head(file: Path, limit: int) -> bytes | None:
    """The first ``limit`` bytes of ``file`` (``None`` when unreadable): detection looks for a
    marker there, and a huge file must not be read whole to find it."""
    try:
        with file.open("rb") as fh:
            return fh.read(limit)
    except OSError:
        return None


def marked_config(
    folder: Path, names: Sequence[str], marked: Callable[[bytes], bool]
) -> Path | None:
    """The first of ``names`` that is a file in ``folder``, when its head (the first
    megabyte, :func:`file_head`) is ``marked`` as the generator's: a site has one
    configuration, and the first found is the one its tool reads."""
    for name in names:
        file = folder / name
        if file.is_file():
            head = file_head(file, 1_000_000)
            return file if head is not None and marked(head) else None
    return None


def find_config(root: Path, config_in: Callable[[Path], Path | None]) -> Path | None:
    """The configuration ``config_in`` finds at ``root``, else in one folder just below it
    (``docs/`` first; hidden folders, ``node_modules`` and ``dist`` skipped): a repository
    whose site is ``docs/`` builds at its root; else a monorepo's one site
    (:func:`workspace_config`)."""
    found = config_in(root)
    if found is not None:
        return found
    try:
        folders = sorted(
            (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
            key=lambda p: (p.name != "docs", p.name),
        )
    except OSError:
        return None
    for folder in folders:
        if folder.name not in SKIPPED_FOLDERS and not folder.is_symlink():
            found = config_in(folder)
            if found is not None:
                return found
    return workspace_config(root, config_in)


WORKSPACE_FOLDERS = ("apps", "packages")
"""The folders of a JavaScript monorepo whose subfolders are its workspace's packages."""
_MAX_PACKAGES = 500


def _is_workspace(root: Path) -> bool:
    """Whether ``root`` is a JavaScript monorepo: ``pnpm-workspace.yaml``, ``lerna.json``,
    or a ``package.json`` naming ``workspaces``."""
    if (root / "pnpm-workspace.yaml").is_file() or (root / "lerna.json").is_file():
        return True
    manifest = root / "package.json"
    try:
        # Inside the source folder only (a link out of it is not read), within the text limit.
        text = config.read_text(manifest, root) if manifest.is_file() else ""
    except SourceError:
        return False
    return '"workspaces"' in text


def workspace_config(root: Path, config_in: Callable[[Path], Path | None]) -> Path | None:
    """A monorepo's site: the one configuration ``config_in`` finds in a package of
    ``apps/`` or ``packages/`` (``packages/docs/``, or a package's ``docs/``) of a
    JavaScript monorepo (:func:`_is_workspace`), so a repository whose documentation is a
    workspace package builds at its root. None when there is none or more than one (which
    is the site is not stated)."""
    if not _is_workspace(root):
        return None
    found: list[Path] = []
    for name in WORKSPACE_FOLDERS:
        base = root / name
        if not base.is_dir() or base.is_symlink():
            continue
        try:
            packages = sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            continue
        for package in packages[:_MAX_PACKAGES]:
            if package.name.startswith(".") or package.name in SKIPPED_FOLDERS:
                continue
            here = config_in(package) or (
                config_in(package / "docs") if (package / "docs").is_dir() else None
            )
            if here is not None:
                found.append(here)
    return found[0] if len(found) == 1 else None
