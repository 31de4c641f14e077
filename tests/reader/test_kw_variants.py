"""Each keyword-index key's vocabulary terms, kept as term numbers: built, written, read back
(format 6), and an older file refused."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.reader._kwfile import IndexRefused, read_index, write_index
from gezel_knowledge.reader._kwindex import KeywordIndex, build_index
from gezel_knowledge.reader._kwvariants import Variants, utf8_offsets
from gezel_knowledge.stemming import stemmer_for


def test_utf8_offsets_count_every_width() -> None:
    # 2 ASCII bytes; 3 CJK characters of 3 bytes; nothing; a 2-byte letter; a 4-byte emoji
    # and an ASCII letter.
    offsets, text = utf8_offsets(["ab", "数据库", "", "é", "😀x"])
    assert offsets.tolist() == [0, 2, 11, 11, 13, 18]
    assert text.tobytes() == "ab数据库é😀x".encode()


def test_a_keys_terms_are_decoded_in_their_order() -> None:
    offsets, text = utf8_offsets(["redis集成", "数据库", "库存"])
    found = Variants(
        key_offsets=np.array([0, 2, 2, 3], dtype=np.int64),
        ids=np.array([1, 2, 0], dtype=np.int32),
        term_offsets=offsets,
        text=text,
    )
    assert found.terms == 3
    assert found.of(0) == ["数据库", "库存"]
    assert found.of(1) == []
    assert found.of(2) == ["redis集成"]


def _shard(tmp_path: Path, texts: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "shard.db")
    conn.executescript(
        "CREATE TABLE chunks(id INTEGER PRIMARY KEY, title TEXT, heading_text TEXT, text TEXT);"
        "CREATE VIRTUAL TABLE fts_chunks USING fts5(title, heading_text, text,"
        " content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');"
    )
    conn.executemany(
        "INSERT INTO chunks VALUES (?, '', '', ?)", [(i + 1, t) for i, t in enumerate(texts)]
    )
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    conn.commit()
    return conn


_CHINESE = ["数据库连接，连接池", "数据库很快。redis集成", "连接数据"]


def _variants(index: KeywordIndex, key: str) -> list[str]:
    term_id = index.term_id(key)
    assert term_id is not None
    return index.variants(term_id)


@pytest.mark.parametrize("from_file", [False, True])
def test_cjk_pairs_and_stems_keep_their_terms(tmp_path: Path, from_file: bool) -> None:
    conn = _shard(tmp_path, [*_CHINESE, "rivers river banks"])
    built = build_index(conn, stemmer_for("en"))
    if from_file:
        write_index(tmp_path / "ix.gzkw", built, {"shard_id": 0})
        built, _mapped = read_index(tmp_path / "ix.gzkw", {"shard_id": 0})
    index = KeywordIndex(built, stemmed=True, verified=not from_file)
    # FTS5 terms (clauses) in vocabulary order, i.e. by code point: 数 (U+6570) before
    # 连 (U+8FDE); "redis集成" sorts before every CJK term.
    assert _variants(index, "数据") == ["数据库很快", "数据库连接", "连接数据"]
    assert _variants(index, "连接") == ["数据库连接", "连接数据", "连接池"]
    assert _variants(index, "集成") == ["redis集成"]
    assert _variants(index, "river") == ["river", "rivers"]
    assert _variants(index, "bank") == ["banks"]


def test_an_unstemmed_index_without_cjk_terms_has_no_variant_lists(tmp_path: Path) -> None:
    conn = _shard(tmp_path, ["rivers river banks"])
    built = build_index(conn, None)
    assert built.variants is None
    write_index(tmp_path / "ix.gzkw", built, {"shard_id": 0})
    again, _mapped = read_index(tmp_path / "ix.gzkw", {"shard_id": 0})
    assert again.variants is None
    assert KeywordIndex(again, stemmed=False).variants(again.keys.index("rivers")) == ["rivers"]


def _rewritten_header(path: Path, change: dict[str, object]) -> None:
    """Rewrite the header with ``change`` applied and its CRC made good again."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[8:16], "little")
    header = json.loads(data[24 : 24 + length])
    header.update(change)
    text = json.dumps(header, sort_keys=True).encode()
    assert len(text) <= length
    text += b" " * (length - len(text))
    data[16:24] = zlib.crc32(text).to_bytes(8, "little")
    data[24 : 24 + length] = text
    path.write_bytes(bytes(data))


def test_an_older_format_is_refused(tmp_path: Path) -> None:
    conn = _shard(tmp_path, _CHINESE)
    write_index(tmp_path / "ix.gzkw", build_index(conn, None), {"shard_id": 0})
    _rewritten_header(tmp_path / "ix.gzkw", {"format": 5})
    with pytest.raises(IndexRefused, match="another format version"):
        read_index(tmp_path / "ix.gzkw", {"shard_id": 0})


def test_a_term_number_past_the_vocabulary_is_refused(tmp_path: Path) -> None:
    conn = _shard(tmp_path, _CHINESE)
    built = build_index(conn, None)
    assert built.variants is not None
    ids = built.variants.ids.copy()
    ids[-1] = built.variants.terms  # one past the last term
    built.variants = Variants(
        built.variants.key_offsets, ids, built.variants.term_offsets, built.variants.text
    )
    write_index(tmp_path / "ix.gzkw", built, {"shard_id": 0})
    with pytest.raises(IndexRefused, match="inconsistent arrays"):
        read_index(tmp_path / "ix.gzkw", {"shard_id": 0})
