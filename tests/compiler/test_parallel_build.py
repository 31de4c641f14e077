"""Builds spread over worker processes (``jobs``) write the bytes a one-process build writes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gezel_knowledge.compiler import SourceError
from gezel_knowledge.compiler.passes import reading
from gezel_knowledge.compiler.passes.executors import ProcessExecutor, SizedExecutor
from gezel_knowledge.compiler.passes.passage_process import WorkerSetup
from gezel_knowledge.compiler.passes.passages import DocumentText, EmbedderRecipe
from gezel_knowledge.embedders import HashEmbedder, OnnxEmbedder
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, MARKDOWN_CHUNKS_2
from tests.compiler.conftest import HANDBOOK
from tests.compiler.golden_corpus import golden_documents, write_golden_corpus
from tests.compiler.test_golden_digests import GOLDEN, shrink_routing_sample
from tests.compiler.trees import build, write_jsonl


@pytest.fixture(scope="module")
def golden_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_golden_corpus(tmp_path_factory.mktemp("parallel") / "src")


@pytest.mark.parametrize("name", ["topic-fill", "sampled-semantic-centered"])
def test_two_worker_processes_write_the_recorded_bytes(
    name: str, golden_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options, sampled, digest = GOLDEN[name]
    if sampled:
        shrink_routing_sample(monkeypatch)
    one = build(golden_source, tmp_path / "one.gezk", jobs=1, **options)
    two = build(golden_source, tmp_path / "two.gezk", jobs=2, **options)
    assert one.sha256 == two.sha256 == digest
    assert (one.chunks, one.embedded, one.cached) == (two.chunks, two.embedded, two.cached)


def test_the_default_model_in_two_processes_gives_the_same_archive(
    minilm: OnnxEmbedder, tmp_path: Path
) -> None:
    one = build(HANDBOOK, tmp_path / "one.gezk", embedder=minilm, jobs=1)
    two = build(HANDBOOK, tmp_path / "two.gezk", embedder=minilm, jobs=2)
    assert one.sha256 == two.sha256
    assert two.embedded == one.embedded > 0


def test_workers_skip_cached_inputs_and_an_interrupted_build_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = list(golden_documents(400))  # about 23 batches
    source = write_golden_corpus(tmp_path / "src", 400)
    # The last document in build order has a body over the (lowered) limit: the build stops
    # there, after every batch no longer in flight was embedded and cached.
    monkeypatch.setattr(reading, "MAX_BODY_BYTES", 100_000)
    broken = dict(documents[0], id="west/zzz-last", topicPath=["west"])
    broken["markdown"] = "word " * 30_000
    write_jsonl(tmp_path / "src" / "docs.jsonl", [*documents, broken])
    cache = tmp_path / "cache"
    with pytest.raises(SourceError) as err:
        build(source, tmp_path / "broken.gezk", cache_dir=cache, jobs=2)
    assert err.value.reason == "body-too-large"
    write_jsonl(tmp_path / "src" / "docs.jsonl", documents)
    resumed = build(source, tmp_path / "resumed.gezk", cache_dir=cache, jobs=2)
    # Only the batches still in flight when the first build stopped are embedded again.
    assert 0 < resumed.embedded < resumed.chunks // 2
    assert resumed.sha256 == build(source, tmp_path / "fresh.gezk", jobs=1).sha256
    again = build(source, tmp_path / "again.gezk", cache_dir=cache, jobs=2)
    assert (again.embedded, again.cached) == (0, again.chunks)
    assert again.sha256 == resumed.sha256


def test_an_explicit_job_count_must_be_positive(golden_source: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as err:
        build(golden_source, tmp_path / "x.gezk", jobs=0)
    assert err.value.reason == "invalid-jobs"


def _setup(recipe: EmbedderRecipe) -> WorkerSetup:
    return WorkerSetup(recipe, MARKDOWN_CHUNKS_2, 64, None)


def test_a_worker_that_cannot_load_its_model_reports_why(tmp_path: Path) -> None:
    elsewhere = dataclasses.replace(
        ALL_MINILM_L6_V2_INT8_1,
        model=dataclasses.replace(ALL_MINILM_L6_V2_INT8_1.model, repo="nobody/no-such-model"),
    )
    executor = ProcessExecutor(_setup(EmbedderRecipe("onnx", elsewhere)), 2)
    batch = [DocumentText(0, "a", "A", "Some text.\n")]
    with pytest.raises(ModelUnavailable) as err:
        list(executor.run([batch, batch]))
    assert err.value.reason == "model-missing"


def test_results_come_back_in_order_from_every_process() -> None:
    executor = ProcessExecutor(_setup(EmbedderRecipe("hash", HashEmbedder().profile)), 3)
    batches = [
        [DocumentText(seq, f"d{seq}", f"Doc {seq}", f"Text number {seq}.\n" * (seq % 5 + 1))]
        for seq in range(20)
    ]
    results = list(executor.run(batches))
    assert [r.documents[0].seq for r in results] == list(range(20))
    assert [r.chunks for r in results] == [1] * 20


def test_the_default_starts_processes_only_for_a_large_enough_input() -> None:
    used: list[str] = []

    class Recording:
        def __init__(self, name: str) -> None:
            self.name = name
            self.workers = 1

        def run(self, batches: list[list[DocumentText]]) -> list[int]:
            used.append(self.name)
            return [len(b) for b in batches]

    sized = SizedExecutor(Recording("inline"), Recording("pool"), threshold=4)  # type: ignore[arg-type]
    small = [[DocumentText(i, f"d{i}", "T", "x\n")] for i in range(3)]
    assert list(sized.run(small)) == [1, 1, 1]
    large = [[DocumentText(i, f"d{i}", "T", "x\n")] for i in range(5)]
    assert list(sized.run(iter(large))) == [1] * 5  # the held batches are not lost
    assert used == ["inline", "pool"]
