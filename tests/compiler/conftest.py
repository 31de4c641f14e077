"""Fixtures of the compiler tests that need the real default model (a test dependency)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.compiler import BuildOptions, BuildResult, compile_catalog
from gezel_knowledge.embedders import Embedder, OnnxEmbedder, Tokenizer, load_embedder
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, EmbeddingProfile

HANDBOOK = Path(__file__).resolve().parents[2] / "examples" / "handbook"


@dataclass
class RecordingEmbedder:
    """An embedder that keeps every passage it was asked to embed."""

    inner: Embedder
    passages: list[str] = field(default_factory=list)

    @property
    def profile(self) -> EmbeddingProfile:
        return self.inner.profile

    @property
    def tokenizer(self) -> Tokenizer:
        return self.inner.tokenizer

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.passages.extend(texts)
        return self.inner.embed_passages(texts)


@pytest.fixture(scope="session")
def minilm() -> OnnxEmbedder:
    """The packaged default model, all-MiniLM-L6-v2 int8 (256-token window)."""
    embedder = load_embedder(ALL_MINILM_L6_V2_INT8_1)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


@dataclass(frozen=True)
class ModelBuild:
    """examples/handbook built with the default model, and every passage it embedded."""

    result: BuildResult
    passages: tuple[str, ...]


@pytest.fixture(scope="session")
def handbook_minilm(minilm: OnnxEmbedder, tmp_path_factory: pytest.TempPathFactory) -> ModelBuild:
    """One real-model build of the handbook, shared by the tests that need it (~2 s)."""
    recorder = RecordingEmbedder(minilm)
    out = tmp_path_factory.mktemp("handbook-minilm") / "handbook.gezk"
    result = compile_catalog(
        HANDBOOK, out, BuildOptions(embedder=recorder, created_at="2026-12-01T00:00:00Z")
    )
    return ModelBuild(result, tuple(recorder.passages))
