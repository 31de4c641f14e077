"""The unit of work of a build's read pass: a batch of documents in, passages and vectors out.

A :class:`PassageWorker` chunks each document (``markdown-chunks@2``), encodes its body, builds
every chunk's embed input (context header + text) and its cache key, and embeds the inputs that
are not already known (in the persistent vector cache) in calls of at most ``embed_batch``
texts. It returns a :class:`PassageBatch`: the chunked documents, every chunk's key, and the
vectors it computed. It holds no state between batches and never decides which vector a chunk
ends up with; the build's driver does that, in processing order
(:mod:`~gezel_knowledge.compiler.passes.embedding`). The same worker therefore runs in the calling
process, in a pool of local processes (:mod:`~gezel_knowledge.compiler.passes.executors`) or as a
Ray actor (:mod:`~gezel_knowledge.compiler.passes.ray_executor`), and all three give the same
archive.

A worker in another process needs its own embedder: :class:`EmbedderRecipe` says how to build
one with the same vector space (the hash embedder, or an ONNX embedder over files with the same
digests, found on the worker's machine when the driver's paths are not there). Nothing is
downloaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.compiler.passes.bodies import encode_body
from gezel_knowledge.compiler.passes.chunking import (
    Chunk,
    UnitCounter,
    chunk_markdown,
    embed_inputs,
)
from gezel_knowledge.compiler.passes.vector_cache import embed_input_key
from gezel_knowledge.embedders.base import Embedder, HashEmbedder
from gezel_knowledge.embedders.locate import ModelFiles, locate_model_files
from gezel_knowledge.embedders.onnx_embedder import OnnxEmbedder
from gezel_knowledge.embedders.verify import file_digest
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezk.profiles import ChunkingProfile, EmbeddingProfile

__all__ = [
    "ChunkedDocument",
    "DocumentText",
    "EmbedderRecipe",
    "KnownKeys",
    "PassageBatch",
    "PassageWorker",
    "unit_rows",
]

KnownKeys = Callable[[Sequence[bytes]], set[bytes]]
"""Which of these embed-input keys already have a vector (a worker need not embed them)."""


@dataclass(frozen=True, slots=True)
class DocumentText:
    """A document as a worker receives it: its place in processing order and its body."""

    seq: int
    id: str
    title: str
    body: str
    """The normalised body, links already rewritten."""


@dataclass(frozen=True, slots=True)
class ChunkedDocument:
    """A document's encoded body and passages."""

    seq: int
    body_codec: str
    body_blob: bytes
    chunks: tuple[Chunk, ...]


@dataclass(frozen=True, slots=True)
class PassageBatch:
    """What a worker made of a batch of documents."""

    documents: tuple[ChunkedDocument, ...]
    keys: tuple[bytes, ...]
    """The embed-input key of every chunk of the batch, documents and chunks in order."""
    embedded: NDArray[np.int64]
    """Positions in :attr:`keys` whose vectors the worker computed (first occurrences)."""
    vectors: NDArray[np.float32]
    """The unit vectors of :attr:`embedded`, row for row."""
    seconds: float
    """Time spent inside the embedder."""

    @property
    def chunks(self) -> int:
        """How many chunks the batch has."""
        return len(self.keys)


class PassageWorker:
    """Chunks and embeds batches of documents (see the module docstring)."""

    def __init__(
        self,
        embedder: Embedder,
        chunking: ChunkingProfile,
        counter: UnitCounter,
        *,
        embed_batch: int,
        known: KnownKeys | None = None,
    ) -> None:
        if embed_batch < 1:
            raise InvalidInput(
                f"embed batch {embed_batch} must be positive", reason="invalid-batch"
            )
        self.embedder = embedder
        self.chunking = chunking
        self.counter = counter
        self.embed_batch = embed_batch
        self.known = known

    def __call__(self, documents: Sequence[DocumentText]) -> PassageBatch:
        """Chunk, encode and embed ``documents``."""
        chunked: list[ChunkedDocument] = []
        inputs: list[str] = []
        for doc in documents:
            chunks = chunk_markdown(doc.id, doc.title, doc.body, self.chunking, self.counter)
            codec, blob = encode_body(doc.body.encode("utf-8"))
            chunked.append(ChunkedDocument(doc.seq, codec, blob, tuple(chunks)))
            inputs.extend(embed_inputs(doc.title, chunks, self.counter, self.chunking))
        instruction = self.embedder.profile.passage_instruction
        keys = tuple(embed_input_key(instruction + text) for text in inputs)
        skip = self.known(keys) if self.known is not None and keys else set()
        first: dict[bytes, int] = {}
        for position, key in enumerate(keys):
            if key not in skip:
                first.setdefault(key, position)
        positions = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        started = time.perf_counter()
        vectors = self._embed([inputs[p] for p in positions.tolist()])
        return PassageBatch(tuple(chunked), keys, positions, vectors, time.perf_counter() - started)

    def _embed(self, texts: list[str]) -> NDArray[np.float32]:
        dimensions = self.embedder.profile.dimensions
        blocks = [np.zeros((0, dimensions), dtype=np.float32)]
        for start in range(0, len(texts), self.embed_batch):
            part = texts[start : start + self.embed_batch]
            raw = self.embedder.embed_passages(part)
            blocks.append(unit_rows(raw, len(part), dimensions))
        return np.concatenate(blocks)


def unit_rows(raw: object, n: int, dimensions: int) -> NDArray[np.float32]:
    """The embedder's output as ``n`` unit float32 rows; refuse a wrong shape or value."""
    vectors = np.asarray(raw, dtype=np.float64)
    if vectors.shape != (n, dimensions):
        raise InvalidInput(
            f"the embedder returned vectors of shape {vectors.shape}, expected ({n}, {dimensions})",
            reason="embedder-shape",
        )
    if not np.isfinite(vectors).all():
        raise InvalidInput("the embedder returned non-finite values", reason="embedder-values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise InvalidInput("the embedder returned a zero vector", reason="embedder-values")
    out: NDArray[np.float32] = (vectors / norms).astype(np.float32)
    return out


@dataclass(frozen=True, slots=True)
class EmbedderRecipe:
    """How another process builds an embedder of the same vector space as the build's own.

    The hash embedder is rebuilt from its profile. An ONNX embedder is rebuilt over the same
    files when they exist at the same paths, else over the profile's files found on the
    worker's machine (``GEZEL_MODELS``, ``GEZEL_HOME``, model packages); either way their
    digests must be the driver's, and they are checked when the worker loads the model.
    """

    kind: Literal["hash", "onnx"]
    profile: EmbeddingProfile
    files: ModelFiles | None = None
    graph_digest: str | None = None
    tokenizer_digest: str | None = None

    @classmethod
    def of(cls, embedder: Embedder) -> EmbedderRecipe | None:
        """The recipe of ``embedder``, or ``None`` for an embedder only this process can run."""
        if type(embedder) is HashEmbedder:
            return cls("hash", embedder.profile)
        if type(embedder) is OnnxEmbedder:
            files = embedder.files
            profile = embedder.profile
            return cls(
                "onnx",
                profile,
                files,
                profile.model.onnx_digest or file_digest(files.graph),
                profile.tokenizer.digest or file_digest(files.tokenizer),
            )
        return None

    def build(self, threads: int = 1) -> Embedder:
        """The embedder, loaded and verified now (raises :class:`ModelUnavailable`)."""
        if self.kind == "hash":
            return HashEmbedder(self.profile)
        files = self.files
        if files is None or not (files.graph.is_file() and files.tokenizer.is_file()):
            files = locate_model_files(self.profile)
        for path, want in (
            (files.graph, self.graph_digest),
            (files.tokenizer, self.tokenizer_digest),
        ):
            got = file_digest(path)
            if want is not None and got != want:
                raise ModelUnavailable(
                    f"{path} is {got}, but the build embeds with {want} "
                    f"(embedding profile {self.profile.id!r}); a worker needs the same files",
                    reason="digest-mismatch",
                    subject=str(path),
                )
        embedder = OnnxEmbedder(self.profile, files, threads=threads)
        embedder.load()
        return embedder
