"""The checked inputs of a build: identity, createdAt, README, licence notice, source notices.

Before anything is read for the archive, the merged metadata is completed with what can be
derived and then checked as a whole, so a user learns every missing or invalid field from one
run (:class:`~gezel_knowledge.compiler.metadata.catalog_yaml.MetadataError`):

- ``id``, when absent, is derived from ``name`` (as a topic id is: lowercase ASCII letters,
  digits and ``-``);
- ``version``, when absent, is the build date (``createdAt``) as ``YYYY.M.D``;
- ``license``, when absent, comes from the licence notice when its text is a common licence
  (:func:`~gezel_knowledge.compiler.metadata.licences.recognise_licence`);
- the README, when the source has none, is generated from the metadata
  (:func:`~gezel_knowledge.compiler.metadata.readme.generated_readme`).

The licence notice itself is never invented.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gezel_knowledge.compiler.generators.registry import generator_named
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogIdentity,
    CatalogMetadata,
    MetadataProblem,
    normalize_created_at,
)
from gezel_knowledge.compiler.metadata.licences import (
    find_licence_file,
    read_notice,
    recognise_licence,
)
from gezel_knowledge.compiler.metadata.readme import generated_readme
from gezel_knowledge.compiler.sources.source import CatalogSource
from gezel_knowledge.compiler.text.names import derive_topic_id

__all__ = [
    "CheckedInputs",
    "calendar_version",
    "check_inputs",
    "derived_metadata",
    "notice_files",
]


@dataclass(frozen=True, slots=True)
class CheckedInputs:
    """What a build writes besides the documents, checked and complete."""

    metadata: CatalogMetadata
    identity: CatalogIdentity
    created_at: str
    readme: Path | bytes
    """The source's README, or the generated one's bytes."""
    notice: Path
    source_notices: Path | None


def notice_files(meta: CatalogMetadata, root: Path) -> tuple[Path, Path | None]:
    """The README (catalog.yaml's, else ``README.md`` at ``root``; it may not exist) and the
    licence notice (catalog.yaml's ``license.file``, else
    :func:`~gezel_knowledge.compiler.metadata.licences.find_licence_file`) a source at ``root``
    ships."""
    readme = meta.readme or root / "README.md"
    if meta.license_file is not None:
        return readme, meta.license_file
    return readme, find_licence_file(root)


def calendar_version(created_at: str) -> str:
    """``2026-12-01T...`` -> ``2026.12.1``: the version of a catalog that names none."""
    year, month, day = created_at[:10].split("-")
    return f"{int(year)}.{int(month)}.{int(day)}"


def derived_metadata(
    meta: CatalogMetadata, created_at: str | None, notice: Path | None
) -> CatalogMetadata:
    """``meta`` with the derivable fields it lacks filled in (see the module docstring)."""
    catalog_id = meta.id if meta.id is not None or not meta.name else derive_topic_id(meta.name)
    version = meta.version
    if version is None and created_at is not None:
        version = calendar_version(created_at)
    licence = meta.license
    if licence is None and notice is not None and notice.is_file():
        text = read_notice(notice)
        licence = recognise_licence(text) if text is not None else None
    return replace(meta, id=catalog_id, version=version, license=licence)


def _described(site: str | None) -> str | None:
    generator = generator_named(site) if site is not None else None
    return generator.described_as if generator is not None else None


def check_inputs(
    source: CatalogSource, metadata: CatalogMetadata, created_at: str | None
) -> CheckedInputs:
    """Complete and check a build's metadata and files; one :class:`MetadataError` lists
    every problem."""
    problems: list[MetadataProblem] = []
    created = normalize_created_at(created_at) if created_at else None
    if created is None:
        problems.append(
            MetadataProblem(
                "createdAt",
                "createdAt is missing: pass it (--created-at) or set createdAt in catalog.yaml",
                "missing-created-at",
            )
        )
    notice = metadata.license_file or source.license_notice
    if notice is None or not notice.is_file():
        shown = f" ({notice})" if notice is not None else ""
        problems.append(
            MetadataProblem(
                "license.file",
                f"the licence notice is missing{shown}: add a LICENSE file or set license.file "
                "in catalog.yaml",
                "missing-input",
            )
        )
    meta = derived_metadata(metadata, created, notice)
    readme = meta.readme or source.readme
    if meta.readme is not None and not meta.readme.is_file():
        problems.append(
            MetadataProblem(
                "readme", f"the README is missing ({meta.readme}): fix readme", "missing-input"
            )
        )
    notices = meta.source_notices or source.source_notices
    if notices is not None and not notices.is_file():
        problems.append(
            MetadataProblem(
                "sourceNotices",
                f"the source notices file is missing ({notices}): fix sourceNotices",
                "missing-input",
            )
        )
    identity = meta.require(problems)
    if created is None or notice is None:
        raise AssertionError("unreachable")  # pragma: no cover - require() raised
    return CheckedInputs(
        metadata=meta,
        identity=identity,
        created_at=created,
        readme=readme
        if readme is not None
        else generated_readme(identity, meta, _described(source.site)),
        notice=notice,
        source_notices=notices,
    )
