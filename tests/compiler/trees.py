"""Small source trees for compiler tests, written into ``tmp_path``."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gezel_knowledge.compiler import BuildOptions, BuildResult, CatalogSource, compile_catalog
from gezel_knowledge.embedders import HashEmbedder

CATALOG_YAML = """\
id: demo
version: "1.0.0"
name: Demo catalog
description: A catalog for tests.
language: en
publisher: {id: tester, name: Test Publisher, url: https://example.test}
license: {name: CC BY 4.0, spdx: CC-BY-4.0, attributionRequired: true}
"""

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 17
SVG = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">'
    b'<rect width="4" height="4" fill="#08f"/></svg>\n'
)
CREATED_AT = "2026-12-01T00:00:00Z"


def write_tree(
    root: Path,
    files: Mapping[str, str | bytes],
    *,
    catalog: str | None = CATALOG_YAML,
    notices: bool = True,
) -> Path:
    """Write ``files`` (relative path -> text or bytes) plus README, LICENSE (unless not
    ``notices``) and catalog.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    defaults: dict[str, str | bytes] = {}
    if notices:
        defaults = {"README.md": "# Demo\n\nA test catalog.\n", "LICENSE": "CC BY 4.0\n"}
    if catalog is not None:
        defaults["catalog.yaml"] = catalog
    for rel, content in {**defaults, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def write_jsonl(path: Path, documents: Iterable[Mapping[str, Any]]) -> Path:
    """Write a JSON Lines document list."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for doc in documents:
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return path


def build(source: Path, out: Path, **kwargs: Any) -> BuildResult:
    """Compile with the hash embedder and a fixed createdAt unless told otherwise (``kwargs``:
    :class:`BuildOptions` fields, and ``progress``)."""
    kwargs.setdefault("embedder", HashEmbedder())
    kwargs.setdefault("created_at", CREATED_AT)
    progress = kwargs.pop("progress", None)
    return compile_catalog(source, out, BuildOptions(**kwargs), progress=progress)


def entries(archive: Path) -> dict[str, bytes]:
    """Every entry of an archive by path."""
    with zipfile.ZipFile(archive) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def extract(archive: Path, dest: Path) -> Path:
    """Unpack an archive (trusted test output) into ``dest``."""
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(dest)
    return dest


def toc_order(source: CatalogSource) -> list[tuple[str, str]]:
    """Each document and its topic, the table of contents walked depth first (document
    ordinals and topic sort keys, less 2**31, share one order)."""
    out: list[tuple[str, str]] = []

    def walk(topic: str, path: tuple[str, ...]) -> None:
        entries: list[tuple[int, str, str]] = [
            (d.ordinal or 0, "doc", d.id) for d in source.documents if d.topic_path == path
        ]
        entries += [
            (int(t.sort_key or 0) - 2**31, "topic", t.id)
            for t in source.topics
            if t.parent_id == topic
        ]
        for _, kind, ident in sorted(entries):
            if kind == "doc":
                out.append((ident, topic))
            else:
                walk(ident, (*path, ident))

    root = next(t for t in source.topics if t.parent_id is None)
    walk(root.id, (root.id,))
    return out
