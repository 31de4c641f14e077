"""Shared pieces of the installed-catalog commands: the ``--home`` option and row formatting.

The install machinery is reached through the package face of :mod:`gezel_knowledge.install`,
which imports a module on first use: a ``search`` of a ``.gezk`` path never loads it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gezel_knowledge.install as installing
from gezel_knowledge.cli._commands import add_command
from gezel_knowledge.cli._output import emit, note
from gezk.errors import ReasonedError

if TYPE_CHECKING:
    from gezel_knowledge.install import HomeState, InstalledCatalog

__all__ = [
    "add_catalog_command",
    "add_home_option",
    "catalog_line",
    "catalog_row",
    "print_catalog",
    "print_installed",
    "state_from",
]


def add_home_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--home DIR`` (default: ``GEZEL_HOME`` or ``~/.gezel``)."""
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="the Gezel home to use (default: $GEZEL_HOME or ~/.gezel)",
    )


def add_catalog_command(
    subparsers: Any, name: str, handler: Callable[[argparse.Namespace], int]
) -> None:
    """Add a subcommand acting on one installed ``CATALOG``, with ``--home`` and ``--json``."""
    parser = add_command(subparsers, name)
    parser.add_argument(
        "catalog",
        metavar="CATALOG",
        help="publisher/catalog[@version] or a unique catalog id",
    )
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=handler)


def state_from(args: argparse.Namespace, *, handbook: bool = False) -> HomeState:
    """The knowledge home the arguments name: its state (registry, layout, mounting); with
    ``handbook``, the bundled Handboek installed or refreshed in it first."""
    state = installing.HomeState(getattr(args, "home", None))
    return with_handbook(state) if handbook else state


def with_handbook(state: HomeState) -> HomeState:
    """``state`` after installing or refreshing the bundled Handboek (a no-op when installed;
    a failure is a note, never the command's failure)."""
    try:
        result = installing.install_handbook(state)
    except (ReasonedError, OSError) as exc:
        note(f"the bundled Handboek could not be installed: {exc}")
        return state
    if result is not None and result.status == "installed":
        note(
            f"installed the bundled Handboek, {result.key}@{result.version.version}: the "
            f"library's own documentation ('gezel-knowledge disable {result.catalog.catalog_id}'"
            " hides it)"
        )
    return state


def catalog_row(catalog: InstalledCatalog) -> dict[str, Any]:
    """The JSON view of an installed catalog."""
    active = catalog.active
    row: dict[str, Any] = {
        "catalog": catalog.key,
        "enabled": catalog.enabled,
        "version": None if active is None else active.version,
        "archiveSha256": None if active is None else active.archive_sha256,
        "name": None if active is None else active.name,
        "embeddingProfile": None if active is None else active.embedding_profile,
        "provenance": None if active is None else active.provenance,
        "path": None if active is None else active.path,
        "placement": None if active is None else active.placement,
        "placementReason": None if active is None else active.placement_reason,
        "quarantine": None if catalog.quarantine is None else catalog.quarantine.to_json(),
    }
    return row


def catalog_line(catalog: InstalledCatalog) -> str:
    """One human-readable line describing an installed catalog."""
    active = catalog.active
    state = "enabled" if catalog.enabled else "disabled"
    if catalog.quarantine is not None:
        state = f"quarantined ({catalog.quarantine.reason})"
    if active is None:
        return f"{catalog.key}  (no active version)  {state}"
    where = "  shared" if active.placement == "shared" else ""
    return (
        f"{catalog.key}@{active.version}  {active.archive_sha256[:16]}  {state}{where}  "
        f"{active.name}"
    )


def print_catalog(catalog: InstalledCatalog, *, as_json: bool) -> int:
    """Print one installed catalog's state (row or line); return the exit code."""
    emit(catalog_row(catalog), as_json=as_json, text=lambda _: [catalog_line(catalog)])
    return 0


def print_installed(*, as_json: bool, home: HomeState | None = None) -> int:
    """Print the installed catalogs (``list`` without a catalog); return the exit code."""
    catalogs = (home or installing.HomeState()).installed()
    emit(
        [catalog_row(c) for c in catalogs],
        as_json=as_json,
        text=lambda _: [catalog_line(c) for c in catalogs] or ["no catalogs installed"],
    )
    return 0
