"""Choosing and sharing embedders: one loaded model per vector space per process.

- :func:`load_embedder` gives a caller its own embedder for a profile (the compiler, benchmarks).
- :func:`shared_embedder` gives the process-wide embedder of a profile's vector space: every
  catalog and index of that space uses the same loaded model.
- :func:`resolve_query_embedder` is what a reader calls with a catalog's profile: it returns an
  embedder, or says why semantic search is off, and never raises, so keyword search keeps
  working. It never substitutes a vector of another space.
- :func:`default_embedder` is the embedder for new mutable indexes: ``bge-small-en-v1.5@1`` when
  its files are provided, else the packaged ``all-minilm-l6-v2-int8@1``.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from gezel_knowledge.embedders.base import Embedder, HashEmbedder
from gezel_knowledge.embedders.locate import (
    find_model_files,
    locate_model_files,
    missing_details,
    model_fix,
)
from gezel_knowledge.embedders.onnx_embedder import OnnxEmbedder
from gezel_knowledge.embedders.verify import file_digest, pin_problems
from gezel_knowledge.errors import ModelUnavailable
from gezk.profiles import (
    ALL_MINILM_L6_V2_INT8_1,
    BGE_SMALL_EN_V15_1,
    EMBEDDING_PROFILES,
    TEST_HASH_EMBED_1,
    EmbeddingProfile,
    ModelRef,
    TokenizerRef,
    embedding_profile,
    same_vector_space,
    vector_space_key,
)

__all__ = [
    "DEFAULT_PROFILES",
    "EmbedderResolution",
    "SemanticOffReason",
    "clear_shared_embedders",
    "default_embedder",
    "load_embedder",
    "registered_space",
    "resolve_query_embedder",
    "shared_embedder",
]

_log = logging.getLogger("gezel_knowledge.embedders")

DEFAULT_PROFILES: tuple[EmbeddingProfile, ...] = (BGE_SMALL_EN_V15_1, ALL_MINILM_L6_V2_INT8_1)
"""What :func:`default_embedder` tries, in order."""

SemanticOffReason = Literal[
    "unknown-profile",
    "profile-mismatch",
    "model-missing",
    "unreadable",
    "digest-mismatch",
    "unsupported-graph",
    "invalid-tokenizer",
]


_REASONS: dict[str, SemanticOffReason] = {
    "model-missing": "model-missing",
    "unreadable": "unreadable",
    "digest-mismatch": "digest-mismatch",
    "invalid-tokenizer": "invalid-tokenizer",
    "unsupported-graph": "unsupported-graph",
}


@dataclass(frozen=True, slots=True)
class EmbedderResolution:
    """A query embedder for a profile, or the reason semantic search is off."""

    profile: EmbeddingProfile
    embedder: Embedder | None
    reason: SemanticOffReason | None = None
    message: str | None = None
    details: str | None = None
    """The files, digests and places looked in behind :attr:`message`, when there are any."""

    @property
    def available(self) -> bool:
        """Whether semantic search can run in this profile's space."""
        return self.embedder is not None


def _is_hash_space(profile: EmbeddingProfile) -> bool:
    return same_vector_space(profile, TEST_HASH_EMBED_1)


def load_embedder(
    profile: EmbeddingProfile | str,
    *,
    model_dir: Path | str | None = None,
    threads: int | None = None,
    batch_size: int | None = None,
    max_batch_tokens: int | None = None,
) -> Embedder:
    """A new embedder for ``profile`` (a profile or a registered profile id such as
    ``"all-minilm-l6-v2-int8@1"``): files located now, loaded and verified on first use.

    Raises :class:`ModelUnavailable` (``model-missing``) when the files are nowhere to be found;
    a digest mismatch surfaces on first use as ``digest-mismatch``; an unknown id is
    ``unknown-profile``.
    """
    if isinstance(profile, str):
        profile = embedding_profile(profile)
    if _is_hash_space(profile):
        return HashEmbedder(profile)
    files = locate_model_files(profile, model_dir)
    options: dict[str, Any] = {"threads": threads}
    if batch_size is not None:
        options["batch_size"] = batch_size
    if max_batch_tokens is not None:
        options["max_batch_tokens"] = max_batch_tokens
    return OnnxEmbedder(profile, files, **options)


def registered_space(profile: EmbeddingProfile) -> EmbeddingProfile | None:
    """The registered profile describing the same vector space as ``profile``, if any."""
    same_id = EMBEDDING_PROFILES.get(profile.id)
    if same_id is not None and same_vector_space(same_id, profile):
        return same_id
    for candidate in EMBEDDING_PROFILES.values():
        if same_vector_space(candidate, profile):
            return candidate
    return None


def _with_registered_pins(
    profile: EmbeddingProfile, registered: EmbeddingProfile
) -> EmbeddingProfile:
    # A catalog that declares no digest makes no claim; the model it is served with is still the
    # registered one, so hold the files to the registered pins.
    model: ModelRef = profile.model
    tokenizer: TokenizerRef = profile.tokenizer
    if model.onnx_digest is None and registered.model.onnx_digest is not None:
        model = replace(model, onnx_digest=registered.model.onnx_digest)
    if tokenizer.digest is None and registered.tokenizer.digest is not None:
        tokenizer = replace(tokenizer, digest=registered.tokenizer.digest)
    if model is profile.model and tokenizer is profile.tokenizer:
        return profile
    return replace(profile, model=model, tokenizer=tokenizer)


_SHARED: dict[tuple[Any, ...], Embedder] = {}
_SHARED_LOCK = threading.Lock()


def _space_key(profile: EmbeddingProfile, model_dir: Path | str | None) -> tuple[Any, ...]:
    graph_pin = profile.model.onnx_digest
    tokenizer_pin = profile.tokenizer.digest
    if not _is_hash_space(profile) and (graph_pin is None or tokenizer_pin is None):
        # Unpinned: the space is whatever bytes are found, so key on their actual digests.
        files = locate_model_files(profile, model_dir)
        graph_pin = graph_pin or file_digest(files.graph)
        tokenizer_pin = tokenizer_pin or file_digest(files.tokenizer)
    return (vector_space_key(profile), graph_pin, tokenizer_pin)


def shared_embedder(profile: EmbeddingProfile, *, model_dir: Path | str | None = None) -> Embedder:
    """The process-wide embedder of ``profile``'s vector space (created on first request).

    Its :attr:`~Embedder.profile` is the first profile of that space that asked; catalogs take
    stage-1 parameters such as the ``centered-sign`` center from their own profile. Raises
    :class:`ModelUnavailable` when the files are missing.
    """
    with _SHARED_LOCK:
        key = _space_key(profile, model_dir)
        embedder = _SHARED.get(key)
        if embedder is None:
            embedder = load_embedder(profile, model_dir=model_dir)
            _SHARED[key] = embedder
        return embedder


def clear_shared_embedders() -> None:
    """Forget every shared embedder (tests, or after model files were replaced)."""
    with _SHARED_LOCK:
        _SHARED.clear()


def resolve_query_embedder(
    profile: EmbeddingProfile, *, model_dir: Path | str | None = None
) -> EmbedderResolution:
    """A loaded, verified query embedder for a catalog's profile, or why there is none."""
    registered = registered_space(profile)
    if registered is None:
        known = EMBEDDING_PROFILES.get(profile.id)
        if known is not None:
            return EmbedderResolution(
                profile,
                None,
                "profile-mismatch",
                f"embedding profile {profile.id!r} declares a different vector space from the "
                "registered profile of that id; semantic search is off",
            )
        return EmbedderResolution(
            profile,
            None,
            "unknown-profile",
            f"embedding profile {profile.id!r} is not a registered vector space; semantic search "
            "is off",
        )
    effective = _with_registered_pins(profile, registered)
    embedder: Embedder | None = None
    try:
        embedder = shared_embedder(effective, model_dir=model_dir)
        if isinstance(embedder, OnnxEmbedder):
            embedder.load(queries=True)
    except ModelUnavailable as exc:
        if embedder is not None:
            # Do not let one bad set of files (say, a tampered explicit directory) poison the
            # space for callers whose files are fine.
            _evict(embedder)
        reason = _REASONS.get(exc.reason, "unsupported-graph")
        return EmbedderResolution(profile, None, reason, exc.message, exc.details)
    return EmbedderResolution(profile, embedder)


def _evict(embedder: Embedder) -> None:
    with _SHARED_LOCK:
        for key in [k for k, v in _SHARED.items() if v is embedder]:
            del _SHARED[key]


def default_embedder() -> Embedder:
    """The shared embedder for new indexes: bge-small when provided, else the packaged default.

    Files whose digests do not match their pins are passed over (with a logged warning) for the
    next profile; the model itself still loads lazily, on first use. When none is usable the
    error names the packaged default model and how to install it; its ``details`` list every
    profile's files, digests and places looked in.
    """
    details: list[str] = []
    mismatches: list[str] = []
    for profile in DEFAULT_PROFILES:
        if _is_hash_space(profile):
            return shared_embedder(profile)
        files, notes = find_model_files(profile)
        if files is None:
            details.append("; ".join([missing_details(profile), *notes]))
            continue
        problems = pin_problems(profile, files)
        if problems:
            message = f"embedding profile {profile.id!r} files do not match: " + "; ".join(problems)
            _log.warning("%s; trying the next default", message)
            mismatches.append(profile.id)
            details.append(message)
            continue
        return shared_embedder(profile)
    default = ALL_MINILM_L6_V2_INT8_1
    found = (
        f"the files found for {' and '.join(mismatches)} do not match their pinned digests "
        "('gezel-knowledge models --verify' shows which)"
        if mismatches
        else "no embedding model is on this machine"
    )
    raise ModelUnavailable(
        f"{model_fix(default)} to embed with the default model {default.id}: {found}",
        reason="digest-mismatch" if mismatches else "model-missing",
        subject=default.id,
        details=" | ".join(details),
    )
