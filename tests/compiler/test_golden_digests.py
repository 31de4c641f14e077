"""Archive digests of a multi-shard corpus, recorded before the build passes were reworked.

The streaming build (flat memory), parallel embedding and the Ray path must write the bytes the
in-memory build wrote. These SHA-256 values were recorded with the compiler at commit 5603d97
(before that work); they change only when the format or the toolchain version does, and a
change here is a change to every catalog anyone builds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.compiler.passes import kmeans
from gezel_knowledge.embedders import HashEmbedder
from gezk.profiles import MULTILINGUAL_E5_SMALL_2
from tests.compiler.golden_corpus import (
    GOLDEN_SHARD_MAX,
    GOLDEN_SHARD_TARGET,
    write_golden_corpus,
)
from tests.compiler.trees import build

SHARDED = {"shard_target": GOLDEN_SHARD_TARGET, "shard_max": GOLDEN_SHARD_MAX}
CENTERED = HashEmbedder(MULTILINGUAL_E5_SMALL_2)

# name: (build options, whether the routing sample is shrunk, SHA-256 of the archive)
GOLDEN: dict[str, tuple[dict[str, Any], bool, str]] = {
    "topic-fill": (
        SHARDED,
        False,
        "7c538391491423659332278e93c03a37e832f5709d0e3bb313b91e07240e1b21",
    ),
    "semantic-fill": (
        {**SHARDED, "shard_fill": "semantic"},
        False,
        "5de8e74264a8990d29874ce063d68ce163d8894133bdaa291ff23ab7b71f7c7f",
    ),
    "centered-sign": (
        {**SHARDED, "embedder": CENTERED},
        False,
        "aaf17e9dd4dc889c035ca8c1f655beee7b5682cd8fd4582a88e5b4c1a4004531",
    ),
    "one-shard": (
        {},
        False,
        "25404188a4e912433708e944a2ad806825ca71d66e7c4682f29ca5fecb6c72b1",
    ),
    "sampled-topic-fill": (
        SHARDED,
        True,
        "18109277a6b986422d5dca0cdaf410d90304ed6586f8406f302db5f33b9c406c",
    ),
    "sampled-semantic-centered": (
        {**SHARDED, "shard_fill": "semantic", "embedder": CENTERED},
        True,
        "02b87a304811e8aa7fb47b007a886064a09c814ccd3189eadfa25a51c2c33bf4",
    ),
    "sampled-one-shard": (
        {},
        True,
        "920bb925b0ff83f08882a03f584c94f8987c0bbe14f9e05e28df258ecb9d2e23",
    ),
}


@pytest.fixture(scope="module")
def golden_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_golden_corpus(tmp_path_factory.mktemp("golden") / "src")


def shrink_routing_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every 4th+ chunk sampled and a centroid per 40 chunks, so a small shard takes the paths
    a shard of hundreds of thousands of chunks takes (strided sample, several centroids)."""
    monkeypatch.setattr(kmeans, "CENTROID_SAMPLE_MAX", 50)
    monkeypatch.setattr(kmeans, "CENTROID_CHUNKS_PER", 40)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_archive_bytes_are_the_recorded_ones(
    name: str, golden_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options, sampled, digest = GOLDEN[name]
    if sampled:
        shrink_routing_sample(monkeypatch)
    result = build(golden_source, tmp_path / f"{name}.gezk", **options)
    assert result.sha256 == digest
    assert result.documents == 260
