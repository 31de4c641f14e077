"""Asset rules shared by the compiler and the verifier (spec section 3.4)."""

from __future__ import annotations

import pytest

from gezel_knowledge.archive.assets import (
    MAX_ASSET_BYTES,
    asset_media_type,
    asset_path_problem,
    asset_problem,
    asset_references,
    catalog_assets_problem,
    sniff_image,
    svg_problem,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 20
GIF = b"GIF89a" + b"\x00" * 20
WEBP = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 8
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'


@pytest.mark.parametrize(
    "path",
    [
        "assets/a.png",
        "assets/diagrams/flow.SVG",
        "assets/x_y-z.1/img.jpeg",
        "assets/" + "/".join(["d"] * 15) + "/f.gif",
        "assets/" + "n" * 128 + ".webp",
    ],
)
def test_valid_asset_paths(path: str) -> None:
    assert asset_path_problem(path) is None


@pytest.mark.parametrize(
    "path",
    [
        "images/a.png",
        "assets/a.bmp",
        "assets/.hidden.png",
        "assets/../a.png",
        "assets/a b.png",
        "assets/a.png/",
        "assets/noext",
        "assets/" + "/".join(["d"] * 16) + "/f.gif",
        "assets/" + "n" * 129 + ".png",
        "assets/" + "d" * 129 + "/f.png",
        "assets/" + "/".join(["d" * 100] * 5) + "/f.png",
        "assets/aux.png",
        "assets/d/CON.svg",
        "assets/lpt1/f.png",
        "assets/nul.txt.png",
    ],
)
def test_invalid_asset_paths(path: str) -> None:
    problem = asset_path_problem(path)
    assert problem is not None
    assert problem.reason == "invalid-asset-path"


def test_media_types_follow_the_extension() -> None:
    assert asset_media_type("assets/a.JPG") == "image/jpeg"
    assert asset_media_type("assets/a.svg") == "image/svg+xml"
    assert asset_media_type("assets/a.txt") is None


@pytest.mark.parametrize(
    ("data", "kind"),
    [(PNG, "png"), (JPEG, "jpeg"), (GIF, "gif"), (WEBP, "webp"), (SVG, "svg"), (b"text", None)],
)
def test_sniffing(data: bytes, kind: str | None) -> None:
    assert sniff_image(data) == kind


def test_svg_after_bom_declaration_comment_and_doctype_is_recognised() -> None:
    data = (
        b'\xef\xbb\xbf<?xml version="1.0"?>\n<!-- made by hand -->\n'
        b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg width="1"></svg>'
    )
    assert sniff_image(data) == "svg"
    # Recognised as an SVG, but the DOCTYPE names an external DTD a viewer may fetch.
    problem = svg_problem(data)
    assert problem is not None
    assert "external DTD" in problem.message
    assert svg_problem(data.replace(b' PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"', b"")) is None


def test_magic_bytes_must_match_the_extension() -> None:
    problem = asset_problem("assets/photo.png", JPEG)
    assert problem is not None
    assert problem.reason == "asset-type-mismatch"
    assert asset_problem("assets/photo.jpg", JPEG) is None


def test_size_limit() -> None:
    problem = asset_problem("assets/big.png", PNG + b"\x00" * MAX_ASSET_BYTES)
    assert problem is not None
    assert problem.reason == "asset-too-large"


@pytest.mark.parametrize(
    ("svg", "why"),
    [
        ("<svg><script>alert(1)</script></svg>", "script"),
        ("<svg><svg:script/></svg>", "script"),
        ("<svg><foreignObject><div/></foreignObject></svg>", "foreignObject"),
        ('<svg onload="x()"></svg>', "event-handler"),
        ('<svg><rect ONCLICK="x()"/></svg>', "event-handler"),
        ('<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>', "entity"),
        ('<?xml-stylesheet href="https://x.test/s.css"?><svg/>', "processing instruction"),
        ("<svg><?php echo 1; ?></svg>", "processing instruction"),
        ('<!DOCTYPE svg SYSTEM "x.dtd"><svg/>', "external DTD"),
        ("<!DOCTYPE svg [<!ATTLIST a href CDATA 'x.svg'>]><svg/>", "internal subset"),
        ('<svg><a href="javascript:alert(1)">x</a></svg>', "javascript"),
        ('<svg><a href="jav&#x61;script:alert(1)">x</a></svg>', "javascript"),
        ('<svg><image href="https://evil.test/x.png"/></svg>', "leaves the file"),
        ('<svg><image xlink:href="other.png"/></svg>', "leaves the file"),
        ('<svg><image href="data:text/html,<b>x</b>"/></svg>', "data:text/html"),
        ("<svg><style>@import url(x.css);</style></svg>", "@import"),
        ("<svg><style>rect{fill:url(https://x.test/p)}</style></svg>", "url()"),
        ('<svg><rect style="fill:url(other.svg#p)"/></svg>', "url()"),
        ("<svg><style>rect{fill:u\\72l(x)}</style></svg>", "escape"),
        ('<svg><a><set attributeName="href" to="https://evil.test/"/></a></svg>', "animation"),
        ('<svg><a><animate attributeName="xlink:href" values="x.svg"/></a></svg>', "animation"),
    ],
)
def test_active_svgs_are_refused(svg: str, why: str) -> None:
    problem = svg_problem(svg.encode())
    assert problem is not None
    assert problem.reason == "unsafe-svg"
    assert why in problem.message


def test_inert_svg_with_internal_references_and_embedded_raster_passes() -> None:
    data = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        b'<defs><linearGradient id="g"/></defs><rect fill="url(#g)"/>'
        b'<use href="#g"/><image xlink:href="data:image/png;base64,iVBORw0KGgo="/>'
        b"<style>rect { fill: url('#g') }</style></svg>"
    )
    assert svg_problem(data) is None
    assert asset_problem("assets/ok.svg", data) is None


def test_an_svg_that_is_not_svg_is_a_type_mismatch() -> None:
    problem = asset_problem("assets/x.svg", b"<html><body/></html>")
    assert problem is not None
    assert problem.reason == "asset-type-mismatch"


def test_catalog_limits() -> None:
    assert catalog_assets_problem([10] * 8192) is None
    too_many = catalog_assets_problem([1] * 8193)
    assert too_many is not None
    assert too_many.reason == "too-many-assets"
    too_big = catalog_assets_problem([8 * 1024 * 1024] * 33)
    assert too_big is not None
    assert too_big.reason == "assets-too-large"


def test_asset_references_outside_code() -> None:
    body = (
        "![a](assets/a.png) and [b](<assets/b.svg>)\n"
        "```\n![no](assets/code.png)\n```\n"
        '<img src="assets/c.gif" alt="c">\n'
        "[ref]: assets/d.webp\n"
        "![a again](assets/a.png)\n"
    )
    assert asset_references(body) == [
        "assets/a.png",
        "assets/b.svg",
        "assets/c.gif",
        "assets/d.webp",
    ]
