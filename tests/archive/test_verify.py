"""Every refusal of the archive verifier, each with a hand-made broken or malicious archive."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from gezel_knowledge.archive import (
    ArchiveLimits,
    extract_archive,
    file_sha256,
    inspect_archive,
    scan_archive,
)
from gezel_knowledge.errors import IntegrityFailure, InvalidInput, KnowledgeError, Unsupported
from gezel_knowledge.validate import validate_archive
from tests.archive.archive_builders import (
    PNG,
    SVG_OK,
    ArchiveSpec,
    Entry,
    set_flag_bits,
    sha,
    write_zip,
)

Build = Callable[[ArchiveSpec], Path]


def reasons(path: Path, **kw: object) -> list[str]:
    _, findings = scan_archive(path, **kw)  # type: ignore[arg-type]
    return [f.reason for f in findings]


def refused(path: Path, reason: str, **kw: object) -> KnowledgeError:
    with pytest.raises(KnowledgeError) as info:
        inspect_archive(path, **kw)  # type: ignore[arg-type]
    assert info.value.reason == reason, info.value
    return info.value


def test_valid_archive_inspects_with_manifest_and_digest(spec: ArchiveSpec, build: Build) -> None:
    path = build(spec)
    info = inspect_archive(path)
    assert info.manifest.id == "demo"
    assert info.manifest.publisher.id == "tester"
    assert info.sha256 == file_sha256(path)
    assert [e.path for e in info.entries][:2] == ["mimetype", "manifest.json"]
    assert reasons(path) == []


def test_mimetype_bytes_sit_at_offset_38(spec: ArchiveSpec, build: Build) -> None:
    raw = build(spec).read_bytes()
    assert raw[38 : 38 + 24] == b"application/vnd.gezk+zip"


def test_wrong_mimetype_content_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = spec.entries()
    entries[0] = Entry("mimetype", b"application/zip")
    refused(write_zip(tmp_path / "x.gezk", entries), "bad-mimetype")


def test_mimetype_not_first_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = spec.entries()
    entries[0], entries[1] = entries[1], entries[0]
    refused(write_zip(tmp_path / "x.gezk", entries), "bad-mimetype")


def test_compressed_mimetype_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = spec.entries()
    entries[0].method = zipfile.ZIP_DEFLATED
    refused(write_zip(tmp_path / "x.gezk", entries), "bad-mimetype")


def test_not_a_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.gezk"
    path.write_bytes(b"hello, this is not a catalog at all" * 4)
    refused(path, "bad-mimetype")


def test_truncated_central_directory_is_refused(spec: ArchiveSpec, build: Build) -> None:
    path = build(spec)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) - 30])
    refused(path, "corrupt-archive")


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../evil.txt", "unsafe-path"),
        ("index/../../evil.txt", "unsafe-path"),
        ("/etc/passwd", "unsafe-path"),
        ("index\\router.db", "unsafe-path"),
        ("C:/windows/evil", "unsafe-path"),
        ("sources//double", "unsafe-path"),
        ("sources/./dot", "unsafe-path"),
        ("sources/nul.txt", "unsafe-path"),
    ],
)
def test_zip_slip_and_unsafe_names_are_refused(
    spec: ArchiveSpec, build: Build, name: str, reason: str
) -> None:
    spec.extra.append(Entry(name, b"x"))
    path = build(spec)
    refused(path, reason)
    dest = path.parent / "out"
    with pytest.raises(KnowledgeError):
        extract_archive(path, dest)
    assert not dest.exists()
    assert not (path.parent.parent / "evil.txt").exists()


def test_symlink_entry_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("sources/link", b"/etc/passwd", external_attr=0o120777 << 16))
    refused(build(spec), "symlink-entry")


def test_directory_entry_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("sources/", b"", external_attr=(0o040755 << 16) | 0x10))
    refused(build(spec), "directory-entry")


def test_fifo_entry_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("sources/pipe", b"", external_attr=0o010644 << 16))
    refused(build(spec), "special-entry")


def test_encrypted_entry_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("sources/secret", b"xx"))
    path = build(spec)
    set_flag_bits(path, "sources/secret", 0x1)
    refused(path, "encrypted-entry")


def test_exact_duplicate_name_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = spec.entries()
    entries.append(Entry("README.md", b"# Other\n"))
    with pytest.warns(UserWarning, match="Duplicate name"):
        path = write_zip(tmp_path / "x.gezk", entries)
    refused(path, "duplicate-entry")


def test_case_insensitive_duplicate_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("readme.md", b"# shadow\n"))
    refused(build(spec), "duplicate-entry")


def test_undeclared_entry_is_refused(spec: ArchiveSpec, build: Build) -> None:
    spec.extra.append(Entry("sources/extra.md", b"surprise"))
    refused(build(spec), "undeclared-entry")


def test_missing_declared_file_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    manifest = spec.manifest()
    manifest["files"].append({"path": "sources/gone.md", "sizeBytes": 1, "sha256": sha(b"x")})
    entries = spec.entries(manifest)
    refused(write_zip(tmp_path / "x.gezk", entries), "missing-entry")


def test_declared_size_must_match_zip_metadata(spec: ArchiveSpec, tmp_path: Path) -> None:
    manifest = spec.manifest()
    manifest["files"][0]["sizeBytes"] += 1
    refused(write_zip(tmp_path / "x.gezk", spec.entries(manifest)), "size-mismatch")


def test_required_license_notice_must_be_declared(spec: ArchiveSpec, build: Build) -> None:
    del spec.files["LICENSES/catalog.txt"]
    refused(build(spec), "missing-entry")


def test_expected_digest_mismatch_is_refused_before_extraction(
    spec: ArchiveSpec, build: Build, tmp_path: Path
) -> None:
    path = build(spec)
    wrong = "0" * 64
    refused(path, "archive-digest-mismatch", expected_sha256=wrong)
    dest = tmp_path / "dest"
    with pytest.raises(IntegrityFailure) as info:
        extract_archive(path, dest, expected_sha256=wrong)
    assert info.value.reason == "archive-digest-mismatch"
    assert not dest.exists()
    assert list(tmp_path.glob(".dest.staging-*")) == []


def test_expected_digest_match_is_accepted(spec: ArchiveSpec, build: Build) -> None:
    path = build(spec)
    assert inspect_archive(path, expected_sha256=file_sha256(path).upper()).sha256


def test_entry_digest_mismatch_is_caught_after_extraction(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    manifest = spec.manifest()
    entries = spec.entries(manifest)
    readme = next(e for e in entries if e.name == "README.md")
    readme.data = b"# Demx\n"  # same size, different bytes
    path = write_zip(tmp_path / "x.gezk", entries)
    inspect_archive(path)  # sizes agree, so inspection alone cannot tell
    dest = tmp_path / "dest"
    with pytest.raises(IntegrityFailure) as info:
        extract_archive(path, dest)
    assert info.value.reason == "digest-mismatch"
    assert info.value.subject == "README.md"
    assert not dest.exists()
    assert list(tmp_path.glob(".dest.staging-*")) == []


def test_decompression_bomb_entry_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    bomb = b"\0" * (4 * 1024 * 1024)
    spec.files["sources/bomb.bin"] = bomb
    entries = spec.entries()
    next(e for e in entries if e.name == "sources/bomb.bin").method = zipfile.ZIP_DEFLATED
    path = write_zip(tmp_path / "x.gezk", entries)
    assert "compression-ratio" in reasons(path)
    refused(path, "compression-ratio")


def test_entry_count_limit(spec: ArchiveSpec, build: Build) -> None:
    refused(build(spec), "too-many-entries", limits=ArchiveLimits(max_entries=4))


def test_per_entry_and_total_size_limits(spec: ArchiveSpec, build: Build) -> None:
    path = build(spec)
    refused(path, "entry-too-large", limits=ArchiveLimits(max_entry_bytes=20))
    refused(path, "archive-too-large", limits=ArchiveLimits(max_total_bytes=100))


def test_manifest_size_limit(spec: ArchiveSpec, build: Build) -> None:
    refused(build(spec), "manifest-too-large", limits=ArchiveLimits(max_manifest_bytes=100))


def test_manifest_missing(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = [e for e in spec.entries() if e.name != "manifest.json"]
    refused(write_zip(tmp_path / "x.gezk", entries), "missing-manifest")


def test_manifest_with_duplicate_keys_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    entries = spec.entries()
    body = entries[1].data.decode()
    entries[1].data = body.replace('"name": "Demo"', '"name": "Demo", "name": "Evil"').encode()
    refused(write_zip(tmp_path / "x.gezk", entries), "invalid-manifest")


@pytest.mark.parametrize(
    ("fmt", "schema", "reason"),
    [
        ("0.8", 5, "unsupported-format"),
        ("0.4", 1, "unsupported-format"),
        ("0.7", 3, "version-mismatch"),
    ],
)
def test_other_generations_are_refused_with_a_reason(
    spec: ArchiveSpec, build: Build, fmt: str, schema: int, reason: str
) -> None:
    spec.overrides = {"formatVersion": fmt, "indexSchemaVersion": schema}
    err = refused(build(spec), reason)
    assert isinstance(err, Unsupported)


@pytest.mark.parametrize(
    ("requires", "reason"),
    [
        ({"formatVersion": "0.9", "features": []}, "unsupported-format"),
        ({"formatVersion": "0.7", "features": ["vector-pq"]}, "unsupported-feature"),
    ],
)
def test_an_archive_requiring_what_the_reader_lacks_is_refused(
    spec: ArchiveSpec, build: Build, requires: dict[str, object], reason: str
) -> None:
    spec.overrides = {"requires": requires}
    err = refused(build(spec), reason)
    assert isinstance(err, Unsupported)


def test_unknown_vector_encoding_is_refused(spec: ArchiveSpec, build: Build) -> None:
    embedding = spec.manifest()["embedding"]
    embedding["vectorEncoding"] = "float32"
    spec.overrides = {"embedding": embedding}
    refused(build(spec), "unsupported-encoding")


def test_local_header_disagreeing_with_central_directory_is_refused(
    spec: ArchiveSpec, build: Build
) -> None:
    path = build(spec)
    raw = bytearray(path.read_bytes())
    # Rename README.md in its local header only: the central directory still says README.md.
    at = raw.find(b"PK\x03\x04", 100)
    while raw[at + 30 : at + 39] != b"README.md":
        at = raw.find(b"PK\x03\x04", at + 4)
    raw[at + 30 : at + 39] = b"READMX.md"
    path.write_bytes(bytes(raw))
    refused(path, "local-header-mismatch")


def test_assets_refused_in_0_5(spec: ArchiveSpec, build: Build) -> None:
    spec.files["assets/a.png"] = PNG
    spec.overrides = {
        "formatVersion": "0.5",
        "indexSchemaVersion": 2,
        "requires": {"formatVersion": "0.5"},
    }
    refused(build(spec), "assets-not-allowed")


@pytest.mark.parametrize(
    "path",
    ["assets/.hidden.png", "assets/a.exe", "assets/a.png.txt", "assets/" + "x" * 129 + ".png"],
)
def test_bad_asset_paths_are_refused(spec: ArchiveSpec, build: Build, path: str) -> None:
    spec.files[path] = PNG
    refused(build(spec), "invalid-asset-path")


def test_asset_limits(spec: ArchiveSpec, build: Build) -> None:
    spec.files["assets/a.png"] = PNG
    spec.files["assets/b.png"] = PNG
    path = build(spec)
    refused(path, "asset-too-large", limits=ArchiveLimits(max_asset_bytes=10))
    refused(path, "too-many-assets", limits=ArchiveLimits(max_asset_count=1))
    refused(path, "assets-too-large", limits=ArchiveLimits(max_assets_total_bytes=60))


def test_asset_count_must_match_counts(spec: ArchiveSpec, build: Build) -> None:
    spec.files["assets/a.png"] = PNG
    manifest = spec.manifest()
    manifest["counts"]["assets"] = 0
    spec.overrides = {"counts": manifest["counts"]}
    refused(build(spec), "asset-count-mismatch")


def test_extract_writes_every_declared_file_and_the_manifest(
    spec: ArchiveSpec, build: Build, tmp_path: Path
) -> None:
    spec.files["assets/logo.svg"] = SVG_OK
    spec.files["assets/dot.png"] = PNG
    path = build(spec)
    dest = tmp_path / "out" / "demo"
    info = extract_archive(path, dest)
    assert info.sha256 == file_sha256(path)
    for name, data in spec.files.items():
        assert (dest / name).read_bytes() == data
    assert json.loads((dest / "manifest.json").read_text())["id"] == "demo"
    assert (dest / "mimetype").read_bytes() == b"application/vnd.gezk+zip"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["demo"]


def test_extract_refuses_a_non_empty_destination(
    spec: ArchiveSpec, build: Build, tmp_path: Path
) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    with pytest.raises(InvalidInput) as info:
        extract_archive(build(spec), dest)
    assert info.value.reason == "destination-exists"
    assert (dest / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("svg", "reason"),
    [
        (
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "unsafe-svg",
        ),
        (b'<svg><svg:script xmlns:svg="x">1</svg:script></svg>', "unsafe-svg"),
        (b"<svg><foreignObject><div/></foreignObject></svg>", "unsafe-svg"),
        (b'<svg onload="alert(1)"></svg>', "unsafe-svg"),
        (b'<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>', "unsafe-svg"),
        (b'<svg><a href="javascript:alert(1)">x</a></svg>', "unsafe-svg"),
        (b'<svg><a href="java&#x73;cript:alert(1)">x</a></svg>', "unsafe-svg"),
        (b'<svg><image href="https://example.com/x.png"/></svg>', "unsafe-svg"),
        (b'<svg><image xlink:href="other.svg"/></svg>', "unsafe-svg"),
        (b"<svg><style>@import url(a.css);</style></svg>", "unsafe-svg"),
        (b"<svg><rect style=\"fill:url('http://e.com/p')\"/></svg>", "unsafe-svg"),
        (b'<svg><a href="data:text/html,hi">x</a></svg>', "unsafe-svg"),
        # Processing instructions and external DTDs (issue 17 item 7: these passed as inert).
        (b'<?xml-stylesheet href="http://evil.test/s.css"?><svg/>', "unsafe-svg"),
        (
            b'<?xml version="1.0"?>\n<?xml-stylesheet type="text/xsl" href="x.xsl"?><svg/>',
            "unsafe-svg",
        ),
        (b"<svg><?php echo 1; ?></svg>", "unsafe-svg"),
        (b'<!DOCTYPE svg SYSTEM "http://evil.test/x.dtd"><svg/>', "unsafe-svg"),
        (
            b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://evil.test/svg11.dtd"><svg/>',
            "unsafe-svg",
        ),
        (b'<!DOCTYPE svg [<!ATTLIST image href CDATA "https://evil.test/">]><svg/>', "unsafe-svg"),
        (b"<html><svg></svg></html>", "asset-type-mismatch"),
        (b"\xff\xfe<svg></svg>", "asset-type-mismatch"),
    ],
)
def test_active_or_non_svg_content_is_refused_at_extraction(
    spec: ArchiveSpec, build: Build, tmp_path: Path, svg: bytes, reason: str
) -> None:
    spec.files["assets/pic.svg"] = svg
    path = build(spec)
    dest = tmp_path / "dest"
    with pytest.raises(IntegrityFailure) as info:
        extract_archive(path, dest)
    assert info.value.reason == reason
    assert info.value.subject == "assets/pic.svg"
    assert not dest.exists()


@pytest.mark.parametrize(
    "svg",
    [
        SVG_OK,
        b'<svg><use href="#a"/><rect fill="url(#grad)"/></svg>',
        b'<svg><image href="data:image/png;base64,iVBORw0KGgo="/></svg>',
        b"<!-- c --><!DOCTYPE svg><svg viewBox='0 0 1 1'/>",
        b'\xef\xbb\xbf<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<svg/>',
    ],
)
def test_inert_svgs_are_accepted(
    spec: ArchiveSpec, build: Build, tmp_path: Path, svg: bytes
) -> None:
    spec.files["assets/pic.svg"] = svg
    extract_archive(build(spec), tmp_path / "dest")
    assert (tmp_path / "dest" / "assets" / "pic.svg").read_bytes() == svg


def test_png_with_wrong_magic_is_refused(spec: ArchiveSpec, build: Build, tmp_path: Path) -> None:
    spec.files["assets/fake.png"] = b"GIF89a" + b"\0" * 20
    with pytest.raises(IntegrityFailure) as info:
        extract_archive(build(spec), tmp_path / "dest")
    assert info.value.reason == "asset-type-mismatch"


def test_scan_reports_every_problem_not_just_the_first(spec: ArchiveSpec, build: Build) -> None:
    spec.extra += [
        Entry("../slip", b"x"),
        Entry("sources/link", b"x", external_attr=0o120777 << 16),
        Entry("sources/undeclared.md", b"x"),
    ]
    found = set(reasons(build(spec)))
    assert {"unsafe-path", "symlink-entry", "undeclared-entry"} <= found


def test_crc_mismatch_inside_manifest_is_corrupt(spec: ArchiveSpec, build: Build) -> None:
    path = build(spec)
    raw = bytearray(path.read_bytes())
    at = raw.find(b'"kind"')
    raw[at + 2] = ord("K")
    path.write_bytes(bytes(raw))
    refused(path, "corrupt-archive")


@pytest.mark.parametrize("depth", [100_000, 200])
def test_deeply_nested_manifest_is_invalid_not_a_recursion_error(
    spec: ArchiveSpec, tmp_path: Path, depth: int
) -> None:
    # Before: RecursionError from json.loads (deep), or later from copying and schema checks.
    entries = spec.entries()
    body = entries[1].data.decode()
    nested = "[" * depth + "]" * depth
    entries[1].data = body.replace('"name": "Demo"', f'"name": "Demo", "x": {nested}').encode()
    path = write_zip(tmp_path / "x.gezk", entries)
    err = refused(path, "invalid-manifest")
    assert "nested" in str(err)
    report = validate_archive(path)
    assert [f.reason for f in report.findings] == ["invalid-manifest"]
