"""Reading generators' configuration: values out of parsed YAML, TOML and JSON (parsed by
:mod:`~gezel_knowledge.compiler.text.data`, never run), configured folders, URLs, and the
publisher a repository URL names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata
from gezel_knowledge.compiler.metadata.licences import copyright_holder
from gezel_knowledge.compiler.text.data import read_data_file, read_text_file
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.manifest import Publisher

__all__ = [
    "absolute_url",
    "folder",
    "get",
    "mapping",
    "publisher",
    "read_data",
    "read_text",
    "site_metadata",
    "string",
    "url_path",
]

_FORGES = ("github.com", "gitlab.com", "codeberg.org", "bitbucket.org")


def read_text(path: Path, root: Path) -> str:
    """A configuration file's text (named relative to ``root`` in messages): a file inside
    ``root`` once its symbolic links are resolved."""
    return read_text_file(path, where=display_path(path, root), within=root)


def read_data(path: Path, root: Path) -> dict[str, Any]:
    """A YAML, TOML or JSON configuration file inside ``root`` as a mapping (empty when it
    holds none)."""
    return read_data_file(path, where=display_path(path, root), within=root)


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, dict) else {}


def get(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...`` or ``None`` when a step is missing or not a mapping."""
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def string(value: Any) -> str | None:
    """A non-blank string with its whitespace folded, else ``None``."""
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def folder(root: Path, name: str | None, default: str) -> Path:
    """A configured folder below ``root`` (never above it)."""
    text = (name or default).strip().strip("/") or default
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if ".." in parts:
        raise SourceError(f"folder {text!r} leaves the source folder", reason="unsafe-path")
    return root.joinpath(*parts)


def absolute_url(*candidates: Any) -> str | None:
    """The first candidate that is an ``http(s)`` URL."""
    for candidate in candidates:
        text = string(candidate)
        if text and urlsplit(text).scheme in ("http", "https"):
            return text
    return None


def url_path(url: Any) -> tuple[str, ...]:
    """The path of a site URL (``https://x.org/docs/`` or ``/docs/``) as a link prefix."""
    text = string(url)
    if text is None:
        return ()
    path = urlsplit(text).path.strip("/")
    return (path + "/",) if path else ()


def publisher(repository: Any, authors: Any, copyright_line: Any = None) -> Publisher | None:
    """The owner of a forge repository URL, else the authors named, else the holder a
    copyright line names (MkDocs' ``copyright``, a DocFX footer, Sphinx's ``copyright``:
    ``Copyright © 2025 Yusuke Nakada`` is *Yusuke Nakada*)."""
    found = _publisher(repository, authors)
    if found is None and isinstance(copyright_line, str):
        line = copyright_line if "opyright" in copyright_line else f"Copyright {copyright_line}"
        holder = copyright_holder(line)
        found = Publisher(derive_topic_id(holder), holder) if holder else None
    return found


def _publisher(repository: Any, authors: Any) -> Publisher | None:
    url = string(repository)
    if url:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        owner = next((p for p in parts.path.split("/") if p), None)
        if host.endswith(".github.io"):
            owner, host = host.removesuffix(".github.io"), "github.com"
        if owner and (host in _FORGES or host.endswith(".github.io")):
            return Publisher(derive_topic_id(owner), owner, f"https://{host}/{owner}")
    if isinstance(authors, list):
        authors = ", ".join(str(a) for a in authors if a)
    name = string(re.sub(r"<[^>]+>", "", authors)) if isinstance(authors, str) else None
    return Publisher(derive_topic_id(name), name) if name else None


def site_metadata(
    name: Any,
    description: Any = None,
    language: Any = None,
    source_url: str | None = None,
    publisher: Publisher | None = None,
) -> CatalogMetadata:
    """The catalog metadata a site's configuration states (language ``en`` when it states
    none: every generator here defaults to it)."""
    return CatalogMetadata(
        name=string(name),
        description=string(description),
        language=string(language) or "en",
        source_url=source_url,
        publisher=publisher,
    )
