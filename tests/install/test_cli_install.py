"""``gezel-knowledge install``: arguments, output, and one-line errors."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.cli._output import TerminalProgress
from gezel_knowledge.progress import ProgressEvent
from gezk.signing import generate_private_key, public_key_to_pem


def test_install_prints_what_it_did(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = archive_factory()
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    home = str(tmp_path)
    assert main(["install", str(archive), "--sha256", digest, "--home", home]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"installed tester/demo@1.0.0 (sha256 {digest[:16]})")
    assert main(["install", str(archive), "--home", home, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["status"] == "unchanged"
    assert row["archiveSha256"] == digest


def test_wrong_digest_is_one_error_line(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["install", str(archive_factory()), "--sha256", "ab" * 32, "--home", str(tmp_path)])
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("[digest-mismatch]")
    assert len(err.splitlines()) == 1


def test_trust_keys_are_read_from_pem_files(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_private_key()
    pem = tmp_path / "publisher.pem"
    pem.write_bytes(public_key_to_pem(key.public_key()))
    archive = archive_factory(catalog_id="signed-cli", sign_with=key)
    args = ["install", str(archive), "--trust", str(pem), "--require-signature"]
    assert main([*args, "--home", str(tmp_path / "h"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"].startswith("verified:")


def test_progress_bar_renders_install_steps() -> None:
    stream = io.StringIO()
    stream.isatty = lambda: True  # type: ignore[method-assign]
    bar = TerminalProgress(stream, min_interval=0)
    bar(ProgressEvent("install", "download", 512, 1024, "bytes"))
    bar.close()
    assert "install: download [############" in stream.getvalue()
