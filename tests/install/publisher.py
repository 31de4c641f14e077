"""A test publisher: archives and a signed registry document served from a local web site."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gezel_knowledge.install.registry_document import RegistryDocument
from gezk.signing import TrustAnchors, generate_private_key, sign_manifest


@dataclass
class Publisher:
    """Releases of publisher ``tester``, served by ``site`` with a signed ``registry.json``."""

    site: Any
    key: Ed25519PrivateKey = field(default_factory=generate_private_key)
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def anchors(self) -> TrustAnchors:
        """Trust anchors holding this publisher's key."""
        anchors = TrustAnchors()
        anchors.add(self.key.public_key())
        return anchors

    def release(self, archive: Path, catalog_id: str, version: str) -> str:
        """Serve ``archive`` as ``catalog_id@version`` and list it; return its digest."""
        data = archive.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        name = f"{catalog_id}-{version}.gezk"
        self.site.files[name] = data
        self.rows.append(
            {
                "catalogId": catalog_id,
                "version": version,
                "name": f"{catalog_id} {version}",
                "language": "en",
                "documents": 8,
                "archiveBytes": len(data),
                "contentDigest": digest,
                "url": self.site.url(name),
                "license": {"name": "CC0", "attributionRequired": False},
            }
        )
        self.site.files["registry.json"] = json.dumps(self.document_json()).encode()
        return digest

    def document_json(self, *, signed: bool = True) -> dict[str, Any]:
        """The registry document (signed by this publisher's key unless ``signed=False``)."""
        doc = {
            "kind": "gezk-registry",
            "formatVersion": "0.7",
            "publisher": {"id": "tester", "name": "Tester"},
            "generatedAt": "2026-01-01T00:00:00Z",
            "catalogs": list(self.rows),
        }
        return sign_manifest(doc, self.key) if signed else doc

    def document(self, *, signed: bool = True) -> RegistryDocument:
        """The parsed registry document."""
        return RegistryDocument.parse(self.document_json(signed=signed))

    def write(self, path: Path) -> Path:
        """Write the signed registry document to ``path``."""
        path.write_text(json.dumps(self.document_json()), encoding="utf-8")
        return path
