"""Hugo: ``hugo.*`` or ``config.*`` and the files of ``config/_default/`` (``hugo.yaml``,
``languages.yaml``, ``params.yaml``, ``module.yaml``...), and a content folder.

Content: the default language's (``defaultContentLanguage``, else ``en``) folder: the
``module.mounts`` entry mounting a folder at ``content`` for that language (``content/en``),
else its ``languages.<lang>.contentDir`` (``content.en``), else ``contentDir``, else
``content``. A Markdown file mounted from above the source folder is read only inside the
folder the user names (``--allow-read``), else the build stops naming it (confinement).
Mounts of the site's own folders into the content (or filtering it) replace the default
content mount: the content is the tree they build (:mod:`._hugo_mounts`), each page at its
mounted path.

Navigation: Hugo's section tree, from the home page (``_index.md`` of the content folder):
every top-level folder and every folder with an ``_index.md`` is a section, led by its
``_index.md`` (its section page, always a page); a folder with an ``index.md`` is a leaf
bundle, one page; the pages of other folders belong to the section above them. A section's
pages and subsections share one order, Hugo's default: ``weight`` (unset or 0 last), then
``date`` (newest first), then ``linkTitle`` (else ``title``), then the file path; the home
follows the ``main`` menu and any section a nested side menu (Doks' ``docs``, or ``main``
when pages name a parent in it, as kind's sidebar) where they list its members, grouped
under the parents the configuration defines. The navigation label is ``linkTitle``.
``draft: true`` pages, headless bundles (``headless: true``), pages Hugo does not render
(``build: {render: never}``) and pages of other languages (``page.fr.md``) are left out,
silently, as Hugo publishes none of them. Pages Hugo publishes but lists nowhere
(``build: {list: never}``) and pages without text that a layout fills (``layout: search``,
``type: search``) are routes: left out of the catalog, links to them kept silently.

Metadata: ``title``, ``params.description``, ``languageCode``, ``params.github_repo`` (or
``params.repository``, hugo-book's ``BookRepo``, Geekdoc's ``geekdocRepo``) as the publisher,
else ``params.author``, ``baseURL``; the default language's own ``title`` and ``params``.

Links: URLs (``a/b/``, or ``a/b.html`` with ``uglyURLs``; lowercased unless
``disablePathToLower``; moved by ``slug`` and ``url`` front matter; also found by ``aliases``, a
relative one relative to the page's URL folder; ``permalinks`` per section, ``:year``, ``:month``,
``:day``, ``:section``, ``:sections``, ``:title``, ``:slug``, ``:filename`` and the like),
under ``baseURL``'s path or not;
``ref``/``relref`` shortcodes; files of ``static/``; Hugo's own outputs, taxonomy pages and
files mounted from outside the source folder kept silently; targets built by other shortcodes
kept as written.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._budget import Budget
from gezel_knowledge.compiler.generators._context import Context, pretty
from gezel_knowledge.compiler.generators._hugo_mounts import (
    ContentTree,
    content_mounts,
    content_tree,
)
from gezel_knowledge.compiler.generators._tree import FolderInfo, FolderRules, front
from gezel_knowledge.compiler.generators.base import (
    Generator,
    LinkStyle,
    LinkTarget,
    PageUrl,
    Site,
)
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.metadata.catalog_yaml import TopicDeclaration
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter
from gezel_knowledge.compiler.text.links import normalise_path

__all__ = ["Hugo", "HugoFolders", "hugo_ref", "hugo_sort_key"]

_CONFIG_NAMES = ("hugo", "config")
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
_MAX_DEPTH = 32
_SHORTCODE = re.compile(r"\{\{[<%]")
_GENERATED = ("sitemap.xml", "index.xml", "robots.txt", "llms.txt", "404.html", "index.json")
_TAXONOMIES = {"tag": "tags", "category": "categories"}


def hugo_ref(target: str) -> str | None:
    """The path a Hugo ``ref``/``relref`` shortcode names, or ``None`` when it is none.

    Read by hand in one pass (a regular expression with two lazy runs was quadratic on a long
    unclosed shortcode)."""
    text = target.strip()
    if len(text) < 7 or text[:3] not in ("{{<", "{{%") or text[-3:] not in (">}}", "%}}"):
        return None
    inner = text[3:-3].strip()
    if "{" in inner or "}" in inner:
        return None
    for name in ("relref", "ref"):
        if inner.startswith(name) and inner[len(name) : len(name) + 1].isspace():
            rest = inner[len(name) :].lstrip()
            break
    else:
        return None
    if rest.startswith("path"):
        after = rest[4:].lstrip()
        if after.startswith("="):
            rest = after[1:].lstrip()
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        return rest[1:end] if end > 0 else None
    word = rest.split(None, 1)[0] if rest.strip() else ""
    return word or None


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _weight(data: Mapping[str, Any], where: str) -> int:
    """A page's ``weight`` as Hugo reads it (an integer, or text or a number that is one);
    anything else, or none, is 0: no weight."""
    del where
    weight = data.get("weight", 0)
    if isinstance(weight, bool):
        return 0
    if isinstance(weight, float) and weight.is_integer():
        return int(weight)
    if isinstance(weight, str) and weight.strip().lstrip("+-").isdigit():
        return int(weight.strip()[:12])
    return weight if isinstance(weight, int) and -(2**31) < weight < 2**31 else 0


def _timestamp(value: Any) -> float:
    """A front matter date as seconds since the epoch (0 when there is none)."""
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return moment.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp()
    if isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00")
        try:
            return _timestamp(dt.datetime.fromisoformat(text))
        except ValueError:
            return 0.0
    return 0.0


def hugo_sort_key(weight: int, date: float, link_title: str, path: str) -> tuple[Any, ...]:
    """Hugo's default page order: weight (0 last), newest date, link title, file path."""
    return (weight == 0, weight, -date, link_title.casefold(), link_title, path)


# ── configuration ───────────────────────────────────────────────────────────────────────


def _merge(base: dict[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# Hugo reads its configuration's keys and a page's front matter keys in any case
# (`[Languages.en]`, `linktitle`, `publishdate`); these are the ones read here, by the
# spelling the code uses. Params keep their keys (a theme reads them as it spells them).
_KEYS = {
    k.lower(): k
    for k in (
        "baseURL",
        "build",
        "cascade",
        "contentDir",
        "date",
        "defaultContentLanguage",
        "defaultContentLanguageInSubdir",
        "description",
        "disablePathToLower",
        "draft",
        "enableDefault",
        "expiryDate",
        "goldmark",
        "headless",
        "identifier",
        "lang",
        "languageCode",
        "languages",
        "lastmod",
        "layout",
        "linkTitle",
        "markup",
        "menu",
        "menus",
        "module",
        "mounts",
        "name",
        "pageRef",
        "params",
        "parent",
        "parser",
        "permalinks",
        "publishDate",
        "renderHooks",
        "slug",
        "source",
        "summary",
        "target",
        "taxonomies",
        "title",
        "topicId",
        "type",
        "uglyURLs",
        "url",
        "weight",
        "autoDefinitionTermID",
    )
}


def canonical_keys(data: Any, depth: int = 0) -> Any:
    """``data`` with the keys Hugo reads in any case spelled as :data:`_KEYS` spells them
    (``params`` left as written); a key given twice keeps its first spelling's value."""
    if depth > _MAX_DEPTH:
        return data
    if isinstance(data, list):
        return [canonical_keys(v, depth + 1) for v in data]
    if not isinstance(data, dict):
        return data
    out: dict[Any, Any] = {}
    for key, value in data.items():
        name = _KEYS.get(key.lower(), key) if isinstance(key, str) else key
        kept = value if name == "params" else canonical_keys(value, depth + 1)
        if name not in out:
            out[name] = kept
    return out


def _config_files(root: Path) -> list[Path]:
    """The configuration files Hugo reads, the root file first."""
    found: list[Path] = []
    for name in _CONFIG_NAMES:
        candidates = (root / (name + s) for s in _CONFIG_SUFFIXES)
        hit = next((c for c in candidates if c.is_file()), None)
        if hit is not None:
            found.append(hit)
            break
    folder = root / "config" / "_default"
    if folder.is_dir():
        # Hugo reads the folder's subfolders too (Doks keeps config/_default/menus/menus.en.toml).
        found.extend(
            p
            for p in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).parts)
            # menus.en.toml: the `menus` of one language.
            if p.suffix in _CONFIG_SUFFIXES
            and p.is_file()
            and p.stem.count(".") <= 1
            and not p.is_symlink()
            and len(p.relative_to(folder).parts) <= 3
        )
    return found


def _read_config(root: Path, files: list[Path]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for file in files:
        values = canonical_keys(config.read_data(file, root))
        if file.parent == root or file.stem in _CONFIG_NAMES:
            data = _merge(data, values)
        elif "." in file.stem:
            # config/_default/menus.en.toml holds the `menus` key of the language `en`.
            key, language = file.stem.split(".", 1)
            data = _merge(data, {"languages": {language: {key: values}}})
        else:
            # config/_default/params.yaml holds the `params` key, languages.yaml `languages`...
            data = _merge(data, {file.stem: values})
    return data


def _mounted_content(root: Path, data: Mapping[str, Any], language: str) -> Path | None:
    """The folder ``module.mounts`` mounts at ``content`` for ``language``, if any."""
    mounts = config.get(data, "module", "mounts")
    for mount in mounts if isinstance(mounts, list) else ():
        if not isinstance(mount, dict) or str(mount.get("target", "")).strip("/") != "content":
            continue
        lang = mount.get("lang")
        languages = config.get(mount, "sites", "matrix", "languages")
        if isinstance(lang, str) and lang != language:
            continue
        if isinstance(languages, list) and language not in languages:
            continue
        source = config.string(mount.get("source"))
        if source is None:
            continue
        try:
            folder = config.folder(root, source, "content")
        except SourceError:
            continue  # a mount from outside the source folder is never read
        if folder.is_dir():
            return folder
    return None


def _mounts_above(
    ctx: Context, root: Path, data: Mapping[str, Any], language: str, where: str
) -> dict[str, list[tuple[str, Path]]]:
    """The Markdown files ``module.mounts`` brings into the content from above the source
    folder, by the content folder they land in; a build stops, naming ``--allow-read``,
    when the user has not allowed that folder (nothing above the source is read unless
    named)."""
    found: dict[str, list[tuple[str, Path]]] = {}
    mounts = config.get(data, "module", "mounts")
    for mount in mounts if isinstance(mounts, list) else ():
        target = config.string(mount.get("target")) if isinstance(mount, dict) else None
        source = config.string(mount.get("source")) if isinstance(mount, dict) else None
        if target is None or source is None or not target.startswith("content/"):
            continue
        if ".." not in PurePosixPath(source).parts or not _for_language(mount, language):
            continue
        file = Path(os.path.normpath(root / source))
        if not ctx.readable(file):
            folder = Path(os.path.relpath(file.parent, root)).as_posix()
            raise SourceError(
                f"module.mounts mounts {source} from above the source folder, which is read "
                f"only when named: add --allow-read {folder}",
                reason="missing-input",
                path=where,
            )
        rel = target.removeprefix("content/").strip("/")
        if file.is_file() and file.suffix in (".md", ".markdown"):
            parent = PurePosixPath(rel).parent.as_posix()
            found.setdefault("" if parent == "." else parent, []).append((rel, file))
    return found


def _for_language(mount: Mapping[str, Any], language: str) -> bool:
    """Whether a mount applies to ``language`` (its ``lang`` or ``sites.matrix.languages``)."""
    lang = mount.get("lang")
    languages = config.get(mount, "sites", "matrix", "languages")
    if isinstance(lang, str) and lang != language:
        return False
    return not (isinstance(languages, list) and language not in languages)


# ── navigation ──────────────────────────────────────────────────────────────────────────


@dataclass(slots=True)
class _Item:
    key: tuple[Any, ...]
    node: OutlinePage | OutlineSection
    date: float = 0.0


@dataclass(slots=True)
class _Walk:
    ctx: Context
    other_languages: tuple[str, ...]
    generator: Hugo
    language: str = "en"
    items: list[_Item] = field(default_factory=list)
    routes: list[str] = field(default_factory=list)
    """Published pages that are no catalog page (:attr:`Outline.routes`)."""
    mounted: dict[str, list[tuple[str, Path]]] = field(default_factory=dict)
    """Files mounted from above the source folder, by the content folder they land in:
    folder -> (content path, file)."""
    side_menus: _SideMenus | None = None
    """The site's nested menus other than ``main`` (a theme's sidebar)."""
    taxonomies: frozenset[str] = frozenset()
    """The taxonomies' plural names (``tags``): a content folder of that name holds the
    taxonomy's list and term pages, which Hugo lists by term, not in the section tree."""
    cascade: list[dict[str, Any]] = field(default_factory=list)
    """The ``build`` options sections above pass down (``cascade: {build: ...}``), nearest
    last."""
    tree: ContentTree | None = None
    """The content ``module.mounts`` builds (:mod:`._hugo_mounts`), when the site mounts its
    own folders into it; paths under the content folder are then its content paths."""

    def _rel(self, path: Path) -> str:
        return "" if path == self.ctx.content_root else self.ctx.rel(path)

    def entries(self, folder: Path) -> list[Path]:
        """A folder's entries, sorted by name."""
        if self.tree is None:
            return sorted(folder.iterdir(), key=lambda p: p.name)
        return [folder / name for name in self.tree.names(self._rel(folder))]

    def is_file(self, path: Path) -> bool:
        """Whether ``path`` is a file of the content."""
        if self.tree is None:
            return path.is_file()
        return path.is_relative_to(self.ctx.content_root) and self._rel(path) in self.tree.files

    def is_dir(self, path: Path) -> bool:
        """Whether ``path`` is a folder of the content."""
        if self.tree is None:
            return path.is_dir()
        return path.is_relative_to(self.ctx.content_root) and self.tree.is_folder(self._rel(path))

    def is_link(self, path: Path) -> bool:
        """Whether ``path`` is a symbolic link (the mounted tree holds none)."""
        return self.tree is None and path.is_symlink()

    def real(self, path: Path) -> Path:
        """The file a content path is read from."""
        if self.tree is None or not path.is_relative_to(self.ctx.content_root):
            return path
        return self.tree.files.get(self._rel(path), path)

    def special(self, folder: Path, stem: str) -> Path:
        """A folder's ``index.md`` or ``_index.md`` (``stem``), or the default language's
        own (``_index.en.md``), which Hugo reads as the same page."""
        plain = folder / f"{stem}.md"
        own = folder / f"{stem}.{self.language}.md"
        return own if not self.is_file(plain) and self.is_file(own) else plain

    def route(self, path: Path, data: Mapping[str, Any]) -> None:
        """Record a published page left out of the catalog: its file and its URL."""
        rel = self.ctx.rel(path)
        self.routes.extend((rel, self.generator.page_url(rel, data).path))

    def language_page(self, entry: Path) -> bool:
        """Whether a page is another language's translation (``page.fr.md``)."""
        suffixes = entry.name.split(".")[1:-1]
        return bool(suffixes) and suffixes[-1] in self.other_languages


def _front(ctx: Context, page: Path, walk: _Walk | None = None) -> dict[str, Any]:
    data: dict[str, Any] = canonical_keys(front(ctx, walk.real(page) if walk else page))
    return data


def _filled_by_layout(ctx: Context, page: Path, data: Mapping[str, Any]) -> bool:
    """Whether a page is one a layout fills (``layout: search``, ``type: search``): it names
    a layout or type and has no text of its own."""
    if not (_text(data, "layout") or _text(data, "type")):
        return False
    where = ctx.display(page)
    return not split_front_matter(read_text_file(page, where=where), path=where).body.strip()


def _date(data: Mapping[str, Any]) -> float:
    return _timestamp(data.get("date") or data.get("publishDate") or data.get("lastmod"))


def _key(
    ctx: Context,
    data: Mapping[str, Any],
    path: Path,
    fallback_title: str,
    date: float,
    *,
    rel: str | None = None,
) -> tuple[Any, ...]:
    where = ctx.display(path)
    title = _text(data, "linkTitle") or _text(data, "title") or fallback_title
    return hugo_sort_key(_weight(data, where), date, title, rel or ctx.rel(path))


def _build_option(data: Mapping[str, Any], key: str) -> Any:
    """A page's ``build`` option (``_build`` in older sites): ``render`` or ``list``."""
    build = data.get("build") if isinstance(data.get("build"), dict) else data.get("_build")
    return build.get(key) if isinstance(build, dict) else None


def _cascaded_build(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``build`` options a section's ``cascade`` passes to every page below it (a
    mapping, or list entries without a ``target``); ``None`` when it passes none."""
    cascade = data.get("cascade")
    entries = cascade if isinstance(cascade, list) else [cascade]
    for entry in entries:
        if isinstance(entry, dict) and "target" not in entry and "_target" not in entry:
            build = (
                entry.get("build") if isinstance(entry.get("build"), dict) else entry.get("_build")
            )
            if isinstance(build, dict):
                return build
    return None


def _published(data: Mapping[str, Any]) -> bool:
    """Whether Hugo publishes a page: no draft, no headless bundle, not ``render: never``,
    and not expired before it is published (:func:`_never_current`)."""
    return (
        data.get("draft") is not True
        and data.get("headless") is not True
        and _build_option(data, "render") not in ("never", False)
        and not _never_current(data)
    )


def _never_current(data: Mapping[str, Any]) -> bool:
    """Whether a page expires no later than it is published (``expiryDate`` at or before
    ``publishDate``, else ``date``): Hugo leaves it out whatever day it builds. Other dates
    are kept as if built with ``--buildFuture --buildExpired``: whether Hugo publishes a
    page with a future ``publishDate`` or a past ``expiryDate`` depends on the day it
    builds, and a catalog never depends on the day."""
    expiry = _timestamp(data.get("expiryDate"))
    start = _timestamp(data.get("publishDate") or data.get("date"))
    return bool(expiry) and bool(start) and expiry <= start


def _page(ctx: Context, path: Path, walk: _Walk, rel: str | None = None) -> _Item | None:
    """A page (``rel``: its content path, for a file mounted from above the source)."""
    data = _front(ctx, path, walk)
    if walk.cascade and "build" not in data and "_build" not in data:
        data = {**data, "build": walk.cascade[-1]}  # the nearest section's cascade
    if not _published(data):
        return None  # Hugo leaves it out of a published site, silently
    unlisted = _build_option(data, "list") in ("never", False)
    # `render: link`: no page, but its URL is a link target (the host redirects it).
    file = walk.real(path)
    if unlisted or _build_option(data, "render") == "link" or _filled_by_layout(ctx, file, data):
        if rel is None:
            walk.route(path, data)  # published, but no page of the navigation or the catalog
        return None
    label = _text(data, "linkTitle")
    node = OutlinePage(rel or ctx.rel(path), label, None, ctx.display(file), None)
    # A page with no title sorts by an empty one (Hugo takes no title from a heading).
    date = _date(data)
    return _Item(_key(ctx, data, file, "", date, rel=rel or ctx.rel(path)), node, date)


def _members(
    ctx: Context, folder: Path, walk: _Walk, into: list[_Item], depth: int, *, flatten: bool = True
) -> None:
    """The pages and subsections of ``folder`` that belong to the section being read
    (``flatten``: with the pages of its folders that are no section)."""
    if depth > _MAX_DEPTH:
        return
    for entry in walk.entries(folder):
        name = entry.name
        if name.startswith(".") or ctx.excluded(entry):
            continue
        if walk.is_dir(entry):
            _folder_member(ctx, entry, walk, into, depth, flatten=flatten)
            continue
        if (
            not walk.is_file(entry)
            or not ctx.is_page(entry)
            # Of the files whose name opens with `_`, Hugo reads only _index.md as special
            # (the section's page); any other (_TEMPLATE.md) is an ordinary page.
            or name.split(".", 1)[0] == "_index"
            or entry.stem == "index"
            or walk.language_page(entry)
        ):
            continue
        item = _page(ctx, entry, walk)
        if item is not None:
            into.append(item)
    _mounted_members(ctx, folder, walk, into)


def _folder_member(
    ctx: Context, entry: Path, walk: _Walk, into: list[_Item], depth: int, *, flatten: bool
) -> None:
    """A subfolder of a section: a leaf bundle, a subsection, a taxonomy's folder (routes),
    or a plain folder whose pages belong to the section (``flatten``)."""
    if walk.is_link(entry):
        ctx.warn(
            "symlink-skipped", "is a symbolic link to a folder; not followed", ctx.display(entry)
        )
        return
    if entry.parent == ctx.content_root and entry.name in walk.taxonomies:
        _taxonomy_routes(ctx, entry, walk)
        return
    bundle = walk.special(entry, "index")
    if walk.is_file(bundle):
        item = _page(ctx, bundle, walk)
    elif walk.is_file(walk.special(entry, "_index")):
        item = _section(ctx, entry, walk, depth + 1)
    else:
        # No section page: its pages belong to this section.
        if flatten:
            _members(ctx, entry, walk, into, depth + 1)
        return
    if item is not None:
        into.append(item)


def _taxonomy_routes(ctx: Context, folder: Path, walk: _Walk) -> None:
    """A taxonomy's content folder (``content/tags/``: its own page, a page per term): all
    published, as routes (links to them resolve), none a page of the navigation."""
    if walk.tree is not None:
        here = ctx.rel(folder) + "/"
        pages = [ctx.content_root / r for r in sorted(walk.tree.files) if r.startswith(here)]
    else:
        pages = sorted(folder.rglob("*"))
    for page in pages:
        if walk.is_file(page) and ctx.is_page(page) and not walk.language_page(page):
            data = _front(ctx, page, walk)
            if _published(data):
                walk.route(page, data)


def _mounted_members(ctx: Context, folder: Path, walk: _Walk, into: list[_Item]) -> None:
    """The pages mounted into ``folder`` from above the source folder (the user allowed it)."""
    here = "" if folder == ctx.content_root else ctx.rel(folder)
    for rel, file in walk.mounted.get(here, []):
        item = _page(ctx, file, walk, rel)
        if item is not None:
            into.append(item)


def _ordered(section: OutlineSection, lead: OutlinePage | None, items: list[_Item]) -> None:
    children: list[OutlineSection | OutlinePage] = [lead] if lead is not None else []
    children.extend(i.node for i in sorted(items, key=lambda i: i.key))
    for position, child in enumerate(children):
        child.order = position
    section.children = children


def _section(ctx: Context, folder: Path, walk: _Walk, depth: int) -> _Item | None:
    index = walk.special(folder, "_index")
    has_index = walk.is_file(index)
    data = _front(ctx, index, walk) if has_index else {}
    if data.get("draft") is True:
        return None
    name = folder.name[:1].upper() + folder.name[1:]
    title = _text(data, "linkTitle") or _text(data, "title") or name
    description = _text(data, "description") or _text(data, "summary")
    section = OutlineSection(
        name=title,
        key=ctx.rel(folder) + "/",
        description=description,
        explicit_id=_text(data, "topicId"),
    )
    lead = (
        OutlinePage(
            ctx.rel(index), _text(data, "linkTitle"), None, ctx.display(walk.real(index)), None
        )
        if has_index
        else None
    )
    items: list[_Item] = []
    passed = _cascaded_build(data)
    if passed is not None:
        walk.cascade.append(passed)
    try:
        _members(ctx, folder, walk, items, depth)
    finally:
        if passed is not None:
            walk.cascade.pop()
    if lead is None and not items:
        return None
    _by_side_menus(ctx, walk, items)
    _ordered(section, lead, items)
    path = index if has_index else folder
    # A section with no date of its own is as new as its newest page or subsection.
    date = _date(data) or max((i.date for i in items), default=0.0)
    # An untitled section page sorts by an empty title, as an untitled page does.
    key = _key(ctx, data, walk.real(path), "" if has_index else name, date, rel=ctx.rel(path))
    return _Item(key, section, date)


def _menu_entry(data: Mapping[str, Any], menu: str) -> tuple[int, str] | None:
    """A page's own entry in ``menu`` (front matter ``menu: main``, ``menu: [main]`` or
    ``menu: {main: {weight: 10, name: Docs}}``) as (weight, name); the page's ``weight`` and
    ``linkTitle`` (else ``title``) stand in for what the entry leaves out."""
    value = data.get("menu", data.get("menus"))
    listed = value == menu or (isinstance(value, list) and menu in value)
    entry = value.get(menu) if isinstance(value, dict) else None
    if not listed and not (isinstance(value, dict) and menu in value):
        return None
    fields = entry if isinstance(entry, dict) else {}
    if _text(fields, "parent"):
        return None  # a child entry: shown under its parent, not in the top navigation
    weight = _weight(fields, "") if "weight" in fields else _weight(data, "")
    name = _text(fields, "name") or _text(data, "linkTitle") or _text(data, "title") or ""
    return weight, name


def _config_menu(data: Mapping[str, Any], menu: str, language: str) -> dict[str, tuple[int, str]]:
    """The configuration's ``menus.<menu>`` entries that name a page (``pageRef``), the
    language's own first (``languages.en.menus``, ``menus.en.toml``), by the content path they
    name (``docs``), as (weight, name)."""
    own = config.get(data, "languages", language)
    entries = (
        config.get(own, "menus", menu)
        or config.get(own, "menu", menu)
        or config.get(data, "menus", menu)
        or config.get(data, "menu", menu)
    )
    out: dict[str, tuple[int, str]] = {}
    for entry in entries if isinstance(entries, list) else ():
        ref = config.string(entry.get("pageRef")) if isinstance(entry, dict) else None
        # A child entry (`parent: more`) is shown under its parent, not in the top navigation.
        if ref is not None and isinstance(entry, dict) and not _text(entry, "parent"):
            key = ref.strip("/").removesuffix("/_index.md").removesuffix(".md").lower()
            out.setdefault(key, (_weight(entry, ""), _text(entry, "name") or ""))
    return out


@dataclass(frozen=True, slots=True)
class _SideMenus:
    """The nested menus other than ``main`` (Doks' ``docs`` menu: first-level entries in the
    configuration with an ``identifier`` and a ``url``, pages below them by front matter
    ``menu: {docs: {parent: prologue, weight: 20}}``), which themes show as the sidebar."""

    names: frozenset[str]
    targets: Mapping[str, tuple[int, str]]
    """Configuration entries by the content path they name (``docs/prologue``)."""
    parents: Mapping[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    """Configuration entries by (menu, ``identifier``): the parents pages name, whose own
    place in the menu comes before their children's."""


def _menu_path(ref: str, data: Mapping[str, Any]) -> str | None:
    """The content path a menu entry's ``pageRef`` or site-relative ``url`` names."""
    if "://" in ref or ref.startswith(("#", "mailto:")):
        return None
    path = ref.split("#", 1)[0].strip("/")
    for prefix in config.url_path(data.get("baseURL")):
        path = path.removeprefix(prefix.strip("/")).strip("/")
    return path.removesuffix("/_index.md").removesuffix(".md").lower() or None


def _side_menus(data: Mapping[str, Any], language: str) -> _SideMenus | None:
    """The configuration's nested menus other than ``main``: those where an entry names a
    ``parent``, or whose entries' identifiers pages name as their parent (a flat menu such
    as a footer orders nothing)."""
    own = config.get(data, "languages", language)
    menus = {
        **config.mapping(config.get(data, "menu")),
        **config.mapping(config.get(data, "menus")),
        **config.mapping(config.get(own, "menu")),
        **config.mapping(config.get(own, "menus")),
    }
    names: set[str] = set()
    targets: dict[str, tuple[int, str]] = {}
    parents: dict[tuple[str, str], tuple[int, str]] = {}
    for name, entries in menus.items():
        if not isinstance(entries, list):
            continue
        fields = [e for e in entries if isinstance(e, dict)]
        if not any(_text(e, "identifier") or _text(e, "parent") for e in fields):
            continue
        names.add(str(name))
        for entry in fields:
            key = (_weight(entry, ""), _text(entry, "name") or "")
            if _text(entry, "identifier"):
                parents.setdefault((str(name), _text(entry, "identifier") or ""), key)
            if name == "main":
                continue  # the main menu orders the home (_by_main_menu), not sections
            ref = config.string(entry.get("pageRef")) or config.string(entry.get("url"))
            path = _menu_path(ref, data) if ref else None
            if path is not None:
                targets.setdefault(path, key)
    return _SideMenus(frozenset(names), targets, parents) if names else None


def _side_entry(data: Mapping[str, Any], menus: _SideMenus) -> tuple[Any, ...] | None:
    """A page's own nested entry in a side menu (``menu: {docs: {parent: p}}``) as its menu
    sort key: its parent's place in the menu when the configuration defines that parent,
    then its own (weight, name; the page's ``weight`` and ``linkTitle``, else ``title``,
    stand in)."""
    value = data.get("menu", data.get("menus"))
    for name in sorted(menus.names):
        fields = value.get(name) if isinstance(value, dict) else None
        if isinstance(fields, dict) and _text(fields, "parent"):
            weight = _weight(fields, "") if "weight" in fields else _weight(data, "")
            label = _text(fields, "name") or _text(data, "linkTitle") or _text(data, "title")
            parent = menus.parents.get((name, _text(fields, "parent") or ""))
            own = _menu_key((weight, label or ""))
            return (*_menu_key(parent), *own) if parent is not None else own
    return None


def _by_side_menus(ctx: Context, walk: _Walk, items: list[_Item]) -> None:
    """Order a section's pages and subsections as the site's side menu does where it lists
    any of them (its configuration entries naming a subsection, its pages' own entries under
    a parent): menu entries first in the menu's order, the rest after in the default order."""
    menus = walk.side_menus
    if menus is None:
        return
    entries: list[tuple[Any, ...] | None] = []
    for item in items:
        rel, lead = _item_files(ctx, walk, item)
        own = _side_entry(_front(ctx, lead, walk), menus) if walk.is_file(lead) else None
        target = menus.targets.get(_item_path(walk, rel).lower())
        entries.append(own or (_menu_key(target) if target is not None else None))
    _order_by_entries(items, entries)


def _item_files(ctx: Context, walk: _Walk, item: _Item) -> tuple[str, Path]:
    """An item's content path (a section's folder) and the file whose front matter is its."""
    node = item.node
    if isinstance(node, OutlineSection):
        rel = node.key.rstrip("/")
        return rel, walk.special(ctx.content_root / rel, "_index")
    return node.path, ctx.content_root / node.path


def _item_path(walk: _Walk, rel: str) -> str:
    """The path a menu names an item by: a bundle or page without ``index``/suffix."""
    path = PurePosixPath(rel)
    stem = path.stem.removesuffix("." + walk.language)
    return path.parent.as_posix() if stem == "index" else path.with_name(stem).as_posix()


def _order_by_entries(items: list[_Item], entries: list[tuple[Any, ...] | None]) -> None:
    """Items with a menu entry (its sort key, :func:`_menu_key`) first, in the menu's order;
    the others after, as they were."""
    if not any(entries):
        return
    keyed = [
        ((0, *entry) if entry else (1, *item.key), item)
        for entry, item in zip(entries, items, strict=True)
    ]
    keyed.sort(key=lambda pair: pair[0])
    for position, (_, item) in enumerate(keyed):
        item.key = (position,)


def _menu_key(entry: tuple[int, str]) -> tuple[Any, ...]:
    """Hugo's menu order: weight (0 last), then name."""
    weight, name = entry
    return (weight == 0, weight, name.casefold(), name)


def _by_main_menu(
    ctx: Context, walk: _Walk, items: list[_Item], configured: dict[str, tuple[int, str]]
) -> None:
    """Order the home's pages and sections as the ``main`` menu does, where it lists any of
    them: themes show that menu as the site's top navigation (Docsy's navbar). The entries
    come first in the menu's order, then the rest in Hugo's default order."""
    entries: list[tuple[Any, ...] | None] = []
    for item in items:
        rel, lead = _item_files(ctx, walk, item)
        own = _menu_entry(_front(ctx, lead, walk), "main") if walk.is_file(lead) else None
        entry = own or configured.get(_item_path(walk, rel).lower())
        entries.append(_menu_key(entry) if entry is not None else None)
    _order_by_entries(items, entries)


def _root(
    ctx: Context, walk: _Walk, site_config: Mapping[str, Any] | None = None
) -> tuple[OutlineSection, TopicDeclaration | None]:
    folder = ctx.content_root
    index = walk.special(folder, "_index")  # _index.md, or the default language's own
    root = OutlineSection(name="", key="(root)/")
    declaration: TopicDeclaration | None = None
    lead: OutlinePage | None = None
    if walk.is_file(index):
        where = ctx.display(walk.real(index))
        data = canonical_keys(
            split_front_matter(read_text_file(walk.real(index), where=where), path=where).data
        )
        title = _text(data, "title")
        description = _text(data, "description") or _text(data, "summary")
        declaration = TopicDeclaration(
            id=_text(data, "topicId") or "", name=title or "", description=description
        )
        if data.get("draft") is not True:
            lead = OutlinePage(ctx.rel(index), _text(data, "linkTitle"), None, where, None)
    items: list[_Item] = []
    for entry in walk.entries(folder):
        # Every top-level folder is a section, with or without its _index.md.
        if (
            walk.is_dir(entry)
            and not walk.is_link(entry)
            and not entry.name.startswith((".", "_"))
            and not walk.is_file(walk.special(entry, "index"))
            and not walk.is_file(walk.special(entry, "_index"))
            and not ctx.excluded(entry)
            and entry.name not in walk.taxonomies
        ):
            item = _section(ctx, entry, walk, 1)
            if item is not None:
                items.append(item)
    _members(ctx, folder, walk, items, 0, flatten=False)
    _by_main_menu(ctx, walk, items, _config_menu(site_config or {}, "main", walk.language))
    _ordered(root, lead, items)
    return root, declaration


def _old_weight(data: Mapping[str, Any], where: str) -> int | None:
    weight = _weight(data, where)
    return weight if weight or data.get("weight") == 0 else None


class HugoFolders(FolderRules):
    """A plain folder tree with Hugo-style ``_index.md`` files (the folder fallback's rules):
    ``_index.md`` front matter, leaf bundles, ``weight``, drafts."""

    def folder(self, ctx: Context, folder: Path) -> FolderInfo:
        index = folder / "_index.md"
        if not index.is_file():
            return FolderInfo()
        where = ctx.display(index)
        found = split_front_matter(read_text_file(index, where=where), path=where)
        data = found.data
        weight = _old_weight(data, where)
        title = data.get("title")
        description = data.get("description") or data.get("summary")
        declaration = TopicDeclaration(
            id=str(data.get("topicId") or ""),
            name=str(title) if title else "",
            description=str(description) if description else None,
            order=weight,
        )
        leads = bool(found.body.strip()) and data.get("draft") is not True
        return FolderInfo(declaration, index if leads else None)

    def leaf(self, entry: Path) -> Path | None:
        # A leaf bundle: one page, its index.md; the rest of the folder is its resources.
        index = entry / "index.md"
        return index if index.is_file() else None

    def page(self, ctx: Context, entry: Path) -> OutlinePage | None:
        data = front(ctx, entry)
        if data.get("draft") is True:
            ctx.warn("draft-skipped", "is a draft (draft: true); left out", ctx.display(entry))
            return None
        order = _old_weight(data, ctx.display(entry))
        if order is None:
            order = pretty(entry.stem)[1]
        if order is None and entry.stem.lower() in ("index", "readme"):
            order = 0
        return OutlinePage(ctx.rel(entry), None, order, ctx.display(entry), None)


def _taxonomy_folders(data: Mapping[str, Any]) -> frozenset[str]:
    """The taxonomies' plural names: the configured ``taxonomies``, else Hugo's default
    (``tags``, ``categories``)."""
    taxonomies = data.get("taxonomies")
    plural = taxonomies.values() if isinstance(taxonomies, dict) else _TAXONOMIES.values()
    return frozenset(t.strip("/") for t in plural if isinstance(t, str) and t.strip("/"))


def _routes(data: Mapping[str, Any]) -> tuple[str, ...]:
    """What Hugo publishes besides the content's pages: the files it generates (sitemap,
    feeds, ``llms.txt``), every taxonomy's pages (``tags/``), and files mounted into the
    content from outside the source folder, which are not read."""
    taxonomies = data.get("taxonomies")
    plural = taxonomies.values() if isinstance(taxonomies, dict) else _TAXONOMIES.values()
    routes = [*_GENERATED, *(f"{t}/" for t in plural if isinstance(t, str))]
    mounts = config.get(data, "module", "mounts")
    for mount in mounts if isinstance(mounts, list) else ():
        target = config.string(mount.get("target")) if isinstance(mount, dict) else None
        source = config.string(mount.get("source")) if isinstance(mount, dict) else None
        if target is None or source is None or not target.startswith("content/"):
            continue
        mounted = target.removeprefix("content/").strip("/")
        if ".." in PurePosixPath(source).parts and mounted:
            suffix = PurePosixPath(mounted).suffix
            routes.append(mounted)
            if suffix in (".md", ".markdown"):
                routes.append(mounted[: -len(suffix)])
    return tuple(dict.fromkeys(routes))


# ── permalinks ──────────────────────────────────────────────────────────────────────────

_TOKEN = re.compile(r":([a-z]+)")
_PERMALINK_KINDS = ("page", "section", "term", "taxonomy")


def _permalinks(data: Mapping[str, Any]) -> dict[str, str]:
    """The configured permalink pattern of each top-level section's pages (``permalinks:
    {posts: /:year/:title/}``, or the newer ``permalinks: {page: {posts: ...}}``)."""
    value = data.get("permalinks")
    if not isinstance(value, dict):
        return {}
    out = {
        str(k).strip("/"): v
        for k, v in value.items()
        if isinstance(v, str) and k not in _PERMALINK_KINDS
    }
    pages = value.get("page")
    if isinstance(pages, dict):
        out.update({str(k).strip("/"): v for k, v in pages.items() if isinstance(v, str)})
    return out


def _urlize(text: str) -> str:
    """A title as Hugo's ``urlize`` makes it a path segment: lowercased, blanks as ``-``."""
    dashed = re.sub(r"\s+", "-", text.strip().lower())
    return "".join(c for c in dashed if c.isalnum() or c in "-._~+")


def _permalink(pattern: str, rel: str, front: Mapping[str, Any]) -> str:
    """A page's URL path by a permalink pattern, its tokens filled from the page."""
    path = PurePosixPath(rel)
    bundle = path.stem == "index" and len(path.parts) > 1
    name = path.parent.name if bundle else path.stem
    sections = list(path.parts[:-2] if bundle else path.parts[:-1])
    title = _text(front, "title") or ""
    slug = _text(front, "slug")
    stamp = _date(front)
    moment = dt.datetime.fromtimestamp(stamp, dt.UTC) if stamp else dt.datetime(1, 1, 1)
    values = {
        "year": f"{moment.year:04d}",
        "month": f"{moment.month:02d}",
        "monthname": moment.strftime("%B").lower(),
        "day": f"{moment.day:02d}",
        "weekday": str(moment.isoweekday() % 7),
        "weekdayname": moment.strftime("%A").lower(),
        "yearday": str(moment.timetuple().tm_yday),
        "section": sections[0] if sections else "",
        "sections": "/".join(sections),
        "title": _urlize(title),
        "slug": slug or _urlize(title),
        "filename": name,
        "contentbasename": name,
        "slugorfilename": slug or name,
        "slugorcontentbasename": slug or name,
    }
    filled = _TOKEN.sub(lambda m: values.get(m.group(1), m.group(0)), pattern)
    return "/".join(p for p in filled.split("/") if p)


# ── render hooks ────────────────────────────────────────────────────────────────────────

_HOOKS = ("layouts/_markup", "layouts/_default/_markup")
_FROM_DESTINATION = re.compile(r"\$(\w+)\s*:?=[^}\n]*\.Destination\b")
_EQ_LITERAL = re.compile(r"\beq\s+(\.Destination|\$\w+)(?:\.\w+)?\s+\"([^\"\s{}]{1,64})\"")


def _hook_looks_up(root: Path, data: Mapping[str, Any]) -> bool:
    """Whether a link render hook looks destinations up as pages (the site's own hook calling
    ``GetPage``, or Hugo's embedded one, ``renderHooks.link.enableDefault``), so a link
    resolves as a ``ref`` does: relative to the page, else from the content root."""
    if config.get(data, "markup", "goldmark", "renderHooks", "link", "enableDefault") is True:
        return True
    for folder in _HOOKS:
        hook = root / folder / "render-link.html"
        if hook.is_file() and "GetPage" in config.read_text(hook, root):
            return True
    return False


_SHORTCODE_CALL = re.compile(r"\{\{[<%]-?\s*([\w./-]+)")
# A template writing an element's id (or an <a name>) from what it is given makes anchors.
# Only an id that is wholly the data's (`id="{{ $tool }}"`): one with a fixed prefix
# (kind's `id="inline-code-{{ $hash }}"`) is never a heading's.
_TEMPLATE_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']\{\{""")
_MAX_TEMPLATES = 2000


def _anchoring_shortcodes(root: Path, data: Mapping[str, Any]) -> frozenset[str]:
    """The site's and its themes' shortcodes (``cli/tools-list``) whose templates write ids
    from their data (Jaeger's CLI reference: ``<h2 id="{{ $tool }}">``): a page calling one
    has anchors the compiler cannot list."""
    themes = data.get("theme")
    names = [themes] if isinstance(themes, str) else themes if isinstance(themes, list) else []
    bases = [root / "layouts"] + [
        root / "themes" / n / "layouts" for n in names if isinstance(n, str) and ".." not in n
    ]
    found: set[str] = set()
    seen = 0
    for base in bases:
        for folder in (base / "shortcodes", base / "_shortcodes"):
            if not folder.is_dir() or folder.is_symlink() or not folder.is_relative_to(root):
                continue
            for here, dirs, files in os.walk(folder):  # never follows linked folders
                dirs.sort()
                for name in sorted(files):
                    seen += 1
                    file = Path(here) / name
                    if seen > _MAX_TEMPLATES or file.is_symlink() or not name.endswith(".html"):
                        continue
                    if _TEMPLATE_ID.search(config.read_text(file, root)):
                        found.add(file.relative_to(folder).with_suffix("").as_posix())
    return frozenset(found)


def _hook_destinations(root: Path) -> frozenset[str]:
    """Link destinations the site's own link render hook (``layouts/_markup/render-link.html``)
    compares with a literal (``eq $u.String "g"``, the Hugo documentation's glossary links):
    the hook renders them, so they are no page to find."""
    found: set[str] = set()
    for folder in _HOOKS:
        hook = root / folder / "render-link.html"
        if not hook.is_file():
            continue
        text = config.read_text(hook, root)
        names = {".Destination", *("$" + m for m in _FROM_DESTINATION.findall(text))}
        found.update(lit for var, lit in _EQ_LITERAL.findall(text) if var in names)
    return frozenset(found)


# ── includes ────────────────────────────────────────────────────────────────────────────

# A Markdown-rendering shortcode alone on its line whose one argument is a Markdown file:
# {{% include "/_common/x.md" %}} (the Hugo documentation), {{% readfile file="x.md" %}}
# (Docsy). Hugo renders that file's text into the page.
_INCLUDE = re.compile(
    r'^[ \t]*\{\{%[ \t]*([\w/.-]+)[ \t]+(?:file=)?"([^"\n{}]+\.md)"[ \t]*%\}\}[ \t]*$',
    re.MULTILINE,
)
_MAX_INCLUDE_DEPTH = 4


def _include_file(content: Path, page: Path, path: str, within: Path) -> Path | None:
    """The Markdown file an include names: beside the page, else in the content folder
    (inside ``within``), or ``None``."""
    for base in (content,) if path.startswith("/") else (page.parent, content):
        candidate = Path(os.path.normpath(base / path.lstrip("/")))
        if candidate.is_file() and candidate.resolve().is_relative_to(within):
            return candidate
    return None


def expand_includes(
    content: Path,
    page: Path,
    body: str,
    within: Path,
    depth: int = 0,
    *,
    budget: Budget | None = None,
) -> str:
    """A page's body with each include shortcode replaced by the text (no front matter) of the
    content file it names; one that names no such file, or past the page's budget of included
    characters (:mod:`._budget`), is left as written."""
    if "{{%" not in body or depth >= _MAX_INCLUDE_DEPTH:
        return body
    left = Budget(body) if budget is None else budget

    def one(match: re.Match[str]) -> str:
        if match.group(1) in ("ref", "relref"):
            return match.group(0)
        file = _include_file(content, page, match.group(2), within)
        if file is None:
            return match.group(0)
        where = display_path(file, within)
        text = split_front_matter(read_text_file(file, where=where), path=where).body
        if not left.take(text):
            return match.group(0)
        return expand_includes(content, file, text.strip("\n"), within, depth + 1, budget=left)

    return _INCLUDE.sub(one, body)


# ── the generator ───────────────────────────────────────────────────────────────────────


def _languages(data: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    default = config.string(data.get("defaultContentLanguage")) or "en"
    languages = data.get("languages")
    others = tuple(
        str(k) for k in (languages if isinstance(languages, dict) else {}) if k != default
    )
    return default, others


def _prefixes(data: Mapping[str, Any], language: str) -> tuple[str, ...]:
    """The site's URL path prefixes: ``baseURL``'s path, and the default language's folder
    when ``defaultContentLanguageInSubdir`` publishes it under ``/en/`` (longest first)."""
    base = config.url_path(data.get("baseURL"))
    if data.get("defaultContentLanguageInSubdir") is not True:
        return base
    folders = [f"{b}{language}/" for b in base] + [f"{language}/"]
    return tuple(dict.fromkeys([*folders, *base]))


class Hugo(Generator):
    """Hugo; a site's own instance knows its ``permalinks`` (section -> pattern)."""

    name = "hugo"
    described_as = "a Hugo site"
    marker = "Hugo configuration"
    found_from_content = True

    def __init__(
        self,
        permalinks: Mapping[str, str] | None = None,
        language: str = "en",
        *,
        lookup_links: bool = False,
        anchoring: frozenset[str] = frozenset(),
    ) -> None:
        self.anchoring = anchoring
        """Shortcodes whose templates write ids from their data (``_anchoring_shortcodes``)."""
        self.permalinks = dict(permalinks or {})
        self.language = language
        """The default content language: ``page.en.md`` is its ``page.md``."""
        self.lookup_links = lookup_links
        """Whether a link render hook looks destinations up as pages (``_hook_looks_up``)."""

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        files = _config_files(root)
        file = files[0] if files else None
        data = _read_config(root, files) if files else {}
        language, _ = _languages(data)
        own = config.mapping(config.get(data, "languages", language))
        content = _mounted_content(root, data, language)
        if content is None:
            content_dir = config.string(own.get("contentDir")) or config.string(
                data.get("contentDir")
            )
            content = config.folder(root, content_dir, "content")
        if file is None or not content.is_dir():
            if not forced:
                return None
            content = content if content.is_dir() else root
        params = {**config.mapping(data.get("params")), **config.mapping(own.get("params"))}
        # Themes name the repository in their own parameter (hugo-book, Geekdoc).
        repository = next(
            (
                params[k]
                for k in ("github_repo", "repository", "BookRepo", "geekdocRepo", "repo", "ghrepo")
                if config.string(params.get(k))
            ),
            None,
        )
        author = params.get("author")
        return Site(
            Hugo(
                _permalinks(data),
                language,
                lookup_links=_hook_looks_up(root, data),
                anchoring=_anchoring_shortcodes(root, data),
            ),
            file,
            content,
            config.site_metadata(
                own.get("title") or data.get("title"),
                params.get("description") or own.get("description") or data.get("description"),
                own.get("languageCode") or data.get("languageCode") or language,
                config.absolute_url(data.get("baseURL"), repository),
                config.publisher(
                    repository, config.get(author, "name") if isinstance(author, dict) else author
                ),
            ),
            LinkStyle(
                # `uglyURLs: true` publishes a/b.md as a/b.html rather than a/b/.
                "html" if data.get("uglyURLs") is True else "directory",
                lowercase=not data.get("disablePathToLower", False),
                prefixes=_prefixes(data, language),
                static_roots=(root / "static",),
                # A bundle's other files are published beside its pages, at their paths.
                resource_roots=(content,),
                routes=_routes(data),
                ignored=_hook_destinations(root),
                definition_terms=config.get(
                    data, "markup", "goldmark", "parser", "autoDefinitionTermID"
                )
                is True,
            ),
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        assert site.config is not None  # a Hugo site always has its configuration
        folder = site.config.parent
        root_folder = folder.parent.parent if folder.name == "_default" else folder
        data = _read_config(root_folder, _config_files(root_folder))
        language, others = _languages(data)
        walk = _Walk(
            ctx,
            others,
            self,
            language,
            side_menus=_side_menus(data, language),
            taxonomies=_taxonomy_folders(data),
        )
        where = ctx.display(site.config)
        walk.mounted = _mounts_above(ctx, root_folder, data, language, where)
        mounts = content_mounts(
            config.get(data, "module", "mounts"), lambda m: _for_language(m, language)
        )
        if len(mounts) > 1 or any(m.target or m.include or m.exclude for m in mounts):
            # The site mounts its own folders into the content, or filters it: the content
            # is what the mounts build, each page at its mounted path.
            walk.tree = content_tree(root_folder, mounts)
        root, declaration = _root(ctx, walk, data)
        files = {rel: file for found in walk.mounted.values() for rel, file in found}
        if walk.tree is not None:
            files.update(
                (rel, file)
                for rel, file in walk.tree.files.items()
                if file != ctx.content_root / rel and ctx.is_page(file)
            )
        return Outline(
            self.name,
            root,
            None,
            root_declaration=declaration,
            interleaved_root=True,
            routes=tuple(dict.fromkeys(walk.routes)),
            files=files,
        )

    def generates_headings(self, body: str) -> bool:
        # `{{< cli/tools-list >}}` whose template writes `<h2 id="{{ $tool }}">`.
        return bool(self.anchoring) and any(
            name in self.anchoring for name in _SHORTCODE_CALL.findall(body)
        )

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        front = canonical_keys(front)
        path = PurePosixPath(rel)
        suffix = f".{self.language}"
        if path.stem.endswith(suffix) and path.stem != suffix:
            # The default language's own file (_index.en.md) is published as page.md would be.
            rel = path.with_name(path.stem.removesuffix(suffix) + path.suffix).as_posix()
        default = super().page_url(rel, front)
        url = _text(front, "url")
        if url is not None:
            return PageUrl(url.strip("/"), default.folder)
        parts = PurePosixPath(rel).parts
        pattern = self.permalinks.get(parts[0]) if len(parts) > 1 else None
        if pattern is not None and PurePosixPath(rel).stem != "_index":
            # The section's permalink pattern places its pages (never the section page).
            return PageUrl(_permalink(pattern, rel, front), default.folder)
        slug = _text(front, "slug")
        segments = default.path.split("/") if default.path else []
        if slug and segments:
            return PageUrl("/".join([*segments[:-1], slug]), default.folder)
        return default

    def front_matter(self, data: dict[str, Any]) -> dict[str, Any]:
        canonical: dict[str, Any] = canonical_keys(data)
        return canonical

    def file_variants(self, rel: str) -> tuple[str, ...]:
        # `ref "a/_index.md"` finds the default language's own file, a/_index.en.md.
        path = PurePosixPath(rel)
        if path.suffix.lower() not in (".md", ".markdown"):
            return ()
        return (path.with_name(f"{path.stem}.{self.language}{path.suffix}").as_posix(),)

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        aliases = front.get("aliases")
        if not isinstance(aliases, list):
            return ()
        # A relative alias is relative to the folder of the page's URL.
        folder = self.page_url(rel, front).path.split("/")[:-1]
        out: list[str] = []
        for alias in aliases:
            if not isinstance(alias, str) or not alias.strip():
                continue
            if alias.startswith("/"):
                out.append(alias)
                continue
            joined = normalise_path([*folder, *alias.split("/")])
            if joined is not None:
                out.append(joined)
        return tuple(out)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        return expand_includes(site.content_root, page, body, within.resolve())

    def link_target(self, raw: str) -> LinkTarget | None:
        path = hugo_ref(raw)
        if path is None and _SHORTCODE.search(raw):
            # Another shortcode ({{% param url %}}) that Hugo expands into the target: no
            # path to check, so the link is kept as written (an empty target).
            return LinkTarget("")
        suffix = PurePosixPath(raw.split("#", 1)[0]).suffix.lower()
        if path is None and self.lookup_links and not raw.startswith(("#", "/")):
            # The render hook looks a relative destination up as a page, as a ref does.
            return LinkTarget(raw) if suffix in ("", ".md") else None
        return None if path is None else LinkTarget(path)
