"""Load a script from ``benchmarks/`` as a module, the way the benchmark tests run them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str, monkeypatch: pytest.MonkeyPatch | None = None) -> ModuleType:
    """``benchmarks/<name>.py`` as module ``bench_<name>``; with ``monkeypatch`` it is also in
    ``sys.modules`` for the test (dataclasses defined in it look their module up there)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if monkeypatch is not None:
        monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module
