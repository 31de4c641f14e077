"""Archive entry names a reader accepts (spec sections 3.2 and 3.3).

Names are UTF-8, forward-slashed and relative: no absolute paths, ``.``/``..`` or empty
segments, backslashes, drive letters or control characters. A name that passes can be joined
to an extraction directory without escaping it. Names are also portable: every segment can be
created as a file on Windows, macOS and Linux alike, so no Windows device name (``con``,
``nul.txt``, ``com1``, ``conin$``...), no character Windows forbids (``< > : " | ? *``) and no
segment ending in a dot or a space (Windows would silently drop it, and two entries would become
one file). The writer and the reader apply the same rule. Two names that one file system would
store as the same file (equal after Unicode normalisation and case folding, or after Windows
drops a segment's trailing dots and spaces) have the same :func:`entry_name_key`. Asset paths follow
their own, narrower grammar (:mod:`gezel_knowledge.archive.assets`).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "MANIFEST_PATH",
    "MIMETYPE",
    "MIMETYPE_PATH",
    "ROUTER_PATH",
    "entry_name_key",
    "entry_name_problem",
]

MIMETYPE = b"application/vnd.gezk+zip"
MIMETYPE_PATH = "mimetype"
MANIFEST_PATH = "manifest.json"
ROUTER_PATH = "index/router.db"

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Windows device names cannot be created as files there, whatever the extension (and with
# blanks before it); the superscript digits count as digits there.
_RESERVED = re.compile(
    r"^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)"
    r"[ ]*(?:\..*)?\Z",
    re.IGNORECASE,
)
_WINDOWS_FORBIDDEN = re.compile(r'[<>:"|?*]')


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
    forbidden = _WINDOWS_FORBIDDEN.search(name)
    if forbidden:
        return f"character {forbidden.group(0)!r} in entry name (Windows does not allow it)"
    if any(s.endswith((".", " ")) for s in segments):
        return "entry name segment ending in a dot or a space (Windows drops it)"
    return None


def entry_name_key(name: str) -> str:
    """The file a name becomes on the least distinguishing file system a catalog may land on.

    Case-insensitive (macOS, Windows), normalisation-insensitive (APFS, HFS+) and blind to a
    segment's trailing dots and spaces (Windows): names with equal keys collide.
    """
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    return "/".join(segment.rstrip(" .") for segment in folded.split("/"))
