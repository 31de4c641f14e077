"""File discovery and classification for the content index's structural pass.

The walk honours ``.gitignore`` and ``.gezelignore`` files (see :mod:`._ignore`) plus a small
set of default ignores, never follows symbolic links (so it cannot leave the workspace or loop),
and reports each regular file with its size and modification time; reading and hashing happen
later and only for files whose size or time changed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gezel_knowledge.indexes._ignore import IgnoreRules

__all__ = [
    "DEFAULT_IGNORES",
    "FileClass",
    "FoundFile",
    "classify",
    "discover",
    "looks_binary",
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


def _read_ignore_file(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []


def discover(root: Path, *, extra_ignores: Sequence[str] = ()) -> Iterator[FoundFile]:
    """Walk ``root`` depth-first in sorted order, yielding files not excluded by ignore rules."""
    base_rules = IgnoreRules().with_file("", [*DEFAULT_IGNORES, *extra_ignores])
    stack: list[tuple[str, str, IgnoreRules]] = [(str(root), "", base_rules)]
    while stack:
        directory, rel_dir, rules = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable directory: skip it, like git does
        names = {e.name for e in entries}
        for ignore_name in _IGNORE_FILES:
            if ignore_name in names:
                lines = _read_ignore_file(os.path.join(directory, ignore_name))
                rules = rules.with_file(rel_dir, lines)
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
                yield FoundFile(rel, st.st_size, st.st_mtime_ns)
        stack.extend(reversed(subdirs))
