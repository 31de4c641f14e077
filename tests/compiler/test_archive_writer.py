"""The archive writer: byte layout of spec sections 3.1-3.2."""

from __future__ import annotations

import hashlib
import struct
import zipfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gezel_knowledge.archive import scan_archive
from gezel_knowledge.archive.paths import entry_name_key, entry_name_problem
from gezel_knowledge.archive.writer import write_archive
from gezel_knowledge.errors import InvalidInput


def _local_headers(data: bytes) -> list[tuple[str, int, int, int, int, bytes]]:
    """(name, method, time, date, flags, extra) of every local header, in file order."""
    out = []
    pos = 0
    while data[pos : pos + 4] == b"PK\x03\x04":
        (_, _, flags, method, time, date, _, csize, _, nlen, xlen) = struct.unpack(
            "<IHHHHHIIIHH", data[pos : pos + 30]
        )
        name = data[pos + 30 : pos + 30 + nlen].decode("utf-8")
        extra = data[pos + 30 + nlen : pos + 30 + nlen + xlen]
        if csize == 0xFFFFFFFF:
            csize = struct.unpack("<Q", extra[12:20])[0]
        out.append((name, method, time, date, flags, extra))
        pos += 30 + nlen + xlen + csize
    return out


def test_mimetype_is_first_stored_and_at_offset_38(tmp_path: Path) -> None:
    dest = tmp_path / "a.gezk"
    write_archive(dest, {"manifest.json": b"{}", "README.md": b"hello"})
    data = dest.read_bytes()
    assert data[30:38] == b"mimetype"
    assert data[38:62] == b"application/vnd.gezk+zip"
    with zipfile.ZipFile(dest) as zf:
        first = zf.infolist()[0]
        assert first.filename == "mimetype"
        assert first.compress_type == zipfile.ZIP_STORED
        assert zf.read("mimetype") == b"application/vnd.gezk+zip"


def test_entries_sorted_by_utf8_bytes_stored_fixed_time_mode_0644(tmp_path: Path) -> None:
    source = tmp_path / "file.bin"
    source.write_bytes(b"x" * 5000)
    dest = tmp_path / "a.gezk"
    write_archive(
        dest,
        {"z.txt": b"z", "README.md": b"r", "é/x.txt": b"e", "a/b.txt": source, "Zeta.txt": b"Z"},
    )
    with zipfile.ZipFile(dest) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        assert names == ["mimetype", "README.md", "Zeta.txt", "a/b.txt", "z.txt", "é/x.txt"]
        for info in infos:
            assert info.compress_type == zipfile.ZIP_STORED
            assert info.date_time == (2000, 1, 1, 0, 0, 0)
            assert info.external_attr >> 16 == 0o100644
            assert info.create_system == 3
            assert info.extra == b""
        assert zf.read("a/b.txt") == b"x" * 5000
        assert zf.testzip() is None
    for name, method, time, date, _, extra in _local_headers(dest.read_bytes()):
        assert (method, time, date, extra) == (0, 0, 0x2821, b""), name


def test_same_entries_give_identical_bytes_and_digest(tmp_path: Path) -> None:
    one = write_archive(tmp_path / "1.gezk", {"b": b"2", "a": b"1"})
    two = write_archive(tmp_path / "2.gezk", {"a": b"1", "b": b"2"})
    assert one == two
    assert (tmp_path / "1.gezk").read_bytes() == (tmp_path / "2.gezk").read_bytes()


def test_zip64_records_when_sizes_need_them(tmp_path: Path) -> None:
    # A lowered threshold drives the ZIP64 code path without writing 4 GiB.
    dest = tmp_path / "a.gezk"
    write_archive(dest, {"big.bin": b"y" * 300, "small": b"s"}, _zip64_threshold=100)
    data = dest.read_bytes()
    assert b"PK\x06\x06" in data  # ZIP64 end of central directory record
    assert b"PK\x06\x07" in data  # and its locator
    with zipfile.ZipFile(dest) as zf:
        assert zf.read("big.bin") == b"y" * 300
        assert zf.read("small") == b"s"
        assert zf.testzip() is None
    extras = {name: extra for name, _, _, _, _, extra in _local_headers(data)}
    assert extras["big.bin"][:2] == b"\x01\x00"  # only the entry that needs ZIP64 has it
    assert extras["small"] == b""


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/abs",
        "a/../b",
        "./a",
        "a//b",
        "back\\slash",
        "C:/x",
        "mimetype",
        "ctl\x01",
        "assets/aux.png",
        "CON",
        "index/nul.db",
        "lpt1.txt",
        "bad\ud800",
    ],
)
def test_unsafe_entry_paths_are_refused(tmp_path: Path, path: str) -> None:
    with pytest.raises(InvalidInput) as err:
        write_archive(tmp_path / "a.gezk", {path: b"x"})
    assert err.value.reason == "invalid-archive-path"
    assert not (tmp_path / "a.gezk").exists()


_NAME_SEGMENTS = st.sampled_from(
    [
        *("a", "B.txt", "é", "aux", "AUX.png", "con", "nul.db", "com1", "auxiliary", "con1.x"),
        *("1:x", "C:", "x:y", ".", "..", "", "x\\y", "t\x01", "\x9f", ".hidden"),
    ]
)


@settings(max_examples=200, deadline=None)
@given(name=st.lists(_NAME_SEGMENTS, min_size=1, max_size=3).map("/".join))
def test_the_writer_and_the_verifier_share_one_entry_name_rule(
    tmp_path_factory: pytest.TempPathFactory, name: str
) -> None:
    assume(name.casefold() not in ("mimetype", "manifest.json"))
    dest = tmp_path_factory.mktemp("names") / "a.gezk"
    if entry_name_problem(name) is not None:
        with pytest.raises(InvalidInput) as err:
            write_archive(dest, {name: b"x", "manifest.json": b"{}"})
        assert err.value.reason == "invalid-archive-path"
        return
    write_archive(dest, {name: b"x", "manifest.json": b"{}"})
    # The verifier's entry checks accept what was written (the manifest is a stub, so the
    # scan stops there; entry findings come before it).
    _, findings = scan_archive(dest)
    assert [f.reason for f in findings] == ["invalid-manifest"]


@pytest.mark.parametrize("name", ["1:x", "a.md.", "dir /x", "aux", "conout$.txt", 'a"b', "a|b"])
def test_entry_names_windows_cannot_represent_are_refused_by_the_writer(
    tmp_path: Path, name: str
) -> None:
    # The writer's rule is the reader's: a name Windows cannot create (a colon, which is no
    # drive letter after a digit either, a trailing dot or blank, a device) is never written.
    with pytest.raises(InvalidInput) as err:
        write_archive(tmp_path / "a.gezk", {name: b"x"})
    assert err.value.reason == "invalid-archive-path"
    assert not (tmp_path / "a.gezk").exists()


def test_case_insensitive_duplicates_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as err:
        write_archive(tmp_path / "a.gezk", {"README.md": b"1", "readme.md": b"2"})
    assert err.value.reason == "duplicate-archive-path"


@pytest.mark.parametrize(
    "names",
    [
        ("sources/caf\u00e9.md", "sources/cafe\u0301.md"),
        ("sources/A.md", "sources/a.md"),
        ("sources/x", "sources/x/y"),
    ],
)
def test_names_the_verifier_would_call_colliding_are_refused(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    with pytest.raises(InvalidInput) as err:
        write_archive(tmp_path / "a.gezk", dict.fromkeys(names, b"1"))
    assert err.value.reason == "duplicate-archive-path"
    assert not (tmp_path / "a.gezk").exists()


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    missing = tmp_path / "missing.bin"
    with pytest.raises(FileNotFoundError):
        write_archive(tmp_path / "out" / "a.gezk", {"a": b"1", "b": missing})
    out = tmp_path / "out"
    assert not out.exists() or list(out.iterdir()) == []


def test_a_failed_write_keeps_an_existing_archive(tmp_path: Path) -> None:
    dest = tmp_path / "a.gezk"
    write_archive(dest, {"a": b"1"})
    before = dest.read_bytes()
    with pytest.raises(FileNotFoundError):
        write_archive(dest, {"a": b"2", "b": tmp_path / "missing"})
    assert dest.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gezk"]


_SEGMENT = st.text(alphabet="abcXYZ019_-.é", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)


@settings(max_examples=60, deadline=None)
@given(
    contents=st.dictionaries(
        st.lists(_SEGMENT, min_size=1, max_size=3).map("/".join),
        st.binary(max_size=300),
        max_size=8,
    )
)
def test_any_entry_set_round_trips_through_zipfile(
    tmp_path_factory: pytest.TempPathFactory, contents: dict[str, bytes]
) -> None:
    # Names one file system would store as one file, or a file inside a file, are refused.
    folded = {entry_name_key(k) for k in contents}
    inside = {"/".join(k.split("/")[:d]) for k in folded for d in range(1, k.count("/") + 1)}
    assume(len(folded) == len(contents) and "mimetype" not in folded and not folded & inside)
    assume(all(entry_name_problem(k) is None for k in contents))  # trailing dots are refused
    dest = tmp_path_factory.mktemp("zip") / "a.gezk"
    digest = write_archive(dest, contents)
    assert digest == hashlib.sha256(dest.read_bytes()).hexdigest()
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        assert names[0] == "mimetype"
        assert names[1:] == sorted(contents, key=lambda p: p.encode("utf-8"))
        assert {n: zf.read(n) for n in names[1:]} == contents
        assert zf.testzip() is None
