"""The package's public face: every exported name resolves, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gezel_knowledge


def test_every_exported_name_resolves() -> None:
    for name in gezel_knowledge.__all__:
        assert getattr(gezel_knowledge, name) is not None, name


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = gezel_knowledge.no_such_name  # type: ignore[attr-defined]


def test_importing_the_package_does_not_load_the_model_runtime() -> None:
    code = "import sys, gezel_knowledge; print('onnxruntime' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
