"""Remembered archive digests: re-hash a ``.gezk`` opened by path only when the file changed.

Hashing a multi-gigabyte archive takes seconds; an unchanged file need not be hashed again. A
digest is remembered with the file's identity as the operating system reports it: device,
inode, size, modification time and status-change time, in nanoseconds. Any difference means
the file is hashed again. The status-change time (``ctime``) is included because a user can set
a file's modification time back (``touch -d``, ``os.utime``) but not its ``ctime``, which the
kernel sets on every write, so rewriting an archive in place with its old size and mtime is
still noticed.

Records are small JSON files, one per path, written atomically; a damaged record is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from gezel_knowledge._atomic import write_atomic
from gezk import untrusted_json
from gezk.ids import is_sha256_hex

__all__ = ["FileIdentity", "forget_stale_digests", "remember_digest", "remembered_digest"]

_KIND = "gezel-knowledge-digest"


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """What must be unchanged for a remembered digest to still describe a file's bytes."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        """The identity in ``status`` (from :func:`os.stat` or :func:`os.fstat`)."""
        return cls(
            status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns
        )


def _record_path(memo_dir: Path, path: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return memo_dir / f"{key[:32]}.json"


def remembered_digest(memo_dir: Path, path: Path, identity: FileIdentity) -> str | None:
    """The digest remembered for ``path`` when the file still has this identity."""
    try:
        obj = untrusted_json.loads(_record_path(memo_dir, path).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict) or obj.get("kind") != _KIND:
        return None
    digest = obj.get("sha256")
    recorded = obj.get("identity")
    if not isinstance(digest, str) or not is_sha256_hex(digest) or recorded != asdict(identity):
        return None
    if obj.get("path") != str(path.resolve()):
        return None
    return digest


def remember_digest(memo_dir: Path, path: Path, identity: FileIdentity, sha256: str) -> None:
    """Record that the file at ``path`` with this identity has digest ``sha256``."""
    record = {
        "kind": _KIND,
        "path": str(path.resolve()),
        "identity": asdict(identity),
        "sha256": sha256,
    }
    write_atomic(_record_path(memo_dir, path), json.dumps(record).encode("utf-8"))


def forget_stale_digests(memo_dir: Path) -> int:
    """Remove records whose file is gone or changed; return how many were removed."""
    removed = 0
    for record in sorted(memo_dir.glob("*.json")) if memo_dir.is_dir() else []:
        try:
            obj = untrusted_json.loads(record.read_bytes())
            path = Path(obj["path"])
            current = FileIdentity.of(os.stat(path))
            stale = obj.get("identity") != asdict(current)
        except (OSError, ValueError, KeyError, TypeError):
            stale = True
        if stale:
            record.unlink(missing_ok=True)
            removed += 1
    return removed
