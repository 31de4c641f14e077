"""Fixtures for the embedder tests: an isolated model environment and a tiny ONNX model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gezel_knowledge.embedders import clear_shared_embedders
from tests.embedders.embedder_fixtures import TinyFactory, make_tiny_model

# GEZEL_MODELS as the session started with it, before the isolation below hides it.
REAL_GEZEL_MODELS = os.environ.get("GEZEL_MODELS")


@pytest.fixture(autouse=True)
def isolated_models(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[None]:
    """No user model directories leak in (except for Xenova tests) and no shared embedder does."""
    if request.node.get_closest_marker("xenova") is None:
        monkeypatch.delenv("GEZEL_MODELS", raising=False)
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "gezel-home"))
    clear_shared_embedders()
    yield
    clear_shared_embedders()


@pytest.fixture
def tiny_model(tmp_path: Path) -> TinyFactory:
    """Build a tiny model on disk: ``tiny_model(pooling=..., token_type_ids=..., ...)``."""
    return make_tiny_model(tmp_path)
