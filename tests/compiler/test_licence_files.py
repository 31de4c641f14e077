"""Licence notices: every common file name, SPDX by the text, the one flag to add, and the
publisher a copyright line names (issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.cli import main
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.metadata.licences import (
    copyright_holder,
    find_licence_file,
    recognise_licence,
)
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from tests.compiler.trees import entries, write_tree

# The defining sentences recognition looks for, not whole licence texts.
MIT = (
    "Copyright (c) 2024 Kettle Works\n\n"
    "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
)
APACHE_NOTICE = (
    "Copyright 2019 ZeroEx Intl.\n\n"
    'Licensed under the Apache License, Version 2.0 (the "License");\n'
    "you may not use this file except in compliance with the License.\n"
)
SITE_CATALOG = "name: Kettle\nlanguage: en\n"
HASH = ["--embedder", "test-hash-embed@1", "--created-at", "2026-12-01T00:00:00Z", "--quiet"]


@pytest.mark.parametrize(
    "name",
    [
        "LICENSE",
        "LICENSE.md",
        "LICENSE.txt",
        "LICENSE.rst",
        "LICENCE",
        "COPYING",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "license.md",
        "License.txt",
        "licence",
        "copying.txt",
    ],
)
def test_every_common_licence_file_name_is_found_whatever_its_case(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_text(MIT)
    (tmp_path / "NOTICE-unrelated.md").write_text("no\n")
    assert find_licence_file(tmp_path) == tmp_path / name


def test_the_plain_licence_name_is_preferred_to_a_dual_licence_pair(tmp_path: Path) -> None:
    for name in ("LICENSE-MIT", "LICENSE-APACHE", "LICENSE.md"):
        (tmp_path / name).write_text(MIT)
    assert find_licence_file(tmp_path) == tmp_path / "LICENSE.md"
    (tmp_path / "LICENSE.md").unlink()
    assert find_licence_file(tmp_path) == tmp_path / "LICENSE-MIT"


def test_a_notice_that_points_at_the_licence_file_gives_way_to_it(tmp_path: Path) -> None:
    # hugoDocs' LICENSE.md only says where the content's licence is.
    pointer = "See [content/LICENSE.md](content/LICENSE.md) for the license of the content.\n"
    root = write_tree(
        tmp_path / "site",
        {"LICENSE.md": pointer, "content/LICENSE.md": APACHE_NOTICE, "a.md": "# A\n"},
        catalog=None,
        notices=False,
    )
    assert find_licence_file(root) == root / "content" / "LICENSE.md"
    # A pointer at nothing recognisable, or outside the folder, keeps the notice itself.
    (root / "content" / "LICENSE.md").write_text("All rights reserved.\n")
    assert find_licence_file(root) == root / "LICENSE.md"
    (root / "LICENSE.md").write_text("See ../LICENSE.\n")
    (tmp_path / "LICENSE").write_text(MIT)
    assert find_licence_file(root) == root / "LICENSE.md"


def test_the_short_apache_notice_is_the_apache_licence() -> None:
    licence = recognise_licence(APACHE_NOTICE)
    assert licence is not None
    assert licence.spdx == "Apache-2.0"


@pytest.mark.parametrize("spelling", ["neighboring", "neighbouring"])
def test_the_short_cc0_waiver_is_cc0(spelling: str) -> None:
    notice = (
        "To the extent possible under law, the persons who contributed to this work\n"
        f"have waived all copyright and related or {spelling} rights to this work\n"
        "by associating CC0 with it.\n\n"
        "See http://creativecommons.org/publicdomain/zero/1.0/ for more information.\n"
    )
    licence = recognise_licence(notice)
    assert licence is not None
    assert (licence.spdx, licence.attribution_required) == ("CC0-1.0", False)


def test_a_waiver_without_the_cc0_deed_is_not_taken_for_cc0() -> None:
    notice = "The authors have waived all copyright and related or neighboring rights."
    assert recognise_licence(notice) is None


def test_mit_no_attribution_is_told_from_mit() -> None:
    # MIT-0 keeps MIT's grant under its own title and drops its condition: no attribution.
    mit0 = (
        "MIT No Attribution\n\nCopyright 2019 Amazon.com, Inc. or its affiliates.\n\n"
        "Permission is hereby granted, free of charge, to any person obtaining a copy of this\n"
        "software, to deal in the Software without restriction, subject to no condition.\n"
    )
    found = recognise_licence(mit0)
    assert found is not None
    assert (found.spdx, found.attribution_required) == ("MIT-0", False)
    condition = "The above copyright notice and this permission notice shall be included in all"
    full_mit = "MIT No Attribution? no: " + MIT + condition + " copies\n"
    mit = recognise_licence(full_mit)
    assert mit is not None
    assert (mit.spdx, mit.attribution_required) == ("MIT", True)
    plain = recognise_licence(MIT)
    assert plain is not None
    assert plain.spdx == "MIT"


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Copyright (c) 2019-2024, Encode OSS Ltd.\nAll rights reserved.", "Encode OSS Ltd"),
        ("Copyright © 2018, [Encode OSS Ltd](https://www.encode.io/).", "Encode OSS Ltd"),
        ("MIT License Copyright (c) 2023 Chris Sewell", "Chris Sewell"),
        ("Copyright &copy; 2015-present <b>Dan</b>", "Dan"),
        ("Copyright: 2024 Alex Shpak", "Alex Shpak"),
        ("Copyright (c) Facebook, Inc. and its affiliates.", "Facebook, Inc. and its affiliates"),
        ("Copyright [yyyy] [name of copyright owner]", None),
        ("grant a copyright license to reproduce", None),
        ("THE COPYRIGHT HOLDERS AND CONTRIBUTORS", None),
        ("Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>", None),
        ("[© CC BY 4.0](https://creativecommons.org/licenses/by/4.0/legalcode)", None),
        ("Copyright © 2025 Yusuke Nakada. Generated with <a href='x'>DocFX</a>", "Yusuke Nakada"),
        # A closing note in parentheses names no one (pip's licence).
        (
            "Copyright (c) 2008-present The pip developers (see AUTHORS.txt file)",
            "The pip developers",
        ),
        ("Copyright 2020 Kettle (Pty) Ltd", "Kettle (Pty) Ltd"),
    ],
)
def test_the_copyright_holder_of_a_notice(text: str, holder: str | None) -> None:
    assert copyright_holder(text) == holder


def _built(tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> int:
    del capsys
    return main(["build", str(tmp_path / "repo" / "site"), "-o", str(out), *HASH, *flags])


def test_a_licence_above_the_site_names_the_one_flag_and_then_needs_no_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    write_tree(repo / "site", {"a.md": "# A\n\nText.\n"}, catalog=SITE_CATALOG, notices=False)
    (repo / "LICENSE-APACHE").write_text(APACHE_NOTICE)
    monkeypatch.chdir(repo / "site")
    out = tmp_path / "k.gezk"
    assert _built(tmp_path, out, capsys) == 1
    err = capsys.readouterr().err
    assert "add --license-file ../LICENSE-APACHE" in err
    assert "license is missing" not in err
    assert "publisher" not in err
    # The named file's text gives the licence, its copyright line the publisher.
    assert _built(tmp_path, out, capsys, "--license-file", "../LICENSE-APACHE") == 0
    manifest = json.loads(entries(out)["manifest.json"])
    assert manifest["license"]["spdx"] == "Apache-2.0"
    assert manifest["publisher"] == {"id": "zeroex-intl", "name": "ZeroEx Intl"}


def test_a_licence_page_including_the_file_above_names_that_file_as_the_one_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    page = "# BSD License\n\n```{literalinclude} ../LICENSE.txt\n```\n"
    write_tree(repo / "site", {"a.md": "# A\n\nText.\n"}, catalog=SITE_CATALOG, notices=False)
    (repo / "site" / "license.md").write_text(page)
    (repo / "LICENSE.txt").write_text(MIT)
    monkeypatch.chdir(repo / "site")
    out = tmp_path / "k.gezk"
    assert _built(tmp_path, out, capsys) == 1
    err = capsys.readouterr().err
    assert "license.md points at ../LICENSE.txt" in err
    assert "add --license-file ../LICENSE.txt" in err
    assert "license is missing" not in err
    assert _built(tmp_path, out, capsys, "--license-file", "../LICENSE.txt") == 0
    manifest = json.loads(entries(out)["manifest.json"])
    assert manifest["license"]["spdx"] == "MIT"


def test_a_licence_the_site_holds_gives_licence_and_publisher_with_no_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    site = write_tree(
        tmp_path / "repo" / "site",
        {"a.md": "# A\n\nText.\n", "license.md": MIT},
        catalog=SITE_CATALOG,
        notices=False,
    )
    out = tmp_path / "k.gezk"
    assert main(["build", str(site), "-o", str(out), *HASH]) == 0
    manifest = json.loads(entries(out)["manifest.json"])
    assert (manifest["license"]["spdx"], manifest["publisher"]["name"]) == ("MIT", "Kettle Works")


def test_a_publisher_name_alone_is_enough(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    site = write_tree(
        tmp_path / "repo" / "site",
        {"a.md": "# A\n\nText.\n", "LICENSE": MIT.replace("Copyright (c) 2024 Kettle Works", "")},
        catalog=SITE_CATALOG,
        notices=False,
    )
    out = tmp_path / "k.gezk"
    assert main(["build", str(site), "-o", str(out), *HASH]) == 1
    assert (
        "publisher is missing: set `publisher: {id, name}` in catalog.yaml or --publisher-name"
        in (capsys.readouterr().err)
    )
    assert main(["build", str(site), "-o", str(out), *HASH, "--publisher-name", "Kettle Co"]) == 0
    manifest = json.loads(entries(out)["manifest.json"])
    assert manifest["publisher"] == {"id": "kettle-co", "name": "Kettle Co"}


@pytest.mark.parametrize(
    ("line", "holder"),
    [
        ("2021, Executable Book Project", "Executable Book Project"),
        (
            "Copyright &copy; 2019 <a href='https://encode.io/'>Encode OSS Ltd</a>.",
            "Encode OSS Ltd",
        ),
        ("<span>Supported by the .NET Foundation</span>", None),
        ("[© CC BY 4.0](https://creativecommons.org/licenses/by/4.0/legalcode)", None),
    ],
)
def test_a_sites_copyright_setting_names_the_publisher(line: str, holder: str | None) -> None:
    found = config.publisher(None, None, line)
    assert (found.name if found else None) == holder


def test_a_docfx_footer_names_the_publisher(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "fx",
        {
            "docfx.json": (
                '{"build": {"globalMetadata": {"_appName": "Motion", '
                '"_appFooter": "<span>Copyright \\u00a9 2025 Yusuke Nakada. Made with DocFX'
                '</span>"}}}'
            ),
            "toc.yml": "- name: A\n  href: a.md\n",
            "a.md": "# A\n",
        },
        catalog=None,
    )
    publisher = load_markdown_tree(root).metadata.publisher
    assert publisher is not None
    assert (publisher.id, publisher.name) == ("yusuke-nakada", "Yusuke Nakada")


def test_a_site_with_no_licence_notice_anywhere_is_told_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A site that states its licence only in prose (docker_practice's README) holds no
    # notice: the message names the flag that supplies one, as every other problem does.
    monkeypatch.setenv("GEZEL_HOME", str(tmp_path / "home"))
    write_tree(
        tmp_path / "repo" / "site", {"a.md": "# A\n\nText.\n"}, catalog=SITE_CATALOG, notices=False
    )
    (tmp_path / "repo" / ".git").mkdir()  # the repository's root: nothing is looked up above it
    assert _built(tmp_path, tmp_path / "k.gezk", capsys) == 1
    assert "name one with --license-file FILE" in capsys.readouterr().err
