"""Pages of an older documentation version, told apart by their ids.

A site that publishes several versions of its documentation keeps each in a folder named for
its version (Hugo's ``docs/v3.5/``, ``docs/v3.8/``; Jaeger's ``docs/v1/1.76/`` and
``docs/v2/2.20/``; mike's and Read the Docs' ``1.2/``), and a catalog built from it keeps
every version's pages. Their texts differ a little from version to version, so the copies rule
(:func:`gezel_knowledge.reader.hybrid.copies_last`) does not apply, and a question that names
no version often found an old version's page first (Jaeger's v1 "Troubleshooting" before v2's).
An older version's page describes the product as it was, as a dated page does
(:mod:`gezel_knowledge.reader.dated`), and hybrid search weighs it the same way: its fused score
is multiplied by :data:`~gezel_knowledge.reader.dated.DATED_WEIGHT`, so the current version's
page that answers as well goes first, and an old page that answers clearly better (a page the
new version dropped) still can.

A folder is a version folder when its name is one: ``v3``, ``v3.5``, ``version-2``, ``2.20``,
``1.x`` (a bare integer is not: ``1/``, ``2/`` number chapters as often as versions, and
``2024/`` dates a blog post). Among the version folders under one parent the highest version is
the current one; a page under a lower one is an older version's page, and so is a page under a
preview folder (``dev``, ``_dev``, ``next``, ``unreleased``, ``nightly``, ``canary``) beside
them: the unreleased documentation. Dated pages (blog posts under ``blog/2024/``) are left to
:mod:`~gezel_knowledge.reader.dated`. A question that names a version itself (``v1``,
``2.0``, ``1.6.0``) may be asking about an older one, so for it no page is weighed as older.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable

from gezel_knowledge._rows import fetch_all
from gezel_knowledge.reader._store import CatalogStore
from gezel_knowledge.reader.dated import is_dated

__all__ = [
    "PREVIEW_FOLDERS",
    "names_version",
    "older_version_ids",
    "older_versions",
    "version_of",
]

PREVIEW_FOLDERS = frozenset({"_dev", "canary", "dev", "next", "nightly", "unreleased"})
"""Folder names (compared in lower case) of unreleased documentation, when they stand beside
version folders (Jaeger's ``docs/v2/_dev/`` beside ``docs/v2/2.20/``)."""

_VERSION_FOLDER = re.compile(
    r"(?:v|version-?)(\d{1,6}(?:\.\d{1,6}){0,4})(?:\.x)?"
    r"|(\d{1,6}(?:\.\d{1,6}){1,4})(?:\.x)?"
    r"|(\d{1,6})\.x",
    re.IGNORECASE,
)
"""A version folder's name: ``v`` or ``version`` and a version, or a dotted version alone
(``2.20``, ``1.x``)."""

_NAMED_VERSION = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+)*|\d+(?:\.\d+)+)(?![\w])", re.IGNORECASE)
"""A version a question names: ``v2``, ``V1``, ``2.0``, ``1.6.0`` (not a bare number)."""


def version_of(name: str) -> tuple[int, ...] | None:
    """The version a folder name stands for (``v3.5`` -> ``(3, 5)``), ``None`` when it is none."""
    found = _VERSION_FOLDER.fullmatch(name)
    if found is None:
        return None
    return tuple(int(part) for part in next(g for g in found.groups() if g).split("."))


def older_versions(ids: Iterable[str]) -> frozenset[str]:
    """The ids among ``ids`` that are pages of an older (or unreleased) documentation version:
    under a version folder that has a higher version folder beside it, or under a preview folder
    beside version folders. Dated ids are never counted (see the module docstring)."""
    ids = list(ids)
    versions: dict[str, tuple[int, ...] | None] = {}

    def version(name: str) -> tuple[int, ...] | None:
        # Folder names repeat across thousands of ids: each is parsed once.
        if name not in versions:
            versions[name] = version_of(name)
        return versions[name]

    pages: list[list[str]] = []
    newest: dict[tuple[str, ...], tuple[int, ...]] = {}
    for i in ids:
        parts = i.split("/")
        found = [(n, v) for n, name in enumerate(parts[:-1]) if (v := version(name)) is not None]
        preview = any(name.lower() in PREVIEW_FOLDERS for name in parts[:-1])
        if (not found and not preview) or is_dated(i):
            continue
        pages.append(parts)
        for n, v in found:
            parent = tuple(parts[:n])
            newest[parent] = max(newest.get(parent, v), v)
    out: set[str] = set()
    for parts in pages:
        for n, name in enumerate(parts[:-1]):
            current = newest.get(tuple(parts[:n]))
            if current is None:
                continue
            v = version(name)
            if (v is not None and v < current) or (v is None and name.lower() in PREVIEW_FOLDERS):
                out.add("/".join(parts))
                break
    return frozenset(out)


def names_version(question: str) -> bool:
    """Whether ``question`` names a version (``v1``, ``2.0``): then it may be about an old one."""
    return _NAMED_VERSION.search(question) is not None


_cache: weakref.WeakKeyDictionary[CatalogStore, frozenset[str]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def older_version_ids(store: CatalogStore) -> frozenset[str]:
    """The catalog's pages of an older documentation version (:func:`older_versions` of its
    document ids), read once per catalog handle."""
    with _lock:
        found = _cache.get(store)
        if found is None:
            # Only an id with a folder can be under a version folder.
            rows = fetch_all(store.router, "SELECT id FROM documents WHERE id LIKE '%/%'")
            found = older_versions(str(r["id"]) for r in rows)
            _cache[store] = found
        return found
