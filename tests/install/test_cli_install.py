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


def test_an_unsigned_reinstall_over_a_signed_version_says_the_signature_is_gone(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 16 item 9: same version, signed bytes first, then unsigned bytes.
    key = generate_private_key()
    pem = tmp_path / "publisher.pem"
    pem.write_bytes(public_key_to_pem(key.public_key()))
    signed, unsigned = archive_factory(sign_with=key), archive_factory()
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(signed), "--trust", str(pem), *home]) == 0
    capsys.readouterr()

    # Refused where a signature is required: the signed copy stays active.
    code = main(["install", str(unsigned), "--require-signature", "--trust", str(pem), *home])
    assert code == 1
    assert "[unverified-provenance]" in capsys.readouterr().err
    assert main(["list", "--json", *home]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["provenance"].startswith("verified:")

    # Without it, refused too (issue 26: a verified catalog is not replaced by bytes its key
    # does not verify unless asked for) ...
    assert main(["install", str(unsigned), *home]) == 1
    assert "[trust-change]" in capsys.readouterr().err
    # ... and when asked for, installed with a warning and the fact in --json.
    assert main(["install", str(unsigned), "--allow-trust-change", *home]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("installed tester/demo@1.0.0")
    assert err.startswith("gezel-knowledge: warning: tester/demo@1.0.0 was signed (verified:")
    assert "no signature" in err
    assert main(["install", str(signed), "--trust", str(pem), "--json", *home]) == 0
    assert json.loads(capsys.readouterr().out)["signatureDropped"] is False
    unsigned_again = ["install", str(unsigned), "--allow-trust-change", "--json", *home]
    assert main(unsigned_again) == 0
    assert json.loads(capsys.readouterr().out)["signatureDropped"] is True


def test_a_signed_reinstall_and_a_new_version_do_not_warn(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_private_key()
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(archive_factory(sign_with=key)), *home]) == 0
    assert main(["install", str(archive_factory(version="1.1.0")), *home]) == 0
    assert capsys.readouterr().err == ""


def test_find_says_when_a_catalog_it_was_told_to_search_is_disabled(
    archive_factory: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "find --catalog X" of a disabled X printed "no results" and nothing else.
    monkeypatch.setenv("GEZEL_HANDBOOK", "0")
    home = str(tmp_path)
    assert main(["install", str(archive_factory()), "--home", home, "--quiet"]) == 0
    assert main(["disable", "demo", "--home", home]) == 0
    capsys.readouterr()
    assert main(["find", "anything", "--catalog", "demo", "--home", home]) == 0
    err = capsys.readouterr().err
    assert "tester/demo is disabled: 'gezel-knowledge enable tester/demo' searches it again" in err
    assert main(["enable", "demo", "--home", home]) == 0
    capsys.readouterr()
    assert main(["find", "anything", "--catalog", "demo", "--home", home]) == 0
    assert "disabled" not in capsys.readouterr().err


def test_a_folder_that_is_no_catalog_does_not_hide_the_installed_catalog_of_its_name(
    archive_factory: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: `topics demo` in a working directory holding a folder `demo` opened the folder
    # and failed, although tester/demo was installed.
    home = str(tmp_path / "home")
    assert main(["install", str(archive_factory()), "--home", home]) == 0
    work = tmp_path / "work"
    (work / "demo").mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("GEZEL_HOME", home)
    capsys.readouterr()
    assert main(["topics", "demo"]) == 0
    assert main(["inspect", "demo"]) == 0
    assert "tester/demo" in capsys.readouterr().out
    # A folder of another name is still what the argument means, and says why it is no catalog.
    (work / "other").mkdir()
    assert main(["topics", "other"]) == 1
    assert "[catalog-not-found]" in capsys.readouterr().err
