"""Fixtures for the archive verifier tests (builders live in ``archive_builders``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.archive.archive_builders import ArchiveSpec


@pytest.fixture
def spec() -> ArchiveSpec:
    return ArchiveSpec()


@pytest.fixture
def build(tmp_path: Path) -> Callable[[ArchiveSpec], Path]:
    counter = iter(range(1000))

    def _build(s: ArchiveSpec) -> Path:
        return s.build(tmp_path / f"catalog-{next(counter)}.gezk")

    return _build
