"""Progress events carry their step's recent pace and the time left (build and index runs)."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.cli._output import TerminalProgress
from gezel_knowledge.compiler import BuildOptions, compile_catalog
from gezel_knowledge.embedders import HashEmbedder, Tokenizer
from gezel_knowledge.indexes import ContentIndex
from gezel_knowledge.progress import ProgressEvent, ProgressMeter, metered
from gezk.profiles import EmbeddingProfile
from tests.compiler.trees import write_tree


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _meter(events: list[ProgressEvent], clock: _Clock, **options: float) -> ProgressMeter:
    return ProgressMeter(events.append, clock=clock, **options)


def test_a_steady_pace_gives_the_rate_and_the_time_left() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock)
    for second in range(5):
        clock.now = 100.0 + second
        meter(ProgressEvent("index", "embed", done=10 * second, total=100, unit="chunks"))
    last = events[-1]
    assert last.rate == pytest.approx(10.0)
    assert last.rate_unit == ""  # the event's own unit: chunks
    assert last.eta_seconds == pytest.approx(6.0)  # 60 chunks left at 10 per second


def test_no_rate_before_the_pace_can_be_measured() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock)
    meter(ProgressEvent("build", "read", done=1, total=9, unit="documents"))
    clock.now += 0.1
    meter(ProgressEvent("build", "read", done=2, total=9, unit="documents"))
    assert [(e.rate, e.eta_seconds) for e in events] == [(None, None), (None, None)]


def test_a_finished_step_has_no_time_left_even_unmeasured() -> None:
    events: list[ProgressEvent] = []
    meter = _meter(events, _Clock())
    meter(ProgressEvent("build", "embed", done=32, total=32, unit="chunks"))
    assert events[0].eta_seconds == 0.0
    assert events[0].rate is None


def test_the_rate_may_count_work_other_than_the_steps_unit() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock)
    for second in range(3):
        clock.now = 100.0 + second
        event = ProgressEvent("build", "read", done=2 * second, total=10, unit="documents")
        meter.emit(event, work=25 * second, work_unit="passages")
    last = events[-1]
    assert (last.rate, last.rate_unit) == (pytest.approx(25.0), "passages")
    assert last.eta_seconds == pytest.approx(3.0)  # 6 documents left at 2 per second


def test_the_window_follows_a_change_of_pace() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock, window=10.0)
    done = 0
    for second in range(60):
        clock.now = 100.0 + second
        done += 1 if second < 30 else 4
        meter(ProgressEvent("index", "embed", done=done, total=1000, unit="chunks"))
    assert events[29].rate == pytest.approx(1.0)
    assert events[-1].rate == pytest.approx(4.0, rel=0.05)
    assert events[-1].eta_seconds == pytest.approx((1000 - done) / 4.0, rel=0.05)


def test_a_step_counting_from_zero_starts_at_the_previous_steps_last_event() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock)
    meter(ProgressEvent("index", "scan", done=7, total=7, unit="files"))
    clock.now += 2.0
    # The first embed event already shows a pace: 8 chunks in the 2 s since the scan ended.
    meter(ProgressEvent("index", "embed", done=8, total=40, unit="chunks"))
    assert events[-1].rate == pytest.approx(4.0)
    assert events[-1].eta_seconds == pytest.approx(8.0)


def test_a_burst_of_events_keeps_the_measurement() -> None:
    events: list[ProgressEvent] = []
    clock = _Clock()
    meter = _meter(events, clock, window=30.0)
    for i in range(20_000):  # 1,000 events a second for 20 s
        clock.now = 100.0 + i / 1000
        meter(ProgressEvent("install", "download", done=50 * i, total=2_000_000, unit="bytes"))
    assert events[-1].rate == pytest.approx(50_000.0, rel=0.01)
    assert events[-1].eta_seconds == pytest.approx(20.0, rel=0.01)


def test_metered_wraps_once_and_a_broken_sink_does_not_stop_the_job() -> None:
    assert metered(None) is None
    meter = metered(lambda _event: None)
    assert isinstance(meter, ProgressMeter)
    assert metered(meter) is meter

    def broken(_event: ProgressEvent) -> None:
        raise RuntimeError("subscriber went away")

    ProgressMeter(broken)(ProgressEvent("build", "read", done=1, total=2))


def test_the_terminal_display_shows_rate_and_time_left() -> None:
    stream = io.StringIO()
    stream.isatty = lambda: True  # type: ignore[method-assign]
    bar = TerminalProgress(stream, min_interval=0)
    bar(
        ProgressEvent(
            "build",
            "read",
            120,
            348,
            "documents",
            "3,400 chunks",
            rate=12.34,
            rate_unit="passages",
            eta_seconds=105.2,
        )
    )
    bar(ProgressEvent("index", "embed", 10, 20, "chunks", rate=1234.5, eta_seconds=4000))
    bar.close()
    lines = stream.getvalue().split("\r")
    assert lines[1].rstrip().endswith("3,400 chunks (12.3 passages/s, 1m45s left)")
    assert lines[2].rstrip().endswith("20 chunks (1,234 chunks/s, 1h07m left)")


class _SlowEmbedder:
    """The hash embedder, taking ``delay`` seconds per call like a real model would."""

    def __init__(self, delay: float) -> None:
        self._inner = HashEmbedder()
        self._delay = delay

    @property
    def profile(self) -> EmbeddingProfile:
        return self._inner.profile

    @property
    def tokenizer(self) -> Tokenizer:
        return self._inner.tokenizer

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self._inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        time.sleep(self._delay)
        return self._inner.embed_passages(texts)


def test_a_build_reports_passages_per_second_and_time_left(tmp_path: Path) -> None:
    files = {f"doc-{i}.md": f"# Page {i}\n\nWords about topic {i} and more.\n" for i in range(8)}
    source = write_tree(tmp_path / "src", files)
    events: list[ProgressEvent] = []
    compile_catalog(
        source,
        tmp_path / "out.gezk",
        BuildOptions(
            embedder=_SlowEmbedder(0.12), created_at="2026-12-01T00:00:00Z", embed_batch=1
        ),
        progress=events.append,
    )
    reads = [e for e in events if e.step == "read"]
    assert len(reads) == 8
    paced = [e for e in reads if e.rate is not None]
    assert paced, "no read event carried a rate"
    for event in paced:
        assert event.rate_unit == "passages"
        assert 0 < event.rate < 1 / 0.12 * 1.2  # at most one passage per embed call
        assert event.eta_seconds is not None
        assert event.eta_seconds == 0.0 or event.done < 8
    assert reads[-1].eta_seconds == 0.0


def test_an_index_run_reports_chunks_per_second_and_time_left(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for i in range(10):
        (workspace / f"note-{i}.md").write_text(f"# Note {i}\n\nSome text {i}.\n", "utf-8")
    events: list[ProgressEvent] = []
    with ContentIndex(workspace, home=tmp_path / "home") as index:
        index.update(progress=events.append)
        index.enrich(_SlowEmbedder(0.12), batch_size=1, progress=events.append)
    embeds = [e for e in events if e.step == "embed"]
    assert [e.done for e in embeds] == list(range(1, 11))
    paced = [e for e in embeds if e.rate is not None]
    assert len(paced) >= 2
    for event in paced:
        assert event.rate_unit == ""  # chunks, the event's unit
        assert 0 < event.rate < 1 / 0.12 * 1.2
        assert event.eta_seconds is not None
    assert embeds[-1].eta_seconds == 0.0
