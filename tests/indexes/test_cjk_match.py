"""CJK questions find their words inside longer runs in the memory and workspace indexes."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

from gezel_knowledge.indexes import ContentIndex, MemoryIndex
from gezel_knowledge.indexes._cjk_match import keyword_match
from gezel_knowledge.query import fts_match_expression
from tests.indexes.helpers import write_tree

DAY = date(2026, 12, 2)


def _table(*rows: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO t(x) VALUES (?)", [(r,) for r in rows])
    return conn


def test_a_question_without_cjk_gets_the_plain_expression() -> None:
    conn = _table("redis集成很简单", "plain words")
    for text in ("how do I cache with redis", "parse_config", "Straße"):
        assert keyword_match(conn, ("t",), text) == fts_match_expression(text)


def test_a_cjk_word_stands_for_the_tokens_holding_its_bigrams() -> None:
    conn = _table("注册路由拦截器即可", "集成redis后持久化", "无关的内容")
    # Each bigram of the question (路由 由拦 拦截), then the indexed tokens holding it: only
    # the first row's run holds any, and it is named once.
    assert keyword_match(conn, ("t",), "路由拦截") == (
        '"路由" OR "注册路由拦截器即可" OR "由拦" OR "拦截"'
    )
    rows = conn.execute(
        "SELECT rowid FROM t WHERE t MATCH ?", (keyword_match(conn, ("t",), "路由拦截"),)
    )
    assert [r[0] for r in rows] == [1]


def test_a_word_of_a_cjk_question_finds_it_joined_to_cjk_text() -> None:
    conn = _table("集成redis后持久化", "redis alone")
    match = keyword_match(conn, ("t",), "怎么用Redis")
    found = sorted(r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)))
    assert found == [1, 2]


def test_memory_finds_a_chinese_note_by_part_of_its_run(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path) as memory:
        memory.add("发布流程：每周五下午发布新版本", kind="decision", day=DAY)
        memory.add("周会改到周一上午", kind="decision", day=DAY)
        hits = memory.search("什么时候发布", mode="keyword").hits
    assert [h.text for h in hits] == ["发布流程：每周五下午发布新版本"]


def test_workspace_finds_japanese_and_korean_text(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "ws",
        {
            "ja.md": "# 設定\n\nサーバーの設定を変更する方法。\n",
            "ko.md": "# 설치\n\n서버를 설치하는 방법입니다.\n",
            "en.md": "# Notes\n\nNothing to see here.\n",
        },
    )
    with ContentIndex(tmp_path / "ws", home=tmp_path / "h") as ix:
        ix.update()
        japanese = ix.search("サーバー設定", mode="keyword").hits
        korean = ix.search("서버 설치", mode="keyword").hits
    assert [h.document_id for h in japanese] == ["ja.md"]
    assert [h.document_id for h in korean] == ["ko.md"]
