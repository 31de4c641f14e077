"""Trust that speaks (issue 26 item 17): a catalog verified by a trusted key is not replaced by
bytes that key does not verify unless asked for, an unknown signer under ``--trust`` is a
warning (an error with ``--require-signature``), and keys anyone can write are refused."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.errors import IntegrityFailure
from gezel_knowledge.install.home import KnowledgeHome
from gezk.signing import (
    TrustAnchors,
    generate_private_key,
    private_key_to_pem,
    public_key_to_pem,
)


def _pem(tmp_path: Path, key: Any, name: str) -> Path:
    path = tmp_path / f"{name}.pem"
    path.write_bytes(public_key_to_pem(key.public_key()))
    return path


def _provenance(home: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["list", "--json", *home]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    return str(row["provenance"])


def test_a_verified_catalog_is_not_replaced_by_another_signer_without_asking(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours, theirs = generate_private_key(), generate_private_key()
    pem = _pem(tmp_path, ours, "ours")
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(archive_factory(sign_with=ours)), "--trust", str(pem), *home]) == 0
    capsys.readouterr()
    verified = _provenance(home, capsys)
    assert verified.startswith("verified:")

    newer = archive_factory(version="1.1.0", sign_with=theirs)
    for extra in ([], ["--trust", str(pem)]):
        assert main(["install", str(newer), *extra, *home]) == 1
        err = capsys.readouterr().err
        assert err.strip().endswith("[trust-change]")
        assert len(err.strip().splitlines()) == 1
        assert _provenance(home, capsys) == verified  # the verified version stays active

    assert main(["install", str(newer), "--allow-trust-change", *home]) == 0
    capsys.readouterr()
    assert _provenance(home, capsys) == "no-trust-anchors"


def test_the_same_key_may_replace_its_own_catalog(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = generate_private_key()
    pem = _pem(tmp_path, key, "k")
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(archive_factory(sign_with=key)), "--trust", str(pem), *home]) == 0
    newer = archive_factory(version="1.2.0", sign_with=key)
    assert main(["install", str(newer), "--trust", str(pem), *home]) == 0
    capsys.readouterr()
    assert _provenance(home, capsys).startswith("verified:")


def test_reactivating_an_older_unverified_version_is_refused_too(
    archive_factory: Any, tmp_path: Path
) -> None:
    key = generate_private_key()
    home = KnowledgeHome(tmp_path / "home")
    old = archive_factory(version="0.9.0")
    home.install(old)
    new = archive_factory(version="1.3.0", sign_with=key)
    home.install(new, trust=TrustAnchors([key.public_key()]), keep_previous=True)
    with pytest.raises(IntegrityFailure) as err:
        home.install(old)  # its bytes are installed already: this would only reactivate them
    assert err.value.reason == "trust-change"
    assert home.catalog("tester/demo").active is not None
    assert home.catalog("tester/demo").active.version == "1.3.0"  # type: ignore[union-attr]


def test_an_unknown_signer_under_trust_warns_and_fails_when_required(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pem = _pem(tmp_path, generate_private_key(), "trusted")
    stranger = archive_factory(version="2.0.0", sign_with=generate_private_key())
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(stranger), "--trust", str(pem), *home]) == 0
    err = capsys.readouterr().err
    assert "warning: tester/demo@2.0.0 is signed by a key that is not among the --trust" in err
    other = ["--home", str(tmp_path / "other")]
    required = ["install", str(stranger), "--trust", str(pem), "--require-signature", *other]
    assert main(required) == 1
    assert capsys.readouterr().err.strip().endswith("[unverified-provenance]")


@pytest.mark.parametrize("what", ["file", "folder"])
def test_trust_keys_anyone_can_write_are_refused(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    key = generate_private_key()
    folder = tmp_path / "keys"
    folder.mkdir()
    pem = _pem(folder, key, "k")
    os.chmod(pem if what == "file" else folder, 0o777 if what == "folder" else 0o666)
    trust = str(pem if what == "file" else folder)
    home = ["--home", str(tmp_path / "home")]
    assert main(["install", str(archive_factory(sign_with=key)), "--trust", trust, *home]) == 1
    assert capsys.readouterr().err.strip().endswith("[insecure-permissions]")


def test_a_world_writable_signing_key_is_refused(
    archive_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private = tmp_path / "signing.pem"
    private.write_bytes(private_key_to_pem(generate_private_key()))
    os.chmod(private, 0o666)
    archive = tmp_path / "copy.gezk"
    archive.write_bytes(archive_factory().read_bytes())
    assert main(["sign", str(archive), "--key", str(private)]) == 1
    assert capsys.readouterr().err.strip().endswith("[insecure-permissions]")
