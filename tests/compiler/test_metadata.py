"""Catalog metadata: every problem at once, unknown keys, encodings, and what is derived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.compiler import MetadataError, SourceError, load_catalog_yaml
from gezel_knowledge.compiler.metadata.licences import (
    find_licence_file,
    licence_file_above,
    recognise_licence,
)
from tests.compiler.trees import CATALOG_YAML, build, entries, write_tree

MIT_LIKE = (
    "Copyright (c) 2026 Example\n\nPermission is hereby granted, free of charge, to any person "
    "obtaining a copy\nof this software...\n"
)


def test_every_invalid_and_missing_field_is_reported_at_once(tmp_path: Path) -> None:
    catalog = (
        "id: Bad_Id\nversion: 1.10\nname: Demo\n"
        "license: {name: MIT}\npublisher: {id: acme}\noutline: mkdoc\n"
    )
    root = write_tree(tmp_path / "t", {"a.md": "# A\n\nText.\n"}, catalog=catalog)
    with pytest.raises(MetadataError) as err:
        build(root, tmp_path / "t.gezk")
    fields = [p.field for p in err.value.problems]
    assert fields == [
        "version",
        "publisher.name",
        "license.attributionRequired",
        "outline",
        "language",
        "id",
    ]
    assert err.value.reason == "invalid-metadata"
    message = str(err.value)
    assert message.startswith(f"{root / 'catalog.yaml'}: catalog metadata has 6 problems: ")
    assert "version 1.1 was read as a number: quote it" in message
    assert "language is missing: set `language` in catalog.yaml or --language" in message
    assert "catalog id: " in message
    assert not (tmp_path / "t.gezk").exists()


def test_missing_fields_are_listed_together(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"a.md": "# A\n\nText.\n"}, catalog=None)
    with pytest.raises(MetadataError) as err:
        build(root, tmp_path / "t.gezk")
    assert err.value.reason == "missing-metadata"
    # The id derives from the name: asked for once, as the name.
    assert [p.field for p in err.value.problems] == [
        "name",
        "language",
        "publisher",
        "license",
    ]


def test_unknown_keys_warn_with_the_nearest_known_key(tmp_path: Path) -> None:
    catalog = CATALOG_YAML.replace(
        "publisher: {id: tester, name: Test Publisher, url: https://example.test}",
        "publisher: {id: tester, name: Test Publisher, site: https://example.test}",
    )
    root = write_tree(
        tmp_path / "t", {"a.md": "# A\n\nText.\n"}, catalog=catalog + "embeder: x@1\ncolour: 3\n"
    )
    result = build(root, tmp_path / "t.gezk")
    assert [(w.reason, w.line, w.message) for w in result.warnings] == [
        ("unknown-key", 8, "unknown key 'embeder' is ignored (did you mean 'embedder'?)"),
        ("unknown-key", 9, "unknown key 'colour' is ignored"),
        ("unknown-key", 6, "unknown key 'publisher.site' is ignored"),
    ]
    assert result.warnings[0].path == str(root / "catalog.yaml")


def test_a_catalog_yaml_that_is_not_utf8_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "catalog.yaml"
    path.write_bytes("name: Caf\u00e9\n".encode("latin-1"))
    with pytest.raises(SourceError) as err:
        load_catalog_yaml(path)
    assert (err.value.reason, err.value.path) == ("invalid-encoding", str(path))
    assert "is not UTF-8 text (byte 9)" in str(err.value)


def test_id_version_and_licence_are_derived(tmp_path: Path) -> None:
    catalog = "name: Garden Notes\nlanguage: en\npublisher: {id: me, name: Me}\n"
    root = write_tree(
        tmp_path / "t", {"a.md": "# A\n\nText.\n", "LICENSE": MIT_LIKE}, catalog=catalog
    )
    result = build(root, tmp_path / "t.gezk", created_at="2027-03-09T10:00:00Z")
    manifest = json.loads(entries(result.path)["manifest.json"])
    assert (manifest["id"], manifest["version"]) == ("garden-notes", "2027.3.9")
    assert manifest["license"] == {
        "name": "MIT License",
        "spdx": "MIT",
        "noticePath": "LICENSES/catalog.txt",
        "attributionRequired": True,
    }


@pytest.mark.parametrize(
    ("text", "spdx"),
    [
        (MIT_LIKE, "MIT"),
        (
            "Redistribution and use in source and binary forms, with or without modification"
            "... 3. Neither the name of the copyright holder...",
            "BSD-3-Clause",
        ),
        ("Redistribution and use in source and binary forms, with or without...", "BSD-2-Clause"),
        (
            "Redistribution and use in source and binary forms ... * The end-user documentation "
            "included with the redistribution, if any, must include the following\n"
            "acknowledgement: ... * Neither the name of InfoEther, LLC nor the names",
            "BSD-3-Clause-Attribution",
        ),
        (
            "Microsoft Public License (Ms-PL)\n\nThis license governs use of the accompanying "
            "software. If you use the software, you accept this license.",
            "MS-PL",
        ),
        (
            "Apache License\nVersion 2.0, January 2004\n\nTERMS AND CONDITIONS FOR USE, "
            "REPRODUCTION, AND DISTRIBUTION",
            "Apache-2.0",
        ),
        ("Mozilla Public License, version 2.0\n\n1. Definitions", "MPL-2.0"),
        (
            "EUROPEAN UNION PUBLIC LICENCE v. 1.2\nEUPL \u00a9 the European Union 2007, 2016",
            "EUPL-1.2",
        ),
        ("Creative Commons\nAttribution 4.0 International Public License", "CC-BY-4.0"),
        (
            "Creative Commons\nAttribution-ShareAlike 4.0 International Public License",
            "CC-BY-SA-4.0",
        ),
        ("CC0 1.0 Universal\n\nStatement of Purpose", "CC0-1.0"),
        (
            "# License\n\nmade available under the **Attribution-NonCommercial-ShareAlike 4.0 "
            "International** ([CC BY-NC-SA 4.0](https://creativecommons.org/licenses/by-nc-sa/4.0/))",
            "CC-BY-NC-SA-4.0",
        ),
        ("Attribution-NonCommercial 4.0 International Public License", "CC-BY-NC-4.0"),
        ("Attribution-NoDerivatives 4.0 International", "CC-BY-ND-4.0"),
        ("Attribution-NonCommercial-NoDerivatives 4.0 International", "CC-BY-NC-ND-4.0"),
        ("This project is MIT licensed, see the website.", None),
    ],
)
def test_common_licences_are_recognised_by_their_text(text: str, spdx: str | None) -> None:
    licence = recognise_licence(text)
    assert (licence.spdx if licence else None) == spdx


def test_the_licence_is_looked_for_in_the_source_folder_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "docs" / "book").mkdir(parents=True)
    (repo / "LICENSE.md").write_text(MIT_LIKE)
    assert find_licence_file(repo / "docs" / "book") is None
    assert licence_file_above(repo / "docs" / "book") == repo / "LICENSE.md"
    (repo / "docs" / "COPYING").write_text("Nearer.\n")
    assert licence_file_above(repo / "docs" / "book") == repo / "docs" / "COPYING"
    (repo / "docs" / "book" / "license.md").write_text(MIT_LIKE)
    assert find_licence_file(repo / "docs" / "book") == repo / "docs" / "book" / "license.md"
