"""Archive entry names a reader accepts (spec sections 3.2-3.4).

Names are UTF-8, forward-slashed and relative: no absolute paths, ``.``/``..`` or empty
segments, backslashes, drive letters or control characters. A name that passes can be joined
to an extraction directory without escaping it. Asset paths follow their own, narrower grammar.
"""

from __future__ import annotations

import re

__all__ = [
    "ASSET_MEDIA_TYPES",
    "MANIFEST_PATH",
    "MIMETYPE",
    "MIMETYPE_PATH",
    "ROUTER_PATH",
    "asset_media_type",
    "entry_name_problem",
    "is_asset_path",
]

MIMETYPE = b"application/vnd.gezk+zip"
MIMETYPE_PATH = "mimetype"
MANIFEST_PATH = "manifest.json"
ROUTER_PATH = "index/router.db"

ASSET_MEDIA_TYPES: dict[str, str] = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
}
"""Media type by lower-case asset extension (spec section 3.4)."""

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ASSET_SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}"
_ASSET_PATH = re.compile(
    rf"assets/(?:{_ASSET_SEGMENT}/){{0,15}}{_ASSET_SEGMENT}\.(?:png|jpe?g|gif|webp|svg)",
    re.IGNORECASE,
)
_MAX_ASSET_PATH = 512
# Windows device names cannot be created as files there, whatever the extension.
_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$", re.IGNORECASE)


def entry_name_problem(name: str) -> str | None:
    """Why ``name`` is not a safe relative archive path, or ``None`` when it is."""
    if not name:
        return "empty entry name"
    if "\\" in name:
        return "backslash in entry name"
    if name.startswith("/"):
        return "absolute entry name"
    if _DRIVE.match(name):
        return "drive letter in entry name"
    if _CONTROL.search(name):
        return "control character in entry name"
    segments = name.split("/")
    if any(s in ("", ".", "..") for s in segments):
        return "empty, '.' or '..' segment in entry name"
    if any(_RESERVED.match(s) for s in segments):
        return "reserved device name in entry name"
    return None


def is_asset_path(path: str) -> bool:
    """Whether ``path`` matches the ``assets/`` grammar of spec section 3.4."""
    return len(path) <= _MAX_ASSET_PATH and _ASSET_PATH.fullmatch(path) is not None


def asset_media_type(path: str) -> str | None:
    """The media type an asset path's extension implies, or ``None``."""
    _, dot, ext = path.rpartition(".")
    return ASSET_MEDIA_TYPES.get(ext.lower()) if dot else None
