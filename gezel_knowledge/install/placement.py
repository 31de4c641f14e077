"""Where an install's bytes go: the machine's shared store or this user's private home, and why.

A trusted coordinate goes to the shared store when one is configured and usable; everything else
(local files, arbitrary URLs, unverified registries) is private, with a stable reason the result
reports. A ``shared`` request that cannot be met fails rather than quietly becoming private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.errors import SharedPlacementUnavailable
from gezel_knowledge.install.registry import Placement
from gezel_knowledge.install.shared_store import SharedStore
from gezel_knowledge.install.source import InstallSource
from gezel_knowledge.install.state import HomeState

__all__ = [
    "PLACEMENT_REQUESTS",
    "PlacementChoice",
    "PlacementRequest",
    "check_placement_request",
    "choose_placement",
    "damaged_placement",
]

PlacementRequest = Literal["auto", "private", "shared"]
"""``auto``: shared when the source is a trusted coordinate and a writable shared store is
configured, else private; ``private``: always private; ``shared``: shared or fail."""

PLACEMENT_REQUESTS: tuple[PlacementRequest, ...] = ("auto", "private", "shared")


@dataclass(frozen=True, slots=True)
class PlacementChoice:
    """The store chosen (``None``: private), and why private when it is."""

    store: SharedStore | None
    reason: str | None = None
    message: str | None = None

    @property
    def kind(self) -> Placement:
        """``private`` or ``shared``."""
        return "private" if self.store is None else "shared"

    def describe(self) -> str:
        """One line for the progress report."""
        if self.store is not None:
            return f"shared store {self.store.root}"
        return f"private ({self.reason}: {self.message})"


def check_placement_request(placement: str) -> None:
    """Refuse a placement request outside :data:`PLACEMENT_REQUESTS`."""
    if placement not in PLACEMENT_REQUESTS:
        raise InvalidInput(
            f"placement must be one of {', '.join(PLACEMENT_REQUESTS)}, got {placement!r}",
            reason="invalid-placement",
            subject=str(placement),
        )


def choose_placement(
    home: HomeState, src: InstallSource, request: PlacementRequest
) -> PlacementChoice:
    """Shared for a trusted coordinate when a usable store is configured; else private, why."""
    if request == "private":
        return PlacementChoice(None, "private-requested", "private placement was requested")
    if src.kind == "file":
        reason, message = "local-import", "local imports use private storage"
    elif src.kind == "url":
        reason, message = "arbitrary-url", "installs from a URL use private storage"
    elif not src.trusted:
        reason = "unverified-registry"
        message = "the registry document was not verified against trust anchors"
    else:
        store = home.shared_store
        if store is None:
            reason = "no-shared-store"
            message = "no shared store is configured (GEZEL_SHARED_STORE)"
        else:
            problem = store.problem()
            if problem is None:
                return PlacementChoice(store)
            reason, message = "shared-store-unavailable", problem
    if request == "shared":
        raise SharedPlacementUnavailable(
            f"{src.label} cannot be placed in a shared store: {message}",
            reason=reason,
            subject=src.label,
        )
    return PlacementChoice(None, reason, message)


def damaged_placement(
    src: InstallSource, request: PlacementRequest, problem: str
) -> PlacementChoice:
    """Private instead of a shared store whose copy is damaged (``shared`` requests fail)."""
    message = f"the shared store's copy is damaged ({problem}); installing privately"
    if request == "shared":
        raise SharedPlacementUnavailable(
            f"{src.label}: {message}", reason="shared-copy-damaged", subject=src.label
        )
    return PlacementChoice(None, "shared-copy-damaged", message)
