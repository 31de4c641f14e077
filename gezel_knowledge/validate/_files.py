"""File checks of an extracted catalog: layout, sizes, digests and asset contents (3.1-3.4)."""

from __future__ import annotations

import hashlib
import os
import stat

from gezel_knowledge.archive.assets import asset_problem
from gezel_knowledge.archive.layout import layout_findings
from gezel_knowledge.validate._context import Context

__all__ = ["check_files"]

_BLOCK = 1024 * 1024


def _walk(ctx: Context) -> dict[str, int]:
    """Relative path -> size of every regular file under the root; oddities become findings."""
    sizes: dict[str, int] = {}
    root = ctx.root
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                ctx.add("symlink-entry", "symbolic links are not allowed in a catalog", rel)
            elif stat.S_ISREG(info.st_mode):
                sizes[rel] = info.st_size
            elif not stat.S_ISDIR(info.st_mode):
                ctx.add("special-entry", "only regular files are allowed", rel)
    return sizes


def check_files(ctx: Context) -> None:
    """Every shipped file declared, every declared file present, with its size and SHA-256."""
    m = ctx.manifest
    sizes = _walk(ctx)
    for finding in layout_findings(m, sizes, ctx.limits):
        ctx.add(finding.reason, finding.message, finding.subject, finding.severity)
    for declared in m.files if ctx.check_digests else ():
        if sizes.get(declared.path) != declared.size_bytes:
            continue  # missing or wrong size: already reported
        path = ctx.root.joinpath(*declared.path.split("/"))
        h = hashlib.sha256()
        is_asset = declared.path.startswith("assets/")
        kept = bytearray()
        with open(path, "rb") as fh:
            while block := fh.read(_BLOCK):
                h.update(block)
                if is_asset and len(kept) <= ctx.limits.max_asset_bytes:
                    kept += block
        if h.hexdigest() != declared.sha256:
            ctx.add("digest-mismatch", "SHA-256 differs from manifest.files", declared.path)
            continue
        if is_asset:
            problem = asset_problem(declared.path, bytes(kept))
            if problem is not None:
                ctx.add(problem.reason, problem.message, declared.path)
    # A shard's file was hashed above; its router.shards digest must repeat the files entry.
    for shard in m.router.shards:
        declared_file = m.file(shard.path)
        if declared_file is not None and declared_file.sha256 != shard.sha256:
            ctx.add(
                "invalid-manifest",
                f"router.shards[{shard.id}].sha256 differs from the files entry",
                shard.path,
            )
