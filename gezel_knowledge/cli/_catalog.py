"""Shared pieces of the catalog commands (inspect, validate, topics, list, read, search).

Every one of them takes a catalog as its first positional argument: a ``.gezk`` file, an
extracted catalog directory, or an installed catalog (``publisher/catalog`` or a unique id).
:func:`open_catalog_argument` turns the argument into an open
:class:`~gezel_knowledge.reader.Catalog` through the one resolver every surface uses
(:func:`gezel_knowledge.search.named.resolve_catalog`). ``list`` without a catalog lists the
installed ones and ``read`` resolves a bare ``knowledge://`` URI through them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gezel_knowledge.cli._installed import with_handbook
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.search.named import NamedCatalog, open_named, resolve_catalog

if TYPE_CHECKING:
    from gezel_knowledge.reader import Catalog

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


def _resolve(value: str, home: str | None) -> NamedCatalog:
    # The bundled handbook is installed in the home only when a name is looked up there.
    return resolve_catalog(value, home=home, prepare=with_handbook)


def catalog_path_argument(value: str, *, home: str | None = None) -> Path:
    """The file or directory a command-line argument names: the path itself when it exists
    (and is a catalog, if a folder), else the active version's directory of the installed
    catalog it names."""
    named = _resolve(value, home)
    if named.path is not None:
        return named.path
    state, installed = named.home, named.installed
    assert state is not None
    assert installed is not None
    if installed.active is None:
        raise NotFound(
            f"{installed.key} has no active version", reason="not-installed", subject=value
        )
    return state.path_of(installed.active)


def open_catalog_argument(
    value: str | None,
    *,
    embedder: Embedder | Literal["auto"] | None = None,
    home: str | None = None,
    model_dir: str | None = None,
) -> Catalog:
    """Open the catalog a command-line argument names (an installed one from ``home``), with
    its query embedder (``"auto"``: its profile's, looked for in ``model_dir`` first)."""
    if value is None:
        raise InvalidInput(
            "name a catalog: a .gezk file, an extracted catalog directory, or an installed "
            "catalog (publisher/catalog[@version] or a unique id)",
            reason="catalog-required",
        )
    return open_named(_resolve(value, home), embedder=embedder, model_dir=model_dir)
