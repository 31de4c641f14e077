"""The embedder stamp of a mutable index: what its stored vectors depend on.

A mutable index records the stamp of the embedder that filled it; when the daemon's embedder
changes, the stamps differ and the index regenerates its embeddings. The stamp leaves out the
profile id (a label) and the stage-1 binary parameters (catalog-only), so two profiles of one
float space stamp alike; it includes ``maxTokens``, since passage truncation changes vectors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.embedders.onnx_embedder import OnnxEmbedder
from gezel_knowledge.errors import InvalidInput

__all__ = ["EmbedderStamp", "embedder_stamp"]


@dataclass(frozen=True, slots=True)
class EmbedderStamp:
    """Model, tokenizer, pooling, normalisation, dimensions, instructions and graph digest."""

    model_repo: str
    model_revision: str
    onnx_file: str
    graph_digest: str | None
    tokenizer_kind: str
    tokenizer_file: str
    tokenizer_digest: str | None
    pooling: str
    normalized: bool
    dimensions: int
    max_tokens: int
    query_instruction: str
    passage_instruction: str

    def to_json(self) -> dict[str, Any]:
        """The stamp as a JSON object (snake_case keys)."""
        return asdict(self)

    def __str__(self) -> str:
        """The stable form: compact JSON with sorted keys."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> EmbedderStamp:
        """Parse :meth:`to_json` output; :class:`InvalidInput` when malformed."""
        expected = set(_FIELD_TYPES)
        if set(obj) != expected:
            raise InvalidInput(
                f"malformed embedder stamp: keys {sorted(obj)} are not {sorted(expected)}",
                reason="invalid-stamp",
            )
        for name, kinds in _FIELD_TYPES.items():
            value = obj[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise InvalidInput(
                    f"malformed embedder stamp: {name} is {value!r}", reason="invalid-stamp"
                )
        return cls(**dict(obj))

    @classmethod
    def parse(cls, text: str) -> EmbedderStamp:
        """Parse the :meth:`__str__` form."""
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise InvalidInput(f"malformed embedder stamp: {exc}", reason="invalid-stamp") from exc
        if not isinstance(obj, dict):
            raise InvalidInput("malformed embedder stamp: not an object", reason="invalid-stamp")
        return cls.from_json(obj)


_OPT_STR = (str, type(None))
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "model_repo": (str,),
    "model_revision": (str,),
    "onnx_file": (str,),
    "graph_digest": _OPT_STR,
    "tokenizer_kind": (str,),
    "tokenizer_file": (str,),
    "tokenizer_digest": _OPT_STR,
    "pooling": (str,),
    "normalized": (bool,),
    "dimensions": (int,),
    "max_tokens": (int,),
    "query_instruction": (str,),
    "passage_instruction": (str,),
}


def embedder_stamp(embedder: Embedder) -> EmbedderStamp:
    """The stamp of ``embedder``; an ONNX embedder contributes the digests of its loaded files."""
    profile = embedder.profile
    graph_digest = profile.model.onnx_digest
    tokenizer_digest = profile.tokenizer.digest
    if isinstance(embedder, OnnxEmbedder):
        # Pinned digests equal the loaded ones (a mismatch is refused), so only an unpinned
        # profile needs the files hashed here.
        if graph_digest is None:
            graph_digest = embedder.graph_digest
        if tokenizer_digest is None:
            tokenizer_digest = embedder.tokenizer_digest
    return EmbedderStamp(
        model_repo=profile.model.repo,
        model_revision=profile.model.revision,
        onnx_file=profile.model.onnx_path,
        graph_digest=graph_digest,
        tokenizer_kind=profile.tokenizer.kind,
        tokenizer_file=profile.tokenizer.path,
        tokenizer_digest=tokenizer_digest,
        pooling=profile.pooling,
        normalized=profile.normalized,
        dimensions=profile.dimensions,
        max_tokens=profile.max_tokens,
        query_instruction=profile.query_instruction,
        passage_instruction=profile.passage_instruction,
    )
