"""Finding a source's licence notice and recognising the common licences by their text.

The notice is catalog.yaml's ``license.file``, else the first of :data:`LICENSE_FILE_NAMES` in
the source folder, else in the folders above it up to the root of the repository the source
lives in (the nearest folder holding ``.git``): a ``docs/`` folder is covered by its
repository's licence. Nothing above a repository root, or above a folder that is in no
repository, is looked at.

When catalog.yaml says nothing of the licence, a notice whose text is one of the common
licences fills ``license`` (name, SPDX id, whether attribution is required). Recognition looks
for each licence's own defining sentences, never for a short name, so a file that only
mentions "MIT" is not taken for the MIT licence; Creative Commons notices, which usually state
their licence rather than quote it, are recognised by its full name ("Creative Commons
Attribution 4.0 International").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge._untrusted import open_regular
from gezel_knowledge.errors import InvalidInput
from gezk.manifest import License

__all__ = ["LICENSE_FILE_NAMES", "find_licence_file", "read_notice", "recognise_licence"]

LICENSE_FILE_NAMES = (
    "LICENSE",
    "LICENSE.md",
    "LICENSE.txt",
    "LICENCE",
    "LICENCE.md",
    "LICENCE.txt",
    "COPYING",
    "COPYING.md",
)
"""Where the licence notice is looked for when catalog.yaml names no ``license.file``."""

_REPOSITORY_MARKERS = (".git", ".hg")
_MAX_NOTICE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class _Known:
    spdx: str
    name: str
    attribution: bool
    all_of: tuple[str, ...]
    none_of: tuple[str, ...] = ()


# Checked in order: a more specific licence comes before one whose phrases it contains.
_KNOWN = (
    _Known("CC0-1.0", "CC0 1.0 Universal", False, ("cc0 1.0 universal",)),
    _Known(
        "CC-BY-SA-4.0",
        "CC BY-SA 4.0",
        True,
        ("creative commons", "attribution-sharealike 4.0 international"),
    ),
    _Known(
        "CC-BY-4.0",
        "CC BY 4.0",
        True,
        ("creative commons", "attribution 4.0 international"),
        ("sharealike", "noncommercial", "noderivatives"),
    ),
    _Known(
        "Apache-2.0",
        "Apache License 2.0",
        True,
        ("apache license", "version 2.0", "terms and conditions for use, reproduction"),
    ),
    _Known("MPL-2.0", "Mozilla Public License 2.0", True, ("mozilla public license", "2.0")),
    _Known(
        "AGPL-3.0",
        "GNU Affero General Public License v3.0",
        True,
        ("gnu affero general public license", "version 3"),
    ),
    _Known(
        "LGPL-3.0",
        "GNU Lesser General Public License v3.0",
        True,
        ("gnu lesser general public license", "version 3"),
    ),
    _Known(
        "GPL-3.0",
        "GNU General Public License v3.0",
        True,
        ("gnu general public license", "version 3, 29 june 2007"),
        ("lesser general public license", "affero general public license"),
    ),
    _Known(
        "GPL-2.0",
        "GNU General Public License v2.0",
        True,
        ("gnu general public license", "version 2, june 1991"),
        ("lesser general public license", "library general public license"),
    ),
    _Known(
        "BSD-3-Clause",
        "BSD 3-Clause License",
        True,
        ("redistribution and use in source and binary forms", "neither the name of"),
    ),
    _Known(
        "BSD-2-Clause",
        "BSD 2-Clause License",
        True,
        ("redistribution and use in source and binary forms",),
        ("neither the name of", "the names of its contributors may not"),
    ),
    _Known(
        "MIT",
        "MIT License",
        True,
        ("permission is hereby granted, free of charge, to any person obtaining a copy",),
    ),
    _Known(
        "ISC",
        "ISC License",
        True,
        ("permission to use, copy, modify, and/or distribute this software for any purpose",),
    ),
    _Known(
        "Unlicense",
        "The Unlicense",
        False,
        ("this is free and unencumbered software released into the public domain",),
    ),
)


def _normalised(text: str) -> str:
    """Lowercase, Markdown emphasis and quotes dropped, whitespace folded to single spaces."""
    text = re.sub(r"[*_`>#\"“”]", " ", text.lower())
    return " ".join(text.split())


def recognise_licence(text: str) -> License | None:
    """The licence a notice's text is, when it is one of the common licences; else ``None``."""
    flat = _normalised(text)
    for known in _KNOWN:
        if all(p in flat for p in known.all_of) and not any(p in flat for p in known.none_of):
            return License(known.name, known.attribution, known.spdx)
    return None


def _repository_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in _REPOSITORY_MARKERS):
            return candidate
    return None


def find_licence_file(root: Path) -> Path | None:
    """The licence notice of a source at ``root`` (see the module docstring), or ``None``."""
    top = _repository_root(root)
    folders = [root]
    if top is not None and top != root:
        folders += [p for p in root.parents if p.is_relative_to(top)]
    for folder in folders:
        for name in LICENSE_FILE_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def read_notice(path: Path) -> str | None:
    """A notice's text (its first megabyte, read from a regular file only), or ``None`` when
    it is not UTF-8 text."""
    try:
        with open_regular(path, "the licence notice") as fh:
            data = fh.read(_MAX_NOTICE_BYTES)
        return data.decode("utf-8")
    except (InvalidInput, OSError, UnicodeDecodeError):
        return None
