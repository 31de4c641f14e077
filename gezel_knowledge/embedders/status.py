"""Which registered profiles can embed on this machine, from where, and why not."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gezel_knowledge.embedders.locate import find_model_files, missing_details, missing_message
from gezel_knowledge.embedders.packaged import installed_model_packages
from gezel_knowledge.embedders.verify import pin_problems
from gezk.profiles import EMBEDDING_PROFILES, TEST_HASH_EMBED_1, EmbeddingProfile, same_vector_space

__all__ = ["ModelStatus", "model_status", "models_report"]


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """Whether one profile's files are available, where from, and why not."""

    profile_id: str
    model: str
    available: bool
    source: str | None = None
    origin: str | None = None
    graph: str | None = None
    tokenizer: str | None = None
    verified: bool = False
    reason: str | None = None
    message: str | None = None
    details: str | None = None


def model_status(
    profile: EmbeddingProfile, *, verify: bool = False, model_dir: Path | str | None = None
) -> ModelStatus:
    """Where ``profile``'s files are; with ``verify``, also whether their digests match."""
    model = f"{profile.model.repo}/{profile.model.onnx_path}"
    if same_vector_space(profile, TEST_HASH_EMBED_1):
        return ModelStatus(profile.id, profile.model.repo, True, "builtin", "gezk.hashembed")
    files, notes = find_model_files(profile, model_dir)
    if files is None:
        return ModelStatus(
            profile.id,
            model,
            False,
            reason="model-missing",
            message=missing_message(profile, notes),
            details=missing_details(profile, model_dir),
        )
    status = ModelStatus(
        profile.id,
        model,
        True,
        files.source,
        files.origin,
        str(files.graph),
        str(files.tokenizer),
    )
    if not verify:
        return status
    problems = pin_problems(profile, files)
    if problems:
        return replace(
            status,
            available=False,
            verified=True,
            reason="digest-mismatch",
            message="; ".join(problems),
        )
    return replace(status, verified=True)


def models_report(*, verify: bool = False) -> tuple[list[ModelStatus], list[str]]:
    """Every registered profile's status, and problems of installed model packages."""
    statuses = [model_status(p, verify=verify) for _, p in sorted(EMBEDDING_PROFILES.items())]
    problems = [
        f"model package {p.name}: {p.problem}" for p in installed_model_packages() if p.problem
    ]
    return statuses, problems
