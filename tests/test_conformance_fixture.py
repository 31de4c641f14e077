"""``check_vectors`` with a kit directory: the fixture group runs through the reader.

The kit's own archives are not shipped here, so a kit directory is assembled around the
kit-shaped catalog of ``tests/reader/test_compiled.py``, with expectations written from that
catalog's source (never read back from the reader).
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.conformance import GroupResult, check_vectors
from gezk.ids import chunk_uid
from gezk.signing import generate_private_key, key_id, public_key_to_pem
from tests.compiler.trees import PNG
from tests.conftest import load_kit
from tests.reader.test_compiled import DOCS, Compiled, compiled  # noqa: F401  (fixture)


def _fixture_entry(result_path: Path) -> dict[str, Any]:
    probe = DOCS[3]
    lead = probe["markdown"].split("\n\n")[0]
    body = unicodedata.normalize("NFC", DOCS[1]["markdown"])
    nature_first = ["doc-0000"]  # its reference into "nature" carries ordinal -7
    return {
        "path": "fixtures/conformance-0.7.gezk",
        "sha256": hashlib.sha256(result_path.read_bytes()).hexdigest(),
        "sizeBytes": result_path.stat().st_size,
        "catalogId": "demo",
        "version": "1.0.0",
        "publisherId": "tester",
        "documents": 40,
        "chunks": 80,
        "shards": 1,
        "ftsQueries": [
            {"query": DOCS[i]["title"], "expectedDocumentId": DOCS[i]["id"]} for i in (0, 1, 2)
        ],
        "semanticProbe": {
            "chunkUid": chunk_uid("doc-0003", 0, lead),
            "embedInput": f"{probe['title']}\n{lead}",
            "documentId": "doc-0003",
        },
        "documentRoundTrip": {
            "documentId": "doc-0001",
            "markdownSha256": hashlib.sha256(body.encode()).hexdigest(),
        },
        "sharedToc": {
            "documentId": "doc-0000",
            "primaryTopicId": "craft",
            "referenceTopicIds": ["nature", "metals"],
        },
        "orderedListing": {"topicId": "nature", "firstDocumentIds": nature_first},
        "metaSample": {
            "documentId": "doc-0007",
            "meta": {"tags": ["fixture", "odd"], "generatedIndex": 7},
        },
        "assets": [
            {
                "path": "assets/mark.png",
                "contentType": "image/png",
                "sizeBytes": len(PNG),
                "sha256": hashlib.sha256(PNG).hexdigest(),
            }
        ],
        "assetDocument": {"documentId": "doc-0001", "path": "assets/mark.png"},
    }


@pytest.fixture(scope="module")
def kit_dir(compiled: Compiled, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    root = tmp_path_factory.mktemp("kit")
    (root / "fixtures").mkdir()
    shutil.copyfile(compiled.result.path, root / "fixtures" / "conformance-0.7.gezk")
    kit = load_kit()
    kit["fixture"] = _fixture_entry(compiled.result.path)
    kit["legacy"] = []
    kit["spatial"]["nearby"] = [
        {
            "radius": {"latitude": 47.6062, "longitude": -122.3321, "radiusMeters": 50000},
            "expectedDocumentIds": ["doc-0000"],
        },
        {
            "radius": {"latitude": 90, "longitude": 170, "radiusMeters": 0},
            "expectedDocumentIds": ["doc-0002"],
        },
    ]
    public = compiled.key.public_key()
    kit["signature"] = {
        "publicKeyPem": public_key_to_pem(public).decode(),
        "keyId": key_id(public),
        "manifestSignatureKeyId": key_id(public),
        "tamperedField": "name",
    }
    (root / "vectors.json").write_text(json.dumps(kit), encoding="utf-8")
    return root


def _by_name(results: list[GroupResult]) -> dict[str, GroupResult]:
    return {r.name: r for r in results}


def test_a_kit_directory_checks_its_fixture_through_the_reader(kit_dir: Path) -> None:
    kit = json.loads((kit_dir / "vectors.json").read_text(encoding="utf-8"))
    results = _by_name(check_vectors(kit, kit_dir))
    fixture = results["fixture"]
    assert fixture.failures == ()
    assert fixture.skipped is None
    assert fixture.checked >= 20
    assert results["signature"].passed


def test_the_command_reports_the_fixture_group(
    kit_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vectors", "--kit", str(kit_dir)]) == 0
    lines = {
        line.split()[1]: line.split()[0]
        for line in capsys.readouterr().out.splitlines()
        if line[:1] != " "
    }
    assert lines["fixture"] == "pass"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("sha256",), "0" * 64, "archive sha256"),
        (("documents",), 41, "counts"),
        (("semanticProbe", "chunkUid"), "f" * 32, "semantic probe"),
        (("orderedListing", "firstDocumentIds"), ["doc-0025"], "listing of nature"),
        (("sharedToc", "referenceTopicIds"), ["nature"], "reference topics"),
        (("metaSample", "meta"), {"tags": []}, "meta of doc-0007"),
    ],
)
def test_a_wrong_expectation_fails_the_fixture_group(
    kit_dir: Path, path: tuple[str, ...], value: Any, message: str
) -> None:
    kit = json.loads((kit_dir / "vectors.json").read_text(encoding="utf-8"))
    target = kit["fixture"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    fixture = _by_name(check_vectors(kit, kit_dir))["fixture"]
    assert any(message in f for f in fixture.failures), fixture.failures


def test_a_foreign_signing_key_fails(kit_dir: Path) -> None:
    kit = json.loads((kit_dir / "vectors.json").read_text(encoding="utf-8"))
    other = copy.deepcopy(kit)
    other["signature"]["publicKeyPem"] = public_key_to_pem(
        generate_private_key().public_key()
    ).decode()
    fixture = _by_name(check_vectors(other, kit_dir))["fixture"]
    assert any("unknown-key" in f for f in fixture.failures)


def test_missing_archives_are_skipped_by_name(tmp_path: Path) -> None:
    results = _by_name(check_vectors(load_kit(), tmp_path))
    assert results["fixture"].status == "skip"
    assert "conformance-0.7.gezk" in (results["fixture"].skipped or "")
    assert results["legacy 0.5"].status == "skip"
