"""``gezel-knowledge build``, ``keygen`` and ``sign``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge import _untrusted
from gezel_knowledge.cli import main
from gezk.signing import TrustAnchors, public_key_from_pem, verify_manifest
from tests.compiler.trees import CATALOG_YAML, build, entries, write_tree


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "src", {"a.md": "# Alpha\n\nText about alpha.\n", "b/c.md": "# Gamma\n"}
    )


def test_build_json_output_and_default_cache(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.gezk"
    args = ["build", str(_tree(tmp_path)), "-o", str(out), "--embedder", "test-hash-embed@1"]
    code = main([*args, "--created-at", "2026-12-01", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["path"] == str(out)
    # "# Gamma" alone is a chunk too: a heading line belongs to its section's text.
    assert (report["documents"], report["chunks"], report["embedded"]) == (2, 2, 2)
    assert "signature" not in report["manifest"]  # the manifest.json it wrote, verbatim
    assert report["manifest"]["counts"]["documents"] == 2
    assert (home / "cache" / "embeddings" / "vectors.sqlite").is_file()
    # The second build takes its vector from the cache and gives the same bytes.
    assert main([*args, "--created-at", "2026-12-01", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["embedded"], again["cached"], again["sha256"]) == (0, 2, report["sha256"])


def test_build_without_created_at_uses_the_clock(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.gezk"
    code = main(
        [
            "build",
            str(_tree(tmp_path)),
            "-o",
            str(out),
            "--embedder",
            "test-hash-embed@1",
            "--no-cache",
        ]
    )
    assert code == 0
    assert "built" in capsys.readouterr().out
    created = json.loads(entries(out)["manifest.json"])["createdAt"]
    assert created.endswith("Z")
    assert created[:2] == "20"
    assert not (home / "cache").exists()


def test_metadata_flags_override_catalog_yaml(tmp_path: Path, home: Path) -> None:
    out = tmp_path / "out.gezk"
    code = main(
        [
            "build",
            str(_tree(tmp_path)),
            "-o",
            str(out),
            "--embedder",
            "test-hash-embed@1",
            "--created-at",
            "2026-12-01",
            "--catalog-id",
            "other",
            "--catalog-version",
            "2.0",
            "--name",
            "Other",
            "--publisher-id",
            "pub",
            "--publisher-name",
            "Pub",
            "--license-name",
            "MIT",
            "--no-attribution-required",
            "--quiet",
        ]
    )
    assert code == 0
    manifest = json.loads(entries(out)["manifest.json"])
    assert (manifest["id"], manifest["version"], manifest["name"]) == ("other", "2.0", "Other")
    assert manifest["publisher"] == {"id": "pub", "name": "Pub", "url": "https://example.test"}
    assert manifest["license"]["name"] == "MIT"
    assert manifest["license"]["attributionRequired"] is False


SOURCE_ONLY = """\
description: Only in the source folder's catalog.yaml.
sourceSnapshot: {name: source-only-snapshot, date: "2020-01-01"}
createdAt: "2020-01-01T00:00:00Z"
smokeQueries:
  - {query: gamma, expectedDocumentIds: [b/c]}
"""


def _catalog_pair(tmp_path: Path) -> tuple[Path, Path]:
    """A source whose own catalog.yaml has fields the other catalog file lacks."""
    source = _tree(tmp_path)
    (source / "catalog.yaml").write_text(CATALOG_YAML.split("description:")[0] + SOURCE_ONLY)
    other = tmp_path / "elsewhere" / "catalog.yaml"
    other.parent.mkdir()
    other.write_text(
        CATALOG_YAML.replace("id: demo", "id: other-demo").split("description:")[0]
        + "language: en\npublisher: {id: tester, name: Test Publisher}\n"
        + "license: {name: CC BY 4.0, attributionRequired: true}\n"
    )
    return source, other


def _assert_nothing_leaked(manifest: dict[str, object]) -> None:
    assert manifest["id"] == "other-demo"
    text = json.dumps(manifest)
    for leak in ("Only in the source folder", "source-only-snapshot", "2020-01-01"):
        assert leak not in text
    assert manifest["smokeQueries"] != [{"query": "gamma", "expectedDocumentIds": ["b/c"]}]


def test_catalog_file_replaces_the_sources_catalog_yaml(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, other = _catalog_pair(tmp_path)
    reads: list[Path] = []
    read_bounded = _untrusted.read_bounded

    def counting_read(path: Path | str, what: str, **options: Any) -> bytes:
        # Every file a build reads goes through the bounded reader (issue 26).
        if Path(path).name == "catalog.yaml":
            reads.append(Path(path))
        return read_bounded(path, what, **options)

    monkeypatch.setattr(_untrusted, "read_bounded", counting_read)
    out = tmp_path / "out.gezk"
    args = ["build", str(source), "-o", str(out), "--catalog", str(other)]
    assert main([*args, "--embedder", "test-hash-embed@1", "--no-cache", "--quiet"]) == 0
    assert reads == [other]  # read once, and the source's own file not at all
    _assert_nothing_leaked(json.loads(entries(out)["manifest.json"]))


def test_compile_catalog_takes_a_catalog_file_too(tmp_path: Path) -> None:
    source, other = _catalog_pair(tmp_path)
    result = build(source, tmp_path / "out.gezk", catalog=other, created_at="2026-12-01")
    _assert_nothing_leaked(json.loads(entries(result.path)["manifest.json"]))


def test_keygen_then_build_signed_then_resign(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "keys" / "publisher.pem"
    assert main(["keygen", str(key), "--json"]) == 0
    keys = json.loads(capsys.readouterr().out)
    assert keys["publicKey"] == str(tmp_path / "keys" / "publisher.pub.pem")
    assert key.stat().st_mode & 0o777 == 0o600
    assert main(["keygen", str(key)]) == 1  # refuses to overwrite
    assert "already exists" in capsys.readouterr().err
    source = _tree(tmp_path)
    common = [
        "--embedder",
        "test-hash-embed@1",
        "--created-at",
        "2026-12-01",
        "--no-cache",
        "--quiet",
    ]
    signed = tmp_path / "signed.gezk"
    assert main(["build", str(source), "-o", str(signed), "--sign", str(key), *common]) == 0
    plain = tmp_path / "plain.gezk"
    assert main(["build", str(source), "-o", str(plain), *common]) == 0
    capsys.readouterr()
    resigned = tmp_path / "resigned.gezk"
    assert main(["sign", str(plain), "--key", str(key), "-o", str(resigned), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["keyId"] == keys["keyId"]
    # Signing afterwards gives exactly the archive a signed build gives.
    assert resigned.read_bytes() == signed.read_bytes()
    manifest = json.loads(entries(signed)["manifest.json"])
    anchors = TrustAnchors(
        [public_key_from_pem((tmp_path / "keys" / "publisher.pub.pem").read_bytes())]
    )
    assert verify_manifest(manifest, anchors) == keys["keyId"]


def test_build_errors_are_one_line_and_exit_1(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_tree(tmp_path / "src", {"a.md": "# A\n\n![x](bad.png)\n", "bad.png": "GIF89a"})
    code = main(
        ["build", str(source), "-o", str(tmp_path / "x.gezk"), "--embedder", "test-hash-embed@1"]
    )
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "gezel-knowledge: error: a.md:3: image 'bad.png': asset 'assets/bad.png' is named as png "
        "but its bytes are gif [asset-type-mismatch]"
    )
    assert not (tmp_path / "x.gezk").exists()


def test_unknown_embedder_profile_is_refused(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["build", str(_tree(tmp_path)), "-o", str(tmp_path / "x.gezk"), "--embedder", "nope@1"]
    )
    assert code == 1
    assert "unknown-profile" in capsys.readouterr().err


def test_build_says_notes_once_and_allow_read_names_the_folder_above(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Git LFS pointer image is a note, not a warning (and no strict failure); a Hugo mount
    # from above the source stops the build naming --allow-read, which then lets it read.
    del home
    lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 12\n"
    repo = tmp_path / "repo"
    write_tree(repo, {"NOTES.md": "# Notes\n\nFrom the repository.\n"}, catalog=None)
    source = write_tree(
        repo / "site",
        {
            "hugo.toml": (
                'title = "H"\n[[module.mounts]]\nsource = "content"\ntarget = "content"\n'
                '[[module.mounts]]\nsource = "../NOTES.md"\ntarget = "content/notes.md"\n'
            ),
            "content/_index.md": "---\ntitle: H\n---\nHome. ![pic](/pic.png)\n",
            "static/pic.png": lfs,
        },
    )
    out = tmp_path / "out.gezk"
    args = ["build", str(source), "-o", str(out), "--embedder", "test-hash-embed@1"]
    args += ["--created-at", "2026-12-01", "--strict"]
    assert main(args) != 0
    assert "add --allow-read .. [missing-input]" in capsys.readouterr().err
    assert main([*args, "--allow-read", str(repo)]) == 0
    err = capsys.readouterr().err
    assert "note: 1 image is a Git LFS pointer, not image data" in err
    assert "warning" not in err
    assert main([*args, "--allow-read", str(repo), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 2
    assert len(report["notes"]) == 1
