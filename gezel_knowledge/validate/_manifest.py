"""Manifest checks: the JSON Schema of its generation and the spec rules beside it (section 4)."""

from __future__ import annotations

from gezel_knowledge.validate._context import Context
from gezk.schemas import manifest_errors

__all__ = ["check_manifest"]


def check_manifest(ctx: Context) -> None:
    """Schema findings, the requirements' version pairing, and count reconciliation."""
    m = ctx.manifest
    for problem in manifest_errors(dict(m.raw)):
        ctx.add("manifest-schema", problem.message, problem.path)
    # Requirements this reader cannot meet never get here: every manifest parse refuses them
    # (Requirements.check) with the reason a validation reports, unsupported-format or
    # unsupported-feature.
    if m.requires.format_version != m.format_version:
        ctx.add(
            "invalid-manifest",
            f"requires.formatVersion {m.requires.format_version} differs from formatVersion "
            f"{m.format_version}",
            "$.requires.formatVersion",
        )
    if m.counts.shards != len(m.router.shards):
        ctx.add(
            "count-mismatch",
            f"counts.shards is {m.counts.shards}, router.shards lists {len(m.router.shards)}",
            "$.counts.shards",
        )
    chunks = sum(s.chunks for s in m.router.shards)
    if m.counts.chunks != chunks:
        ctx.add(
            "count-mismatch",
            f"counts.chunks is {m.counts.chunks}, the shards hold {chunks}",
            "$.counts.chunks",
        )
    centroids = sum(s.centroids for s in m.router.shards)
    if m.router.total_centroids != centroids:
        ctx.add(
            "count-mismatch",
            f"router.totalCentroids is {m.router.total_centroids}, the shards declare {centroids}",
            "$.router.totalCentroids",
        )
    ids = [s.id for s in m.router.shards]
    if len(set(ids)) != len(ids):
        ctx.add("invalid-manifest", "router.shards repeats a shard id", "$.router.shards")
    if m.generation.format_version == "0.7" and m.spatial is None:
        ctx.add("missing-spatial", "a 0.7 manifest must carry spatial", "$.spatial")
