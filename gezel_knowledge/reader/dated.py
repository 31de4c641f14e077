"""Dated pages: blog posts, news, changelogs and release notes, told apart by their ids.

Such a page describes the product at one moment, often in passing and in the words of the
documentation it announces ("Biome v1.7: check only staged files"), so it competes with the
page that explains the subject, and by one well-matching passage it may come first. Hybrid
search weighs a dated page's fused score by :data:`DATED_WEIGHT`: a documentation page that
answers as well goes first, while a dated page that answers clearly better (a question about
what changed in a version, a post nothing else covers) still does.

A catalog built from a site keeps each page's path in the site as its id, and the generators
put dated pages in folders of their own (Docusaurus' and Material's blog plugins, Hugo's
``blog``/``news``/``posts`` sections) or in files named for what they are (``CHANGELOG.md``,
``release-notes.md``, Sphinx's ``_changelog``). :func:`is_dated` reads that from the id alone.
"""

from __future__ import annotations

import re

__all__ = ["DATED_FOLDERS", "DATED_WEIGHT", "is_dated"]

DATED_WEIGHT = 0.85
"""What a dated page's fused score is multiplied by in hybrid search.

On the 80 documentation trees of ``benchmarks/realdocs.py`` (845 questions written before any
search) 0.85 put the answer first for six questions more and for none fewer; 0.9 for five, 0.8
for six but one fewer too ("What changed in the v1 API changelog?"), see docs/quality.md."""

DATED_FOLDERS = frozenset(
    {
        "_posts",
        "announcements",
        "blog",
        "blogs",
        "change-log",
        "change_log",
        "changelog",
        "changelogs",
        "history",
        "news",
        "posts",
        "release-notes",
        "release_notes",
        "releases",
        "whats-new",
        "whats_new",
        "whatsnew",
    }
)
"""Folder names (any part of an id but its last) that hold dated pages, compared in lower
case: blog plugins' and Hugo's sections, Jekyll's ``_posts``, a ``history`` or ``releases``
folder of changelogs."""

_DATED_WORD = re.compile(
    r"(?<![^-_. ])_?(?:change[-_]?log|changes|release[-_]?notes|releases|whats[-_]?new|news)"
    r"(?![^-_. ])",
    re.IGNORECASE,
)
"""A changelog word in a page name (an id's last part), standing as a word of it: ``CHANGELOG``,
``CHANGES`` (as Sphinx projects name theirs), ``release-notes``, ``_changelog``, ``whats-new``,
``news``."""

_LANGUAGE_SUFFIX = re.compile(r"\.[a-z]{2}", re.IGNORECASE)
"""A language suffix of a page name (Hugo's ``changelog.fr``), which says nothing of its kind."""


def _version_or_nothing(part: str) -> bool:
    """Whether the words beside a changelog word leave it the page's subject: none at all (or a
    language suffix), or a version or date (any part holding a digit: ``_v1``, ``-in-v2``,
    ``AdapterV4-``, ``2024-``)."""
    return (
        not part or _LANGUAGE_SUFFIX.fullmatch(part) is not None or any(c.isdigit() for c in part)
    )


def _dated_name(name: str) -> bool:
    """Whether a page name says it is a changelog, release notes, what's new or news: the word
    alone, or with a version or date before or after it (``changelog_v1``,
    ``whats-new-in-v2``, ``AdapterV4-Release-Notes``). Other words beside it make it the name of
    a page about something else (``changelog-format``, ``news-feed-configuration``,
    ``releases-policy``, ``api_changes``)."""
    return any(
        _version_or_nothing(name[: m.start()]) and _version_or_nothing(name[m.end() :])
        for m in _DATED_WORD.finditer(name)
    )


def is_dated(document_id: str) -> bool:
    """Whether the document is a blog post, news item, changelog or release notes by its id.

    True when a folder of the id is one of :data:`DATED_FOLDERS` or when its last part names
    a changelog, changes, release notes, releases, what's new or news, alone or with a version
    or date (:func:`_dated_name`). A page *about* blogs (``plugins/blog``,
    ``setup/setting-up-a-blog``) or about a changelog (``changelog-format``) is no dated page.
    """
    *folders, name = document_id.split("/")
    if any(folder.lower() in DATED_FOLDERS for folder in folders):
        return True
    return _dated_name(name)
