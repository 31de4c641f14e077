"""Keyword search in Chinese, Japanese and Korean catalogs: CJK runs are read as bigrams.

FTS5's ``unicode61`` makes a whole run of CJK characters one token, so before this a question
matched a passage only when their runs were equal. The expected scores below are BM25 worked
out by hand from the rule in ``gezel_knowledge.cjk`` (keyword mode weighs Lucene's IDF,
``log(1 + (N - n + 0.5) / (n + 0.5))``; k1 = 1.2, b = 0.75; a passage's length is FTS5's token
count of its title and text).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import _kwcache
from gezel_knowledge.reader._kwcache import KEYWORD_INDEX_ENV
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic


def _idf(rows: int, hits: int) -> float:
    return math.log(1 + (rows - hits + 0.5) / (hits + 0.5))


def _part(tf: int, length: int, average: float) -> float:
    norm = 1.2 * (0.25 + 0.75 * length / average)
    return tf * 2.2 / (tf + norm)


def _catalog(root: Path, language: str, docs: list[Doc]) -> Path:
    return CatalogBuild(docs, [Topic("all", "All")], language=language).write(root)


def _keyword(root: Path, query: str) -> list[tuple[str, float]]:
    with open_catalog(root, embedder=None) as catalog:
        hits = catalog.search(query, mode="keyword", k=10).hits
    out = []
    for hit in hits:
        signal = hit.signal("keyword")
        assert signal is not None
        out.append((hit.document_id, signal.score))
    return out


@pytest.fixture(scope="module")
def japanese(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Each passage is two tokens: its title, and its sentence (kana and kanji: one run).
    docs = [
        Doc("settings", "設定", "サーバーの設定を変更する", ("all",)),
        Doc("start", "起動", "サーバーを起動する", ("all",)),
        Doc("about", "概要", "この文書は概要です", ("all",)),
    ]
    return _catalog(tmp_path_factory.mktemp("ja"), "ja", docs)


def test_a_japanese_question_scores_its_bigrams(japanese: Path) -> None:
    # サーバー設定: サー ーバ バー ー設 設定. サー, ーバ, バー are in both server passages
    # once; 設定 is in "settings" twice (title and sentence); ー設 is in none.
    avg = 2.0
    settings = 3 * _idf(3, 2) * _part(1, 2, avg) + _idf(3, 1) * _part(2, 2, avg)
    start = 3 * _idf(3, 2) * _part(1, 2, avg)
    found = _keyword(japanese, "サーバー設定")
    assert [d for d, _ in found] == ["settings", "start"]
    assert [s for _, s in found] == pytest.approx([settings, start], rel=1e-12)
    assert settings == pytest.approx(2.758652, abs=1e-6)  # 3 * 0.470004 + 0.980829 * 1.375


def test_a_japanese_run_is_found_without_its_index(
    japanese: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the derived index, an index of the question's keys is read from FTS5: the same
    # scores as the derived index's.
    monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    avg = 2.0
    settings = 3 * _idf(3, 2) * _part(1, 2, avg) + _idf(3, 1) * _part(2, 2, avg)
    start = 3 * _idf(3, 2) * _part(1, 2, avg)
    found = _keyword(japanese, "サーバー設定")
    assert [d for d, _ in found] == ["settings", "start"]
    assert [s for _, s in found] == pytest.approx([settings, start], rel=1e-12)


@pytest.fixture(scope="module")
def korean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Korean writes spaces between words but joins particles and endings to them: four
    # tokens a passage (the title and three words).
    docs = [
        Doc("install", "설치", "서버를 설치하는 방법", ("all",)),
        Doc("status", "서버", "서버 상태를 확인한다", ("all",)),
        Doc("intro", "소개", "이 문서를 소개한다", ("all",)),
    ]
    return _catalog(tmp_path_factory.mktemp("ko"), "ko", docs)


def test_a_korean_question_finds_words_with_their_particles(korean: Path) -> None:
    # 서버: "서버를" (서버 버를) in install, "서버" twice in status; 설치: the title and
    # "설치하는" (설치 치하 하는) in install. Only whole tokens matched before: 서버를 never.
    avg = 4.0
    install = _idf(3, 2) * _part(1, 4, avg) + _idf(3, 1) * _part(2, 4, avg)
    status = _idf(3, 2) * _part(2, 4, avg)
    found = _keyword(korean, "서버 설치")
    assert [d for d, _ in found] == ["install", "status"]
    assert [s for _, s in found] == pytest.approx([install, status], rel=1e-12)
    assert install == pytest.approx(1.818644, abs=1e-6)


def test_a_korean_run_is_found_without_its_index(
    korean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    avg = 4.0
    install = _idf(3, 2) * _part(1, 4, avg) + _idf(3, 1) * _part(2, 4, avg)
    status = _idf(3, 2) * _part(2, 4, avg)
    found = _keyword(korean, "서버 설치")
    assert [d for d, _ in found] == ["install", "status"]
    assert [s for _, s in found] == pytest.approx([install, status], rel=1e-12)


def test_joined_words_score_alike_without_the_index(
    chinese: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    indexed = _keyword(chinese, "怎么集成Redis")
    monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    fallback = _keyword(chinese, "怎么集成Redis")
    assert [d for d, _ in fallback] == [d for d, _ in indexed] == ["redis", "english"]
    assert [s for _, s in fallback] == pytest.approx([s for _, s in indexed], rel=1e-12)


@pytest.fixture(scope="module")
def chinese(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = [
        Doc("route", "路由拦截", "注册路由拦截器，即可对所有请求进行登录校验。", ("all",)),
        Doc("redis", "持久化", "默认保存在内存中，集成Redis后可以持久化会话。", ("all",)),
        Doc("login", "登录认证", "调用登录方法即可完成登录。", ("all",)),
        Doc("english", "Redis", "Redis keeps sessions across restarts.", ("all",)),
        *(Doc(f"other{i}", f"其他{i}", f"无关的内容第{i}段。", ("all",)) for i in range(4)),
    ]
    return _catalog(tmp_path_factory.mktemp("zh"), "zh", docs)


def test_a_word_joined_to_chinese_is_found_by_a_chinese_question_only(chinese: Path) -> None:
    # "集成Redis后可以持久化会话" holds redis joined to Chinese: an English question ranks as
    # before (the one passage where redis is a word of its own), a Chinese one finds both.
    assert [d for d, _ in _keyword(chinese, "redis")] == ["english"]
    assert {d for d, _ in _keyword(chinese, "怎么集成Redis")} == {"redis", "english"}


def test_a_chinese_question_names_a_title_inside_its_run(chinese: Path) -> None:
    # 路由拦截 (路由 由拦 拦截) is named by 如何配置路由拦截器: every bigram of the title is
    # one of the question's, and none is in more than a quarter of the passages.
    with open_catalog(chinese, embedder=None) as catalog:
        hits = catalog.search("如何配置路由拦截器", mode="keyword", k=3).hits
    assert hits[0].document_id == "route"
    assert {s.name for s in hits[0].signals} == {"keyword", "named-title"}


def test_a_large_shards_first_search_scores_cjk_words_as_its_index_will(
    japanese: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A shard this size or larger is not indexed on its first search: FTS5 answers, through
    # an index of the question's keys over the terms starting with a CJK character.
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path))  # no index cached by the tests above
    monkeypatch.setattr(_kwcache, "SYNC_BUILD_MAX_CHUNKS", 1)
    scoped = _kwcache.KeywordIndexes.scoped
    calls: list[int] = []

    def counted(self: _kwcache.KeywordIndexes, *args: Any) -> Any:
        calls.append(1)
        return scoped(self, *args)

    monkeypatch.setattr(_kwcache.KeywordIndexes, "scoped", counted)
    avg = 2.0
    settings = 3 * _idf(3, 2) * _part(1, 2, avg) + _idf(3, 1) * _part(2, 2, avg)
    start = 3 * _idf(3, 2) * _part(1, 2, avg)
    with open_catalog(japanese, embedder=None) as catalog:
        hits = catalog.search("サーバー設定", mode="keyword", k=10).hits
    assert calls == [1]
    found = [(h.document_id, h.signal("keyword").score) for h in hits]  # type: ignore[union-attr]
    assert [d for d, _ in found] == ["settings", "start"]
    assert [s for _, s in found] == pytest.approx([settings, start], rel=1e-12)


@pytest.mark.parametrize("index", ["on", "off"])
def test_a_run_longer_than_an_fts5_token_still_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str
) -> None:
    # FTS5 cuts a token at 32,768 bytes, here inside a three-byte character: the vocabulary
    # then holds a term that is no UTF-8, and reading the CJK vocabulary ended the search in
    # sqlite3.OperationalError (and the derived index was never built).
    docs = [
        Doc("flood", "洪水", "的" * 12_000, ("all",)),
        Doc("plain", "说明", "目的地", ("all",)),
    ]
    root = _catalog(tmp_path, "zh", docs)
    monkeypatch.setenv(KEYWORD_INDEX_ENV, index)
    found = [d for d, _ in _keyword(root, "目的")]
    assert found == ["plain"]
    if index == "on":
        # The derived index reads the cut term too: its pairs are the run's.
        assert [d for d, _ in _keyword(root, "的的")] == ["flood"]


@pytest.mark.parametrize("index", ["on", "off"])
def test_a_pair_repeated_past_a_postings_count_still_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str
) -> None:
    # A catalog is untrusted input: one passage holding a pair 66,000 times, past what a
    # posting's count stores. The derived index refuses the shard (FTS5 answers instead), and
    # the index of the question's keys read from FTS5 raised ValueError out of the search; it
    # counts the pair as the most a posting holds.
    docs = [
        Doc("flood", "洪水", "的的 " * 66_000, ("all",)),
        Doc("plain", "说明", "目的地", ("all",)),
    ]
    root = _catalog(tmp_path, "zh", docs)
    monkeypatch.setenv(KEYWORD_INDEX_ENV, index)
    found = _keyword(root, "的的")
    assert [d for d, _ in found] == ["flood"]
    avg = (1 + 66_000 + 2) / 2  # flood: its title and 66,000 tokens; plain: two tokens
    expected = _idf(2, 1) * _part(0xFFFF, 66_001, avg)
    assert found[0][1] == pytest.approx(expected, rel=1e-12)
