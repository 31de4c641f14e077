"""Documentation generators' projects: which generator a source folder was written for, where
its pages are, what its configuration says about the catalog, and how it makes URLs.

A source folder is looked at in this order, the first match wins (or the generator
catalog.yaml's ``outline`` names). A folder that is the content folder of a project configured
one or two folders up (``docs/`` of an MkDocs site, ``src/`` of an mdBook, ``content/en`` of a
Hugo site, ``docs/`` of a Docusaurus site) is that project's.

=================  ====================================  ======================================
Generator          Recognised by                         Pages (the content root)
=================  ====================================  ======================================
``mdbook``         ``book.toml``                         ``[book] src`` (default ``src``)
``gitbook``        ``.gitbook.yaml`` or ``SUMMARY.md``   ``.gitbook.yaml`` ``root``
``mkdocs``         ``mkdocs.yml`` / ``mkdocs.yaml``      ``docs_dir`` (default ``docs``)
``jupyter-book``   ``_toc.yml``                          the folder itself
``docfx``          ``docfx.json`` or ``toc.yml``         the folder itself
``docusaurus``     ``docusaurus.config.{js,ts,mjs,cjs}`` the docs plugin's ``path`` (``docs``)
``hugo``           ``hugo.*`` / ``config.*`` + content   ``contentDir`` of the default language
=================  ====================================  ======================================

Configuration is read, never run: YAML with a safe loader (``!!python/name:`` tags are plain
text), TOML and JSON as data, and from a Docusaurus JavaScript config only string literals
(``title: "..."``); whatever needs JavaScript to evaluate is left out.

What the configuration says about the catalog becomes the bottom layer of its metadata
(catalog.yaml and command-line flags win): ``name`` (``site_name``, ``[book] title``,
``title``...), ``description`` (``site_description``, ``[book] description``, a Docusaurus
``tagline``, Hugo ``params.description``), ``language`` (the configured one, else ``en``, which
every generator here defaults to), ``sourceUrl`` (the published site, else the repository),
and ``publisher``: the owner of the repository the configuration links to (GitHub, GitLab,
Codeberg, Bitbucket), else its authors.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal
from urllib.parse import urlsplit

from gezel_knowledge.compiler.anchors import SlugStyle
from gezel_knowledge.compiler.errors import BuildWarning, SourceError, display_path
from gezel_knowledge.compiler.frontmatter import YamlNode, load_yaml, load_yaml_nodes
from gezel_knowledge.compiler.metadata import CatalogMetadata
from gezel_knowledge.compiler.topics import derive_topic_id
from gezk.manifest import Publisher

__all__ = ["GENERATORS", "LinkStyle", "Site", "detect_site"]

GENERATORS = ("mdbook", "gitbook", "mkdocs", "jupyter-book", "docfx", "docusaurus", "hugo")
"""The generators recognised, in the order they are looked for."""

UrlStyle = Literal["files", "directory", "html"]

_FORGES = ("github.com", "gitlab.com", "codeberg.org", "bitbucket.org")
_HUGO_CONFIG_NAMES = ("hugo", "config")
_HUGO_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
_LEVELS_ABOVE = 2
_DOCUSAURUS_CONFIGS = tuple(f"docusaurus.config.{s}" for s in ("js", "ts", "mjs", "cjs"))


@dataclass(frozen=True, slots=True)
class LinkStyle:
    """How a generator turns pages into URLs, so links written as URLs find their pages."""

    urls: UrlStyle = "files"
    """``files``: links name source files only; ``directory``: a page ``a/b.md`` is published
    as ``a/b/`` (relative links resolve from there); ``html``: as ``a/b.html``."""
    slug: SlugStyle = "github"
    lowercase: bool = False
    """Whether URLs are lowercased (Hugo)."""
    prefixes: tuple[str, ...] = ()
    """URL path prefixes of the site (``/mdBook/``, a ``baseUrl``), stripped from root-relative
    links."""
    static_roots: tuple[Path, ...] = ()
    """Folders served at the site root (Hugo and Docusaurus ``static/``), for images."""
    number_prefixes: bool = False
    """Whether ``01-name`` file and folder names lose their number in URLs (Docusaurus)."""


@dataclass(frozen=True, slots=True)
class Site:
    """A documentation generator's project found in a source folder."""

    generator: str
    config: Path | None
    content_root: Path
    metadata: CatalogMetadata
    links: LinkStyle
    outline_file: Path | None = None
    """The outline the generator reads (SUMMARY.md, mkdocs.yml, _toc.yml, toc.yml)."""
    nav: YamlNode | None = None
    """MkDocs' ``nav``, when mkdocs.yml has one."""
    warnings: tuple[BuildWarning, ...] = field(default=())


def detect_site(root: Path, kind: str = "auto") -> Site | None:
    """The generator project at ``root`` (``kind``: ``auto`` or a generator to insist on);
    ``None`` for a plain folder tree, or when ``kind`` asks for a folder outline."""
    if kind == "auto":
        above = _site_above(root)
        if above is not None:
            return above
        for generator in GENERATORS:
            site = _DETECTORS[generator](root, False)
            if site is not None:
                return site
        return None
    if kind not in _DETECTORS:
        return None
    site = _DETECTORS[kind](root, True)
    if site is None:
        raise SourceError(
            f"catalog.yaml asks for the {kind} outline but there is no {_MARKERS[kind]}",
            reason="missing-outline",
        )
    return site


def _site_above(root: Path) -> Site | None:
    """The project whose content folder ``root`` is, configured one or two folders up (a user
    pointing at ``docs/`` of an MkDocs site, ``guide/src`` of an mdBook, ``content/en``)."""
    resolved = root.resolve()
    for parent in list(resolved.parents)[:_LEVELS_ABOVE]:
        for generator in ("mdbook", "mkdocs", "docusaurus", "hugo"):
            try:
                site = _DETECTORS[generator](parent, False)
            except SourceError:
                continue  # a broken configuration above is not this source's business
            if site is not None and site.content_root.resolve() == resolved:
                return site
    return None


# ── reading configuration ────────────────────────────────────────────────────────────────────


def _read_text(path: Path, root: Path) -> str:
    where = display_path(path, root)
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}", reason="unreadable", path=where) from None
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"is not UTF-8 text (byte {exc.start})", reason="invalid-encoding", path=where
        ) from None


def _read_data(path: Path, root: Path) -> dict[str, Any]:
    """A YAML, TOML or JSON configuration file as a mapping (empty when it holds none)."""
    text = _read_text(path, root)
    where = display_path(path, root)
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            data = load_yaml(text, path=where)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(
            f"invalid configuration: {exc}", reason="invalid-config", path=where
        ) from None
    return data if isinstance(data, dict) else {}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _get(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...`` or ``None`` when a step is missing or not a mapping."""
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _string(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def _folder(root: Path, name: str | None, default: str) -> Path:
    """A configured folder below ``root`` (never above it)."""
    text = (name or default).strip().strip("/") or default
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if ".." in parts:
        raise SourceError(f"folder {text!r} leaves the source folder", reason="unsafe-path")
    return root.joinpath(*parts)


def _absolute_url(*candidates: Any) -> str | None:
    for candidate in candidates:
        text = _string(candidate)
        if text and urlsplit(text).scheme in ("http", "https"):
            return text
    return None


def _url_path(url: Any) -> tuple[str, ...]:
    """The path of a site URL (``https://x.org/docs/`` or ``/docs/``) as a link prefix."""
    text = _string(url)
    if text is None:
        return ()
    path = urlsplit(text).path.strip("/")
    return (path + "/",) if path else ()


def _publisher(repository: Any, authors: Any) -> Publisher | None:
    """The owner of a forge repository URL, else the authors named."""
    url = _string(repository)
    if url:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        owner = next((p for p in parts.path.split("/") if p), None)
        if host.endswith(".github.io"):
            owner, host = host.removesuffix(".github.io"), "github.com"
        if owner and (host in _FORGES or host.endswith(".github.io")):
            return Publisher(derive_topic_id(owner), owner, f"https://{host}/{owner}")
    if isinstance(authors, list):
        authors = ", ".join(str(a) for a in authors if a)
    name = _string(re.sub(r"<[^>]+>", "", authors)) if isinstance(authors, str) else None
    return Publisher(derive_topic_id(name), name) if name else None


def _metadata(
    name: Any,
    description: Any = None,
    language: Any = None,
    source_url: str | None = None,
    publisher: Publisher | None = None,
) -> CatalogMetadata:
    return CatalogMetadata(
        name=_string(name),
        description=_string(description),
        language=_string(language) or "en",
        source_url=source_url,
        publisher=publisher,
    )


# ── the generators ───────────────────────────────────────────────────────────────────────────


def _mdbook(root: Path, forced: bool) -> Site | None:
    config = root / "book.toml"
    if not config.is_file():
        return None
    data = _read_data(config, root)
    book = _mapping(data.get("book"))
    html = _mapping(_get(data, "output", "html"))
    content = _folder(root, _string(book.get("src")), "src")
    repository = html.get("git-repository-url")
    summary = content / "SUMMARY.md"
    return Site(
        "mdbook",
        config,
        content,
        _metadata(
            book.get("title"),
            book.get("description"),
            book.get("language"),
            _absolute_url(html.get("site-url"), repository),
            _publisher(repository, book.get("authors")),
        ),
        LinkStyle("html", "mdbook", prefixes=_url_path(html.get("site-url"))),
        outline_file=summary if summary.is_file() else None,
    )


def _gitbook(root: Path, forced: bool) -> Site | None:
    config = root / ".gitbook.yaml"
    summary_name, content = "SUMMARY.md", root
    if config.is_file():
        data = _read_data(config, root)
        content = _folder(root, _string(data.get("root")), ".")
        summary_name = _string(_get(data, "structure", "summary")) or summary_name
    elif not (root / summary_name).is_file():
        return None
    summary = content / summary_name
    book = _read_data(root / "book.json", root) if (root / "book.json").is_file() else {}
    if not summary.is_file() and not forced:
        return None
    return Site(
        "gitbook",
        config if config.is_file() else None,
        content,
        _metadata(book.get("title"), book.get("description"), book.get("language")),
        LinkStyle(),
        outline_file=summary if summary.is_file() else None,
    )


def _mkdocs(root: Path, forced: bool) -> Site | None:
    config = next((root / n for n in ("mkdocs.yml", "mkdocs.yaml") if (root / n).is_file()), None)
    if config is None:
        return None
    text = _read_text(config, root)
    nodes = load_yaml_nodes(text, path=config.name)
    data = _read_data(config, root)
    content = _folder(root, _string(data.get("docs_dir")), "docs")
    if not content.is_dir():
        raise SourceError(
            f"mkdocs docs_dir {display_path(content, root)!r} does not exist",
            reason="missing-file",
            path=config.name,
        )
    nav = nodes.value.get("nav") if isinstance(nodes.value, dict) else None
    theme = data.get("theme")
    language = _get(theme, "language") or _get(theme, "locale") if isinstance(theme, dict) else None
    directory_urls = data.get("use_directory_urls", True) is not False
    repository = data.get("repo_url")
    return Site(
        "mkdocs",
        config,
        content,
        _metadata(
            data.get("site_name"),
            data.get("site_description"),
            language,
            _absolute_url(data.get("site_url"), repository),
            _publisher(repository, data.get("site_author")),
        ),
        LinkStyle(
            "directory" if directory_urls else "html",
            "python-markdown",
            prefixes=_url_path(data.get("site_url")),
        ),
        outline_file=config if nav is not None else None,
        nav=nav,
    )


def _jupyter_book(root: Path, forced: bool) -> Site | None:
    toc = root / "_toc.yml"
    if not toc.is_file():
        return None
    config = root / "_config.yml"
    data = _read_data(config, root) if config.is_file() else {}
    repository = _get(data, "repository", "url")
    return Site(
        "jupyter-book",
        config if config.is_file() else None,
        root,
        _metadata(
            data.get("title"),
            data.get("description"),
            data.get("language") or _get(data, "sphinx", "config", "language"),
            _absolute_url(_get(data, "html", "baseurl"), repository),
            _publisher(repository, data.get("author")),
        ),
        LinkStyle(),
        outline_file=toc,
    )


def _docfx(root: Path, forced: bool) -> Site | None:
    config = root / "docfx.json"
    toc = next((root / n for n in ("toc.yml", "toc.yaml") if (root / n).is_file()), None)
    if not config.is_file() and toc is None:
        return None
    data = _read_data(config, root) if config.is_file() else {}
    meta = _mapping(_get(data, "build", "globalMetadata"))
    return Site(
        "docfx",
        config if config.is_file() else None,
        root,
        _metadata(
            meta.get("_appName") or meta.get("_appTitle"),
            meta.get("_description"),
            meta.get("_lang"),
        ),
        LinkStyle(),
        outline_file=toc,
    )


def _js_string(text: str, key: str, within: str | None = None) -> str | None:
    """The first string literal given to ``key:`` (inside ``within: {...}`` when named)."""
    quoted = r"""\s*:\s*(["'`])((?:(?!\1)[^\\\n]|\\.)*)\1"""
    if within is not None:
        block = re.search(rf"\b{within}\s*:\s*\{{([^{{}}]*)", text)
        if block is None:
            return None
        text = block.group(1)
    match = re.search(rf"(?<![\w.]){key}{quoted}", text)
    return match.group(2) if match and "${" not in match.group(2) else None


def _docusaurus(root: Path, forced: bool) -> Site | None:
    config = next((root / n for n in _DOCUSAURUS_CONFIGS if (root / n).is_file()), None)
    if config is None:
        return None
    text = _read_text(config, root)
    content = _folder(root, _js_string(text, "path", within="docs"), "docs")
    if not content.is_dir():
        if not forced:
            return None
        raise SourceError(
            f"the Docusaurus docs folder {display_path(content, root)!r} does not exist",
            reason="missing-file",
            path=config.name,
        )
    base = _js_string(text, "baseUrl") or "/"
    route = _js_string(text, "routeBasePath", within="docs")
    route = "docs" if route is None else route.strip("/")
    prefixes = tuple(
        dict.fromkeys(
            p
            for p in (
                "/".join(x for x in (base.strip("/"), route) if x) + "/",
                route + "/" if route else "",
            )
            if p and p != "/"
        )
    )
    organization = _js_string(text, "organizationName")
    site_url = _js_string(text, "url")
    return Site(
        "docusaurus",
        config,
        content,
        _metadata(
            _js_string(text, "title"),
            _js_string(text, "tagline"),
            _js_string(text, "defaultLocale"),
            _absolute_url(site_url),
            Publisher(derive_topic_id(organization), organization) if organization else None,
        ),
        LinkStyle(
            "directory",
            prefixes=prefixes,
            static_roots=(root / "static",),
            number_prefixes=True,
        ),
    )


def _hugo_config(root: Path) -> Path | None:
    folders = (root, root / "config" / "_default")
    for folder in folders:
        for name in _HUGO_CONFIG_NAMES:
            for suffix in _HUGO_CONFIG_SUFFIXES:
                if (folder / (name + suffix)).is_file():
                    return folder / (name + suffix)
    return None


def _hugo(root: Path, forced: bool) -> Site | None:
    config = _hugo_config(root)
    data = _read_data(config, root) if config is not None else {}
    language = _string(data.get("defaultContentLanguage")) or "en"
    own = _mapping(_get(data, "languages", language))
    content_dir = _string(own.get("contentDir")) or _string(data.get("contentDir"))
    content = _folder(root, content_dir, "content")
    if config is None or not content.is_dir():
        if not forced:
            return None
        content = content if content.is_dir() else root
    params = {**_mapping(data.get("params")), **_mapping(own.get("params"))}
    repository = params.get("github_repo") or params.get("repository")
    author = params.get("author")
    return Site(
        "hugo",
        config,
        content,
        _metadata(
            own.get("title") or data.get("title"),
            params.get("description"),
            own.get("languageCode") or data.get("languageCode") or language,
            _absolute_url(data.get("baseURL"), repository),
            _publisher(repository, _get(author, "name") if isinstance(author, dict) else author),
        ),
        LinkStyle(
            "directory",
            lowercase=not data.get("disablePathToLower", False),
            prefixes=_url_path(data.get("baseURL")),
            static_roots=(root / "static",),
        ),
    )


_DETECTORS: dict[str, Callable[[Path, bool], Site | None]] = {
    "mdbook": _mdbook,
    "gitbook": _gitbook,
    "mkdocs": _mkdocs,
    "jupyter-book": _jupyter_book,
    "docfx": _docfx,
    "docusaurus": _docusaurus,
    "hugo": _hugo,
}
_MARKERS = {
    "mdbook": "book.toml",
    "gitbook": "SUMMARY.md",
    "mkdocs": "mkdocs.yml",
    "jupyter-book": "_toc.yml",
    "docfx": "toc.yml or docfx.json",
    "docusaurus": "docusaurus.config.js and docs folder",
    "hugo": "Hugo configuration",
}
