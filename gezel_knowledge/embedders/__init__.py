"""Profile embedders: turn text into unit vectors of a declared vector space.

Files are found without a hub (:mod:`~gezel_knowledge.embedders.locate`), verified against the
profile's SHA-256 pins, and run on onnxruntime (:class:`OnnxEmbedder`); one loaded embedder is
shared per vector space per process (:func:`shared_embedder`, :func:`resolve_query_embedder`).

Names are imported on first use: the reader needs only the :class:`Embedder` protocol, and
must not pay for locating model packages or loading the tokenizer library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.embedders.base import Embedder as Embedder
    from gezel_knowledge.embedders.base import HashEmbedder as HashEmbedder
    from gezel_knowledge.embedders.base import Tokenizer as Tokenizer
    from gezel_knowledge.embedders.locate import ModelFiles as ModelFiles
    from gezel_knowledge.embedders.locate import locate_model_files as locate_model_files
    from gezel_knowledge.embedders.onnx_embedder import OnnxEmbedder as OnnxEmbedder
    from gezel_knowledge.embedders.packaged import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
    from gezel_knowledge.embedders.packaged import ModelPackage as ModelPackage
    from gezel_knowledge.embedders.packaged import (
        installed_model_packages as installed_model_packages,
    )
    from gezel_knowledge.embedders.shared import DEFAULT_PROFILES as DEFAULT_PROFILES
    from gezel_knowledge.embedders.shared import EmbedderResolution as EmbedderResolution
    from gezel_knowledge.embedders.shared import SemanticOffReason as SemanticOffReason
    from gezel_knowledge.embedders.shared import clear_shared_embedders as clear_shared_embedders
    from gezel_knowledge.embedders.shared import default_embedder as default_embedder
    from gezel_knowledge.embedders.shared import load_embedder as load_embedder
    from gezel_knowledge.embedders.shared import resolve_query_embedder as resolve_query_embedder
    from gezel_knowledge.embedders.shared import shared_embedder as shared_embedder
    from gezel_knowledge.embedders.stamp import EmbedderStamp as EmbedderStamp
    from gezel_knowledge.embedders.stamp import embedder_stamp as embedder_stamp
    from gezel_knowledge.embedders.status import ModelStatus as ModelStatus
    from gezel_knowledge.embedders.status import model_status as model_status
    from gezel_knowledge.embedders.status import models_report as models_report
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.embedders.base": (
                "Embedder",
                "HashEmbedder",
                "Tokenizer",
            ),
            "gezel_knowledge.embedders.locate": (
                "ModelFiles",
                "locate_model_files",
            ),
            "gezel_knowledge.embedders.onnx_embedder": ("OnnxEmbedder",),
            "gezel_knowledge.embedders.packaged": (
                "ENTRY_POINT_GROUP",
                "ModelPackage",
                "installed_model_packages",
            ),
            "gezel_knowledge.embedders.shared": (
                "DEFAULT_PROFILES",
                "EmbedderResolution",
                "SemanticOffReason",
                "clear_shared_embedders",
                "default_embedder",
                "load_embedder",
                "resolve_query_embedder",
                "shared_embedder",
            ),
            "gezel_knowledge.embedders.stamp": (
                "EmbedderStamp",
                "embedder_stamp",
            ),
            "gezel_knowledge.embedders.status": (
                "ModelStatus",
                "model_status",
                "models_report",
            ),
        },
    )
