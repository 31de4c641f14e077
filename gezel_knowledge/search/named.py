"""The catalog a user named, resolved once for every surface.

The command line, the retrievers, the MCP server and :class:`KnowledgeSearch` take a catalog
as a name the user typed: a ``.gezk`` file, an extracted catalog folder, or an installed
catalog (``publisher/catalog[@version]`` or a unique catalog id). :func:`resolve_catalog` is
the one rule that decides which it is, :func:`open_named` opens it with its query embedder
given at opening, and :func:`pick_catalog` finds a name among catalogs already open.

The rule: a path that exists and is a catalog (a file, or a folder with a ``manifest.json``) is
that catalog. A name that is no path is an installed catalog. A folder that is no catalog is the
installed catalog of that name when there is one (a ``docs`` folder in the working directory
must not hide ``pub/docs``), else the folder, whose opening says why it is not a catalog.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import gezel_knowledge.install as installing
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import NotFound
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog

if TYPE_CHECKING:
    from gezel_knowledge.install import HomeState, InstalledCatalog

__all__ = ["NamedCatalog", "open_named", "pick_catalog", "resolve_catalog"]


@dataclass(frozen=True, slots=True)
class NamedCatalog:
    """What a catalog name resolved to: a path, or an installed catalog of a home."""

    name: str
    path: Path | None = None
    home: HomeState | None = None
    installed: InstalledCatalog | None = None

    @property
    def key(self) -> str | None:
        """``publisher/catalog`` of an installed catalog (``None`` for a path)."""
        return None if self.installed is None else self.installed.key


def _state(home: HomeState | Path | str | None) -> HomeState:
    if isinstance(home, Path | str) or home is None:
        return installing.HomeState(home)
    return home


def _installed(
    name: str, home: HomeState | Path | str | None, prepare: Callable[[HomeState], HomeState]
) -> NamedCatalog:
    state = prepare(_state(home))
    try:
        return NamedCatalog(name, home=state, installed=state.catalog(name))
    except NotFound as exc:
        if exc.reason == "version-not-installed":
            raise
        raise NotFound(
            f"{name} is not a .gezk file, a catalog directory or an installed catalog "
            "(publisher/catalog[@version] or a unique id)",
            reason="catalog-not-found",
            subject=name,
        ) from None


def _same(state: HomeState) -> HomeState:
    return state


def resolve_catalog(
    name: str | os.PathLike[str],
    *,
    home: HomeState | Path | str | None = None,
    prepare: Callable[[HomeState], HomeState] = _same,
) -> NamedCatalog:
    """What ``name`` names: a catalog file or folder, or an installed catalog of ``home``
    (``prepare`` runs on the home before it is asked, when it is: the command line installs the
    bundled handbook there). Raises ``catalog-not-found`` when it is neither."""
    text = os.fspath(name)
    path = Path(text)
    if not path.exists():
        return _installed(text, home, prepare)
    if not path.is_dir() or (path / "manifest.json").exists():
        return NamedCatalog(text, path=path)
    try:
        return _installed(text, home, prepare)
    except NotFound:
        return NamedCatalog(text, path=path)  # the folder it is: opening it says why


def open_named(
    named: NamedCatalog,
    *,
    embedder: Embedder | Literal["auto"] | None = "auto",
    model_dir: Path | str | None = None,
) -> Catalog:
    """Open what :func:`resolve_catalog` found, with its query embedder (``"auto"``: the
    shared one of its profile, found on the first semantic search, in ``model_dir`` first).
    An installed catalog opens even when disabled: naming it is asking for it."""
    if named.installed is not None:
        assert named.home is not None
        return installing.mount_catalog(
            named.home,
            named.installed,
            allow_disabled=True,
            embedder=embedder,
            model_dir=model_dir,
        )
    assert named.path is not None
    return open_catalog(named.path, embedder=embedder, model_dir=model_dir)


def pick_catalog(ref: str, catalogs: Sequence[Catalog]) -> str:
    """The ``publisher/catalog`` key of the one catalog among ``catalogs`` that ``ref`` names,
    as installed catalogs are named: ``publisher/catalog[@version]`` or a unique catalog id."""
    name, at, version = ref.partition("@")
    served = [f"{c.publisher_id}/{c.id}" for c in catalogs]
    if "/" in name:
        found = [c for c in catalogs if f"{c.publisher_id}/{c.id}" == name]
    else:
        found = [c for c in catalogs if c.id == name]
    if not found:
        raise NotFound(
            f"catalog {ref} is not served here (served: {', '.join(served) or 'none'})",
            reason="catalog-not-found",
            subject=ref,
        )
    if len(found) > 1:
        raise installing.AmbiguousCatalog(
            ref, tuple(sorted(f"{c.publisher_id}/{c.id}" for c in found))
        )
    catalog = found[0]
    if at and catalog.version != version:
        raise NotFound(
            f"{catalog.publisher_id}/{catalog.id}@{version} is not served here (version "
            f"{catalog.version} is)",
            reason="version-not-installed",
            subject=ref,
        )
    return f"{catalog.publisher_id}/{catalog.id}"
