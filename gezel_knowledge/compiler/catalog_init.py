"""``gezel-knowledge init``: a commented ``catalog.yaml`` for a source folder, from what the
compiler detects there, for the author to finish.

The file holds every field a build needs. What was detected is filled in (the generator's
site name and description, an id derived from the name, the language, the publisher a
repository URL names, a licence recognised in the notice); what could not be detected is left
empty and marked ``FILL IN``, so a build names exactly those fields until they are filled. The
text depends only on the folder's contents, never on the clock.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from gezel_knowledge._atomic import write_atomic
from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators.registry import (
    generator_named,
    recognise_outline,
    source_site,
)
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata
from gezel_knowledge.compiler.metadata.licences import (
    find_licence_file,
    licence_file_above,
    read_notice,
    recognise_licence,
)
from gezel_knowledge.compiler.text.names import derive_topic_id
from gezk.manifest import License

__all__ = ["CatalogDraft", "InitResult", "draft_catalog_yaml", "init_catalog"]

_FILL = "FILL IN"


@dataclass(frozen=True, slots=True)
class CatalogDraft:
    """What ``init`` found in a source folder and the catalog.yaml text it makes of it."""

    source: Path
    generator: str | None
    outline: str
    content_root: str
    """The folder holding the pages, relative to the source (``.`` for the source itself)."""
    metadata: CatalogMetadata
    """The metadata detected (site configuration, derived id, recognised licence)."""
    license_file: str | None
    """The licence notice found, relative to the catalog.yaml's folder (``../LICENSE``)."""
    readme: bool
    """Whether the source has a README.md of its own (else the build generates one)."""
    missing: tuple[str, ...]
    """The fields left for the author to fill in."""
    text: str
    build_command: str = ""
    """The build the file suggests, run from the folder the file is in."""


@dataclass(frozen=True, slots=True)
class InitResult:
    """A catalog.yaml written by :func:`init_catalog`."""

    path: Path
    draft: CatalogDraft


def _yaml(value: str) -> str:
    """A string as a YAML scalar (JSON's double-quoted strings are YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _field(key: str, value: str | None, comment: str, indent: str = "") -> str:
    shown = _yaml(value) if value is not None else ""
    mark = f"{_FILL}: " if value is None else ""
    line = f"{indent}{key}: {shown}"
    return f"{line:<40} # {mark}{comment}"


def _commented(line: str, comment: str) -> str:
    """An optional field, commented out, its comment aligned with the others'."""
    return f"{'# ' + line:<40} # {comment}"


def draft_catalog_yaml(
    source: Path | str, beside: Path | None = None, *, file_name: str = "catalog.yaml"
) -> CatalogDraft:
    """Detect what a source folder is and draft its catalog.yaml (nothing is written); file
    names in it, and the build it suggests, are relative to ``beside``, the folder the file
    will be in (the source's), and ``file_name`` is its name there."""
    root = Path(source).resolve()
    if not root.is_dir():
        raise SourceError("is not a folder", reason="not-a-folder", path=str(source))
    site = source_site(root)
    recognised = recognise_outline(root, site, reserved={(root / "catalog.yaml").resolve()})
    meta = site.metadata
    notice = find_licence_file(root) or licence_file_above(root)
    text = read_notice(notice) if notice is not None else None
    licence = recognise_licence(text) if text is not None else None
    name = meta.name
    catalog_id = derive_topic_id(name) if name else None
    publisher = meta.publisher
    missing = [
        f
        for f, v in (
            ("id", catalog_id),
            ("name", name),
            ("language", meta.language),
            ("publisher.id", publisher.id if publisher else None),
            ("publisher.name", publisher.name if publisher else None),
            ("license.name", licence.name if licence else None),
            ("license.attributionRequired", licence),
            ("license.file", notice),
        )
        if v is None
    ]
    content = (
        display_path(recognised.content_root, root) if recognised.content_root != root else "."
    )
    folder = (beside or root).resolve()
    licence_file = Path(os.path.relpath(notice, folder)).as_posix() if notice else None
    draft = CatalogDraft(
        source=root,
        generator=site.generator_name,
        outline=recognised.outline.kind,
        content_root=content,
        metadata=CatalogMetadata(
            id=catalog_id,
            name=name,
            description=meta.description,
            language=meta.language,
            publisher=publisher,
            license=licence,
            license_file=notice,
            source_url=meta.source_url,
        ),
        license_file=licence_file,
        readme=(root / "README.md").is_file(),
        missing=tuple(missing),
        text="",
        build_command=_build_command(root, folder, file_name, catalog_id or "catalog"),
    )
    return _with_text(draft, licence)


def _build_command(root: Path, folder: Path, file_name: str, name: str) -> str:
    """The build of this source with this file, as typed in the file's folder: the source
    folder's own catalog.yaml is found without --catalog."""
    source = Path(os.path.relpath(root, folder)).as_posix()
    named = "" if folder == root and file_name == "catalog.yaml" else f" --catalog {file_name}"
    return f"gezel-knowledge build {source}{named} -o {name}.gezk"


def _header(draft: CatalogDraft, licence: License | None) -> list[str]:
    generator = generator_named(draft.generator or "")
    kind = (generator.described_as if generator else None) or "a folder of Markdown"
    pages = "this folder" if draft.content_root == "." else f"{draft.content_root}/"
    found = f"{kind}; pages in {pages}, outline: {draft.outline}"
    if draft.license_file is None:
        notice = "none found: add one, or name it in license.file"
    elif licence is None:
        notice = f"{draft.license_file} (not recognised: fill in license below)"
    else:
        notice = f"{draft.license_file}, recognised as {licence.spdx}"
    readme = "README.md" if draft.readme else "none; the build writes one from these fields"
    todo = (
        f"Fill in the fields marked {_FILL} ({', '.join(draft.missing)}), then run:"
        if draft.missing
        else "Check the fields below, then run:"
    )
    return [
        "# catalog.yaml: what `gezel-knowledge build` needs to know about this catalog.",
        "# Written by `gezel-knowledge init` from what it found in this folder:",
        f"#   source:         {found}",
        f"#   licence notice: {notice}",
        f"#   README:         {readme}",
        f"# {todo}",
        f"#   {draft.build_command}   (in the folder this file is in)",
        "# Fields left out take the build's defaults: version is the build date (YYYY.M.D).",
        "",
    ]


def _with_text(draft: CatalogDraft, licence: License | None) -> CatalogDraft:
    meta = draft.metadata
    publisher = meta.publisher
    lines = _header(draft, licence)
    lines += [
        _field("id", meta.id, "catalog id: a-z, 0-9 and '-', unique per publisher"),
        _commented('version: "1.0.0"', "default: the build date, YYYY.M.D"),
        _field("name", meta.name, "the catalog's display name"),
    ]
    if meta.description:
        lines.append(_field("description", meta.description, "one or two sentences"))
    else:
        lines.append(_commented("description: ...", "one or two sentences"))
    lines += [
        _field("language", meta.language, "the documents' language (BCP 47: en, de, pt-BR)"),
        "publisher:",
        _field("id", publisher.id if publisher else None, "a-z, 0-9 and '-'", "  "),
        _field("name", publisher.name if publisher else None, "who publishes it", "  "),
    ]
    if publisher is not None and publisher.url:
        lines.append(_field("url", publisher.url, "optional", "  "))
    lines += [
        "license:",
        _field("name", licence.name if licence else None, "e.g. CC BY 4.0", "  "),
    ]
    if licence is not None and licence.spdx:
        lines.append(_field("spdx", licence.spdx, "its SPDX id", "  "))
    else:
        lines.append(_commented("  spdx: CC-BY-4.0", "its SPDX id, if it has one"))
    if licence is not None:
        required = "true" if licence.attribution_required else "false"
        lines.append(f"{'  attributionRequired: ' + required:<40} # must users credit you?")
    else:
        lines.append(f"{'  attributionRequired:':<40} # {_FILL}: true or false")
    lines.append(
        _field("file", draft.license_file, "the notice, shipped as LICENSES/catalog.txt", "  ")
    )
    if meta.source_url:
        lines.append(_field("sourceUrl", meta.source_url, "where the sources are published"))
    lines += [
        f"{'outline: auto':<40} # detected: {draft.outline}",
        _commented("exclude: [drafts/**]", "pages to leave out (globs)"),
        _commented("embedder: all-minilm-l6-v2-int8@1", "the embedding model to build with"),
        "",
    ]
    return replace(draft, text="\n".join(lines))


def init_catalog(
    source: Path | str, *, output: Path | str | None = None, force: bool = False
) -> InitResult:
    """Write a drafted catalog.yaml into ``source`` (or to ``output``); an existing file is
    refused unless ``force``."""
    root = Path(source)
    path = Path(output) if output is not None else root / "catalog.yaml"
    if path.exists() and not force:
        raise SourceError(
            "already exists; pass --force to replace it", reason="exists", path=str(path)
        )
    draft = draft_catalog_yaml(root, path.parent, file_name=path.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, draft.text.encode("utf-8"))
    return InitResult(path, draft)
