"""Check a conformance kit's fixture archives (spec section 13) through the catalog reader.

For each fixture the kit lists (the current generation and every ``legacy`` one) the reader must
verify the archive's digest, open it, and reproduce what the kit recorded: counts, full-text
answers, the semantic probe embedded with ``test-hash-embed@1``, a body round trip, and, from
0.6 on, the nested-topic rollup, an ordered listing, a metadata sample and the shipped asset;
from 0.7 on, shared placements, radius results and the manifest signature.
"""

from __future__ import annotations

import copy
import hashlib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gezel_knowledge.archive import file_sha256
from gezel_knowledge.archive.assets import asset_media_type
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog
from gezk.errors import ReasonedError, SignatureError
from gezk.signing import TrustAnchors, verify_manifest
from gezk.spatial import RadiusQuery

__all__ = ["check_fixture"]


class _Checks:
    """Collects expectation outcomes (the caller turns them into a group result)."""

    def __init__(self) -> None:
        self.checked = 0
        self.failures: list[str] = []

    def expect(self, ok: bool, what: str) -> None:
        self.checked += 1
        if not ok:
            self.failures.append(what)


def check_fixture(
    entry: Mapping[str, Any],
    base: Path,
    *,
    spatial: Mapping[str, Any] | None = None,
    signature: Mapping[str, Any] | None = None,
) -> tuple[int, list[str]] | None:
    """Check one fixture entry; ``None`` when its archive is not present under ``base``.

    Returns the number of expectations checked and the failures. ``spatial`` (the kit's
    ``spatial`` group) and ``signature`` apply to the current generation's fixture only.
    """
    path = base / entry["path"]
    if not path.is_file():
        return None
    c = _Checks()
    digest = file_sha256(path)
    c.expect(digest == entry["sha256"], f"archive sha256 {digest}")
    size = path.stat().st_size
    c.expect(size == entry["sizeBytes"], f"archive size {size}")
    with tempfile.TemporaryDirectory(prefix="gezk-kit-") as cache:
        try:
            catalog = open_catalog(
                path, embedder=HashEmbedder(), cache_dir=Path(cache), expected_sha256=digest
            )
        except ReasonedError as exc:
            c.expect(False, f"cannot open {entry['path']}: {exc} [{exc.reason}]")
            return c.checked, c.failures
        with catalog:
            _check_catalog(c, catalog, entry)
            if spatial is not None:
                _check_nearby(c, catalog, spatial.get("nearby", ()))
            if signature is not None:
                _check_signature(c, catalog.manifest.raw, signature)
    return c.checked, c.failures


def _check_catalog(c: _Checks, catalog: Catalog, entry: Mapping[str, Any]) -> None:
    m = catalog.manifest
    if "formatVersion" in entry:
        c.expect(m.generation.format_version == entry["formatVersion"], "format version")
    c.expect(m.id == entry["catalogId"], f"catalog id {m.id}")
    c.expect(m.version == entry["version"], f"version {m.version}")
    c.expect(m.publisher.id == entry["publisherId"], f"publisher {m.publisher.id}")
    counts = (m.counts.documents, m.counts.chunks, m.counts.shards)
    expected = (entry["documents"], entry["chunks"], entry["shards"])
    c.expect(counts == expected, f"counts {counts} != {expected}")
    for q in entry.get("ftsQueries", ()):
        hits = catalog.search(q["query"], mode="keyword", k=5).hits
        first = hits[0].document_id if hits else None
        c.expect(first == q["expectedDocumentId"], f"full-text {q['query']!r} -> {first}")
    probe = entry.get("semanticProbe")
    if probe is not None:
        hits = catalog.search(probe["embedInput"], mode="vector", k=1).hits
        got = (hits[0].document_id, hits[0].chunk_uid) if hits else None
        c.expect(got == (probe["documentId"], probe["chunkUid"]), f"semantic probe -> {got}")
    round_trip = entry.get("documentRoundTrip")
    if round_trip is not None:
        body = catalog.body(round_trip["documentId"])
        got_sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
        c.expect(got_sha == round_trip["markdownSha256"], f"body sha256 {got_sha}")
    _check_browse(c, catalog, entry)
    for asset in entry.get("assets", ()):
        data = catalog.asset(asset["path"])
        c.expect(hashlib.sha256(data).hexdigest() == asset["sha256"], f"{asset['path']} sha256")
        c.expect(len(data) == asset["sizeBytes"], f"{asset['path']} size {len(data)}")
        media = asset_media_type(asset["path"])
        c.expect(media == asset["contentType"], f"{asset['path']} media type {media}")
    holder = entry.get("assetDocument")
    if holder is not None:
        body = catalog.body(holder["documentId"])
        c.expect(holder["path"] in body, f"{holder['documentId']} does not reference the asset")


def _check_browse(c: _Checks, catalog: Catalog, entry: Mapping[str, Any]) -> None:
    nested = entry.get("nestedTopic")
    if nested is not None:
        topics = {t.id: t for t in catalog.topics()}
        topic = topics.get(nested["id"])
        parent = topics.get(nested["parentId"])
        c.expect(topic is not None and parent is not None, f"topics {nested['id']}")
        if topic is not None and parent is not None:
            c.expect(topic.parent_id == parent.id, f"{topic.id} parent {topic.parent_id}")
            c.expect(topic.direct_count == nested["directDocuments"], f"{topic.id} direct count")
            c.expect(
                parent.direct_count == nested["parentDirectDocuments"], f"{parent.id} direct count"
            )
            c.expect(
                parent.subtree_count == nested["parentTotalDocuments"],
                f"{parent.id} subtree count {parent.subtree_count}",
            )
    listing = entry.get("orderedListing")
    if listing is not None:
        want = list(listing["firstDocumentIds"])
        page = catalog.list_documents(listing["topicId"], limit=len(want))
        got = [d.id for d in page.documents]
        c.expect(got == want, f"listing of {listing['topicId']}: {got}")
    sample = entry.get("metaSample")
    if sample is not None:
        meta = catalog.document(sample["documentId"]).meta
        c.expect(dict(meta or {}) == sample["meta"], f"meta of {sample['documentId']}: {meta}")
    shared = entry.get("sharedToc")
    if shared is not None:
        doc = catalog.document(shared["documentId"])
        references = sorted(p.topic_id for p in doc.placements if not p.primary)
        c.expect(doc.topic_id == shared["primaryTopicId"], f"primary topic {doc.topic_id}")
        c.expect(
            references == sorted(shared["referenceTopicIds"]), f"reference topics {references}"
        )
        listed = catalog.list_documents(limit=1000)
        ids = [d.id for d in listed.documents]
        c.expect(ids.count(doc.id) == 1, "a shared document is listed once")


def _check_nearby(c: _Checks, catalog: Catalog, cases: Any) -> None:
    for case in cases:
        r = case["radius"]
        query = RadiusQuery(r["latitude"], r["longitude"], r["radiusMeters"])
        got = [n.document.id for n in catalog.nearby(query).results]
        c.expect(got == list(case["expectedDocumentIds"]), f"nearby {r}: {got}")


def _check_signature(c: _Checks, manifest: Mapping[str, Any], spec: Mapping[str, Any]) -> None:
    anchors = TrustAnchors([spec["publicKeyPem"]])
    try:
        kid: str | None = verify_manifest(manifest, anchors)
    except SignatureError as exc:
        kid = None
        c.expect(False, f"fixture signature: {exc} [{exc.reason}]")
    else:
        c.expect(kid == spec["manifestSignatureKeyId"], f"signed by {kid}")
    tampered = copy.deepcopy(dict(manifest))
    field = spec.get("tamperedField", "name")
    tampered[field] = f"{tampered.get(field)} (tampered)"
    try:
        verify_manifest(tampered, anchors)
    except SignatureError as exc:
        c.expect(exc.reason == "signature-invalid", f"tampered {field}: {exc.reason}")
    else:
        c.expect(False, f"a manifest with a tampered {field} still verifies")
