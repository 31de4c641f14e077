"""The memory index: daily files, recall, decay."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.errors import InvalidInput, ModelUnavailable
from gezel_knowledge.indexes import STATUS_HALF_LIFE_DAYS, MemoryIndex
from gezel_knowledge.indexes._home import memory_db_path
from gezel_knowledge.indexes._memory_format import parse_memory_file
from gezel_knowledge.indexes.memory import decay_weight
from tests.indexes.helpers import MeetingEmbedder, bump_mtime, hash_embedder

TODAY = date(2026, 12, 2)


def test_add_appends_a_tagged_entry_to_the_days_file(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        first = memory.add("We ship on Fridays.", kind="decision", day=TODAY)
        memory.add("Line one\n\nline two", kind="status", scope="gezel:boekwachter", day=TODAY)
    path = tmp_path / "memory" / "2026-12-02.md"
    assert path.read_text() == (
        "# 2026-12-02\n\n"
        "- (decision, project) We ship on Fridays.\n"
        '- (status, gezel:boekwachter) "Line one\\n\\nline two"\n'  # a blank line: exact
    )
    assert (first.date, first.kind, first.scope, first.line_start) == (
        "2026-12-02",
        "decision",
        "project",
        3,
    )
    assert [p.name for p in path.parent.iterdir() if not p.name.startswith(".")] == [path.name]
    assert memory_db_path(tmp_path).exists()


def test_parse_hand_written_notes() -> None:
    text = (
        "# Notes\n\n- (preference, project:site) Short answers.\n  Really short.\n"
        "- plain item\nA paragraph\nthat continues.\n\n- (bogus, project) kept as text\n"
    )
    entries = parse_memory_file(TODAY, text)
    assert [(e.kind, e.scope, e.text, e.line_start, e.line_end) for e in entries] == [
        ("preference", "project:site", "Short answers.\nReally short.", 3, 4),
        ("status", "project", "plain item", 5, 5),
        ("status", "project", "A paragraph\nthat continues.", 6, 7),
        ("status", "project", "(bogus, project) kept as text", 9, 9),
    ]


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"kind": "rumour"}, "invalid-memory-kind"),
        ({"scope": "team"}, "invalid-memory-scope"),
        ({"scope": "gezel:"}, "invalid-memory-scope"),
    ],
)
def test_bad_entries_are_refused(tmp_path: Path, kwargs: dict[str, str], reason: str) -> None:
    with MemoryIndex(tmp_path) as memory, pytest.raises(InvalidInput) as info:
        memory.add("text", **kwargs)
    assert info.value.reason == reason
    with MemoryIndex(tmp_path) as memory, pytest.raises(InvalidInput) as info:
        memory.add("  \n ")
    assert info.value.reason == "empty-memory"


def test_decay_weight_has_the_documented_half_life() -> None:
    week_ago = (TODAY - timedelta(days=int(STATUS_HALF_LIFE_DAYS))).isoformat()
    assert decay_weight("status", week_ago, TODAY) == pytest.approx(0.5)
    assert decay_weight("status", TODAY.isoformat(), TODAY) == 1.0
    assert decay_weight("status", "2027-01-01", TODAY) == 1.0
    for kind in ("fact", "decision", "preference"):
        assert decay_weight(kind, "2020-01-01", TODAY) == 1.0


def test_status_notes_decay_in_automatic_recall_and_durable_kinds_do_not(tmp_path: Path) -> None:
    text = "The deploy pipeline is red"
    with MemoryIndex(tmp_path) as memory:
        memory.add(text, kind="status", day=TODAY - timedelta(days=30))
        memory.add(text, kind="fact", day=TODAY - timedelta(days=30))
        memory.add(text, kind="status", day=TODAY - timedelta(days=1))
        recalled = memory.recall("deploy pipeline", today=TODAY).hits
        assert [(h.kind, h.date) for h in recalled] == [
            ("fact", "2026-11-02"),
            ("status", "2026-12-01"),
            ("status", "2026-11-02"),
        ]
        assert recalled[2].relevance < 0.1 < recalled[1].relevance
        explicit = memory.search("deploy pipeline", today=TODAY).hits
        assert [(h.kind, h.date) for h in explicit] == [
            ("status", "2026-11-02"),
            ("fact", "2026-11-02"),
            ("status", "2026-12-01"),
        ]
        assert all(h.source_kind == "memory" and h.scope == "project" for h in explicit)
        assert explicit[0].citation == "memory/2026-11-02.md#line=3-3"


def test_scope_and_kind_filters(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("kiwi in the project", day=TODAY)
        memory.add(
            "kiwi for the librarian", scope="gezel:boekwachter", kind="preference", day=TODAY
        )
        assert [h.scope for h in memory.search("kiwi", scopes=["gezel:boekwachter"]).hits] == [
            "gezel:boekwachter"
        ]
        assert [h.kind for h in memory.search("kiwi", kinds=["fact"]).hits] == ["fact"]


def test_vector_recall_uses_vec_mem_and_a_new_embedder_rebuilds_it(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path, embedder=hash_embedder()) as memory:
        memory.add("alpha beta", day=TODAY)
        memory.add("gamma delta", day=TODAY)
        hits = memory.search("gamma delta").hits
        assert hits[0].text == "gamma delta"
        signal = hits[0].signal("vector")
        assert signal is not None
        assert signal.score == pytest.approx(1.0, abs=1e-5)
    small = hash_embedder(dimensions=64, profile_id="test-hash-embed-64@1")
    with MemoryIndex(tmp_path, embedder=small) as memory:
        report = memory.sync()
        assert report.entries_embedded == 2
        assert memory.search("alpha beta").hits[0].signal("vector") is not None


def test_unrelated_entries_below_the_profiles_cosine_floor_are_not_recalled(
    tmp_path: Path,
) -> None:
    # Every entry is somebody's nearest neighbour; only those above the measured floor of the
    # embedder's profile (0.35 for test-hash-embed@1) are evidence.
    with MemoryIndex(tmp_path, embedder=hash_embedder()) as memory:
        memory.add("alpha beta", day=TODAY)
        memory.add("gamma delta", day=TODAY)
        memory.add("epsilon zeta", day=TODAY)
        assert memory.search("quarterly tax filing deadline").hits == ()
        assert [h.text for h in memory.search("gamma delta").hits] == ["gamma delta"]
        everything = memory.search("quarterly tax filing deadline", min_similarity=-1.0).hits
        assert len(everything) == 3


class _NoQueries(HashEmbedder):
    """Embeds passages, but its query model fails to load."""

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        raise ModelUnavailable("the query model is missing")


def test_a_query_embedder_that_fails_leaves_keywords_to_answer_and_says_so(
    tmp_path: Path,
) -> None:
    embedder = _NoQueries()
    with MemoryIndex(tmp_path, embedder=embedder) as memory:
        memory.add("gamma delta", day=TODAY)
        result = memory.search("gamma delta")
        assert [h.text for h in result.hits] == ["gamma delta"]
        assert result.hits[0].signal("vector") is None
        assert result.hits[0].signal("keyword") is not None
        report = result.sources[0]
        assert (report.status, report.semantic, report.reason) == (
            "degraded",
            "unavailable",
            "model-unavailable",
        )
        assert result.semantic_unavailable is not None
        assert "the query model is missing" in result.semantic_unavailable
        keyword = memory.search("gamma delta", mode="keyword")
        assert [h.text for h in keyword.hits] == ["gamma delta"]
        assert (keyword.sources[0].status, keyword.sources[0].semantic) == ("searched", "off")
        assert memory.embedder is embedder


def test_vectors_of_another_space_are_reported_as_the_content_index_reports_them(
    tmp_path: Path,
) -> None:
    with MemoryIndex(tmp_path, embedder=hash_embedder()) as memory:
        memory.add("gamma delta", day=TODAY)
        memory.embedder = hash_embedder(passage_instruction="passage: ")
        result = memory.search("gamma delta")
        assert result.hits[0].signal("vector") is None
        report = result.sources[0]
        assert (report.status, report.semantic, report.reason) == (
            "degraded",
            "unavailable",
            "other-vector-space",
        )
    with MemoryIndex(tmp_path / "empty", embedder=None) as memory:
        memory.add("gamma delta", day=TODAY)
        memory.embedder = hash_embedder()  # an embedder now, but nothing was embedded yet
        assert memory.search("gamma delta").sources[0].reason == "no-vectors"


def test_hand_edits_and_deleted_days_are_picked_up(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("the otter", day=TODAY)
        memory.add("the heron", day=TODAY - timedelta(days=1))
        path = tmp_path / "memory" / "2026-12-02.md"
        path.write_text(path.read_text() + "- (fact, project) the badger\n")
        bump_mtime(path)
        report = memory.sync()
        assert report.files_indexed == ("2026-12-02.md",)
        assert memory.search("badger").hits[0].date == "2026-12-02"
        (tmp_path / "memory" / "2026-12-01.md").unlink()
        assert memory.sync().files_removed == ("2026-12-01.md",)
        assert memory.search("heron").hits == ()


def test_rebuild_from_files_after_the_index_is_lost(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("the lynx", kind="decision", day=TODAY)
    memory_db_path(tmp_path).unlink()
    with MemoryIndex(tmp_path) as memory:
        assert memory.search("lynx").hits == ()
        report = memory.rebuild()
        assert report.entries == 1
        hit = memory.search("lynx").hits[0]
        assert (hit.kind, hit.date) == ("decision", "2026-12-02")


def test_a_sync_after_another_writers_sync_does_not_index_a_file_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = MemoryIndex(tmp_path), MemoryIndex(tmp_path)
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "2026-12-02.md").write_text("# 2026-12-02\n\n- (fact, project) Shared note.\n")
    listed = second._day_files

    def other_writer_syncs_first() -> Any:
        first.sync()  # the other process indexes the new file in between
        return listed()

    monkeypatch.setattr(second, "_day_files", other_writer_syncs_first)
    report = second.sync()
    assert report.files_indexed == ()
    assert report.entries == 1
    assert [h.text for h in second.search("shared note").hits] == ["Shared note."]
    first.close()
    second.close()


def test_concurrent_writers_never_lose_an_entry(tmp_path: Path) -> None:
    MemoryIndex(tmp_path).close()  # the database exists before the writers start

    def write(worker: int) -> None:
        with MemoryIndex(tmp_path) as memory:
            for n in range(8):
                memory.add(f"Worker {worker} note {n}.", kind="fact", day=TODAY)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(write, range(4)))
    text = (tmp_path / "memory" / "2026-12-02.md").read_text()
    notes = sorted(e.text for e in parse_memory_file(TODAY, text))
    assert notes == sorted(f"Worker {w} note {n}." for w in range(4) for n in range(8))
    assert text.count("# 2026-12-02") == 1


def test_concurrent_embedding_writers_store_each_vector_once(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:  # entries indexed, none embedded yet
        for n in range(5):
            memory.add(f"Shared note {n}.", kind="fact", day=TODAY)
    barrier = threading.Barrier(2, timeout=10)

    def embed() -> int:
        with MemoryIndex(tmp_path, embedder=MeetingEmbedder(barrier)) as memory:
            return memory.sync().entries_embedded

    with ThreadPoolExecutor(max_workers=2) as pool:
        embedded = list(pool.map(lambda _: embed(), range(2)))
    assert sorted(embedded) == [0, 5]  # one writer stored the batch; the other saw it done
    with MemoryIndex(tmp_path, embedder=hash_embedder()) as memory:
        conn = memory._conn
        assert conn.execute("SELECT count(*) FROM vec_mem").fetchone()[0] == 5
        assert conn.execute("SELECT count(*) FROM mem WHERE embedded = 0").fetchone()[0] == 0
        ids = sorted(r[0] for r in conn.execute("SELECT rowid FROM vec_mem"))
        assert ids == sorted(r[0] for r in conn.execute("SELECT id FROM mem"))
