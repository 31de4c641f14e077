"""One run of the install job: the home, the caller's options, progress and cancellation."""

from __future__ import annotations

from dataclasses import dataclass

from gezel_knowledge.install.cancel import CancelToken
from gezel_knowledge.install.placement import PlacementRequest
from gezel_knowledge.install.state import HomeState
from gezel_knowledge.progress import ProgressEvent, ProgressSink, emit_safely
from gezk.signing import TrustAnchors

__all__ = ["JobContext"]


@dataclass(frozen=True, slots=True)
class JobContext:
    """What every step of one install needs: where, with which options, reporting to whom."""

    home: HomeState
    progress: ProgressSink | None
    cancel: CancelToken
    trust: TrustAnchors | None
    keep_previous: bool
    require_signature: bool
    placement: PlacementRequest
    """The caller's request, carried to every later placement decision: ``shared`` must fail,
    never quietly become private."""
    allow_trust_change: bool = False
    """Whether a catalog verified by a trusted key may be replaced by bytes that key does not
    verify (see :func:`~gezel_knowledge.install.publish.check_trust_continuity`)."""

    def emit(
        self,
        step: str,
        done: int = 0,
        total: int | None = None,
        unit: str = "bytes",
        message: str = "",
    ) -> None:
        """Report one step of job ``install``."""
        emit_safely(self.progress, ProgressEvent("install", step, done, total, unit, message))

    def check(self) -> None:
        """A cancellation check point."""
        self.cancel.check("install")
