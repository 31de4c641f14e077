"""Without its extra, a framework module refuses to import with a one-line error naming the
extra; the CLI, the core package and the other modules do not need any framework."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from gezel_knowledge.cli import build_parser, main
from gezel_knowledge.extras import MissingExtra

FRAMEWORKS = [
    ("gezel_knowledge.integrations.langchain", "langchain_core", "langchain"),
    ("gezel_knowledge.integrations.llama_index", "llama_index", "llama-index"),
    ("gezel_knowledge.integrations.haystack", "haystack", "haystack"),
]


def _without(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make ``package`` (and everything below it) unimportable for this test."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, package, None)


@pytest.mark.parametrize(("module", "package", "extra"), FRAMEWORKS)
def test_a_retriever_without_its_framework_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, module: str, package: str, extra: str
) -> None:
    _without(monkeypatch, package)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtra) as missing:
        importlib.import_module(module)
    assert missing.value.reason == "missing-extra"
    assert missing.value.extra == extra
    assert f"pip install 'gezel-knowledge[{extra}]'" in str(missing.value)


def test_the_mcp_command_without_its_library_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "mcp")
    build_parser()  # every subcommand still registers, mcp's included
    assert main(["mcp", "--no-memory"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "gezel-knowledge: error: gezel-knowledge mcp needs mcp, which is not installed: "
        "pip install 'gezel-knowledge[mcp]' [missing-extra]"
    ]


def test_importing_the_package_and_the_cli_loads_no_framework() -> None:
    code = (
        "import sys, gezel_knowledge, gezel_knowledge.integrations\n"
        "from gezel_knowledge.cli import build_parser\n"
        "build_parser()\n"
        "loaded = [m for m in ('langchain_core', 'llama_index', 'haystack', 'mcp', 'pandas')"
        " if m in sys.modules]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
