"""Where an install's bytes come from: a file, an ``http(s)`` URL, or a registry coordinate.

:func:`resolve_source` decides which, and which digest was promised: a coordinate
(``publisher/catalog[@version]``) is looked up in registry documents, which name the URL, the
archive's SHA-256 and size, and say whether a trusted key signed them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gezel_knowledge.errors import IntegrityFailure, InvalidInput, NotFound
from gezel_knowledge.install.download import is_url
from gezel_knowledge.install.registry_document import (
    CatalogCoordinate,
    RegistryDocument,
    RegistryRelease,
    locate_release,
)
from gezk.ids import is_sha256_hex
from gezk.signing import TrustAnchors

__all__ = ["InstallSource", "check_release", "normalize_sha256", "resolve_source"]


def normalize_sha256(value: str | None) -> str | None:
    """Accept ``HEX`` or ``sha256:HEX`` in any case; return lowercase hex or raise."""
    if value is None:
        return None
    text = value.strip().lower().removeprefix("sha256:")
    if not is_sha256_hex(text):
        raise InvalidInput(
            f"not a SHA-256 digest (64 hex digits): {value!r}",
            reason="invalid-digest",
            subject=value,
        )
    return text


@dataclass(frozen=True, slots=True)
class InstallSource:
    """A resolved source: what it is, where the bytes are, and what was promised about them."""

    kind: Literal["file", "url", "coordinate"]
    location: str
    expected_sha256: str | None
    archive_bytes: int | None
    label: str
    release: RegistryRelease | None = None
    trusted: bool = False
    """A coordinate resolved through a registry document verified against trust anchors."""
    registry: str | None = None


def resolve_source(
    source: str | Path,
    expected: str | None,
    registries: tuple[RegistryDocument, ...],
    trust: TrustAnchors | None,
) -> InstallSource:
    """Decide what ``source`` is; ``expected`` is the caller's normalised digest, if any."""
    text = str(source)
    if isinstance(source, str) and is_url(text):
        return InstallSource("url", text, expected, None, text)
    path = Path(source)
    if path.exists():
        if not path.is_file():
            raise InvalidInput(f"{path} is not a catalog file", reason="not-a-file", subject=text)
        return InstallSource("file", str(path), expected, None, str(path.absolute()))
    if isinstance(source, str) and CatalogCoordinate.looks_like(text):
        release, registry = locate_release(text, registries, trust=trust)
        if expected is not None and expected != release.content_digest:
            raise InvalidInput(
                f"--sha256 {expected} disagrees with the registry digest "
                f"{release.content_digest} of {release.coordinate}",
                reason="digest-conflict",
                subject=text,
            )
        return InstallSource(
            "coordinate",
            release.url,
            release.content_digest,
            release.archive_bytes,
            str(release.coordinate),
            release=release,
            trusted=trust is not None,
            registry=_registry_location(registry),
        )
    raise NotFound(
        f"{text} is not a file, an http(s) URL or a publisher/catalog[@version] coordinate",
        reason="source-not-found",
        subject=text,
    )


def _registry_location(registry: RegistryDocument) -> str | None:
    """Where a registry document can be read again (for update checks), if anywhere."""
    if registry.source == "<memory>":
        return None
    if is_url(registry.source):
        return registry.source
    return str(Path(registry.source).absolute())


def check_release(src: InstallSource, publisher_id: str, catalog_id: str, version: str) -> None:
    """A coordinate's bytes must be the release the registry named, not some other catalog."""
    release = src.release
    if release is None:
        return
    got = (publisher_id, catalog_id, version)
    want = (release.publisher_id, release.catalog_id, release.version)
    if got != want:
        raise IntegrityFailure(
            f"{src.label} resolved to an archive of {publisher_id}/{catalog_id}@{version}",
            reason="release-mismatch",
            subject=src.label,
        )
