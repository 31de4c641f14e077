"""The profile embedder: an ONNX sentence-embedding graph on onnxruntime's CPU provider.

Loading is lazy and verified: the tokenizer on first use of :attr:`OnnxEmbedder.tokenizer` or of
an embed call, the graph on the first embed call; each file's bytes are hashed and compared with
the profile's pin before they are used. Inputs get the profile's instruction prefixed verbatim,
are truncated to ``maxTokens`` (special tokens included) and run in bounded sub-batches of
similar length, so temporary memory stays flat and little work is spent on padding; vectors come
back in input order.

By default the graph runs on every core this process may use (its affinity mask and cgroup CPU
quota, at most ``GEZEL_KNOWLEDGE_THREADS``: :mod:`~gezel_knowledge.embedders.cores`), with
onnxruntime's intra-op threads told not to spin while they wait (see :data:`SPIN_WAIT_DEFAULT`).
A call that embeds one short text runs on its own one-thread session instead (see
:data:`SHORT_TEXT_TOKENS`); each session is created on first need. One short search query runs
on a one-thread session of its own whose weight dequantisation numpy has folded
(:mod:`~gezel_knowledge.embedders.folding`): the same weights, so the same vectors, for about
half the cost of creating the session; passages (what builds and indexes embed) never run on it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders.cores import default_threads
from gezel_knowledge.embedders.folding import fold_weight_casts
from gezel_knowledge.embedders.locate import ModelFiles
from gezel_knowledge.embedders.pooling import l2_normalize, pool
from gezel_knowledge.embedders.tokenizer import HuggingFaceTokenizer
from gezel_knowledge.embedders.verify import read_verified
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezk.profiles import EmbeddingProfile

if TYPE_CHECKING:
    import onnxruntime as ort

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_BATCH_TOKENS",
    "SHORT_TEXT_THREADS",
    "SHORT_TEXT_TOKENS",
    "SPIN_WAIT_DEFAULT",
    "OnnxEmbedder",
    "plan_batches",
]

DEFAULT_BATCH_SIZE = 32
"""At most this many texts per graph run."""

DEFAULT_MAX_BATCH_TOKENS = 512
"""At most this many padded tokens per graph run (bounds the attention matrices' memory)."""

SPIN_WAIT_DEFAULT = False
"""Whether intra-op threads spin between operators. Off: on shared, loaded cores a spinning
thread burns the CPU time the other thread needs, which halved throughput per CPU second with
two threads in ``benchmarks/embed.py`` (docs/performance.md), for a few percent at most when
the cores are idle."""

SHORT_TEXT_TOKENS = 64
"""A call embedding one text of at most this many tokens runs on :data:`SHORT_TEXT_THREADS`."""

SHORT_TEXT_THREADS = 1
"""Intra-op threads for one short text. Measured with the default model on two cores, one short
query cost 10-25% less CPU on one thread than on two, in the same wall time, and 2-5x less than
on more threads than cores (docs/performance.md): there is too little work to share."""

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_INT_TYPES: dict[str, type[np.integer[Any]]] = {
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
}
_PREFERRED_OUTPUTS = ("last_hidden_state", "token_embeddings")


def plan_batches(
    lengths: NDArray[np.int64], batch_size: int, max_batch_tokens: int
) -> list[NDArray[np.int64]]:
    """Group text indices by ascending length into runs bounded by count and padded tokens."""
    order = np.argsort(lengths, kind="stable")
    batches: list[NDArray[np.int64]] = []
    start = 0
    n = len(order)
    while start < n:
        end = start + 1
        # Sorted ascending, so the padded width of a run is the length of its last member.
        while (
            end < n
            and end - start < batch_size
            and (end - start + 1) * int(lengths[order[end]]) <= max_batch_tokens
        ):
            end += 1
        batches.append(order[start:end].astype(np.int64))
        start = end
    return batches


def _right_padded(
    rows: list[list[int]], lengths: NDArray[np.int64], pad_id: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(ids, mask)`` of a run: rows right-padded to the longest of them, mask 1 on tokens."""
    width = int(lengths.max())
    mask = (np.arange(width, dtype=np.int64)[None, :] < lengths[:, None]).astype(np.int64)
    ids = np.full(mask.shape, pad_id, dtype=np.int64)
    ids[mask.astype(bool)] = np.fromiter(
        (t for row in rows for t in row), dtype=np.int64, count=int(lengths.sum())
    )
    return ids, mask


class OnnxEmbedder:
    """Embeds texts with a profile's ONNX graph and ``tokenizer.json`` (verified, lazy)."""

    def __init__(
        self,
        profile: EmbeddingProfile,
        files: ModelFiles,
        *,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        spin_wait: bool = SPIN_WAIT_DEFAULT,
    ) -> None:
        if batch_size < 1 or max_batch_tokens < 1:
            raise InvalidInput(
                "batch_size and max_batch_tokens must be positive", reason="invalid-argument"
            )
        if threads is not None and threads < 1:
            raise InvalidInput(
                "threads must be positive (or None for every usable core)",
                reason="invalid-argument",
            )
        self._profile = profile
        self._files = files
        self._threads = threads if threads is not None else default_threads()
        self._spin_wait = spin_wait
        self._batch_size = batch_size
        self._max_batch_tokens = max_batch_tokens
        self._lock = threading.Lock()
        self._tokenizer: HuggingFaceTokenizer | None = None
        self._tokenizer_digest: str | None = None
        # One session per (intra-op threads, weights folded here): batches, one short passage,
        # one short query (at most three).
        self._sessions: dict[tuple[int, bool], ort.InferenceSession] = {}
        # The folded weights a session reads in place; they must live as long as it does.
        self._external: dict[tuple[int, bool], list[ort.OrtValue]] = {}
        self._graph_digest: str | None = None
        self._feeds: tuple[tuple[str, type[np.integer[Any]]], ...] = ()
        self._output = ""

    @property
    def profile(self) -> EmbeddingProfile:
        """The embedding profile whose vector space this embedder produces."""
        return self._profile

    @property
    def files(self) -> ModelFiles:
        """Where the graph and tokenizer come from."""
        return self._files

    @property
    def threads(self) -> int:
        """onnxruntime intra-op threads (by default every core this process may use)."""
        return self._threads

    @property
    def short_text_threads(self) -> int:
        """Intra-op threads for a call embedding one short text (see :data:`SHORT_TEXT_TOKENS`)."""
        return min(self._threads, SHORT_TEXT_THREADS)

    @property
    def tokenizer(self) -> HuggingFaceTokenizer:
        """The profile's tokenizer (loaded and verified on first access)."""
        tokenizer = self._tokenizer
        if tokenizer is None:
            with self._lock:
                tokenizer = self._load_tokenizer()
        return tokenizer

    @property
    def loaded(self) -> bool:
        """Whether the graph has been loaded."""
        return bool(self._sessions)

    @property
    def graph_digest(self) -> str:
        """The ``sha256:`` digest of the loaded graph (loads it if needed)."""
        self.load()
        assert self._graph_digest is not None
        return self._graph_digest

    @property
    def tokenizer_digest(self) -> str:
        """The ``sha256:`` digest of the loaded ``tokenizer.json`` (loads it if needed)."""
        _ = self.tokenizer
        assert self._tokenizer_digest is not None
        return self._tokenizer_digest

    @property
    def input_names(self) -> tuple[str, ...]:
        """The graph inputs this embedder feeds (loads the graph if needed)."""
        self.load()
        return tuple(name for name, _ in self._feeds)

    def load(self, *, queries: bool = False) -> None:
        """Load and verify the tokenizer and the graph now instead of on first use.

        The graph is loaded as the session one short passage runs on, or with ``queries=True``
        the session one short search query runs on; others are loaded on first use.
        """
        key = self._key(short=True, queries=queries)
        if key in self._sessions:
            return
        with self._lock:
            self._load_tokenizer()
            if key not in self._sessions:
                self._load_graph(key)

    def _key(self, *, short: bool, queries: bool) -> tuple[int, bool]:
        # Only a short query gets folded weights: passages keep the session builds always used.
        return (self.short_text_threads, queries) if short else (self._threads, False)

    def _session(self, key: tuple[int, bool]) -> ort.InferenceSession:
        session = self._sessions.get(key)
        if session is None:
            with self._lock:
                session = self._sessions.get(key) or self._load_graph(key)
        return session

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit vectors of ``queryInstruction + text`` for each text, in input order."""
        return self._embed(texts, self._profile.query_instruction, queries=True)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit vectors of ``passageInstruction + text`` for each text, in input order."""
        return self._embed(texts, self._profile.passage_instruction, queries=False)

    def _load_tokenizer(self) -> HuggingFaceTokenizer:
        if self._tokenizer is not None:
            return self._tokenizer
        data, digest = read_verified(
            self._files.tokenizer, self._profile.tokenizer.digest, profile_id=self._profile.id
        )
        tokenizer = HuggingFaceTokenizer(
            data.decode("utf-8", errors="replace"),
            max_tokens=self._profile.max_tokens,
            name=str(self._files.tokenizer),
        )
        self._tokenizer_digest = digest
        self._tokenizer = tokenizer
        return tokenizer

    def _load_graph(self, key: tuple[int, bool]) -> ort.InferenceSession:
        path = self._files.graph
        data, digest = read_verified(
            path, self._profile.model.onnx_digest, profile_id=self._profile.id
        )
        threads, fold = key
        folded = fold_weight_casts(data) if fold else None
        session: ort.InferenceSession | None = None
        if folded is not None:
            external = self._external.setdefault(key, [])
            try:
                session = self._create_session(folded.model, threads, folded.weights, external)
            except ModelUnavailable:  # a graph the folding misread: let onnxruntime fold it
                external.clear()
        if session is None:
            session = self._create_session(data, threads, {}, [])
        del data
        self._feeds = self._check_inputs(session, path)
        outputs = [o.name for o in session.get_outputs()]
        self._output = next((n for n in _PREFERRED_OUTPUTS if n in outputs), outputs[0])
        self._graph_digest = digest
        self._sessions[key] = session
        return session

    def _create_session(
        self,
        model: bytes,
        threads: int,
        weights: dict[str, NDArray[np.float32]],
        external: list[ort.OrtValue],
    ) -> ort.InferenceSession:
        # Imported here, not at module level: catalog commands and readers that never embed
        # import this module through the package face and should not pay for onnxruntime.
        import onnxruntime as ort  # noqa: PLC0415

        path = self._files.graph
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = threads
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "1" if self._spin_wait else "0"
        )
        options.log_severity_level = 3
        if weights:
            external.extend(ort.OrtValue.ortvalue_from_numpy(w) for w in weights.values())
            options.add_external_initializers(list(weights), external)
        try:
            # The verified bytes themselves are loaded, so the file cannot change in between.
            return ort.InferenceSession(
                model, sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped exceptions
            raise ModelUnavailable(
                f"onnxruntime cannot load {path}: {exc}",
                reason="unsupported-graph",
                subject=str(path),
            ) from exc

    @staticmethod
    def _check_inputs(
        session: ort.InferenceSession, path: Path
    ) -> tuple[tuple[str, type[np.integer[Any]]], ...]:
        feeds: list[tuple[str, type[np.integer[Any]]]] = []
        for arg in session.get_inputs():
            dtype = _INT_TYPES.get(arg.type)
            if arg.name not in _INPUTS or dtype is None:
                raise ModelUnavailable(
                    f"{path} declares input {arg.name!r} of type {arg.type}; only int32/int64 "
                    f"{', '.join(_INPUTS)} can be fed",
                    reason="unsupported-graph",
                    subject=str(path),
                )
            feeds.append((arg.name, dtype))
        if "input_ids" not in {name for name, _ in feeds}:
            raise ModelUnavailable(
                f"{path} declares no input_ids input", reason="unsupported-graph", subject=str(path)
            )
        return tuple(feeds)

    def _embed(
        self, texts: Sequence[str], instruction: str, *, queries: bool
    ) -> NDArray[np.float32]:
        if isinstance(texts, str):
            raise TypeError("embed a sequence of texts, not a single string")
        dims = self._profile.dimensions
        if not texts:
            return np.empty((0, dims), dtype=np.float32)
        tokenizer = self.tokenizer
        inputs = tokenizer.model_inputs([instruction + t for t in texts])
        short = len(texts) == 1 and int(inputs.lengths[0]) <= SHORT_TEXT_TOKENS
        session = self._session(self._key(short=short, queries=queries))
        out = np.empty((len(texts), dims), dtype=np.float32)
        for batch in plan_batches(inputs.lengths, self._batch_size, self._max_batch_tokens):
            ids, mask = _right_padded(
                [inputs.ids[i] for i in batch.tolist()], inputs.lengths[batch], tokenizer.pad_id
            )
            available = {
                "input_ids": ids,
                "attention_mask": mask,
                "token_type_ids": np.zeros_like(ids),
            }
            feed = {name: available[name].astype(dtype, copy=False) for name, dtype in self._feeds}
            try:
                (hidden,) = session.run([self._output], feed)
            except Exception as exc:  # onnxruntime's errors are untyped
                raise ModelUnavailable(
                    f"{self._files.graph} failed to run: {exc}",
                    reason="unsupported-graph",
                    subject=str(self._files.graph),
                ) from exc
            states = np.asarray(hidden)
            if states.ndim != 3 or states.shape[2] != dims:
                raise ModelUnavailable(
                    f"{self._files.graph} output {self._output!r} has shape {states.shape}; "
                    f"expected (batch, tokens, {dims}) token states for profile "
                    f"{self._profile.id!r}",
                    reason="unsupported-graph",
                    subject=str(self._files.graph),
                )
            out[batch] = pool(states, mask, self._profile.pooling)
        return l2_normalize(out) if self._profile.normalized else out
