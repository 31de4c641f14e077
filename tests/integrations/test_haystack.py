"""Haystack: GezelRetriever is a component with run/run_async that pipelines save and load,
returning documents identified by citation; importing it turns Haystack telemetry off."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from haystack import Document, Pipeline

from gezel_knowledge.errors import KnowledgeError
from gezel_knowledge.integrations.haystack import GezelRetriever
from gezel_knowledge.opening import default_cache_dir, open_catalog
from gezel_knowledge.reader import Catalog

QUERY = "how do I sign a catalog"
MODULE = "gezel_knowledge.integrations.haystack"


def test_a_pipeline_run_returns_documents_identified_by_citation(
    handbook_gezk: Path, handbook: Catalog
) -> None:
    expected = handbook.search(QUERY, k=3).hits
    pipeline = Pipeline()
    pipeline.add_component("retriever", GezelRetriever(handbook_gezk, top_k=3))
    documents = pipeline.run({"retriever": {"query": QUERY}})["retriever"]["documents"]
    assert all(isinstance(d, Document) for d in documents)
    assert [d.id for d in documents] == [h.citation for h in expected]
    assert [d.score for d in documents] == [h.score for h in expected]
    assert [d.meta["relevance"] for d in documents] == [h.relevance for h in expected]
    assert [d.content for d in documents] == [h.text for h in expected]
    assert documents[0].meta["untrusted"] is True
    assert documents[0].meta["archive_sha256"] == handbook.archive_sha256
    fewer = pipeline.run({"retriever": {"query": QUERY, "top_k": 1}})["retriever"]["documents"]
    assert [d.id for d in fewer] == [expected[0].citation]


def test_run_async_in_a_pipeline_run_async(
    handbook_gezk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    retriever = GezelRetriever(handbook_gezk, top_k=2)
    searched: list[str] = []
    asearch = retriever.source.asearch

    async def spy(query: str, **options: Any) -> Any:
        searched.append(query)
        return await asearch(query, **options)

    monkeypatch.setattr(retriever.source, "asearch", spy)
    pipeline = Pipeline()
    pipeline.add_component("retriever", retriever)
    result = asyncio.run(pipeline.run_async({"retriever": {"query": QUERY}}))
    ids = [d.id for d in result["retriever"]["documents"]]
    assert searched == [QUERY]  # the component's own run_async ran
    assert ids == [d.id for d in retriever.run(QUERY)["documents"]]
    assert len(ids) == 2
    retriever.close()


def test_a_pipeline_saves_and_loads_the_retriever(
    handbook_gezk: Path, installed_handbook: str
) -> None:
    pipeline = Pipeline()
    pipeline.add_component("by_path", GezelRetriever(handbook_gezk, top_k=2, mode="keyword"))
    pipeline.add_component("installed", GezelRetriever(installed_handbook, top_k=2))
    saved = pipeline.to_dict()["components"]
    assert saved["by_path"]["type"] == f"{MODULE}.GezelRetriever"
    assert saved["by_path"]["init_parameters"]["source"] == str(handbook_gezk)
    assert saved["by_path"]["init_parameters"]["mode"] == "keyword"
    assert saved["installed"]["init_parameters"]["source"] == installed_handbook
    loaded = Pipeline.loads(pipeline.dumps(), allowed_modules=[MODULE])
    inputs = {"by_path": {"query": QUERY}, "installed": {"query": QUERY}}
    assert loaded.run(inputs) == pipeline.run(inputs)


def test_a_relative_path_is_saved_as_one_that_reopens_from_anywhere(
    handbook_gezk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    shutil.copy(handbook_gezk, here / "handbook.gezk")
    monkeypatch.chdir(here)
    pipeline = Pipeline()
    pipeline.add_component("retriever", GezelRetriever("handbook.gezk", top_k=2, home="."))
    saved = pipeline.dumps()
    expected = pipeline.run({"retriever": {"query": QUERY}})
    monkeypatch.chdir(elsewhere)
    loaded = Pipeline.loads(saved, allowed_modules=[MODULE])
    params = loaded.get_component("retriever").to_dict()["init_parameters"]
    assert params["source"] == str((here / "handbook.gezk").resolve())
    assert params["home"] == str(here.resolve())
    assert loaded.run({"retriever": {"query": QUERY}}) == expected


def test_a_handle_on_a_cached_extraction_is_saved_as_its_pinned_coordinate(
    handbook_gezk: Path, installed_handbook: str
) -> None:
    with open_catalog(handbook_gezk) as catalog:
        assert catalog.root.is_relative_to(default_cache_dir())
        retriever = GezelRetriever(catalog, top_k=2)
        data = retriever.to_dict()
        expected = [d.id for d in retriever.run(QUERY)["documents"]]
    assert data["init_parameters"]["source"] == f"{installed_handbook}@2026.12.1"
    shutil.rmtree(default_cache_dir())  # what cache prune may do at any time
    again = GezelRetriever.from_dict(data)
    assert [d.id for d in again.run(QUERY)["documents"]] == expected
    again.close()


def test_a_handle_on_a_folder_is_saved_as_its_absolute_path(handbook: Catalog) -> None:
    folder = handbook.root
    data = GezelRetriever(str(folder), top_k=2).to_dict()
    assert data["init_parameters"]["source"] == str(folder.resolve())


def test_a_bad_top_k_is_refused(handbook: Catalog) -> None:
    with pytest.raises(KnowledgeError) as refused:
        GezelRetriever(handbook).run(QUERY, top_k=0)
    assert refused.value.reason == "invalid-limit"
    assert "top_k" in refused.value.message


def test_importing_the_retriever_turns_haystack_telemetry_off() -> None:
    env = {k: v for k, v in os.environ.items() if k != "HAYSTACK_TELEMETRY_ENABLED"}
    code = (
        "import json, os\n"
        f"import {MODULE}\n"
        "from haystack.telemetry import _telemetry\n"
        "print(json.dumps([os.environ['HAYSTACK_TELEMETRY_ENABLED'], _telemetry.telemetry]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == ["False", None]
