"""What every outline recogniser shares: the content folder, warnings, and outline entries
resolved to pages."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from gezel_knowledge.compiler.errors import BuildWarning, SourceError, display_path
from gezel_knowledge.compiler.text.data import YamlNode

__all__ = [
    "MARKDOWN_SUFFIXES",
    "MDX",
    "NOTEBOOK",
    "SCHEME",
    "Context",
    "is_markdown",
    "items",
    "left_out",
    "mappings",
    "normalise",
    "pretty",
    "text",
]

MARKDOWN_SUFFIXES = (".md", ".markdown")
NOTEBOOK = ".ipynb"
MDX = ".mdx"
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
_NUMBER_PREFIX = re.compile(r"(\d+)[-_. ]+(.+)\Z")
_INT32 = range(-(2**31), 2**31)


class Context:
    """One recognition: the source and content folders, what to leave out, the warnings."""

    def __init__(
        self,
        source_root: Path,
        content_root: Path,
        exclude: Sequence[str],
        reserved: set[Path],
        suffixes: tuple[str, ...] = MARKDOWN_SUFFIXES,
        *,
        allow_read: Path | None = None,
    ) -> None:
        self.source_root = source_root
        self.allow_read = allow_read
        """A folder above the source whose files the configuration may name (the user named
        it); ``None``: nothing above the source is read."""
        self.content_root = content_root
        self.exclude = tuple(exclude)
        self.reserved = reserved
        self.suffixes = suffixes
        """The file suffixes that are pages (Markdown, plus notebooks or MDX for some)."""
        self.warnings: list[BuildWarning] = []

    def readable(self, path: Path) -> bool:
        """Whether a file above the source folder lies in the folder the user allowed."""
        allowed = self.allow_read
        return allowed is not None and path.resolve().is_relative_to(allowed.resolve())

    def rel(self, path: Path) -> str:
        return path.relative_to(self.content_root).as_posix()

    def display(self, path: Path) -> str:
        if self.allow_read is not None and self.readable(path):
            # A file the user let the build read above the source: named as ../README.md.
            return Path(os.path.relpath(path, self.source_root)).as_posix()
        return display_path(path, self.source_root)

    def warn(self, reason: str, message: str, path: str | None, line: int | None = None) -> None:
        self.warnings.append(BuildWarning(reason, message, path=path, line=line))

    def excluded(self, path: Path) -> bool:
        rel = self.rel(path)
        return path.resolve() in self.reserved or any(
            fnmatch.fnmatchcase(rel, pattern) for pattern in self.exclude
        )

    def is_page(self, path: Path) -> bool:
        return path.suffix.lower() in self.suffixes

    def page(self, base: Path, target: str, *, origin: Path, line: int) -> str | None:
        """The content-relative path an outline entry names; ``None`` (with a warning unless
        it is a URL) when it names no page the catalog can hold."""
        if SCHEME.match(target):
            return None
        path_text = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
        where = self.display(origin)
        if not path_text:
            self.warn("empty-outline-entry", f"outline entry {target!r} names no file", where, line)
            return None
        resolved = normalise(base, path_text, self.content_root)
        if resolved is None:
            raise SourceError(
                f"outline entry {target!r} leaves the content folder",
                reason="unsafe-path",
                path=where,
                line=line,
            )
        candidates = [resolved]
        if not resolved.suffix or resolved.suffix.lower() not in self.suffixes:
            candidates += [resolved.with_name(resolved.name + s) for s in self.suffixes]
        for candidate in candidates:
            if candidate.is_file() and self.is_page(candidate):
                return self.rel(candidate)
        siblings = sorted(resolved.parent.iterdir()) if resolved.parent.is_dir() else []
        other = next((p for p in siblings if p.stem == resolved.name and p.is_file()), None)
        if resolved.is_file() or other is not None:
            shown = self.display(resolved if resolved.is_file() else other or resolved)
            self.warn(
                "unsupported-page",
                f"outline entry {target!r} is {shown}, which is not Markdown; left out",
                where,
                line,
            )
            return None
        self.warn(
            "missing-outline-page",
            f"outline names a missing file {target!r}; left out",
            where,
            line,
        )
        return None


def normalise(base: Path, target: str, root: Path) -> Path | None:
    """``target`` (relative to ``base``, or to ``root`` when it starts with ``/``) inside
    ``root``, or ``None`` when it leaves it."""
    joined = PurePosixPath(target)
    start = root if target.startswith("/") else base
    parts: list[str] = list(start.relative_to(root).parts) if start != root else []
    for part in joined.parts:
        if part in ("/", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    return root.joinpath(*parts)


def items(node: YamlNode, what: str, where: str) -> list[YamlNode]:
    """The entries of a YAML list node; :class:`SourceError` at its line when it is no list."""
    if not isinstance(node.value, list):
        raise SourceError(
            f"{what} must be a list", reason="invalid-outline", path=where, line=node.line
        )
    return node.value


def mappings(
    node: YamlNode, what: str, each: str, where: str
) -> Iterator[tuple[YamlNode, dict[str, YamlNode]]]:
    """Each entry of a YAML list node with its fields; every entry must be a mapping."""
    for item in items(node, what, where):
        if not isinstance(item.value, dict):
            raise SourceError(
                f"each {each} must be a mapping",
                reason="invalid-outline",
                path=where,
                line=item.line,
            )
        yield item, item.value


def text(fields: dict[str, YamlNode], key: str) -> str | None:
    """A mapping's scalar field as a string, ``None`` when absent or not a scalar."""
    node = fields.get(key)
    return None if node is None else node.text()


def left_out(ctx: Context, path: Path) -> bool:
    """Whether a file a generator would publish is left out of the catalog: the build's
    ``exclude`` patterns and the catalog's own input files, but for a ``README``, which is
    then a page of the site (Docsify's home page, a Jekyll folder's index) rather than the
    catalog's description."""
    if path.stem.lower() == "readme":
        return any(fnmatch.fnmatchcase(ctx.rel(path), p) for p in ctx.exclude)
    return ctx.excluded(path)


def is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def pretty(name: str) -> tuple[str, int | None]:
    """A folder or file stem as a display name, and the order its numeric prefix gives."""
    order = None
    match = _NUMBER_PREFIX.match(name)
    if match and int(match.group(1)) in _INT32:
        order = int(match.group(1))
        name = match.group(2)
    plain = re.sub(r"[-_]+", " ", name).strip() or name
    return plain[:1].upper() + plain[1:], order
