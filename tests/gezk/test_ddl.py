"""The catalog databases' DDL, pragmas, meta and layout checker (spec section 5).

Expected column lists below are transcribed by hand from the DDL printed in gezk-0.5.md,
gezk-0.6.md and gezk-0.7.md sections 5.2 and 5.3, not read from :mod:`gezk.ddl`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from gezk import ddl
from gezk.errors import GezkError, SchemaViolation, UnsupportedVersion

VERSIONS = (2, 3, 4)
ROLES: tuple[ddl.DatabaseRole, ...] = ("router", "shard", "router+shard")

META = ["key", "value"]
TOPICS = ["id", "parent_id", "name", "description", "sort_key", "document_count"]
DOCUMENTS_05 = [
    "id", "title", "slug", "summary", "language", "topic_id", "shard_id", "chunk_count",
    "source_url", "source_revision", "source_updated_at", "attribution_json", "body_codec",
    "body_blob",
]  # fmt: skip
DOCUMENTS_06 = [
    "id", "title", "slug", "summary", "language", "topic_id", "ordinal", "shard_id",
    "chunk_count", "source_url", "source_revision", "source_updated_at", "attribution_json",
    "meta_json", "body_codec", "body_blob",
]  # fmt: skip
DOCUMENT_LOCATIONS = [
    "document_id", "location_id", "latitude", "longitude", "role", "provenance_json",
]  # fmt: skip
TOPIC_DOCUMENTS = ["topic_id", "document_id", "ordinal"]
ALIASES = ["alias", "document_id"]
SHARDS = [
    "id", "path", "chunk_count", "document_count", "topic_ids_json", "centroid_count", "bytes",
]  # fmt: skip
ROUTE_CENTROIDS = ["id", "shard_id", "embedding", "weight"]
FTS_DOCUMENTS = ["title", "summary", "aliases", "document_id"]
CHUNKS = [
    "id", "chunk_uid", "document_id", "ordinal", "title", "heading_path", "heading_text",
    "line_start", "line_end", "token_count", "content_hash", "text",
]  # fmt: skip
FTS_CHUNKS = ["title", "heading_text", "text"]
VECTORS = ["chunk_id", "v"]

SHARD_TABLES = {
    "meta": META,
    "chunks": CHUNKS,
    "fts_chunks": FTS_CHUNKS,
    "chunk_vectors_bit": VECTORS,
    "chunk_vectors_int8": VECTORS,
}
ROUTER_TABLES = {
    2: {
        "meta": META,
        "topics": TOPICS,
        "documents": DOCUMENTS_05,
        "aliases": ALIASES,
        "shards": SHARDS,
        "route_centroids": ROUTE_CENTROIDS,
        "fts_documents": FTS_DOCUMENTS,
    },
    3: {
        "meta": META,
        "topics": TOPICS,
        "documents": DOCUMENTS_06,
        "aliases": ALIASES,
        "shards": SHARDS,
        "route_centroids": ROUTE_CENTROIDS,
        "fts_documents": FTS_DOCUMENTS,
    },
    4: {
        "meta": META,
        "topics": TOPICS,
        "documents": DOCUMENTS_06,
        "document_locations": DOCUMENT_LOCATIONS,
        "topic_documents": TOPIC_DOCUMENTS,
        "aliases": ALIASES,
        "shards": SHARDS,
        "route_centroids": ROUTE_CENTROIDS,
        "fts_documents": FTS_DOCUMENTS,
    },
}

# Secondary indexes by name and their columns, from the same DDL.
ROUTER_INDEXES = {
    2: {
        "documents_topic": ["topic_id", "slug"],
        "documents_shard": ["shard_id"],
        "route_centroids_shard": ["shard_id"],
    },
    3: {
        "documents_topic": ["topic_id", "ordinal", "slug"],
        "documents_shard": ["shard_id"],
        "route_centroids_shard": ["shard_id"],
    },
    4: {
        "documents_topic": ["topic_id", "ordinal", "slug"],
        "documents_shard": ["shard_id"],
        "route_centroids_shard": ["shard_id"],
        "document_locations_latitude": ["latitude", "longitude", "document_id"],
        "document_locations_longitude": ["longitude", "latitude", "document_id"],
        "topic_documents_document": ["document_id"],
        "topic_documents_order": ["topic_id", "ordinal", "document_id"],
    },
}
SHARD_INDEXES = {"chunks_uid": ["chunk_uid"], "chunks_document": ["document_id", "ordinal"]}

FORMAT_OF = {2: "0.5", 3: "0.6", 4: "0.7"}


def expected_tables(role: str, version: int) -> dict[str, list[str]]:
    tables: dict[str, list[str]] = {}
    if role != "shard":
        tables.update(ROUTER_TABLES[version])
    if role != "router":
        tables.update(SHARD_TABLES)
    return tables


def full_meta(role: str, version: int) -> dict[str, str | int]:
    meta: dict[str, str | int] = {
        "format_version": FORMAT_OF[version],
        "index_schema_version": version,
        "catalog_id": "physics",
        "catalog_version": "2026.9.1",
        "embedding_profile_id": "test-hash-embed@1",
        "chunking_profile_id": "markdown-chunks@2",
        "shard_id": 0,
        "chunk_count": 0,
    }
    if role != "shard":
        meta.update(
            embedding_profile_json="{}",
            chunking_profile_json="{}",
            created_at="2026-09-01T00:00:00.000Z",
        )
    return meta


def user_tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Every table SQLite lists, FTS5 shadow tables excluded, with its column names."""
    names = [
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    shadows = {
        f"{fts}_{suffix}"
        for fts in names
        for suffix in ("data", "idx", "content", "docsize", "config")
    }
    return {
        name: [row[1] for row in conn.execute(f"PRAGMA table_info({name})")]
        for name in names
        if name not in shadows
    }


@pytest.fixture
def memdb() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    yield conn
    conn.close()


def make_db(role: ddl.DatabaseRole, version: int) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    ddl.create_schema(conn, role, version)
    ddl.write_meta(conn, full_meta(role, version))
    conn.commit()
    return conn


# --- DDL -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("role", ROLES)
def test_ddl_creates_exactly_the_spec_tables_and_columns(
    role: ddl.DatabaseRole, version: int
) -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl.database_ddl(role, version))
    assert user_tables(conn) == expected_tables(role, version)


@pytest.mark.parametrize("version", VERSIONS)
def test_router_and_shard_ddl_run_on_their_own(memdb: sqlite3.Connection, version: int) -> None:
    memdb.executescript(ddl.router_ddl(version))
    assert user_tables(memdb) == ROUTER_TABLES[version]
    shard = sqlite3.connect(":memory:")
    shard.executescript(ddl.shard_ddl(version))
    assert user_tables(shard) == SHARD_TABLES


def test_schema_2_lacks_the_06_and_07_additions(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.router_ddl(2))
    tables = user_tables(memdb)
    assert "topic_documents" not in tables
    assert "document_locations" not in tables
    assert "ordinal" not in tables["documents"]
    assert "meta_json" not in tables["documents"]


def test_schema_3_has_06_columns_but_no_07_tables(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.router_ddl(3))
    tables = user_tables(memdb)
    assert {"ordinal", "meta_json"} <= set(tables["documents"])
    assert "topic_documents" not in tables
    assert "document_locations" not in tables


def test_schema_4_has_topic_documents_and_document_locations(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.router_ddl(4))
    tables = user_tables(memdb)
    assert tables["topic_documents"] == TOPIC_DOCUMENTS
    assert tables["document_locations"] == DOCUMENT_LOCATIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_indexes_match_the_spec(version: int) -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl.database_ddl("router+shard", version))
    indexes = {
        name: [row[2] for row in conn.execute(f"PRAGMA index_info({name})")]
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    }
    assert indexes == {**ROUTER_INDEXES[version], **SHARD_INDEXES}
    unique = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_uid'").fetchone()
    assert unique[0].startswith("CREATE UNIQUE INDEX")


@pytest.mark.parametrize("version", VERSIONS)
def test_embedded_shard_shares_one_meta_table(version: int) -> None:
    script = ddl.database_ddl("router+shard", version)
    assert script.count("CREATE TABLE meta(") == 1
    assert ddl.router_ddl(version).count("CREATE TABLE meta(") == 1
    assert ddl.shard_ddl(version).count("CREATE TABLE meta(") == 1


def test_fts_tables_are_fts5_and_searchable() -> None:
    conn = make_db("router+shard", 4)
    sql = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'fts_%s'"))
    assert "USING fts5" in sql["fts_documents"]
    assert "USING fts5" in sql["fts_chunks"]
    conn.execute(
        "INSERT INTO fts_documents(title, summary, aliases, document_id) VALUES (?, ?, ?, ?)",
        ("Café Physics", "Newton", "", "doc-1"),
    )
    # remove_diacritics 2: "cafe" finds "Café"; prefix index '2 3' serves "ph*".
    assert conn.execute(
        "SELECT document_id FROM fts_documents WHERE fts_documents MATCH 'cafe ph*'"
    ).fetchall() == [("doc-1",)]
    conn.execute(
        "INSERT INTO chunks VALUES (1, ?, 'doc-1', 0, 'Café Physics', '[]', '', 1, 3, 5, ?, ?)",
        ("0" * 32, "f" * 64, "Newton's laws of motion"),
    )
    conn.execute("INSERT INTO fts_chunks(fts_chunks) VALUES ('rebuild')")
    assert conn.execute(
        "SELECT rowid FROM fts_chunks WHERE fts_chunks MATCH 'motion'"
    ).fetchall() == [(1,)]


def _insert_document(conn: sqlite3.Connection, body_codec: str = "none") -> None:
    conn.execute("INSERT OR IGNORE INTO topics VALUES ('physics', NULL, 'Physics', NULL, '00', 1)")
    conn.execute(
        "INSERT INTO documents(id, title, slug, language, topic_id, shard_id, chunk_count,"
        " body_codec, body_blob) VALUES ('d', 'D', 'd', 'en', 'physics', 0, 0, ?, x'00')",
        (body_codec,),
    )


def test_body_codec_is_constrained(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.router_ddl(4))
    with pytest.raises(sqlite3.IntegrityError):
        _insert_document(memdb, body_codec="gzip")
    _insert_document(memdb, body_codec="br")


@pytest.mark.parametrize(
    ("latitude", "longitude", "role", "ok"),
    [
        (47.6, -122.3, "subject", True),
        (-90.0, -180.0, "associated", True),
        (90.0, 179.999999, "subject", True),
        (47.6, 180.0, "subject", False),  # stored longitudes are in [-180, 180)
        (90.5, 0.0, "subject", False),
        (-90.5, 0.0, "subject", False),
        (0.0, -180.5, "subject", False),
        (0.0, 0.0, "primary", False),
    ],
)
def test_document_locations_constraints(
    memdb: sqlite3.Connection, latitude: float, longitude: float, role: str, ok: bool
) -> None:
    memdb.executescript(ddl.router_ddl(4))
    _insert_document(memdb)
    insert = "INSERT INTO document_locations VALUES ('d', 'p', ?, ?, ?, NULL)"
    if ok:
        memdb.execute(insert, (latitude, longitude, role))
    else:
        with pytest.raises(sqlite3.IntegrityError):
            memdb.execute(insert, (latitude, longitude, role))


@pytest.mark.parametrize(
    ("ordinal", "ok"),
    [
        (None, True),
        (0, True),
        (-(2**31), True),
        (2**31 - 1, True),
        (2**31, False),
        (-(2**31) - 1, False),
        (1.5, False),
        ("3", True),  # INTEGER affinity turns the text '3' into the integer 3
        ("three", False),
    ],
)
def test_topic_documents_ordinal_is_a_signed_32_bit_integer(
    memdb: sqlite3.Connection, ordinal: object, ok: bool
) -> None:
    memdb.executescript(ddl.router_ddl(4))
    _insert_document(memdb)
    insert = "INSERT INTO topic_documents VALUES ('physics', 'd', ?)"
    if ok:
        memdb.execute(insert, (ordinal,))
    else:
        with pytest.raises(sqlite3.IntegrityError):
            memdb.execute(insert, (ordinal,))


def test_topic_documents_pair_is_unique(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.router_ddl(4))
    _insert_document(memdb)
    memdb.execute("INSERT INTO topic_documents VALUES ('physics', 'd', 1)")
    with pytest.raises(sqlite3.IntegrityError):
        memdb.execute("INSERT INTO topic_documents VALUES ('physics', 'd', 2)")


@pytest.mark.parametrize("bad", [1, 5, 0, -4, "4", 4.0, True, None])
def test_unsupported_schema_versions_are_refused(bad: object) -> None:
    for call in (ddl.router_ddl, ddl.shard_ddl):
        with pytest.raises(UnsupportedVersion) as info:
            call(bad)  # type: ignore[arg-type]
        assert info.value.reason == "unsupported-format"
    with pytest.raises(UnsupportedVersion):
        ddl.database_ddl("router", bad)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedVersion):
        ddl.apply_pragmas(sqlite3.connect(":memory:"), bad)  # type: ignore[arg-type]


def test_unknown_role_is_refused() -> None:
    with pytest.raises(GezkError) as info:
        ddl.database_ddl("index", 4)  # type: ignore[arg-type]
    assert info.value.reason == "invalid-role"
    assert info.value.subject == "index"


# --- pragmas and sealing ---------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_pragmas_read_back_from_a_file_database(tmp_path: Path, version: int) -> None:
    path = tmp_path / "router.db"
    conn = sqlite3.connect(path)
    ddl.create_schema(conn, "router", version)
    conn.close()

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 8192
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x47455A4B
    assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    header = path.read_bytes()[:100]
    assert header[16:18] == (8192).to_bytes(2, "big")
    assert header[60:64] == (version).to_bytes(4, "big")  # user_version
    assert header[68:72] == b"GEZK"  # application_id
    assert sorted(p.name for p in tmp_path.iterdir()) == ["router.db"]


def test_constants_match_the_spec() -> None:
    assert ddl.PAGE_SIZE == 8192
    assert ddl.APPLICATION_ID == 0x47455A4B
    assert ddl.APPLICATION_ID.to_bytes(4, "big") == b"GEZK"


def test_apply_pragmas_refuses_a_database_that_already_has_tables(
    memdb: sqlite3.Connection,
) -> None:
    memdb.execute("CREATE TABLE t(x)")
    with pytest.raises(SchemaViolation) as info:
        ddl.apply_pragmas(memdb, 4)
    assert info.value.reason == "database-not-empty"


def test_apply_pragmas_reports_a_refused_page_size(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "wal.db")
    conn.execute("PRAGMA journal_mode = WAL")  # writes the header with the default page size
    with pytest.raises(SchemaViolation) as info:
        ddl.apply_pragmas(conn, 4)
    assert info.value.reason == "page-size-refused"


def test_seal_writes_a_compact_copy_with_the_pragmas(tmp_path: Path) -> None:
    conn = make_db("router+shard", 4)
    conn.execute("INSERT INTO topics VALUES ('physics', NULL, 'Physics', NULL, '00', 0)")
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    ddl.seal(conn, str(first))  # commits the pending insert first
    ddl.seal(conn, str(second))
    assert first.read_bytes() == second.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.db", "b.db"]

    sealed = sqlite3.connect(f"{first.as_uri()}?mode=ro&immutable=1", uri=True)
    assert sealed.execute("PRAGMA page_size").fetchone()[0] == 8192
    assert ddl.check_database(sealed, "router+shard", 4) == []
    assert sealed.execute("SELECT id FROM topics").fetchall() == [("physics",)]
    assert first.read_bytes()[18:20] == b"\x01\x01"  # rollback journal, not WAL


def test_seal_refuses_an_existing_destination(tmp_path: Path) -> None:
    dest = tmp_path / "taken.db"
    dest.write_bytes(b"not empty")
    with pytest.raises(SchemaViolation) as info:
        ddl.seal(make_db("shard", 4), str(dest))
    assert info.value.reason == "seal-failed"
    assert dest.read_bytes() == b"not empty"


# --- meta ------------------------------------------------------------------------------------


def test_meta_key_sets_follow_section_5_1() -> None:
    assert set(ddl.SHARD_META_KEYS) == {
        "format_version",
        "index_schema_version",
        "catalog_id",
        "catalog_version",
        "embedding_profile_id",
        "chunking_profile_id",
        "shard_id",
        "chunk_count",
    }
    assert set(ddl.ROUTER_META_KEYS) == {
        "embedding_profile_json",
        "chunking_profile_json",
        "created_at",
        "toolchain_json",
    }
    assert {"toolchain_json"} == ddl.OPTIONAL_META_KEYS
    assert "toolchain_json" not in ddl.required_meta_keys("router")
    assert "created_at" in ddl.required_meta_keys("router+shard")
    assert "created_at" not in ddl.required_meta_keys("shard")
    # A router without an embedded shard may omit the shard echoes (the reference does).
    assert {"shard_id", "chunk_count"} == ddl.ROUTER_ONLY_OPTIONAL_META_KEYS
    assert len(ddl.required_meta_keys("router")) == 9
    assert len(ddl.required_meta_keys("router+shard")) == 11
    assert len(ddl.required_meta_keys("shard")) == 8


def test_meta_round_trips_and_integers_become_decimal_text(memdb: sqlite3.Connection) -> None:
    memdb.executescript(ddl.shard_ddl(4))
    ddl.write_meta(memdb, {"shard_id": 3, "catalog_id": "physics"})
    ddl.write_meta(memdb, {"catalog_id": "chemistry"})
    assert ddl.read_meta(memdb) == {"catalog_id": "chemistry", "shard_id": "3"}
    assert memdb.execute("SELECT typeof(value) FROM meta WHERE key = 'shard_id'").fetchone() == (
        "text",
    )


@pytest.mark.parametrize("value", [True, None, 1.5, b"x", ["a"]])
def test_write_meta_refuses_non_text_values(memdb: sqlite3.Connection, value: object) -> None:
    memdb.executescript(ddl.shard_ddl(4))
    with pytest.raises(SchemaViolation) as info:
        ddl.write_meta(memdb, {"chunk_count": value})  # type: ignore[dict-item]
    assert info.value.reason == "bad-meta"
    assert info.value.subject == "chunk_count"
    assert ddl.read_meta(memdb) == {}


def test_read_meta_without_a_meta_table_is_a_schema_violation(memdb: sqlite3.Connection) -> None:
    with pytest.raises(SchemaViolation) as info:
        ddl.read_meta(memdb)
    assert info.value.reason == "missing-table"


# --- check_database --------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("role", ROLES)
def test_check_database_accepts_a_fresh_correct_database(
    role: ddl.DatabaseRole, version: int
) -> None:
    assert ddl.check_database(make_db(role, version), role, version) == []


def test_check_database_accepts_an_embedded_router_as_a_router() -> None:
    assert ddl.check_database(make_db("router+shard", 4), "router", 4) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_a_router_is_not_a_shard(version: int) -> None:
    problems = ddl.check_database(make_db("router", version), "shard", version)
    assert problems == [
        "missing table chunks",
        "missing FTS5 virtual table fts_chunks",
        "missing table chunk_vectors_bit",
        "missing table chunk_vectors_int8",
    ]


def test_check_database_names_a_dropped_table() -> None:
    conn = make_db("router", 4)
    conn.execute("DROP TABLE topic_documents")
    assert ddl.check_database(conn, "router", 4) == ["missing table topic_documents"]


def test_a_schema_3_router_is_not_a_schema_4_router() -> None:
    conn = make_db("router", 3)
    conn.execute("PRAGMA user_version = 4")
    ddl.write_meta(conn, {"index_schema_version": 4, "format_version": "0.7"})
    assert ddl.check_database(conn, "router", 4) == [
        "missing table document_locations",
        "missing table topic_documents",
    ]


def test_check_database_names_a_missing_column() -> None:
    conn = make_db("router", 3)
    conn.execute("ALTER TABLE documents DROP COLUMN meta_json")
    assert ddl.check_database(conn, "router", 3) == ["table documents lacks column meta_json"]


def test_check_database_names_a_wrongly_typed_column() -> None:
    conn = make_db("shard", 4)
    conn.executescript(
        "DROP TABLE chunk_vectors_int8;"
        "CREATE TABLE chunk_vectors_int8(chunk_id INTEGER PRIMARY KEY, v TEXT NOT NULL);"
    )
    assert ddl.check_database(conn, "shard", 4) == [
        "column chunk_vectors_int8.v is declared TEXT, expected BLOB"
    ]


def test_check_database_notices_a_plain_table_in_place_of_fts5() -> None:
    conn = make_db("router", 2)
    conn.executescript(
        "DROP TABLE fts_documents;CREATE TABLE fts_documents(title, summary, aliases, document_id);"
    )
    assert ddl.check_database(conn, "router", 2) == ["fts_documents is not an FTS5 virtual table"]


def test_check_database_names_a_wrong_application_id() -> None:
    conn = make_db("shard", 4)
    conn.execute("PRAGMA application_id = 0")
    problems = ddl.check_database(conn, "shard", 4)
    assert len(problems) == 1
    assert problems[0].startswith("application_id is 0 (0x00000000), expected 1195727435")


def test_check_database_names_a_wrong_user_version() -> None:
    conn = make_db("shard", 3)
    conn.execute("PRAGMA user_version = 2")
    assert ddl.check_database(conn, "shard", 3) == ["user_version is 2, expected 3 (index schema)"]


def test_check_database_names_missing_meta_keys() -> None:
    conn = make_db("router+shard", 4)
    conn.execute("DELETE FROM meta WHERE key IN ('created_at', 'chunk_count')")
    assert ddl.check_database(conn, "router+shard", 4) == [
        "missing meta key chunk_count",
        "missing meta key created_at",
    ]


def test_a_router_with_external_shards_may_omit_the_shard_echoes() -> None:
    conn = make_db("router", 4)
    conn.execute("DELETE FROM meta WHERE key IN ('shard_id', 'chunk_count')")
    assert ddl.check_database(conn, "router", 4) == []
    conn.execute("DELETE FROM meta WHERE key = 'created_at'")
    assert ddl.check_database(conn, "router", 4) == ["missing meta key created_at"]


def test_optional_toolchain_json_may_be_present_or_absent() -> None:
    conn = make_db("router", 4)
    assert ddl.check_database(conn, "router", 4) == []
    ddl.write_meta(conn, {"toolchain_json": '{"name":"gezel-knowledge"}'})
    assert ddl.check_database(conn, "router", 4) == []


def test_check_database_names_a_mismatched_version_echo() -> None:
    conn = make_db("shard", 4)
    ddl.write_meta(conn, {"format_version": "0.6"})
    assert ddl.check_database(conn, "shard", 4) == ["meta format_version is '0.6', expected '0.7'"]


def test_check_database_on_an_empty_database_lists_everything(memdb: sqlite3.Connection) -> None:
    problems = ddl.check_database(memdb, "shard", 4)
    assert problems[:2] == [
        "application_id is 0 (0x00000000), expected 1195727435 (0x47455A4B, 'GEZK')",
        "user_version is 0, expected 4 (index schema)",
    ]
    assert "missing table meta" in problems
    assert "missing table chunks" in problems
    assert not any("meta key" in p for p in problems)


def test_check_database_flags_wal_mode(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "shard.db")
    ddl.create_schema(conn, "shard", 4)
    ddl.write_meta(conn, full_meta("shard", 4))
    conn.commit()
    conn.execute("PRAGMA journal_mode = WAL")
    assert ddl.check_database(conn, "shard", 4) == [
        "journal_mode is WAL; a sealed catalog database uses DELETE"
    ]
    conn.close()
