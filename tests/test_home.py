from __future__ import annotations

import os
from pathlib import Path

import pytest

from gezel_knowledge.embedders import gezel_home as embedders_home
from gezel_knowledge.home import gezel_home
from gezel_knowledge.install import gezel_home as install_home


def test_home_comes_from_the_argument_then_the_environment_then_the_user(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "env"))
    assert gezel_home(tmp_path / "arg") == tmp_path / "arg"
    assert gezel_home() == tmp_path / "env"
    monkeypatch.delenv("GEZEL_HOME")
    assert gezel_home() == Path.home() / ".gezel"


def test_every_layer_resolves_the_same_home() -> None:
    assert embedders_home is gezel_home
    assert install_home is gezel_home


def test_the_suite_never_uses_the_real_home() -> None:
    assert Path(os.environ["GEZEL_HOME"]) != Path.home() / ".gezel"
