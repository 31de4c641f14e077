"""Servers for the browser tests, one per module: the handbook and a hostile catalog named by
path (with a memory index in their home), and a home with both installed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gezel_knowledge.browse import GuardSettings, Library, create_app
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.opening import open_catalog
from tests.browse.catalogs import build_hostile, tamper_svg, write_memory

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"


@dataclass(frozen=True)
class Catalogs:
    """Built archives and the tampered hostile folder."""

    handbook: Path
    hostile: Path
    tampered: Path
    out: Path


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory: pytest.TempPathFactory, handbook_gezk: Path) -> Catalogs:
    """The handbook, the hostile catalog, and a copy of it whose SVG carries script."""
    out = tmp_path_factory.mktemp("browse-catalogs")
    hostile = build_hostile(out)
    with open_catalog(hostile, cache_dir=out / "cache") as opened:
        tampered = tamper_svg(opened.root, out)
    return Catalogs(handbook_gezk, hostile, tampered, out)


def named_library(catalogs: Catalogs) -> Library:
    """The handbook and the tampered hostile catalog named by path; memory in their home."""
    home = catalogs.out / "named-home"
    if not home.exists():
        write_memory(home)
    handbook = open_catalog(catalogs.handbook, embedder="auto", cache_dir=catalogs.out / "cache")
    hostile = open_catalog(catalogs.tampered, embedder="auto")
    return Library([handbook, hostile], home=home)


@pytest.fixture(scope="module")
def named(catalogs: Catalogs) -> Iterator[TestClient]:
    """HTTP client of a browser over catalogs named by path."""
    library = named_library(catalogs)
    app = create_app(library, GuardSettings("127.0.0.1", PORT))
    with TestClient(app, base_url=BASE) as client:
        yield client
    library.close()


@pytest.fixture(scope="module")
def installed_home(catalogs: Catalogs) -> Path:
    """A Gezel home with the handbook and the hostile catalog installed."""
    home = catalogs.out / "installed-home"
    knowledge = KnowledgeHome(home)
    knowledge.install(catalogs.handbook)
    knowledge.install(catalogs.hostile)
    return home


@pytest.fixture(scope="module")
def installed(installed_home: Path) -> Iterator[tuple[TestClient, GuardSettings]]:
    """HTTP client of a browser over the installed catalogs, and its guard settings."""
    library = Library(home=installed_home)
    settings = GuardSettings("127.0.0.1", PORT)
    with TestClient(create_app(library, settings), base_url=BASE) as client:
        yield client, settings
    library.close()
