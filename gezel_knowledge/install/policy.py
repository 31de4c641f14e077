"""A project's catalog policy: which installed catalogs project-scoped retrieval may use.

``inherit`` uses every catalog the user has installed and enabled; ``selected`` names catalogs
(``publisher/catalog``, because catalog ids are unique only per publisher); ``off`` uses none.
Whatever the policy admits must still be installed, enabled and mount successfully: a policy
never resurrects a disabled or quarantined catalog. The user's own search surface (``find``,
the knowledge browser) does not apply a project's policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install.registry import InstalledCatalog, RegistrySnapshot, catalog_key
from gezk.ids import validate_catalog_id, validate_publisher_id

__all__ = ["CatalogPolicy", "PolicyMode", "eligible_catalogs"]

PolicyMode = Literal["inherit", "selected", "off"]
_MODES: tuple[PolicyMode, ...] = ("inherit", "selected", "off")


def _check_key(key: str) -> str:
    publisher, sep, catalog = key.partition("/")
    if not sep:
        raise InvalidInput(
            f"a selected catalog must be named publisher/catalog, got {key!r}",
            reason="invalid-policy",
            subject=key,
        )
    return catalog_key(validate_publisher_id(publisher), validate_catalog_id(catalog))


@dataclass(frozen=True, slots=True)
class CatalogPolicy:
    """``inherit``, ``selected`` (with catalog keys) or ``off``."""

    mode: PolicyMode = "inherit"
    catalogs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            raise InvalidInput(
                f"catalog policy must be one of {', '.join(_MODES)}, got {self.mode!r}",
                reason="invalid-policy",
                subject=str(self.mode),
            )
        if self.mode != "selected" and self.catalogs:
            raise InvalidInput(
                f"catalog policy {self.mode!r} takes no catalog list",
                reason="invalid-policy",
                subject=self.mode,
            )
        keys = tuple(dict.fromkeys(_check_key(k) for k in self.catalogs))
        object.__setattr__(self, "catalogs", keys)

    @classmethod
    def inherit(cls) -> CatalogPolicy:
        """Every installed, enabled catalog."""
        return cls("inherit")

    @classmethod
    def off(cls) -> CatalogPolicy:
        """No catalogs."""
        return cls("off")

    @classmethod
    def selected(cls, catalogs: Iterable[str]) -> CatalogPolicy:
        """Only these ``publisher/catalog`` keys (and only while installed and enabled)."""
        return cls("selected", tuple(catalogs))

    def admits(self, key: str) -> bool:
        """Whether the policy allows the catalog with this key."""
        if self.mode == "inherit":
            return True
        if self.mode == "off":
            return False
        return key in self.catalogs

    def to_json(self) -> dict[str, Any]:
        """``{"mode": ..., "catalogs": [...]}``."""
        obj: dict[str, Any] = {"mode": self.mode}
        if self.mode == "selected":
            obj["catalogs"] = list(self.catalogs)
        return obj

    @classmethod
    def from_json(cls, obj: Any) -> CatalogPolicy:
        """Parse ``"inherit"``, ``"off"`` or ``{"mode": ..., "catalogs": [...]}``."""
        if isinstance(obj, str):
            return cls(obj)  # type: ignore[arg-type]
        if not isinstance(obj, Mapping):
            raise InvalidInput(
                "catalog policy must be a string or an object", reason="invalid-policy"
            )
        catalogs = obj.get("catalogs", [])
        if not isinstance(catalogs, list) or not all(isinstance(c, str) for c in catalogs):
            raise InvalidInput(
                "catalog policy 'catalogs' must be a list of strings", reason="invalid-policy"
            )
        return cls(obj.get("mode", "inherit"), tuple(catalogs))


def eligible_catalogs(
    snapshot: RegistrySnapshot, policy: CatalogPolicy = CatalogPolicy()
) -> list[InstalledCatalog]:
    """Catalogs the policy admits that are installed, enabled and not quarantined, by key."""
    return [c for c in snapshot if c.usable and policy.admits(c.key)]
