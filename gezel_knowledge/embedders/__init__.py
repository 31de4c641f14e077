"""Profile embedders: turn text into unit vectors of a declared vector space.

Files are found without a hub (:mod:`~gezel_knowledge.embedders.locate`), verified against the
profile's SHA-256 pins, and run on onnxruntime (:class:`OnnxEmbedder`); one loaded embedder is
shared per vector space per process (:func:`shared_embedder`, :func:`resolve_query_embedder`).
"""

from gezel_knowledge.embedders.base import Embedder, HashEmbedder, Tokenizer, WhitespaceTokenizer
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
