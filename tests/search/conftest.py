"""Fixtures shared with the install tests (archives built by the test catalog writer)."""

from __future__ import annotations

from tests.install.conftest import archive_factory

__all__ = ["archive_factory"]
