"""The ``browse`` command: listed by ``--help`` without importing the extra, one error line
without it, and the JSON twins' casing shared with the CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from urllib.request import urlopen

import pytest

from gezel_knowledge.cli import build_parser, main
from gezel_knowledge.cli._commands import COMMANDS
from tests.integrations.test_missing_extras import _without


def test_help_lists_browse_and_imports_none_of_its_libraries() -> None:
    assert "browse" in COMMANDS
    code = (
        "import sys\n"
        "from gezel_knowledge.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "loaded = [m for m in ('starlette', 'uvicorn', 'jinja2', 'markdown_it', 'nh3') "
        "if m in sys.modules]\n"
        "print('LOADED', loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "browse" in out
    assert "LOADED []" in out


def test_browse_help_works_without_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "starlette")
    with pytest.raises(SystemExit) as exited:
        main(["browse", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "--no-open" in out
    assert "--port" in out


def test_browse_without_the_extra_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "nh3")
    build_parser()
    assert main(["browse", "--no-open"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "gezel-knowledge: error: gezel-knowledge browse needs nh3, which is not installed: "
        "pip install 'gezel-knowledge[browse]' [missing-extra]"
    ]


def test_a_catalog_that_is_not_there_is_refused_before_serving(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["browse", "no-such-catalog.gezk", "--no-open", "--port", "0"]) == 1
    assert "[catalog-not-found]" in capsys.readouterr().err


def test_the_command_serves_the_named_catalogs_on_loopback(
    handbook_gezk: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "GEZEL_HOME": str(tmp_path / "home"), "GEZEL_HANDBOOK": "off"}
    command = [sys.executable, "-m", "gezel_knowledge", "browse", str(handbook_gezk)]
    with subprocess.Popen(
        [*command, "--port", "0", "--no-open", "--embedder", "none"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as process:
        try:
            assert process.stderr is not None
            line = process.stderr.readline()
            found = re.search(r"serving 1 catalog\(s\) at (http://127\.0\.0\.1:\d+/) ", line)
            assert found is not None, line
            with urlopen(found.group(1) + "library.json") as response:
                library = json.load(response)
            assert [c["key"] for c in library["catalogs"]] == ["gezel-knowledge/gezel-handbook"]
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=20)


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_one_error_line(
    port: str, handbook_gezk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was an OverflowError traceback from socket.bind (issue 25 item 11 fixed it for mcp only).
    assert main(["browse", str(handbook_gezk), "--no-open", "--port", port]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"gezel-knowledge: error: the port must be 0 to 65535, got {port} "
        "(choose another --port) [invalid-port]"
    ]
