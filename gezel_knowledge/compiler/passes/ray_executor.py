"""Chunking and embedding on Ray: the read pass of a build as a Ray Data pipeline.

The driver (the process calling ``compile_catalog``) reads and normalises every body as in a
local build and stages the batches in a file of its scratch folder. A Ray Data pipeline then
reads the staged batches back (tasks pinned to the driver's node, where the file is), and
``map_batches`` hands them to a pool of actors, each a
:class:`~gezel_knowledge.compiler.passes.passages.PassageWorker` whose embedder is built once per
actor from an :class:`~gezel_knowledge.compiler.passes.passages.EmbedderRecipe`: the model's files
are found on the worker's machine and their digests checked there; nothing is downloaded. When the
build has a vector cache, a small actor on the driver's node answers which embed inputs it already
holds, so workers skip them; every result comes back keyed by the SHA-256 of its embed input,
and the driver stores new vectors in the cache as they arrive (an interrupted build resumes
where it stopped) and assembles shards and the archive exactly as a local build does. The
results are taken in order (Ray Data's ``preserve_order``), so the archive is byte for byte
the local build's.

Without an address the pipeline runs on ``RAY_ADDRESS`` when it is set (as under ``ray job
submit``), else on a new local Ray instance sized to this machine; a Ray instance this module
started is shut down at the end, one that was already running is left alone. Needs the ``ray``
extra (``pip install 'gezel-knowledge[ray]'``).
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from gezel_knowledge.compiler.errors import WorkerFailed
from gezel_knowledge.compiler.passes.passage_process import WorkerSetup, read_frame, write_frame
from gezel_knowledge.compiler.passes.passages import DocumentText, PassageBatch, PassageWorker
from gezel_knowledge.compiler.passes.vector_cache import CacheReader
from gezel_knowledge.embedders.cores import usable_cores
from gezel_knowledge.extras import require_extra
from gezk.errors import ReasonedError

__all__ = ["RayExecutor", "RaySettings"]

_PURPOSE = "building on Ray"
_NODE_ID_LABEL = "ray.io/node-id"
"""The label every Ray node carries with its id."""


@dataclass(frozen=True, slots=True)
class RaySettings:
    """Where a Ray build runs and with how many embedding actors."""

    address: str | None = None
    """A Ray address (``auto``, ``ray://head:10001``...); ``None``: ``RAY_ADDRESS``, else a new
    local instance."""
    workers: int | None = None
    """Embedding actors (default: one per CPU of the Ray cluster)."""


Staged = Callable[[int, int], None]
"""``(documents staged, batches staged)``: called as the driver stages bodies for Ray."""


class RayExecutor:
    """Runs the read pass's batches through a Ray Data actor pool (see the module docstring)."""

    def __init__(
        self, setup: WorkerSetup, settings: RaySettings, work: Path, staged: Staged
    ) -> None:
        self.setup = setup
        self.settings = settings
        self.work = work
        self.staged = staged
        self._workers = settings.workers or 0

    @property
    def workers(self) -> int:
        """The embedding actors of the last run (0 before it starts)."""
        return self._workers

    def run(self, batches: Iterable[Sequence[DocumentText]]) -> Iterator[PassageBatch]:
        """Stage every batch, then each batch's result in order from the Ray pipeline."""
        ray = require_extra("ray", "ray", _PURPOSE)
        data = require_extra("ray.data", "ray", _PURPOSE)
        strategies = require_extra("ray.util.scheduling_strategies", "ray", _PURPOSE)
        path = self.work / "ray-batches.bin"
        offsets = _stage(batches, path, self.staged)
        if not offsets:
            return
        with ExitStack() as stack:
            if not ray.is_initialized():
                _start(ray, self.settings.address)
                stack.callback(ray.shutdown)
            here = ray.get_runtime_context().get_node_id()
            yield from self._pipeline(ray, data, strategies, here, (path, offsets))

    def _pipeline(
        self,
        ray: ModuleType,
        data: ModuleType,
        strategies: ModuleType,
        here: str,
        staged: tuple[Path, list[int]],
    ) -> Iterator[PassageBatch]:
        path, offsets = staged
        workers = self.settings.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._workers = workers
        setup = self.setup
        if isinstance(setup.known, CacheReader):
            pinned = strategies.NodeAffinitySchedulingStrategy(here, soft=False)
            lookup = ray.remote(num_cpus=0, scheduling_strategy=pinned)(_CacheLookup)
            setup = replace(setup, known=_RemoteKnown(lookup.remote(setup.known)))
        context = data.DataContext.get_current()
        saved = (context.execution_options.preserve_order, context.enable_progress_bars)
        context.execution_options.preserve_order = True
        # The build reports its own progress; Ray Data's bars and INFO lines would interleave.
        context.enable_progress_bars = False
        logger = logging.getLogger("ray.data")
        level = logger.level
        logger.setLevel(logging.ERROR)
        try:
            dataset = (
                # Items, not ray.data.range: range's read tasks want a CPU each, which the
                # actor pool, sized to the cluster's CPUs, never leaves free.
                data.from_items(
                    [{"batch": n} for n in range(len(offsets))], override_num_blocks=len(offsets)
                )
                .map_batches(
                    _read_staged,
                    fn_args=(str(path), offsets),
                    batch_size=1,
                    # No CPU of its own (the actors hold every CPU), and so one task at a time:
                    # zero-CPU tasks are otherwise started without limit, a process each.
                    num_cpus=0,
                    compute=data.TaskPoolStrategy(size=1),
                    label_selector={_NODE_ID_LABEL: here},  # where the staged file is
                )
                .map_batches(
                    _RayWorker,
                    fn_constructor_args=(setup,),
                    batch_size=None,
                    batch_format="numpy",
                    compute=data.ActorPoolStrategy(size=workers),
                    num_cpus=1,
                )
            )
            for block in dataset.iter_batches(batch_size=None, batch_format="numpy"):
                for payload in block["result"]:
                    # Written by this build's own actors, never read from elsewhere.
                    status, value = pickle.loads(payload)
                    if status == "error":
                        raise value
                    yield value
        except ReasonedError:
            raise
        except Exception as exc:
            raise _unwrapped(exc) from exc
        finally:
            context.execution_options.preserve_order, context.enable_progress_bars = saved
            logger.setLevel(level)


def _stage(batches: Iterable[Sequence[DocumentText]], path: Path, staged: Staged) -> list[int]:
    """Write each batch as a frame of ``path``; the frames' offsets."""
    offsets: list[int] = []
    documents = 0
    with path.open("wb") as out:
        for batch in batches:
            offsets.append(out.tell())
            write_frame(out, list(batch))
            documents += len(batch)
            staged(documents, len(offsets))
    return offsets


def _start(ray: ModuleType, address: str | None) -> None:
    """Connect to ``address`` (or ``RAY_ADDRESS``), else start Ray sized to this machine."""
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is not None:
        ray.init(address=address, **options)
    elif os.environ.get("RAY_ADDRESS"):
        ray.init(**options)
    else:
        ray.init(num_cpus=usable_cores(), include_dashboard=False, **options)


def _read_staged(rows: dict[str, Any], path: str, offsets: list[int]) -> dict[str, Any]:
    """The documents of the staged batches whose numbers are in ``rows["batch"]``."""
    documents: list[DocumentText] = []
    with open(path, "rb") as staged:
        for number in np.asarray(rows["batch"]).tolist():
            staged.seek(offsets[int(number)])
            documents.extend(read_frame(staged))
    return {
        "seq": np.asarray([d.seq for d in documents], dtype=np.int64),
        "id": np.asarray([d.id for d in documents], dtype=object),
        "title": np.asarray([d.title for d in documents], dtype=object),
        "body": np.asarray([d.body for d in documents], dtype=object),
    }


class _RayWorker:
    """A Ray Data actor: one :class:`PassageWorker`, its model loaded once, on the worker."""

    def __init__(self, setup: WorkerSetup) -> None:
        # A typed error (a model that is missing or does not match) goes back as the answer to
        # every batch: raised, Ray would report only that the actor or its task failed, without
        # the error's type and reason.
        self.worker: PassageWorker | None = None
        self.error: ReasonedError | None = None
        try:
            self.worker = setup.worker()
        except ReasonedError as exc:
            self.error = exc

    def __call__(self, rows: dict[str, Any]) -> dict[str, Any]:
        answer: tuple[str, object]
        if self.worker is None:
            answer = ("error", self.error)
        else:
            try:
                answer = ("ok", self.worker(_documents(rows)))
            except ReasonedError as exc:
                answer = ("error", exc)
        payload = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        return {"result": np.asarray([payload], dtype=object)}


def _documents(rows: dict[str, Any]) -> list[DocumentText]:
    return [
        DocumentText(int(seq), str(doc_id), str(title), str(body))
        for seq, doc_id, title, body in zip(
            rows["seq"], rows["id"], rows["title"], rows["body"], strict=True
        )
    ]


class _CacheLookup:
    """A Ray actor on the driver's node answering which embed inputs its cache holds."""

    def __init__(self, reader: CacheReader) -> None:
        self.reader = reader

    def known(self, keys: list[bytes]) -> set[bytes]:
        return self.reader(keys)


class _RemoteKnown:
    """``KnownKeys`` asked of the :class:`_CacheLookup` actor (picklable: an actor handle)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __call__(self, keys: Sequence[bytes]) -> set[bytes]:
        ray = require_extra("ray", "ray", _PURPOSE)
        found: set[bytes] = ray.get(self.handle.known.remote(list(keys)))
        return found


def _unwrapped(exc: BaseException) -> BaseException:
    """The typed error a worker raised, out of Ray's wrappers; else a :class:`WorkerFailed`."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ReasonedError):
            return current
        seen.add(id(current))
        cause = getattr(current, "cause", None)
        current = cause if isinstance(cause, BaseException) else current.__cause__
    return WorkerFailed(f"the Ray pipeline failed: {type(exc).__name__}: {exc}")
