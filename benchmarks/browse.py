"""The Knowledge browser's server time on a large catalog, and its search against the library's.

Builds (once, cached under ``--workdir``, the same catalog ``benchmarks/hybrid.py`` builds) a
catalog of ``--chunks`` passages in one shard (200,000 by default: 50,000 documents of four
passages, all in one topic, the worst case for an outline), opens it once, and calls the
browser's ASGI application in this process (no socket and no HTTP client: the figures are the
server's own work, routing, guard, page and template).

Measured warm (every page kind requested once first), in one process, interleaved:

- **first document page**: the first page of a topic reads that topic's document order (kept
  afterwards; a served catalog's outline is read this way on a background thread when the
  server starts, so users meet the warm figures);
- **pages**: the CPU time of one request for the Library, Catalog, Topic (first page of 50,000
  documents), Document (a different random document each time: body, outline breadcrumbs,
  previous and next among 50,000 siblings, citations), the Document's JSON twin, and ``/cite``;
  the goal is every page under 100 ms;
- **body**: rendering and sanitising one long Markdown body (``--body-kib``, 32 KiB of headings,
  paragraphs with links, lists, tables and code), the part of a Document page that grows with
  the document (the benchmark catalog's own bodies are one line);
- **search**: for each query, ``Catalog.search(query, k=10)`` (the library's own search) and
  the browser's ``/search?q=...`` of the same catalog (that search, then snippets and the page),
  alternately; the goal is the browser's median at most 1.2x the library's.

CPU time (``time.process_time``) is what the goals are judged on; the machine's load average is
printed with the figures. ``python benchmarks/browse.py --chunks 20000`` is a quick smoke run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode

import numpy as np

from gezel_knowledge.browse import GuardSettings, Library, create_app
from gezel_knowledge.browse._markdown import LinkMap, render_body
from gezel_knowledge.embedders import HashEmbedder
from gezel_knowledge.opening import open_catalog
from gezel_knowledge.reader import Catalog

PAGE_GOAL_MS = 100.0
SEARCH_GOAL = 1.2


def _hybrid_module() -> Any:
    """``benchmarks/hybrid.py``, whose catalog this benchmark reuses."""
    path = Path(__file__).with_name("hybrid.py")
    spec = importlib.util.spec_from_file_location("bench_hybrid_for_browse", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cpu_ms(call: Callable[[], Any]) -> float:
    started = time.process_time()
    call()
    return 1000 * (time.process_time() - started)


class _Server:
    """Calls an ASGI application directly, on one event loop."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()

    def get(self, url: str) -> int:
        path, _, query = url.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": unquote(path),
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8766")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8766),
        }
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        self.loop.run_until_complete(self.app(scope, receive, send))
        return status[0]

    def close(self) -> None:
        self.loop.close()


def _get(client: _Server, url: str) -> None:
    status = client.get(url)
    if status not in (200, 303):
        raise RuntimeError(f"{url}: {status}")


def _queries(catalog: Catalog, count: int, rng: np.random.Generator) -> list[str]:
    """Two random documents' titles (three words each, the corpus's own frequencies)."""
    total = catalog.list_documents(limit=1).total
    out = []
    for _ in range(count):
        a, b = (int(x) for x in rng.integers(0, total, size=2))
        first = catalog.list_documents(limit=1, offset=a).documents[0].title
        second = catalog.list_documents(limit=1, offset=b).documents[0].title
        out.append(f"{first} {second}")
    return out


def long_body(kib: int) -> str:
    """Markdown of about ``kib`` KiB: sections of prose with links, a list, a table and code."""
    parts: list[str] = []
    n = 0
    while sum(len(p) for p in parts) < kib * 1024:
        n += 1
        parts.append(
            f"## Section {n}\n\nSome prose about part {n}, with a [link](knowledge://p/c/d{n}) "
            "and `code`, long enough to wrap over a few lines of the page as real text does "
            "when it explains something in detail.\n\n- one\n- two\n- three\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('hello')\n```\n"
        )
    return "# A long document\n\n" + "\n".join(parts)


def measure_body(kib: int, repeats: int) -> dict[str, float]:
    """CPU ms of rendering and sanitising a ``kib`` KiB body."""
    body = long_body(kib)
    links = LinkMap(cite=lambda ref: "/cite", asset=lambda path: "/" + path)
    render_body(body, links)
    times = [_cpu_ms(lambda: render_body(body, links)) for _ in range(repeats)]
    return {"kib": kib, "cpu_p50": statistics.median(times), "cpu_max": max(times)}


def measure(catalog: Catalog, queries: int, pages: int) -> dict[str, Any]:
    """Page CPU times and the search ratio on an open catalog."""
    rng = np.random.default_rng(3)
    key = f"{catalog.publisher_id}/{catalog.id}"
    library = Library([catalog])
    app = create_app(library, GuardSettings("127.0.0.1", 8766))
    client = _Server(app)
    out = _measure_pages(client, catalog, key, queries, pages, rng)
    client.close()
    library.close()
    return out


def _measure_pages(  # noqa: PLR0917
    client: _Server,
    catalog: Catalog,
    key: str,
    queries: int,
    pages: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """The measurements of :func:`measure`, through one client."""
    first = time.process_time()
    _get(client, f"/c/{key}/d/{quote(catalog.list_documents(limit=1).documents[0].id)}")
    first_document = 1000 * (time.process_time() - first)
    total = catalog.list_documents(limit=1).total
    ids = [
        catalog.list_documents(limit=1, offset=int(i)).documents[0].id
        for i in rng.integers(0, total, size=pages)
    ]
    kinds: dict[str, Callable[[int], str]] = {
        "library": lambda _: "/",
        "catalog": lambda _: f"/c/{key}",
        "topic": lambda _: f"/c/{key}/t/all",
        "document": lambda i: f"/c/{key}/d/{quote(ids[i])}",
        "document json": lambda i: f"/c/{key}/d/{quote(ids[i])}?format=json",
        "cite": lambda i: "/cite?" + urlencode({"ref": f"knowledge://{key}/{ids[i]}#line=1"}),
    }
    for make in kinds.values():  # warm: connections, outline, templates
        _get(client, make(0))
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for i in range(pages):
        for kind, make in kinds.items():
            times[kind].append(_cpu_ms(lambda make=make, i=i: _get(client, make(i))))  # type: ignore[misc]
    texts = _queries(catalog, queries, rng)
    catalog.search(texts[0], k=10)
    _get(client, "/search?" + urlencode({"q": texts[0], "catalog": key}))
    own: list[float] = []
    browser: list[float] = []
    for n, text in enumerate(texts):
        if n % 2:  # alternate which goes first, so neither always meets a warmer cache
            url = "/search?" + urlencode({"q": text, "catalog": key})
            browser.append(_cpu_ms(lambda url=url: _get(client, url)))  # type: ignore[misc]
            own.append(_cpu_ms(lambda text=text: catalog.search(text, k=10)))  # type: ignore[misc]
            continue
        own.append(_cpu_ms(lambda text=text: catalog.search(text, k=10)))  # type: ignore[misc]
        url = "/search?" + urlencode({"q": text, "catalog": key})
        browser.append(_cpu_ms(lambda url=url: _get(client, url)))  # type: ignore[misc]
    return {
        "first_document_cpu": first_document,
        "pages": {
            kind: {"cpu_p50": statistics.median(v), "cpu_max": max(v)} for kind, v in times.items()
        },
        "search": {
            "library_cpu_p50": statistics.median(own),
            "browser_cpu_p50": statistics.median(browser),
            "ratio_p50": statistics.median(browser) / statistics.median(own),
            "ratio_of_sums": sum(browser) / sum(own),
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Build (or reuse) the catalog, measure, print the table or JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000, help="passages (one shard)")
    parser.add_argument("--pages", type=int, default=40, help="requests per page kind")
    parser.add_argument("--queries", type=int, default=40, help="search queries")
    parser.add_argument("--body-kib", type=int, default=32, help="the long body's size")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/gezel-bench-hybrid"))
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    root = args.workdir / f"c{args.chunks}-s1"
    if not (root / "manifest.json").is_file():
        started = time.perf_counter()
        _hybrid_module().build(root, args.chunks, 1)
        print(f"built {root} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    report: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "chunks": args.chunks,
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }
    with open_catalog(root, embedder=HashEmbedder()) as catalog:
        report.update(measure(catalog, args.queries, args.pages))
    report["body"] = measure_body(args.body_kib, max(5, args.pages // 4))
    report["load_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.chunks:,} passages; load average before {report['load_before']}, "
          f"after {report['load_after']}")  # fmt: skip
    print(f"first document page (its topic's order read): {report['first_document_cpu']:.1f} ms")
    print(f"{'page':14} {'cpu p50 ms':>11} {'cpu max ms':>11}  goal < {PAGE_GOAL_MS:.0f} ms")
    for kind, f in report["pages"].items():
        verdict = "met" if f["cpu_max"] < PAGE_GOAL_MS else "NOT met"
        print(f"{kind:14} {f['cpu_p50']:11.1f} {f['cpu_max']:11.1f}  {verdict}")
    b = report["body"]
    print(f"render a {b['kib']} KiB body: cpu p50 {b['cpu_p50']:.1f} ms, max {b['cpu_max']:.1f} ms")
    s = report["search"]
    verdict = "met" if s["ratio_p50"] <= SEARCH_GOAL else "NOT met"
    print(
        f"search: library {s['library_cpu_p50']:.1f} ms, browser {s['browser_cpu_p50']:.1f} ms "
        f"(cpu p50): {s['ratio_p50']:.2f}x, sums {s['ratio_of_sums']:.2f}x "
        f"(goal <= {SEARCH_GOAL}x: {verdict})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
