"""The checked inputs of a build: identity, createdAt, README, licence notice, source notices.

Before anything is read for the archive, the merged metadata is completed with what can be
derived and then checked as a whole, so a user learns every missing or invalid field from one
run (:class:`~gezel_knowledge.compiler.metadata.catalog_yaml.MetadataError`):

- ``id``, when absent, is derived from ``name`` (as a topic id is: lowercase ASCII letters,
  digits and ``-``);
- ``version``, when absent, is the build date (``createdAt``) as ``YYYY.M.D``;
- ``license``, when absent, comes from the licence notice when its text is a common licence
  (:func:`~gezel_knowledge.compiler.metadata.licences.recognise_licence`);
- ``publisher``, when neither catalog.yaml, the flags nor the site's configuration states one,
  is the copyright holder the licence notice names
  (:func:`~gezel_knowledge.compiler.metadata.licences.copyright_holder`), its id derived from
  the name;
- the README, when the source has none, is generated from the metadata
  (:func:`~gezel_knowledge.compiler.metadata.readme.generated_readme`).

The licence notice itself is never invented.

Every file shipped beside the documents resolves inside the source root (:attr:`CatalogSource.
root`) once its symbolic links are resolved, unless the user named it (``--readme``,
``--license-file``, ``metadata=``, a ``catalog=`` file given instead of the source's own): a
source cannot publish ``~/.ssh/id_rsa`` through a symlinked ``LICENSE``, a ``readme: ../../x``
in its catalog.yaml, or a licence found above it (``unsafe-path``, naming the flag that ships
such a file on purpose). A refused notice is not read either. A source with no notice of its
own whose repository has one above it is told the one flag that ships it
(``--license-file ../LICENSE``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators.registry import generator_named
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogIdentity,
    CatalogMetadata,
    MetadataProblem,
    normalize_created_at,
)
from gezel_knowledge.compiler.metadata.licences import (
    copyright_holder,
    find_licence_file,
    licence_file_above,
    pointer_above,
    read_notice,
    recognise_licence,
)
from gezel_knowledge.compiler.metadata.readme import generated_readme
from gezel_knowledge.compiler.sources.source import CatalogSource
from gezel_knowledge.compiler.text.data import resolved_path
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.manifest import Publisher

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
    licence, publisher = meta.license, meta.publisher
    if (licence is None or publisher is None) and notice is not None and notice.is_file():
        text = read_notice(notice) or ""
        licence = licence or recognise_licence(text)
        holder = copyright_holder(text) if publisher is None else None
        if holder is not None:
            publisher = Publisher(derive_topic_id(holder), holder)
    return replace(meta, id=catalog_id, version=version, license=licence, publisher=publisher)


def _described(site: str | None) -> str | None:
    generator = generator_named(site) if site is not None else None
    return generator.described_as if generator is not None else None


@dataclass(frozen=True, slots=True)
class _Confinement:
    """Where files a build ships may come from: inside ``root``, or named by the user."""

    root: Path
    named: frozenset[Path]

    def problem(
        self, field: str, what: str, path: Path | None, flag: str
    ) -> MetadataProblem | None:
        """Why ``path`` may not be shipped, or ``None`` when it may (or is absent)."""
        if path is None:
            return None
        try:
            resolved = resolved_path(path, where=str(path))
        except SourceError as exc:
            return MetadataProblem(field, f"{what} {exc.message}", exc.reason)
        if resolved in self.named or resolved.is_relative_to(self.root):
            return None
        shown = f"{path} (a link to {resolved})" if path.is_symlink() else str(path)
        return MetadataProblem(
            field,
            f"{what} {shown} is outside the source folder {self.root}: name it with {flag} "
            "to ship a file from elsewhere",
            "unsafe-path",
        )


def _shown(path: Path) -> str:
    """A file above the source folder as a message names it: relative to where the user
    stands when it is in a folder above them (``../LICENSE``), else absolute."""
    shown = os.path.relpath(path)
    if any(part != ".." for part in Path(shown).parts[:-1]):
        return os.path.normpath(os.path.abspath(path))
    return shown


def _missing_notice(notice: Path | None, root: Path) -> MetadataProblem:
    """The licence notice is missing: the one flag to add when the repository holds one above
    the source folder (never read from there unless named), else how to add one."""
    if notice is not None:
        hint = f"the licence notice is missing ({notice}): fix license.file in catalog.yaml"
        return MetadataProblem("license.file", hint, "missing-input")
    above = licence_file_above(root)
    if above is not None:
        shown = _shown(above)
        return MetadataProblem(
            "license.file",
            f"the licence notice is not in the source folder; {shown} above it is not read "
            f"unless named: add --license-file {shown}",
            "missing-input",
        )
    return MetadataProblem(
        "license.file",
        "the licence notice is missing: add a LICENSE file, name one with --license-file FILE "
        "or set license.file in catalog.yaml",
        "missing-input",
    )


def _pointing_above(notice: Path, root: Path) -> list[MetadataProblem]:
    """The one flag to add when the notice found only points at a licence file above the
    source folder (which is never read unless named)."""
    target = pointer_above(notice, root)
    if target is None:
        return []
    shown = _shown(target)
    return [
        MetadataProblem(
            "license.file",
            f"the licence notice {notice.name} points at {shown} above the source folder, "
            f"which is not read unless named: add --license-file {shown}",
            "missing-input",
        )
    ]


def check_inputs(
    source: CatalogSource,
    metadata: CatalogMetadata,
    created_at: str | None,
    *,
    named: frozenset[Path] = frozenset(),
) -> CheckedInputs:
    """Complete and check a build's metadata and files; one :class:`MetadataError` lists
    every problem. ``named``: the files the user named (they may lie outside the source)."""
    problems: list[MetadataProblem] = []
    confined = _Confinement(
        resolved_path(source.root, where=str(source.root)),
        frozenset(resolved_path(p, where=str(p)) for p in named),
    )
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
    outside = confined.problem("license.file", "the licence notice", notice, "--license-file")
    if outside is not None:
        problems.append(outside)
        notice = None  # neither shipped nor read to recognise its licence
    elif notice is None or not notice.is_file():
        problems.append(_missing_notice(notice, confined.root))
    meta = derived_metadata(metadata, created, notice)
    if meta.license is None and metadata.license_file is None and notice is not None:
        problems.extend(_pointing_above(notice, confined.root))
    readme = meta.readme or source.readme
    outside = confined.problem("readme", "the README", readme, "--readme")
    if outside is not None:
        problems.append(outside)
    elif meta.readme is not None and not meta.readme.is_file():
        problems.append(
            MetadataProblem(
                "readme", f"the README is missing ({meta.readme}): fix readme", "missing-input"
            )
        )
    notices = meta.source_notices or source.source_notices
    outside = confined.problem("sourceNotices", "the source notices file", notices, "metadata=")
    if outside is not None:
        problems.append(outside)
    elif notices is not None and not notices.is_file():
        problems.append(
            MetadataProblem(
                "sourceNotices",
                f"the source notices file is missing ({notices}): fix sourceNotices",
                "missing-input",
            )
        )
    # A notice still to be named may name the publisher (its copyright line): ask for the
    # notice alone first.
    pending = frozenset({"publisher"}) if notice is None else frozenset()
    identity = meta.require(problems, pending=pending)
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
