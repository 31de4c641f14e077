"""Mintlify: ``docs.json`` (the current configuration) or the older ``mint.json``, in the source
folder or one folder just below it (``docs/`` first); pages are the ``.mdx`` and ``.md`` files
of that folder.

Pages: every ``.mdx``/``.md`` file of the configuration's folder but what Mintlify never
publishes: the ``snippets/`` folder (always snippets, rendered where a page imports them),
hidden folders, ``node_modules``, ``build``, ``dist``, ``coverage``, ``tmp``, ``temp``,
``README.md``, ``LICENSE.md``, ``CHANGELOG.md``, ``CONTRIBUTING.md``, and what the folder's
``.mintignore`` names (``.gitignore`` syntax: a pattern without an inner ``/`` matches at any
depth, a trailing ``/`` names a folder, ``!`` takes a file back).

Navigation (``docs.json``): ``navigation`` holds divisions, read depth first in file order:
``languages`` and ``versions`` (the one marked ``default: true``, else the first; the others
are other sites of the same pages), ``products``, ``tabs``, ``anchors``, ``dropdowns`` and a
tab's ``menu`` (each a section named by its ``product``/``tab``/``anchor``/``dropdown``/``item``),
``groups`` (sections named by ``group``; a group's ``root`` page leads it) and ``pages`` (a page
path from the site root without suffix, or a nested group). A division or group with ``hidden:
true`` is not shown, so its pages are no part of the catalog; nor is a page whose front
matter says ``hidden: true``; with ``seo.indexing: "all"`` (which puts hidden pages in
Mintlify's search) they are, after the navigation. A page whose front matter has a ``url``
(``url: https://docs-ios.example.com``) is a navigation link to another site, never a page
of the catalog. An external ``href``, an OpenAPI endpoint
entry (``GET /users``, ``openapi.yaml POST /pets``, ``webhook ...``) and an ``openapi``
division generate no file and are left out, silently. ``mint.json``: ``navigation`` is a list
of groups; those with a ``version`` other than the first of ``versions`` are another site;
groups whose pages lie below a ``tabs`` entry's ``url`` form that tab's section, after the
others.

Pages no navigation shows are published at their URL but kept out of Mintlify's search and
its assistant's context, so they are no documents of the catalog: a link to one is kept as
written, silently (so is one to a page of another language or version, or to a ``redirects``
source).

API pages: a page whose front matter names an OpenAPI operation (``openapi: GET /users``, or
``openapi: spec.json GET /users``) and that has no text of its own is given the operation's
summary, description, parameters, request body fields and responses, from the file it names,
else the OpenAPI files ``docs.json`` names, else ``openapi.json``/``.yaml`` at the site's root,
else any OpenAPI file of the site (Mintlify uploads them all; the first by path that has the
operation),
as Mintlify renders the page from them; its anchors are Mintlify's to make, so a link to one of
them is not reported.

URLs: a page's path without suffix from the site root (``/quickstart``), an ``index`` page at
its folder too; relative links resolve from the page's folder. Snippets imported with an
absolute (``/snippets/a.mdx``) or relative path are put in the page (:mod:`._mdx`).

Metadata: ``name``, ``description``, the default language (Mintlify's ``cn`` and ``jp`` are
``zh`` and ``ja``), the publisher from a GitHub link of the footer's socials or the navbar.
Anchors are Mintlify's slugs; a component has one too: an accordion or tab its title, a
response field ``param-name``, a parameter field ``kind-name`` (``body-messages``) and
``param-`` with its name in kebab case (``param-on-error`` for ``path="onError"``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, MDX, SCHEME, Context
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators._js_config import file_head, find_config
from gezel_knowledge.compiler.generators._mdx import expand_partials, indented_headings
from gezel_knowledge.compiler.generators._tree import front
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.anchors import slugify
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter

__all__ = ["Mintlify", "operation_markdown"]

_CONFIGS = ("docs.json", "mint.json")
_IGNORED_FOLDERS = frozenset(
    {"node_modules", "build", "dist", "coverage", "tmp", "temp", "snippets"}
)
_IGNORED_FILES = frozenset({"readme.md", "license.md", "changelog.md", "contributing.md"})
# Each division's label key, in the order a node's divisions are read.
_DIVISIONS = (
    ("products", "product"),
    ("tabs", "tab"),
    ("anchors", "anchor"),
    ("dropdowns", "dropdown"),
    ("menu", "item"),
)
_METHOD = re.compile(
    r"^(?:\S+\s+)?(?:get|post|put|patch|delete|head|options|trace|webhook)\s+\S", re.IGNORECASE
)
_LANGUAGES = {"cn": "zh", "jp": "ja", "zh-hans": "zh", "zh-hant": "zh-Hant"}
_MAX_DEPTH = 32
_MAX_PATTERNS = 1000


def _config_in(folder: Path) -> Path | None:
    """A Mintlify configuration in ``folder``: ``docs.json`` (a common name, so it must hold a
    ``navigation``) or ``mint.json``."""
    for name in _CONFIGS:
        file = folder / name
        if not file.is_file():
            continue
        head = file_head(file, 2_000_000)
        if head is None:
            return None
        if b'"navigation"' in head and (name == "mint.json" or b'"name"' in head):
            return file
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _default(entries: list[Any]) -> dict[str, Any] | None:
    """The entry of ``languages`` or ``versions`` marked ``default``, else the first."""
    found = [e for e in entries if isinstance(e, dict)]
    return next((e for e in found if e.get("default") is True), found[0] if found else None)


def _language(data: dict[str, Any]) -> str | None:
    languages = config.get(data, "navigation", "languages")
    chosen = _default(languages) if isinstance(languages, list) else None
    code = _str(chosen.get("language")) if chosen else None
    return _LANGUAGES.get(code.lower(), code) if code else None


def _github(data: dict[str, Any]) -> str | None:
    """A GitHub URL the footer's socials (``docs.json``), ``footerSocials`` (``mint.json``) or
    the navbar name."""
    socials = config.get(data, "footer", "socials") or data.get("footerSocials")
    if isinstance(socials, dict) and _str(socials.get("github")):
        return str(socials["github"])
    if isinstance(socials, list):
        for item in socials:
            if isinstance(item, dict) and item.get("type") == "github" and _str(item.get("url")):
                return str(item["url"])
    links = [
        *(config.get(data, "navbar", "links") or []),
        config.get(data, "navbar", "primary"),
        *(data.get("topbarLinks") or []),
    ]
    for link in links if isinstance(links, list) else ():
        if isinstance(link, dict):
            url = _str(link.get("href")) or _str(link.get("url"))
            if url and "github.com/" in url:
                return url
    return None


# ── the pages ───────────────────────────────────────────────────────────────────────────


def _mintignore(folder: Path, root: Path) -> tuple[Glob, Glob]:
    """The patterns of ``folder/.mintignore`` as globs over content-relative paths: what it
    leaves out and what its ``!`` lines take back."""
    file = folder / ".mintignore"
    if not file.is_file():
        return Glob([]), Glob([])
    try:
        text = config.read_text(file, root)
    except SourceError:
        return Glob([]), Glob([])
    out: list[str] = []
    back: list[str] = []
    for raw in text.splitlines()[:_MAX_PATTERNS]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        into = back if line.startswith("!") else out
        line = line.removeprefix("!")
        folder_only = line.endswith("/")
        line = line.strip("/") if folder_only else line
        if not line:
            continue
        anchored = raw.strip().lstrip("!").startswith("/") or "/" in line
        base = line if anchored else f"**/{line}"
        into.append(f"{base}/**")
        if not folder_only:
            into.append(base)
    return Glob(out), Glob(back)


def _pages(ctx: Context) -> list[str]:
    """The content-relative paths of the pages Mintlify publishes, in path order."""
    ignored, taken_back = _mintignore(ctx.content_root, ctx.source_root)
    out: list[str] = []
    for folder, dirs, files in os.walk(ctx.content_root):  # never follows linked folders
        base = Path(folder)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d.lower() not in _IGNORED_FOLDERS
        )
        for name in sorted(files):
            path = base / name
            if name.startswith(".") or not ctx.is_page(path) or path.is_symlink():
                continue
            rel = ctx.rel(path)
            if "/" not in rel and name.lower() in _IGNORED_FILES:
                continue
            if ignored.match(rel) and not taken_back.match(rel):
                continue
            if ctx.excluded(path):
                continue
            out.append(rel)
    return out


# ── the navigation ──────────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class _Builder:
    ctx: Context
    where: str
    by_path: dict[str, str]
    """Page paths without suffix (and ``a`` for ``a/index``) -> content-relative file."""
    hidden_pages: set[str]
    labels: dict[str, str]
    """Pages' ``sidebarTitle``: the navigation's label for them."""
    placed: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    left_out: set[str] = field(default_factory=set)

    def page(self, into: OutlineSection | None, entry: str) -> None:
        """A ``pages`` entry naming a page (``into`` ``None``: a hidden division's)."""
        entry = entry.strip()
        if not entry or SCHEME.match(entry) or _METHOD.match(entry):
            return  # an external link or an OpenAPI endpoint: no file
        path = entry.split("#", 1)[0].split("?", 1)[0].strip("/")
        stem = str(PurePosixPath(path).with_suffix("")) if path.endswith((".md", ".mdx")) else path
        rel = self.by_path.get(stem)
        if rel is None:
            self.ctx.warn(
                "missing-outline-page",
                f"navigation names {entry!r}, which no page is; left out",
                self.where,
            )
            return
        if into is None or rel in self.hidden_pages:
            self.left_out.add(rel)
            return
        if rel in self.seen:
            return
        self.seen.add(rel)
        self.placed.append(rel)
        label = self.labels.get(rel)
        into.children.append(OutlinePage(rel, label, len(into.children), self.where))

    def section(self, into: OutlineSection | None, label: str, key: str) -> OutlineSection | None:
        if into is None:
            return None
        if not label.strip():
            return into  # an unnamed group's pages belong to its parent
        section = OutlineSection(name=label.strip(), key=key, order=len(into.children))
        into.children.append(section)
        return section

    def node(self, into: OutlineSection | None, node: dict[str, Any], depth: int) -> None:
        """A navigation object: its divisions, groups and pages, in that order."""
        if depth > _MAX_DEPTH:
            return
        if node.get("hidden") is True:
            into = None
        for key in ("languages", "versions"):
            entries = node.get(key)
            if isinstance(entries, list):
                chosen = _default(entries)
                if chosen is not None:
                    self.node(into, chosen, depth + 1)
        for key, label in _DIVISIONS:
            entries = node.get(key)
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict):
                    name = _str(entry.get(label)) or ""
                    hidden = into is None or entry.get("hidden") is True
                    target = None if hidden else self.section(into, name, f"{self.where}:{name}")
                    self.node(target, entry, depth + 1)
        groups = node.get("groups")
        for group in groups if isinstance(groups, list) else ():
            if isinstance(group, dict):
                self.group(into, group, depth + 1)
        pages = node.get("pages")
        if isinstance(pages, list):
            self.pages(into, pages, depth + 1)

    def group(self, into: OutlineSection | None, group: dict[str, Any], depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        name = _str(group.get("group")) or ""
        hidden = into is None or group.get("hidden") is True
        target = None if hidden else self.section(into, name, f"{self.where}:{name}")
        root = _str(group.get("root"))
        if root is not None:
            self.page(target, root)  # the group's own page leads it
        pages = group.get("pages")
        if isinstance(pages, list):
            self.pages(target, pages, depth)

    def pages(self, into: OutlineSection | None, pages: list[Any], depth: int) -> None:
        for entry in pages:
            if isinstance(entry, str):
                self.page(into, entry)
            elif isinstance(entry, dict) and "group" in entry:
                self.group(into, entry, depth + 1)


def _prune(section: OutlineSection) -> bool:
    """Drop the sections holding no page (a tab that is a link, a group of endpoints only);
    whether ``section`` holds one."""
    section.children = [c for c in section.children if isinstance(c, OutlinePage) or _prune(c)]
    return bool(section.children)


def _mint_json(builder: _Builder, root: OutlineSection, data: dict[str, Any]) -> None:
    """``mint.json``: groups of the first version, those below a tab's ``url`` in its section."""
    versions = data.get("versions")
    first = versions[0] if isinstance(versions, list) and versions else None
    version = first.get("name") if isinstance(first, dict) else first
    groups = [g for g in data.get("navigation") or [] if isinstance(g, dict)]
    tabs = [t for t in data.get("tabs") or [] if isinstance(t, dict) and _str(t.get("url"))]

    # Each tab's folder prefix -> the first tab with it: a group's tab is looked up by the
    # folders of its first page, not found by trying every tab for every group (a hostile
    # mint.json of a few thousand groups and tabs would take hours).
    first_tab: dict[str, int] = {}
    for i, tab in enumerate(tabs):
        first_tab.setdefault(str(tab["url"]).strip("/") + "/", i)

    def tab_of(group: dict[str, Any]) -> int | None:
        """The first tab whose ``url`` holds all the group's pages."""
        pages = [p.strip("/") for p in group.get("pages") or [] if isinstance(p, str)]
        if not pages:
            return None
        head, found, at = pages[0], [], pages[0].find("/")
        for _ in range(_MAX_DEPTH):  # the folders holding the first page, 32 deep at most
            if at < 0:
                break
            if head[: at + 1] in first_tab:
                found.append(first_tab[head[: at + 1]])
            at = head.find("/", at + 1)
        for i in sorted(found):
            prefix = str(tabs[i]["url"]).strip("/") + "/"
            if all(p.startswith(prefix) for p in pages):
                return i
        return None

    other = [g for g in groups if g.get("version") not in (None, version)]
    for group in other:
        builder.group(None, group, 0)
    mine = [(g, tab_of(g)) for g in groups if g.get("version") in (None, version)]
    for group, _ in (m for m in mine if m[1] is None):
        builder.group(root, group, 0)
    by_tab: dict[int, list[dict[str, Any]]] = {}
    for group, at_tab in mine:
        if at_tab is not None:
            by_tab.setdefault(at_tab, []).append(group)
    for i, tab in enumerate(tabs):
        name = _str(tab.get("name")) or ""
        section = builder.section(root, name, f"{builder.where}:{name}")
        for group in by_tab.get(i, ()):
            builder.group(section, group, 0)


class Mintlify(Generator):
    """Mintlify (``docs.json`` or ``mint.json``)."""

    name = "mintlify"
    described_as = "a Mintlify site"
    marker = "docs.json or mint.json"
    page_suffixes = (*MARKDOWN_SUFFIXES, MDX)

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = find_config(root, _config_in)
        if file is None:
            return None
        data = config.read_data(file, root)
        redirects = data.get("redirects")
        routes = tuple(
            str(r["source"]).strip("/")
            for r in (redirects if isinstance(redirects, list) else [])[:10_000]
            if isinstance(r, dict) and _str(r.get("source")) and ":" not in str(r["source"])
        )
        return Site(
            Mintlify(_spec_files(data, file.parent, root)),
            file,
            file.parent,
            config.site_metadata(
                data.get("name"),
                data.get("description"),
                _language(data),
                None,
                config.publisher(_github(data), None),
            ),
            LinkStyle("html", slug="mintlify", static_roots=(file.parent,), routes=routes),
            outline_file=file,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a Mintlify site always has its configuration
        data = config.read_data(site.config, ctx.source_root)
        where = display_path(site.config, ctx.source_root)
        pages = _pages(ctx)
        every_page = config.get(data, "seo", "indexing") == "all"
        by_path: dict[str, str] = {}
        hidden: set[str] = set()
        external: set[str] = set()
        labels: dict[str, str] = {}
        for rel in pages:
            stem = str(PurePosixPath(rel).with_suffix(""))
            by_path.setdefault(stem, rel)
            if stem == "index" or stem.endswith("/index"):
                by_path.setdefault(stem.removesuffix("index").rstrip("/"), rel)
            page_front = front(ctx, ctx.content_root / rel)
            if not every_page and page_front.get("hidden") is True:
                hidden.add(rel)
            # `url: https://...`: the navigation entry links another site; no page.
            external_url = page_front.get("url")
            if isinstance(external_url, str) and SCHEME.match(external_url.strip()):
                hidden.add(rel)
                external.add(rel)
            label = config.string(page_front.get("sidebarTitle"))
            if label is not None:
                labels[rel] = label
        builder = _Builder(ctx, where, by_path, hidden, labels)
        root = OutlineSection(name="", key=where)
        navigation = data.get("navigation")
        if isinstance(navigation, dict):
            builder.node(root, navigation, 0)
        elif isinstance(navigation, list):
            _mint_json(builder, root, data)
        _prune(root)
        routes: list[str] = []
        for rel in pages:
            if rel in builder.seen:
                continue
            if every_page and rel not in external:
                builder.seen.add(rel)
                root.children.append(OutlinePage(rel, None, len(root.children), where))
            else:
                stem = str(PurePosixPath(rel).with_suffix(""))
                routes.append(stem)
                if stem == "index" or stem.endswith("/index"):
                    routes.append(stem.removesuffix("index").rstrip("/") or "index")
        return Outline(self.name, root, where, interleaved_root=True, routes=tuple(routes))

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        # `cli/index.mdx` answers at `/cli` and at `/cli/index`.
        path = PurePosixPath(rel)
        return (str(path.with_suffix("")),) if path.stem == "index" else ()

    def __init__(self, specs: tuple[Path, ...] = ()) -> None:
        self._specs = specs
        """The site's OpenAPI files, in the order an API page's operation is looked for."""
        self._parsed: dict[Path, dict[str, Any]] = {}

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        # Snippets: `import X from '/snippets/x.mdx'` (from the site root) or a relative path.
        site_dir = site.config.parent if site.config is not None else within
        body = expand_partials(
            body, folder=page.parent, site=site_dir, within=within.resolve(), rooted=True
        )
        if not body.strip() and site.config is not None:
            body = self._operation_text(page, site.config.parent, within) or body
        if page.suffix.lower() == ".mdx":
            body = indented_headings(body)
        return _component_ids(body)

    def _operation_text(self, page: Path, site_dir: Path, within: Path) -> str | None:
        """The text Mintlify renders for an API page with no text of its own (front matter
        ``openapi: GET /users``, or ``openapi: spec.json GET /users``): the operation's
        summary, description and parameters from the site's OpenAPI file."""
        try:
            text = read_text_file(page, where=display_path(page, within), within=within)
            data = split_front_matter(text, path=display_path(page, within)).data
        except SourceError:
            return None
        value = data.get("openapi")
        if not isinstance(value, str):
            return None
        words = value.split()
        if len(words) < 2 or len(words) > 3:
            return None
        method, route = words[-2].lower(), words[-1]
        specs = self._specs
        if len(words) == 3:
            named = site_dir / words[0].lstrip("/")
            specs = (named, *specs)
        for spec in specs:
            operation = config.get(self._spec(spec, within), "paths", route, method)
            if isinstance(operation, dict):
                return operation_markdown(operation)
        return None

    def _spec(self, file: Path, within: Path) -> dict[str, Any]:
        if file not in self._parsed:
            try:
                parsed = config.read_data(file, within) if file.is_file() else {}
            except SourceError:
                parsed = {}
            self._parsed[file] = parsed
        return self._parsed[file]

    def headings_from_front_matter(self, front: Mapping[str, Any]) -> bool:
        # An API page (`openapi: GET /users`, `api: POST ...`): Mintlify lists the operation's
        # parameters from the OpenAPI file, each with its anchor (`#body-messages`).
        return any(isinstance(front.get(k), str) for k in ("openapi", "api", "asyncapi"))


_SPEC_NAMES = ("openapi.json", "openapi.yaml", "openapi.yml")
_MAX_SPECS = 20
_MAX_FIELDS = 200


def _spec_files(data: dict[str, Any], site_dir: Path, root: Path) -> tuple[Path, ...]:
    """The OpenAPI files a ``docs.json`` names (any ``openapi`` value or ``source`` that is a
    local file), then ``openapi.json``/``.yaml`` at the site's root."""
    found: list[str] = []
    stack: list[Any] = [data]
    while stack and len(found) < _MAX_SPECS:
        value = stack.pop()
        if isinstance(value, dict):
            spec = value.get("openapi")
            if isinstance(spec, dict):
                spec = spec.get("source")
            if isinstance(spec, str):
                found.append(spec)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    files: list[Path] = []
    for name in [*found, *_SPEC_NAMES, *_tree_specs(site_dir)]:
        if SCHEME.match(name) or ".." in PurePosixPath(name).parts:
            continue
        file = site_dir / name.lstrip("/")
        if file.is_file() and file.resolve().is_relative_to(root.resolve()) and file not in files:
            files.append(file)
    return tuple(files)


_SPEC_SUFFIXES = (".json", ".yaml", ".yml")
_SPEC_HEAD = 4096
_MAX_WALKED = 5000
# An OpenAPI document's version key at its top: `"openapi": "3.1.0"`, `openapi: 3.0.0`.
_OPENAPI_KEY = re.compile(r"""^[ \t]*\{?[ \t]*["']?(?:openapi|swagger)["']?[ \t]*:""", re.MULTILINE)


def _tree_specs(site_dir: Path) -> list[str]:
    """The OpenAPI files of the site anywhere (Mintlify uploads every one; a page naming only
    ``METHOD /path`` takes the first match in alphabetical order): paths relative to the site,
    sorted; at most :data:`_MAX_WALKED` folders looked at, each file's head read."""
    out: list[str] = []
    walked = 0
    for folder, dirs, files in os.walk(site_dir):  # never follows linked folders
        walked += 1
        if walked > _MAX_WALKED:
            break
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _IGNORED_FOLDERS)
        for name in files:
            if not name.endswith(_SPEC_SUFFIXES) or len(out) >= _MAX_SPECS:
                continue
            try:
                with open(Path(folder) / name, "rb") as handle:
                    head = handle.read(_SPEC_HEAD).decode("utf-8", "replace")
            except OSError:
                continue
            if _OPENAPI_KEY.search(head):
                out.append((Path(folder) / name).relative_to(site_dir).as_posix())
    return sorted(out)


def operation_markdown(operation: dict[str, Any]) -> str:
    """An OpenAPI operation as the Markdown of its summary, description, parameters, request
    body fields and responses (each field with its description), as Mintlify's API page shows
    them."""
    lines: list[str] = []
    for key in ("summary", "description"):
        text = config.string(operation.get(key))
        if text:
            lines += [text, ""]
    parameters = [p for p in operation.get("parameters") or [] if isinstance(p, dict)]
    if parameters:
        lines += ["## Parameters", ""]
        for param in parameters[:_MAX_FIELDS]:
            name = config.string(param.get("name")) or "?"
            where = config.string(param.get("in")) or ""
            text = config.string(param.get("description")) or ""
            lines.append(f"- `{name}` ({where}): {text}".rstrip(": "))
        lines.append("")
    schema = config.get(operation, "requestBody", "content", "application/json", "schema")
    properties = config.mapping(config.get(schema, "properties"))
    if properties:
        lines += ["## Body", ""]
        for name, field in list(properties.items())[:_MAX_FIELDS]:
            text = config.string(config.get(field, "description")) or ""
            lines.append(f"- `{name}`: {text}".rstrip(": "))
        lines.append("")
    responses = config.mapping(operation.get("responses"))
    for status, response in list(responses.items())[:_MAX_FIELDS]:
        schema = config.get(response, "content", "application/json", "schema")
        fields = config.mapping(
            config.get(schema, "properties") or config.get(schema, "items", "properties")
        )
        text = config.string(config.get(response, "description"))
        if not (fields or text):
            continue
        lines += [f"## Response {status}", ""] + ([text, ""] if text else [])
        for name, field in list(fields.items())[:_MAX_FIELDS]:
            about = config.string(config.get(field, "description")) or ""
            lines.append(f"- `{name}`: {about}".rstrip(": "))
        lines.append("")
    return "\n".join(lines).strip() + "\n" if lines else ""


# A component's opening tag, up to 2,000 characters, no nested tag inside.
_COMPONENT = re.compile(r"<(Accordion|Tab|Update|ParamField|ResponseField)(\s[^<>]{0,2000}?)(/?)>")
_ATTRIBUTE = re.compile(r"""\b([A-Za-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_PARAM_KINDS = ("body", "query", "path", "header", "cookie")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def _component_id(name: str, attributes: str) -> str | None:
    """The anchor Mintlify gives a component: an accordion or a tab its ``title``, an update
    its ``label`` (slugged as headings are), a parameter field ``kind-name``
    (``body-messages``), a response field ``param-name`` (``param-logo-dark`` for
    ``logo.dark``, and its name alone, ``logo-dark``); ``None`` when the tag has its own
    ``id``."""
    found = {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ATTRIBUTE.finditer(attributes)
    }
    if "id" in found:
        return None
    if name in ("Accordion", "Tab", "Update"):
        title = found.get("label" if name == "Update" else "title")
        return slugify(title, "mintlify") if title else None
    if name == "ResponseField":
        field_name = found.get("name")
        return "param-" + slugify(field_name, "mintlify") if field_name else None
    kind = next((k for k in _PARAM_KINDS if k in found), None)
    if kind is None:
        return None
    return f"{kind}-" + slugify(str(found[kind]), "mintlify")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _param_anchor(attributes: str) -> str | None:
    """``param-`` and a parameter field's name in kebab case: its camel-case words split,
    slugged, hyphens at its ends dropped."""
    found = {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ATTRIBUTE.finditer(attributes)
    }
    name = next((found[k] for k in _PARAM_KINDS if k in found), None)
    if not name:
        return None
    words = slugify(_CAMEL.sub("-", str(name)), "mintlify").strip("-")
    return "param-" + words if words else None


def _component_ids(body: str) -> str:
    """``body`` with an ``id`` attribute on each component Mintlify anchors, so links to it
    resolve (fenced code left as written)."""
    if not any(f"<{n}" in body for n in ("Accordion", "Tab", "Update", "ParamField", "Response")):
        return body
    out: list[str] = []
    fence: str | None = None

    def put(match: re.Match[str]) -> str:
        name, attributes, closed = match.groups()
        anchor = _component_id(name, attributes)
        if not anchor:
            return match.group(0)
        tag = f'<{name}{attributes} id="{anchor}"{closed}>'
        # A field is also reached by its name alone (`#api-params` for `api.params`).
        if name == "ResponseField":
            return tag + f'<span id="{anchor[6:]}"></span>'
        # A parameter field is reached as `param-` and its name in kebab case too
        # (`#param-on-error` for `path="onError"`, `#param-max-session-duration` for
        # `--max-session-duration`), as Mintlify's newer pages link them.
        if name == "ParamField":
            kebab = _param_anchor(attributes)
            return tag + f'<span id="{kebab}"></span>' if kebab else tag
        return tag

    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if opened is not None:
            fence = None if fence == opened.group(1) else (fence or opened.group(1))
        elif fence is None and "<" in line:
            out.append(_COMPONENT.sub(put, line))
            continue
        out.append(line)
    return "\n".join(out)
