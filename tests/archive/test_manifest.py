"""Reading a manifest refuses malformed structure, naming the JSON path (spec section 4)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from gezel_knowledge.archive.manifest import parse_manifest_bytes
from gezel_knowledge.errors import IntegrityFailure
from tests.archive.archive_builders import manifest_for

_FILES = {"README.md": b"# Demo\n", "LICENSES/catalog.txt": b"CC0\n", "index/router.db": b"db"}


def _valid() -> dict[str, Any]:
    manifest = manifest_for(_FILES)
    manifest["smokeQueries"] = [{"query": "demo", "expectedDocumentIds": ["doc"]}]
    manifest["topics"] = [{"id": "guide", "name": "Guide", "sortKey": "0000000001"}]
    return manifest


def _subject(edit: Callable[[dict[str, Any]], None]) -> str | None:
    manifest = copy.deepcopy(_valid())
    edit(manifest)
    with pytest.raises(IntegrityFailure) as caught:
        parse_manifest_bytes(json.dumps(manifest).encode())
    assert caught.value.reason == "invalid-manifest"
    return caught.value.subject


def test_the_valid_manifest_parses_every_array() -> None:
    parsed = parse_manifest_bytes(json.dumps(_valid()).encode())
    assert [f.path for f in parsed.files] == sorted(_FILES)
    assert [s.id for s in parsed.router.shards] == [0]
    assert [t.id for t in parsed.topics] == ["guide"]
    assert [(q.query, q.expected_document_ids) for q in parsed.smoke_queries] == [
        ("demo", ("doc",))
    ]


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda m: m["files"].insert(1, "README.md"), "$.files[1]"),
        (lambda m: m["router"]["shards"].append(7), "$.router.shards[1]"),
        (lambda m: m["topics"].append(["guide"]), "$.topics[1]"),
        (lambda m: m["smokeQueries"].insert(0, "demo"), "$.smokeQueries[0]"),
        (lambda m: m["spatial"]["coverage"].append(None), "$.spatial.coverage[0]"),
        # Found by the mutation property test: a TypeError before.
        (lambda m: m.update(smokeQueries=True), "$.smokeQueries"),
        (lambda m: m.update(smokeQueries={"query": "demo"}), "$.smokeQueries"),
    ],
)
def test_a_non_object_array_element_is_refused_by_its_path(
    edit: Callable[[dict[str, Any]], None], path: str
) -> None:
    assert _subject(edit) == path


def test_a_smoke_query_reports_its_expected_ids_before_its_query() -> None:
    def edit(m: dict[str, Any]) -> None:
        m["smokeQueries"][0] = {"query": 5, "expectedDocumentIds": ["doc", 6]}

    assert _subject(edit) == "$.smokeQueries[0].expectedDocumentIds"
