"""Finding a source's licence notice, recognising the common licences by their text, and the
copyright holder a notice names.

The notice is catalog.yaml's ``license.file`` (or ``--license-file``), else the first of
:data:`LICENSE_FILE_NAMES` in the source folder, whatever the case of its name (``license.md``,
``Licence.txt``). Nothing above the source folder is read: a site whose licence lives at its
repository's root names it (``--license-file ../LICENSE``); :func:`licence_file_above` finds
such a file only so the message can name the flag. Whether the folder is a git clone or an
unpacked ZIP changes nothing.

When catalog.yaml says nothing of the licence, a notice whose text is one of the common
licences fills ``license`` (name, SPDX id, whether attribution is required). Recognition looks
for each licence's own defining sentences, never for a short name, so a file that only
mentions "MIT" is not taken for the MIT licence; the short Apache notice ("Licensed under the
Apache License, Version 2.0 ... you may not use this file except in compliance with the
License") is the Apache licence; Creative Commons notices, which usually state their licence
rather than quote it, are recognised by its full name ("Creative Commons Attribution 4.0
International").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge._untrusted import open_regular
from gezel_knowledge.compiler.text.titles import plain_title
from gezel_knowledge.errors import InvalidInput
from gezk.manifest import License

__all__ = [
    "LICENSE_FILE_NAMES",
    "copyright_holder",
    "find_licence_file",
    "licence_file_above",
    "licence_named",
    "pointer_above",
    "read_notice",
    "recognise_licence",
]

LICENSE_FILE_NAMES = (
    "LICENSE",
    "LICENSE.md",
    "LICENSE.txt",
    "LICENSE.rst",
    "LICENCE",
    "LICENCE.md",
    "LICENCE.txt",
    "LICENCE.rst",
    "COPYING",
    "COPYING.md",
    "COPYING.txt",
    "LICENSE-MIT",
    "LICENSE-MIT.md",
    "LICENSE-MIT.txt",
    "LICENSE-APACHE",
    "LICENSE-APACHE.md",
    "LICENSE-APACHE.txt",
    "LICENSE-APACHE-2.0",
    "LICENSE-BSD",
    "LICENSE-CC-BY",
    "LICENSE-DOCS",
    "LICENSE-DOCS.md",
    "UNLICENSE",
)
"""Where the licence notice is looked for when catalog.yaml names no ``license.file``, in this
order of preference; names are matched whatever their case."""

_LEVELS_ABOVE = 3

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
    # Creative Commons' own short waiver, a notice with the deed's address in place of the
    # legal code ("neighboring" and "neighbouring" both occur).
    _Known(
        "CC0-1.0",
        "CC0 1.0 Universal",
        False,
        (
            "waived all copyright and related or neighbo",
            "creativecommons.org/publicdomain/zero/1.0",
        ),
    ),
    # The NonCommercial and NoDerivatives variants name themselves in full, with or without
    # "Creative Commons" (a human-readable summary often only links creativecommons.org).
    _Known(
        "CC-BY-NC-SA-4.0",
        "CC BY-NC-SA 4.0",
        True,
        ("attribution-noncommercial-sharealike 4.0 international",),
    ),
    _Known(
        "CC-BY-NC-ND-4.0",
        "CC BY-NC-ND 4.0",
        True,
        ("attribution-noncommercial-noderivatives 4.0 international",),
    ),
    _Known("CC-BY-NC-4.0", "CC BY-NC 4.0", True, ("attribution-noncommercial 4.0 international",)),
    _Known("CC-BY-ND-4.0", "CC BY-ND 4.0", True, ("attribution-noderivatives 4.0 international",)),
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
    _Known(
        "Apache-2.0",
        "Apache License 2.0",
        True,
        (
            "licensed under the apache license, version 2.0",
            "you may not use this file except in compliance with the license",
        ),
    ),
    _Known("MPL-2.0", "Mozilla Public License 2.0", True, ("mozilla public license", "2.0")),
    # The European Union Public Licence (Zola's), named in its own title with its version.
    _Known(
        "EUPL-1.2",
        "European Union Public Licence 1.2",
        True,
        ("european union public licence", "v. 1.2"),
    ),
    # The .NET projects' licence (MonoGame's, many DocFX sites'), named in its own title.
    _Known(
        "MS-PL",
        "Microsoft Public License",
        True,
        ("microsoft public license", "this license governs use of the accompanying software"),
    ),
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
    # The BSD form whose third clause asks the end-user documentation to carry an
    # acknowledgement (PMD's, SPDX's BSD-3-Clause-Attribution) is not the plain 3-clause one.
    _Known(
        "BSD-3-Clause-Attribution",
        "BSD with attribution",
        True,
        (
            "redistribution and use in source and binary forms",
            "end-user documentation included with the redistribution",
            "must include the following acknowledg",
        ),
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
    # MIT No Attribution: MIT's grant under its own title, without MIT's one condition
    # (keeping the notice in all copies).
    _Known(
        "MIT-0",
        "MIT No Attribution",
        False,
        (
            "mit no attribution",
            "permission is hereby granted, free of charge, to any person obtaining a copy",
        ),
        ("shall be included in all copies",),
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


def licence_named(spdx: str) -> License | None:
    """The common licence whose SPDX id is ``spdx`` (case aside), as a site's configuration
    names it (MyST's ``license: CC0-1.0``); ``None`` for any other id."""
    wanted = spdx.strip().lower()
    known = next((k for k in _KNOWN if k.spdx.lower() == wanted), None)
    return License(known.name, known.attribution, known.spdx) if known is not None else None


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


def _notice_in(folder: Path) -> Path | None:
    """The preferred licence notice directly in ``folder``, whatever the case of its name."""
    try:
        files = {p.name.upper(): p for p in folder.iterdir() if p.is_file()}
    except OSError:
        return None
    return next((files[n.upper()] for n in LICENSE_FILE_NAMES if n.upper() in files), None)


def find_licence_file(root: Path) -> Path | None:
    """The licence notice in the source folder ``root`` (never above it), or ``None``. A short
    notice that only points at another file of ``root`` (``See [content/LICENSE.md](...)``)
    gives way to that file when it holds a licence this module recognises."""
    notice = _notice_in(root)
    return _pointed_at(notice, root) if notice is not None else None


_POINTER = re.compile(r"\]\(([^)\s]+)\)|(?<![\w/.])((?:[\w.-]+/)*(?:LICEN[CS]E|COPYING)[\w.-]*)")
_MAX_POINTER_NOTICE = 2000


def _named_by(notice: Path) -> list[Path]:
    """The files a short notice that is no licence itself names (``See [LICENSE.md](...)``,
    ``{literalinclude} ../LICENSE.txt``), relative to its folder; none for any other."""
    text = read_notice(notice)
    if text is None or len(text) > _MAX_POINTER_NOTICE or recognise_licence(text) is not None:
        return []
    return [notice.parent / (m.group(1) or m.group(2)) for m in _POINTER.finditer(text)]


def _pointed_at(notice: Path, root: Path) -> Path:
    """``notice``, or the licence file inside ``root`` a short unrecognised notice names."""
    top = root.resolve()
    for named in _named_by(notice):
        target = named.resolve()
        if target == notice.resolve() or not target.is_relative_to(top) or not target.is_file():
            continue
        pointed = read_notice(target)
        if pointed is not None and recognise_licence(pointed) is not None:
            return named
    return notice


def pointer_above(notice: Path, root: Path) -> Path | None:
    """The file above ``root`` that a short unrecognised notice names (``docs/license.md``
    holding ``{literalinclude} ../LICENSE.txt``): named in messages, never read."""
    top = root.resolve()
    return next(
        (n for n in _named_by(notice) if not n.resolve().is_relative_to(top) and n.is_file()),
        None,
    )


def licence_file_above(root: Path) -> Path | None:
    """The nearest licence notice above ``root``, up to its repository's root (or three
    folders up outside a repository): named in messages, never read."""
    top = _repository_root(root)
    above = list(root.parents)[:_LEVELS_ABOVE] if top is None else []
    if top is not None and top != root:
        above = [p for p in root.parents if p.is_relative_to(top)]
    return next((n for n in map(_notice_in, above) if n is not None), None)


_COPYRIGHT = re.compile(
    r"(?:^|\s)copyright\b[\s:]*((?:(?:\(c\)|©)\s*)?)"
    r"((?:\d{4}\s*(?:[-–,]\s*(?:\d{4}|present)\s*)*)?),?\s*(?:by\s+)?(.+)$",
    re.IGNORECASE,
)
# Trailing what names no holder: "All rights reserved", a URL or e-mail address, a note in
# parentheses ("The pip developers (see AUTHORS.txt file)").
_HOLDER_END = re.compile(
    r"(?:\.?\s*all rights reserved\.?|\s*\(?<?https?://\S*\)?|\s*<[^>]*@[^>]*>|\s+\([^()]*\)"
    r"|[.,;\s])+$",
    re.IGNORECASE,
)
_LICENCE_NAME = re.compile(
    r"\b(?:cc[- ]by|cc0|creative commons|apache|bsd|[al]?gpl|mpl|licen[cs]ed?)\b", re.IGNORECASE
)
_NOT_HOLDERS = ("notice", "holder", "owner", "and ", "the copyright", "free software foundation")


def copyright_holder(text: str) -> str | None:
    """Who a copyright line holds the rights for (``Copyright (c) 2019-2024, Encode OSS Ltd.
    All rights reserved.`` -> ``Encode OSS Ltd``): the first line of ``text`` with a copyright
    sign or year and a holder, template placeholders (``[name of copyright owner]``) and the
    licence text's own author aside; else ``None``."""
    for raw in text.splitlines()[:200]:
        line = plain_title(raw.replace("(C)", "(c)"))
        match = _COPYRIGHT.search(line)
        if match is None or not (match.group(1) or match.group(2)):
            continue  # "copyright license to reproduce": no sign, no year
        # A second sentence ("... Nakada. Generated with DocFX") is not the holder.
        holder = re.split(r"\.\s+(?=[A-Z])", match.group(3), maxsplit=1)[0]
        holder = _HOLDER_END.sub("", holder).strip(" .,;:-")
        if holder.lower().startswith(_NOT_HOLDERS) or re.search(r"[\[\]<>{}]", holder):
            continue
        if _LICENCE_NAME.search(holder):
            continue  # "© CC BY 4.0" states a licence, not who holds the rights
        if re.search(r"[^\W\d_]", holder):
            return " ".join(holder.split())[:200]
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
