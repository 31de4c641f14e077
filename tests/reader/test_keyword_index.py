"""The derived keyword index: FTS5's ranking exactly, its cache file's lifecycle, stems and
query-term weight (issues 22 and 23)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.opening import CatalogCache, open_catalog
from gezel_knowledge.reader import open_extracted
from gezel_knowledge.reader._kwcache import KEYWORD_INDEX_ENV, KeywordIndexes
from gezel_knowledge.reader._kwindex import (
    KeywordIndex,
    QueryTerm,
    bm25_idf,
    build_index,
    top_passages,
)
from tests.reader.catalog_builder import CatalogBuild, Doc, Topic, pack

# --- exactness against FTS5 on a generated corpus -----------------------------------------------

_WORDS = [f"w{i}" for i in range(60)]


def _corpus(tmp_path: Path, n: int = 600) -> sqlite3.Connection:
    """The reader's fts_chunks definition over generated passages, many of them tied: repeated
    texts, equal lengths, a few words in almost every passage."""
    rng = np.random.default_rng(7)
    conn = sqlite3.connect(tmp_path / "corpus.db")
    conn.executescript(
        "CREATE TABLE chunks(id INTEGER PRIMARY KEY, title TEXT, heading_text TEXT, text TEXT);"
        "CREATE VIRTUAL TABLE fts_chunks USING fts5(title, heading_text, text,"
        " content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');"
    )
    weights = 1.0 / np.arange(1, len(_WORDS) + 1)
    rows = []
    for i in range(1, n + 1):
        if i % 7 == 0:
            rows.append((i, *rows[-1][1:]))  # an exact copy of the passage before: a tie
            continue
        # Lengths past 127 and 16,383 tokens take two and three varint bytes in the docsize.
        size = int(
            rng.choice([rng.integers(3, 25), rng.integers(120, 400), 16_500], p=[0.8, 0.19, 0.01])
        )
        words = rng.choice(_WORDS, size=size, p=weights / weights.sum())
        rows.append((i, f"Title {i % 5}", "", " ".join(words)))
    conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?)", rows)
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    conn.commit()
    return conn


def _fts_top(
    conn: sqlite3.Connection, terms: list[tuple[str, int]], k: int
) -> list[tuple[int, float]]:
    match = " OR ".join(f'"{t}"' for t, c in terms for _ in range(c))
    rows = conn.execute(
        "SELECT rowid, bm25(fts_chunks, 1.0, 1.0, 1.0) AS s FROM fts_chunks"
        " WHERE fts_chunks MATCH ? ORDER BY s, rowid LIMIT ?",
        (match, k),
    ).fetchall()
    return [(int(r), -float(s)) for r, s in rows]


def test_index_ranks_exactly_as_fts5_bm25_ties_included(tmp_path: Path) -> None:
    conn = _corpus(tmp_path)
    index = KeywordIndex(build_index(conn, None), stemmed=False, verified=True)
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(150):
        picked = rng.choice(_WORDS[:40], size=int(rng.integers(1, 7)), replace=False)
        terms = [(str(w), int(rng.integers(1, 4))) for w in picked]
        if rng.random() < 0.3:
            terms.append(("title", 1))  # a word of every passage's title column
        k = int(rng.choice([1, 5, 10, 40]))
        expected = _fts_top(conn, terms, k)
        query = []
        for word, count in terms:
            term_id = index.term_id(word)
            if term_id is not None:
                query.append(QueryTerm(term_id, bm25_idf(index.rows, index.df(term_id)), count))
        ids, scores = top_passages(index, query, k)
        # Same passages in the same order (ties by ascending id), same scores to the bit.
        assert list(zip(ids.tolist(), scores.tolist(), strict=True)) == expected
        compared += len(expected)
    assert compared > 1000


def test_a_radius_filter_is_served_by_the_index(tmp_path: Path) -> None:
    conn = _corpus(tmp_path)
    index = KeywordIndex(build_index(conn, None), stemmed=False, verified=True)
    allowed = np.zeros(index.norms.shape[0], dtype=np.bool_)
    allowed[::3] = True
    term_id = index.term_id("w5")
    assert term_id is not None
    ids, _ = top_passages(index, [QueryTerm(term_id, 1.0, 1)], 1000, allowed)
    docs, _ = index.postings(term_id)
    assert sorted(ids.tolist()) == [d for d in docs.tolist() if d % 3 == 0]


# --- catalogs: stems, query-term weight, first and later searches --------------------------------


def _catalog(root: Path, docs: list[Doc], *, language: str = "en") -> Path:
    return CatalogBuild(docs, [Topic("all", "All")], language=language).write(root)


def _doc(i: int, body: str) -> Doc:
    return Doc(f"d{i}", f"Note {i}", body, ("all",))


def test_stemming_groups_inflections(tmp_path: Path) -> None:
    root = _catalog(
        tmp_path / "c",
        [_doc(0, "The attenuator cuts the signal."), _doc(1, "A filter for noise.")],
    )
    with open_catalog(root, embedder=None) as catalog:
        hits = catalog.search("attenuators", mode="keyword").hits
    assert [h.document_id for h in hits] == ["d0"]


def test_a_language_without_a_stemmer_matches_words_as_they_are(tmp_path: Path) -> None:
    root = _catalog(
        tmp_path / "c",
        [_doc(0, "The attenuator cuts the signal."), _doc(1, "Two attenuators in a row.")],
        language="ja",
    )
    with open_catalog(root, embedder=None) as catalog:
        hits = catalog.search("attenuators", mode="keyword").hits
    assert [h.document_id for h in hits] == ["d1"]


def test_repeated_query_words_weigh_as_bm25_says(tmp_path: Path) -> None:
    # d0 says "copper" three times, d1 says "zinc" three times; both are ten words long and
    # each word is in two of the four passages, so "copper zinc" ties them (by id: d0 first)
    # and saying one word twice puts its passage first.
    docs = [
        _doc(0, "copper copper copper zinc alpha beta gamma delta epsilon zeta"),
        _doc(1, "zinc zinc zinc copper alpha beta gamma delta epsilon zeta"),
        _doc(2, "unrelated words only here"),
        _doc(3, "more unrelated words here"),
    ]
    root = _catalog(tmp_path / "c", docs, language="ja")
    with open_catalog(root, embedder=None) as catalog:

        def order(text: str) -> list[str]:
            hits = catalog.search(text, mode="keyword").hits
            return [h.document_id for h in hits]

        assert order("copper zinc") == ["d0", "d1"]
        assert order("zinc copper zinc") == ["d1", "d0"]
        assert order("copper zinc copper") == ["d0", "d1"]


def _mixed_docs(n: int = 40) -> list[Doc]:
    rng = np.random.default_rng(11)
    words = ["river", "rivers", "bank", "banks", "flows", "flowing", "stone", "water", "mill"]
    return [_doc(i, " ".join(rng.choice(words, size=int(rng.integers(4, 12))))) for i in range(n)]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_first_and_later_searches_agree_and_fts5_agrees_unstemmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs(), language=language)
    queries = ["river bank", "flowing rivers stone", "water water mill", "banks"]
    with open_catalog(root, embedder=None) as catalog:
        first = [catalog.search(q, mode="keyword", k=20).hits for q in queries]
        again = [catalog.search(q, mode="keyword", k=20).hits for q in queries]
    monkeypatch.setenv(KEYWORD_INDEX_ENV, "off")
    with open_catalog(root, embedder=None) as catalog:
        fts = [catalog.search(q, mode="keyword", k=20).hits for q in queries]

    def docs(results: list[tuple]) -> list[list[str]]:  # type: ignore[type-arg]
        return [[h.document_id for h in hits] for hits in results]

    def scores(results: list[tuple]) -> list[float]:  # type: ignore[type-arg]
        return [h.signal("keyword").score for hits in results for h in hits]

    assert docs(first) == docs(again)
    if language == "ja":  # no stemmer: FTS5 over the same terms ranks and scores alike
        assert docs(first) == docs(fts)
        assert scores(first) == pytest.approx(scores(fts), rel=1e-12)


# --- the cache file ---------------------------------------------------------------------------


def _index_file(catalog_root: Path) -> Path:
    with open_catalog(catalog_root, embedder=None) as catalog:
        catalog.search("river", mode="keyword")
        return catalog._store.keyword.path_of(catalog.shards[0])


@pytest.mark.parametrize("damage", ["corrupt-postings", "corrupt-header", "truncated", "foreign"])
def test_a_damaged_stale_or_foreign_cache_file_is_refused_and_rebuilt(
    tmp_path: Path, damage: str
) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs())
    other = _catalog(tmp_path / "o", _mixed_docs(12))
    path = _index_file(root)
    good = path.read_bytes()
    every = " ".join(["river", "rivers", "bank", "banks", "flows", "stone", "water", "mill"])
    with open_catalog(root, embedder=None) as catalog:
        expected = [h.document_id for h in catalog.search(every, mode="keyword").hits]
    data = bytearray(good)
    if damage == "corrupt-postings":
        data[-3] ^= 0xFF  # inside the last posting list's frequencies
    elif damage == "corrupt-header":
        data[40] ^= 0x01
    elif damage == "truncated":
        data = data[: len(data) // 2]
    else:
        data = bytearray(_index_file(other).read_bytes())  # another catalog's shard 0
    path.write_bytes(bytes(data))
    with open_catalog(root, embedder=None) as catalog:
        hits = [h.document_id for h in catalog.search(every, mode="keyword").hits]
        again = [h.document_id for h in catalog.search(every, mode="keyword").hits]
    assert hits == expected
    assert again == expected
    assert path.read_bytes() == good  # rebuilt, byte for byte


def test_a_stale_cache_file_is_rebuilt(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs())
    path = _index_file(root)
    good = path.read_bytes()
    stale = good.replace(b'"chunk_count": ', b'"chunk_count": 1', 1)
    assert stale != good
    path.write_bytes(stale)
    _index_file(root)
    assert path.read_bytes() == good


def _build_in_process(root: str, home: str) -> str:
    os.environ["GEZEL_HOME"] = home
    with open_extracted(Path(root), embedder=HashEmbedder()) as catalog:
        index = catalog._store.keyword.get(catalog.shards[0], wait=True)
        assert index is not None
        return str(catalog._store.keyword.path_of(catalog.shards[0]))


def test_two_processes_building_at_once_leave_one_good_copy(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs(400))
    home = tmp_path / "home"
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        paths = pool.starmap(_build_in_process, [(str(root), str(home))] * 2)
    assert paths[0] == paths[1]
    folder = Path(paths[0]).parent
    assert sorted(p.name for p in folder.iterdir()) == ["shard-000.gzkw", "shard-000.gzkw.lock"]
    built = Path(paths[0]).read_bytes()
    Path(paths[0]).unlink()
    _build_in_process(str(root), str(home))
    assert Path(paths[0]).read_bytes() == built


def test_a_pruned_catalog_leaves_no_index(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs())
    archive = pack(root, tmp_path / "c.gezk")
    cache = CatalogCache(tmp_path / "cache")
    with open_catalog(archive, embedder=None, cache_dir=tmp_path / "cache") as catalog:
        catalog.search("river", mode="keyword")
        path = catalog._store.keyword.path_of(catalog.shards[0])
    del catalog
    gc.collect()  # the extraction's lease goes with the handle
    assert path.is_file()
    assert path.parent == cache.derived_dir(path.parent.name)
    cache.prune(everything=True)
    assert not path.parent.exists()


def test_an_installed_catalog_removed_leaves_no_index(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs())
    archive = pack(root, tmp_path / "c.gezk")
    home = KnowledgeHome(tmp_path / "home")
    installed = home.install(archive)
    with home.mount(installed.key) as catalog:
        catalog.search("river", mode="keyword")
        path = catalog._store.keyword.path_of(catalog.shards[0])
    assert path.is_file()
    assert tmp_path / "home" in path.parents
    home.remove(installed.key)
    assert not path.parent.exists()


def test_a_folder_that_cannot_be_written_keeps_the_index_in_memory(tmp_path: Path) -> None:
    root = _catalog(tmp_path / "c", _mixed_docs())
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    with open_catalog(root, embedder=None) as catalog:
        catalog._store.keyword = KeywordIndexes(root, catalog.manifest, None, blocked / "keyword")
        hits = catalog.search("river", mode="keyword").hits
        assert hits
        assert catalog._store.keyword.get(catalog.shards[0]) is not None


def test_the_compiled_kernel_gives_the_numpy_kernels_results(tmp_path: Path) -> None:
    compiled = pytest.importorskip(
        "gezel_knowledge.reader._compiled", reason="numba is not installed on this platform"
    )
    conn = _corpus(tmp_path)
    index = KeywordIndex(build_index(conn, None), stemmed=False, verified=True)
    rng = np.random.default_rng(5)
    allowed = rng.random(index.norms.shape[0]) < 0.5
    for _ in range(100):
        picked = rng.choice(_WORDS[:45], size=int(rng.integers(1, 9)), replace=False)
        query = []
        for word in picked:
            term_id = index.term_id(str(word))
            if term_id is not None:
                idf = bm25_idf(index.rows, index.df(term_id))
                query.append(QueryTerm(term_id, idf, int(rng.integers(1, 3))))
        k = int(rng.choice([1, 3, 10, 50]))
        mask = allowed if rng.random() < 0.3 else None
        ids, scores = top_passages(index, query, k, mask)
        ids_c, scores_c = top_passages(index, query, k, mask, compiled)
        assert ids.tolist() == ids_c.tolist()
        assert scores.tolist() == scores_c.tolist()


# --- long questions (issue 23) ------------------------------------------------------------------


def _long_question_docs() -> list[Doc]:
    # Thirty-two filler notes each hold one word of their own; "harbour" is in two notes, and
    # four common words c0..c3 in three or four (d50-d52 hold them all, d41 holds c0).
    fillers = [_doc(i + 1, f"word{i} alone") for i in range(32)]
    common = " ".join(f"c{i}" for i in range(4))
    return [
        _doc(0, "harbour harbour cranes"),
        *fillers,
        _doc(40, "harbour walls"),
        _doc(41, "c0 apart"),
        *(_doc(50 + i, common) for i in range(3)),
    ]


_LONG_QUESTION = (
    " ".join(f"word{i}" for i in range(32)) + " harbour " + " ".join(f"c{i}" for i in range(4))
)


def test_a_long_question_keeps_nine_tenths_of_its_words_the_rarest(tmp_path: Path) -> None:
    # 37 distinct words: nine tenths is 33 (33.3 rounded down), the 32 rare words and
    # "harbour" (in two notes); the four common words are left out. Kept to 32 words (before
    # issue 23) the question dropped "harbour" too and never found d0 or d40, which hold it.
    root = _catalog(tmp_path / "c", _long_question_docs(), language="ja")
    with open_catalog(root, embedder=None) as catalog:
        hits = catalog.search(_LONG_QUESTION, mode="keyword", k=60).hits
    found = [h.document_id for h in hits]
    assert "d0" in found
    assert "d40" in found
    # d0 says "harbour" twice in three words, d40 once in two: d0 ranks first of the two.
    assert found.index("d0") < found.index("d40")
    assert not {"d41", "d50", "d51", "d52"} & set(found)


def test_a_long_questions_phrase_counts_as_its_words(tmp_path: Path) -> None:
    # "e_mail" is a phrase term: in a short question it needs "e mail" side by side; in a
    # question of more than 32 terms it counts as the words "e" and "mail", so the note
    # holding only "mail" (as rare as the filler words) is found.
    docs = [*_long_question_docs(), _doc(42, "mail sorting")]
    root = _catalog(tmp_path / "c", docs, language="ja")
    with open_catalog(root, embedder=None) as catalog:
        long_hits = catalog.search(_LONG_QUESTION + " e_mail", mode="keyword", k=60).hits
        short_hits = catalog.search("e_mail", mode="keyword", k=60).hits
    assert "d42" in [h.document_id for h in long_hits]
    assert "d42" not in [h.document_id for h in short_hits]
