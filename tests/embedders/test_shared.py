"""Embedder reuse per vector space, query-embedder resolution and the default embedder."""

from __future__ import annotations

import logging
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gezel_knowledge.embedders import (
    Embedder,
    HashEmbedder,
    OnnxEmbedder,
    clear_shared_embedders,
    default_embedder,
    load_embedder,
    locate_model_files,
    resolve_query_embedder,
    shared_embedder,
)
from gezel_knowledge.embedders import packaged as packaged_module
from gezel_knowledge.embedders import shared as shared_module
from gezel_knowledge.embedders.locate import required_files
from gezel_knowledge.embedders.verify import read_verified
from gezel_knowledge.errors import ModelUnavailable
from gezk.hashembed import hash_embed
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1 as MINILM
from gezk.profiles import BGE_SMALL_EN_V15_1 as BGE
from gezk.profiles import TEST_HASH_EMBED_1, BinaryQuantization
from tests.embedders.embedder_fixtures import TinyFactory


def test_one_embedder_per_vector_space_is_shared() -> None:
    first = resolve_query_embedder(MINILM)
    second = resolve_query_embedder(MINILM)
    assert first.available
    assert first.reason is None
    assert first.embedder is second.embedder
    assert shared_embedder(MINILM) is first.embedder


def test_profiles_of_one_float_space_share_the_embedder() -> None:
    # A catalog whose profile carries a centered-sign center and another id (like e5@2 vs e5@1)
    # is the same float space: it must reuse the loaded model.
    centered = replace(
        MINILM,
        id="all-minilm-l6-v2-int8-centered@catalog",
        binary=BinaryQuantization("centered-sign", tuple([0.01] * 384)),
    )
    plain = resolve_query_embedder(MINILM)
    catalog = resolve_query_embedder(centered)
    assert catalog.available
    assert catalog.embedder is plain.embedder
    assert catalog.profile is centered


def test_a_catalog_without_digests_is_held_to_the_registered_pins(tmp_path: Path) -> None:
    unpinned = replace(
        MINILM,
        model=replace(MINILM.model, onnx_digest=None),
        tokenizer=replace(MINILM.tokenizer, digest=None),
    )
    directory = tmp_path / "copy"
    files = locate_model_files(MINILM)
    (directory / "onnx").mkdir(parents=True)
    shutil.copyfile(files.tokenizer, directory / "tokenizer.json")
    graph = bytearray(files.graph.read_bytes())
    graph[-1] ^= 0x01
    (directory / "onnx" / "model_int8.onnx").write_bytes(bytes(graph))
    result = resolve_query_embedder(unpinned, model_dir=directory)
    assert result.reason == "digest-mismatch"
    assert result.embedder is None


def test_unknown_profile_leaves_semantic_search_off_without_raising() -> None:
    stranger = replace(
        MINILM, id="someone-elses-model@3", model=replace(MINILM.model, repo="acme/secret-model")
    )
    result = resolve_query_embedder(stranger)
    assert not result.available
    assert result.reason == "unknown-profile"
    assert result.message is not None
    assert "someone-elses-model@3" in result.message


def test_a_known_id_with_a_different_space_is_not_substituted() -> None:
    # Same id and width as the registered profile, but another pooling: another vector space.
    impostor = replace(MINILM, pooling="cls")
    result = resolve_query_embedder(impostor)
    assert result.reason == "profile-mismatch"
    assert result.embedder is None


def test_missing_files_leave_semantic_search_off_with_the_reason() -> None:
    result = resolve_query_embedder(BGE)
    assert result.reason == "model-missing"
    assert result.message is not None
    assert "Xenova/bge-small-en-v1.5/onnx/model.onnx" in result.message
    assert BGE.model.onnx_digest is not None
    assert BGE.model.onnx_digest in (result.details or "")


def test_tampered_files_leave_semantic_search_off_with_the_reason(tmp_path: Path) -> None:
    files = locate_model_files(MINILM)
    root = tmp_path / "models"
    for f in required_files(MINILM):
        target = root.joinpath(*f.key.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        source = files.graph if f.role == "graph" else files.tokenizer
        data = bytearray(source.read_bytes())
        if f.role == "graph":
            data[1000] ^= 0xFF
        target.write_bytes(bytes(data))
    result = resolve_query_embedder(MINILM, model_dir=root)
    assert result.reason == "digest-mismatch"
    assert result.message is not None
    assert "expected sha256:8199be6f" in result.message


def test_the_test_profile_resolves_to_the_hash_embedder() -> None:
    result = resolve_query_embedder(TEST_HASH_EMBED_1)
    assert isinstance(result.embedder, HashEmbedder)
    np.testing.assert_array_equal(result.embedder.embed_queries(["x"]), hash_embed(["x"]))
    assert isinstance(load_embedder(TEST_HASH_EMBED_1), HashEmbedder)


def test_default_is_the_packaged_model_when_bge_is_absent() -> None:
    embedder = default_embedder()
    assert embedder.profile.id == "all-minilm-l6-v2-int8@1"
    assert embedder is default_embedder()
    assert embedder is shared_embedder(MINILM)


def test_default_takes_the_first_profile_whose_files_are_provided(
    tiny_model: TinyFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tiny_model()
    monkeypatch.setattr(shared_module, "DEFAULT_PROFILES", (model.profile, MINILM))
    assert default_embedder().profile.id == "all-minilm-l6-v2-int8@1"
    clear_shared_embedders()
    monkeypatch.setenv("GEZEL_MODELS", str(model.directory.parent))
    (model.directory.parent / "test").mkdir()
    model.directory.rename(model.directory.parent / "test" / "tiny")
    embedder = default_embedder()
    assert embedder.profile is model.profile
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.files.source == "GEZEL_MODELS"
    assert not embedder.loaded


def test_default_passes_over_bge_files_that_do_not_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "models"
    for f in required_files(BGE):
        path = root.joinpath(*f.key.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not really bge")
    monkeypatch.setenv("GEZEL_MODELS", str(root))
    with caplog.at_level(logging.WARNING, logger="gezel_knowledge.embedders"):
        embedder = default_embedder()
    assert embedder.profile.id == "all-minilm-l6-v2-int8@1"
    assert "bge-small-en-v1.5@1" in caplog.text
    assert BGE.model.onnx_digest is not None
    assert BGE.model.onnx_digest in caplog.text
    monkeypatch.setattr(packaged_module, "_BUILTIN", ())
    clear_shared_embedders()
    with pytest.raises(ModelUnavailable) as info:
        default_embedder()
    assert info.value.reason == "digest-mismatch"
    assert info.value.message.startswith("pip install 'gezel-knowledge[default-model]'")
    assert "files found for bge-small-en-v1.5@1 do not match" in info.value.message
    assert BGE.model.onnx_digest in (info.value.details or "")


def test_a_failed_resolution_does_not_poison_the_space(tmp_path: Path) -> None:
    files = locate_model_files(MINILM)
    bad = tmp_path / "bad"
    (bad / "onnx").mkdir(parents=True)
    shutil.copyfile(files.tokenizer, bad / "tokenizer.json")
    (bad / "onnx" / "model_int8.onnx").write_bytes(b"truncated")
    assert resolve_query_embedder(MINILM, model_dir=bad).reason == "digest-mismatch"
    assert resolve_query_embedder(MINILM).available


def test_no_default_names_the_default_model_and_its_fix_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(packaged_module, "_BUILTIN", ())
    with pytest.raises(ModelUnavailable) as info:
        default_embedder()
    error = info.value
    assert (error.reason, error.subject) == ("model-missing", "all-minilm-l6-v2-int8@1")
    assert error.message.startswith("pip install 'gezel-knowledge[default-model]'")
    assert "the default model all-minilm-l6-v2-int8@1" in error.message
    assert "bge-small-en-v1.5@1" not in error.message
    assert "sha256:" not in error.message
    # Both profiles tried, with their files and digests, are in the details.
    assert error.details is not None
    assert "bge-small-en-v1.5@1 needs" in error.details
    assert "all-minilm-l6-v2-int8@1 needs" in error.details
    assert MINILM.tokenizer.digest is not None
    assert MINILM.tokenizer.digest in error.details


def test_concurrent_first_use_loads_one_embedder_and_embeds_consistently() -> None:
    texts = [f"passage number {i} about catalogs and search" for i in range(6)]

    def work(_: int) -> tuple[Embedder, np.ndarray]:
        result = resolve_query_embedder(MINILM)
        assert result.embedder is not None
        return result.embedder, result.embedder.embed_passages(texts)

    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(work, range(8)))
    embedders = {id(e) for e, _ in outcomes}
    assert len(embedders) == 1
    for _, vectors in outcomes[1:]:
        np.testing.assert_allclose(vectors, outcomes[0][1], atol=1e-6)


def test_a_model_file_that_cannot_be_read_is_unavailable_and_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "model.onnx"  # a folder where the graph file should be
    folder.mkdir()
    with pytest.raises(ModelUnavailable) as caught:
        read_verified(folder, None, profile_id=MINILM.id)
    assert (caught.value.reason, caught.value.subject) == ("unreadable", str(folder))
    assert str(caught.value).startswith(f"cannot read model file of {MINILM.id!r} {folder}: ")


def test_an_unreadable_model_file_leaves_semantic_search_off_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreadable(*args: object, **kwargs: object) -> None:
        raise ModelUnavailable("cannot read model.onnx", reason="unreadable")

    monkeypatch.setattr(shared_module, "shared_embedder", unreadable)
    result = resolve_query_embedder(MINILM)
    assert (result.embedder, result.reason) == (None, "unreadable")
