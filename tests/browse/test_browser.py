"""End to end in a real browser: the system's Chromium driven by Playwright.

One server (a real socket, ``BrowseServer`` on a free port) and one browser for the module. Every
test listens to the browser's console, dialog and request events: no page may open a dialog,
log an error or a CSP violation, or send a request anywhere but the server. Screenshots are
written to the module's artefacts folder (``tmp_path``), and to ``docs/browse/`` when
``GEZEL_UPDATE_DOCS_SCREENSHOTS=1`` (how the documentation's pictures are made).

Without Chromium at ``/usr/bin/chromium`` (``apt-get install chromium``) or the playwright
package the tests skip saying so, except under ``CI``, where they fail instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from gezel_knowledge.browse import BrowseServer, Library
from gezel_knowledge.install import KnowledgeHome
from tests.browse.catalogs import HANDBOOK_KEY, HOSTILE_KEY, LONG_KEY_DOCUMENT, LONG_TARGET_LINE
from tests.browse.conftest import Catalogs, named_library

CHROMIUM = Path(os.environ.get("GEZEL_CHROMIUM", "/usr/bin/chromium"))
DOCS = Path(__file__).resolve().parents[2] / "docs" / "browse"
VIEWPORT = {"width": 1100, "height": 720}


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401, PLC0415
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


@dataclass
class Events:
    """What the browser reported: dialogs, console messages, requests, page errors."""

    origin: str
    dialogs: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    """Console errors a test expects (the refused SVG's 415), by a fragment of their text."""

    def foreign(self) -> list[str]:
        """Requests that left the server's origin."""
        return [u for u in self.requests if not u.startswith(self.origin + "/")]

    def assert_clean(self) -> None:
        """No dialog, no console error or CSP report, no page error, no foreign request."""
        assert self.dialogs == []
        assert self.errors == []
        errors = [m for m in self.console if m.startswith("error")]
        assert [m for m in errors if not any(a in m for a in self.allowed)] == []
        assert [m for m in self.console if "Content Security Policy" in m] == []
        assert self.foreign() == []


@dataclass
class Session:
    """The module's browser context and server."""

    context: Any
    base: str
    events: Events
    shots: Path
    browser: Any

    def page(self) -> Any:
        page = self.context.new_page()
        page.on("dialog", lambda d: (self.events.dialogs.append(d.message), d.dismiss()))
        page.on(
            "console",
            lambda m: self.events.console.append(f"{m.type}: {m.text} @ {m.location['url']}"),
        )
        page.on("pageerror", lambda e: self.events.errors.append(str(e)))
        return page

    def shot(self, page: Any, name: str, *, docs: bool = True) -> None:
        page.screenshot(path=str(self.shots / f"{name}.png"))
        if docs and os.environ.get("GEZEL_UPDATE_DOCS_SCREENSHOTS") == "1":
            DOCS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(DOCS / f"{name}.png"))


@pytest.fixture(scope="module")
def session(catalogs: Catalogs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """One server and one Chromium for the module."""
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests must run in CI: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    server = BrowseServer(named_library(catalogs), port=0).start()
    base = f"http://127.0.0.1:{server.port}"
    events = Events(base)
    shots = tmp_path_factory.mktemp("screenshots")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        context = browser.new_context(
            viewport=VIEWPORT, base_url=base, permissions=["clipboard-read", "clipboard-write"]
        )
        context.set_default_timeout(10_000)
        context.on("request", lambda r: events.requests.append(r.url))
        try:
            yield Session(context, base, events, shots, browser)
        finally:
            context.close()
            browser.close()
            server.stop()


@pytest.fixture
def page(session: Session) -> Iterator[Any]:
    """A fresh page; the test fails if it saw a dialog, an error or a foreign request."""
    events = session.events
    for seen in (events.dialogs, events.console, events.requests, events.errors, events.allowed):
        seen.clear()
    opened = session.page()
    yield opened
    opened.close()
    session.events.assert_clean()


def test_open_the_library_and_filter_it(session: Session, page: Any) -> None:
    page.goto("/")
    cards = page.locator("#catalogs > li")
    assert cards.count() == 2
    session.shot(page, "library")
    page.fill("#library-filter input[name=q]", "handbook")
    assert page.locator("#catalogs > li:visible").count() == 1
    assert page.locator("#library-count").inner_text() == "1 of 2 catalogs"
    page.fill("#library-filter input[name=q]", "")
    page.select_option("#library-filter select[name=language]", "nl")
    page.click("#library-filter button[type=submit]")  # the server-side filter, no script needed
    page.wait_for_url(re.compile(r"language=nl"))
    assert page.locator("#catalogs > li").count() == 1
    assert page.locator("#catalogs > li").get_attribute("data-key") == HOSTILE_KEY


def test_open_a_catalog_and_expand_its_outline(session: Session, page: Any) -> None:
    page.goto("/")
    page.click(f'#catalogs > li[data-key="{HANDBOOK_KEY}"] h2 a')
    page.wait_for_url(f"**/c/{HANDBOOK_KEY}")
    assert page.locator("main > h1").inner_text() == "Gezel knowledge handbook"
    format_topic = page.locator("#outline > li > details", has_text="Inside a catalog")
    format_topic.locator("summary").click()
    documents = format_topic.locator(".children li.doc a")
    documents.first.wait_for()
    assert documents.count() >= 2
    nested = format_topic.locator(".children details").first
    nested.locator("summary").click()
    nested.locator(".children li.doc a").first.wait_for()
    session.shot(page, "catalog")


def test_read_a_page_and_follow_next_and_previous(session: Session, page: Any) -> None:
    page.goto(f"/c/{HANDBOOK_KEY}")
    topic = page.locator("#outline > li > details", has_text="Building catalogs")
    topic.locator("summary").click()
    topic.locator(".children li.doc a", has_text="Markdown trees").click()
    page.wait_for_url("**/d/building/markdown-trees")
    title = page.locator("h1.doc-title").inner_text()
    assert page.locator("#body h1, #body h2").count() >= 1
    page.locator("nav.pager a[rel=next]").first.click()
    page.wait_for_load_state()
    assert page.locator("h1.doc-title").inner_text() != title
    page.locator("nav.pager a[rel=prev]").first.click()
    page.wait_for_url("**/d/building/markdown-trees")
    assert page.locator("h1.doc-title").inner_text() == title
    session.shot(page, "document")


def test_search_and_click_a_hit_landing_on_the_highlighted_passage(
    session: Session, page: Any
) -> None:
    page.goto("/search")
    page.fill("form.search input[name=q]", "signing key manifest")
    page.check("form.search input[value=keyword]")
    page.click("form.search button[type=submit]")
    page.locator("#hits li.hit").first.wait_for()
    assert page.locator("#hits mark").count() >= 1
    session.shot(page, "search")
    page.locator("#hits a.hit-link").first.click()
    page.wait_for_url(re.compile(r"/d/.+\?hl=\d+-\d+"))
    highlighted = page.locator("#body [data-hl]").first
    highlighted.wait_for()
    assert highlighted.is_visible()
    box = highlighted.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < VIEWPORT["height"]


def test_copy_a_citation_and_open_it_through_cite(session: Session, page: Any) -> None:
    page.goto(f"/c/{HANDBOOK_KEY}/d/building/signing")
    # The page's own citation, then a section's.
    page.locator(".doc-head .cite button.copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == (
        f"knowledge://{HANDBOOK_KEY}/building/signing"
    )
    page.locator(".sections button.copy").first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(f"knowledge://{HANDBOOK_KEY}/building/signing#line=")
    page.goto("/cite?ref=" + quote(copied, safe=""))
    page.wait_for_url(re.compile(r"/d/building/signing\?hl="))
    assert page.locator("#body [data-hl]").count() >= 1
    # A selection of the body is cited by its lines.
    page.evaluate(
        """() => {
        const blocks = document.querySelectorAll('#body p[data-lines]');
        const range = document.createRange();
        range.selectNodeContents(blocks[0]);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        }"""
    )
    bar = page.locator("#selection-cite")
    bar.wait_for()
    lines = page.locator("#body p[data-lines]").first.get_attribute("data-lines")
    start, end = lines.split("-")
    expected = f"#line={start}" if start == end else f"#line={start}-{end}"
    assert page.locator("#selection-citation").inner_text().endswith(expected)
    page.click("#selection-copy")
    assert page.evaluate("navigator.clipboard.readText()").endswith(expected)
    session.shot(page, "cite")


def test_view_an_image_asset(session: Session, page: Any) -> None:
    page.goto(f"/c/{HANDBOOK_KEY}/d/building/markdown-trees")
    image = page.locator("#body img").first
    image.wait_for()
    assert page.evaluate("(img) => img.complete && img.naturalWidth > 0", image.element_handle())
    page.goto(f"/c/{HANDBOOK_KEY}/d/format/databases")
    png = page.locator("#body img").first
    assert page.evaluate("(img) => img.complete && img.naturalWidth > 0", png.element_handle())
    # Opened on its own, the image is a sandboxed document with an opaque origin; Chromium's
    # automatic favicon request from it is then cross-origin and refused. Nothing else may fail.
    session.events.allowed.append(f"NotSameOrigin @ {session.base}/favicon.ico")
    response = page.goto(png.get_attribute("src"))
    assert response.headers["content-type"] == "image/png"
    assert "sandbox" in response.headers["content-security-policy"]


def test_the_memory_page(session: Session, page: Any) -> None:
    page.goto("/memory")
    assert page.locator("section.day li").count() == 3
    page.fill("form.search input[name=q]", "whetstone")
    page.click("form.search button[type=submit]")
    page.locator("ol.hits li").first.wait_for()
    session.shot(page, "memory")


def test_a_hostile_catalog_runs_no_script_and_sends_nothing_away(
    session: Session, page: Any
) -> None:
    # The tampered SVG is refused (415) wherever it is referenced; nothing else may fail.
    session.events.allowed.append("status of 415 (Unsupported Media Type)")
    for url in (
        "/",
        f"/c/{HOSTILE_KEY}",
        f"/c/{HOSTILE_KEY}/d/evil",
        "/search?q=zanzibar+quokka",
        f"/c/{HOSTILE_KEY}/d/plain",
        "/memory",
    ):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for link in page.locator("#body a").all():
            link.hover()
        assert page.evaluate("() => window.pwned === undefined"), url
    page.goto(f"/c/{HOSTILE_KEY}/d/evil")
    session.shot(page, "hostile")
    outline = page.locator("#body img[alt=logo]")
    assert outline.count() == 1
    assert not page.evaluate("(img) => img.naturalWidth > 0", outline.element_handle())
    response = page.goto(f"/c/{HOSTILE_KEY}/assets/images/logo.svg")
    assert response.status == 415
    assert page.evaluate("() => window.pwned === undefined")
    assert session.events.foreign() == []
    assert any("/assets/images/logo.svg" in u for u in session.events.requests)


def _in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and 0 <= box["y"] < VIEWPORT["height"]


def test_a_citation_opens_at_its_passage_far_down_a_long_page(session: Session, page: Any) -> None:
    ref = f"knowledge://{HOSTILE_KEY}/{LONG_KEY_DOCUMENT}#line={LONG_TARGET_LINE}"
    page.goto("/cite?ref=" + quote(ref, safe=""))
    page.wait_for_url(re.compile(rf"/d/{LONG_KEY_DOCUMENT}\?hl={LONG_TARGET_LINE}-"))
    highlighted = page.locator("#body [data-hl]")
    assert highlighted.count() == 1
    assert "the passage to open" in highlighted.inner_text()
    assert page.evaluate("() => window.scrollY") > 2 * VIEWPORT["height"]
    assert _in_view(page, "#body [data-hl]")
    session.shot(page, "long-cite", docs=False)


def test_every_page_reads_and_navigates_without_javascript(session: Session) -> None:
    context = session.browser.new_context(
        viewport=VIEWPORT, base_url=session.base, java_script_enabled=False
    )
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    try:
        page.goto("/")
        page.click(f'#catalogs > li[data-key="{HANDBOOK_KEY}"] h2 a')
        page.wait_for_url(f"**/c/{HANDBOOK_KEY}")
        topic = page.locator("#outline > li > details", has_text="Inside a catalog")
        topic.locator("summary").click()  # a details element opens without script
        topic.locator("a.open-topic").click()
        page.wait_for_url("**/t/inside")
        assert page.locator("#topic-documents li").count() == 3
        page.locator("#topic-documents a", has_text="Databases").click()
        page.wait_for_url("**/d/format/databases")
        page.locator("nav.pager a[rel=next]").first.click()
        page.wait_for_url("**/d/format/vectors")
        page.locator("#nearby a").click()  # the Nearby page is a page of its own
        page.wait_for_url("**/nearby/format/vectors")
        page.goto("/search?q=signing+key+manifest&mode=keyword")
        page.locator("#hits a.hit-link").first.click()
        page.wait_for_url(re.compile(r"/d/.+\?hl=\d+-\d+#hl"))
        ref = f"knowledge://{HOSTILE_KEY}/{LONG_KEY_DOCUMENT}#line={LONG_TARGET_LINE}"
        page.goto("/cite?ref=" + quote(ref, safe=""))
        page.wait_for_url(re.compile(r"#hl$"))
        assert _in_view(page, "#hl")  # the browser scrolled to the passage by itself
        assert page.locator("#body [data-hl]").inner_text().startswith("Paragraph 150")
    finally:
        context.close()
    assert [u for u in requests if not u.startswith(session.base + "/")] == []


def test_errors_say_what_went_wrong_and_what_to_do(session: Session, page: Any) -> None:
    session.events.allowed.append("status of 404 (Not Found)")
    response = page.goto("/cite?ref=" + quote("knowledge://nobody/nothing/page", safe=""))
    assert response.status == 404
    assert page.locator("main > h1").inner_text() == "Not found"
    assert "nobody/nothing" in page.locator("#error-message").inner_text()
    assert "gezel-knowledge install" in page.locator("#next-step").inner_text()
    session.shot(page, "error")
    response = page.goto("/no/such/page")
    assert response.status == 404
    assert "there is no page at /no/such/page" in page.locator("#error-message").inner_text()


@pytest.fixture(scope="module")
def installed_base(installed_home: Path) -> Iterator[str]:
    """A second server, over a home with the handbook and the hostile catalog installed."""
    server = BrowseServer(Library(home=installed_home), port=0).start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


def test_disable_and_enable_from_the_page_and_not_from_another_site(
    session: Session, installed_base: str, installed_home: Path, tmp_path: Path
) -> None:
    context = session.browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    state = KnowledgeHome(installed_home)
    card = f'#catalogs > li[data-key="{HANDBOOK_KEY}"]'
    try:
        page.goto(installed_base + "/")
        page.click(f"{card} form.toggle button")
        page.wait_for_load_state()
        assert state.catalog(HANDBOOK_KEY).enabled is False
        assert "Disabled" in page.locator(f"{card} .state").inner_text()
        # Another site's page that posts the form (with a stolen-looking token) changes nothing.
        token = page.locator("body").get_attribute("data-csrf")
        attacker = _attacker_site(tmp_path, f"{installed_base}/c/{HANDBOOK_KEY}/enable", token)
        try:
            page.goto(attacker.url)
            page.wait_for_load_state("networkidle")
        finally:
            attacker.stop()
        assert state.catalog(HANDBOOK_KEY).enabled is False
        page.goto(installed_base + "/")
        page.click(f"{card} form.toggle button")
        page.wait_for_load_state()
        assert state.catalog(HANDBOOK_KEY).enabled is True
    finally:
        context.close()
    assert dialogs == []


@dataclass
class _Site:
    url: str
    server: Any
    thread: Any

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.server.server_close()


def _attacker_site(folder: Path, action: str, token: str) -> _Site:
    """A page on another origin (localhost, another port) that submits a form to ``action``."""
    import functools  # noqa: PLC0415
    import http.server  # noqa: PLC0415
    import threading  # noqa: PLC0415

    (folder / "index.html").write_text(
        f'<form id="f" method="post" action="{action}"><input name="csrf" value="{token}"></form>'
        "<script>document.getElementById('f').submit()</script>",
        encoding="utf-8",
    )
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return _Site(f"http://localhost:{server.server_address[1]}/index.html", server, thread)
