"""What the browser serves: the installed catalogs of a Gezel home, or catalogs named by path.

A :class:`Library` answers the pages' questions through the library's own public functions:
the installed catalogs through :class:`~gezel_knowledge.search.KnowledgeSearch` (the same
search ``find`` runs) and the registry; catalogs named by path through
:meth:`KnowledgeSearch.over <gezel_knowledge.search.KnowledgeSearch.over>` (the same search
``mcp --catalog`` runs, ranked as if they were installed); one catalog through its own
:meth:`~gezel_knowledge.reader.Catalog.search`; citations through ``read``. Handles are opened
once and kept, so a page costs the queries it makes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import gezel_knowledge.install as installing
from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.indexes._home import memory_db_path, memory_dir
from gezel_knowledge.reader import Catalog, Passage
from gezel_knowledge.results import SearchMode, SearchResult
from gezel_knowledge.search import KnowledgeSearch
from gezel_knowledge.validate import provenance_verdict
from gezk.errors import ReasonedError
from gezk.signing import TrustAnchors
from gezk.uri import KnowledgeUri

__all__ = ["CatalogCard", "Library"]


@dataclass(frozen=True, slots=True)
class CatalogCard:
    """One catalog as the Library page lists it."""

    key: str
    publisher_id: str
    catalog_id: str
    name: str
    publisher: str
    version: str
    language: str
    description: str | None
    size_bytes: int | None
    documents: int
    passages: int
    signature: str
    """``verified``, ``unsigned``, ``unverified`` (signed, key not trusted), or the verdict's
    status for a catalog named by path (``no-trust-anchors``, ``unknown-key``, ...)."""
    trust: str
    """The verdict in words: who signed it, and whether that key is trusted."""
    enabled: bool
    installed: bool
    tags: tuple[str, ...]
    """The catalog's top-level topics: what it is about, as its publisher filed it."""
    profile: str
    quarantine: str | None = None

    def matches(self, text: str, language: str, tag: str) -> bool:
        """Whether the card passes the Library page's filters (empty filters pass)."""
        if language and self.language.lower() != language.lower():
            return False
        if tag and tag.lower() not in (t.lower() for t in self.tags):
            return False
        words = text.lower().split()
        haystack = " ".join(
            (self.key, self.name, self.publisher, self.description or "", *self.tags)
        ).lower()
        return all(w in haystack for w in words)


def _tags(catalog: Catalog) -> tuple[str, ...]:
    return tuple(t.name for t in catalog.manifest.topics if t.parent_id is None)


def _card_of(catalog: Catalog, *, signature: str, trust: str, size: int | None) -> CatalogCard:
    manifest = catalog.manifest
    return CatalogCard(
        key=f"{catalog.publisher_id}/{catalog.id}",
        publisher_id=catalog.publisher_id,
        catalog_id=catalog.id,
        name=manifest.name,
        publisher=manifest.publisher.name,
        version=manifest.version,
        language=manifest.language,
        description=manifest.description,
        size_bytes=size,
        documents=manifest.counts.documents,
        passages=manifest.counts.chunks,
        signature=signature,
        trust=trust,
        enabled=True,
        installed=False,
        tags=_tags(catalog),
        profile=manifest.embedding.id,
    )


_INSTALLED_TRUST = {
    "unsigned": "not signed: its origin is not established",
    "unverified": "signed by a key that was not trusted when it was installed",
}


class Library:
    """The catalogs one browser serves, and the memory index of their home when it exists."""

    def __init__(
        self,
        catalogs: Sequence[Catalog] = (),
        *,
        home: Path | str | None = None,
        trust: TrustAnchors | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._home_dir = home
        self.named = bool(catalogs)
        self._trust = trust
        self._handles: dict[str, tuple[str | None, Catalog]] = {}
        self._set: KnowledgeSearch | None = None
        self._search: KnowledgeSearch | None = None
        self.state = installing.HomeState(home)
        if catalogs:
            self._set = KnowledgeSearch.over(catalogs)
            for catalog in catalogs:
                self._handles[f"{catalog.publisher_id}/{catalog.id}"] = (None, catalog)
        else:
            self._search = KnowledgeSearch(self.state)

    # -- catalogs ----------------------------------------------------------------------------

    def cards(self) -> list[CatalogCard]:
        """Every catalog served, in a stable order (publisher, then catalog id)."""
        if self._set is not None:
            return [self._named_card(key) for key in sorted(self._set.served)]
        cards: list[CatalogCard] = []
        for installed in sorted(self.state.installed(), key=lambda c: c.key):
            card = self._installed_card(installed)
            if card is not None:
                cards.append(card)
        return cards

    def keys(self) -> list[str]:
        """``publisher/catalog`` of every catalog served (installed ones with a version)."""
        if self._set is not None:
            return sorted(self._set.served)
        return sorted(c.key for c in self.state.installed() if c.active is not None)

    def card(self, key: str) -> CatalogCard:
        """The card of one served catalog (``publisher/catalog``)."""
        if self._set is not None:
            if key not in self._set.served:
                raise self._not_served(key)
            return self._named_card(key)
        card = self._installed_card(self._installed(key))
        if card is None:
            raise NotFound(f"{key} has no active version", reason="not-installed", subject=key)
        return card

    def _named_card(self, key: str) -> CatalogCard:
        catalog = self._handles[key][1]
        verdict = provenance_verdict(catalog.manifest.raw, self._trust)
        files = sum(f.size_bytes for f in catalog.manifest.files)
        return _card_of(catalog, signature=verdict.status, trust=verdict.message, size=files)

    def _installed_card(self, installed: installing.InstalledCatalog) -> CatalogCard | None:
        version = installed.active
        if version is None:
            return None
        quarantine = version.quarantine
        try:
            catalog = self.catalog(installed.key)
        except NotFound:
            return None
        except (ReasonedError, OSError, sqlite3.Error) as exc:  # listed, with why, not fatal
            quarantine = quarantine or installing.Quarantine("mount-failed", str(exc), "")
            catalog = None
        signature = version.provenance.split(":", 1)[0]
        if signature == "verified":
            trust = f"signed by trusted key {version.provenance.split(':', 1)[1]}"
        else:
            trust = _INSTALLED_TRUST.get(signature, version.provenance)
        if catalog is None:
            return CatalogCard(
                key=installed.key,
                publisher_id=installed.publisher_id,
                catalog_id=installed.catalog_id,
                name=version.name,
                publisher=installed.publisher_id,
                version=version.version,
                language="",
                description=None,
                size_bytes=version.archive_bytes,
                documents=0,
                passages=0,
                signature=signature,
                trust=trust,
                enabled=installed.enabled,
                installed=True,
                tags=(),
                profile=version.embedding_profile,
                quarantine=None if quarantine is None else quarantine.message,
            )
        card = _card_of(catalog, signature=signature, trust=trust, size=version.archive_bytes)
        return _replace_installed(card, installed.enabled, quarantine)

    def _installed(self, key: str) -> installing.InstalledCatalog:
        try:
            return self.state.catalog(key)
        except NotFound:
            raise self._not_served(key) from None

    def _not_served(self, key: str) -> NotFound:
        return NotFound(f"catalog {key} is not served here", reason="not-installed", subject=key)

    def catalog(self, key: str) -> Catalog:
        """The open handle of one served catalog (installed ones are mounted on first use)."""
        with self._lock:
            if self._set is not None:
                found = self._handles.get(key)
                if found is None:
                    raise self._not_served(key)
                return found[1]
            installed = self._installed(key)
            active = installed.active
            if active is None:
                raise NotFound(f"{key} has no active version", reason="not-installed", subject=key)
            held = self._handles.get(installed.key)
            if held is not None and held[0] == active.archive_sha256:
                return held[1]
            if held is not None:
                held[1].close()
            catalog = installing.mount_catalog(
                self.state, installed, allow_disabled=True, embedder="auto"
            )
            self._handles[installed.key] = (active.archive_sha256, catalog)
            return catalog

    def set_enabled(self, key: str, enabled: bool) -> CatalogCard:
        """Enable or disable an installed catalog for search (catalogs named by path cannot)."""
        if self._set is not None:
            raise InvalidInput(
                f"{key} was named on the command line; only installed catalogs are enabled or "
                "disabled",
                reason="not-installed",
                subject=key,
            )
        self.state.set_enabled(self._installed(key).key, enabled)
        return self.card(key)

    # -- search and citations ----------------------------------------------------------------

    def search(
        self, query: str, *, mode: SearchMode, k: int, catalog: str | None = None
    ) -> SearchResult:
        """Search every served catalog (the enabled ones, when installed), or one."""
        if catalog is not None:
            return self.catalog(catalog).search(query, k=k, mode=mode)
        if self._set is not None:
            return self._set.search(query, k=k, mode=mode)
        assert self._search is not None
        return self._search.search(query, k=k, mode=mode)

    def read(self, reference: str) -> tuple[str, Passage]:
        """The served catalog a ``knowledge://`` reference names, and what it resolves to."""
        uri = KnowledgeUri.parse(reference)
        key = f"{uri.publisher_id}/{uri.catalog_id}"
        return key, self.catalog(key).read(uri)

    # -- memory ------------------------------------------------------------------------------

    @property
    def home_dir(self) -> Path | str | None:
        """The Gezel home whose memory is shown (``None``: ``GEZEL_HOME`` or ``~/.gezel``)."""
        return self._home_dir

    def has_memory(self) -> bool:
        """Whether a memory index exists in the home (the browser never creates one)."""
        return memory_db_path(self._home_dir).is_file()

    def memory_days(self) -> list[str]:
        """The days with a memory file, newest first."""
        folder = memory_dir(self._home_dir)
        if not folder.is_dir():
            return []
        return sorted((p.stem for p in folder.glob("????-??-??.md")), reverse=True)

    def close(self) -> None:
        """Close every handle this library opened."""
        with self._lock:
            if self._search is not None:
                self._search.close()
            if self._set is not None:
                self._set.close()
            else:
                for _, catalog in self._handles.values():
                    catalog.close()
            self._handles.clear()


def _replace_installed(
    card: CatalogCard, enabled: bool, quarantine: installing.Quarantine | None
) -> CatalogCard:
    return replace(
        card,
        enabled=enabled,
        installed=True,
        quarantine=None if quarantine is None else quarantine.message,
    )
