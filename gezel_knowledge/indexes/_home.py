"""Where the mutable indexes live: under the active Gezel home (``GEZEL_HOME`` or ``~/.gezel``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from gezel_knowledge.home import gezel_home

__all__ = ["content_db_path", "gezel_home", "memory_db_path", "memory_dir"]


def content_db_path(workspace: Path, home: Path | str | None = None) -> Path:
    """``<home>/indexes/<first 16 hex of sha256(absolute workspace path)>/content.db``.

    Kept outside the workspace so mutable SQLite never lands in a folder a cloud client syncs.
    """
    absolute = str(workspace.expanduser().resolve())
    digest = hashlib.sha256(absolute.encode("utf-8")).hexdigest()[:16]
    return gezel_home(home) / "indexes" / digest / "content.db"


def memory_dir(home: Path | str | None = None) -> Path:
    """The folder of daily memory files, ``<home>/memory``."""
    return gezel_home(home) / "memory"


def memory_db_path(home: Path | str | None = None) -> Path:
    """The memory index database, ``<home>/indexes/memory.db``."""
    return gezel_home(home) / "indexes" / "memory.db"
