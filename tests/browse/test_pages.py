"""Every page at its stable URL and its JSON twin, over catalogs named by path and installed."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

import gezel_knowledge.browse._catalog_pages as catalog_pages
from gezel_knowledge.browse import GuardSettings, Library
from gezel_knowledge.install import KnowledgeHome
from tests.browse.catalogs import HANDBOOK_KEY, HOSTILE_KEY

HB = f"/c/{HANDBOOK_KEY}"


def _json(client: TestClient, url: str) -> dict:  # type: ignore[type-arg]
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    data = response.json()
    assert isinstance(data, dict)
    return data


class _Listed:
    def __init__(self, row: dict) -> None:  # type: ignore[type-arg]
        self.id = row["id"]


def _topic_documents(client: TestClient, url: str) -> list[_Listed]:
    """A topic's documents then its subtopics' (outline order), through the Topic pages."""
    page = _json(client, url + "?format=json")
    out = [_Listed(d) for d in page["documents"]]
    for child in page["children"]:
        out += _topic_documents(client, child["url"])
    return out


def _html(client: TestClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    return response.text


def test_library_lists_every_catalog_with_its_facts(named: TestClient) -> None:
    data = _json(named, "/library.json")
    assert data == _json(named, "/?format=json")
    cards = {c["key"]: c for c in data["catalogs"]}
    assert set(cards) == {HANDBOOK_KEY, HOSTILE_KEY}
    handbook = cards[HANDBOOK_KEY]
    assert handbook["name"] == "Gezel knowledge handbook"
    assert handbook["documents"] > 5
    assert handbook["passages"] >= handbook["documents"]
    assert handbook["signature"] == "unsigned"
    assert "not signed" in handbook["trust"]
    assert handbook["enabled"] is True
    assert handbook["installed"] is False
    assert "Getting started" in handbook["tags"]
    assert cards[HOSTILE_KEY]["language"] == "nl"
    html = _html(named, "/")
    assert "Gezel knowledge handbook" in html
    assert f'data-key="{HANDBOOK_KEY}"' in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=handbook", {HANDBOOK_KEY}),
        ("q=mallory", {HOSTILE_KEY}),
        ("language=nl", {HOSTILE_KEY}),
        ("tag=Getting+started", {HANDBOOK_KEY}),
        ("q=nothing-like-this", set()),
    ],
)
def test_library_filters_by_text_language_and_tag(
    named: TestClient, query: str, expected: set[str]
) -> None:
    data = _json(named, f"/library.json?{query}")
    assert {c["key"] for c in data["catalogs"]} == expected
    assert data["total"] == 2


def test_catalog_page_has_readme_licence_outline_facts_and_provenance(named: TestClient) -> None:
    data = _json(named, f"{HB}?format=json")
    assert data["catalog"]["key"] == HANDBOOK_KEY
    assert [t["id"] for t in data["outline"]][:2] == ["handbook", "getting-started"]
    assert data["license"]["spdx"]
    assert data["licenseText"]
    assert data["manifest"]["id"] == "gezel-handbook"
    assert data["provenance"]["archiveSha256"]
    assert data["citationPrefix"] == f"knowledge://{HANDBOOK_KEY}/"
    html = _html(named, HB)
    assert 'class="readme prose"' in html
    assert "Outline" in html
    assert "Provenance" in html


def test_topic_page_lists_subtopics_and_documents_in_outline_order(named: TestClient) -> None:
    outline = _json(named, f"{HB}?format=json")["outline"]
    building = next(t for t in outline if t["id"] == "building")
    data = _json(named, building["url"] + "?format=json")
    assert data["topic"]["name"] == building["name"]
    assert data["documents"]
    assert data["total"] == len(data["documents"])
    assert all(d["url"].startswith(f"{HB}/d/") for d in data["documents"])
    nested = next(t for t in outline if t["hasChildren"])
    children = _json(named, nested["url"] + "?format=json")["children"]
    assert children
    assert children[0]["url"].startswith(f"{HB}/t/")
    assert "Documents" in _html(named, building["url"])


def test_document_page_has_body_breadcrumbs_neighbours_and_citations(named: TestClient) -> None:
    url = f"{HB}/d/building/markdown-trees"
    data = _json(named, url + "?format=json")
    assert data["document"]["title"]
    assert data["document"]["id"] == "building/markdown-trees"
    assert data["document"]["citation"] == f"knowledge://{HANDBOOK_KEY}/building/markdown-trees"
    assert [b["id"] for b in data["breadcrumbs"]] == ["building"]
    assert data["previous"] is not None
    assert data["next"] is not None
    # Previous and next are each other's neighbours.
    back = _json(named, data["next"]["url"] + "?format=json")
    assert back["previous"]["id"] == "building/markdown-trees"
    assert data["sections"]
    assert data["sections"][0]["citation"].startswith(
        f"knowledge://{HANDBOOK_KEY}/building/markdown-trees#line="
    )
    assert '<img src="/c/gezel-knowledge/gezel-handbook/assets/' in data["html"]
    html = _html(named, url)
    assert 'rel="next"' in html
    assert 'data-copy="knowledge://' in html
    assert 'data-lines="1-' in html
    assert '<article class="body prose" id="body" lang="en"' in html


def test_a_highlighted_range_marks_its_blocks(named: TestClient) -> None:
    data = _json(named, f"{HB}/d/building/signing?hl=3-3&format=json")
    assert data["highlight"] == [3, 3]
    assert "data-hl" in data["html"]
    assert "data-hl" not in _json(named, f"{HB}/d/building/signing?format=json")["html"]


def test_nearby_page_and_twin(named: TestClient) -> None:
    data = _json(named, f"{HB}/nearby/building/signing?format=json")
    assert data["document"]["id"] == "building/signing"
    assert isinstance(data["nearby"], list)
    assert data["unavailable"] is None
    assert all(h["url"].startswith(f"{HB}/d/") for h in data["nearby"])
    assert "Near" in _html(named, f"{HB}/nearby/building/signing")


def test_search_finds_hits_with_snippets_citations_and_how_found(named: TestClient) -> None:
    data = _json(named, "/search.json?q=sign+catalog+manifest&mode=keyword")
    assert data == _json(named, "/search?q=sign+catalog+manifest&mode=keyword&format=json")
    hit = data["hits"][0]
    assert hit["title"] == "Signing catalogs"
    assert "<mark>" in hit["snippet"]
    assert hit["citation"].startswith(f"knowledge://{HANDBOOK_KEY}/building/signing")
    # Stemmed keyword lists: "sign" finds the title "Signing catalogs" as well as its text.
    assert {f.split(" #")[0] for f in hit["foundBy"]} >= {"title", "keywords"}
    assert hit["url"].startswith(f"{HB}/d/building/signing?hl=")
    html = _html(named, "/search?q=sign+catalog+manifest")
    assert "Found by" in html
    assert "<mark>" in html


def test_search_of_one_catalog_in_each_mode_and_paging(named: TestClient) -> None:
    for mode in ("hybrid", "vector", "keyword"):
        data = _json(named, f"/search.json?q=catalog&mode={mode}&catalog={HANDBOOK_KEY}")
        assert {h["source"] for h in data["hits"]} <= {HANDBOOK_KEY}
    first = _json(named, f"/search.json?q=catalog&mode=keyword&catalog={HANDBOOK_KEY}")
    assert first["more"] is True
    assert len(first["hits"]) == 10
    second = _json(named, f"/search.json?q=catalog&mode=keyword&catalog={HANDBOOK_KEY}&page=2")
    assert second["hits"][0]["position"] == 11
    assert {h["citation"] for h in first["hits"]}.isdisjoint(h["citation"] for h in second["hits"])


def test_search_empty_states_say_what_to_do(named: TestClient) -> None:
    assert "Type a question" in _html(named, "/search")
    assert "Nothing found" in _html(named, "/search?q=xylophonequartz&mode=keyword")
    refused = named.get("/search.json?q=x&mode=nonsense")
    assert refused.status_code == 400
    assert refused.json()["error"]["reason"] == "invalid-mode"


def test_cite_opens_a_reference_at_its_passage(named: TestClient) -> None:
    hit = _json(named, "/search.json?q=sign+catalog&mode=keyword")["hits"][0]
    response = named.get("/cite", params={"ref": hit["citation"]}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == hit["url"]
    ref = f"knowledge://{HANDBOOK_KEY}/building/signing#line=3-4"
    target = named.get(f"/cite?ref={quote(ref)}", follow_redirects=False).headers["location"]
    assert target == f"{HB}/d/building/signing?hl=3-4#hl"
    data = _json(named, f"/cite.json?ref={quote(ref)}")
    assert data["passage"]["kind"] == "lines"
    assert data["url"] == target
    whole = f"knowledge://{HANDBOOK_KEY}/building/signing"
    assert (
        named.get(f"/cite?ref={quote(whole)}", follow_redirects=False).headers["location"]
        == f"{HB}/d/building/signing"
    )


@pytest.mark.parametrize(
    ("ref", "status", "reason"),
    [
        ("knowledge://nobody/nothing/doc", 404, "not-installed"),
        (f"knowledge://{HANDBOOK_KEY}/no-such-document", 404, "document-not-found"),
        (f"knowledge://{HANDBOOK_KEY}/building/signing#page=3", 400, "invalid-reference"),
        ("", 400, "invalid-reference"),
    ],
)
def test_cite_refuses_what_does_not_resolve(
    named: TestClient, ref: str, status: int, reason: str
) -> None:
    response = named.get(f"/cite.json?ref={quote(ref)}")
    assert response.status_code == status
    assert response.json()["error"]["reason"] == reason
    assert named.get(f"/cite?ref={quote(ref)}").status_code == status


def test_memory_page_lists_and_searches_read_only(named: TestClient) -> None:
    data = _json(named, "/memory.json")
    assert data["exists"] is True
    assert len(data["days"]) == 1
    texts = [e["text"] for day in data["entries"] for e in day["entries"]]
    assert "Use only the fine whetstone for sharpening knives." in texts
    found = _json(named, "/memory.json?q=whetstone")
    assert found["hits"]
    assert "whetstone" in found["hits"][0]["snippet"]
    html = _html(named, "/memory")
    assert "&lt;script&gt;" in html
    assert "<script>window.pwned" not in html
    assert 'href="/memory"' in _html(named, "/")


def test_without_memory_the_page_says_so_and_the_nav_leaves_it_out(
    installed: tuple[TestClient, GuardSettings],
) -> None:
    client, _ = installed
    assert _json(client, "/memory.json")["exists"] is False
    assert "no memory index" in _html(client, "/memory")
    assert 'href="/memory"' not in _html(client, "/")


def test_installed_library_shows_enabled_state_and_searches_enabled_catalogs(
    installed: tuple[TestClient, GuardSettings],
) -> None:
    client, _ = installed
    cards = {c["key"]: c for c in _json(client, "/library.json")["catalogs"]}
    assert cards[HANDBOOK_KEY]["installed"] is True
    assert cards[HANDBOOK_KEY]["enabled"] is True
    assert cards[HANDBOOK_KEY]["sizeBytes"] > 0
    hits = _json(client, "/search.json?q=signing+catalogs&mode=keyword")["hits"]
    assert hits
    assert hits[0]["source"] == HANDBOOK_KEY
    assert 'action="/c/gezel-knowledge/gezel-handbook/disable"' in _html(client, "/")


def test_unknown_pages_are_404_with_their_reason(named: TestClient) -> None:
    for url, reason in [
        (f"{HB}/d/no-such-doc?format=json", "document-not-found"),
        (f"{HB}/t/no-such-topic?format=json", "topic-not-found"),
        ("/c/nobody/nothing?format=json", "not-installed"),
    ]:
        response = named.get(url)
        assert response.status_code == 404
        assert response.json()["error"]["reason"] == reason
    assert named.get(f"{HB}/d/no-such-doc").headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    ("url", "status", "reason", "hint"),
    [
        ("/no-such-page", 404, "not-found", "Start from the Library"),
        ("/c/nobody/nothing", 404, "not-installed", "gezel-knowledge install"),
        (f"{HB}/d/no-such-doc", 404, "document-not-found", "another version"),
        (f"{HB}/t/no-such-topic", 404, "topic-not-found", "outline"),
        ("/cite?ref=knowledge%3A%2F%2Fnobody%2Fnothing%2Fdoc", 404, "not-installed", "install"),
        ("/cite?ref=not-a-reference", 400, "invalid-reference", "<code>#line=A-B</code>"),
        (f"{HB}/d/building/signing?hl=x", 400, "invalid-page", None),
        (f"{HB}/assets/nothing.png", 404, "asset-not-found", "declared assets"),
        (f"{HB}/disable", 405, "invalid-input", None),
    ],
)
def test_errors_are_pages_with_their_status_reason_and_next_step(
    named: TestClient, url: str, status: int, reason: str, hint: str | None
) -> None:
    page = named.get(url)
    assert page.status_code == status
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert f"Reason: <code>{reason}</code>" in page.text
    assert '<p class="error" id="error-message">' in page.text
    if hint is not None:
        assert hint in page.text
    twin = named.get(url + ("&" if "?" in url else "?") + "format=json")
    assert twin.status_code == status
    assert twin.headers["content-type"] == "application/json"
    assert twin.json()["error"]["reason"] == reason
    assert twin.json()["status"] == status


def test_an_unexpected_failure_is_a_500_page_without_a_traceback(
    named: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: object, **__: object) -> object:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(Library, "cards", broken)
    page = named.get("/")
    assert page.status_code == 500
    assert "text/html" in page.headers["content-type"]
    assert "Something went wrong" in page.text
    assert "secret internals" not in page.text
    assert "Traceback" not in page.text
    twin = named.get("/library.json")
    assert twin.status_code == 500
    assert twin.json()["error"]["reason"] == "knowledge-error"
    assert "secret internals" in caplog.text  # the log keeps what the page leaves out


def test_topic_pages_list_documents_before_subtopics_a_page_at_a_time(
    named: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = _json(named, f"{HB}/t/inside?format=json")
    assert [d["id"] for d in inside["documents"]] == [
        "format/archive",
        "format/databases",
        "format/vectors",
    ]
    assert [t["id"] for t in inside["children"]] == ["search"]
    html = _html(named, f"{HB}/t/inside")
    assert html.index('id="topic-documents"') < html.index('id="topic-children"')
    monkeypatch.setattr(catalog_pages, "PAGE", 2)
    first = _json(named, f"{HB}/t/inside?format=json")
    assert [d["id"] for d in first["documents"]] == ["format/archive", "format/databases"]
    assert (first["next"], first["total"]) == (2, 3)
    second = _json(named, f"{HB}/t/inside?offset=2&format=json")
    assert [d["id"] for d in second["documents"]] == ["format/vectors"]
    assert second["next"] is None
    assert "Later documents" in _html(named, f"{HB}/t/inside")
    assert "Earlier documents" in _html(named, f"{HB}/t/inside?offset=2")
    catalog = _json(named, f"{HB}?format=json")
    assert [t["id"] for t in catalog["outline"]] == ["handbook", "getting-started"]
    assert (catalog["moreTopics"], catalog["outlineTotal"]) == (2, 5)
    rest = _json(named, f"{HB}?topics=4&format=json")
    assert [t["id"] for t in rest["outline"]] == ["reference"]
    assert "Later topics" in _html(named, HB)


def test_previous_and_next_walk_the_whole_outline_in_order(named: TestClient) -> None:
    listed = [
        d.id
        for topic in _json(named, f"{HB}?format=json")["outline"]
        for d in _topic_documents(named, topic["url"])
    ]
    walked = []
    url: str | None = f"{HB}/d/{quote(listed[0])}"
    while url is not None:
        page = _json(named, url + ("&" if "?" in url else "?") + "format=json")
        walked.append(page["document"]["id"])
        url = page["next"]["url"] if page["next"] else None
    assert walked == listed
    # The glossary is filed under Reference and placed under Getting started by reference: it
    # is met twice, and read in Getting started the first time.
    assert walked.count("reference/glossary") == 2
    inside = _json(named, f"{HB}/d/reference/glossary?in=getting-started&format=json")
    assert inside["topicId"] == "getting-started"
    assert [b["id"] for b in inside["breadcrumbs"]] == ["getting-started"]
    assert inside["next"] is not None
    assert _json(named, f"{HB}/d/reference/glossary?format=json")["topicId"] == "reference"
    assert _json(named, f"{HB}/d/reference/glossary?in=building&format=json")["topicId"] == (
        "reference"
    )
    assert _json(named, f"{HB}/d/{quote(listed[0])}?format=json")["previous"] is None


def test_search_says_when_disabled_catalogs_are_left_out(
    installed: tuple[TestClient, GuardSettings], installed_home: Path
) -> None:
    client, _ = installed
    state = KnowledgeHome(installed_home)
    try:
        state.set_enabled(HOSTILE_KEY, False)
        page = _html(client, "/search?q=xylophonequartz&mode=keyword")
        assert f"1 disabled catalog ({HOSTILE_KEY}) is not searched" in page
        assert _json(client, "/search.json?q=x&mode=keyword")["disabled"] == [HOSTILE_KEY]
        state.set_enabled(HANDBOOK_KEY, False)
        page = _html(client, "/search?q=signing&mode=keyword")
        assert 'id="all-disabled"' in page
        assert "Enable one in the" in page
        one = _json(client, f"/search.json?q=signing&mode=keyword&catalog={HANDBOOK_KEY}")
        assert one["hits"]  # one catalog chosen is searched, enabled or not
        assert one["disabled"] == []
    finally:
        state.set_enabled(HOSTILE_KEY, True)
        state.set_enabled(HANDBOOK_KEY, True)
