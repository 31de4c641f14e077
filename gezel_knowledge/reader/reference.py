"""API reference pages and questions asking how to do something, told apart by ids and words.

An API reference documents every call, option and type of a product, one section each, so a
question about any of them finds one well-matching passage there; a question asking *how to do*
something is answered by the guide about that task, which opens on it and explains it
throughout ("How do I create a child logger?": pino's API reference, then "Child Loggers";
"How do I make sure only one instance of my app runs?": Wails' ``Options`` reference, then
"Single Instance Lock"). Hybrid search weighs a reference page's fused score by
:data:`REFERENCE_WEIGHT` for such a question: a guide that answers as well goes first, and a
reference that answers clearly better still does.

A page is a reference page by its id, which for a site is its path: a folder or page named
``api``, ``apis``, ``api-reference``, ``ref``, ``reference`` or ``references`` (any case;
where Starlight, VitePress, MkDocs and Docusaurus sites keep theirs). A question asks how when
it opens with "how do I", "how can I", "how should I", "how would I" (or we, you) or "how to";
a question that names the API or the reference itself ("... with the Content Services API?")
is asking about it, and for it no page is weighed so.
"""

from __future__ import annotations

import re

__all__ = ["REFERENCE_NAMES", "REFERENCE_WEIGHT", "asks_how", "is_reference"]

REFERENCE_WEIGHT = 0.9
"""What a reference page's fused score is multiplied by in hybrid search, for a question asking
how to do something.

On the 158 documentation trees of ``benchmarks/realdocs.py`` 0.9 put the answer first for
fifteen questions more and four fewer; 0.92 twelve more, 0.88 as 0.9 but a top-3 answer
fewer (docs/quality.md)."""

REFERENCE_NAMES = frozenset(
    {"api", "apis", "api-reference", "api_reference", "ref", "reference", "references"}
)
"""Folder and page names (compared in lower case) of API reference pages."""

_HOW = re.compile(r"\s*how\s+(?:(?:do|can|should|would)\s+(?:i|we|you)|to)\b", re.IGNORECASE)
"""The opening of a question that asks how to do something."""

_NAMES_REFERENCE = re.compile(r"\b(?:api|apis|reference)\b", re.IGNORECASE)
"""A question's word naming the API or the reference."""


def is_reference(document_id: str) -> bool:
    """Whether a page is an API reference page: a part of its id (a folder or the page's name)
    is one of :data:`REFERENCE_NAMES`."""
    return any(part.lower() in REFERENCE_NAMES for part in document_id.split("/"))


def asks_how(question: str) -> bool:
    """Whether ``question`` asks how to do something ("How do I ...", "How to ...") without
    naming the API or the reference, which would make a reference page its subject."""
    return _HOW.match(question) is not None and _NAMES_REFERENCE.search(question) is None
