"""The Catalog, Topic, Document and Nearby pages, and a catalog's image assets.

Everything here resolves through the catalog handle: documents by id in the router, files only
when the manifest declares them, assets only as declared ``assets/...`` entries whose bytes pass
the archive's own asset checks again (type by magic bytes, SVG inertness) before they are
served, with their media type and a sandboxing policy. No path from a URL reaches the file
system.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gezel_knowledge.archive.assets import asset_media_type, asset_path_problem, asset_problem
from gezel_knowledge.browse._context import Browser, catalog_key
from gezel_knowledge.browse._markdown import LinkMap, render_body
from gezel_knowledge.browse._outline import PAGE, neighbours
from gezel_knowledge.browse._respond import Page, dumps
from gezel_knowledge.browse._snippets import marked_snippet
from gezel_knowledge.browse._urls import (
    asset_url,
    catalog_url,
    cite_url,
    document_url,
    nearby_url,
    topic_url,
)
from gezel_knowledge.errors import InvalidInput, ModelUnavailable, NotFound
from gezel_knowledge.reader import Catalog, DocumentSummary, TopicSummary

__all__ = [
    "asset_response",
    "catalog_page",
    "document_page",
    "links_for",
    "nearby_page",
    "topic_page",
]

_MAX_TEXT_FILE = 1 << 20
ASSET_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
"""An asset is an image, never a document: no script, no requests, an opaque origin."""


def links_for(key: str) -> LinkMap:
    """Where a body's links and images point in the browser, for catalog ``key``."""
    return LinkMap(cite=cite_url, asset=lambda path: asset_url(key, path))


def _declared_text(catalog: Catalog, path: str) -> str | None:
    """A text file the manifest declares (README, licence, notices), else ``None``."""
    declared = catalog.manifest.file(path)
    if declared is None or declared.size_bytes > _MAX_TEXT_FILE:
        return None
    data = catalog.root.joinpath(*path.split("/")).read_bytes()
    return data.decode("utf-8", "replace")


def _topic_row(key: str, topic: TopicSummary, has_children: bool) -> dict[str, Any]:
    return {
        "id": topic.id,
        "name": topic.name,
        "description": topic.description,
        "documents": topic.subtree_count,
        "ownDocuments": topic.direct_count,
        "hasChildren": has_children,
        "url": topic_url(key, topic.id),
    }


def _document_row(key: str, doc: DocumentSummary) -> dict[str, Any]:
    return {"id": doc.id, "title": doc.title, "url": document_url(key, doc.id)}


def catalog_page(browser: Browser, request: Request) -> Page:
    """README, licence and attribution, the outline's top level, topics, facts, provenance."""
    key = catalog_key(request)
    card = browser.library.card(key)
    catalog = browser.library.catalog(key)
    outline = browser.outline(catalog)
    manifest = catalog.manifest
    readme = _declared_text(catalog, "README.md")
    notices = _declared_text(catalog, "LICENSES/source-notices.json")
    try:
        attribution = None if notices is None else dumps(json.loads(notices))
    except ValueError:
        attribution = notices
    data = {
        "catalog": card,
        "outline": [_topic_row(key, t, t.id in outline.children) for t in outline.roots()],
        "topicCount": len(outline.topics),
        "license": manifest.license,
        "licenseText": _declared_text(catalog, manifest.license.notice_path),
        "attribution": attribution,
        "manifest": manifest.raw,
        "provenance": catalog.provenance(),
        "citationPrefix": f"knowledge://{key}/",
    }
    readme_html = render_body(readme, links_for(key)).html if readme else None
    extra = {
        "readme_html": readme_html,
        "facts": _facts(catalog),
        "search_url": f"/search?catalog={key}",
    }
    return Page("catalog.html", manifest.name, data, extra)


def _facts(catalog: Catalog) -> list[tuple[str, str]]:
    m = catalog.manifest
    facts = [
        ("Citation prefix", f"knowledge://{catalog.publisher_id}/{catalog.id}/"),
        ("Format", f"gezk {m.format_version} (index schema {m.index_schema_version})"),
        ("Created", m.created_at),
        ("Language", m.language),
        ("Documents", f"{m.counts.documents:,}"),
        ("Passages", f"{m.counts.chunks:,}"),
        ("Shards", f"{m.counts.shards:,}"),
        ("Assets", f"{m.counts.assets or 0:,}"),
        ("Embedding profile", m.embedding.id),
        ("Chunking profile", m.chunking.id),
        ("Query embedder", "ready" if catalog.embedder is not None else "none: words only"),
        ("Archive SHA-256", catalog.archive_sha256 or "unknown (opened as a folder)"),
    ]
    if m.source_snapshot is not None:
        facts.append(("Source snapshot", f"{m.source_snapshot.name} ({m.source_snapshot.date})"))
    if m.toolchain is not None:
        facts.append(("Built with", f"{m.toolchain.name} {m.toolchain.version}"))
    return facts


def topic_page(browser: Browser, request: Request) -> Page:
    """One outline topic: where it sits, its subtopics, a page of its own documents."""
    key = catalog_key(request)
    catalog = browser.library.catalog(key)
    outline = browser.outline(catalog)
    topic_id = request.path_params["topic"]
    topic = outline.by_id.get(topic_id)
    if topic is None:
        raise NotFound(f"no topic {topic_id!r} in {key}", reason="topic-not-found")
    offset = _int(request, "offset", 0)
    ordered, _ = outline.own_order(catalog, topic_id)
    documents, total = ordered[offset : offset + PAGE], len(ordered)
    children = outline.children.get(topic_id, ())
    data = {
        "catalog": {"key": key, "name": catalog.manifest.name, "url": catalog_url(key)},
        "topic": _topic_row(key, topic, bool(children)),
        "path": [_topic_row(key, t, True) for t in outline.path(topic_id)[:-1]],
        "children": [_topic_row(key, t, t.id in outline.children) for t in children],
        "documents": [_document_row(key, d) for d in documents],
        "offset": offset,
        "total": total,
        "next": offset + PAGE if offset + PAGE < total else None,
    }
    return Page("topic.html", topic.name, data)


def _int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name)
    if value is None:
        return default
    if not value.isdigit() or len(value) > 9:
        raise InvalidInput(f"{name} must be a whole number", reason="invalid-page")
    return int(value)


def _lines(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    first, _, last = value.partition("-")
    if not first.isdigit() or not (last or first).isdigit() or len(value) > 20:
        raise InvalidInput("hl must be a line range such as 3-9", reason="invalid-page")
    start, end = int(first), int(last or first)
    return (start, end) if start <= end else (end, start)


def document_page(browser: Browser, request: Request) -> Page:
    """A document rendered, with breadcrumbs, neighbours and citations."""
    key = catalog_key(request)
    catalog = browser.library.catalog(key)
    document_id = request.path_params["document"]
    document = catalog.document(document_id)
    highlight = _lines(request.query_params.get("hl"))
    rendered = browser.rendered(catalog, document_id, highlight)
    outline = browser.outline(catalog)
    previous, following = neighbours(catalog, outline, document_id, document.topic_id)
    sections = [
        {
            **asdict(s),
            "citation": catalog.citation(document_id, lines=(s.line_start, s.line_end)),
        }
        for s in rendered.sections
    ]
    data = {
        "catalog": {"key": key, "name": catalog.manifest.name, "url": catalog_url(key)},
        "document": document,
        "breadcrumbs": [_topic_row(key, t, True) for t in outline.path(document.topic_id)],
        "previous": None if previous is None else _document_row(key, previous),
        "next": None if following is None else _document_row(key, following),
        "sections": sections,
        "highlight": highlight,
        "html": rendered.html,
        "nearbyUrl": nearby_url(key, document_id),
    }
    return Page("document.html", document.title, data)


def nearby_page(browser: Browser, request: Request) -> Page:
    """Passages of the same catalog close in meaning to a document (its title and opening)."""
    key = catalog_key(request)
    catalog = browser.library.catalog(key)
    document_id = request.path_params["document"]
    document = catalog.document(document_id)
    opening = catalog.body(document_id)[:600]
    query = f"{document.title}\n{opening}"
    hits: list[dict[str, Any]] = []
    unavailable = None
    try:
        result = catalog.search(query, k=8, mode="vector")
    except ModelUnavailable as exc:
        unavailable = exc.message
    else:
        for hit in result.hits:
            if hit.document_id == document_id:
                continue
            lines = None if hit.line_start is None else (hit.line_start, hit.line_end or 0)
            vector = hit.signal("vector")
            hits.append(
                {
                    "title": hit.title,
                    "section": list(hit.section_path),
                    "citation": hit.citation,
                    "snippet": marked_snippet(hit.text, "", 160),
                    "cosine": None if vector is None else round(vector.score, 3),
                    "url": document_url(key, hit.document_id, lines),
                }
            )
    data = {
        "catalog": {"key": key, "name": catalog.manifest.name, "url": catalog_url(key)},
        "document": {
            "id": document_id,
            "title": document.title,
            "url": document_url(key, document_id),
        },
        "nearby": hits[:5],
        "unavailable": unavailable,
    }
    return Page("nearby.html", f"Near {document.title}", data)


def asset_response(browser: Browser, request: Request) -> Response:
    """A declared image asset with its checked media type, ``nosniff`` and a sandbox policy."""
    key = catalog_key(request)
    path = "assets/" + request.path_params["path"]
    problem = asset_path_problem(path)
    if problem is not None:
        raise NotFound(problem.message, reason="asset-not-found", subject=path)
    catalog = browser.library.catalog(key)
    data = catalog.asset(path)
    problem = asset_problem(path, data)
    media_type = asset_media_type(path)
    if problem is not None or media_type is None:
        why = problem.message if problem is not None else "no media type"
        return Response(f"refused: {why}", status_code=415, media_type="text/plain")
    headers = {
        "content-security-policy": ASSET_POLICY,
        "content-disposition": "inline",
        "cache-control": "private, max-age=3600",
    }
    return Response(data, media_type=media_type, headers=headers)
