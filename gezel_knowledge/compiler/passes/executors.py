"""Where a build's passage work runs: in the calling process, or in local worker processes.

An executor takes batches of documents in processing order and yields the workers'
:class:`~gezel_knowledge.compiler.passes.passages.PassageBatch` results in the same order; the
driver does everything else. :class:`InlineExecutor` calls one worker in this process (with the
caller's own embedder, whatever it is). :class:`ProcessExecutor` runs ``jobs`` worker processes
(:mod:`~gezel_knowledge.compiler.passes.passage_process`), each with its own embedder rebuilt from
an :class:`~gezel_knowledge.compiler.passes.passages.EmbedderRecipe` and one intra-op thread.
Batches go to the processes in turn, at most two per process at a time, so memory stays flat however
long the input; a thread per process feeds it, so the driver never blocks writing a batch while a
worker waits for its answer to be read. The Ray executor lives in
:mod:`~gezel_knowledge.compiler.passes.ray_executor`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from gezel_knowledge.compiler.errors import WorkerFailed
from gezel_knowledge.compiler.passes.passage_process import (
    COMMAND,
    WorkerSetup,
    read_frame,
    write_frame,
)
from gezel_knowledge.compiler.passes.passages import DocumentText, PassageBatch, PassageWorker

__all__ = [
    "IN_FLIGHT_PER_PROCESS",
    "POOL_MIN_BATCHES",
    "Executor",
    "InlineExecutor",
    "ProcessExecutor",
    "SizedExecutor",
    "WorkerSetup",
]

IN_FLIGHT_PER_PROCESS = 2
"""Batches queued per worker process: one running, one ready, so no process waits."""

POOL_MIN_BATCHES = 4
"""Batches an input needs before :class:`SizedExecutor` starts worker processes (a smaller
input is done before the processes would have loaded their model)."""


class Executor(Protocol):
    """Runs passage work on batches of documents; results come back in the batches' order."""

    @property
    def workers(self) -> int:
        """How many workers embed at once."""
        ...

    def run(self, batches: Iterable[Sequence[DocumentText]]) -> Iterator[PassageBatch]:
        """Each batch's :class:`PassageBatch`, in order."""
        ...


class InlineExecutor:
    """One worker, in this process."""

    def __init__(self, worker: PassageWorker) -> None:
        self.worker = worker

    @property
    def workers(self) -> int:
        """One."""
        return 1

    def run(self, batches: Iterable[Sequence[DocumentText]]) -> Iterator[PassageBatch]:
        """Each batch's result, computed as it is asked for."""
        for batch in batches:
            yield self.worker(batch)


_STOP = object()


class _Process:
    """One worker process and the thread that writes its batches."""

    def __init__(self, setup: WorkerSetup, number: int) -> None:
        self.number = number
        env = dict(os.environ)
        # The worker imports this very package: give it the driver's import path.
        paths = [p for p in sys.path if isinstance(p, str) and p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        self.popen = subprocess.Popen(
            list(COMMAND),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.outbox: queue.Queue[object] = queue.Queue()
        self.writer = threading.Thread(target=self._write, name=f"gezk-feed-{number}", daemon=True)
        self.outbox.put(setup)
        self.writer.start()

    def _write(self) -> None:
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            while (item := self.outbox.get()) is not _STOP:
                write_frame(stdin, item)
        except (BrokenPipeError, OSError):
            return  # the process is gone; reading its answer reports why
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def send(self, batch: Sequence[DocumentText]) -> None:
        self.outbox.put(list(batch))

    def receive(self) -> PassageBatch:
        stdout = self.popen.stdout
        assert stdout is not None
        try:
            status, value = read_frame(stdout)
        except EOFError:
            code = self.popen.wait()
            raise WorkerFailed(
                f"build worker {self.number} exited with code {code} (its error is above)"
            ) from None
        if status == "error":
            raise value
        if not isinstance(value, PassageBatch):
            raise WorkerFailed(f"build worker {self.number} answered {type(value).__name__}")
        return value

    def close(self, *, kill: bool) -> None:
        self.outbox.put(_STOP)
        if kill:
            self.popen.kill()
        self.writer.join()
        if self.popen.stdout is not None:
            self.popen.stdout.close()
        self.popen.wait()


class ProcessExecutor:
    """``jobs`` local worker processes, each with its own embedder and one intra-op thread."""

    def __init__(self, setup: WorkerSetup, jobs: int) -> None:
        if jobs < 1:
            raise ValueError("jobs must be positive")
        self.setup = setup
        self.jobs = jobs

    @property
    def workers(self) -> int:
        """The number of processes."""
        return self.jobs

    def run(self, batches: Iterable[Sequence[DocumentText]]) -> Iterator[PassageBatch]:
        """Each batch's result, in order: batch ``i`` goes to process ``i % jobs``."""
        processes = [_Process(self.setup, n) for n in range(self.jobs)]
        sent = received = 0
        failed = True
        try:
            for batch in batches:
                processes[sent % self.jobs].send(batch)
                sent += 1
                if sent - received >= self.jobs * IN_FLIGHT_PER_PROCESS:
                    yield processes[received % self.jobs].receive()
                    received += 1
            while received < sent:
                yield processes[received % self.jobs].receive()
                received += 1
            failed = False
        finally:
            for process in processes:
                process.close(kill=failed)


class SizedExecutor:
    """This process for a small input, worker processes for one of at least ``threshold``
    batches (the first batches are held, not run, until the input's size is known)."""

    def __init__(
        self, inline: InlineExecutor, pool: ProcessExecutor, threshold: int = POOL_MIN_BATCHES
    ) -> None:
        self.inline = inline
        self.pool = pool
        self.threshold = threshold

    @property
    def workers(self) -> int:
        """The pool's processes (a small input uses one)."""
        return self.pool.workers

    def run(self, batches: Iterable[Sequence[DocumentText]]) -> Iterator[PassageBatch]:
        """Each batch's result, in order, from whichever executor the input's size chose."""
        rest = iter(batches)
        head = list(itertools.islice(rest, self.threshold))
        chosen: Executor = self.pool if len(head) >= self.threshold else self.inline
        yield from chosen.run(itertools.chain(head, rest))
