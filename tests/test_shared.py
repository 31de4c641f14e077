from __future__ import annotations

import os
from pathlib import Path

import pytest

from gezel_knowledge.embedders.locate import gezel_home as embedders_home
from gezel_knowledge.errors import (
    IntegrityFailure,
    InvalidInput,
    KnowledgeError,
    NotFound,
    Unsupported,
    knowledge_error,
)
from gezel_knowledge.home import gezel_home
from gezel_knowledge.install.home import gezel_home as install_home
from gezk.errors import (
    GezkError,
    InvalidManifest,
    InvalidReference,
    ReasonedError,
    SignatureError,
    UnsupportedVersion,
)


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


def test_both_packages_errors_share_one_reasoned_root() -> None:
    for error in (NotFound("x", reason="catalog-missing"), InvalidReference("bad  ref\n here")):
        assert isinstance(error, ReasonedError)
    assert issubclass(KnowledgeError, ReasonedError)
    assert issubclass(GezkError, ReasonedError)
    assert not issubclass(KnowledgeError, GezkError)
    assert InvalidReference("bad  ref\n here").message == "bad ref here"
    assert NotFound("x").reason == "not-found"


def test_knowledge_error_keeps_reason_and_subject_and_maps_by_category() -> None:
    manifest = InvalidManifest("manifest $.id: bad", subject="$.id")
    as_integrity = knowledge_error(manifest, IntegrityFailure)
    assert type(as_integrity) is IntegrityFailure
    assert (as_integrity.reason, as_integrity.subject) == ("invalid-manifest", "$.id")
    assert as_integrity.message == "manifest $.id: bad"
    assert type(knowledge_error(InvalidReference("bad ref"))) is InvalidInput
    assert type(knowledge_error(UnsupportedVersion("0.9"))) is Unsupported
    assert type(knowledge_error(SignatureError("altered"))) is IntegrityFailure
    already = NotFound("gone", reason="document-not-found")
    assert knowledge_error(already) is already
