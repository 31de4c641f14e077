"""A worker process of a local build, started as :data:`COMMAND`.

The build's driver starts one per job and talks to it over its standard input and output in
frames: an 8-byte big-endian length and a pickle. The first frame is a :class:`WorkerSetup`;
each later frame is a batch of :class:`~gezel_knowledge.compiler.passes.passages.DocumentText`,
answered by a ``("ok", PassageBatch)`` or ``("error", exception)`` frame; end of input ends the
process. The worker's embedder is built (and its model verified) when the first batch arrives, so an
error loading it reaches the driver as that batch's answer.

A process of its own, not :mod:`multiprocessing`: a spawned multiprocessing child re-imports the
caller's ``__main__``, which runs a script's top level again unless the caller guarded it.
"""

from __future__ import annotations

import pickle
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from gezel_knowledge.compiler.passes.chunking import unit_counter
from gezel_knowledge.compiler.passes.passages import (
    DocumentText,
    EmbedderRecipe,
    KnownKeys,
    PassageWorker,
)
from gezk.profiles import ChunkingProfile

__all__ = ["COMMAND", "WorkerSetup", "main", "read_frame", "write_frame"]

COMMAND = (
    sys.executable,
    "-c",
    "from gezel_knowledge.compiler.passes.passage_process import main; raise SystemExit(main())",
)
"""The worker's command line (``-c`` rather than ``-m``, so the classes in its frames are this
module's own, not copies in ``__main__``)."""

_LENGTH = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class WorkerSetup:
    """What a worker in another process is built from (picklable)."""

    recipe: EmbedderRecipe
    chunking: ChunkingProfile
    embed_batch: int
    known: KnownKeys | None
    threads: int = 1

    def worker(self) -> PassageWorker:
        """The worker: its embedder loaded and verified, its tokenizer counting units."""
        embedder = self.recipe.build(threads=self.threads)
        return PassageWorker(
            embedder,
            self.chunking,
            unit_counter(self.chunking, embedder.tokenizer),
            embed_batch=self.embed_batch,
            known=self.known,
        )


def write_frame(stream: IO[bytes], value: object) -> None:
    """Write one frame and flush it."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """Read one frame; ``EOFError`` at a clean end of input."""
    head = stream.read(_LENGTH.size)
    if not head:
        raise EOFError
    if len(head) != _LENGTH.size:
        raise EOFError("truncated frame header")
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("truncated frame")
    # The frames come from the build's own driver, never from elsewhere.
    return pickle.loads(data)


def _answer(
    worker: PassageWorker | None, setup: WorkerSetup, batch: Sequence[DocumentText]
) -> tuple[PassageWorker | None, tuple[str, object]]:
    try:
        worker = worker or setup.worker()
        return worker, ("ok", worker(batch))
    except Exception as exc:  # every failure goes back to the driver, typed where it can be
        try:
            pickle.dumps(exc)
        except Exception:  # an exception that cannot cross processes: keep its message
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        return worker, ("error", exc)


def main() -> int:
    """Serve batches from standard input until it closes."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    # Anything the embedder libraries print must not corrupt the frames.
    sys.stdout = sys.stderr
    setup = read_frame(source)
    if not isinstance(setup, WorkerSetup):
        raise TypeError("the first frame must be a WorkerSetup")
    worker: PassageWorker | None = None
    while True:
        try:
            batch = read_frame(source)
        except EOFError:
            return 0
        worker, answer = _answer(worker, setup, batch)
        write_frame(sink, answer)
