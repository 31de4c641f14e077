"""Profile embedders: turn text into unit vectors of a declared vector space.

Files are found without a hub (:mod:`~gezel_knowledge.embedders.locate`), verified against the
profile's SHA-256 pins, and run on onnxruntime (:class:`OnnxEmbedder`); one loaded embedder is
shared per vector space per process (:func:`shared_embedder`, :func:`resolve_query_embedder`).

Names are imported on first use: the reader needs only the :class:`Embedder` protocol, and
must not pay for locating model packages or loading the tokenizer library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_exports

if TYPE_CHECKING:
    from gezel_knowledge.embedders.base import (
        Embedder,
        HashEmbedder,
        Tokenizer,
        WhitespaceTokenizer,
    )
    from gezel_knowledge.embedders.locate import (
        ENV_HOME,
        ENV_MODELS,
        ModelFile,
        ModelFiles,
        find_model_files,
        gezel_home,
        locate_model_files,
        required_files,
    )
    from gezel_knowledge.embedders.onnx_embedder import OnnxEmbedder
    from gezel_knowledge.embedders.packaged import (
        DEFAULT_MODEL_EXTRA,
        ENTRY_POINT_GROUP,
        ModelPackage,
        installed_model_packages,
    )
    from gezel_knowledge.embedders.pooling import l2_normalize, pool
    from gezel_knowledge.embedders.shared import (
        DEFAULT_PROFILES,
        EmbedderResolution,
        SemanticOffReason,
        clear_shared_embedders,
        default_embedder,
        load_embedder,
        registered_space,
        resolve_query_embedder,
        shared_embedder,
    )
    from gezel_knowledge.embedders.stamp import EmbedderStamp, embedder_stamp
    from gezel_knowledge.embedders.status import ModelStatus, model_status, models_report
    from gezel_knowledge.embedders.tokenizer import HuggingFaceTokenizer

_LAZY: dict[str, str] = {
    "DEFAULT_MODEL_EXTRA": "gezel_knowledge.embedders.packaged",
    "DEFAULT_PROFILES": "gezel_knowledge.embedders.shared",
    "ENTRY_POINT_GROUP": "gezel_knowledge.embedders.packaged",
    "ENV_HOME": "gezel_knowledge.embedders.locate",
    "ENV_MODELS": "gezel_knowledge.embedders.locate",
    "Embedder": "gezel_knowledge.embedders.base",
    "EmbedderResolution": "gezel_knowledge.embedders.shared",
    "EmbedderStamp": "gezel_knowledge.embedders.stamp",
    "HashEmbedder": "gezel_knowledge.embedders.base",
    "HuggingFaceTokenizer": "gezel_knowledge.embedders.tokenizer",
    "ModelFile": "gezel_knowledge.embedders.locate",
    "ModelFiles": "gezel_knowledge.embedders.locate",
    "ModelPackage": "gezel_knowledge.embedders.packaged",
    "ModelStatus": "gezel_knowledge.embedders.status",
    "OnnxEmbedder": "gezel_knowledge.embedders.onnx_embedder",
    "SemanticOffReason": "gezel_knowledge.embedders.shared",
    "Tokenizer": "gezel_knowledge.embedders.base",
    "WhitespaceTokenizer": "gezel_knowledge.embedders.base",
    "clear_shared_embedders": "gezel_knowledge.embedders.shared",
    "default_embedder": "gezel_knowledge.embedders.shared",
    "embedder_stamp": "gezel_knowledge.embedders.stamp",
    "find_model_files": "gezel_knowledge.embedders.locate",
    "gezel_home": "gezel_knowledge.embedders.locate",
    "installed_model_packages": "gezel_knowledge.embedders.packaged",
    "l2_normalize": "gezel_knowledge.embedders.pooling",
    "load_embedder": "gezel_knowledge.embedders.shared",
    "locate_model_files": "gezel_knowledge.embedders.locate",
    "model_status": "gezel_knowledge.embedders.status",
    "models_report": "gezel_knowledge.embedders.status",
    "pool": "gezel_knowledge.embedders.pooling",
    "registered_space": "gezel_knowledge.embedders.shared",
    "required_files": "gezel_knowledge.embedders.locate",
    "resolve_query_embedder": "gezel_knowledge.embedders.shared",
    "shared_embedder": "gezel_knowledge.embedders.shared",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())

__all__ = [
    "DEFAULT_MODEL_EXTRA",
    "DEFAULT_PROFILES",
    "ENTRY_POINT_GROUP",
    "ENV_HOME",
    "ENV_MODELS",
    "Embedder",
    "EmbedderResolution",
    "EmbedderStamp",
    "HashEmbedder",
    "HuggingFaceTokenizer",
    "ModelFile",
    "ModelFiles",
    "ModelPackage",
    "ModelStatus",
    "OnnxEmbedder",
    "SemanticOffReason",
    "Tokenizer",
    "WhitespaceTokenizer",
    "clear_shared_embedders",
    "default_embedder",
    "embedder_stamp",
    "find_model_files",
    "gezel_home",
    "installed_model_packages",
    "l2_normalize",
    "load_embedder",
    "locate_model_files",
    "model_status",
    "models_report",
    "pool",
    "registered_space",
    "required_files",
    "resolve_query_embedder",
    "shared_embedder",
]
