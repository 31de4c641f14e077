"""DocFX: ``docfx.json`` or ``toc.yml``; pages in the project's folder.

Navigation: ``toc.yml``: ``name``/``href``/``topicHref``/``items``, and the ``toc.yml`` files
it includes (an ``href`` to a folder, or to another ``toc.yml``); a ``toc.md`` instead (its
headings ``# [Name](href)`` or ``# Name``, deeper headings the items of the one above; at the
root only beside a ``docfx.json``). An ``href``, and a page's link, image or code snippet,
may start with ``~/``, the DocFX project's folder. A section's ``topicHref`` page that its
items list again is placed once, leading the section, silently. An include that does not
exist (a folder whose ``toc.yml`` DocFX generates, such as an API reference) is left out with
a warning.

Metadata: ``build.globalMetadata`` ``_appName`` (or ``_appTitle``), ``_description``,
``_lang``; the publisher is the owner of ``_gitContribute.repo``, else the holder the
``_appFooter`` copyright line names.

Links: DocFX builds every Markdown and YAML file of its project, copies its resources and
includes code snippets (``[!code-cs[](f.cs?name=x)]``), so a link to an existing file that is
no catalog page is kept silently, and a toc entry naming a YAML page (an ApiPage, a schema
document) or a Swagger/OpenAPI JSON file (DocFX's REST API pages) is left out silently (a
folder's ``toc.md`` is its TOC, never a page); so are links into the folders ``docfx
metadata`` writes (``metadata[].dest``, such as ``api/``, whose ``toc.yml`` is generated
too) and tab links (``[Linux](#tab/linux)``), which name tabs, not headings. ``docfx.json``
is read as DocFX reads it: a UTF-8 byte-order mark, ``//`` and ``/* */`` comments and
trailing commas are allowed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from gezel_knowledge.compiler.errors import SourceError, display_path
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import (
    SCHEME,
    Context,
    mappings,
    normalise,
    text,
)
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators._tree import front
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, LinkTarget, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import (
    YamlNode,
    load_json,
    load_yaml_nodes,
    read_text_file,
)

__all__ = ["DocFx"]

_TOC_NAMES = ("toc.yml", "toc.yaml", "toc.md")
_TOC_HEADING = re.compile(r"^(#{1,6})[ \t]*(.*?)[ \t]*#*[ \t]*$")
_TOC_LINK = re.compile(r"^\[(.*)\]\(\s*<?([^)>\s]*)>?(?:\s+\"[^\"]*\")?\s*\)$")
_TOC_XREF = re.compile(r"^(?:<xref:([^\s>]+)>|@([A-Za-z][^\s]*))$")
_UID_HREF = re.compile(r"^(?:xref:|@)\s*(\S+)\s*$")
_YAML_PAGES = (".yml", ".yaml")
_REST_API_HEAD = 65_536
_REST_API_KEY = re.compile(r'"(?:swagger|openapi)"\s*:')


class DocFx(Generator):
    """DocFX."""

    name = "docfx"
    described_as = "a DocFX site"
    marker = "toc.yml or docfx.json"
    outline_required = "outline file"

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        file = root / "docfx.json"
        # A lone toc.md is too common a name to recognise a DocFX project by.
        names = _TOC_NAMES if file.is_file() else _TOC_NAMES[:2]
        toc = next((root / n for n in names if (root / n).is_file()), None)
        if not file.is_file() and toc is None:
            return None
        data = _read_docfx_json(file, root) if file.is_file() else {}
        meta = config.mapping(config.get(data, "build", "globalMetadata"))
        generated = tuple(sorted(_generated_folders(data)))
        return Site(
            self,
            file if file.is_file() else None,
            root,
            config.site_metadata(
                meta.get("_appName") or meta.get("_appTitle"),
                meta.get("_description"),
                meta.get("_lang"),
                publisher=config.publisher(
                    config.get(meta, "_gitContribute", "repo"), None, meta.get("_appFooter")
                ),
            ),
            # DocFX checks relative file links only: a rooted one (`/downloads/guide.pdf`)
            # is a URL it keeps as written, resolved here when it names a page; a rooted
            # image that is missing is still a broken image.
            LinkStyle(
                generated=generated,
                files_resolve=True,
                quiet=frozenset({"absolute-links"}),
                sibling_roots=_sibling_roots(data, root),
            ),
            outline_file=toc,
        )

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        toc = site.outline_file
        # The TOC beside docfx.json is the navigation bar; a lone toc.yml project has none.
        navbar = site.config is not None and toc.parent == site.config.parent
        data = _read_docfx_json(site.config, ctx.source_root) if site.config is not None else {}
        docs = _DocFx(ctx, toc, set(), site.links.generated, navbar=navbar)
        docs.overwrites = Glob(_overwrite_patterns(data))
        docs.mapped = _mapped_sources(data, site.config.parent if site.config else toc.parent)
        outline = docs.outline()
        content = _content_globs(data)
        if navbar:
            docs.unreached_sidebars(outline.root, content)
        if content is not None:
            docs.unlisted_pages(outline.root, content)
        return outline

    def link_target(self, raw: str) -> LinkTarget | None:
        # A tab link names a tab of tabbed content, not a heading: nothing to resolve.
        if raw.startswith("#tab/"):
            return LinkTarget("")
        # `~/` is the project's folder in page links and code snippets too.
        return LinkTarget(_project_relative(raw), plain=True) if raw.startswith("~/") else None


def json_without_comments(text_: str) -> str:
    """JSON as .NET's readers accept it (``//`` and ``/* */`` comments, trailing commas) made
    plain JSON: comments become spaces (line breaks kept, so errors name the right line) and
    a comma before ``}`` or ``]`` goes; one pass, strings left as they are."""
    out: list[str] = []
    i, n = 0, len(text_)
    comma = -1  # where in `out` the last comma outside a string is, while only blanks follow
    while i < n:
        char = text_[i]
        if char == '"':
            end = i + 1
            while end < n and text_[end] != '"':
                end += 2 if text_[end] == "\\" else 1
            out.append(text_[i : end + 1])
            i, comma = end + 1, -1
        elif text_.startswith("//", i):
            end = text_.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text_.startswith("/*", i):
            end = text_.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text_[i:end]))
            i = end
        else:
            if char in "}]" and comma >= 0:
                out[comma] = " "
            if char == ",":
                comma = len(out)
            elif not char.isspace():
                comma = -1
            out.append(char)
            i += 1
    return "".join(out)


def _read_docfx_json(file: Path, root: Path) -> dict[str, object]:
    """``docfx.json`` as DocFX reads it (:func:`json_without_comments`)."""
    where = display_path(file, root)
    text_ = config.read_text(file, root)
    data = load_json(json_without_comments(text_), path=where)
    return data if isinstance(data, dict) else {}


def _overwrite_patterns(data: dict[str, object]) -> list[str]:
    """The files ``build.overwrite`` names (a pattern, a list of them, or file mappings
    ``{files: [...]}``): overwrite documents, which amend API pages; no page of the site."""
    value = config.get(data, "build", "overwrite")
    entries = value if isinstance(value, list) else [value]
    found: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            files = entry.get("files")
            src = config.string(entry.get("src")) or ""
            prefix = src.strip("/").removeprefix("./")
            for pattern in files if isinstance(files, list) else [files]:
                if isinstance(pattern, str) and ".." not in prefix.split("/"):
                    found.append(f"{prefix}/{pattern}" if prefix and prefix != "." else pattern)
    return found


def _mapped_sources(data: dict[str, object], project: Path) -> tuple[Path, ...]:
    """The folders above the project ``build.content`` maps files in from (``"src": "../"``),
    resolved against the project's folder."""
    entries = config.get(data, "build", "content")
    found: list[Path] = []
    for entry in entries if isinstance(entries, list) else []:
        src = config.string(entry.get("src")) if isinstance(entry, dict) else None
        if src and ".." in PurePosixPath(src).parts:
            found.append(Path(os.path.normpath(project / src)))
    return tuple(dict.fromkeys(found))


def _content_globs(data: dict[str, object]) -> tuple[Glob, Glob] | None:
    """The files ``build.content`` builds from the project's own folder (``files``, less
    ``exclude``), as two globs; ``None`` when it names none (every file is then built)."""
    entries = config.get(data, "build", "content")
    files: list[str] = []
    exclude: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        src = (config.string(entry.get("src")) or "").strip().strip("/").removeprefix("./")
        if ".." in src.split("/"):
            continue  # mapped in from above the project: never a TOC of this folder
        prefix = f"{src}/" if src and src != "." else ""
        for key, into in (("files", files), ("exclude", exclude)):
            value = entry.get(key)
            for pattern in value if isinstance(value, list) else [value]:
                if isinstance(pattern, str) and pattern.strip():
                    into.append(prefix + pattern.strip().removeprefix("./"))
    return (Glob(files), Glob(exclude)) if files else None


def _sibling_roots(data: dict[str, object], project: Path) -> tuple[Path, ...]:
    """The folders above the project that ``metadata[].src`` and ``build.content`` read from
    (``"src": "../../stride"``, the engine's checkout beside the docs), resolved."""
    found: list[Path] = list(_mapped_sources(data, project))
    entries = data.get("metadata")
    for entry in entries if isinstance(entries, list) else []:
        sources = entry.get("src") if isinstance(entry, dict) else None
        for source in sources if isinstance(sources, list) else []:
            src = config.string(source.get("src")) if isinstance(source, dict) else None
            if src and ".." in PurePosixPath(src).parts:
                found.append(Path(os.path.normpath(project / src)))
    # A folder holding the project itself is no sibling (every link would be silent).
    return tuple(f for f in dict.fromkeys(found) if not project.is_relative_to(f))


def _generated_folders(data: dict[str, object]) -> set[str]:
    """The folders ``docfx metadata`` writes (``metadata[].dest``), relative to the project."""
    entries = data.get("metadata")
    found: set[str] = set()
    for entry in entries if isinstance(entries, list) else []:
        dest = config.string(entry.get("dest")) if isinstance(entry, dict) else None
        if dest:
            found.add(dest.strip().strip("/").removeprefix("./"))
    return {f for f in found if f and ".." not in f.split("/")}


def _markdown_toc(text_: str) -> YamlNode:
    """A DocFX ``toc.md`` (headings ``# [Name](href)`` or ``# Name``, nested by level) as the
    items a ``toc.yml`` would hold."""
    root: list[YamlNode] = []
    stack: list[tuple[int, list[YamlNode]]] = [(0, root)]
    fence = None
    for number, line in enumerate(text_.lstrip("\ufeff").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = None if fence and stripped.startswith(fence) else fence or stripped[:3]
        match = None if fence else _TOC_HEADING.match(line)
        if match is None or not match.group(2):
            continue
        level, title = len(match.group(1)), match.group(2)
        link = _TOC_LINK.match(title)
        xref = None if link else _TOC_XREF.match(title)
        uid = _UID_HREF.match(link.group(2)) if link else None
        fields = {"name": YamlNode(link.group(1) if link else title, number)}
        if xref is not None:
            # `# <xref:uid>` or `# @uid`: the page with that uid, titled by the page.
            fields = {"uid": YamlNode(xref.group(1) or xref.group(2), number)}
        elif uid is not None:
            fields["uid"] = YamlNode(uid.group(1), number)  # `# [Name](xref:uid)`
        elif link and link.group(2):
            fields["href"] = YamlNode(link.group(2), number)
        while stack[-1][0] >= level:
            stack.pop()
        children: list[YamlNode] = []
        stack[-1][1].append(YamlNode(fields, number))
        # A heading's items are the deeper headings that follow it.
        fields["items"] = YamlNode(children, number)
        stack.append((level, children))
    _drop_empty_items(root)
    return YamlNode(root, 1)


def _drop_empty_items(items: list[YamlNode]) -> None:
    for item in items:
        fields = item.value
        if isinstance(fields, dict):
            children = fields["items"].value
            assert isinstance(children, list)
            if children:
                _drop_empty_items(children)
            else:
                del fields["items"]


def _pages(children: list[OutlineSection | OutlinePage]) -> list[OutlinePage]:
    """Every page of an outline's entries, depth first."""
    out: list[OutlinePage] = []
    for child in children:
        if isinstance(child, OutlinePage):
            out.append(child)
        else:
            out.extend(_pages(child.children))
    return out


def _drop_lead_repeat(section: OutlineSection, path: str) -> None:
    """A section's own page (its ``topicHref``) listed again among its items is the same
    page twice in DocFX's navigation (the node's link, then an item): placed once, as the
    section's first page, without a warning."""
    kept = [section.children[0]]
    for child in section.children[1:]:
        if not (isinstance(child, OutlinePage) and child.path == path):
            kept.append(child)
    if len(kept) == len(section.children):
        return
    for order, child in enumerate(kept):
        child.order = order
    section.children[:] = kept


def _rest_api(file: Path, root: Path) -> bool:
    """Whether a JSON file is a Swagger or OpenAPI description, which DocFX builds into REST
    API pages: its first 64 KiB name the ``swagger`` or ``openapi`` version key."""
    if not file.resolve().is_relative_to(root.resolve()):
        return False  # a symbolic link out of the project: never read
    with file.open("rb") as handle:
        head = handle.read(_REST_API_HEAD)
    return _REST_API_KEY.search(head.decode("utf-8", "replace")) is not None


def _rooted(href: str) -> bool:
    """``/a/b.html``: a path from the site's root, which DocFX keeps as written (not ``//host``)."""
    return href.startswith("/") and not href.startswith("//")


def _project_relative(href: str) -> str:
    """``~/a/b.md`` (relative to the DocFX project) as a content-root path ``/a/b.md``."""
    return "/" + href[2:] if href.startswith("~/") else href


class _DocFx:
    """A DocFX ``toc.yml`` and the ``toc.yml`` files it includes (``seen`` refuses a cycle)."""

    def __init__(
        self,
        ctx: Context,
        toc: Path,
        seen: set[Path],
        generated: tuple[str, ...] = (),
        *,
        navbar: bool = False,
    ) -> None:
        self.ctx = ctx
        self.navbar = navbar
        """Whether this is the project's own ``toc.yml``, DocFX's navigation bar."""
        self.toc = toc
        self.seen = seen
        self.generated = generated
        self._uids: dict[str, str] | None = None
        self.overwrites = Glob([])
        self.mapped: tuple[Path, ...] = ()
        """Folders above the project that ``build.content`` maps in (``"src": "../"``)."""
        self.files: dict[str, Path] = {}
        """Pages read from those folders (the user allowed it), by their content path."""
        """``build.overwrite`` files: no pages, and their uids are the API's."""
        self.where = ctx.display(toc)
        seen.add(toc.resolve())

    def outline(self) -> Outline:
        text_ = read_text_file(self.toc, where=self.where)
        if self.toc.suffix.lower() == ".md":
            data = _markdown_toc(text_)
        else:
            data = load_yaml_nodes(text_, path=self.where)
        root = OutlineSection(name="", key=self.where)
        items = data.value.get("items") if isinstance(data.value, dict) else data
        if items is None or not isinstance(items.value, list):
            raise SourceError(
                "toc.yml must be a list of items", reason="invalid-outline", path=self.where, line=1
            )
        self.walk(items, root)
        return Outline("docfx", root, self.where, interleaved_root=True, files=self.files)

    @property
    def uids(self) -> dict[str, str]:
        """Pages by their front matter ``uid``, read when a toc item first names one."""
        if self._uids is None:
            self._uids = {}
            for page in sorted(self.ctx.content_root.rglob("*.md")):
                hidden = any(
                    p.startswith(".") for p in page.relative_to(self.ctx.content_root).parts
                )
                overwrite = self.overwrites.match(self.ctx.rel(page))
                if page.is_file() and not hidden and not page.is_symlink() and not overwrite:
                    uid = front(self.ctx, page).get("uid")
                    if isinstance(uid, str) and uid.strip():
                        self._uids.setdefault(uid.strip(), self.ctx.rel(page))
        return self._uids

    def child(self, toc: Path) -> _DocFx:
        """The reader of a ``toc.yml`` this one includes (same project, same cycle guard)."""
        docs = _DocFx(self.ctx, toc, self.seen, self.generated)
        docs.overwrites = self.overwrites
        docs.mapped = self.mapped
        docs.files = self.files
        docs._uids = self._uids
        return docs

    def fail(self, message: str, reason: str, line: int) -> SourceError:
        return SourceError(message, reason=reason, path=self.where, line=line)

    def nested_toc(self, href: str, line: int) -> Path | bool:
        """The ``toc.yml`` an ``href`` includes (a folder's, or one named); ``True`` for an
        include that is not there (warned), ``False`` for an href that is no include."""
        if _rooted(href):
            return False  # a URL of the built site (DocFX's AbsolutePath): never an include
        path_text = _project_relative(unquote(href.split("#", 1)[0]))
        candidate = normalise(self.toc.parent, path_text, self.ctx.content_root)
        if candidate is None:
            # Outside the project: DocFX may map it in (docfx.json `"src": "../"`); the
            # catalog never reads it. A page is left out by :meth:`page`, a toc here.
            if not (href.endswith("/") or PurePosixPath(path_text).name.lower() in _TOC_NAMES):
                return False
            self.ctx.warn(
                "outline-entry-outside",
                f"toc entry {href!r} is outside the content folder; left out",
                self.where,
                line,
            )
            return True
        if href.endswith("/") or candidate.is_dir():
            found = next((candidate / n for n in _TOC_NAMES if (candidate / n).is_file()), None)
            if found is None and self.ctx.rel(candidate) in self.generated:
                return True  # docfx metadata writes it (and its toc.yml) when it builds
            if found is None:
                self.ctx.warn(
                    "missing-outline-page",
                    f"toc entry {href!r} names a folder without toc.yml; left out",
                    self.where,
                    line,
                )
                return True
            return found
        if candidate.name.lower() in _TOC_NAMES:
            if not candidate.is_file():
                self.ctx.warn(
                    "missing-outline-page",
                    f"outline names a missing file {href!r}; left out",
                    self.where,
                    line,
                )
                return True
            return candidate
        return False

    def page(self, href: str, line: int) -> str | None:
        if _rooted(href):
            return self.url_page(href)
        target = _project_relative(href)
        path_text = unquote(target.split("#", 1)[0].split("?", 1)[0])
        suffix = PurePosixPath(path_text).suffix.lower()
        if suffix in _YAML_PAGES or suffix == ".json":
            candidate = normalise(self.toc.parent, path_text, self.ctx.content_root)
            # A page DocFX builds from YAML (ApiPage, SDP) or from a Swagger or OpenAPI
            # file (its REST API pages): not one the catalog holds.
            if (
                candidate is not None
                and candidate.is_file()
                and (suffix != ".json" or _rest_api(candidate, self.ctx.source_root))
            ):
                return None
        if path_text and normalise(self.toc.parent, path_text, self.ctx.content_root) is None:
            return self.mapped_page(href, path_text, line)
        return self.ctx.page(self.toc.parent, target, origin=self.toc, line=line)

    def url_page(self, href: str) -> str | None:
        """A rooted ``href`` (``/a/b.html``, ``/a/``, ``/``): DocFX keeps it as a URL of the
        built site, so it is the page DocFX writes at that URL (``a/b.md``, ``a/index.md``,
        ``index.md``) when the project has one; anything else there is not the catalog's."""
        url = unquote(href.split("#", 1)[0].split("?", 1)[0]).lstrip("/")
        if not url or url.endswith("/"):
            url += "index.html"
        path = PurePosixPath(url)
        if ".." in path.parts:
            return None
        stem = path.with_suffix("") if path.suffix.lower() in (".html", ".htm") else path
        for name in (f"{stem}.md", f"{stem}/index.md"):
            file = self.ctx.content_root / name
            if file.is_file() and self.ctx.is_page(file):
                return self.ctx.rel(file)
        return None

    def mapped_page(self, href: str, path_text: str, line: int) -> str | None:
        """A toc entry above the project: a Markdown file ``build.content`` maps in from
        there (``"src": "../"``, ``"files": ["CHANGELOG.md"]``) is the page at its mapped path
        when the user allowed that folder (``--allow-read``); else it is left out, with a
        warning naming the option."""
        file = Path(os.path.normpath(self.toc.parent / path_text))
        source = next((m for m in self.mapped if file.is_relative_to(m)), None)
        if source is not None and file.is_file() and self.ctx.is_page(file):
            rel = file.relative_to(source).as_posix()
            if self.ctx.readable(file) and rel not in self.files:
                self.files[rel] = file
                return rel
            if rel in self.files:
                return rel
        folder = Path(os.path.relpath(file.parent, self.ctx.source_root)).as_posix()
        self.ctx.warn(
            "outline-entry-outside",
            f"toc entry {href!r} is outside the source folder; left out (docfx.json maps it "
            f"in: add --allow-read {folder} to read it)"
            if source is not None
            else f"toc entry {href!r} is outside the content folder; left out",
            self.where,
            line,
        )
        return None

    def uid_page(self, fields: dict[str, YamlNode]) -> str | None:
        """The page an item names by uid (``topicUid``, or the older ``uid``/``homepageUid``);
        a uid no page holds (an API type ``docfx metadata`` writes) is DocFX's to resolve."""
        uid = text(fields, "topicUid") or text(fields, "uid") or text(fields, "homepageUid")
        return self.uids.get(uid) if uid else None

    def walk(self, node: YamlNode, into: OutlineSection) -> None:
        """Items: a page, or a section when it has items or includes a ``toc.yml``."""
        for item, fields in mappings(node, "items", "toc item", self.where):
            name = text(fields, "name") or ""
            href = text(fields, "href")
            child_toc: Path | bool = False
            if href and not SCHEME.match(href):
                child_toc = self.nested_toc(href, fields["href"].line)
            topic = "topicHref" in fields or "homepage" in fields
            if child_toc is True and "items" not in fields and not topic:
                continue
            if child_toc is not False or "items" in fields:
                into.children.append(self.section(item.line, fields, child_toc, len(into.children)))
                continue
            line = item.line
            path: str | None = None
            if href and child_toc is False:
                line = fields["href"].line
                path = self.page(href, line)
            elif not href:
                path = self.uid_page(fields)
            if path is None:
                continue
            position = len(into.children)
            sidebar = self.sidebar(path) if self.navbar else None
            if sidebar is not None:
                # A navbar item naming a page whose own TOC is another: DocFX shows that
                # TOC beside the page, so its entries are this item's section.
                into.children.append(self.sidebar_section(name, path, sidebar, line, position))
                continue
            into.children.append(OutlinePage(path, name or None, position, self.where, line))

    def unreached_sidebars(self, root: OutlineSection, content: tuple[Glob, Glob] | None) -> None:
        """The TOCs the navigation bar never reaches (``href: /`` is a URL, not an include):
        DocFX still builds each and shows it beside the pages of its folder, so each is a
        section after the bar's entries, named after its folder, in path order; a TOC in a
        folder DocFX does not build (``build.content``), a hidden one or a generated one
        (``docfx metadata``'s ``api/``) is none."""
        top = self.ctx.content_root
        # Found by a walk, named by nothing: one linked from outside the source folder is none.
        inside = self.ctx.source_root.resolve()
        tocs = sorted(
            (
                p
                for n in _TOC_NAMES
                for p in top.rglob(n)
                if p.is_file() and p.parent != top and p.resolve().is_relative_to(inside)
            ),
            key=lambda p: (self.ctx.rel(p).count("/"), self.ctx.rel(p)),
        )
        for toc in tocs:
            rel = self.ctx.rel(toc)
            folders = PurePosixPath(rel).parts[:-1]
            hidden = any(part.startswith((".", "_")) for part in folders)
            generated = any(rel.startswith(f"{g}/") for g in self.generated)
            built = content is None or (content[0].match(rel) and not content[1].match(rel))
            if hidden or generated or not built or toc.resolve() in self.seen:
                continue
            section = OutlineSection(
                name=folders[-1], key=self.ctx.display(toc), order=len(root.children)
            )
            for child in self.child(toc).outline().root.children:
                child.order = len(section.children)
                section.children.append(child)
            if section.children:
                root.children.append(section)

    def unlisted_pages(self, root: OutlineSection, content: tuple[Glob, Glob]) -> None:
        """The pages ``build.content`` builds that no TOC lists: DocFX publishes them too
        (beside the nearest TOC, unlisted), so they follow the TOCs' entries, in path order."""
        placed = {page.path for page in _pages(root.children)}
        found: list[str] = []
        for folder, dirs, files in os.walk(self.ctx.content_root):  # never follows links
            base = Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                file = base / name
                if name.startswith(".") or file.is_symlink() or not self.ctx.is_page(file):
                    continue
                if name.lower() in _TOC_NAMES:
                    continue  # a folder's toc.md is its TOC, never a page DocFX builds
                rel = self.ctx.rel(file)
                if rel in placed or not content[0].match(rel) or content[1].match(rel):
                    continue
                # A page kept in a folder `docfx metadata` writes into (api/index.md) is
                # built like any other; one whose front matter holds `redirect_url` is a
                # redirection DocFX writes, no page.
                if self.overwrites.match(rel) or self.ctx.excluded(file):
                    continue
                if "redirect_url" not in front(self.ctx, file):
                    found.append(rel)
        for rel in sorted(found):
            root.children.append(OutlinePage(rel, None, len(root.children), self.where))

    def sidebar(self, path: str) -> Path | None:
        """The TOC DocFX shows beside the page at ``path`` when it is not this one: the
        nearest ``toc.yml``/``toc.md`` up its folders (the fewest folder steps), unless that
        is this TOC or one already read."""
        folder = (self.ctx.content_root / path).parent
        top = self.toc.parent
        while folder.is_relative_to(top) and folder != top:
            found = next((folder / n for n in _TOC_NAMES if (folder / n).is_file()), None)
            if found is not None:
                return None if found.resolve() in self.seen else found
            folder = folder.parent
        return None

    def sidebar_section(
        self, name: str, path: str, toc: Path, line: int, position: int
    ) -> OutlineSection:
        """A navbar item's section: the page's own TOC, led by the page unless it lists it."""
        section = OutlineSection(
            name=name or "Untitled", key=f"{self.where}:{line}", order=position
        )
        nested = self.child(toc).outline().root.children
        listed = any(p.path == path for p in _pages(nested))
        if not listed:
            section.children.append(OutlinePage(path, name or None, 0, self.where, line))
        for child in nested:
            child.order = len(section.children)
            section.children.append(child)
        return section

    def section(
        self, line: int, fields: dict[str, YamlNode], child_toc: Path | bool, position: int
    ) -> OutlineSection:
        """An item with items or an included ``toc.yml``, led by its own page if it names one
        (``topicHref``, the older ``homepage``, or a uid)."""
        name = text(fields, "name") or ""
        section = OutlineSection(
            name=name or "Untitled", key=f"{self.where}:{line}", order=position
        )
        href = text(fields, "href")
        page_target = (
            text(fields, "topicHref")
            or text(fields, "homepage")
            or (href if child_toc is False else None)
        )
        path: str | None = None
        page_line = line
        if page_target:
            page_line = (fields.get("topicHref") or fields.get("homepage") or fields["href"]).line
            path = self.page(page_target, page_line)
        elif not href:
            path = self.uid_page(fields)
        if path is not None:
            section.children.append(OutlinePage(path, name or None, 0, self.where, page_line))
        if "items" in fields:
            self.walk(fields["items"], section)
        if isinstance(child_toc, Path):
            self.include(child_toc, line, section)
        if path is not None:
            _drop_lead_repeat(section, path)
        return section

    def include(self, child_toc: Path, line: int, section: OutlineSection) -> None:
        """Append an included ``toc.yml``'s entries to ``section``, refusing a cycle."""
        if child_toc.resolve() in self.seen:
            raise self.fail(
                f"toc {self.ctx.display(child_toc)} includes itself", "outline-cycle", line
            )
        for child in self.child(child_toc).outline().root.children:
            child.order = len(section.children)
            section.children.append(child)
