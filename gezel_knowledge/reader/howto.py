"""Questions asking how to do something, and the broad pages that do not answer them.

A question asking *how to do* something is answered by the page about that task, which opens
on it and explains it throughout. Two kinds of page cover a whole subject instead and, by one
well-matching section or list entry, often came first:

- an **API reference**, which documents every call, option and type, one section each ("How do
  I create a child logger?": pino's API reference, then "Child Loggers"; "How do I make sure
  only one instance of my app runs?": Wails' ``Options`` reference, then "Single Instance
  Lock");
- a section's **landing page** (``index``, ``README``, Hugo's ``_index``), which introduces the
  pages under it and names each of their tasks ("How do I run Pyodide in a web worker?": the
  usage index, then "Using Pyodide in a web worker").

Hybrid search weighs such a broad page's fused score by :data:`HOWTO_WEIGHT` for a how-to
question: the task page that answers as well goes first, and a broad page that answers clearly
better still does.

A page is a reference page by its id, which for a site is its path: a folder or page named
``api``, ``apis``, ``api-reference``, ``ref``, ``reference`` or ``references`` (any case; where
Starlight, VitePress, MkDocs and Docusaurus sites keep theirs); a landing page is one named
``index``, ``README`` or ``_index``. A question asks how when it opens with "how do I", "how
can I", "how should I", "how would I" (or we, you) or "how to"; a question that names the API
or the reference itself ("... with the Content Services API?") is asking about it, and for it
no page is weighed so. The openings are English ones: a question in another language is left
as it is.
"""

from __future__ import annotations

import re

__all__ = [
    "HOWTO_WEIGHT",
    "LANDING_NAMES",
    "REFERENCE_NAMES",
    "asks_how",
    "is_broad",
    "is_landing",
    "is_reference",
]

HOWTO_WEIGHT = 0.9
"""What a broad page's fused score (an API reference's, a landing page's) is multiplied by in
hybrid search, for a question asking how to do something.

On the 158 documentation trees of ``benchmarks/realdocs.py`` 0.9 put the answer first for 23
questions more and 6 fewer, and into the top 3 for 4 more; 0.92 gained 17 and lost 6, 0.88
gained 24 and lost 8 (docs/quality.md)."""

REFERENCE_NAMES = frozenset(
    {"api", "apis", "api-reference", "api_reference", "ref", "reference", "references"}
)
"""Folder and page names (compared in lower case) of API reference pages."""

LANDING_NAMES = frozenset({"_index", "index", "readme"})
"""Page names (compared in lower case) of a site's or a section's landing page."""

_HOW = re.compile(r"\s*how\s+(?:(?:do|can|should|would)\s+(?:i|we|you)|to)\b", re.IGNORECASE)
"""The opening of a question that asks how to do something."""

_NAMES_REFERENCE = re.compile(r"\b(?:api|apis|reference)\b", re.IGNORECASE)
"""A question's word naming the API or the reference."""


def is_reference(document_id: str) -> bool:
    """Whether a page is an API reference page: a part of its id (a folder or the page's name)
    is one of :data:`REFERENCE_NAMES`."""
    return any(part.lower() in REFERENCE_NAMES for part in document_id.split("/"))


def is_landing(document_id: str) -> bool:
    """Whether a page is a site's or a section's landing page: its name (the id's last part) is
    one of :data:`LANDING_NAMES`."""
    return document_id.rsplit("/", 1)[-1].lower() in LANDING_NAMES


def is_broad(document_id: str) -> bool:
    """Whether a page covers a whole subject rather than a task: a reference or landing page."""
    return is_reference(document_id) or is_landing(document_id)


def asks_how(question: str) -> bool:
    """Whether ``question`` asks how to do something ("How do I ...", "How to ...") without
    naming the API or the reference, which would make a reference page its subject."""
    return _HOW.match(question) is not None and _NAMES_REFERENCE.search(question) is None
