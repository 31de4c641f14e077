"""Reconcile what a catalog ships with what its manifest declares (spec sections 3.1-3.4).

Shared by archive inspection (names and sizes from the ZIP central directory) and by directory
validation (names and sizes from the file system), so both refuse the same things for the same
reasons.
"""

from __future__ import annotations

from collections.abc import Mapping

from gezel_knowledge.archive.assets import asset_path_problem
from gezel_knowledge.archive.findings import Finding
from gezel_knowledge.archive.limits import ArchiveLimits
from gezel_knowledge.archive.paths import (
    MANIFEST_PATH,
    MIMETYPE_PATH,
    ROUTER_PATH,
    entry_name_key,
    entry_name_problem,
)
from gezk.manifest import CatalogManifest

__all__ = ["layout_findings", "shard_path_for"]

_RESERVED = frozenset({MIMETYPE_PATH, MANIFEST_PATH})


def shard_path_for(shard_id: int) -> str:
    """The archive path of an external shard: ``index/shards/NNN.db``, zero-padded to three."""
    return f"index/shards/{shard_id:03d}.db"


def layout_findings(
    manifest: CatalogManifest, sizes: Mapping[str, int], limits: ArchiveLimits
) -> list[Finding]:
    """Every disagreement between the shipped entries (path -> size) and ``manifest.files``."""
    out: list[Finding] = []
    declared = _declared_files(manifest, out)
    _reconcile(declared, sizes, out)
    for path in _required_files(manifest, out):
        if path not in declared:
            out.append(Finding("missing-entry", "required file is not declared", path))
    _check_assets(manifest, declared, limits, out)
    return out


def _declared_files(manifest: CatalogManifest, out: list[Finding]) -> dict[str, int]:
    """``manifest.files`` as path -> size, leaving out (and reporting) unusable declarations."""
    declared: dict[str, int] = {}
    folded: set[str] = set()
    for f in manifest.files:
        problem = entry_name_problem(f.path)
        if problem:
            out.append(Finding("invalid-manifest", f"declared file: {problem}", f.path))
            continue
        if f.path in _RESERVED:
            out.append(
                Finding("invalid-manifest", "mimetype and manifest.json are never declared", f.path)
            )
            continue
        key = entry_name_key(f.path)
        if key in folded:
            out.append(Finding("invalid-manifest", "file declared more than once", f.path))
            continue
        folded.add(key)
        declared[f.path] = f.size_bytes
    for path in declared:
        parts = entry_name_key(path).split("/")
        if any("/".join(parts[:depth]) in folded for depth in range(1, len(parts))):
            out.append(Finding("invalid-manifest", "declared inside a declared file", path))
    return declared


def _reconcile(declared: Mapping[str, int], sizes: Mapping[str, int], out: list[Finding]) -> None:
    """Every shipped entry declared, every declared file shipped with its declared size."""
    for name in sorted(sizes):
        if name not in _RESERVED and name not in declared:
            out.append(Finding("undeclared-entry", "entry is not declared in manifest.files", name))
    for name, size in declared.items():
        if name not in sizes:
            out.append(Finding("missing-entry", "declared file is missing", name))
        elif sizes[name] != size:
            out.append(
                Finding(
                    "size-mismatch",
                    f"declared {size} bytes, the catalog holds {sizes[name]}",
                    name,
                )
            )


def _required_files(manifest: CatalogManifest, out: list[Finding]) -> list[str]:
    """The files every catalog must declare (README, licence notice, router, external shards);
    shard paths that break the layout are reported."""
    required = ["README.md", manifest.license.notice_path, ROUTER_PATH]
    for shard in manifest.router.shards:
        if shard.path == ROUTER_PATH:
            if len(manifest.router.shards) != 1:
                out.append(
                    Finding(
                        "invalid-manifest",
                        "only the single shard of a catalog may be embedded in the router",
                        f"shard {shard.id}",
                    )
                )
        elif shard.path != shard_path_for(shard.id):
            out.append(
                Finding(
                    "invalid-manifest",
                    f"shard {shard.id} path must be {shard_path_for(shard.id)} or {ROUTER_PATH}",
                    shard.path,
                )
            )
        else:
            required.append(shard.path)
    return required


def _check_assets(
    manifest: CatalogManifest,
    declared: Mapping[str, int],
    limits: ArchiveLimits,
    out: list[Finding],
) -> None:
    """Declared assets: allowed from 0.6 on, valid paths, within the limits, counted."""
    assets = {p: s for p, s in declared.items() if p.startswith("assets/")}
    if assets and manifest.format_version == "0.5":
        out.append(
            Finding("assets-not-allowed", "0.5 catalogs cannot ship assets/", sorted(assets)[0])
        )
        return
    for path, size in sorted(assets.items()):
        path_problem = asset_path_problem(path)
        if path_problem is not None:
            out.append(Finding(path_problem.reason, path_problem.message, path))
        if size > limits.max_asset_bytes:
            out.append(
                Finding("asset-too-large", f"{size} bytes exceeds the per-asset limit", path)
            )
    if len(assets) > limits.max_asset_count:
        out.append(Finding("too-many-assets", f"{len(assets)} assets exceed the limit"))
    total = sum(assets.values())
    if total > limits.max_assets_total_bytes:
        out.append(Finding("assets-too-large", f"{total} asset bytes exceed the limit"))
    declared_assets = manifest.counts.assets or 0  # absent means none, as in 0.5
    if declared_assets != len(assets):
        out.append(
            Finding(
                "asset-count-mismatch",
                f"counts.assets is {declared_assets}, {len(assets)} assets are declared",
            )
        )
