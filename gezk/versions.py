"""Format generations: which ``formatVersion`` pairs with which ``indexSchemaVersion``
(spec section 1). A reader supports an explicit set and refuses anything else with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from gezk.errors import UnsupportedVersion

__all__ = ["SUPPORTED", "WRITTEN", "Generation", "generation", "generation_for_schema"]


@dataclass(frozen=True, slots=True)
class Generation:
    """One format generation: a ``formatVersion`` string and its index schema integer."""

    format_version: str
    index_schema_version: int

    def __str__(self) -> str:
        return f"{self.format_version}/{self.index_schema_version}"


SUPPORTED: tuple[Generation, ...] = (
    Generation("0.5", 2),
    Generation("0.6", 3),
    Generation("0.7", 4),
)
"""The generations this implementation reads, oldest first."""

WRITTEN: Generation = SUPPORTED[-1]
"""The generation the compiler writes."""


def generation(format_version: object, index_schema_version: object | None = None) -> Generation:
    """The supported generation named by a manifest's versions; refuse anything else.

    Raises :class:`UnsupportedVersion` with reason ``unsupported-format`` for a version outside
    the supported set and ``version-mismatch`` when the two are paired otherwise than the spec
    pairs them.
    """
    for gen in SUPPORTED:
        if format_version == gen.format_version:
            if (
                index_schema_version is not None
                and index_schema_version != gen.index_schema_version
            ):
                raise UnsupportedVersion(
                    f"formatVersion {format_version!r} pairs with indexSchemaVersion "
                    f"{gen.index_schema_version}, not {index_schema_version!r}",
                    reason="version-mismatch",
                    subject=str(format_version),
                )
            return gen
    supported = ", ".join(g.format_version for g in SUPPORTED)
    raise UnsupportedVersion(
        f"formatVersion {format_version!r} is not supported (this reader reads {supported})",
        reason="unsupported-format",
        subject=str(format_version),
    )


def generation_for_schema(index_schema_version: object) -> Generation:
    """The supported generation whose index schema is ``index_schema_version``."""
    for gen in SUPPORTED:
        if index_schema_version == gen.index_schema_version:
            return gen
    raise UnsupportedVersion(
        f"index schema {index_schema_version!r} is not supported",
        reason="unsupported-format",
        subject=str(index_schema_version),
    )
