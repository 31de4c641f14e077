"""A hostile workspace never hangs, exhausts memory or fails ``index`` (issue 26 items 6, 7, 15,
16): one bad file is skipped with a note, documents stay within their budgets, and a full disk, a
read-only home or a held lock is a typed error with the index as it was before."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
from datetime import date
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge.compiler.passes.vector_cache import VectorCache
from gezel_knowledge.errors import InvalidInput, StorageUnavailable
from gezel_knowledge.indexes import MemoryIndex, _structure, index_workspace, search_workspace
from gezel_knowledge.indexes._chunker import _atx_heading
from gezel_knowledge.indexes._convert import (
    MAX_CONVERTED_CHARS,
    MAX_EXPANDED_BYTES,
    DocumentTooLarge,
    _tidy,
    document_text,
)
from gezel_knowledge.indexes._discover import MAX_IGNORE_BYTES, discover
from gezel_knowledge.indexes._ignore import IgnoreRules
from gezel_knowledge.indexes._storage import sqlite_backend
from gezel_knowledge.indexes._symbols import extract_symbols
from gezk.profiles import TEST_HASH_EMBED_1
from tests.faults import fill, full_filesystem, read_only, tree_state
from tests.indexes.helpers import write_tree


def _zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _skipped(workspace: Path, home: Path) -> dict[str, str]:
    return dict(index_workspace(workspace, home=home).structure.skipped)


# -- item 7: document zip bombs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "members"),
    [
        ("book.epub", {f"OEBPS/ch{i}.xhtml": b"<p>" + b"a" * (8 << 20) for i in range(12)}),
        (
            "deck.pptx",
            {
                f"ppt/slides/slide{i}.xml": b"<p><t>" + b"a" * (8 << 20) + b"</t></p>"
                for i in range(12)
            },
        ),
    ],
)
def test_a_document_zip_bomb_is_skipped_within_its_budget(
    tmp_path: Path, name: str, members: dict[str, bytes]
) -> None:
    # Each member is under any per-member cap; together they expand past the document budget.
    data = _zipped(members)
    assert len(data) < 2 << 20
    with pytest.raises(DocumentTooLarge):
        document_text(name.rsplit(".", 1)[1], data)
    workspace = tmp_path / "ws"
    write_tree(workspace, {name: data, "notes.md": "# Notes\n\nkept\n"})
    skipped = _skipped(workspace, tmp_path / "home")
    assert skipped == {name: "too-large"}
    hits = search_workspace(workspace, "kept", home=tmp_path / "home", mode="keyword").hits
    assert [h.title for h in hits] == ["Notes"]


_PEAK_SCRIPT = textwrap.dedent(
    """
    import io, resource, sys, zipfile
    from gezel_knowledge.indexes._convert import DocumentTooLarge, document_text
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("OEBPS/chapter.xhtml", b"ab<br>" * 10_000_000)
    data = out.getvalue()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        document_text("epub", data)
        print("converted")
    except DocumentTooLarge as exc:
        print(exc)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(len(data), (after - before) * 1024)
    """
)


def test_a_member_converting_to_millions_of_lines_stops_at_the_text_budget() -> None:
    # 92 KB on disk, one 60 MB member (under the expansion budget) of "ab<br>": 30 million
    # characters of text in ten million lines, once cost 1.29 GB. Measured in a fresh process
    # (tracemalloc would slow ten million small allocations tenfold): the member's bytes and
    # their text (60 MB each, briefly together) and the 16 Mi characters allowed.
    run = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT], capture_output=True, text=True, check=True
    )
    message, sizes = run.stdout.splitlines()
    on_disk, grown = (int(n) for n in sizes.split())
    assert on_disk < 200_000
    assert message == f"converted text over {MAX_CONVERTED_CHARS:,} characters"
    assert grown < 200 * 1024 * 1024, f"{grown / 1e6:.0f} MB"


def test_many_members_each_converting_to_much_text_stop_early(tmp_path: Path) -> None:
    # 1.2 MB on disk: 60 members of 20 MB, each under the expansion budget alone and each
    # converting to 20 million characters, once cost 553 MB before the skip.
    data = _zipped({f"OEBPS/ch{i:02}.xhtml": b"<p>" + b"a b\n" * 5_000_000 for i in range(60)})
    assert len(data) < 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(DocumentTooLarge, match="16,777,216 characters"):
            document_text("epub", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # One member's bytes and text (20 MB each) and the text budget; not 60 members' worth.
    assert peak < 80 * 1024 * 1024, f"{peak / 1e6:.0f} MB"
    workspace = tmp_path / "ws"
    write_tree(workspace, {"bomb.epub": data, "notes.md": "# Notes\n\nkept\n"})
    assert _skipped(workspace, tmp_path / "home") == {"bomb.epub": "too-large"}


def test_office_paragraphs_are_counted_as_they_arrive() -> None:
    # One shared string of 1.8 million pieces: stopped at the text budget while it is read,
    # not after 1.8 million strings were held.
    pieces = b"<t>abcdefghij</t>" * 1_800_000
    data = _zipped({"xl/sharedStrings.xml": b"<sst><si>" + pieces + b"</si></sst>"})
    tracemalloc.start()
    try:
        with pytest.raises(DocumentTooLarge, match="characters"):
            document_text("xlsx", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 160 * 1024 * 1024, f"{peak / 1e6:.0f} MB"
    nested = b"<w:p>" + b"<w:p/>" * 200_000 + b"</w:p>"
    with pytest.raises(DocumentTooLarge, match="nested paragraphs"):
        document_text(
            "docx",
            _zipped(
                {"word/document.xml": b'<w:document xmlns:w="urn:w">' + nested + b"</w:document>"}
            ),
        )


_CHAPTER = (
    "<?xml version='1.0' encoding='utf-8'?><html xmlns='http://www.w3.org/1999/xhtml'>"
    "<head><title>Chapter {n}</title><style>p {{ margin: 0 }}</style></head><body>\n"
    "  <h1>Chapter {n}: The {word} voyage</h1>\n{paragraphs}</body></html>"
)


def _book(chapters: int, paragraphs: int) -> bytes:
    words = ["northern", "silent", "amber", "last"]
    sentence = "The crew watched the coast recede while the mate counted the casks. "
    body = "".join(f"  <p>{sentence * 8}&amp; more.</p>\n" for _ in range(paragraphs))
    members = {"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<container/>"}
    for n in range(1, chapters + 1):
        text = _CHAPTER.format(n=n, word=words[n % len(words)], paragraphs=body)
        members[f"OEBPS/ch{n:03}.xhtml"] = text.encode()
    return _zipped(members)


def test_a_full_length_book_still_indexes(tmp_path: Path) -> None:
    # 60 chapters of 150 paragraphs: about 5 million characters, a long novel.
    book = _book(60, 150)
    text = document_text("epub", book)
    assert text is not None
    assert 4_500_000 < len(text) < MAX_CONVERTED_CHARS
    assert text.startswith("# Chapter 1: The silent voyage\n\nThe crew watched")
    assert text.count("\n# Chapter ") == 59
    assert "& more." in text
    assert "margin" not in text
    report = _docx_report(60)
    workspace = tmp_path / "ws"
    write_tree(workspace, {"book.epub": book, "report.docx": report})
    result = index_workspace(workspace, home=tmp_path / "home")
    assert sorted(result.structure.processed) == ["book.epub", "report.docx"]
    assert result.structure.skipped == ()
    hits = search_workspace(workspace, "casks", home=tmp_path / "home", mode="keyword").hits
    assert {h.document_id for h in hits} == {"book.epub"}
    hits = search_workspace(workspace, "quarterly", home=tmp_path / "home", mode="keyword").hits
    assert {h.document_id for h in hits} == {"report.docx"}


def _docx_report(sections: int) -> bytes:
    body = []
    for n in range(1, sections + 1):
        body.append(
            f'<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Section {n}</w:t>'
            "</w:r></w:p>"
        )
        body.extend(
            "<w:p><w:r><w:t>The quarterly figures </w:t></w:r><w:r><w:t>held steady."
            "</w:t></w:r></w:p>"
            for _ in range(40)
        )
    xml = '<w:document xmlns:w="urn:w"><w:body>' + "".join(body) + "</w:body></w:document>"
    return _zipped({"word/document.xml": xml.encode()})


def test_a_multi_section_docx_converts_in_order() -> None:
    text = document_text("docx", _docx_report(3))
    assert text is not None
    assert text.startswith("# Section 1\n\nThe quarterly figures held steady.\n\n")
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# Section 1",
        "# Section 2",
        "# Section 3",
    ]


def _old_tidy(text: str) -> str:
    # The line-list tidy the windowed one replaced (an object per line).
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


@given(
    parts=st.lists(
        st.one_of(
            st.text(alphabet="ab \t\n\r\x0b\x0c\x1c\x1f\x85\u2028\u3000", max_size=30),
            st.text(alphabet=" \n\r\x0b\u2028", min_size=250, max_size=300),  # a long run
        ),
        max_size=6,
    ),
    window=st.integers(1, 40),
)
@settings(max_examples=3000, deadline=None)
def test_windowed_tidy_agrees_with_the_line_list(parts: list[str], window: int) -> None:
    text = "".join(parts)
    assert _tidy(text, window=window) == _old_tidy(text)


def test_a_member_that_lies_about_its_size_is_not_read_past_it() -> None:
    data = bytearray(_zipped({"content.xml": b"<p>" + b"a" * (MAX_EXPANDED_BYTES + 10)}))
    # Both headers claim the member expands to ten bytes: the read stops there, the CRC of
    # what was read cannot match, and the document is unreadable (no 64 MiB in memory).
    for signature, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature)
        data[at + size_at : at + size_at + 4] = (10).to_bytes(4, "little")
    assert document_text("odt", bytes(data)) is None


def test_deeply_nested_spreadsheet_strings_are_refused_quickly() -> None:
    deep = b"<sst>" + b"<si>" * 5000 + b"<t>x</t>" + b"</si>" * 5000 + b"</sst>"
    assert document_text("xlsx", _zipped({"xl/sharedStrings.xml": deep})) is None


def test_office_documents_with_a_doctype_are_not_read() -> None:
    laughs = b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><w:document xmlns:w="urn:w"/>'
    assert document_text("docx", _zipped({"word/document.xml": laughs})) is None


def test_office_text_still_reads_as_before() -> None:
    docx = _zipped(
        {
            "word/document.xml": b'<w:document xmlns:w="urn:w"><w:body><w:p><w:pPr>'
            b'<w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p>'
            b"<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t></w:r></w:p></w:body></w:document>"
        }
    )
    assert document_text("docx", docx) == "## Title\n\na b\n"
    html = b"<head><title>T</title></head><h1>Hi &amp; you</h1><p>one<br>two<script>x<y</script>"
    assert document_text("html", html) == "# Hi & you\n\none\ntwo\n"


# -- items 6 and 15: repository content --------------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_skipped_with_a_note(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_tree(workspace, {"good.md": "# Good\n"})
    with open(os.fsencode(workspace) + b"/bad\xff.md", "wb") as fh:
        fh.write(b"# Bad\n")
    assert _skipped(workspace, tmp_path / "home") == {"bad\\xff.md": "name-not-utf8"}
    again = index_workspace(workspace, home=tmp_path / "home")  # every run, not just once
    assert dict(again.structure.skipped) == {"bad\\xff.md": "name-not-utf8"}


def test_python_the_parser_cannot_hold_is_read_by_the_line_rules(tmp_path: Path) -> None:
    source = "x = " + "+".join(["a"] * 100_000) + "\n\ndef after():\n    pass\n"
    symbols, _ = extract_symbols("python", source)
    assert [s.name for s in symbols] == ["after"]
    workspace = tmp_path / "ws"
    write_tree(workspace, {"deep.py": source, "ok.py": "def ok():\n    pass\n"})
    report = index_workspace(workspace, home=tmp_path / "home")
    assert sorted(report.structure.processed) == ["deep.py", "ok.py"]


def test_an_extractor_that_fails_skips_only_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _structure.extract_symbols

    def explode(language: str | None, text: str) -> object:
        if "boom" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(language, text)

    monkeypatch.setattr(_structure, "extract_symbols", explode)
    workspace = tmp_path / "ws"
    write_tree(workspace, {"bad.py": "boom = 1\n", "good.py": "def good():\n    pass\n"})
    report = index_workspace(workspace, home=tmp_path / "home")
    assert dict(report.structure.skipped) == {"bad.py": "unparseable"}
    assert report.structure.processed == ("good.py",)


def test_a_c_file_of_declarations_is_indexed_without_phantom_symbols(tmp_path: Path) -> None:
    text = "a b()\n" * 50_000 + "int main(void) {\n  return 0;\n}\n"
    symbols, _ = extract_symbols("c", text)
    assert [(s.name, s.line_start) for s in symbols] == [("main", 50_001)]


def test_multi_line_imports_and_use_trees_are_still_found() -> None:
    _, js = extract_symbols(
        "typescript",
        "import {\n  a,\n  b as c,\n} from './x'\nimport type { T } from \"t\"\n"
        "import * as ns from 'ns'\nimport d, { e } from 'de'\nimport 'side'\n"
        "export { f } from './f'\nexport * from './all'\nconst g = require('g')\n",
    )
    assert js == ["./x", "t", "ns", "de", "side", "./f", "./all", "g"]
    _, rust = extract_symbols("rust", "use std::{\n    io,\n    fs::{File, read},\n};\nuse a;\n")
    assert rust == ["std::{\n    io,\n    fs::{File, read},\n}", "a"]


def test_a_fifo_ignore_file_does_not_block_the_walk(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.md": "x"})
    os.mkfifo(tmp_path / ".gitignore")
    assert [f.path for f in discover(tmp_path)] == ["a.md"]


def test_an_ignore_file_too_large_to_read_skips_its_folder(tmp_path: Path) -> None:
    write_tree(tmp_path, {"top.md": "x", "sub/secret.md": "x"})
    (tmp_path / "sub" / ".gitignore").write_bytes(b"#" * (MAX_IGNORE_BYTES + 1))
    notes: list[tuple[str, str]] = []
    found = [f.path for f in discover(tmp_path, on_skip=lambda p, w: notes.append((p, w)))]
    assert found == ["top.md"]
    assert notes == [("sub/.gitignore", "ignore-file-too-large")]


def test_an_exponential_gitignore_glob_answers_at_once(tmp_path: Path) -> None:
    rules = IgnoreRules().with_file("", ["*a" * 40 + "*b", "/" + "**/" * 40 + "x"])
    assert not rules.ignored("a" * 200, is_dir=False)
    assert rules.ignored("a" * 100 + "b", is_dir=False)
    assert rules.ignored("x", is_dir=False)
    assert rules.ignored("/".join("d" * 80) + "/x", is_dir=False)


# A reference glob matcher for the property test: plain recursion over the gitignore rules
# (exponential, and fine for short inputs).
def _reference(pattern: str, path: str) -> bool:
    anchored = "/" in pattern
    body = pattern.lstrip("/")

    @cache
    def match(p: int, s: int) -> bool:
        if p == len(body):
            return s == len(path)
        at_start = p == 0 or body[p - 1] == "/"
        if body.startswith("**", p) and at_start and p + 2 == len(body):
            return True  # a trailing "**" after a slash (or alone): everything
        if body.startswith("**/", p) and at_start:
            if match(p + 3, s):
                return True
            return any(match(p + 3, k + 1) for k in range(s, len(path)) if path[k] == "/")
        if body.startswith("**", p):
            return match(p + 2, s) or (s < len(path) and path[s] != "/" and match(p, s + 1))
        c = body[p]
        if c == "*":
            return match(p + 1, s) or (s < len(path) and path[s] != "/" and match(p, s + 1))
        if s == len(path):
            return False
        if c == "?":
            return path[s] != "/" and match(p + 1, s + 1)
        return path[s] == c and match(p + 1, s + 1)

    if anchored:
        return match(0, 0)
    return any(match(0, s) for s in [0] + [k + 1 for k, ch in enumerate(path) if ch == "/"])


@given(
    pattern=st.text(alphabet="ab/*?", min_size=1, max_size=10).filter(
        lambda p: p.strip("/") and not p.endswith("/") and "//" not in p
    ),
    path=st.text(alphabet="ab/", min_size=1, max_size=10).filter(
        lambda p: not p.startswith("/") and not p.endswith("/") and "//" not in p
    ),
)
@settings(max_examples=1500, deadline=None)
def test_linear_glob_matching_agrees_with_plain_recursion(pattern: str, path: str) -> None:
    rules = IgnoreRules().with_file("", [pattern])
    assert rules.ignored(path, is_dir=True) is _reference(pattern, path)


_OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")


@given(st.text(alphabet=" \t#ab", max_size=16))
@settings(max_examples=2000, deadline=None)
def test_headings_are_parsed_as_the_backtracking_expression_did(line: str) -> None:
    old = _OLD_ATX.match(line)
    expected = None if old is None else (len(old.group(1)), (old.group(2) or "").strip())
    assert _atx_heading(line) == expected


# -- item 16: SQLite and file-system faults ----------------------------------------------------


def test_a_full_disk_during_index_is_typed_and_keeps_what_was_committed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "ws"
    write_tree(workspace, {"first.md": "# First\n\nalpha\n"})
    with full_filesystem(home):
        index_workspace(workspace, home=home)
        write_tree(
            workspace, {f"more/{i}.md": f"# Page {i}\n\n" + "words " * 4000 for i in range(200)}
        )
        fill(home, leave_bytes=64 * 1024)
        with pytest.raises(StorageUnavailable) as err:
            index_workspace(workspace, home=home)
        assert err.value.reason == "insufficient-space"
        assert "content.db" in str(err.value)
        (home / ".filler").unlink()
        hits = search_workspace(workspace, "alpha", home=home, mode="keyword").hits
        assert [h.title for h in hits] == ["First"]


def test_a_full_disk_during_memory_add_keeps_the_day_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with full_filesystem(home):
        with MemoryIndex(home) as memory:
            memory.add("the first note", kind="fact")
            before = tree_state(home / "memory")
            fill(home, leave_bytes=0)
            with pytest.raises(StorageUnavailable) as err:
                memory.add("a second note " * 2000, kind="fact")
        assert err.value.reason == "insufficient-space"
        assert ".md" in str(err.value)
        assert tree_state(home / "memory") == before
        (home / ".filler").unlink()
        with MemoryIndex(home) as memory:
            assert [h.text for h in memory.search("first", mode="keyword").hits] == [
                "the first note"
            ]


def test_a_read_only_home_is_typed_for_index_and_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "ws"
    write_tree(workspace, {"a.md": "# A\n\nalpha\n"})
    index_workspace(workspace, home=home)
    with MemoryIndex(home) as memory:
        memory.add("remember alpha", kind="fact")
    before = tree_state(home)
    write_tree(workspace, {"b.md": "# B\n\nbeta\n"})
    with read_only(home):
        for action in (
            lambda: index_workspace(workspace, home=home),
            lambda: search_workspace(workspace, "alpha", home=home),
            lambda: MemoryIndex(home).add("more", kind="fact"),
            lambda: MemoryIndex(home).search("alpha"),
        ):
            with pytest.raises(StorageUnavailable) as err:
                action()
            assert err.value.reason == "read-only"
            assert str(home) in str(err.value)
        assert tree_state(home) == before


def test_a_held_database_lock_is_a_lock_timeout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with MemoryIndex(home) as memory:
        memory.add("first", kind="fact")
        db = memory.db_path
    # The same SQLite library as the index's: locks between two libraries in one process are
    # not seen (POSIX locks belong to the process).
    holder = sqlite_backend().module.connect(str(db), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with MemoryIndex(home) as memory:
            memory._conn.execute("PRAGMA busy_timeout = 50")
            with pytest.raises(StorageUnavailable) as err:
                memory.rebuild()
        assert (err.value.reason, err.value.subject) == ("lock-timeout", str(db))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with MemoryIndex(home) as memory:
        assert [h.text for h in memory.search("first", mode="keyword").hits] == ["first"]


def test_an_oversized_memory_day_file_is_skipped_and_not_grown(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with MemoryIndex(home) as memory:
        memory.add("a note today", kind="fact", day=date(2026, 1, 2))
        huge = memory.folder / "2026-01-01.md"
        with huge.open("wb") as fh:
            fh.truncate(3 << 30)  # a 3 GiB hole: refused by its size, never read
        report = memory.sync()
        assert report.files_skipped == (("2026-01-01.md", "oversized"),)
        with pytest.raises(InvalidInput) as err:
            memory.add("more", kind="fact", day=date(2026, 1, 1))
        assert (err.value.reason, err.value.subject) == ("input-too-large", str(huge))
        assert huge.stat().st_size == 3 << 30
        assert [h.text for h in memory.search("note", mode="keyword").hits] == ["a note today"]


def test_vector_cache_faults_are_typed_and_keep_the_cached_vectors(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    with full_filesystem(cache_dir):
        cache = VectorCache(cache_dir, TEST_HASH_EMBED_1)
        first = np.ones(TEST_HASH_EMBED_1.dimensions, dtype=np.float32)
        cache.put_many([(b"k" * 32, first)])
        fill(cache_dir)
        many = [(bytes([i % 256]) * 32 + i.to_bytes(4, "big"), first) for i in range(20_000)]
        with pytest.raises(StorageUnavailable) as err:
            cache.put_many(many)
        assert err.value.reason == "insufficient-space"
        assert "vectors.sqlite" in str(err.value)
        assert set(cache.get_many([b"k" * 32])) == {b"k" * 32}
        cache.close()
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    with read_only(readonly):
        with pytest.raises(StorageUnavailable) as err:
            VectorCache(readonly / "cache", TEST_HASH_EMBED_1)
        assert err.value.reason == "read-only"
