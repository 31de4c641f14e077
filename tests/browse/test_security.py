"""The untrusted-content rules at the HTTP level: headers, sanitised text, assets, paths, Host,
Origin, CSRF, the token of a non-loopback bind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gezel_knowledge.browse import BrowseServer, GuardSettings, Library, check_bind, create_app
from gezel_knowledge.browse._security import CONTENT_SECURITY_POLICY
from gezel_knowledge.cli import main
from gezel_knowledge.errors import InvalidInput
from gezel_knowledge.install import KnowledgeHome
from tests.browse.catalogs import HANDBOOK_KEY, HOSTILE_KEY
from tests.browse.conftest import BASE, PORT

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
    assert headers["referrer-policy"] == "no-referrer"
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
    assert 'id="u-selection-cite"' not in data["html"]  # the forged id is not kept as an id
    assert "forged ids and marks" in data["html"]
    assert 'data-lines="1-1" data-hl' not in data["html"]


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
    ],
)
def test_paths_resolve_only_to_archive_entries(named: TestClient, path: str) -> None:
    response = named.get(path)
    assert response.status_code in (404, 400), (path, response.status_code)
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
