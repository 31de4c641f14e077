"""ZIP structures a hostile writer controls: each is a one-line typed refusal, never a traceback,
and none lets another ZIP reader see different entries than the verifier does (issue 17,
items 3 and 8).

The archives are assembled byte by byte (``write_raw_zip``), independently of the production
writer, so each test sets exactly the field it names.
"""

from __future__ import annotations

import json
import struct
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.archive import extract_archive, inspect_archive, scan_archive
from gezel_knowledge.archive.assets import svg_problem
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.validate import validate_archive
from tests.archive.archive_builders import (
    ArchiveSpec,
    RawEntry,
    descriptor_for,
    raw_entries,
    write_raw_zip,
)
from tests.archive.svg_reference import old_svg_problem

Mutate = Callable[[list[RawEntry]], None]


def _entry(entries: list[RawEntry], name: str) -> RawEntry:
    return next(e for e in entries if e.name == name.encode())


def _refused_everywhere(path: Path, reason: str, tmp_path: Path) -> None:
    """scan reports it, inspect and extract raise it typed, validate reports it, nothing left."""
    _, findings = scan_archive(path)
    assert reason in [f.reason for f in findings], findings
    with pytest.raises(KnowledgeError) as inspected:
        inspect_archive(path)
    assert inspected.value.reason == reason, inspected.value
    assert "\n" not in str(inspected.value)
    dest = tmp_path / "dest"
    with pytest.raises(KnowledgeError) as extracted:
        extract_archive(path, dest)
    assert extracted.value.reason == reason
    assert not dest.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dest")] == []
    report = validate_archive(path)
    assert not report.ok
    assert reason in [f.reason for f in report.findings]


def _with_files(spec: ArchiveSpec, files: dict[str, bytes]) -> list[RawEntry]:
    spec.files.update(files)
    return raw_entries(spec)


# -- zipfile features that raised RuntimeError / NotImplementedError -----------------------------


def _flag(name: str, bits: int) -> Mutate:
    def mutate(entries: list[RawEntry]) -> None:
        _entry(entries, name).flags |= bits

    return mutate


def _method(name: str, method: int) -> Mutate:
    def mutate(entries: list[RawEntry]) -> None:
        _entry(entries, name).method = method

    return mutate


def _version(name: str, needed: int) -> Mutate:
    def mutate(entries: list[RawEntry]) -> None:
        _entry(entries, name).version_needed = needed

    return mutate


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        pytest.param(_flag("manifest.json", 0x1), "encrypted-entry", id="encrypted-manifest"),
        pytest.param(_flag("README.md", 0x1), "encrypted-entry", id="encrypted-readme"),
        pytest.param(_flag("README.md", 0x40), "encrypted-entry", id="strong-encryption-bit-6"),
        pytest.param(
            _method("manifest.json", 99), "unsupported-compression", id="method-99-manifest"
        ),
        pytest.param(_method("README.md", 99), "unsupported-compression", id="method-99-readme"),
        pytest.param(
            _flag("manifest.json", 0x20), "unsupported-zip-feature", id="patched-data-bit-5"
        ),
        pytest.param(_flag("README.md", 0x20), "unsupported-zip-feature", id="patched-readme"),
        pytest.param(_version("README.md", 65), "unsupported-zip-feature", id="version-needed-6.5"),
        pytest.param(
            _version("manifest.json", 63), "unsupported-zip-feature", id="version-needed-6.3"
        ),
    ],
)
def test_unreadable_zip_features_are_typed_refusals(
    spec: ArchiveSpec, tmp_path: Path, mutate: Mutate, reason: str
) -> None:
    # Before: zipfile's RuntimeError or NotImplementedError escaped (the manifest was opened
    # even after an encrypted-entry or unsupported-compression finding).
    entries = raw_entries(spec)
    mutate(entries)
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), reason, tmp_path)


def test_an_unreadable_entry_stops_the_scan_before_the_manifest(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    _entry(entries, "manifest.json").flags |= 0x1
    info, findings = scan_archive(write_raw_zip(tmp_path / "x.gezk", entries))
    assert info is None
    assert [f.reason for f in findings] == ["encrypted-entry"]


def test_declared_file_and_directory_of_the_same_name_are_refused(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    # Before: extraction died with FileExistsError / NotADirectoryError.
    entries = _with_files(spec, {"sources/x": b"file", "sources/x/y": b"below the file"})
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "duplicate-entry", tmp_path)


# -- item 8: the local header, the central directory and the end record agree --------------------


def test_local_header_sizes_must_match_the_central_directory(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    readme = _entry(entries, "README.md")
    readme.local_sizes = (len(readme.data) + 5, len(readme.data) + 5)
    _refused_everywhere(
        write_raw_zip(tmp_path / "x.gezk", entries), "local-header-mismatch", tmp_path
    )


def test_local_header_crc_must_match_the_central_directory(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    _entry(entries, "README.md").local_crc = 0x12345678
    _refused_everywhere(
        write_raw_zip(tmp_path / "x.gezk", entries), "local-header-mismatch", tmp_path
    )


def test_local_header_flags_must_match_the_central_directory(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    _entry(entries, "README.md").local_flags = 0x800
    _refused_everywhere(
        write_raw_zip(tmp_path / "x.gezk", entries), "local-header-mismatch", tmp_path
    )


def test_stored_entry_with_a_data_descriptor_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    # A streaming reader cannot find where a stored entry ends when its sizes follow the data.
    entries = raw_entries(spec)
    readme = _entry(entries, "README.md")
    readme.flags |= 0x8
    readme.local_crc = 0
    readme.local_sizes = (0, 0)
    readme.descriptor = descriptor_for(readme.data)
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "data-descriptor", tmp_path)


def test_deflated_entry_with_a_matching_data_descriptor_is_read(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    readme = _entry(entries, "README.md")
    readme.method = zipfile.ZIP_DEFLATED
    readme.flags |= 0x8
    readme.local_crc = 0
    readme.local_sizes = (0, 0)
    readme.descriptor = descriptor_for(readme.data, readme.data_as_stored())
    path = write_raw_zip(tmp_path / "x.gezk", entries)
    extract_archive(path, tmp_path / "dest")
    assert (tmp_path / "dest" / "README.md").read_bytes() == spec.files["README.md"]


def test_data_descriptor_disagreeing_with_the_central_directory_is_refused(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    readme = _entry(entries, "README.md")
    readme.method = zipfile.ZIP_DEFLATED
    readme.flags |= 0x8
    readme.local_crc = 0
    readme.local_sizes = (0, 0)
    stored = readme.data_as_stored()
    readme.descriptor = struct.pack(
        "<4sIII", b"PK\x07\x08", zlib.crc32(readme.data) ^ 1, len(stored), len(readme.data)
    )
    _refused_everywhere(
        write_raw_zip(tmp_path / "x.gezk", entries), "local-header-mismatch", tmp_path
    )


def test_end_record_count_disagreeing_with_the_central_directory_is_refused(
    spec: ArchiveSpec, tmp_path: Path
) -> None:
    entries = raw_entries(spec)
    path = write_raw_zip(tmp_path / "x.gezk", entries, eocd_count=len(entries) - 1)
    _refused_everywhere(path, "eocd-mismatch", tmp_path)


@pytest.mark.parametrize(
    ("comment", "trailing"),
    [
        pytest.param(b"", b"appended", id="bytes-after-the-end-record"),
        pytest.param(b"", b"PK\x05\x06" + b"\0" * 18, id="a-second-end-record"),
    ],
)
def test_trailing_bytes_after_the_end_record_are_refused(
    spec: ArchiveSpec, tmp_path: Path, comment: bytes, trailing: bytes
) -> None:
    path = write_raw_zip(tmp_path / "x.gezk", raw_entries(spec), comment=comment, trailing=trailing)
    _refused_everywhere(path, "trailing-bytes", tmp_path)


def test_an_archive_comment_is_accepted(spec: ArchiveSpec, tmp_path: Path) -> None:
    path = write_raw_zip(tmp_path / "x.gezk", raw_entries(spec), comment=b"a comment")
    assert inspect_archive(path).manifest.id == "demo"


def test_bytes_between_entries_are_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    # A streaming reader walking local headers would find an entry hidden in the gap.
    entries = raw_entries(spec)
    hidden = b"PK\x03\x04" + b"\0" * 26 + b"evil"
    _entry(entries, "README.md").gap_before = hidden
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "unlisted-bytes", tmp_path)


def test_utf8_flagged_name_that_is_not_utf8_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    # Before: UnicodeDecodeError from zipfile.
    entries = raw_entries(spec)
    entries.append(RawEntry(b"sources/\xff\xfe.md", b"x", flags=0x800))
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "invalid-entry-name", tmp_path)


def test_non_ascii_name_without_the_utf8_flag_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    # CP437 says "café", a reader assuming UTF-8 sees something else.
    entries = raw_entries(spec)
    entries.append(RawEntry(b"sources/caf\x82.md", b"x"))
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "invalid-entry-name", tmp_path)


def test_unicode_path_extra_field_is_refused(spec: ArchiveSpec, tmp_path: Path) -> None:
    # Info-ZIP readers take the name from this field instead of the header.
    entries = raw_entries(spec)
    other = b"evil.md"
    payload = b"\x01" + struct.pack("<I", zlib.crc32(b"README.md")) + other
    _entry(entries, "README.md").extra = struct.pack("<HH", 0x7075, len(payload)) + payload
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "invalid-entry-name", tmp_path)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(
            unicodedata.normalize("NFC", "sources/café.md"),
            unicodedata.normalize("NFD", "sources/café.md"),
            id="nfc-nfd",
        ),
        pytest.param("sources/Straße.md", "sources/STRASSE.md", id="case-folding"),
    ],
)
def test_names_colliding_after_normalisation_are_refused(
    spec: ArchiveSpec, tmp_path: Path, first: str, second: str
) -> None:
    entries = _with_files(spec, {first: b"one", second: b"two"})
    for e in entries:
        if not e.name.isascii():
            e.flags |= 0x800
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "duplicate-entry", tmp_path)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("sources/a.md.", id="trailing-dot"),
        pytest.param("sources/b ", id="trailing-space"),
        pytest.param("sources/dir./x", id="trailing-dot-directory"),
        pytest.param("sources/a:b.md", id="colon"),
        pytest.param("sources/what?.md", id="question-mark"),
        pytest.param("sources/CONIN$", id="console-device"),
        pytest.param("sources/com\u00b9.md", id="superscript-device"),
        pytest.param("sources/nul .txt", id="device-with-blank"),
    ],
)
def test_entry_names_windows_cannot_represent_are_refused(
    spec: ArchiveSpec, tmp_path: Path, name: str
) -> None:
    # Windows drops a segment's trailing dots and spaces and forbids < > : " | ? * and device
    # names: such an entry would land as another file there, or not at all.
    entries = _with_files(spec, {name: b"one"})
    for e in entries:
        if not e.name.isascii():
            e.flags |= 0x800
    _refused_everywhere(write_raw_zip(tmp_path / "x.gezk", entries), "unsafe-path", tmp_path)


def test_hand_assembled_valid_archive_is_accepted(spec: ArchiveSpec, tmp_path: Path) -> None:
    # The builder itself makes archives the verifier accepts: the refusals above are the
    # field each test names, not the builder.
    spec.files["sources/notes.md"] = b"# notes\n"
    path = write_raw_zip(tmp_path / "x.gezk", raw_entries(spec))
    info = inspect_archive(path)
    assert json.loads(info.manifest_bytes)["id"] == "demo"
    extract_archive(path, tmp_path / "dest")
    assert (tmp_path / "dest" / "sources" / "notes.md").read_bytes() == b"# notes\n"


@pytest.mark.parametrize("threshold", [40, 1000])
def test_zip64_records_of_the_writer_are_read(
    spec: ArchiveSpec, tmp_path: Path, threshold: int
) -> None:
    # A lowered threshold puts sizes, offsets and the end records in their ZIP64 forms.
    entries = {e.name: e.data for e in spec.entries() if e.name != "mimetype"}
    path = tmp_path / "x.gezk"
    write_archive(path, entries, _zip64_threshold=threshold)
    assert b"PK\x06\x06" in path.read_bytes()
    assert inspect_archive(path).manifest.id == "demo"
    extract_archive(path, tmp_path / "dest")
    assert (tmp_path / "dest" / "README.md").read_bytes() == spec.files["README.md"]


_SVG_TOKENS = (
    "<a ",
    "<rect ",
    "<style>",
    "</style>",
    "/>",
    ">",
    "<",
    " ",
    "=",
    '"',
    "'",
    "x",
    "href",
    "onload",
    "url(",
    ")",
    "#g",
    "https://e.test/",
    "javascript:",
    "xlink:",
    "attributeName",
    "<svg:script>",
    "&#x61;",
    "\\",
    "@import",
    "<!DOCTYPE x>",
    "<?pi?>",
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_SVG_TOKENS), max_size=12).map("".join))
def test_the_linear_svg_check_accepts_nothing_the_old_one_refused(markup: str) -> None:
    # Outside comments and CDATA sections, which the old check read as markup: an SVG the
    # one-pass walk calls inert, the old quadratic check called inert too.
    data = ('<svg xmlns="http://www.w3.org/2000/svg">' + markup + "</svg>").encode()
    if svg_problem(data) is None:
        assert old_svg_problem(data) is None


def test_an_unquoted_value_an_html_reader_reads_on_through_a_lt_is_refused() -> None:
    # Hypothesis found it: an HTML reader reads href=</svg> as a link to "</svg".
    for markup in ("<a href=</svg>", "<a href=x</a>", "<image src=<b>"):
        problem = svg_problem(f'<svg xmlns="http://www.w3.org/2000/svg">{markup}</svg>'.encode())
        assert problem is not None, markup
        assert problem.reason == "unsafe-svg"
    assert svg_problem(b'<svg><a href="#x">y</a><a href=#z>w</a></svg>') is None


def test_a_comment_an_html_reader_would_end_early_is_refused() -> None:
    for comment in ("<!-- --!> <a onload=alert(1)> -->", "<!--> <a onload=alert(1)> -->"):
        problem = svg_problem(f"<svg>{comment}</svg>".encode())
        assert problem is not None
        assert problem.reason == "unsafe-svg"
    assert svg_problem(b"<svg><!-- a - b --><![CDATA[ x ]]></svg>") is None
