"""Link and asset rewriting in Markdown trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from gezel_knowledge.compiler import LinkBase, SourceError
from gezel_knowledge.compiler.sources.markdown_tree import load_markdown_tree
from gezel_knowledge.compiler.text.links import find_links
from tests.compiler.trees import PNG, SVG, build, entries, write_tree
from tests.faults import MB, assert_linear_time

LINKS = LinkBase("tester", "demo")


def _body(root: Path, doc_id: str) -> str:
    source = load_markdown_tree(root)
    return next(d for d in source.documents if d.id == doc_id).load_body(LINKS)


def test_relative_links_become_knowledge_references(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "guide/start.md": (
                "# Start\n\n"
                "See [install](install.md), [the steps](install.md#run-the-installer), "
                "[home](../index.md) and [a folder](../reference/) and [myself](#start).\n"
                "[Spaced](<../reference/my page.md>) and [web](https://example.test/x.md) "
                "and [mail](mailto:a@b.test).\n"
                '\n[def]: install.md#check-it "Title kept"\n'
            ),
            "guide/install.md": (
                "# Install\n\nIntro.\n\n## Run the installer\n\nRun it.\n\n### Detail\n\nMore.\n\n"
                "## Check it\n\nDone.\n"
            ),
            "index.md": "# Home\n",
            "reference/index.md": "# Reference\n",
            "reference/my page.md": "# My page\n",
        },
    )
    body = _body(root, "guide/start")
    assert "[install](knowledge://tester/demo/guide/install)" in body
    # The section of "Run the installer" spans its subsection, up to the next level-2 heading.
    assert "[the steps](knowledge://tester/demo/guide/install#line=5-11)" in body
    assert "[home](knowledge://tester/demo/index)" in body
    assert "[a folder](knowledge://tester/demo/reference/index)" in body
    assert "[myself](knowledge://tester/demo/guide/start#line=1-6)" in body
    assert "[Spaced](<knowledge://tester/demo/reference/my%20page>)" in body
    assert "[web](https://example.test/x.md)" in body
    assert "[mail](mailto:a@b.test)" in body
    assert '[def]: knowledge://tester/demo/guide/install#line=13-15 "Title kept"' in body
    # Rewriting never moves lines: the body has as many lines as before.
    assert body.count("\n") == (root / "guide/start.md").read_text().count("\n")


def test_links_inside_code_are_left_alone(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "a.md": "Use `[x](b.md)` inline.\n\n```md\n[y](b.md)\n```\n\n[z](b.md)\n",
            "b.md": "# B\n",
        },
    )
    body = _body(root, "a")
    assert "`[x](b.md)`" in body
    assert "\n[y](b.md)\n" in body
    assert "[z](knowledge://tester/demo/b)" in body


def test_images_are_copied_to_assets_and_rewritten(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "docs/page.md": (
                '# Page\n\n![diagram](img/flow.png "Flow")\n'
                '<img src="../pics/logo.svg" width="10">\n'
                "[download the picture](img/flow.png)\n"
            ),
            "docs/img/flow.png": PNG,
            "pics/logo.svg": SVG,
        },
    )
    source = load_markdown_tree(root)
    assert [(a.path, a.file.name) for a in source.assets] == [
        ("assets/docs/img/flow.png", "flow.png"),
        ("assets/pics/logo.svg", "logo.svg"),
    ]
    body = source.documents[0].load_body(LINKS)
    assert '![diagram](assets/docs/img/flow.png "Flow")' in body
    assert '<img src="assets/pics/logo.svg" width="10">' in body
    assert "[download the picture](assets/docs/img/flow.png)" in body
    result = build(root, tmp_path / "out.gezk")
    archive = entries(result.path)
    assert archive["assets/docs/img/flow.png"] == PNG
    assert archive["assets/pics/logo.svg"] == SVG
    assert result.manifest.to_json()["counts"]["assets"] == 2
    files = {f["path"] for f in result.manifest.to_json()["files"]}
    assert {"assets/docs/img/flow.png", "assets/pics/logo.svg"} <= files


def test_asset_names_are_made_safe_and_collisions_refused(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {"a.md": "![x](<my img.png>)\n![y](my-img.png)\n", "my img.png": PNG, "my-img.png": PNG},
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "asset-path-collision"
    assert (err.value.path, err.value.line) == ("a.md", 2)


def test_images_whose_names_differ_only_in_case_collide(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t", {"a.md": "![x](Map.png)\n\n![y](map.png)\n", "Map.png": PNG, "map.png": PNG}
    )
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert (err.value.reason, err.value.path, err.value.line) == ("asset-path-collision", "a.md", 3)
    assert "assets/Map.png" in str(err.value)


def test_a_link_to_a_missing_file_is_kept_with_a_warning_naming_file_and_line(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "t",
        {"notes/a.md": "---\ntitle: A\n---\n# A\n\nFine.\n\nSee [gone](gone.md).\n"},
    )
    source = load_markdown_tree(root)
    (warning,) = source.warnings
    # Line 8 of the file: the three front-matter lines count.
    assert (warning.reason, warning.path, warning.line) == ("unresolved-link", "notes/a.md", 8)
    assert str(warning) == "notes/a.md:8: link 'gone.md' names no page of the tree; kept as written"
    assert source.documents[0].load_body(LINKS).endswith("See [gone](gone.md).\n")


def test_a_missing_image_is_kept_with_a_warning(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"a.md": "# A\n\n![x](nope.png)\n![y](assets/gone.png)\n"})
    source = load_markdown_tree(root)
    assert [(w.reason, w.line) for w in source.warnings] == [
        ("missing-image", 3),
        ("missing-image", 4),
    ]
    # A target kept as written never reads as a reference to a shipped asset.
    body = source.documents[0].load_body(LINKS)
    assert body == "# A\n\n![x](nope.png)\n![y](./assets/gone.png)\n"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("bad.png", b"GIF89a not a png", "asset-type-mismatch"),
        ("aux.png", PNG, "invalid-asset-path"),
    ],
)
def test_broken_or_unsafe_images_are_refused(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    root = write_tree(tmp_path / "t", {"a.md": f"# A\n\n![x]({name})\n", name: data})
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert (err.value.reason, err.value.path, err.value.line) == (reason, "a.md", 3)


def test_an_svg_that_is_not_inert_is_not_shipped_and_noted_once(tmp_path: Path) -> None:
    # A draw.io diagram holds <foreignObject>: the catalog never ships it, but the site is
    # fine (its generator publishes the file), so the build goes on and says so once.
    root = write_tree(
        tmp_path / "t",
        {
            "a.md": "# A\n\n![x](evil.svg) ![y](evil.svg) ![z](draw.svg)\n",
            "evil.svg": '<svg onload="alert(1)"></svg>',
            "draw.svg": "<svg><foreignObject><div>x</div></foreignObject></svg>",
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert source.assets == ()
    body = source.documents[0].load_body(LINKS)
    assert body == "# A\n\n![x](evil.svg) ![y](evil.svg) ![z](draw.svg)\n"
    assert len(source.notes) == 1
    assert source.notes[0].startswith("2 SVG images are not shipped, not being inert (such as ")
    assert "<foreignObject>" in source.notes[0]


def test_an_image_of_a_type_no_catalog_holds_is_not_shipped_and_noted_once(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "t",
        {"a.md": "# A\n\n![x](pic.avif) ![y](pic.bmp)\n", "pic.avif": b"\0\0", "pic.bmp": b"BM"},
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert source.assets == ()
    assert _body(root, "a") == "# A\n\n![x](pic.avif) ![y](pic.bmp)\n"
    assert source.notes == (
        "2 images of a type no catalog holds (such as pic.avif) are not shipped: the links to "
        "them are kept as written",
    )


def test_image_linked_out_of_the_source_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.png").write_bytes(PNG)
    root = write_tree(tmp_path / "t", {"a.md": "![x](img.png)\n"})
    (root / "img.png").symlink_to(tmp_path / "outside.png")
    with pytest.raises(SourceError) as err:
        load_markdown_tree(root)
    assert err.value.reason == "unsafe-asset"


def test_a_plain_folder_keeps_an_image_above_it_unread(tmp_path: Path) -> None:
    # docs/ of a repository shows ../images/x.png from the repository: not read, not shipped.
    (tmp_path / "outside.png").write_bytes(PNG)
    root = write_tree(tmp_path / "t", {"a.md": "![x](../outside.png)\n"})
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert source.assets == ()
    body = next(d for d in source.documents if d.id == "a").load_body(LINKS)
    assert body == "![x](../outside.png)\n"


def test_missing_anchor_warns_and_a_file_that_is_no_page_is_kept(tmp_path: Path) -> None:
    # In a plain folder a link to a file of the tree that is no page is a file GitHub shows.
    root = write_tree(
        tmp_path / "t",
        {"a.md": "[b](b.md#nowhere) [data](data.csv)\n", "b.md": "# B\n", "data.csv": "x,y\n"},
    )
    source = load_markdown_tree(root)
    reasons = sorted(w.reason for w in source.warnings)
    assert reasons == ["missing-anchor"]
    body = next(d for d in source.documents if d.id == "a").load_body(LINKS)
    assert body == "[b](knowledge://tester/demo/b) [data](data.csv)\n"


def test_find_links_offsets() -> None:
    body = "x [a](t1) ![b](<t 2>) `[c](t3)`\n"
    refs = find_links(body)
    assert [(r.target, body[r.start : r.end], r.image) for r in refs] == [
        ("t1", "t1", False),
        ("t 2", "t 2", True),
    ]


def test_footnote_definitions_are_not_link_definitions(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "t",
        {
            "a.md": (
                "# A\n\nA claim[^1] and [b][ref].\n\n"
                "[^1]: Some words, not a target.\n"
                "[^note]: https://example.test/cited\n"
                "[ref]: b.md\n"
            ),
            "b.md": "# B\n",
        },
    )
    source = load_markdown_tree(root)
    assert [w.reason for w in source.warnings] == []
    assert [r.target for r in find_links((root / "a.md").read_text())] == ["b.md"]
    body = next(d for d in source.documents if d.id == "a").load_body(LINKS)
    assert "[^1]: Some words, not a target.\n" in body
    assert "[ref]: knowledge://tester/demo/b\n" in body


def test_a_definition_cannot_interrupt_a_paragraph() -> None:
    body = (
        "There are two basic\n[kinds of sites]: project sites, and user sites.\n\n"
        "[kinds of sites]: https://example.test/kinds\n[next]: b.md\n"
    )
    assert [(r.target, r.line) for r in find_links(body)] == [
        ("https://example.test/kinds", 4),
        ("b.md", 5),
    ]


def test_an_unused_reference_definition_is_no_link(tmp_path: Path) -> None:
    # Renderers drop a definition no reference uses: its target is never checked.
    root = write_tree(
        tmp_path / "t",
        {
            "index.md": (
                "# Home\n\nSee [the guide][Guide] and [Other].\n\n"
                "[guide]: guide.md\n[other]: gone.md\n[unused]: nowhere.md\n"
                "[Unused image]: missing.png\n[spare]: guide.md#nowhere\n"
            ),
            "guide.md": "# Guide\n",
        },
    )
    source = load_markdown_tree(root)
    assert [w.message.split("'")[1] for w in source.warnings] == ["gone.md"]
    body = next(d for d in source.documents if d.id == "index").load_body(LinkBase("t", "d"))
    assert "[guide]: knowledge://t/d/guide\n" in body
    assert "[unused]: nowhere.md\n" in body
    # A definition that resolves is still rewritten, used or not (its anchor unchecked).
    assert "[spare]: knowledge://t/d/guide\n" in body


def test_a_sites_image_the_catalog_cannot_ship_is_kept_as_written(tmp_path: Path) -> None:
    # A generator's site publishes a .png holding GIF bytes and an SVG with a DOCTYPE naming
    # an external DTD (browsers sniff and render them); the archive refuses both, so they are
    # left out with a note each, and the build goes on.
    svg = (
        b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg></svg>\n'
    )
    root = write_tree(
        tmp_path / "book",
        {
            "book.toml": '[book]\ntitle = "B"\n',
            "src/SUMMARY.md": "[A](a.md)\n",
            "src/a.md": "# A\n\n![x](bad.png)\n![y](img/diagram.svg)\n![z](ok.png)\n",
            "src/bad.png": b"GIF89a not a png",
            "src/img/diagram.svg": svg,
            "src/ok.png": PNG,
        },
    )
    source = load_markdown_tree(root)
    assert source.warnings == ()
    assert len(source.notes) == 2
    svg_note, refused_note = source.notes
    assert svg_note.startswith("1 SVG image is not shipped, not being inert (such as ")
    assert "external DTD" in svg_note
    assert refused_note.startswith(
        "1 image is not shipped, the archive refusing its bytes (such as src/bad.png: "
    )
    body = source.documents[0].load_body(LINKS)
    assert body == "# A\n\n![x](bad.png)\n![y](img/diagram.svg)\n![z](assets/ok.png)\n"
    assert [a.path for a in source.assets] == ["assets/ok.png"]


def test_fences_indented_in_lists_tabs_and_admonitions_are_code() -> None:
    # Python-Markdown's containers (=== "tab", !!! note) and list items indent their fences;
    # the code in them is no link, the list item's own paragraph is.
    body = (
        '=== "Python 3.10"\n    ```py\n    print(Foo[int](f=1))\n    ```\n\n'
        "!!! note\n    ~~~~\n        a[1](b)\n    ~~~~\n\n"
        "- item\n\n    [real](page.md)\n\n    ```\n    unclosed[x](y.md)\n"
    )
    # An indented opening with no closing marks nothing.
    assert [link.target for link in find_links(body)] == ["page.md", "y.md"]


def test_indented_fences_are_found_in_linear_time() -> None:
    text = "    ```x\n" * (MB // 9)
    assert_linear_time(lambda: find_links(text), MB, seconds_per_mb=10, what="indented fences")


def test_only_an_img_src_attribute_is_an_image_link() -> None:
    # Vue's bound `:src` (VitePress evaluates it as JavaScript) and `data-src` are no URLs.
    body = (
        '<img src="a.png"> <img :src="`/x-${dark}.png`"> <img v-bind:src="u">'
        ' <img data-src="lazy.png" alt="x"> <img alt="y" src=\'b.png\'>\n'
    )
    assert [r.target for r in find_links(body)] == ["a.png", "b.png"]


def test_an_image_inside_a_link_is_shipped(tmp_path: Path) -> None:
    # [![icon](img/code.svg)Demo](https://...) and a badge linking a page: the image is the
    # page's (Docsify sidebars, READMEs' badges); it was not found, so a catalog kept
    # `assets/img/code.svg` in its body without the file, and deep validation refused it.
    body = "[![Code](img/code.svg)Demo](https://example.org)\n\n[![B](img/b.png)](other.md)\n"
    found = [(link.target, link.image) for link in find_links(body)]
    assert found == [
        ("img/code.svg", True),
        ("https://example.org", False),
        ("img/b.png", True),
        ("other.md", False),
    ]
    root = write_tree(
        tmp_path / "src",
        {
            "page.md": "# Page\n\n" + body,
            "other.md": "# Other\n",
            "img/code.svg": SVG,
            "img/b.png": PNG,
        },
    )
    source = load_markdown_tree(root)
    assert sorted(a.path for a in source.assets) == ["assets/img/b.png", "assets/img/code.svg"]


def test_links_inside_html_comments_are_no_links() -> None:
    # No renderer shows a comment's content: its links and images are not read, also when
    # the comment spans lines; what follows it on the line is read again.
    body = (
        "[a](a.md) <!-- [b](b.md) --> [c](c.md)\n"
        '<!--\n<img src="/images/gone.png">\n[d](d.md)\n-->\n'
        "`<!--` is code, and [e](e.md) a link\n"
    )
    assert [(r.target, r.line) for r in find_links(body)] == [
        ("a.md", 1),
        ("c.md", 1),
        ("e.md", 6),
    ]
