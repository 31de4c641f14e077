"""File discovery and classification for the content index's structural pass.

The walk honours ``.gitignore`` and ``.gezelignore`` files (see :mod:`._ignore`) plus a small
set of default ignores, never follows symbolic links (so it cannot leave the workspace or loop),
and reports each regular file with its size and modification time; reading and hashing happen
later and only for files whose size or time changed.

What the walk cannot take in is passed over with a note (``on_skip(path, why)``) rather than
failing the walk: a name that is not UTF-8 (``name-not-utf8``; the path is shown with the
undecodable bytes escaped), and a folder whose ignore file is over :data:`MAX_IGNORE_BYTES`
(``ignore-file-too-large``: the folder is skipped, since which of its files were meant to stay
private cannot be known). An ignore file that is no regular file (a FIFO would block the walk)
is not read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from gezel_knowledge._untrusted import read_bounded
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes._ignore import IgnoreRules

__all__ = [
    "DEFAULT_IGNORES",
    "MAX_IGNORE_BYTES",
    "FileClass",
    "FoundFile",
    "classify",
    "discover",
    "looks_binary",
    "printable_path",
]

FileClass = Literal["code", "markdown", "text", "document", "image", "audio", "other"]

DEFAULT_IGNORES: tuple[str, ...] = (
    ".git/",
    ".hg/",
    ".svn/",
    "node_modules/",
    "__pycache__/",
    ".venv/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".DS_Store",
    "*.pyc",
)
"""Ignored in every workspace unless an ignore file re-includes them with ``!``."""

_IGNORE_FILES = (".gitignore", ".gezelignore")
_ALWAYS_SKIPPED_DIRS = frozenset({".git"})

_MARKDOWN = frozenset({".md", ".markdown", ".mdx", ".mdown", ".mkd"})
_CODE: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".cs": "csharp",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".sql": "sql",
    ".lua": "lua",
    ".r": "r",
    ".pl": "perl",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".vue": "vue",
    ".svelte": "svelte",
    ".css": "css",
    ".scss": "css",
}
_CODE_NAMES: dict[str, str] = {"makefile": "make", "dockerfile": "docker"}
_TEXT = frozenset(
    {
        ".txt",
        ".rst",
        ".adoc",
        ".org",
        ".tex",
        ".csv",
        ".tsv",
        ".json",
        ".jsonl",
        ".yaml",
        ".yml",
        ".toml",
        ".ini",
        ".cfg",
        ".conf",
        ".xml",
        ".log",
    }
)
_DOCUMENT = frozenset(
    {".html", ".htm", ".xhtml", ".docx", ".pptx", ".xlsx", ".odt", ".odp", ".ods", ".epub"}
    | {".rtf", ".pdf", ".doc", ".ppt", ".xls"}
)
_IMAGE = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".avif"}
)
_AUDIO = frozenset({".mp3", ".wav", ".flac", ".ogg", ".oga", ".opus", ".m4a", ".aac", ".weba"})
_KNOWN_BINARY = frozenset(
    {".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".tar", ".jar", ".whl", ".exe", ".dll"}
    | {".so", ".dylib", ".o", ".a", ".class", ".pyc", ".db", ".sqlite", ".gezk", ".bin"}
    | {".mp4", ".mov", ".avi", ".mkv", ".woff", ".woff2"}
    | {".ttf", ".otf", ".eot", ".ico", ".onnx", ".npy", ".parquet"}
)


def classify(path: str) -> tuple[FileClass, str | None]:
    """The class of ``path`` by its name, and the language of a code file.

    Files without a known extension come back as ``text``; the structural pass re-classifies
    them as ``other`` when their bytes look binary.
    """
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    dot = lower.rfind(".")
    ext = lower[dot:] if dot > 0 else ""
    if ext in _MARKDOWN:
        return "markdown", None
    if ext in _CODE:
        return "code", _CODE[ext]
    if lower in _CODE_NAMES:
        return "code", _CODE_NAMES[lower]
    if ext in _TEXT:
        return "text", None
    if ext in _DOCUMENT:
        return "document", ext[1:]
    if ext in _IMAGE:
        return "image", ext[1:]
    if ext in _AUDIO:
        return "audio", ext[1:]
    if ext in _KNOWN_BINARY:
        return "other", None
    return "text", None


def looks_binary(head: bytes) -> bool:
    """Git's heuristic: a NUL byte in the first 8 KiB means binary."""
    return b"\0" in head[:8192]


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A regular file found by the walk: workspace-relative POSIX path, size and mtime."""

    path: str
    size: int
    mtime_ns: int


MAX_IGNORE_BYTES: Final = 1024 * 1024
"""An ignore file larger than this is not read, and its folder is skipped with a note."""

OnSkip = Callable[[str, str], None]


def printable_path(path: str) -> str:
    """``path`` with bytes that are not UTF-8 shown as ``\\xNN`` (a name Python decoded with
    surrogate escapes cannot be printed or stored as text)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_ignore_file(path: str) -> list[str] | None:
    """The lines of an ignore file; ``[]`` when it cannot be read or is no regular file, and
    ``None`` when it is too large to read."""
    try:
        data = read_bounded(path, "ignore file", limit=MAX_IGNORE_BYTES)
    except InvalidInput as exc:
        return None if exc.reason == "input-too-large" else []
    return data.decode("utf-8", errors="replace").splitlines()


def _rules_of(
    directory: str, rel_dir: str, names: set[str], rules: IgnoreRules, on_skip: OnSkip | None
) -> IgnoreRules | None:
    """The rules in force in ``directory`` (its own ignore files added); ``None`` when one of
    them is too large to read, and the folder is to be skipped."""
    for ignore_name in _IGNORE_FILES:
        if ignore_name in names:
            lines = _read_ignore_file(os.path.join(directory, ignore_name))
            if lines is None:
                if on_skip is not None:
                    rel = f"{rel_dir}/{ignore_name}" if rel_dir else ignore_name
                    on_skip(printable_path(rel), "ignore-file-too-large")
                return None
            rules = rules.with_file(rel_dir, lines)
    return rules


def discover(
    root: Path, *, extra_ignores: Sequence[str] = (), on_skip: OnSkip | None = None
) -> Iterator[FoundFile]:
    """Walk ``root`` depth-first in sorted order, yielding files not excluded by ignore rules;
    ``on_skip(path, why)`` hears of what the walk passes over (see the module docstring)."""
    base_rules = IgnoreRules().with_file("", [*DEFAULT_IGNORES, *extra_ignores])
    stack: list[tuple[str, str, IgnoreRules]] = [(str(root), "", base_rules)]
    while stack:
        directory, rel_dir, inherited = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable directory: skip it, like git does
        rules = _rules_of(directory, rel_dir, {e.name for e in entries}, inherited, on_skip)
        if rules is None:
            continue
        subdirs: list[tuple[str, str, IgnoreRules]] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if entry.name in _ALWAYS_SKIPPED_DIRS or rules.ignored(rel, is_dir=True):
                    continue
                subdirs.append((entry.path, rel, rules))
            elif stat.S_ISREG(st.st_mode):
                if rules.ignored(rel, is_dir=False):
                    continue
                if not _is_utf8(rel):
                    if on_skip is not None:
                        on_skip(printable_path(rel), "name-not-utf8")
                    continue
                yield FoundFile(rel, st.st_size, st.st_mtime_ns)
        stack.extend(reversed(subdirs))
