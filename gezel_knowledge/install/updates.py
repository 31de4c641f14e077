"""Updates of installed catalogs from publisher registry documents (seed "Installation,
integrity, and updates").

:func:`check_updates` compares each installed catalog's active version with the releases that
registry documents list for it, newest by natural version order, and reports what is newer.
It downloads no archive; it fetches a registry document over the network only when the
:class:`UpdatePolicy` allows network use. :func:`apply_updates` installs the newer releases
through the ordinary install job, so the enabled setting is kept and the previous version stays
active until the new one is published and registered. Background update work respects the
app-network policy: a policy that forbids the network makes :func:`apply_updates` refuse with
:class:`~gezel_knowledge.install.errors.NetworkNotAllowed` before it changes anything. An
update the user explicitly asks for is the user's own download (``UpdatePolicy.explicit()``),
as is every :meth:`~gezel_knowledge.install.home.KnowledgeHome.install` call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gezel_knowledge.errors import Cancelled
from gezel_knowledge.install.download import is_url
from gezel_knowledge.install.errors import NetworkNotAllowed
from gezel_knowledge.install.job import run_install
from gezel_knowledge.install.placement import PlacementRequest
from gezel_knowledge.install.registry_document import (
    RegistryDocument,
    RegistryRelease,
    load_registry_document,
    version_sort_key,
)
from gezel_knowledge.install.result import InstallResult
from gezel_knowledge.install.state import HomeState
from gezk.errors import GezkError, ReasonedError
from gezk.signing import TrustAnchors

if TYPE_CHECKING:
    from gezel_knowledge.install.cancel import CancelToken
    from gezel_knowledge.install.registry import InstalledCatalog
    from gezel_knowledge.progress import ProgressSink

__all__ = [
    "AvailableUpdate",
    "RegistryProblem",
    "UpdateCheck",
    "UpdateFailure",
    "UpdatePolicy",
    "UpdateReport",
    "apply_updates",
    "check_updates",
]

RegistrySource = RegistryDocument | str | Path
"""A parsed registry document, or where to read one (a file path or an ``http(s)`` URL)."""


@dataclass(frozen=True, slots=True)
class UpdatePolicy:
    """Whether update work may use the network.

    ``network_allowed`` is the app-network policy for background work; ``user_requested``
    marks an update the user asked for explicitly, which is their own download.
    """

    network_allowed: bool = False
    user_requested: bool = False

    @classmethod
    def background(cls, *, network_allowed: bool) -> UpdatePolicy:
        """Background update work under the app-network policy."""
        return cls(network_allowed=network_allowed)

    @classmethod
    def explicit(cls) -> UpdatePolicy:
        """An update the user requested: it may download."""
        return cls(user_requested=True)

    @property
    def may_use_network(self) -> bool:
        """Whether this work may fetch registry documents and archives."""
        return self.network_allowed or self.user_requested


@dataclass(frozen=True, slots=True)
class AvailableUpdate:
    """A newer release of an installed catalog."""

    catalog: str
    """``publisher/catalog``."""
    current_version: str
    current_sha256: str
    release: RegistryRelease
    registry: str
    """The registry document that lists the release."""
    verified: bool
    """Whether that registry's signature verified against the caller's trust anchors."""

    @property
    def coordinate(self) -> str:
        """``publisher/catalog@version`` of the newer release."""
        return str(self.release.coordinate)


@dataclass(frozen=True, slots=True)
class RegistryProblem:
    """A registry document that was not consulted, and why."""

    registry: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class UpdateCheck:
    """What the registries offer for the installed catalogs."""

    updates: tuple[AvailableUpdate, ...]
    current: tuple[str, ...]
    """Installed catalogs whose newest listed release is not newer than the active version."""
    unlisted: tuple[str, ...]
    """Installed catalogs that no consulted registry lists."""
    problems: tuple[RegistryProblem, ...]
    documents: tuple[RegistryDocument, ...]
    """The registry documents that were read (and verified, when trust was given)."""


@dataclass(frozen=True, slots=True)
class UpdateFailure:
    """An update that could not be applied; the previous version is still active."""

    catalog: str
    coordinate: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class UpdateReport:
    """What :func:`apply_updates` did."""

    check: UpdateCheck
    applied: tuple[InstallResult, ...]
    failed: tuple[UpdateFailure, ...]


def _location(source: RegistrySource) -> str:
    return source.source if isinstance(source, RegistryDocument) else str(source)


def _recorded(installed: Sequence[InstalledCatalog]) -> list[RegistrySource]:
    """The registry documents the active versions were resolved through, in catalog order."""
    seen: dict[str, None] = {}
    for catalog in installed:
        active = catalog.active
        if active is not None and active.registry is not None:
            seen.setdefault(active.registry)
    return list(seen)


def _load(
    home: HomeState,
    sources: Sequence[RegistrySource],
    policy: UpdatePolicy,
    trust: TrustAnchors | None,
) -> tuple[list[tuple[RegistryDocument, bool]], list[RegistryProblem]]:
    documents: list[tuple[RegistryDocument, bool]] = []
    problems: list[RegistryProblem] = []
    for source in sources:
        where = _location(source)
        if isinstance(source, RegistryDocument):
            document = source
        elif is_url(where) and not policy.may_use_network:
            problems.append(
                RegistryProblem(
                    where,
                    "network-not-allowed",
                    f"not fetching {where}: the network policy does not allow it",
                )
            )
            continue
        else:
            try:
                document = load_registry_document(source, opener=home.opener)
            except ReasonedError as exc:
                problems.append(RegistryProblem(where, exc.reason, exc.message))
                continue
        verified = False
        if trust is not None:
            try:
                document.verify(trust)
            except GezkError as exc:
                problems.append(RegistryProblem(where, exc.reason, exc.message))
                continue
            verified = True
        documents.append((document, verified))
    return documents, problems


def check_updates(
    home: HomeState,
    registries: Sequence[RegistrySource] | None = None,
    *,
    policy: UpdatePolicy,
    trust: TrustAnchors | None = None,
    catalogs: Sequence[str] | None = None,
) -> UpdateCheck:
    """Compare the installed catalogs (or those ``catalogs`` names, as ``publisher/catalog``
    or unique ids) with ``registries`` (default: the registry documents they were installed
    through); download nothing.

    With ``trust``, a registry whose signature does not verify is not consulted (it appears
    in :attr:`UpdateCheck.problems`).
    """
    installed = home.installed()
    if catalogs is not None:
        snapshot = home.snapshot()
        wanted = {snapshot.find(ref).key for ref in catalogs}
        installed = [c for c in installed if c.key in wanted]
    sources = _recorded(installed) if registries is None else list(registries)
    loaded, problems = _load(home, sources, policy, trust)
    updates: list[AvailableUpdate] = []
    current: list[str] = []
    unlisted: list[str] = []
    for catalog in installed:
        active = catalog.active
        if active is None:
            continue
        best: tuple[RegistryRelease, RegistryDocument, bool] | None = None
        for document, verified in loaded:
            if document.publisher_id != catalog.publisher_id:
                continue
            releases = document.releases_of(catalog.catalog_id)
            if releases and (
                best is None
                or version_sort_key(releases[0].version) > version_sort_key(best[0].version)
            ):
                best = (releases[0], document, verified)
        if best is None:
            unlisted.append(catalog.key)
        elif version_sort_key(best[0].version) > version_sort_key(active.version):
            release, document, verified = best
            updates.append(
                AvailableUpdate(
                    catalog.key,
                    active.version,
                    active.archive_sha256,
                    release,
                    document.source,
                    verified,
                )
            )
        else:
            current.append(catalog.key)
    return UpdateCheck(
        tuple(updates),
        tuple(current),
        tuple(unlisted),
        tuple(problems),
        tuple(d for d, _ in loaded),
    )


def apply_updates(
    home: HomeState,
    registries: Sequence[RegistrySource] | None = None,
    *,
    policy: UpdatePolicy,
    trust: TrustAnchors | None = None,
    catalogs: Sequence[str] | None = None,
    progress: ProgressSink | None = None,
    cancel: CancelToken | None = None,
    placement: PlacementRequest = "auto",
) -> UpdateReport:
    """Install every available update (or those of ``catalogs``) through the install job.

    Raises :class:`NetworkNotAllowed` before changing anything when an update is due and the
    policy forbids the network. A failed update leaves its previous version active and is
    reported; cancellation stops the run. A version the user had placed privately on request
    stays private.
    """
    check = check_updates(home, registries, policy=policy, trust=trust, catalogs=catalogs)
    due = list(check.updates)
    if due and not policy.may_use_network:
        names = ", ".join(f"{u.catalog} {u.release.version}" for u in due)
        raise NetworkNotAllowed(
            f"{len(due)} update(s) need a download, which the network policy does not "
            f"allow: {names}",
            subject=due[0].catalog,
        )
    applied: list[InstallResult] = []
    failed: list[UpdateFailure] = []
    for update in due:
        active = home.catalog(update.catalog).active
        where: PlacementRequest = placement
        if active is not None and active.placement_reason == "private-requested":
            where = "private"
        try:
            result = run_install(
                home,
                update.coordinate,
                update.release.content_digest,
                progress,
                cancel=cancel,
                trust=trust if update.verified else None,
                registries=check.documents,
                placement=where,
            )
        except Cancelled:
            raise
        except ReasonedError as exc:
            failed.append(UpdateFailure(update.catalog, update.coordinate, exc.reason, exc.message))
            continue
        applied.append(result)
    return UpdateReport(check, tuple(applied), tuple(failed))
