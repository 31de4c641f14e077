"""Search across installed catalogs: groups, budgets, fusion, provenance, policy, quarantine."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gezel_knowledge.embedders import EmbedderResolution, HashEmbedder, resolve_query_embedder
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.install import CatalogPolicy, KnowledgeHome
from gezel_knowledge.reader import Catalog, _search
from gezel_knowledge.search import KnowledgeSearch, knowledge_search
from gezk.profiles import TEST_HASH_EMBED_1, EmbeddingProfile, ModelRef
from gezk.spatial import RadiusQuery
from tests.reader.catalog_builder import CatalogBuild, pack, sample_docs

#: A profile no embedder exists for: its catalogs answer keyword search only.
UNKNOWN = replace(TEST_HASH_EMBED_1, id="acme-embed@1", model=ModelRef("acme/embed", "r1"))
#: Another label for the hash space: same vector space, different id.
ALIAS = replace(TEST_HASH_EMBED_1, id="test-hash-embed@9")


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting query embeddings."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed_queries(self, texts: Any) -> np.ndarray:  # type: ignore[override]
        self.calls += 1
        return super().embed_queries(texts)


def _resolver(embedder: CountingEmbedder) -> Any:
    def resolve(profile: EmbeddingProfile) -> EmbedderResolution:
        if profile.id in (TEST_HASH_EMBED_1.id, ALIAS.id):
            return EmbedderResolution(profile, embedder)
        return resolve_query_embedder(profile)

    return resolve


@pytest.fixture
def home(archive_factory: Any, tmp_path: Path) -> KnowledgeHome:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    home.install(archive_factory("beta", n_docs=10))
    home.install(archive_factory("gamma", profile=UNKNOWN))
    return home


def test_one_catalog_ranks_exactly_as_the_reader(archive_factory: Any, tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    query = "lattice ember orchard"
    with KnowledgeSearch(home) as search:
        ours = search.search(query, k=5)
    with home.mount("alpha") as catalog:
        catalog.embedder = HashEmbedder()
        theirs = catalog.search(query, k=5)
    assert [h.citation for h in ours.hits] == [h.citation for h in theirs.hits]
    assert [h.signals for h in ours.hits] == [h.signals for h in theirs.hits]
    assert [h.relevance for h in ours.hits] == [h.relevance for h in theirs.hits]


def test_mixed_profiles_embed_once_per_space_and_report_keyword_only(
    home: KnowledgeHome,
) -> None:
    embedder = CountingEmbedder()
    with KnowledgeSearch(home, resolve_embedder=_resolver(embedder)) as search:
        results = search.search("lattice ember orchard", k=10)
    assert embedder.calls == 1  # alpha and beta share the hash space
    states = {c.source: (c.semantic, c.message) for c in results.sources}
    assert states["tester/alpha"] == ("used", None)
    assert states["tester/beta"] == ("used", None)
    semantic, reason = states["tester/gamma"]
    assert semantic == "unavailable"
    assert reason is not None
    assert "acme-embed@1" in reason
    assert results.keyword_only == ("tester/gamma",)
    # The keyword-only catalog still answers.
    assert any(h.source == "tester/gamma" for h in results.hits)
    assert all(
        not any(s.name == "vector" for s in h.signals)
        for h in results.hits
        if h.source == "tester/gamma"
    )


def test_profiles_of_one_space_share_one_embedding(archive_factory: Any, tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    home.install(archive_factory("delta", profile=ALIAS))
    embedder = CountingEmbedder()
    with KnowledgeSearch(home, resolve_embedder=_resolver(embedder)) as search:
        results = search.search("lattice")
    assert embedder.calls == 1
    assert {c.semantic for c in results.sources} == {"used"}


def test_hits_carry_provenance_and_citations(home: KnowledgeHome) -> None:
    with KnowledgeSearch(home) as search:
        results = search.search("lattice", k=30)
    sources = {h.source for h in results.hits}
    assert sources == {"tester/alpha", "tester/beta", "tester/gamma"}
    for hit in results.hits:
        installed = home.catalog(hit.source)
        assert hit.provenance is not None
        assert hit.provenance.archive_sha256 == installed.active_sha256
        assert hit.provenance.version == "1.0.0"
        assert hit.citation.startswith(f"knowledge://{hit.source}/")
        assert hit.untrusted
    assert [h.rank for h in results.hits] == list(range(len(results.hits)))
    # Every citation resolves through the installed catalogs.
    with KnowledgeSearch(home) as search:
        passage = search.read(results.hits[0].citation)
    assert passage.document_id == results.hits[0].document_id


def test_keyword_search_runs_on_every_catalog(home: KnowledgeHome) -> None:
    with KnowledgeSearch(home) as search:
        results = search.search("lattice", mode="keyword", k=50)
    assert {c.source for c in results.sources} == {
        "tester/alpha",
        "tester/beta",
        "tester/gamma",
    }
    assert all(c.semantic == "off" for c in results.sources)
    assert all(c.hits > 0 for c in results.sources)


def test_the_shard_budget_is_shared_across_a_group(archive_factory: Any, tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("sharded-a", n_docs=12, external_shards=True, shard_every=3))
    home.install(archive_factory("sharded-b", n_docs=12, external_shards=True, shard_every=3))
    with KnowledgeSearch(home) as search:
        explicit = search.search("lattice ember")
        proactive = search.search("lattice ember", proactive=True)

    def vector_shards(results: Any) -> int:
        return sum(len(c.shards_searched) for c in results.sources if c.semantic == "used")

    assert vector_shards(explicit) == 6
    assert vector_shards(proactive) == 3
    routed = {c.semantic for c in proactive.sources}
    assert routed <= {"used", "not-routed"}


def test_policy_filters_catalogs(home: KnowledgeHome) -> None:
    policy = CatalogPolicy.selected(["tester/beta"])
    with KnowledgeSearch(home, policy=policy) as search:
        results = search.search("lattice", k=50)
    assert {h.source for h in results.hits} == {"tester/beta"}
    with KnowledgeSearch(home, policy=CatalogPolicy.off()) as search:
        assert search.search("lattice").hits == ()
    home.disable("beta")
    with KnowledgeSearch(home, policy=policy) as search:
        assert search.search("lattice").sources == ()


def test_a_catalog_restriction_narrows_the_search(home: KnowledgeHome) -> None:
    with KnowledgeSearch(home) as search:
        results = search.search("lattice", catalogs=["alpha"], k=50)
    assert {c.source for c in results.sources} == {"tester/alpha"}


def test_a_corrupt_shard_is_quarantined_and_the_others_answer(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    broken = home.install(
        archive_factory("sharded-a", n_docs=12, external_shards=True, shard_every=3)
    )
    shard = broken.path / "index" / "shards" / "001.db"
    os.chmod(shard, 0o644)
    data = bytearray(shard.read_bytes())
    data[:100] = b"\0" * 100  # same size, so mounting (a stat) cannot tell
    shard.write_bytes(bytes(data))
    with KnowledgeSearch(home) as search:
        results = search.search("lattice ember", k=20)
        assert results.quarantined == (("tester/sharded-a", "corrupt-database"),)
        assert {h.source for h in results.hits} == {"tester/alpha"}
        again = search.search("lattice ember", k=20)
    assert again.quarantined == ()
    assert {c.source for c in again.sources} == {"tester/alpha"}
    record = home.catalog("sharded-a")
    assert record.quarantine is not None
    assert record.quarantine.reason == "corrupt-database"


def _operational() -> BaseException:
    return sqlite3.OperationalError("disk I/O error")


def _operational_translated() -> BaseException:
    # A reader that types SQLite errors at its face keeps the cause: still transient.
    error = IntegrityFailure("beta: cannot be read", reason="corrupt-database", subject="beta")
    error.__cause__ = sqlite3.OperationalError("interrupted")
    return error


@pytest.mark.parametrize("failure", [_operational, _operational_translated])
def test_a_transient_database_error_fails_that_call_only(
    archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: Any
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    home.install(archive_factory("beta", n_docs=10))
    real = Catalog.search_with_vector
    pending = [failure()]

    def flaky(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        if self.id == "beta" and pending:
            raise pending.pop()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "search_with_vector", flaky)
    with KnowledgeSearch(home) as search:
        first = search.search("lattice ember", k=20)
        report = first.source("tester/beta")
        assert report is not None
        assert (report.status, report.reason) == ("failed", "database-error")
        assert report.message is not None
        assert "OperationalError" in report.message
        assert first.quarantined == ()
        assert {h.source for h in first.hits} == {"tester/alpha"}
        again = search.search("lattice ember", k=20)
    assert {c.source: c.status for c in again.sources} == {
        "tester/alpha": "searched",
        "tester/beta": "searched",
    }
    assert "tester/beta" in {h.source for h in again.hits}
    assert home.catalog("beta").quarantine is None


def test_a_newly_installed_version_is_picked_up_by_a_live_search(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    with KnowledgeSearch(home) as search:
        first = search.search("lattice")
        home.install(archive_factory("alpha", version="2.0.0", n_docs=9))
        second = search.search("lattice")
    assert first.sources[0].provenance.version == "1.0.0"
    assert second.sources[0].provenance.version == "2.0.0"
    assert all(h.provenance is not None and h.provenance.version == "2.0.0" for h in second.hits)


#: The embed input of doc-0002's first passage: the hash embedder scores it 1.0 against itself.
PASSAGE_TEXT = (
    "meridian beacon 0002\nJasper harbor falcon cobalt meridian lumen vellum garnet jasper harbor"
    " falcon cobalt meridian lumen."
)


def test_proactive_ceilings_apply_to_fused_hits(home: KnowledgeHome) -> None:
    with KnowledgeSearch(home) as search:
        lean = search.proactive(PASSAGE_TEXT, depth="lean", token_budget=4000)
        deep = search.proactive(PASSAGE_TEXT, depth="deep", token_budget=4000)
        nothing = search.proactive("zzzz qqqq", depth="deep", token_budget=4000)
    assert 0 < len(lean.evidence) <= 2
    assert all(e.text is None for e in lean.evidence)
    assert 0 < len(deep.evidence) <= 4
    assert deep.tokens_used <= 0.35 * 4000
    assert nothing.evidence == ()


def test_proactive_admits_no_keyword_only_hits_where_vectors_ran(
    archive_factory: Any, tmp_path: Path
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    with KnowledgeSearch(home) as search:
        # Words of several titles and passages, but no passage means this question.
        asked = search.search("lattice ember copper", k=10)
        unsolicited = search.proactive("lattice ember copper", depth="deep", token_budget=4000)
        meant = search.proactive(PASSAGE_TEXT, depth="deep", token_budget=4000)
    assert asked.hits
    assert all(h.signal("keyword-only") is not None for h in asked.hits)
    assert unsolicited.evidence == ()
    assert [e.hit.document_id for e in meant.evidence][:1] == ["doc-0002"]


def test_proactive_without_vectors_needs_every_term_in_a_title(home: KnowledgeHome) -> None:
    only = ["gamma"]
    with KnowledgeSearch(home) as search:
        named = search.proactive("ember copper", depth="deep", token_budget=4000, catalogs=only)
        loose = search.proactive("ember lattice", depth="deep", token_budget=4000, catalogs=only)
    # gamma's profile has no embedder: keywords alone, held to the title rule.
    assert [e.hit.document_id for e in named.evidence] == ["doc-0001"]
    assert loose.evidence == ()


def test_text_free_radius_discovery_merges_catalogs_by_distance(tmp_path: Path) -> None:
    home = KnowledgeHome(tmp_path / "home")
    for cid, lat in (("north", 47.62), ("south", 47.60)):
        docs, topics = sample_docs(4)
        docs[1].locations = (
            {"id": f"{cid}-pt", "latitude": lat, "longitude": -122.33, "role": "subject"},
        )
        root = CatalogBuild(docs, topics, catalog_id=cid).write(tmp_path / cid)
        home.install(pack(root, tmp_path / f"{cid}.gezk"))
    near = RadiusQuery(47.6062, -122.3321, 5000.0)
    with KnowledgeSearch(home) as search:
        results = search.search("", near=near)
    assert [h.source for h in results.hits] == ["tester/south", "tester/north"]
    distances = [h.distance_meters for h in results.hits]
    assert distances == sorted(distances)
    assert [h.rank for h in results.hits] == [0, 1]


def test_a_long_question_fuses_across_catalogs_with_the_readers_long_question_weights(
    archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    query = "lattice ember orchard " + " ".join(f"word{i}" for i in range(28))
    seen: list[float] = []
    real = knowledge_search._fuse

    def spy(results: Any, k: int, preset: Any, **weighed: bool) -> Any:
        seen.append(preset.weight("vector"))
        return real(results, k, preset, **weighed)

    monkeypatch.setattr(knowledge_search, "_fuse", spy)
    with KnowledgeSearch(home) as search:
        ours = search.search(query, k=5)
        search.search("lattice ember orchard", k=5)
    assert seen == [0.4, 0.7]
    with home.mount("alpha") as catalog:
        catalog.embedder = HashEmbedder()
        theirs = catalog.search(query, k=5)
    assert [h.citation for h in ours.hits] == [h.citation for h in theirs.hits]
    assert [h.relevance for h in ours.hits] == [h.relevance for h in theirs.hits]


def test_a_search_splits_the_question_into_terms_once_and_each_catalog_once(
    archive_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = KnowledgeHome(tmp_path)
    home.install(archive_factory("alpha"))
    home.install(archive_factory("beta"))
    query = "lattice ember orchard " + " ".join(f"word{i}" for i in range(28))
    splits: list[str] = []
    presets: list[float] = []

    def counting(module: Any) -> None:
        real = module.query_term_counts

        def split(text: str, limit: int | None = 32) -> Any:
            splits.append(module.__name__.rsplit(".", 1)[-1])
            return real(text, limit)

        monkeypatch.setattr(module, "query_term_counts", split)

    counting(knowledge_search)
    counting(_search)
    real_search = Catalog.search_with_vector

    def spy(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        presets.append(kwargs["fusion"].weight("vector"))
        return real_search(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "search_with_vector", spy)
    with KnowledgeSearch(home) as search:
        search.search(query, k=5)
    # 31 distinct content terms: a long question, so every catalog is handed the long
    # question's weights (vector 0.4) chosen once, not the default's 0.7.
    assert presets == [0.4, 0.4]
    assert sorted(splits) == ["_search", "_search", "knowledge_search"]
