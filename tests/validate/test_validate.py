"""Validation reports every finding with a typed reason; each rule has a broken catalog."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import brotli
import numpy as np
import pytest

from gezel_knowledge.validate import Finding, validate_archive, validate_catalog
from gezk.signing import TrustAnchors, generate_private_key
from tests.reader.catalog_builder import CatalogBuild, mutate_db, pack, reseal, sample_docs

Fresh = Callable[[str], Path]


def reasons(root: Path, *, deep: bool = False) -> set[str]:
    return {f.reason for f in validate_catalog(root, deep=deep).findings}


@pytest.mark.parametrize("name", ["embedded", "external"])
def test_a_good_catalog_passes_deep_validation(good_catalogs: dict[str, Path], name: str) -> None:
    report = validate_catalog(good_catalogs[name], deep=True)
    assert report.findings == ()
    assert report.ok
    assert "deep" in report.checks
    assert report.provenance.status == "unsigned"
    assert not report.provenance.verified


@pytest.mark.parametrize("version", ["0.5", "0.6"])
def test_legacy_generations_validate_under_their_own_rules(tmp_path: Path, version: str) -> None:
    docs, topics = sample_docs(6)
    root = CatalogBuild(docs, topics, format_version=version).write(tmp_path / "c")
    report = validate_catalog(root, deep=True)
    assert report.findings == ()


def test_0_5_document_filed_below_a_root_is_refused(tmp_path: Path) -> None:
    docs, topics = sample_docs(6)
    root = CatalogBuild(docs, topics, format_version="0.5").write(tmp_path / "c")
    router = root / "index" / "router.db"
    mutate_db(
        router,
        "UPDATE documents SET topic_id = 'metals' WHERE id = 'doc-0000'",
        "UPDATE topics SET document_count = document_count + 1 WHERE id = 'metals'",
        "UPDATE topics SET document_count = document_count - 1 WHERE id = 'craft'",
    )
    reseal(root)
    assert "not-at-root" in reasons(root)


def test_modified_file_is_a_digest_mismatch(fresh: Fresh) -> None:
    root = fresh("embedded")
    readme = root / "README.md"
    readme.write_text(readme.read_text().upper())
    assert "digest-mismatch" in reasons(root)


def test_undeclared_and_missing_files(fresh: Fresh) -> None:
    root = fresh("embedded")
    (root / "stray.txt").write_text("x")
    (root / "LICENSES" / "catalog.txt").unlink()
    found = reasons(root)
    assert {"undeclared-entry", "missing-entry"} <= found


def test_swapped_shard_from_another_catalog_is_refused(
    fresh: Fresh, good_catalogs: dict[str, Path]
) -> None:
    root = fresh("external")
    target = root / "index" / "shards" / "000.db"
    target.write_bytes((good_catalogs["other"] / "index" / "shards" / "000.db").read_bytes())
    assert "digest-mismatch" in reasons(root)
    reseal(root)  # even with the manifest rewritten to match, the shard's meta betrays it
    assert "shard-mismatch" in reasons(root)


def test_misaligned_vectors_are_refused(fresh: Fresh) -> None:
    root = fresh("embedded")
    router = root / "index" / "router.db"
    # Swap the sign bits of two chunks: counts and widths still agree.
    mutate_db(
        router,
        "UPDATE chunk_vectors_bit SET v = (SELECT v FROM chunk_vectors_bit WHERE chunk_id = 2)"
        " WHERE chunk_id = 1",
    )
    reseal(root)
    assert "vectors-misaligned" in reasons(root, deep=True)


def test_sign_bits_that_contradict_their_int8_row_name_the_first_chunk(fresh: Fresh) -> None:
    root = fresh("external")
    mutate_db(
        root / "index" / "shards" / "000.db",
        "UPDATE chunk_vectors_bit SET v = (SELECT v FROM chunk_vectors_bit WHERE chunk_id = 2)"
        " WHERE chunk_id = 3",
    )
    reseal(root)
    found = [f for f in validate_catalog(root, deep=True).findings if f.subject == "shard 0"]
    assert [f.reason for f in found] == ["vectors-misaligned"]
    assert found[0].message.endswith("(first chunk 3)")


def test_missing_vector_row_is_refused(fresh: Fresh) -> None:
    root = fresh("external")
    mutate_db(
        root / "index" / "shards" / "000.db", "DELETE FROM chunk_vectors_int8 WHERE chunk_id = 3"
    )
    reseal(root)
    assert "vectors-misaligned" in reasons(root, deep=True)


def test_wrong_vector_width_is_refused(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "UPDATE chunk_vectors_bit SET v = substr(v, 1, 40) WHERE chunk_id = 5",
    )
    reseal(root)
    assert "vectors-misaligned" in reasons(root, deep=True)


def test_cyclic_topics_are_refused(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db", "UPDATE topics SET parent_id = 'metals' WHERE id = 'craft'"
    )
    reseal(root)
    report = validate_catalog(root)
    assert "topic-cycle" in {f.reason for f in report.findings}
    assert not report.ok


def test_bad_counts_are_refused(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "UPDATE topics SET document_count = document_count + 2 WHERE id = 'wood'",
    )
    reseal(root, manifest_edit=lambda m: m["counts"].update(documents=99))
    found = reasons(root)
    assert {"topic-count-mismatch", "document-count-mismatch"} <= found


@pytest.mark.parametrize(
    ("statements", "reason"),
    [
        (
            [
                "DELETE FROM topic_documents WHERE document_id = 'doc-0002' AND topic_id = 'wood'",
                "UPDATE topics SET document_count = document_count - 1 WHERE id = 'wood'",
            ],
            "missing-primary-placement",
        ),
        (
            [
                "UPDATE topic_documents SET ordinal = 77 WHERE document_id = 'doc-0000'"
                " AND topic_id = 'craft'"
            ],
            "primary-ordinal-mismatch",
        ),
        (
            ["INSERT INTO topic_documents VALUES ('nowhere', 'doc-0001', NULL)"],
            "undeclared-placement-target",
        ),
        (
            [
                "UPDATE topic_documents SET ordinal = 4294967296 WHERE document_id = 'doc-0000'"
                " AND topic_id = 'nature'"
            ],
            "invalid-ordinal",
        ),
        (["UPDATE documents SET topic_id = 'ghost' WHERE id = 'doc-0001'"], "undeclared-topic"),
    ],
)
def test_placement_rules_of_schema_4(fresh: Fresh, statements: list[str], reason: str) -> None:
    root = fresh("embedded")
    mutate_db(root / "index" / "router.db", *statements)
    reseal(root)
    assert reason in reasons(root)


def test_spatial_summary_is_recomputed(fresh: Fresh) -> None:
    root = fresh("embedded")

    def edit(m: dict[str, object]) -> None:
        spatial = m["spatial"]
        assert isinstance(spatial, dict)
        spatial["locationCount"] = 5
        spatial["coverage"] = [{"west": 0.0, "south": 0.0, "east": 1.0, "north": 1.0}]

    reseal(root, manifest_edit=edit)
    findings = validate_catalog(root).findings
    spatial = [f for f in findings if f.reason == "spatial-mismatch"]
    assert {f.subject for f in spatial} == {"$.spatial.locationCount", "$.spatial.coverage"}


def test_associated_points_do_not_enlarge_coverage(good_catalogs: dict[str, Path]) -> None:
    manifest = json.loads((good_catalogs["embedded"] / "manifest.json").read_text())
    assert manifest["spatial"]["coverage"] == [
        {"west": -122.3, "south": 47.6, "east": -122.3, "north": 47.6}
    ]
    assert manifest["spatial"]["locationCount"] == 2


def test_invalid_location_rows(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "INSERT INTO document_locations VALUES ('doc-0003', 'bad', 10, 10, 'subject', '[1,2]')",
    )
    reseal(root)
    assert {"invalid-location", "spatial-mismatch"} <= reasons(root)


def test_json_columns_must_hold_objects(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "UPDATE documents SET attribution_json = '{\"by\": 3}' WHERE id = 'doc-0002'",
        "UPDATE documents SET attribution_json = 'not json' WHERE id = 'doc-0003'",
        "UPDATE documents SET meta_json = '[1]' WHERE id = 'doc-0004'",
        (
            "UPDATE documents SET meta_json = ? WHERE id = 'doc-0005'",
            [json.dumps({"k": "x" * 20000})],
        ),
        "UPDATE document_locations SET provenance_json = '{broken' WHERE document_id = 'doc-0001'"
        " AND location_id = 'a'",
    )
    reseal(root)
    found = {(f.reason, f.subject) for f in validate_catalog(root).findings}
    assert {
        ("invalid-attribution", "doc-0002"),
        ("invalid-attribution", "doc-0003"),
        ("invalid-meta-json", "doc-0004"),
        ("invalid-meta-json", "doc-0005"),
        ("invalid-location", "doc-0001#a"),
    } <= found
    assert not {f for f in found if f[1] in ("doc-0000", "doc-0006")}


def test_decompression_bomb_body_is_refused(fresh: Fresh) -> None:
    root = fresh("embedded")
    bomb = brotli.compress(b"\0" * (17 * 1024 * 1024), quality=5)
    assert len(bomb) < 1024
    mutate_db(
        root / "index" / "router.db",
        ("UPDATE documents SET body_codec = 'br', body_blob = ? WHERE id = 'doc-0004'", [bomb]),
    )
    reseal(root)
    assert "body-too-large" in reasons(root, deep=True)


def test_tampered_chunk_text_breaks_content_ids(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db", "UPDATE chunks SET text = text || ' injected' WHERE id = 2"
    )
    reseal(root)
    assert "chunk-uid-mismatch" in reasons(root, deep=True)


def test_failing_smoke_query_is_reported(fresh: Fresh) -> None:
    root = fresh("embedded")
    reseal(
        root,
        manifest_edit=lambda m: m["smokeQueries"].append(
            {"query": "zzzz nothing matches", "expectedDocumentIds": ["doc-0001"]}
        ),
    )
    assert "smoke-query-failed" in reasons(root, deep=True)


def test_router_meta_must_echo_the_manifest(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "UPDATE meta SET value = '9.9.9' WHERE key = 'catalog_version'",
    )
    reseal(root)
    assert "meta-mismatch" in reasons(root)


def test_wrong_application_id_is_refused(fresh: Fresh) -> None:
    root = fresh("external")
    mutate_db(root / "index" / "shards" / "000.db", "PRAGMA application_id = 1")
    reseal(root)
    assert "not-a-catalog-database" in reasons(root)


def test_corrupted_database_pages_fail_integrity(fresh: Fresh) -> None:
    root = fresh("embedded")
    router = root / "index" / "router.db"
    data = bytearray(router.read_bytes())
    page = 8192
    # Scribble over the b-tree header of every page after the schema page.
    for start in range(page, len(data), page):
        data[start : start + 12] = b"\x0d\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00"
    router.write_bytes(bytes(data))
    reseal(root)
    found = reasons(root, deep=True)
    assert found & {"integrity-check", "corrupt-database"}


def test_manifest_schema_violations_are_findings(fresh: Fresh) -> None:
    root = fresh("embedded")
    reseal(root, manifest_edit=lambda m: m.update(language="x", name=""))
    findings = validate_catalog(root).findings
    paths = {f.subject for f in findings if f.reason == "manifest-schema"}
    assert {"$.language", "$.name"} <= paths


def test_unsupported_generation_is_a_finding(fresh: Fresh) -> None:
    root = fresh("embedded")
    reseal(root, manifest_edit=lambda m: m.update(formatVersion="0.8"))
    report = validate_catalog(root)
    assert [f.reason for f in report.findings] == ["unsupported-format"]


@pytest.mark.parametrize(
    ("requires", "reason", "subject"),
    [
        ({"formatVersion": "0.9"}, "unsupported-format", "$.requires.formatVersion"),
        ({"formatVersion": "0.7", "features": ["x"]}, "unsupported-feature", "$.requires.features"),
    ],
)
def test_unmet_requirements_are_the_readers_own_refusal(
    fresh: Fresh, requires: dict[str, object], reason: str, subject: str
) -> None:
    # The validator reports what every reader refuses, with the same reason: the catalog
    # cannot be read any further, so it is the only finding.
    root = fresh("embedded")
    reseal(root, manifest_edit=lambda m: m.update(requires=requires))
    report = validate_catalog(root)
    assert [(f.reason, f.subject) for f in report.findings] == [(reason, subject)]
    assert not report.ok


def test_every_finding_is_reported_not_just_the_first(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        "UPDATE topics SET parent_id = 'metals' WHERE id = 'craft'",
        "UPDATE topics SET document_count = 40 WHERE id = 'wood'",
        "UPDATE meta SET value = 'x' WHERE key = 'created_at'",
    )
    reseal(root)
    (root / "stray.bin").write_bytes(b"\0")
    found = reasons(root)
    assert {"topic-cycle", "topic-count-mismatch", "meta-mismatch", "undeclared-entry"} <= found


def test_svg_with_script_in_an_extracted_catalog(fresh: Fresh) -> None:
    root = fresh("embedded")
    (root / "assets").mkdir()
    (root / "assets" / "x.svg").write_bytes(b"<svg><script>1</script></svg>")

    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"].append({"path": "assets/x.svg", "sizeBytes": 0, "sha256": "0" * 64})
    manifest["counts"]["assets"] = 1
    (root / "manifest.json").write_text(json.dumps(manifest))
    reseal(root)
    assert reasons(root) == {"unsafe-svg"}


def test_body_referencing_a_missing_asset(fresh: Fresh) -> None:
    root = fresh("embedded")
    mutate_db(
        root / "index" / "router.db",
        (
            "UPDATE documents SET body_codec = 'none', body_blob = ? WHERE id = 'doc-0003'",
            [b"# T\n\n![x](assets/missing.png)\n"],
        ),
    )
    reseal(root)
    assert "missing-asset" in reasons(root, deep=True)


def _missing_assets(root: Path) -> list[Finding]:
    # Other findings (the shortened body's chunk line ranges) are not what these tests are about.
    return [f for f in validate_catalog(root, deep=True).findings if f.reason == "missing-asset"]


def _with_body(root: Path, body: str) -> Path:
    mutate_db(
        root / "index" / "router.db",
        (
            "UPDATE documents SET body_codec = 'none', body_blob = ? WHERE id = 'doc-0003'",
            [body.encode()],
        ),
    )
    reseal(root)
    return root


@pytest.mark.parametrize(
    "body",
    [
        '# T\n\n<img src="assets/x.png" width="10">\n',
        "# T\n\nSee [the map][m].\n\n[m]: assets/x.png\n",
    ],
)
def test_html_and_reference_style_asset_references_are_checked(fresh: Fresh, body: str) -> None:
    root = _with_body(fresh("embedded"), body)
    missing = _missing_assets(root)
    assert [(f.subject, f.message) for f in missing] == [
        ("doc-0003", "the body references assets/x.png, which is not shipped")
    ]


def test_an_asset_shown_inside_fenced_code_is_not_a_reference(fresh: Fresh) -> None:
    body = "# T\n\n```markdown\n![x](assets/missing.png)\n```\n\n~~~\n[a](assets/b.png)\n~~~\n"
    root = _with_body(fresh("embedded"), body)
    assert _missing_assets(root) == []


class TestProvenance:
    """Signature checks are a verdict beside structure, never part of ``ok``."""

    @pytest.fixture
    def signed(self, tmp_path: Path) -> tuple[Path, object]:
        key = generate_private_key()
        docs, topics = sample_docs(4)
        return CatalogBuild(docs, topics).write(tmp_path / "c", sign_with=key), key

    def test_verified_only_with_the_trusted_key(self, signed: tuple[Path, object]) -> None:
        root, key = signed
        report = validate_catalog(root, trust=TrustAnchors([key]))
        assert report.ok
        assert report.provenance.status == "verified"
        assert report.provenance.verified

    def test_signed_without_anchors_is_not_verified(self, signed: tuple[Path, object]) -> None:
        root, _ = signed
        report = validate_catalog(root)
        assert report.ok
        assert report.provenance.status == "no-trust-anchors"
        assert not report.provenance.verified

    def test_unknown_key(self, signed: tuple[Path, object]) -> None:
        root, _ = signed
        report = validate_catalog(root, trust=TrustAnchors([generate_private_key()]))
        assert report.ok
        assert report.provenance.status == "unknown-key"

    def test_tampered_manifest(self, signed: tuple[Path, object]) -> None:
        root, key = signed
        manifest = json.loads((root / "manifest.json").read_text())
        manifest["name"] = "Evil"
        (root / "manifest.json").write_text(json.dumps(manifest))
        report = validate_catalog(root, trust=TrustAnchors([key]))
        assert report.provenance.status == "signature-invalid"
        assert report.ok  # the content still matches the (rewritten) manifest

    def test_unsigned(self, good_catalogs: dict[str, Path]) -> None:
        key = generate_private_key()
        report = validate_catalog(good_catalogs["embedded"], trust=TrustAnchors([key]))
        assert report.provenance.status == "unsigned"


def test_validate_archive_extracts_and_validates(
    good_catalogs: dict[str, Path], tmp_path: Path
) -> None:
    archive = pack(good_catalogs["external"], tmp_path / "c.gezk")
    report = validate_archive(archive, deep=True)
    assert report.ok, report.findings
    assert report.archive_sha256 is not None
    assert report.checks[0] == "archive"
    assert "deep" in report.checks


def test_validate_archive_reports_archive_findings(
    good_catalogs: dict[str, Path], tmp_path: Path
) -> None:
    archive = pack(good_catalogs["embedded"], tmp_path / "c.gezk")
    report = validate_archive(archive, expected_sha256="1" * 64)
    assert [f.reason for f in report.findings] == ["archive-digest-mismatch"]
    assert not report.ok


def test_digests_can_be_skipped_right_after_extraction(fresh: Fresh) -> None:
    root = fresh("embedded")
    readme = root / "README.md"
    readme.write_text(readme.read_text().upper())
    assert "digest-mismatch" in reasons(root)
    assert validate_catalog(root, check_digests=False).findings == ()


def _swap_shard(root: Path, good: dict[str, Path]) -> None:
    source = good["other"] / "index" / "shards" / "000.db"
    (root / "index" / "shards" / "000.db").write_bytes(source.read_bytes())


def _misalign(root: Path, good: dict[str, Path]) -> None:
    mutate_db(
        root / "index" / "shards" / "000.db",
        "UPDATE chunk_vectors_bit SET v = (SELECT v FROM chunk_vectors_bit"
        " WHERE chunk_id = 3) WHERE chunk_id = 4",
    )


def _cycle(root: Path, good: dict[str, Path]) -> None:
    mutate_db(
        root / "index" / "router.db", "UPDATE topics SET parent_id = 'wood' WHERE id = 'craft'"
    )


def _bad_count(root: Path, good: dict[str, Path]) -> None:
    mutate_db(root / "index" / "router.db", "UPDATE topics SET document_count = 0")


def _bomb(root: Path, good: dict[str, Path]) -> None:
    bomb = brotli.compress(b" " * (20 * 1024 * 1024), quality=5)
    mutate_db(
        root / "index" / "router.db",
        ("UPDATE documents SET body_codec = 'br', body_blob = ? WHERE id = 'doc-0001'", [bomb]),
    )


@pytest.mark.parametrize(
    ("break_it", "reason"),
    [
        (_swap_shard, "shard-mismatch"),
        (_misalign, "vectors-misaligned"),
        (_cycle, "topic-cycle"),
        (_bad_count, "topic-count-mismatch"),
        (_bomb, "body-too-large"),
    ],
)
def test_broken_archives_are_refused_with_their_reason(
    fresh: Fresh,
    good_catalogs: dict[str, Path],
    tmp_path: Path,
    break_it: Callable[[Path, dict[str, Path]], None],
    reason: str,
) -> None:
    root = fresh("external")
    break_it(root, good_catalogs)
    reseal(root)  # a consistent manifest: only the content checks can tell
    archive = pack(root, tmp_path / "broken.gezk")
    report = validate_archive(archive, deep=True)
    assert not report.ok
    assert reason in report.reasons()


def test_reference_toolchain_conventions_are_accepted(fresh: Fresh) -> None:
    """What the TypeScript reference writes: a last line range one past the body's final LF
    line, and no shard echoes in a router whose shards are external."""
    root = fresh("external")
    mutate_db(
        root / "index" / "shards" / "000.db",
        "UPDATE chunks SET line_end = line_end + 1 WHERE id = (SELECT MAX(id) FROM chunks)",
    )
    mutate_db(
        root / "index" / "router.db", "DELETE FROM meta WHERE key IN ('shard_id', 'chunk_count')"
    )
    reseal(root)
    assert reasons(root, deep=True) == set()


def test_a_line_range_two_past_the_body_is_refused(fresh: Fresh) -> None:
    root = fresh("external")
    mutate_db(
        root / "index" / "shards" / "000.db",
        "UPDATE chunks SET line_end = line_end + 2 WHERE id = (SELECT MAX(id) FROM chunks)",
    )
    reseal(root)
    assert "invalid-line-range" in reasons(root, deep=True)


def test_a_near_duplicate_that_outscores_a_chunk_does_not_fail_the_self_probe(
    fresh: Fresh,
) -> None:
    # The rerank score is dot(query, q / 127), no cosine: a near-duplicate row a little longer
    # than chunk 1's own outscores it on chunk 1's probe. Both rows are as a build writes them.
    root = fresh("embedded")
    router = root / "index" / "router.db"
    conn = sqlite3.connect(router)
    (own,) = conn.execute("SELECT v FROM chunk_vectors_int8 WHERE chunk_id = 1").fetchone()
    (bits,) = conn.execute("SELECT v FROM chunk_vectors_bit WHERE chunk_id = 1").fetchone()
    longer = np.clip(np.frombuffer(own, dtype=np.int8).astype(np.int32) * 21 // 20, -127, 127)
    last = conn.execute("SELECT MAX(chunk_id) FROM chunk_vectors_int8").fetchone()[0]
    with conn:
        conn.execute(
            "UPDATE chunk_vectors_int8 SET v = ? WHERE chunk_id = ?",
            (longer.astype(np.int8).tobytes(), last - 1),
        )
        conn.execute("UPDATE chunk_vectors_bit SET v = ? WHERE chunk_id = ?", (bits, last - 1))
    conn.close()
    reseal(root)
    assert validate_catalog(root, deep=True).findings == ()
    # More near-duplicates than the first three places (templated pages), each a little
    # longer: the chunk is further down but within the tolerance of the first hit.
    q = np.frombuffer(own, dtype=np.int8).astype(np.int32)
    query = q / 127.0 / np.linalg.norm(q / 127.0)
    duplicates = []
    for shift in range(4):
        bumped = (np.arange(q.shape[0]) % 7 == shift) & (q != 0)
        duplicates.append(np.clip(q + np.sign(q) * bumped, -127, 127))
        lead = float(query @ (duplicates[-1] / 127.0)) - float(query @ (q / 127.0))
        assert 0.0 < lead < 0.02  # ahead of the chunk's own row, within the tolerance
    conn = sqlite3.connect(router)
    with conn:
        for chunk_id, row in zip(range(last - 4, last), duplicates, strict=True):
            conn.execute(
                "UPDATE chunk_vectors_int8 SET v = ? WHERE chunk_id = ?",
                (row.astype(np.int8).tobytes(), chunk_id),
            )
            conn.execute("UPDATE chunk_vectors_bit SET v = ? WHERE chunk_id = ?", (bits, chunk_id))
    conn.close()
    reseal(root)
    assert validate_catalog(root, deep=True).findings == ()
    # A row that is nobody's (its own bits, another's int8) still fails.
    mutate_db(
        router,
        "UPDATE chunk_vectors_int8 SET v = (SELECT v FROM chunk_vectors_int8 WHERE chunk_id = 9)"
        " WHERE chunk_id = 1",
    )
    reseal(root)
    assert {"self-probe-failed", "vectors-misaligned"} & reasons(root, deep=True)
