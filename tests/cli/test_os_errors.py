"""An operating-system failure (a full disk, a refused write) is one error line, not a
traceback; output paths that cannot work are refused as typed errors before any work."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.export import parquet


def _full_disk(self: Any, table: Any, folder: Path) -> Any:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / table.file))


def test_a_full_disk_during_an_export_is_one_error_line(
    handbook_gezk: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(parquet._Writer, "write", _full_disk)
    out = tmp_path / "companion"
    assert main(["export-parquet", str(handbook_gezk), "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"gezel-knowledge: error: {os.strerror(errno.ENOSPC)}: ")
    assert err.strip().endswith(".parquet [os-error]")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # the staging folder went too


def test_an_os_error_without_a_file_name_is_one_line_too(
    handbook_gezk: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(parquet._Writer, "write", fail)
    assert main(["export-parquet", str(handbook_gezk), "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert err == f"gezel-knowledge: error: {os.strerror(errno.EIO)} [os-error]\n"


def test_an_export_into_a_file_is_refused_as_typed_input(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("mine")
    for out in (blocker, blocker / "below"):
        assert main(["export-parquet", str(handbook_gezk), "--out", str(out), "--quiet"]) == 1
        err = capsys.readouterr().err.strip()
        assert err.endswith("[output-not-a-folder]")
        assert len(err.splitlines()) == 1
    assert blocker.read_text() == "mine"
