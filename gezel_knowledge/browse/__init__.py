"""The Knowledge browser: a local web page to browse, search, read and cite catalogs.

``gezel-knowledge browse`` serves the installed catalogs (or catalogs named by path) on
``127.0.0.1``: a Library page, each catalog's README, outline and facts, documents rendered
from their Markdown with citations, search, ``/cite`` for ``knowledge://`` references, and the
memory index. Every page has a stable URL and a JSON twin. Catalog text is hostile until proven
otherwise: see :mod:`._security` and :mod:`._markdown`. Needs the ``browse`` extra
(``pip install 'gezel-knowledge[browse]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gezk._lazy import lazy_face

if TYPE_CHECKING:
    from gezel_knowledge.browse._app import create_app as create_app
    from gezel_knowledge.browse._library import CatalogCard as CatalogCard
    from gezel_knowledge.browse._library import Library as Library
    from gezel_knowledge.browse._markdown import render_body as render_body
    from gezel_knowledge.browse._requires import require_browse as require_browse
    from gezel_knowledge.browse._security import GuardSettings as GuardSettings
    from gezel_knowledge.browse._serve import DEFAULT_PORT as DEFAULT_PORT
    from gezel_knowledge.browse._serve import HOST as HOST
    from gezel_knowledge.browse._serve import BrowseServer as BrowseServer
    from gezel_knowledge.browse._serve import check_bind as check_bind
    from gezel_knowledge.browse._serve import check_port as check_port
else:
    __getattr__, __dir__, __all__ = lazy_face(
        __name__,
        globals(),
        {
            "gezel_knowledge.browse._app": ("create_app",),
            "gezel_knowledge.browse._library": ("CatalogCard", "Library"),
            "gezel_knowledge.browse._markdown": ("render_body",),
            "gezel_knowledge.browse._requires": ("require_browse",),
            "gezel_knowledge.browse._security": ("GuardSettings",),
            "gezel_knowledge.browse._serve": (
                "DEFAULT_PORT",
                "HOST",
                "BrowseServer",
                "check_bind",
                "check_port",
            ),
        },
    )
