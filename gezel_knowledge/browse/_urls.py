"""The browser's stable URLs: one function per page, so links and routes agree.

Catalog keys and document ids are percent-encoded segment by segment (a document id may hold
``/``, spaces, ``#`` or ``?``), the way ``knowledge://`` references encode them.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

__all__ = [
    "asset_url",
    "catalog_url",
    "cite_url",
    "document_url",
    "nearby_url",
    "search_url",
    "topic_url",
]


def _segments(value: str) -> str:
    return "/".join(quote(part, safe="") for part in value.split("/"))


def catalog_url(key: str) -> str:
    """The Catalog page of ``publisher/catalog``."""
    return f"/c/{_segments(key)}"


def topic_url(key: str, topic_id: str) -> str:
    """The page of one outline topic: its subtopics and own documents."""
    return f"{catalog_url(key)}/t/{quote(topic_id, safe='')}"


def document_url(key: str, document_id: str, lines: tuple[int, int] | None = None) -> str:
    """The Document page; with ``lines``, that range highlighted and scrolled to."""
    url = f"{catalog_url(key)}/d/{_segments(document_id)}"
    if lines is None:
        return url
    return f"{url}?hl={lines[0]}-{lines[1]}#u-hl"


def nearby_url(key: str, document_id: str) -> str:
    """The passages close in meaning to a document."""
    return f"{catalog_url(key)}/nearby/{_segments(document_id)}"


def asset_url(key: str, path: str) -> str:
    """An archive entry ``assets/...`` of the catalog."""
    return f"{catalog_url(key)}/{_segments(path)}"


def cite_url(reference: str) -> str:
    """The URL that opens a ``knowledge://`` reference at its passage."""
    return "/cite?" + urlencode({"ref": reference})


def search_url(query: str, *, mode: str = "hybrid", catalog: str = "", page: int = 1) -> str:
    """A Search page."""
    params = {"q": query, "mode": mode}
    if catalog:
        params["catalog"] = catalog
    if page > 1:
        params["page"] = str(page)
    return "/search?" + urlencode(params)
