"""load_trust_anchors: the one reader of ``--trust`` keys (install, update, validate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.trust import load_trust_anchors
from gezk.signing import generate_private_key, key_id, private_key_to_pem, public_key_to_pem


def _public_pem(path: Path) -> str:
    key = generate_private_key()
    path.write_bytes(public_key_to_pem(key.public_key()))
    return key_id(key)


def test_files_and_folders_of_pem_keys_are_trusted(tmp_path: Path) -> None:
    one = _public_pem(tmp_path / "one.pem")
    folder = tmp_path / "keys"
    folder.mkdir()
    two = _public_pem(folder / "two.pem")
    three = _public_pem(folder / "three.pem")
    (folder / "README.txt").write_text("not a key, and not a .pem: ignored")
    anchors = load_trust_anchors([tmp_path / "one.pem", str(folder)])
    assert sorted(anchors) == sorted([one, two, three])
    assert len(load_trust_anchors([])) == 0


def _refusal(paths: list[Path]) -> tuple[str, str | None, str]:
    with pytest.raises(InvalidInput) as err:
        load_trust_anchors(paths)
    return err.value.reason, err.value.subject, str(err.value)


def test_a_missing_or_unreadable_key_is_unreadable(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    reason, subject, message = _refusal([missing])
    assert (reason, subject) == ("unreadable", str(missing))
    assert str(missing) in message
    (tmp_path / "file").write_text("x")
    inside_a_file = tmp_path / "file" / "k.pem"
    assert _refusal([inside_a_file])[:2] == ("unreadable", str(inside_a_file))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _refusal([empty])[:2] == ("unreadable", str(empty))


def test_anything_but_an_ed25519_public_key_is_malformed_key(tmp_path: Path) -> None:
    text = tmp_path / "text.pem"
    text.write_text("hello")
    assert _refusal([text])[:2] == ("malformed-key", str(text))
    folder = tmp_path / "keys"
    folder.mkdir()
    _public_pem(folder / "a.pem")
    private = folder / "b.pem"  # keygen writes the private key as .pem beside the .pub.pem
    private.write_bytes(private_key_to_pem(generate_private_key()))
    reason, subject, message = _refusal([folder])
    assert (reason, subject) == ("malformed-key", str(private))
    assert str(private) in message


@pytest.mark.parametrize(
    "command",
    [
        ["install", "tester/demo"],
        ["update", "--check"],
        ["validate", "catalog.gezk"],
    ],
)
def test_every_trust_option_reads_keys_the_same_way(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "keys"
    folder.mkdir()
    _public_pem(folder / "good.pem")
    (folder / "bad.pem").write_text("not a key")
    assert main([*command, "--trust", str(folder)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("[malformed-key]")
    assert str(folder / "bad.pem") in err
