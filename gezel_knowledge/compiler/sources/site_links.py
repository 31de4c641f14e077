"""Which page a link names, by the rules of the generator that publishes the tree.

Two kinds of rule, tried in the generator's order:

- **files**: the target is a source file, relative to the linking page's folder (or to the
  content folder when it starts with ``/``, or DocFX's ``~/``): ``page.md``; ``page`` (any page
  suffix added); ``page.html`` (mdBook and every static export name a page by its HTML file;
  ``index.html`` names its folder's ``README.md`` or ``index.md``); ``folder/`` (its
  ``index.md``, ``README.md`` or ``_index.md``).
- **URLs**: the target is a URL of the published site, relative to the linking page's own URL
  or to the site root (a site path prefix such as mdBook's ``site-url`` or Docusaurus'
  ``baseUrl`` and ``routeBasePath`` is allowed). Each page's URL is computed as its generator
  makes it: MkDocs ``a/b.md`` is ``a/b/`` (``use_directory_urls``) or ``a/b.html``; Hugo pages
  and bundles are ``a/b/``, lowercased, moved by ``slug`` and ``url`` front matter and also found
  by their ``aliases``; Docusaurus drops number prefixes (``01-intro``), honours ``id`` and
  ``slug`` front matter and publishes a folder's ``index``/``README``/same-named page at the
  folder.

A link naming a page file (``.md``, ``.ipynb``, ``.mdx``) is always resolved by the file rules;
any other link by the URL rules first for generators whose links are URLs (MkDocs, Hugo,
Docusaurus, mdBook), then by the file rules. Hugo's ``ref``/``relref`` shortcodes
(``{{< ref "page.md" >}}``) name a file relative to the page, else to the content folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath
from typing import Any

from gezel_knowledge.compiler.generators.base import Generator, LinkStyle
from gezel_knowledge.compiler.text.links import normalise_path

__all__ = ["INDEX_NAMES", "LinkResolver", "normalise_path"]

PAGE_SUFFIXES = (".md", ".markdown", ".mdx", ".ipynb")
INDEX_NAMES = (
    "index.md",
    "README.md",
    "_index.md",
    "index.markdown",
    "readme.md",
    "index.mdx",
    "README.mdx",
)
"""The pages that stand for their folder, in the order they are looked for."""

_INDEX_STEMS = ("index", "readme", "_index")
_NUMBER_PREFIX = re.compile(r"\d+\s*[-_.]+\s*(?=[^-_.\s])")


def _clamped(parts: list[str]) -> str:
    """URL path segments with ``.`` and ``..`` applied, ``..`` at the root dropped."""
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        elif part not in ("", "."):
            out.append(part)
    return "/".join(out)


class LinkResolver:
    """Finds the page a link target names, among ``pages`` (content-relative path -> front
    matter), with a generator's :class:`~gezel_knowledge.compiler.generators.base.LinkStyle`."""

    def __init__(
        self, style: LinkStyle, pages: Mapping[str, Mapping[str, Any]], generator: Generator
    ) -> None:
        self.style = style
        self.generator = generator
        self.pages = set(pages)
        self.urls: dict[str, str] = {}
        self.page_urls: dict[str, str] = {}
        self._names: dict[str, list[str]] | None = None
        """Pages by file name (an index page by its folder's), for Hugo's ``ref`` by name."""
        self.folder_pages: set[str] = set()
        """Pages published at their folder's URL (index pages), whose links resolve from it."""
        for rel in sorted(pages):
            url = generator.page_url(rel, pages[rel])
            self.page_urls[rel] = url.path
            if url.folder:
                self.folder_pages.add(rel)
            self.urls.setdefault(self._key(url.path), rel)
        for rel in sorted(pages):
            for alias in generator.url_aliases(rel, pages[rel]):
                self.urls.setdefault(self._key(alias), rel)

    # ── URLs ──────────────────────────────────────────────────────────────────────────────

    def _key(self, url: str) -> str:
        """A URL path as a lookup key: no leading or trailing ``/``, no ``index.html`` or
        ``.html``, lowercased where the generator lowercases."""
        path = url.split("#", 1)[0].split("?", 1)[0].strip("/")
        for ending in ("index.html", "index.htm"):
            if path == ending or path.endswith("/" + ending):
                path = path[: -len(ending)]
        for ending in (".html", ".htm"):
            if path.endswith(ending):
                path = path[: -len(ending)]
        path = path.strip("/")
        return path.lower() if self.style.lowercase else path

    def _url_lookups(self, page_rel: str, target: str) -> Iterator[str]:
        """The keys a URL target may be found under, from the linking page's URL."""
        if target.startswith("/"):
            path = target.lstrip("/")
            for prefix in self.style.prefixes:
                if path.startswith(prefix) or path + "/" == prefix:
                    yield self._key(path[len(prefix) :])
            yield self._key(path)
            return
        url = self.page_urls.get(page_rel, "")
        if self.style.urls == "directory" or page_rel in self.folder_pages:
            base = url.split("/") if url else []
        else:
            base = url.split("/")[:-1] if url else []
        joined = normalise_path([*base, *target.split("/")])
        if joined is None:
            # A URL's `..` above the site root stays at the root (RFC 3986), as a browser
            # and the generator's link checker resolve it.
            joined = _clamped([*base, *target.split("/")])
        yield self._key(joined)

    # ── files ─────────────────────────────────────────────────────────────────────────────

    @staticmethod
    def file_candidates(base: list[str], target: str) -> list[str]:
        """The content-relative page paths a file target may name, most likely first."""
        rooted = target.startswith(("/", "~/"))
        joined = normalise_path(
            target.removeprefix("~").split("/") if rooted else [*base, *target.split("/")]
        )
        if joined is None:
            return []
        out = [joined] if joined else []
        suffix = PurePosixPath(joined).suffix.lower()
        if suffix in (".html", ".htm"):
            stem = joined[: -len(suffix)]
            if PurePosixPath(stem).name == "index":
                folder = str(PurePosixPath(stem).parent)
                folder = "" if folder == "." else folder
                out += [f"{folder}/{n}" if folder else n for n in INDEX_NAMES]
            out += [stem + s for s in PAGE_SUFFIXES]
        elif suffix not in PAGE_SUFFIXES and joined:
            out += [joined + s for s in PAGE_SUFFIXES]
        out += [f"{joined}/{n}" if joined else n for n in INDEX_NAMES]
        return out

    def _by_files(self, page_rel: str, target: str) -> str | None:
        base = list(PurePosixPath(page_rel).parent.parts)
        candidates = self.file_candidates(base, target)
        # A generator may publish a file under another name (Hugo's _index.en.md).
        candidates += [v for c in candidates for v in self.generator.file_variants(c)]
        found = next((c for c in candidates if c in self.pages), None)
        if found is not None:
            return found
        # Folders the generator also looks file links up from (Docusaurus: the docs folder;
        # a rooted target is rooted there too).
        for folder in self.generator.file_bases(page_rel):
            parts = list(PurePosixPath(folder).parts)
            candidates = self.file_candidates(parts, target.lstrip("/"))
            found = next((c for c in candidates if c in self.pages), None)
            if found is not None:
                return found
        return None

    def _by_urls(self, page_rel: str, target: str) -> str | None:
        if self.style.urls == "files" or self._route_outside_prefixes(target):
            return None
        return next(
            (self.urls[k] for k in self._url_lookups(page_rel, target) if k in self.urls), None
        )

    def _route_outside_prefixes(self, target: str) -> bool:
        """Whether a rooted URL outside every path prefix is one of the site's own routes
        (Docusaurus' home page, ``src/pages/index.js``, at ``/`` while a doc with ``slug: /``
        is at ``/docs/``): it names that route, not the page its unprefixed path would."""
        if not target.startswith("/") or not self.style.prefixes or not self.style.routes:
            return False
        path = target.lstrip("/")
        if any(path.startswith(p) or path + "/" == p for p in self.style.prefixes):
            return False
        fold = str.lower if self.style.lowercase else str
        return fold(self._key(path)) in {fold(r) for r in self.style.routes}

    def is_route(self, page_rel: str, target: str) -> bool:
        """Whether a target no page answers names something else the site publishes
        (:attr:`LinkStyle.routes`, a file of a static folder), so that the generator
        resolves it."""
        routes = self.style.routes
        if target.startswith("/") and self.style.static_roots:
            # A file served from static/ (/upgrades/0.15.0.yaml), whatever its type.
            parts = [p for p in target.split("/") if p]
            if (
                parts
                and ".." not in parts
                and any(root.joinpath(*parts).is_file() for root in self.style.static_roots)
            ):
                return True
        if self._resource(page_rel, target):
            return True
        if not routes:
            return False
        fold = str.lower if self.style.lowercase else str
        exact = {fold(r) for r in routes if not r.endswith("/")}
        below = tuple(fold(r) for r in routes if r.endswith("/"))
        keys = list(self._url_lookups(page_rel, target)) if self.style.urls != "files" else []
        keys += self.file_candidates(list(PurePosixPath(page_rel).parent.parts), target)
        for key in map(fold, keys):
            if key in exact or key.startswith(below) or (key + "/") in below:
                return True
        return False

    def _resource(self, page_rel: str, target: str) -> bool:
        """Whether a URL target names a file that is no page in a folder the generator
        publishes at its path (:attr:`LinkStyle.resource_roots`)."""
        if not self.style.resource_roots or self.style.urls == "files":
            return False
        if PurePosixPath(target).suffix.lower() in (*PAGE_SUFFIXES, ""):
            return False
        if target.startswith("/"):
            parts = [p for p in target.split("/") if p]
        else:
            url = self.page_urls.get(page_rel, "")
            base = url.split("/") if url else []
            if self.style.urls != "directory" and page_rel not in self.folder_pages:
                base = base[:-1]
            parts = (normalise_path([*base, *target.split("/")]) or "").split("/")
        return (
            bool(parts)
            and ".." not in parts
            and "" not in parts
            and any(root.joinpath(*parts).is_file() for root in self.style.resource_roots)
        )

    def _by_name(self, target: str) -> str | None:
        """Hugo's last resort for a ``ref`` of one path segment (``{{< ref "go" >}}``): the
        one page whose file name, or whose folder for an index page, is that name; none when
        no page or several do."""
        name = target.strip("/").lower()
        if not name or "/" in name:
            return None
        if self._names is None:
            self._names = {}
            for rel in sorted(self.pages):
                path = PurePosixPath(rel)
                stem = path.stem.split(".", 1)[0].lower()
                key = path.parent.name.lower() if stem in _INDEX_STEMS else stem
                self._names.setdefault(key, []).append(rel)
        stem = PurePosixPath(name).stem if PurePosixPath(name).suffix in PAGE_SUFFIXES else name
        found = self._names.get(stem, [])
        return found[0] if len(found) == 1 else None

    def resolve(self, page_rel: str, target: str, *, ref: bool = False) -> str | None:
        """The page a link's decoded, fragment-free target names, or ``None``; ``ref`` when
        the target came from a Hugo ``ref``/``relref`` shortcode."""
        if ref:
            return (
                self._by_files(page_rel, target)
                or self._by_files("", "/" + target.lstrip("/"))
                or self._by_urls(page_rel, target)
                or self._by_urls(page_rel, "/" + target.lstrip("/"))
                or self._by_name(target)
            )
        if PurePosixPath(target).suffix.lower() in PAGE_SUFFIXES:
            return self._by_files(page_rel, target)
        return self._by_urls(page_rel, target) or self._by_files(page_rel, target)
