"""Start-up: ``--help`` and ``--version`` import no command and nothing heavy (issue 13 goal 5,
issue 16 item 1). Behaviour, not timings: the timings are benchmarks/startup.py's job."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import gezel_knowledge
from gezel_knowledge import cli
from gezel_knowledge._version import __version__
from gezel_knowledge.cli import main
from gezel_knowledge.cli._commands import COMMANDS

HEAVY = ("numpy", "jsonschema", "onnxruntime", "cryptography", "sqlite3")


def _modules_after(code: str, *, env: dict[str, str] | None = None) -> set[str]:
    script = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, env=env
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags_print_the_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([flag])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"gezel-knowledge {__version__}\n"


def test_importing_the_cli_imports_nothing_heavy() -> None:
    loaded = _modules_after("import gezel_knowledge.cli")
    assert "gezel_knowledge.cli" in loaded
    assert [m for m in HEAVY if m in loaded] == []


@pytest.mark.parametrize("arguments", [["--help"], ["-V"], ["version"]])
def test_help_and_version_import_no_other_command(arguments: list[str]) -> None:
    loaded = _modules_after(
        "from gezel_knowledge.cli import main\n"
        f"try:\n    main({arguments!r})\nexcept SystemExit:\n    pass"
    )
    commands = sorted(m for m in loaded if m.startswith("gezel_knowledge.cli.cmd_"))
    assert commands == (["gezel_knowledge.cli.cmd_version"] if arguments == ["version"] else [])
    assert [m for m in HEAVY if m in loaded] == []


def test_every_command_module_has_a_summary_in_the_table() -> None:
    modules = {
        m.name[4:].replace("_", "-")
        for m in pkgutil.iter_modules(cli.__path__)
        if m.name.startswith("cmd_")
    }
    assert sorted(modules - set(COMMANDS)) == []
    assert sorted(set(COMMANDS) - modules) == []


def test_help_lists_commands_in_the_table_order(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    positions = [out.index(f"\n    {name}") for name in COMMANDS]
    assert positions == sorted(positions)
    assert "-V, --version" in out


def test_a_command_help_is_complete_while_others_stay_listed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    out = capsys.readouterr().out
    assert "--shards" in out


def test_a_search_command_does_not_load_the_install_machinery_for_a_path() -> None:
    # Installed-catalog names go through the install package face, loaded on first use.
    loaded = _modules_after("import gezel_knowledge.cli.cmd_search")
    assert sorted(m for m in loaded if m.startswith("gezel_knowledge.install.")) == []


def test_importing_the_search_command_loads_no_validator_and_no_asyncio() -> None:
    loaded = _modules_after("import gezel_knowledge.cli.cmd_search")
    kept_off = ("asyncio", "cryptography", "gezel_knowledge.validate.extract", "gezk.signing")
    assert [m for m in kept_off if m in loaded] == []


def test_searching_an_extracted_catalog_again_loads_no_validator(tmp_path: Path) -> None:
    # The first open extracts and validates the archive; a later process finds the verified
    # extraction in the cache and needs none of the validators.
    handbook = Path(gezel_knowledge.__file__).parent / "_data" / "handbook.gezk"
    search = (
        "import io, contextlib\n"
        "from gezel_knowledge.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['search', {str(handbook)!r}, 'sign a catalog', '--mode', 'keyword'])"
    )
    env = {**os.environ, "GEZEL_HOME": str(tmp_path / "home"), "GEZEL_HANDBOOK": "off"}
    first = _modules_after(search, env=env)
    assert "gezel_knowledge.validate.extract" in first
    again = _modules_after(search, env=env)
    assert "gezel_knowledge.reader.catalog" in again
    validators = sorted(m for m in again if m.startswith("gezel_knowledge.validate."))
    assert validators == []
    assert "cryptography" not in again
