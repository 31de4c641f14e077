"""Shared fixtures."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder

DATA = Path(__file__).parent / "data"
HANDBOOK = Path(__file__).resolve().parents[1] / "examples" / "handbook"


def load_kit() -> dict[str, Any]:
    """The gezk 0.7 conformance vectors (a copy of the kit's ``vectors.json``)."""
    with (DATA / "conformance-vectors.json").open(encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def pytest_configure(config: pytest.Config) -> None:
    """Session-scoped fixtures run before any test's own home is set: they get a home of the
    session's, so nothing they open or build (a keyword index beside a plain folder, say) is
    written to the user's ~/.gezel."""
    os.environ["GEZEL_HOME"] = tempfile.mkdtemp(prefix="gezel-home-session-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's home."""
    home = os.environ.get("GEZEL_HOME", "")
    if Path(home).name.startswith("gezel-home-session-"):
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def kit() -> dict[str, Any]:
    """The conformance vectors, as a fixture."""
    return load_kit()


@pytest.fixture(autouse=True)
def _isolated_gezel_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets its own empty GEZEL_HOME, so nothing writes to the user's ~/.gezel."""
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path_factory.mktemp("gezel-home")))
    # Shared placement is opt-in: no test inherits a machine's shared store.
    monkeypatch.delenv("GEZEL_SHARED_STORE", raising=False)
    # The bundled Handboek is installed on first use; tests that count catalogs or hits leave
    # it out, and tests/install/test_handbook.py puts it back.
    monkeypatch.setenv("GEZEL_HANDBOOK", "off")


@pytest.fixture(scope="session")
def handbook_gezk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/handbook built with the hash embedder (one embedded shard)."""
    out = tmp_path_factory.mktemp("handbook") / "handbook.gezk"
    compile_catalog(
        HANDBOOK, out, BuildOptions(embedder=HashEmbedder(), created_at="2026-12-01T00:00:00Z")
    )
    return out
