"""Shared pieces of the catalog commands (inspect, validate, topics, list, read, search).

Every one of them takes a catalog as its first positional argument: a ``.gezk`` file, an
extracted catalog directory, or an installed catalog (``publisher/catalog`` or a unique id).
:func:`open_catalog_argument` is the single place that turns the argument into an open
:class:`~gezel_knowledge.reader.Catalog`. ``list`` without a catalog lists the installed ones and
``read`` resolves a bare ``knowledge://`` URI through them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import gezel_knowledge.install as installing
from gezel_knowledge.cli._installed import with_handbook
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog

if TYPE_CHECKING:
    from gezel_knowledge.install import HomeState, InstalledCatalog

__all__ = ["add_catalog_argument", "catalog_path_argument", "open_catalog_argument"]


def add_catalog_argument(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """The positional ``CATALOG`` argument."""
    parser.add_argument(
        "catalog",
        metavar="CATALOG",
        nargs="?" if optional else None,
        help="a .gezk file, an extracted catalog directory, or an installed catalog as "
        "publisher/catalog[@version] or a unique catalog id",
    )


def _installed(value: str, home_dir: str | None) -> tuple[HomeState, InstalledCatalog]:
    # Through the install face: a path argument never loads the install machinery.
    home = with_handbook(installing.HomeState(home_dir))
    try:
        return home, home.catalog(value)
    except NotFound as exc:
        if exc.reason == "version-not-installed":
            raise
        raise NotFound(
            f"{value} is not a .gezk file, a catalog directory or an installed catalog "
            "(publisher/catalog[@version] or a unique id)",
            reason="catalog-not-found",
            subject=value,
        ) from None


def _installed_instead(
    path: Path, value: str, home: str | None
) -> tuple[HomeState, InstalledCatalog] | None:
    """The installed catalog ``value`` names rather than the path, or ``None`` for the path: it
    names one when no such path exists (else ``catalog-not-found``), and when the path is a
    folder that is no catalog but an installed catalog of that name exists (a folder ``docs``
    in the working directory must not hide ``pub/docs``)."""
    if not path.exists():
        return _installed(value, home)
    if not path.is_dir() or (path / "manifest.json").exists():
        return None
    try:
        return _installed(value, home)
    except NotFound:
        return None  # the folder it is: opening it says why it is not a catalog


def catalog_path_argument(value: str, *, home: str | None = None) -> Path:
    """The file or directory a command-line argument names: the path itself when it exists
    (and is a catalog, if a folder), else the active version's directory of the installed
    catalog it names."""
    path = Path(value)
    found = _installed_instead(path, value, home)
    if found is None:
        return path
    state, installed = found
    if installed.active is None:
        raise NotFound(
            f"{installed.key} has no active version", reason="not-installed", subject=value
        )
    return state.path_of(installed.active)


def open_catalog_argument(
    value: str | None, *, embedder: Embedder | None = None, home: str | None = None
) -> Catalog:
    """Open the catalog a command-line argument names (an installed one from ``home``)."""
    if value is None:
        raise InvalidInput(
            "name a catalog: a .gezk file, an extracted catalog directory, or an installed "
            "catalog (publisher/catalog[@version] or a unique id)",
            reason="catalog-required",
        )
    path = Path(value)
    found = _installed_instead(path, value, home)
    if found is not None:
        # An installed catalog by publisher/catalog[@version] or a unique id.
        state, installed = found
        catalog = installing.mount_catalog(state, installed, allow_disabled=True)
        catalog.embedder = embedder
        return catalog
    return open_catalog(path, embedder=embedder)
