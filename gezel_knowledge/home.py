"""The active Gezel home: ``GEZEL_HOME``, else ``~/.gezel``.

Installed catalogs, the user registry, model files, the compiler's vector cache, memory files
and the mutable indexes all live under it; every part of the library resolves it here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV_HOME", "gezel_home"]

ENV_HOME = "GEZEL_HOME"


def gezel_home(path: Path | str | None = None) -> Path:
    """The active Gezel home: ``path``, else ``$GEZEL_HOME``, else ``~/.gezel``."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get(ENV_HOME)
    return Path(env).expanduser() if env else Path.home() / ".gezel"
