"""Reading a catalog's ``manifest.json`` on the product side (spec section 4).

The manifest is :class:`gezk.manifest.CatalogManifest`; this module parses it the way every
reader of an archive or an extracted catalog does (leniently: the schema is the validator's to
report) and turns the format layer's refusals into this package's errors: a malformed manifest
is an :class:`~gezel_knowledge.errors.IntegrityFailure` with reason ``invalid-manifest`` naming
the JSON path, an unsupported generation or vector encoding is
:class:`~gezel_knowledge.errors.Unsupported`.
"""

from __future__ import annotations

from gezel_knowledge.errors import IntegrityFailure, Unsupported, knowledge_error
from gezk.errors import InvalidManifest, InvalidProfile, UnsupportedVersion
from gezk.manifest import CatalogManifest

__all__ = ["parse_manifest_bytes"]


def parse_manifest_bytes(data: bytes) -> CatalogManifest:
    """The typed manifest of UTF-8 JSON ``manifest.json`` bytes; refuse what cannot be read."""
    try:
        return CatalogManifest.parse(data, strict=False)
    except InvalidManifest as exc:
        raise knowledge_error(exc, IntegrityFailure) from exc
    except (UnsupportedVersion, InvalidProfile) as exc:
        raise knowledge_error(exc, Unsupported) from exc
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        # A member of a shape no rule anticipated is still a malformed manifest.
        raise IntegrityFailure(
            f"manifest.json is malformed: {exc}", reason="invalid-manifest", subject="$"
        ) from exc
