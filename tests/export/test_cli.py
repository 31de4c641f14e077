"""``gezel-knowledge export-parquet``: a thin shell over export_parquet."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.export import export_parquet
from gezel_knowledge.extras import MissingExtra
from gezel_knowledge.install import install_catalog


def test_json_output_is_the_written_report(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "companion"
    assert main(["export-parquet", str(handbook_gezk), "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((out / "parquet-manifest.json").read_text(encoding="utf-8"))
    assert [f["path"] for f in printed["files"]][-2:] == [
        "documents-000.parquet",
        "chunks-000.parquet",
    ]


def test_plain_output_counts_what_was_written(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "companion"
    assert main(["export-parquet", str(handbook_gezk), "--out", str(out), "--quiet"]) == 0
    report = json.loads((out / "parquet-manifest.json").read_text(encoding="utf-8"))
    rows = {f["table"]: f["rows"] for f in report["files"]}
    text = capsys.readouterr().out
    assert text.startswith("exported gezel-knowledge/gezel-handbook 2026.12.1 to ")
    assert f"{rows['documents']:,} documents, {rows['chunks']:,} chunks" in text
    assert "in 5 files" in text


def test_an_installed_catalog_is_named_by_its_coordinate(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_catalog(handbook_gezk)
    out = tmp_path / "installed"
    assert (
        main(["export-parquet", "gezel-knowledge/gezel-handbook", "--out", str(out), "--quiet"])
        == 0
    )
    assert "gezel-handbook" in capsys.readouterr().out
    direct = export_parquet(handbook_gezk, tmp_path / "direct")
    for f in direct.files:
        assert (out / f.path).read_bytes() == (direct.directory / f.path).read_bytes(), f.path


def test_a_refused_export_is_one_error_line(
    handbook_gezk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    assert main(["export-parquet", str(handbook_gezk), "--out", str(tmp_path / "busy")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("[output-exists]")
    assert len(err.splitlines()) == 1


def test_without_pyarrow_the_error_names_the_extra(
    handbook_gezk: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A None entry makes ``import pyarrow`` raise ImportError, as if it were not installed.
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingExtra) as caught:
        export_parquet(handbook_gezk, tmp_path / "a")
    assert caught.value.reason == "missing-extra"
    assert caught.value.extra == "parquet"
    assert main(["export-parquet", str(handbook_gezk), "--out", str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err
    assert "pip install 'gezel-knowledge[parquet]'" in err
    assert "[missing-extra]" in err
    assert not (tmp_path / "a").exists()
    assert not (tmp_path / "b").exists()


def test_the_export_folder_has_the_users_permissions_not_0700(
    handbook_gezk: Path, tmp_path: Path
) -> None:
    # Issue 25 item 11: the folder was the temporary folder's, private to its owner.
    previous = os.umask(0o022)
    try:
        export_parquet(handbook_gezk, tmp_path / "shared")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o755
