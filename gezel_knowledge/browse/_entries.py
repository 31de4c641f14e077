"""A catalog's declared files as a page reads them: archive entries only, checked again.

A catalog folder opened by path is whatever is on the disk now, and its manifest is the
publisher's word. So a file the browser shows (README, licence, notices, an image) is read only
when the manifest declares it under a safe archive name, it resolves (symbolic links followed)
to a regular file inside the catalog's folder, and its bytes have the size and SHA-256 the
manifest gives. Anything else reads as absent: a ``noticePath`` of ``../../etc/passwd`` or a
README that links to a file elsewhere shows nothing.
"""

from __future__ import annotations

import hashlib

from gezel_knowledge.archive.paths import entry_name_problem
from gezel_knowledge.reader import Catalog

__all__ = ["declared_bytes"]


def declared_bytes(catalog: Catalog, path: str, max_bytes: int) -> bytes | None:
    """The bytes of the declared archive entry ``path`` (at most ``max_bytes``), or ``None`` when
    it is not declared, not an entry of the catalog's folder, too large, or not what the manifest
    says it is."""
    declared = catalog.manifest.file(path)
    if declared is None or declared.size_bytes > max_bytes or entry_name_problem(path):
        return None
    try:
        root = catalog.root.resolve(strict=True)
        target = catalog.root.joinpath(*path.split("/")).resolve(strict=True)
        if not target.is_relative_to(root) or not target.is_file():
            return None
        with target.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) != declared.size_bytes:
        return None
    if hashlib.sha256(data).hexdigest() != declared.sha256.lower():
        return None
    return data
