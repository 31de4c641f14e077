"""Hostile arguments and faults at the command line (issue 26 items 10, 13, 14, 18, 20): each is
one ``error:`` line with a typed reason and a non-zero exit, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.indexes import MemoryIndex
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.search import KnowledgeSearch
from tests.faults import fill, full_filesystem, read_only, tree_state
from tests.indexes.helpers import write_tree

_CATALOG_YAML = (
    "id: t\nversion: '1'\nname: T\nlanguage: en\ncreatedAt: 2026-01-01T00:00:00Z\n"
    "publisher: {id: me, name: Me}\nlicense: {name: CC0 1.0, attributionRequired: false}\n"
)

# How Python hands over an argument whose bytes are not UTF-8 (surrogate escapes).
NOT_UTF8 = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")


def _one_error(capsys: pytest.CaptureFixture[str], reason: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("gezel-knowledge: error: ")
    assert err.endswith(f"[{reason}]")
    return err


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_search_refuses_a_query_that_is_not_unicode_in_every_mode(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    assert main(["search", str(handbook_gezk), NOT_UTF8, "--mode", mode]) == 1
    assert "0xE9" in _one_error(capsys, "invalid-unicode")


@pytest.mark.parametrize(
    "arguments",
    [
        ["find", NOT_UTF8],
        ["memory", "search", NOT_UTF8],
        ["memory", "add", "note " + NOT_UTF8],
        ["search", "{catalog}", "ok", "\ud800"],
        ["read", "{catalog}", NOT_UTF8],
        ["read", "{catalog}", "knowledge://tester/demo/" + NOT_UTF8],
    ],
)
def test_other_commands_refuse_text_that_is_not_unicode(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    argv = [a.replace("{catalog}", str(handbook_gezk)) for a in arguments]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.endswith(("[invalid-unicode]", "[invalid-reference]"))


def test_index_search_refuses_a_query_that_is_not_unicode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path / "ws", {"a.md": "# A\n\nalpha\n"})
    assert main(["index", str(tmp_path / "ws")]) == 0
    capsys.readouterr()
    assert main(["index-search", str(tmp_path / "ws"), NOT_UTF8]) == 1
    _one_error(capsys, "invalid-unicode")


def test_the_python_search_api_refuses_lone_surrogates(handbook_gezk: Path) -> None:
    catalog = open_catalog(handbook_gezk, embedder=None)
    for mode in ("keyword", "hybrid"):
        with pytest.raises(ValueError, match="lone surrogate U\\+D800") as err:
            catalog.search("install \ud800", mode=mode)  # type: ignore[arg-type]
        assert getattr(err.value, "reason", None) == "invalid-unicode"
    with pytest.raises(ValueError, match="not valid Unicode"):
        catalog.read("getting-started/install\udcff")


def test_a_line_number_of_5000_digits_is_an_invalid_reference(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = "getting-started/install#line=1-" + "9" * 5000
    assert main(["read", str(handbook_gezk), reference]) == 1
    _one_error(capsys, "invalid-reference")


@pytest.mark.parametrize("command", ["validate", "sign"])
def test_dev_zero_as_a_key_is_refused_before_reading(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    option = ["--trust", "/dev/zero"] if command == "validate" else ["--key", "/dev/zero"]
    assert main([command, str(handbook_gezk), *option]) == 1
    assert "character device" in _one_error(capsys, "not-a-file")


def test_a_fifo_as_a_key_is_refused_without_waiting(tmp_path: Path, handbook_gezk: Path) -> None:
    fifo = tmp_path / "key.pem"
    os.mkfifo(fifo)
    outcome: list[int] = []
    worker = threading.Thread(
        target=lambda: outcome.append(main(["validate", str(handbook_gezk), "--trust", str(fifo)]))
    )
    worker.start()
    worker.join(timeout=60)
    assert outcome == [1]


def test_memory_add_with_an_indented_hash_line_reads_back_as_one_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["memory", "add", "first line\n  # second line\nthird"]) == 0
    capsys.readouterr()
    assert main(["memory", "search", "second", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    # One entry, read back as it was written (main keeps a note's exact text).
    assert [h["text"] for h in hits] == ["first line\n  # second line\nthird"]


def test_a_full_disk_names_the_file_it_could_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    disk = tmp_path / "disk"
    with full_filesystem(disk):
        fill(disk)
        assert main(["keygen", str(disk / "key.pem")]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert str(disk / "key.pem") in err
        assert not (disk / "key.pem").exists()


def test_a_full_disk_during_a_build_names_the_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src"
    write_tree(
        source,
        {
            "README.md": "# Notes\n",
            "LICENSE": "CC0-1.0\n",
            "catalog.yaml": _CATALOG_YAML,
            "page.md": "# P\n\n" + "text " * 200_000,
        },
    )
    disk = tmp_path / "disk"
    with full_filesystem(disk):
        code = main(
            ["build", str(source), "-o", str(disk / "out.gezk"), "--embedder", "test-hash-embed@1"]
        )
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert code == 1
        assert str(disk) in err
        assert err.endswith(("[os-error]", "[insufficient-space]"))
        assert [p.name for p in disk.iterdir()] == []  # no staging, no partial archive


def test_opening_an_archive_by_path_works_with_a_read_only_home(
    handbook_gezk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GEZEL_HOME", str(home))
    with read_only(home):
        catalog = open_catalog(handbook_gezk, embedder=None)
        assert catalog.search("install", mode="keyword").hits
        catalog.close()
    # Warm: once extracted into a writable home, a read-only one reuses the verdict.
    open_catalog(handbook_gezk, embedder=None).close()
    before = tree_state(home)
    with read_only(home):
        catalog = open_catalog(handbook_gezk, embedder=None)
        assert catalog.search("install", mode="keyword").hits
        catalog.close()
    assert tree_state(home) == before


def test_sigterm_during_a_build_removes_its_staging_folder(tmp_path: Path) -> None:
    source = tmp_path / "src"
    docs = [
        {"id": f"d{i}", "title": f"Doc {i}", "topicPath": ["misc"], "markdown": "words " * 400}
        for i in range(4000)
    ]
    write_tree(
        source,
        {
            "docs.jsonl": "".join(json.dumps(d) + "\n" for d in docs),
            "catalog.yaml": _CATALOG_YAML,
            "LICENSE": "CC0-1.0\n",
            "README.md": "# T\n",
        },
    )
    out = tmp_path / "out"
    out.mkdir()
    build = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gezel_knowledge",
            "build",
            str(source / "docs.jsonl"),
            "-o",
            str(out / "t.gezk"),
            "--embedder",
            "test-hash-embed@1",
            "--created-at",
            "2026-01-01T00:00:00Z",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not any(p.name.startswith(".t.gezk.build-") for p in out.iterdir()):
        assert build.poll() is None, build.stderr.read() if build.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    build.send_signal(signal.SIGTERM)
    _, err = build.communicate(timeout=120)
    assert build.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == "gezel-knowledge: terminated"
    assert list(out.iterdir()) == []


def test_a_key_written_by_keygen_signs(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refusing keys anyone may write does not refuse what keygen writes (mode 0600).
    archive = tmp_path / "copy.gezk"
    archive.write_bytes(handbook_gezk.read_bytes())
    assert main(["keygen", str(tmp_path / "k.pem")]) == 0
    assert main(["sign", str(archive), "--key", str(tmp_path / "k.pem")]) == 0
    assert "signed" in capsys.readouterr().out


def test_index_notes_the_hostile_files_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "ws"
    write_tree(workspace, {"a.md": "# A\n"})
    with open(os.fsencode(workspace) + b"/bad\xff.md", "wb") as fh:
        fh.write(b"# Bad\n")
    assert main(["index", str(workspace)]) == 0
    captured = capsys.readouterr()
    assert "1 skipped" in captured.out
    assert captured.err.strip() == (
        "gezel-knowledge: note: skipped bad\\xff.md: its name is not UTF-8 [name-not-utf8]"
    )


HUGE = "9" * 30  # past SQLite's 64-bit integers


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (["search", "{catalog}", "sign", "-k", HUGE], "invalid-limit"),
        (["search", "{catalog}", "sign", "--final-k", HUGE], "invalid-limit"),
        (["list", "{catalog}", "--offset", HUGE], "invalid-page"),
        (["list", "{catalog}", "--limit", HUGE], "invalid-page"),
        (["memory", "search", "note", "-k", HUGE], "invalid-limit"),
        (["index-search", "{workspace}", "alpha", "-k", HUGE], "invalid-limit"),
        (["index-search", "{workspace}", "alpha", "--per-path", HUGE], "invalid-limit"),
    ],
)
def test_a_huge_count_is_a_typed_limit_not_a_broken_catalog(
    handbook_gezk: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    reason: str,
) -> None:
    # Was: search/list blamed the catalog ("a stored value does not fit its column",
    # invalid-value) and memory search/index-search ended in an OverflowError traceback.
    write_tree(tmp_path / "ws", {"a.md": "# A\n\nalpha\n"})
    assert main(["index", str(tmp_path / "ws")]) == 0
    assert main(["memory", "add", "a note"]) == 0
    capsys.readouterr()
    argv = [
        a.replace("{catalog}", str(handbook_gezk)).replace("{workspace}", str(tmp_path / "ws"))
        for a in arguments
    ]
    assert main(argv) == 1
    assert "must be at most 2,147,483,647" in _one_error(capsys, reason)


def test_find_with_a_huge_count_leaves_the_installed_catalog_searchable(
    handbook_gezk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was: find -k 10**30 quarantined the installed catalog (invalid-value) for good, so every
    # later search left it out.
    assert main(["install", str(handbook_gezk)]) == 0
    assert main(["find", "sign", "-k", HUGE]) == 1
    _one_error(capsys, "invalid-limit")
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert [c["quarantine"] for c in status["catalogs"]] == [None]
    assert main(["find", "sign", "-k", "1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 1


def test_the_python_api_refuses_a_huge_k_and_clamps_a_huge_topic_page(handbook_gezk: Path) -> None:
    catalog = open_catalog(handbook_gezk, embedder=None)
    for mode in ("keyword", "hybrid"):
        with pytest.raises(InvalidInput) as refused:
            catalog.search("sign", k=10**30, mode=mode)
        assert refused.value.reason == "invalid-limit"
    with pytest.raises(InvalidInput) as paged:
        catalog.list_documents(offset=2**63)
    assert paged.value.reason == "invalid-page"
    order = catalog.topic_order("building")
    assert order.page(10**30, 5).documents == ()
    assert len(order.page(0, 10**30).documents) == order.total
    assert len(catalog.search("sign", k=2**31 - 1, mode="keyword").hits) > 0
    catalog.close()


@pytest.mark.parametrize("k", [1.5, 2.0, "3", True, None])
def test_a_count_that_is_no_whole_number_is_a_typed_limit(handbook_gezk: Path, k: object) -> None:
    # Was: Catalog.search(k=1.5) blamed the catalog ("datatype mismatch", corrupt-database),
    # k="3" too (invalid-value), k=True searched for one hit, and KnowledgeSearch and the
    # memory and content indexes ended in TypeError.
    catalog = open_catalog(handbook_gezk, embedder=None)
    with pytest.raises(InvalidInput) as refused:
        catalog.search("sign", k=k)  # type: ignore[arg-type]
    assert refused.value.reason == "invalid-limit"
    with pytest.raises(InvalidInput) as paged:
        catalog.list_documents(limit=k)  # type: ignore[arg-type]
    assert paged.value.reason == "invalid-page"
    catalog.close()
    with KnowledgeSearch() as search, pytest.raises(InvalidInput) as everywhere:
        search.search("sign", k=k)  # type: ignore[arg-type]
    assert everywhere.value.reason == "invalid-limit"


@pytest.mark.parametrize("query", [None, 12, b"sign"])
def test_a_query_that_is_no_string_is_a_typed_error_in_the_python_api(
    handbook_gezk: Path, tmp_path: Path, query: object
) -> None:
    # Was an AttributeError ('NoneType' object has no attribute 'strip' / 'encode').
    catalog = open_catalog(handbook_gezk, embedder=None)
    calls = [
        lambda: catalog.search(query),  # type: ignore[arg-type]
        lambda: KnowledgeSearch().search(query),  # type: ignore[arg-type]
        lambda: MemoryIndex(tmp_path).search(query),  # type: ignore[arg-type]
        lambda: MemoryIndex(tmp_path).add(query),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(InvalidInput) as refused:
            call()
        assert refused.value.reason == "invalid-argument"
        assert "must be a string, not" in str(refused.value)
    catalog.close()
