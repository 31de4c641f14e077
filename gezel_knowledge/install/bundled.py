"""Catalogs bundled with the application, such as the built-in Handboek (seed "Installation,
integrity, and updates").

A bundled catalog is an ordinary ``.gezk`` installed through the ordinary install job, with its
source recorded as ``bundled:<path>``. Calling :func:`install_bundled` at every start is cheap
when nothing changed (one digest of the archive, no extraction); changed bytes replace the
installed ones while the user's enabled or disabled choice is kept. A newer version the user
installed from elsewhere (a registry) is left active rather than downgraded to the bundle.

This package bundles one: the Handboek, its own documentation (``examples/handbook`` in the
source tree) built with the default model and a fixed ``createdAt``, so the archive is the same
bytes on every build. :func:`install_handbook` installs it on first use (the command line's
``find``, ``list``, ``status``, ``read`` and installed-catalog arguments call it), so the
installed catalogs answer questions about the library out of the box. ``GEZEL_HANDBOOK=off``
leaves it out.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from gezel_knowledge.archive.verify import inspect_archive
from gezel_knowledge.install.job import run_install
from gezel_knowledge.install.registry import catalog_key
from gezel_knowledge.install.registry_document import version_sort_key
from gezel_knowledge.install.result import InstallResult
from gezel_knowledge.install.state import HomeState

if TYPE_CHECKING:
    from gezel_knowledge.install.cancel import CancelToken
    from gezel_knowledge.progress import ProgressSink

__all__ = [
    "BUNDLED_PREFIX",
    "HANDBOOK_ENV",
    "bundled_handbook",
    "install_bundled",
    "install_handbook",
    "is_bundled_source",
]

BUNDLED_PREFIX = "bundled:"

HANDBOOK_ENV = "GEZEL_HANDBOOK"
"""``off`` (or ``0``, ``no``, ``false``) leaves the bundled Handboek out; the path of a
``.gezk`` file bundles that archive instead (an application shipping its own Handboek)."""

_HANDBOOK = Path(__file__).resolve().parent.parent / "_data" / "handbook.gezk"


def is_bundled_source(source: str) -> bool:
    """Whether an installed version's recorded source is an application bundle."""
    return source.startswith(BUNDLED_PREFIX)


def install_bundled(
    home: HomeState,
    archive: Path | str,
    *,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
) -> InstallResult:
    """Install or refresh a bundled catalog: same bytes are a no-op (``unchanged``), changed
    bytes replace the active version and keep its enabled setting, and a newer non-bundled
    version stays active (``kept``)."""
    path = Path(archive)
    info = inspect_archive(path)
    manifest = info.manifest
    current = home.snapshot().get(catalog_key(manifest.publisher.id, manifest.id))
    active = None if current is None else current.active
    if (
        current is not None
        and active is not None
        and active.archive_sha256 != info.sha256
        and not is_bundled_source(active.source)
        and active.quarantine is None
        and version_sort_key(active.version) >= version_sort_key(manifest.version)
    ):
        return InstallResult("kept", current, active, home.path_of(active))
    return run_install(
        home,
        path,
        info.sha256,
        progress,
        cancel=cancel,
        label=f"{BUNDLED_PREFIX}{path.absolute()}",
    )


def bundled_handbook() -> Path | None:
    """The Handboek archive to install: this package's, or the one ``GEZEL_HANDBOOK`` names;
    ``None`` when it is left out (``GEZEL_HANDBOOK=off``) or missing."""
    setting = os.environ.get(HANDBOOK_ENV, "").strip()
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    archive = Path(setting) if setting else _HANDBOOK
    return archive if archive.is_file() else None


def install_handbook(
    home: HomeState,
    *,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
) -> InstallResult | None:
    """Install or refresh the bundled Handboek in ``home`` (see :func:`install_bundled`): a
    no-op when the same bytes are installed; ``None`` when there is no Handboek to install."""
    archive = bundled_handbook()
    if archive is None:
        return None
    return install_bundled(home, archive, progress=progress, cancel=cancel)
