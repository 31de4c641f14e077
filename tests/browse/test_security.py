"""The untrusted-content rules at the HTTP level: headers, sanitised text, assets, paths, Host,
Origin, CSRF, the token of a non-loopback bind."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from markupsafe import escape
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gezel_knowledge.browse import BrowseServer, GuardSettings, Library, check_bind, create_app
from gezel_knowledge.browse._security import CONTENT_SECURITY_POLICY
from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install import KnowledgeHome
from gezel_knowledge.opening import open_catalog
from tests.browse.catalogs import BIDI_NAME, HANDBOOK_KEY, HOSTILE_KEY, HOSTILE_SOURCE_URL
from tests.browse.conftest import BASE, PORT, Catalogs

HB = f"/c/{HANDBOOK_KEY}"
HO = f"/c/{HOSTILE_KEY}"
PAGES = [
    "/",
    "/library.json",
    HB,
    f"{HB}/t/building",
    f"{HB}/d/building/markdown-trees",
    f"{HB}/nearby/building/signing",
    "/search?q=catalog",
    "/memory",
    f"{HO}/d/evil",
    "/no-such-page",
]


@pytest.mark.parametrize("url", PAGES)
def test_every_response_carries_the_security_headers(named: TestClient, url: str) -> None:
    headers = named.get(url).headers
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("url", [f"{HO}/d/evil", HO, "/", "/search?q=zanzibar", "/memory"])
def test_hostile_text_reaches_the_page_without_script_handlers_or_foreign_urls(
    named: TestClient, url: str
) -> None:
    html = named.get(url).text
    for pattern in (
        r"<script>window",
        r"<script>alert",
        r"<[a-z][^>]*\son[a-z]+\s*=",
        r"=\"javascript:",
        r"=\"(https?:)?//evil\.example",
        r"url\(",
        r"<iframe",
        r"<form action=\"http",
        r"<object",
        r"<meta http-equiv",
        r"<base ",
        r"<link rel=\"stylesheet\" href=\"http",
        r"<[a-z][^>]*\sstyle=",
        r"data:text/html",
    ):
        assert not re.search(pattern, html), (url, pattern)
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == ['<script src="/static/browse.js" defer>']


def test_hostile_title_is_escaped_and_forged_marks_are_dropped(named: TestClient) -> None:
    data = named.get(f"{HO}/d/evil?format=json").json()
    assert data["document"]["title"].startswith("</title><script>")
    html = named.get(f"{HO}/d/evil").text
    assert "<title>&lt;/title&gt;&lt;script&gt;" in html
    assert 'id="selection-cite"' in html  # the page's own element, once
    assert html.count('id="selection-cite"') == 1
    # Catalog ids live in their own namespace; the renderer's marks cannot be forged.
    assert 'id="selection-cite"' not in data["html"]
    assert "forged ids and marks" in data["html"]
    assert data["html"].count('data-lines="1-1"') == 1  # the heading's own, not the forged one
    assert '<p id="u-selection-cite">forged ids and marks</p>' in data["html"]


def test_an_inert_image_asset_is_served_with_its_type_and_a_sandbox(named: TestClient) -> None:
    html = named.get(f"{HB}/d/building/markdown-trees").text
    src = re.search(r'<img src="([^"]+\.svg)"', html)
    assert src is not None
    response = named.get(src.group(1))
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert "sandbox" in response.headers["content-security-policy"]
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    png = named.get(f"{HB}/assets/building/images/shards.png")
    assert png.status_code == 200
    assert png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")


def test_a_scripted_svg_asset_is_refused(named: TestClient) -> None:
    response = named.get(f"{HO}/assets/images/logo.svg")
    assert response.status_code == 415
    assert "script" not in response.headers["content-type"]
    assert response.headers["content-type"].startswith("text/plain")
    assert b"window.pwned" not in response.content
    assert b"SVG is not inert" in response.content


@pytest.mark.parametrize(
    "path",
    [
        f"{HB}/assets/../manifest.json",
        f"{HB}/assets/%2e%2e/manifest.json",
        f"{HB}/assets/..%2fmanifest.json",
        f"{HB}/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        f"{HB}/assets/%2fetc%2fpasswd",
        f"{HB}/assets/building/images/missing.png",
        f"{HB}/assets/..%2f..%2findex%2frouter.db",
        f"{HB}/d/..%2f..%2f..%2fetc%2fpasswd",
        f"{HB}/d/%2e%2e/%2e%2e/README",
        "/static/..%2f_app.py",
        "/static/%2e%2e/_app.py",
        "/static/..%5c_app.py",
        "/static/browse.js%00",
        f"{HB}/assets/..%5cmanifest.json",
        f"{HB}/assets/building%5c..%5c..%5cmanifest.json",
        f"{HB}/assets/%252e%252e/manifest.json",
        f"{HB}/assets/building/images/shards.png%00.svg",
        f"{HB}/assets/%00.png",
        f"{HB}/d/%00",
        f"{HB}/d/..%5c..%5cetc%5cpasswd",
        f"{HB}/t/..%2f..",
        "/c/..%2f..%2f/x",
        "/memory?day=..%2F..%2Fetc%2Fpasswd",
    ],
)
def test_paths_resolve_only_to_archive_entries(named: TestClient, path: str) -> None:
    response = named.get(path)
    assert response.status_code in (404, 400) or path.startswith("/memory"), path
    assert response.status_code < 500, path
    for leaked in (b"root:", b"SQLite format", b'"formatVersion"', b"def create_app"):
        assert leaked not in response.content


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8766", "127.0.0.1:9999", "localhost.evil.example:8766"]
)
def test_a_foreign_host_is_refused_against_dns_rebinding(named: TestClient, host: str) -> None:
    response = named.get("/", headers={"host": host})
    assert response.status_code == 421
    assert response.headers["content-security-policy"] == "default-src 'none'"


@pytest.mark.parametrize("host", ["127.0.0.1:8766", "localhost:8766", "[::1]:8766"])
def test_loopback_names_are_answered(named: TestClient, host: str) -> None:
    assert named.get("/", headers={"host": host}).status_code == 200


def test_a_foreign_origin_is_refused(named: TestClient) -> None:
    assert named.get("/library.json", headers={"origin": "http://evil.example"}).status_code == 403
    fetch = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "cors"}
    assert named.get("/library.json", headers=fetch).status_code == 403
    navigate = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}
    assert named.get("/cite?ref=x", headers=navigate).status_code == 400  # a link may arrive
    assert named.get("/", headers={"origin": BASE}).status_code == 200


def _toggle(
    client: TestClient, action: str, body: str | None, headers: dict[str, str] | None = None
) -> int:
    response = client.post(
        f"{HB}/{action}",
        content=body or "",
        headers={"content-type": "application/x-www-form-urlencoded", **(headers or {})},
        follow_redirects=False,
    )
    return response.status_code


def test_enable_and_disable_need_a_post_with_the_csrf_token(
    installed: tuple[TestClient, GuardSettings], installed_home: Path
) -> None:
    client, settings = installed
    token = settings.csrf_token()
    state = KnowledgeHome(installed_home)
    assert _toggle(client, "disable", None, {"origin": BASE}) == 403
    assert _toggle(client, "disable", "csrf=wrong", {"origin": BASE}) == 403
    assert _toggle(client, "disable", f"csrf={token}", {"origin": "http://evil.example"}) == 403
    sites = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}
    assert _toggle(client, "disable", f"csrf={token}", sites) == 403
    assert client.get(f"{HB}/disable").status_code == 405
    assert state.catalog(HANDBOOK_KEY).enabled is True
    assert _toggle(client, "disable", f"csrf={token}", {"origin": BASE}) == 303
    assert state.catalog(HANDBOOK_KEY).enabled is False
    assert client.get("/library.json").json()["catalogs"][0]["enabled"] is False
    assert HANDBOOK_KEY not in {
        h["source"] for h in client.get("/search.json?q=catalog&mode=keyword").json()["hits"]
    }
    response = client.post(
        f"{HB}/enable?format=json", headers={"x-csrf-token": token, "origin": BASE}
    )
    assert response.status_code == 200
    assert response.json()["enabled"] is True
    assert state.catalog(HANDBOOK_KEY).enabled is True
    assert f'name="csrf" value="{token}"' in client.get("/").text


def test_catalogs_named_by_path_cannot_be_disabled(named: TestClient) -> None:
    page = named.get("/").text
    assert 'name="csrf"' not in page  # no enable/disable form for them
    token = page.split('data-csrf="')[1].split('"')[0]
    response = named.post(
        f"{HB}/disable?format=json", headers={"x-csrf-token": token, "origin": BASE}
    )
    assert response.status_code == 400
    assert response.json()["error"]["reason"] == "not-installed"


def test_a_non_loopback_bind_needs_a_token(installed_home: Path) -> None:
    for host in ("0.0.0.0", "192.168.1.20", "::", "example.org"):
        with pytest.raises(InvalidInput) as refused:
            check_bind(host, None)
        assert refused.value.reason == "token-required"
    check_bind("127.0.0.1", None)
    check_bind("::1", None)
    check_bind("localhost", None)
    library = Library(home=installed_home)
    with pytest.raises(InvalidInput) as refused:
        BrowseServer(library, host="0.0.0.0", port=0)
    assert refused.value.reason == "token-required"
    library.close()


def test_the_command_refuses_a_non_loopback_bind_without_a_token(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["browse", "--host", "0.0.0.0", "--no-open", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "[token-required]" in err
    assert "--token" in err


def test_with_a_token_every_request_must_carry_it(installed_home: Path) -> None:
    library = Library(home=installed_home)
    settings = GuardSettings("0.0.0.0", PORT, token="s3cret-token")
    base = "http://192.168.1.20:8766"
    with TestClient(create_app(library, settings), base_url=base) as client:
        assert client.get("/").status_code == 401
        assert client.get("/?token=wrong").status_code == 401
        opened = client.get("/search?q=x&token=s3cret-token", follow_redirects=False)
        assert opened.status_code == 303
        assert opened.headers["location"] == "/search?q=x"
        cookie = opened.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        assert client.get("/").status_code == 200  # the cookie now
        client.cookies.clear()
        assert client.get("/").status_code == 401
        bearer = {"authorization": "Bearer s3cret-token"}
        assert client.get("/library.json", headers=bearer).status_code == 200
    library.close()


def test_catalog_text_cannot_forge_a_highlight_or_claim_its_anchor(named: TestClient) -> None:
    plain = named.get(f"{HO}/d/evil?format=json").json()["html"]
    assert "data-hl" not in plain
    assert 'id="hl"' not in plain
    assert 'id="u-hl"' in plain  # the catalog's id="hl", in the catalog's namespace
    assert 'href="#u-hl"' in plain  # and its link to it
    readme = named.get(HO).text
    assert "data-hl" not in readme
    cited = named.get(f"{HO}/d/evil?hl=3-3&format=json").json()["html"]
    assert cited.count('id="hl"') == 1
    assert cited.count("data-hl") == 1
    assert '<div data-lines="3-3" data-hl=""><span id="hl"></span>' in cited


def test_a_source_url_that_is_not_a_web_address_is_shown_as_text(named: TestClient) -> None:
    assert named.get(f"{HO}/d/evil?format=json").json()["document"]["sourceUrl"] == (
        HOSTILE_SOURCE_URL
    )
    html = named.get(f"{HO}/d/evil").text
    assert 'href="javascript' not in html
    assert f"<code>{escape(HOSTILE_SOURCE_URL)}</code>" in html


def test_asset_references_that_climb_out_of_assets_are_dropped(named: TestClient) -> None:
    html = named.get(f"{HO}/d/evil?format=json").json()["html"]
    assert "/assets/.." not in html
    assert "/enable" not in html
    assert 'alt="climb"' in html
    assert not re.search(r"srcset=|<video|<svg|background=|ping=", html)


def test_an_open_right_to_left_override_is_isolated(named: TestClient) -> None:
    for url in ("/", HO, f"{HO}/d/evil", f"{HO}/t/hostile"):
        response = named.get(url)
        if response.status_code == 404:
            continue
        html = response.text
        assert BIDI_NAME in html
        # Every printing of the name is closed by a PDI right after it.
        assert html.count(BIDI_NAME) == html.count(BIDI_NAME + "\u2069"), url
    # The JSON twin carries the name as the catalog wrote it.
    cards = named.get("/library.json").json()["catalogs"]
    assert any(c["name"].endswith(BIDI_NAME) for c in cards)


@pytest.mark.parametrize(
    ("headers", "where"),
    [
        ({"origin": "null"}, "opaque origin"),
        ({"origin": "null", "sec-fetch-site": "same-origin"}, "opaque origin"),
        ({"origin": "http://127.0.0.1:8766.evil.example"}, "Cross-origin"),
        ({"origin": "http://[::1]:9999"}, "Cross-origin"),
        ({"origin": "http://localhost:8766.", "host": "localhost:8766"}, "Cross-origin"),
        ({"sec-fetch-site": "same-site"}, "POST must come from this origin"),
        ({"sec-fetch-site": "none"}, "POST must come from this origin"),
    ],
)
def test_no_foreign_or_opaque_origin_changes_anything(
    installed: tuple[TestClient, GuardSettings], headers: dict[str, str], where: str
) -> None:
    client, settings = installed
    response = client.post(
        f"{HB}/disable",
        content=f"csrf={settings.csrf_token()}",
        headers={"content-type": "application/x-www-form-urlencoded", **headers},
        follow_redirects=False,
    )
    assert response.status_code == 403, headers
    assert where in response.text
    assert client.get("/library.json").json()["catalogs"][0]["enabled"] is True


@pytest.mark.parametrize(
    "host",
    ["localhost.:8766", "127.0.0.1.:8766", "[0:0:0:0:0:0:0:1]:8766", "127.1:8766", "LOCALHOST"],
)
def test_spellings_of_loopback_the_guard_does_not_know_are_refused(
    named: TestClient, host: str
) -> None:
    assert named.get("/", headers={"host": host}).status_code == 421


def test_a_token_never_breaks_the_server_and_never_redirects_away(installed_home: Path) -> None:
    library = Library(home=installed_home)
    token = "s3cret-token-0123456789"
    settings = GuardSettings("0.0.0.0", PORT, token=token)
    assert token not in repr(settings)
    assert settings.token_cookie == f"gezel_browse_token_{PORT}"
    base = "http://192.168.1.20:8766"
    with TestClient(create_app(library, settings), base_url=base) as client:
        for given in ("%C3%A9t%C3%A9", "\u00e9t\u00e9"):
            assert client.get(f"/?token={given}").status_code == 401
        latin = {"authorization": "Bearer \u00e9t\u00e9".encode("latin-1")}
        assert client.get("/", headers=latin).status_code == 401
        cookie = {"cookie": f"{settings.token_cookie}=\u00e9t\u00e9".encode("latin-1")}
        assert client.get("/", headers=cookie).status_code == 401
        for path in ("//evil.example/", "/\\evil.example/", "///evil.example/x"):
            opened = client.get(f"{path}?token={token}", follow_redirects=False)
            assert opened.status_code == 303
            location = opened.headers["location"]
            assert location.startswith("/"), location
            assert not location.startswith(("//", "/\\")), location
        opened = client.get(f"/c/x/%C3%A9?q=1&token={token}", follow_redirects=False)
        assert opened.headers["location"] == "/c/x/%C3%A9?q=1"
        assert token not in opened.headers["location"]
        page = client.get("/", headers={"authorization": f"Bearer {token}"}).text
        assert token not in page  # neither in links nor in the page's JSON address
    library.close()


@pytest.mark.parametrize(
    "token",
    [
        "short",
        "x" * 15,
        "spaces in the token",
        "t\u00f6ken-with-umlaut-1234",
        "semicolon;ends-the-cookie",
        'quote"in-the-token-value',
    ],
)
def test_a_guessable_token_is_refused(token: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_bind("0.0.0.0", token)
    assert refused.value.reason == "token-required"
    assert "16" in refused.value.message
    check_bind("0.0.0.0", "a-token-of-16-ch")
    check_bind("0.0.0.0", "TYLAaBCb7_2gvz7QM5UsmMFRXVz9ydrV")  # what --token auto makes


def test_websockets_are_refused(named: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as closed, named.websocket_connect("/") as socket:
        socket.receive_text()
    assert closed.value.code == 1008


def _declare(manifest: dict, path: str, data: bytes) -> None:  # type: ignore[type-arg]
    files = [f for f in manifest["files"] if f["path"] != path]
    digest = hashlib.sha256(data).hexdigest()
    manifest["files"] = [*files, {"path": path, "sha256": digest, "sizeBytes": len(data)}]


def test_declared_files_resolve_only_inside_the_catalog_folder(
    catalogs: Catalogs, tmp_path: Path
) -> None:
    """A catalog folder whose manifest and files point outside it shows none of what is there,
    even when the manifest gives the outside files' exact sizes and digests."""
    secret = b"SECRET: the contents of a file outside the catalog\n"
    (tmp_path / "secret.txt").write_bytes(secret)
    with open_catalog(catalogs.handbook, cache_dir=catalogs.out / "cache") as opened:
        folder = shutil.copytree(opened.root, tmp_path / "catalog")
    png = (folder / "assets" / "building" / "images" / "shards.png").read_bytes()
    (tmp_path / "outside.png").write_bytes(png)
    manifest_path = folder / "manifest.json"
    manifest_path.chmod(0o644)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["license"]["noticePath"] = "../secret.txt"
    _declare(manifest, "../secret.txt", secret)
    readme = folder / "README.md"
    readme.chmod(0o644)
    readme.unlink()
    readme.symlink_to(tmp_path / "secret.txt")
    _declare(manifest, "README.md", secret)
    image = folder / "assets" / "building" / "images" / "shards.png"
    image.chmod(0o644)
    image.unlink()
    image.symlink_to(tmp_path / "outside.png")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    library = Library([open_catalog(folder)])
    with TestClient(create_app(library, GuardSettings("127.0.0.1", PORT)), base_url=BASE) as c:
        page = c.get(HB)
        assert page.status_code == 200
        assert b"SECRET" not in page.content
        data = c.get(f"{HB}?format=json").json()
        assert data["licenseText"] is None
        assert b"SECRET" not in c.get(f"{HB}?format=json").content
        refused = c.get(f"{HB}/assets/building/images/shards.png")
        assert refused.status_code == 415
        assert b"not the one the catalog's manifest declares" in refused.content
        assert c.get(f"{HB}/assets/building/images/missing.png").status_code == 404
    library.close()


def test_a_filter_chosen_from_an_isolated_option_still_matches(named: TestClient) -> None:
    html = named.get("/").text
    options = re.findall(r'<option value="([^"]*)"', html)
    hostile = next(o for o in options if BIDI_NAME in o)
    assert hostile.endswith("\u2069")  # the page isolated the tag it printed
    found = named.get("/library.json", params={"tag": unescape(hostile)}).json()
    assert [c["key"] for c in found["catalogs"]] == [HOSTILE_KEY]
