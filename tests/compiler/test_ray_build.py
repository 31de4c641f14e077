"""Builds on Ray (a local instance, as CI runs them) write the bytes a local build writes."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ray

from gezel_knowledge.cli import cmd_build, main
from gezel_knowledge.compiler import BuildOptions, BuildResult
from gezel_knowledge.compiler.passes.passage_process import WorkerSetup
from gezel_knowledge.compiler.passes.passages import DocumentText, EmbedderRecipe
from gezel_knowledge.compiler.passes.ray_executor import RayExecutor, RaySettings
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezel_knowledge.progress import ProgressEvent
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, MARKDOWN_CHUNKS_2
from tests.compiler.golden_corpus import golden_documents, write_golden_corpus
from tests.compiler.test_build import _TopicEmbedder
from tests.compiler.test_golden_digests import GOLDEN, shrink_routing_sample
from tests.compiler.trees import build

TOPIC_FILL = GOLDEN["topic-fill"]


@pytest.fixture(scope="module")
def golden_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_golden_corpus(tmp_path_factory.mktemp("ray") / "src")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance of two CPUs for the module (a build leaves a running one alone)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_a_build_on_a_new_local_ray_instance_is_the_local_build(
    golden_source: Path, tmp_path: Path
) -> None:
    assert not ray.is_initialized()
    events: list[ProgressEvent] = []
    options, _, digest = TOPIC_FILL
    result = build(
        golden_source, tmp_path / "ray.gezk", ray=True, progress=events.append, **options
    )
    assert result.sha256 == digest
    assert result.shards > 1
    assert not ray.is_initialized()  # the instance the build started is stopped
    staged = [e for e in events if e.step == "stage"]
    assert (staged[-1].done, staged[-1].total) == (260, 260)
    read = [e for e in events if e.step == "read"]
    assert [e.done for e in read] == sorted(e.done for e in read)
    assert (read[-1].done, read[-1].total) == (260, 260)
    assert f"{result.chunks:,} chunks" in read[-1].message
    # The events go through the build's progress meter: time left, and passages per second
    # once two events are half a second apart (which a fast build may never be).
    assert read[-1].eta_seconds == 0.0
    assert all(e.rate_unit == "passages" for e in read if e.rate is not None)


def test_an_embedder_ray_cannot_rebuild_is_refused(golden_source: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as err:
        build(golden_source, tmp_path / "x.gezk", ray=True, embedder=_TopicEmbedder())
    assert err.value.reason == "embedder-not-distributable"
    assert not ray.is_initialized()


@pytest.mark.usefixtures("local_ray")
def test_semantic_fill_a_centered_profile_and_several_centroids_on_ray(
    golden_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shrink_routing_sample(monkeypatch)
    options, _, digest = GOLDEN["sampled-semantic-centered"]
    result = build(golden_source, tmp_path / "ray.gezk", ray=True, jobs=2, **options)
    assert result.sha256 == digest


@pytest.mark.usefixtures("local_ray")
def test_a_parquet_document_list_builds_on_ray(golden_source: Path, tmp_path: Path) -> None:
    as_json = ("locations", "tocReferences", "meta", "attribution")
    rows = [
        {**row, **{key: json.dumps(row[key]) for key in as_json if key in row}}
        for row in golden_documents()
    ]
    schema = pa.schema(
        [
            *((name, pa.string()) for name in ("id", "title", "markdown", "summary", *as_json)),
            ("topicPath", pa.list_(pa.string())),
            ("aliases", pa.list_(pa.string())),
            ("ordinal", pa.int64()),
        ]
    )
    table = pa.Table.from_pylist(rows, schema=schema)
    parquet = golden_source.parent / "docs.parquet"
    pq.write_table(table, parquet, row_group_size=64)
    options, _, digest = TOPIC_FILL
    result = build(parquet, tmp_path / "ray.gezk", ray=True, **options)
    assert result.sha256 == digest


@pytest.mark.usefixtures("local_ray")
def test_ray_workers_skip_what_the_vector_cache_holds(golden_source: Path, tmp_path: Path) -> None:
    options, _, digest = TOPIC_FILL
    cache = tmp_path / "cache"
    first = build(golden_source, tmp_path / "1.gezk", ray=True, cache_dir=cache, **options)
    assert first.embedded > 0
    second = build(golden_source, tmp_path / "2.gezk", ray=True, cache_dir=cache, **options)
    assert (second.embedded, second.cached) == (0, second.chunks)
    assert first.sha256 == second.sha256 == digest


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--ray"], (True, None)),
        (["--ray", "ray://head:10001", "--jobs", "16"], ("ray://head:10001", 16)),
        (["--jobs", "3"], (None, 3)),
    ],
)
def test_the_build_command_passes_ray_and_jobs(
    flags: list[str],
    expected: tuple[object, int | None],
    golden_source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, Any] = {}

    def compile_catalog(
        source: object, output: object, options: BuildOptions, **kwargs: Any
    ) -> BuildResult:
        seen.update(ray=options.ray, jobs=options.jobs)
        raise InvalidInput("stop here", reason="test-stop")

    monkeypatch.setattr(cmd_build, "compile_catalog", compile_catalog)
    args = ["build", str(golden_source), "-o", str(tmp_path / "x.gezk")]
    args += ["--embedder", "test-hash-embed@1", "--created-at", "2026-12-01T00:00:00Z"]
    assert main([*args, *flags]) != 0
    assert (seen["ray"], seen["jobs"]) == expected


@pytest.mark.usefixtures("local_ray")
def test_the_scale_page_example_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "scale.md").read_text("utf-8")
    (code,) = re.findall(r"^```python\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)
    (expected,) = re.findall(r"^prints\n\n```text\n(.*?)^```$", page, re.MULTILINE | re.DOTALL)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/scale.md", "exec"), {})
    assert capsys.readouterr().out == expected


@pytest.mark.usefixtures("local_ray")
def test_a_worker_without_the_model_raises_the_typed_error(tmp_path: Path) -> None:
    elsewhere = dataclasses.replace(
        ALL_MINILM_L6_V2_INT8_1,
        model=dataclasses.replace(ALL_MINILM_L6_V2_INT8_1.model, repo="nobody/no-such-model"),
    )
    setup = WorkerSetup(EmbedderRecipe("onnx", elsewhere), MARKDOWN_CHUNKS_2, 64, None)
    executor = RayExecutor(setup, RaySettings(workers=2), tmp_path, lambda done, batches: None)
    batch = [DocumentText(0, "a", "A", "Some text.\n")]
    with pytest.raises(ModelUnavailable) as err:
        list(executor.run([batch, batch, batch]))
    assert err.value.reason == "model-missing"
