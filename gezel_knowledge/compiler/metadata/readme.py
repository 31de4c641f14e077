"""The README a catalog ships when its source has none, written from the catalog's metadata.

A catalog must carry a ``README.md`` (spec section 3.1). A documentation tree rarely has one of
its own (its first page is part of the book, not a description of it), so when neither
catalog.yaml's ``readme`` nor a ``README.md`` in the source folder exists, one is written from
the name, description, publisher, source URL, generator and licence. Only metadata goes in, so
the same metadata always gives the same bytes.
"""

from __future__ import annotations

from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogIdentity, CatalogMetadata

__all__ = ["generated_readme"]


def generated_readme(
    identity: CatalogIdentity, metadata: CatalogMetadata, generator: str | None = None
) -> bytes:
    """The README.md of a catalog whose source has none (``generator``: how its generator is
    named, ``an MkDocs site``)."""
    lines = [f"# {identity.name}", ""]
    if metadata.description:
        lines += [metadata.description.strip(), ""]
    publisher = identity.publisher
    publisher_text = publisher.name + (f" ({publisher.url})" if publisher.url else "")
    licence = identity.license
    licence_text = licence.name + (f" (SPDX {licence.spdx})" if licence.spdx else "")
    lines += [
        f"- Catalog: `{publisher.id}/{identity.id}`, version {identity.version}, "
        f"language {identity.language}",
        f"- Publisher: {publisher_text}",
    ]
    kind = generator
    if metadata.source_url or kind:
        where = metadata.source_url or "its source folder"
        lines.append(f"- Source: {where}" + (f", {kind}" if kind else ""))
    attribution = "; attribution required" if licence.attribution_required else ""
    lines += [
        f"- Licence: {licence_text}{attribution}; the notice is `{licence.notice_path}`",
        "",
        "This README was written by gezel-knowledge from the catalog's metadata, because the "
        "source has none of its own.",
        "",
    ]
    return "\n".join(lines).encode("utf-8")
