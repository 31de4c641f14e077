"""Write ``orders/<name>.txt``: each tree's navigation order as its own generator gives it.

Not run by the benchmark, which reads the stored files. Run it with a Python that has the
generators installed in a scratch environment outside the project (they are no dependency of
it): ``mkdocs mkdocs-material sphinx myst-parser myst-nb sphinx-design 'jupyter-book<2'``, and
with ``hugo`` (Debian's) and ``node`` on the PATH:

    /path/to/scratch/bin/python benchmarks/realdocs/make_orders.py [NAME ...]

The trees must have been checked out (``benchmarks/realdocs.py --checkout-only``). Where the
definition file is the whole rule (mdBook and GitBook ``SUMMARY.md``, DocFX ``toc.yml``, a
``myst.yml`` toc, ``sidebars.json``) it is read by that rule; MkDocs, Sphinx and Jupyter Book 1
orders come from the tools themselves, Hugo's from ``hugo`` rendering a layout that walks the
site in its default page order, and a ``sidebars.js``/``.ts`` is evaluated by ``node``.

The VuePress and Rspress orders (round 6) were written by the node scripts beside this one:
``evaluate_cjs.js`` (or ``evalconfig.mjs``) evaluates a VuePress sidebar module,
``vuepress_order.js`` walks it by the default theme's rules, and ``rspress_order.js`` ports
Rspress' auto navigation (``walk.ts``, ``normalize.ts``); each file says how it is run.
"""

# The generators are imported where they are used: each tree needs only its own.
# ruff: noqa: PLC0415

from __future__ import annotations

import fnmatch
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

HERE = Path(__file__).resolve().parent
TREES = Path(os.environ.get("GEZEL_REALDOCS_TREES") or HERE.parents[2] / "realdocs-trees")
# Link text may hold balanced brackets (mdBook reads "[#[panic_handler]](panic-handler.md)").
LINK = re.compile(r"\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(([^)\s]*)\)")


def _rel(site: Path, page: Path) -> str:
    return posixpath.normpath(os.path.relpath(page, site)).replace(os.sep, "/")


def summary_links(site: Path, summary: Path) -> list[str]:
    """Page links of an mdBook or GitBook SUMMARY.md in file order (drafts and URLs left out)."""
    out: list[str] = []
    in_code = False
    text = summary.read_text(encoding="utf-8")
    # Reference links (`[Plugins][plugins]` and `[plugins]: ./plugins/plugins.md`) are links
    # to both parsers (pulldown-cmark, GitBook's).
    defs = {
        " ".join(m[1].split()).casefold(): m[2]
        for m in re.finditer(r"(?m)^ {0,3}\[([^\[\]]+)\]:[ \t]*<?([^\s>]+)>?", text)
    }
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or re.match(r" {0,3}\[[^\[\]]+\]:", line):
            continue
        links = LINK.findall(line)
        if not links and defs:
            for m in re.finditer(r"\[([^\[\]]*)\](?:\[([^\[\]]*)\])?", line):
                key = " ".join((m[2] or m[1]).split()).casefold()
                if key in defs:
                    links = [defs[key]]
                    break
        for link in links:
            target = link.split("#", 1)[0]
            if target and "://" not in target:
                # `/contents/a.md` is from the book's root, the summary's folder.
                out.append(_rel(site, summary.parent / unquote(target).lstrip("/")))
    return out


def mdbook(site: Path) -> list[str]:
    """mdBook: every chapter of SUMMARY.md in file order (prefix, numbered, suffix)."""
    book = tomllib.loads((site / "book.toml").read_text(encoding="utf-8"))
    src = site / book.get("book", {}).get("src", "src")
    return summary_links(site, src / "SUMMARY.md")


def gitbook(site: Path) -> list[str]:
    """GitBook: the readme first, then SUMMARY.md in file order."""
    config: dict[str, Any] = {}
    if (site / ".gitbook.yaml").is_file():
        config = yaml.safe_load((site / ".gitbook.yaml").read_text(encoding="utf-8")) or {}
    root = site / str(config.get("root", "."))
    structure = config.get("structure") or {}
    summary = root / structure.get("summary", "SUMMARY.md")
    readme = _rel(site, root / structure.get("readme", "README.md"))
    pages = summary_links(site, summary)
    return list(dict.fromkeys([readme, *pages])) if readme not in pages else pages


def _docfx_toc_md(path: Path) -> list[dict[str, Any]]:
    """A DocFX toc.md as toc.yml items: `# [Name](href)`, `# [Name](xref:uid)`, `# Name`."""
    root: list[dict[str, Any]] = []
    stack: list[tuple[int, list[dict[str, Any]]]] = [(0, root)]
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        m = re.match(r"^(#{1,6})\s*(.*?)\s*$", line)
        if not m or not m.group(2):
            continue
        level, title = len(m.group(1)), m.group(2)
        link = re.match(r"^\[(.*)\]\(([^)\s]*)\)$", title)
        item: dict[str, Any] = {"name": link.group(1) if link else title, "items": []}
        if link and link.group(2).startswith("xref:"):
            item["uid"] = link.group(2)[5:]
        elif link:
            item["href"] = link.group(2)
        while stack[-1][0] >= level:
            stack.pop()
        stack[-1][1].append(item)
        stack.append((level, item["items"]))
    return root


def _docfx_uids(site: Path) -> dict[str, Path]:
    """Pages by their front matter uid."""
    uids: dict[str, Path] = {}
    config = site / "docfx.json"
    try:
        data = json.loads(config.read_text(encoding="utf-8-sig")) if config.is_file() else {}
    except json.JSONDecodeError:
        data = {}  # comments or trailing commas, which DocFX allows: no overwrite read here
    overwrite = (data.get("build") or {}).get("overwrite") or []
    overwrite = [overwrite] if isinstance(overwrite, str | dict) else overwrite
    # File mappings ({files: [...]}) name their patterns inside.
    overwrite = [
        g
        for entry in overwrite
        for g in (entry.get("files") or [] if isinstance(entry, dict) else [entry])
    ]
    for page in sorted(site.rglob("*.md")):
        rel = _rel(site, page)
        if any(
            isinstance(g, str) and fnmatch.fnmatch(rel, g.replace("**/", "*")) for g in overwrite
        ):
            continue  # an overwrite file amends API pages; DocFX reads no uid page from it
        m = re.match(r"---\n(.*?)\n---", page.read_text(encoding="utf-8-sig"), re.S)
        try:
            meta = yaml.safe_load(m.group(1)) if m else None
        except yaml.YAMLError:
            meta = None  # DocFX's own placeholders (`[*content]`) are no YAML: no uid here
        if isinstance(meta, dict) and isinstance(meta.get("uid"), str):
            uids.setdefault(meta["uid"], page)
    return uids


def _docfx_find_toc(folder: Path) -> Path | None:
    return next((folder / n for n in ("toc.yml", "toc.md") if (folder / n).is_file()), None)


class _DocfxOrder:
    """DocFX's TocResolver rules, written out page by page."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.out: list[str] = []
        self.seen: set[Path] = set()
        self.uids = _docfx_uids(site)

    def toc(self, path: Path, navbar: bool = False) -> None:
        self.seen.add(path.resolve())
        if path.suffix == ".md":
            items: Any = _docfx_toc_md(path)
        else:
            items = yaml.safe_load(path.read_text(encoding="utf-8-sig")) or []
        if isinstance(items, dict):
            items = items.get("items", [])
        self.walk(items, path.parent, navbar)

    def nearest(self, page: Path, top: Path) -> Path | None:
        """The nearest other toc up the page's folders (DocFX shows it beside the page)."""
        folder = page.parent
        while folder.is_relative_to(top) and folder != top:
            found = _docfx_find_toc(folder)
            if found is not None:
                return None if found.resolve() in self.seen else found
            folder = folder.parent
        return None

    def path(self, base: Path, href: str) -> Path:
        """An href's file: ``~/`` is the project's folder, anything else the toc's."""
        return self.site / href[2:] if href.startswith("~/") else base / href

    def target(self, item: dict[str, Any], base: Path) -> tuple[Path | None, Path | None]:
        """An item's nested toc and its page (href, else uid), after its topic page."""
        href = str(item.get("href") or "")
        topic = item.get("topicHref") or item.get("homepage")
        uid = item.get("topicUid") or item.get("uid") or item.get("homepageUid")
        if topic:
            self.out.append(_rel(self.site, self.path(base, str(topic))))
        elif uid and not href and uid in self.uids:
            self.out.append(_rel(self.site, self.uids[uid]))
        if href.startswith("/") and not href.startswith("//"):
            # A URL of the built site (DocFX keeps it as written): the page written there.
            page = self.url_page(href)
            if page is not None:
                self.out.append(_rel(self.site, page))
            return None, page
        if href and "://" not in href:
            target = self.path(base, href)
            if href.endswith("/") or target.is_dir():
                return _docfx_find_toc(target), None
            if target.name.lower() in ("toc.yml", "toc.md"):
                return target, None
            if target.suffix == ".md":
                self.out.append(_rel(self.site, target))
                return None, target
        elif not topic and uid in self.uids and not item.get("items"):
            return None, self.uids[uid]
        return None, None

    def url_page(self, href: str) -> Path | None:
        url = unquote(href.split("#", 1)[0].split("?", 1)[0]).lstrip("/")
        url = url + "index.html" if not url or url.endswith("/") else url
        stem = url[: -len(".html")] if url.endswith(".html") else url
        names = (f"{stem}.md", f"{stem}/index.md")
        return next((self.site / n for n in names if (self.site / n).is_file()), None)

    def walk(self, items: list[dict[str, Any]], base: Path, navbar: bool) -> None:
        for item in items:
            nested, page = self.target(item, base)
            if navbar and page is not None and not item.get("items"):
                sidebar = self.nearest(page, base)
                if sidebar is not None:
                    self.toc(sidebar)
            if nested is not None and nested.is_file():
                self.toc(nested)
            self.walk(item.get("items") or [], base, False)


def _docfx_json(config: Path) -> dict[str, Any]:
    """docfx.json as DocFX reads it: comments and trailing commas allowed."""
    text = config.read_text(encoding="utf-8-sig")
    out, i = [], 0
    while i < len(text):  # comments out, strings kept whole
        if text[i] == '"':
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2 if "*/" in text[i + 2 :] else len(text)
        else:
            out.append(text[i])
            i += 1
    data = json.loads(re.sub(r",(\s*[}\]])", r"\1", "".join(out)))
    return data if isinstance(data, dict) else {}


def docfx(site: Path) -> list[str]:
    """DocFX (TocResolver): toc items depth first; topicHref (or the older homepage) or a
    uid page leads an item; a folder or toc href expands that toc; in the navigation bar
    (the toc beside docfx.json) a page whose nearest toc is another shows that toc."""
    order = _DocfxOrder(site)
    root = _docfx_find_toc(site)
    if root is not None:
        order.toc(root, navbar=(site / "docfx.json").is_file())
    # A toc the navigation bar never reaches is still built (when build.content names it)
    # and is the sidebar of its folder's pages: after the bar's, shallowest first.
    config = site / "docfx.json"
    data = _docfx_json(config) if config.is_file() else {}
    entries = [e for e in (data.get("build") or {}).get("content") or [] if not e.get("src")]
    globs = [g for entry in entries for g in entry.get("files") or []]
    excludes = [g for entry in entries for g in entry.get("exclude") or []]
    if root is not None and globs:
        found = sorted(
            (p for n in ("toc.yml", "toc.md") for p in site.rglob(n) if p.parent != site),
            key=lambda p: (len(p.relative_to(site).parts), p.as_posix()),
        )
        for toc in found:
            rel = _rel(site, toc)
            if toc.resolve() in order.seen or not any(_glob_regex(g).match(rel) for g in globs):
                continue
            order.toc(toc)
    if root is not None and globs:
        # Pages build.content builds that no toc lists are published too: in path order.
        listed = set(order.out)
        for page in sorted(site.rglob("*.md")):
            rel = _rel(site, page)
            built = any(_glob_regex(g).match(rel) for g in globs)
            if rel in listed or not built or any(_glob_regex(g).match(rel) for g in excludes):
                continue
            if rel.lower() == "readme.md":
                continue  # the site root's README: the catalog's own README, not a document
            if "redirect_url" not in _front_matter(page):  # a redirection, no page
                order.out.append(rel)
    return order.out


def myst(site: Path) -> list[str]:
    """mystmd: project.toc entries in file order, children depth first, patterns sorted."""
    config = yaml.safe_load((site / "myst.yml").read_text(encoding="utf-8"))
    toc = config["project"].get("toc")
    # mystmd's `extends`: local files merged under myst.yml; the toc comes from one of them
    # when myst.yml has none (remote URLs are shared site settings, never a toc here).
    for extra in config.get("extends") or []:
        if toc is None and "://" not in extra:
            extended = yaml.safe_load((site / extra).read_text(encoding="utf-8")) or {}
            toc = (extended.get("project") or {}).get("toc")
    out: list[str] = []

    def walk(entries: list[dict[str, Any]]) -> None:
        for e in entries:
            if "file" in e:
                out.append(_rel(site, site / e["file"]))
            if "pattern" in e:
                hits = sorted(
                    p
                    for p in site.rglob("*")
                    if p.suffix in (".md", ".ipynb")
                    and fnmatch.fnmatch(_rel(site, p), e["pattern"])
                )
                out.extend(_rel(site, p) for p in hits)
            walk(e.get("children") or [])

    walk(toc or [])
    return out


def jupyter_book(site: Path) -> list[str]:
    """Jupyter Book 1: _toc.yml parsed by sphinx-external-toc, root then subtrees depth first."""
    from sphinx_external_toc.parsing import parse_toc_yaml

    site_map = parse_toc_yaml(site / "_toc.yml")
    files = sorted(p for p in site.rglob("*") if p.suffix in (".md", ".ipynb", ".rst", ".Rmd"))
    names = {_rel(site, p).rsplit(".", 1)[0]: _rel(site, p) for p in files}
    out: list[str] = []

    def visit(docname: str) -> None:
        out.append(names.get(docname, docname))
        doc = site_map[docname]
        for subtree in doc.subtrees:
            for item in subtree.items:
                if hasattr(item, "pattern"):
                    hits = sorted(n for n in names if fnmatch.fnmatch(n, item.pattern))
                    for name in hits:
                        if name not in out and name in site_map:
                            visit(name)
                        elif name not in site_map:
                            out.append(names[name])
                elif isinstance(item, str):
                    visit(item)

    visit(site_map.root.docname)
    return out


def sphinx(site: Path) -> list[str]:
    """Sphinx: build (dummy builder) and walk the environment's toctrees from the root."""
    import pickle

    work = Path(tempfile.mkdtemp(prefix="realdocs-sphinx-"))
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sphinx",
                "-b",
                "dummy",
                "-q",
                "-D",
                "nb_execution_mode=off",
                "-d",
                str(work / "d"),
                str(site),
                str(work / "o"),
            ],
            check=False,
            cwd=site,
        )
        with (work / "d" / "environment.pickle").open("rb") as fh:
            env = pickle.load(fh)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out: list[str] = []

    def visit(doc: str) -> None:
        if doc in out:
            return
        out.append(doc)
        for child in env.toctree_includes.get(doc, []):
            visit(child)

    visit(env.config.root_doc)
    return [_rel(site, Path(env.doc2path(d))) for d in out]


def mkdocs(site: Path) -> list[str]:
    """MkDocs: the navigation `mkdocs build` makes, plugins' on_files/on_nav applied."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.nav import get_navigation

    cwd = os.getcwd()
    os.chdir(site)
    try:
        config = load_config(str(site / "mkdocs.yml"))
        try:
            config = config.plugins.on_config(config)
            files = config.plugins.on_files(get_files(config), config=config)
            nav = get_navigation(files, config)
            nav = config.plugins.on_nav(nav, config=config, files=files)
        except Exception as exc:  # a plugin of another version than the site's
            # mkdocstrings and the like fail on options of their other versions; they do not
            # change the navigation, so it is made without plugin hooks then.
            print(f"{site.name}: plugins left out ({exc})", file=sys.stderr)
            files = get_files(config)
            nav = get_navigation(files, config)
        docs = Path(config.docs_dir)
        return [_rel(site, docs / p.file.src_uri) for p in nav.pages]
    finally:
        os.chdir(cwd)


def _unprefixed(name: str) -> str:
    """A name without its Docusaurus number prefix (numberPrefix.ts: none when the name
    starts with two numbers joined by a separator, a date or a version like 1.3_to_1.4)."""
    return name if re.match(r"\d+[-_.]\d+", name) else re.sub(r"^\d+[-_.]", "", name)


def _doc_ids(docs: Path) -> dict[str, Path]:
    """Docusaurus doc ids: folder + front matter id (else the name without number prefix)."""
    ids: dict[str, Path] = {}
    for page in sorted(docs.rglob("*")):
        if page.suffix not in (".md", ".mdx") or any(
            part.startswith("_") for part in page.relative_to(docs).parts
        ):
            continue
        front = _front_matter(page)
        folder = "/".join(_unprefixed(part) for part in page.relative_to(docs).parent.parts)
        name = str(front.get("id") or _unprefixed(page.stem))
        ids[f"{folder}/{name}" if folder else name] = page
    return ids


def _front_matter(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    try:
        data = yaml.safe_load(text[3:end]) if end > 0 else {}
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _autogenerated(docs: Path, folder: Path) -> list[Path]:
    """Docusaurus's autogenerated sidebar for one folder, as its documented rules order it."""
    entries: list[tuple[float, str, list[Path]]] = []
    if not folder.is_dir():
        return []  # a folder the build generates (an API reference), not in the tree
    for child in sorted(folder.iterdir(), key=lambda p: p.name):
        if child.name.startswith("_"):
            continue
        prefix = None if _unprefixed(child.name) == child.name else re.match(r"\d+", child.name)
        if child.is_dir():
            category: dict[str, Any] = {}
            for meta in ("_category_.json", "_category_.yml", "_category_.yaml"):
                if (child / meta).is_file():
                    category = yaml.safe_load((child / meta).read_text(encoding="utf-8")) or {}
            position = category.get("position", int(prefix.group(0)) if prefix else None)
            inner = _autogenerated(docs, child)
            index = [
                p
                for p in inner
                if p.parent == child and p.stem.lower() in ("index", "readme", child.name.lower())
            ]
            pages = index[:1] + [p for p in inner if p not in index[:1]]
            entries.append((float("inf") if position is None else position, child.name, pages))
        elif child.suffix in (".md", ".mdx"):
            front = _front_matter(child)
            if front.get("draft"):
                continue
            position = front.get("sidebar_position", int(prefix.group(0)) if prefix else None)
            entries.append((float("inf") if position is None else position, child.name, [child]))
    entries.sort(key=lambda e: e[0])
    return [p for _, _, pages in entries for p in pages]


def _v1_front_matter(page: Path) -> dict[str, Any]:
    """Docusaurus 1's front matter reader (metadataUtils.extractMetadata): `key: value` lines,
    values JSON-parsed when they are JSON."""
    lines = page.read_text(encoding="utf-8").split("\n")
    if lines[0].rstrip("\r") != "---":
        return {}
    out: dict[str, Any] = {}
    for line in lines[1:]:
        if line.rstrip("\r") == "---":
            break
        key, _, value = line.partition(":")
        try:
            out[key.strip()] = json.loads(value.strip())
        except ValueError:
            out[key.strip()] = value.strip()
    return out


def docusaurus1(site: Path) -> list[str]:
    """Docusaurus 1 (readMetadata.readSidebar): website/sidebars.json's sidebars, categories
    and items (subcategories' ids in place) in file order; ids are the front matter id (else
    the file name) after the subfolder; then the docs no sidebar lists, in path order."""
    website = site / "website"
    docs = site / "docs"
    ids: dict[str, Path] = {}
    for page in sorted(docs.rglob("*")):
        if page.suffix in (".md", ".markdown") and page.is_file():
            sub = page.relative_to(docs).parent.as_posix()
            own = str(_v1_front_matter(page).get("id") or page.stem)
            ids.setdefault(own if sub == "." else f"{sub}/{own}", page)
    sidebars = json.loads((website / "sidebars.json").read_text(encoding="utf-8"))
    out: list[Path] = []
    for categories in sidebars.values():
        for items in categories.values():
            for item in items:
                for ident in item["ids"] if isinstance(item, dict) else [item]:
                    if ident in ids:
                        out.append(ids[ident])
    out += [p for p in ids.values() if p not in out]
    return [_rel(site, p) for p in out]


def _load_sidebars(sidebar_file: Path) -> Any:
    """A sidebars file: JSON read, JS/TS evaluated by node (type annotations stripped)."""
    if sidebar_file.suffix == ".json":
        sidebars = json.loads(sidebar_file.read_text(encoding="utf-8"))
    else:
        source = sidebar_file.read_text(encoding="utf-8")
        source = re.sub(r"^import type .*$", "", source, flags=re.M)
        source = re.sub(r":\s*SidebarsConfig", "", source)
        source = source.replace("export default sidebars", "module.exports = sidebars")
        source = re.sub(r"^export default\b", "module.exports =", source, flags=re.M)
        # Beside the sidebars file, so that its require('./tutorials.json') finds its files.
        with tempfile.NamedTemporaryFile(
            "w", suffix=".cjs", delete=False, dir=sidebar_file.parent
        ) as fh:
            fh.write(source)
        try:
            result = subprocess.run(
                ["node", "-e", f"console.log(JSON.stringify(require({fh.name!r})))"],
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            os.unlink(fh.name)
        sidebars = json.loads(result.stdout)
    return sidebars


def _sidebar_walker(docs: Path, ids: dict[str, Path], out: list[Path]) -> Callable[[Any], None]:
    """A function putting a sidebar item's pages into ``out``, depth first; a doc id no file
    has (a page a deploy script writes) is left out."""

    def item(entry: Any) -> None:
        if isinstance(entry, str):
            out.extend(ids[i] for i in (entry,) if i in ids)
        elif isinstance(entry, list):
            for e in entry:
                item(e)
        elif isinstance(entry, dict) and "type" not in entry:
            for value in entry.values():  # the older {"Label": [ids]} shape
                item(value)
        elif entry.get("type") == "doc":
            out.extend(ids[i] for i in (entry["id"],) if i in ids)
        elif entry.get("type") == "category":
            link = entry.get("link") or {}
            if link.get("type") == "doc":
                out.append(ids[link["id"]])
            item(entry.get("items", []))
        elif entry.get("type") == "autogenerated":
            out.extend(_autogenerated(docs, docs / entry.get("dirName", ".")))

    return item


def docusaurus(site: Path, *, only_first: bool = True) -> list[str]:
    """Docusaurus: the sidebar file (JSON read, JS/TS evaluated by node), walked depth first:
    its first sidebar, or (``only_first=False``) every sidebar, then the docs none lists."""
    if not any(site.glob("docusaurus.config.*")) and (site / "website/siteConfig.js").is_file():
        return docusaurus1(site)
    config = next(c for d in (site, site / "website") for c in d.glob("docusaurus.config.*"))
    site_dir = config.parent
    text = config.read_text(encoding="utf-8")
    path = re.search(r"docs['\"]?:\s*\{.{0,800}?\bpath['\"]?:\s*['\"]([^'\"]+)['\"]", text, re.S)
    docs = (site_dir / (path.group(1) if path else "docs")).resolve()
    sidebar_file = next(
        site_dir / n
        for n in ("sidebars.json", "sidebars.js", "sidebars.ts")
        if (site_dir / n).is_file()
    )
    # A versioned site serves `lastVersion`, else the newest of versions.json, from
    # versioned_docs/ with its versioned_sidebars/ file.
    versions = site_dir / "versions.json"
    if versions.is_file():
        last = re.search(r"lastVersion['\"]?:\s*['\"]([^'\"]+)['\"]", text)
        names = json.loads(versions.read_text(encoding="utf-8"))
        version = last.group(1) if last else (names[0] if names else "current")
        if version != "current" and (site_dir / f"versioned_docs/version-{version}").is_dir():
            docs = site_dir / f"versioned_docs/version-{version}"
            sidebar_file = site_dir / f"versioned_sidebars/version-{version}-sidebars.json"
    sidebars = _load_sidebars(sidebar_file)
    ids = _doc_ids(docs)
    out: list[Path] = []
    item = _sidebar_walker(docs, ids, out)
    if only_first:
        item(next(iter(sidebars.values())))
    else:
        # Every sidebar in file order, then the docs no sidebar lists (published), by path.
        for value in sidebars.values():
            item(value)
        out.extend(p for p in ids.values() if p not in out)
    # The docs options' `exclude` globs (relative to the docs folder) are no docs.
    excluded = re.search(r"\bexclude['\"]?:\s*\[([^\]]*)\]", text)
    if excluded:
        globs = re.findall(r"['\"]([^'\"]+)['\"]", excluded.group(1))
        out = [
            p
            for p in out
            if not any(fnmatch.fnmatch(p.relative_to(docs).as_posix(), g) for g in globs)
        ]
    return [_rel(site, p) for p in out]


SHORTCODE = re.compile(r"\{\{[<%]\s*(/?)\s*([\w./-]+)")
# A self-closed shortcode (`{{% attachments /%}}`) counts as closed: its stub reads .Inner.
SELF_CLOSED = re.compile(r"\{\{[<%]\s*([\w./-]+)[^{}]*/\s*[>%]\}\}")
HUGO_LAYOUT = """{{- define "walk" -}}
{{- range .Pages -}}
{{- with .File }}{{ .Path }}
{{ end -}}
{{- if .IsSection }}{{ template "walk" . }}{{ end -}}
{{- end -}}
{{- end -}}
{{- define "one" -}}
{{- with .File }}{{ .Path }}
{{ end -}}
{{- if .IsSection }}{{ template "walk" . }}{{ end -}}
{{- end -}}
{{- with .Site.Home.File }}{{ .Path }}
{{ end -}}
{{- $listed := slice -}}
{{- range .Site.Menus.main -}}
{{- with .Page -}}
{{- if and (not .IsHome) (eq .Parent $.Site.Home) (not (in $listed .)) -}}
{{- $listed = $listed | append . -}}
{{- template "one" . -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range .Site.Home.Pages -}}
{{- if not (in $listed .) }}{{ template "one" . }}{{ end -}}
{{- end -}}
"""


def _plain_hugo_config(copy: Path) -> None:
    """The copy's YAML configuration without what the walk cannot or need not use."""
    for config in [*copy.glob("*.yaml"), *copy.glob("config/_default/*.yaml")]:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
        if isinstance(data, dict) and config.stem in ("hugo", "config"):
            # No git history in the checkout, and the theme's output formats are absent.
            data["enableGitInfo"] = False
            data.pop("outputs", None)
            # Newer permalink tokens are unknown to Hugo 0.111 and do not change the order.
            data.pop("permalinks", None)
            if isinstance(data.get("module"), dict):
                data["module"].pop("workspace", None)
            # Newer typographer settings (a mapping) are unknown to Hugo 0.111; no order in them.
            markup = data.get("markup")
            goldmark = markup.get("goldmark") if isinstance(markup, dict) else None
            extensions = goldmark.get("extensions") if isinstance(goldmark, dict) else None
            if isinstance(extensions, dict) and isinstance(extensions.get("typographer"), dict):
                extensions.pop("typographer")
            config.write_text(yaml.safe_dump(data), encoding="utf-8")


def _empty_theme(theme: Path) -> None:
    """An empty theme folder, in place of a link into node_modules/ (Jaeger's docsy)."""
    if theme.is_symlink() and not theme.exists():
        theme.unlink()
    theme.mkdir(parents=True, exist_ok=True)


def hugo(site: Path, content: str) -> list[str]:
    """Hugo: a home layout that walks the home's entries of the `main` menu in the menu's
    order (a theme's top navigation), then its other sections and pages, each section in
    Hugo's default page order."""
    work = Path(tempfile.mkdtemp(prefix="realdocs-hugo-"))
    try:
        copy = work / "site"
        # The folder above the site too (files mounted from ../), unless that is the trees'.
        above = site.parent if site.parent != TREES else None
        if above is None:
            shutil.copytree(site, work / "repo" / site.name, symlinks=True)
        else:
            shutil.copytree(above, work / "repo", symlinks=True)
        copy = work / "repo" / site.name
        layouts = work / "layouts"
        (layouts / "_default").mkdir(parents=True)
        (layouts / "index.html").write_text(HUGO_LAYOUT)
        for kind in ("single", "list"):
            (layouts / "_default" / f"{kind}.html").write_text("")
        # The theme is left out (its modules need the network); its shortcodes render nothing.
        (layouts / "shortcodes").mkdir()
        used: dict[str, bool] = {}
        # Content pages written in HTML (a Docsy home's _index.html) call shortcodes too.
        for page in [*site.rglob("*.md"), *(site / content).rglob("*.html")]:
            text = page.read_text("utf-8", errors="replace")
            for close, name in SHORTCODE.findall(text):
                used[name] = used.get(name, False) or bool(close)
            for name in SELF_CLOSED.findall(text):
                used[name] = True
        for name, paired in used.items():
            target = layouts / "shortcodes" / f"{name}.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("{{- $_ := .Inner -}}" if paired else "")
        override = work / "override.toml"
        override.write_text(
            'enableGitInfo = false\nthemesDir = "themes"\n'
            '[outputs]\nhome = ["HTML"]\nsection = ["HTML"]\npage = ["HTML"]\n'
        )
        for name in ("go.mod", "go.sum", "go.work", "hugo.work", "docsy.work"):
            # Without them Hugo asks for the theme module by name (no `go mod download`).
            (copy / name).unlink(missing_ok=True)
        shutil.rmtree(copy / "layouts", ignore_errors=True)
        (copy / "layouts").symlink_to(layouts)
        _plain_hugo_config(copy)
        cmd = ["hugo", "-v", "-d", str(work / "public"), "--disableKinds", "taxonomy,term"]
        configs = ("hugo.toml", "hugo.yaml", "config.toml", "config.yaml")
        first = next((copy / n for n in configs if (copy / n).is_file()), None)
        cmd += ["--config", f"{first},{override}" if first is not None else str(override)]
        for _ in range(4):
            # The environment wins over every configuration file (config/_default/ too).
            env = {**os.environ, "HUGO_ENABLEGITINFO": "false"}
            done = subprocess.run(
                cmd, cwd=copy, capture_output=True, text=True, check=False, env=env
            )
            missing = re.search(r'module "([^"]+)" not found', done.stderr)
            if done.returncode == 0 or missing is None:
                break
            # The theme's own layouts are not wanted: an empty theme of that name will do.
            _empty_theme(copy / "themes" / missing.group(1))
        if done.returncode != 0:
            raise RuntimeError(" | ".join((done.stderr + done.stdout).splitlines()[-6:]))
        lines = _home_lines(work / "public")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _hugo_pages(site, content, lines)


def _home_lines(public: Path) -> list[str]:
    """The walk the home layout wrote: public/index.html, or the page it redirects to
    (defaultContentLanguageInSubdir sends / to /en/), else the first index.html."""
    home = public / "index.html"
    lines = home.read_text().split() if home.is_file() else []
    if 'http-equiv="refresh"' in lines:
        target = re.search(r'url=/([^"]*)"', home.read_text())
        home = public / (target.group(1) if target else "") / "index.html"
        lines = home.read_text().split() if home.is_file() else []
    if not lines:
        candidates = list(public.rglob("index.html"))
        lines = candidates[0].read_text().split() if candidates else []
    return lines


def _hugo_pages(site: Path, content: str, lines: list[str]) -> list[str]:
    """The walk's content paths as site paths (a mounted file as itself), pages a layout
    fills left out."""
    out: list[str] = []
    for line in map(html.unescape, lines):
        page = site / content / line
        outside = site.parent / Path(line).name
        # A module mount can bring a file from outside the content folder (the repository's
        # README.md mounted at content/project/repo/README.md): that file is the page.
        if not page.exists() and outside.exists():
            out.append(_rel(site, outside))
        elif not _filled_by_layout(page) and not _never_rendered(page, site / content):
            out.append(f"{content}/{line}")
    return out


def _split(text: str) -> tuple[dict[str, Any], str] | None:
    """YAML (``---``) or TOML (``+++``) front matter and the body, or ``None``."""
    m = re.match(r"---\n(.*?)\n---\n?(.*)\Z", text, re.S)
    if m:
        meta = yaml.safe_load(m.group(1))
        return (meta if isinstance(meta, dict) else {}), m.group(2)
    m = re.match(r"\+\+\+\n(.*?)\n\+\+\+\n?(.*)\Z", text, re.S)
    return (tomllib.loads(m.group(1)), m.group(2)) if m else None


def _front_matter(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8-sig") if page.is_file() else ""
    found = _split(text)
    return found[0] if found else {}


def _never_rendered(page: Path, content: Path) -> bool:
    """A regular page Hugo does not render (`build: {render: never}`, its own or passed down
    by the nearest section's `cascade`): no page of the site. Hugo 0.111's walk still lists
    some (`list: local`), today's Hugo documents them as unpublished."""
    if page.stem.split(".", 1)[0] == "_index":
        return False
    own = _front_matter(page)
    build = own.get("build") or own.get("_build")
    if isinstance(build, dict):
        return build.get("render") in ("never", False)
    folder = page.parent
    while folder.is_relative_to(content):
        cascade = _front_matter(folder / "_index.md").get("cascade")
        for entry in cascade if isinstance(cascade, list) else [cascade]:
            if isinstance(entry, dict) and "target" not in entry:
                passed = entry.get("build") or entry.get("_build")
                if isinstance(passed, dict):
                    return passed.get("render") in ("never", False)
        folder = folder.parent
    return False


def _filled_by_layout(page: Path) -> bool:
    """A page without text whose front matter names a layout or type (`layout: search`): the
    theme fills it; a route of the site, not a page of its navigation; so is a page that is
    only a link target (`render: link`). A section's own page (`_index.md`) always leads its
    section."""
    index = page.stem.split(".", 1)[0] == "_index"
    text = page.read_text(encoding="utf-8-sig") if page.is_file() and not index else ""
    found = _split(text)
    if found is None:
        return False
    meta, body = found
    build = meta.get("build") or meta.get("_build")
    if isinstance(build, dict) and build.get("render") == "link":
        return True  # listed, but only a link target (redirected by the host): no page
    named = any(isinstance(meta.get(k), str) for k in ("layout", "type"))
    return named and not body.strip()


EVALCONFIG = HERE / "evalconfig.mjs"


def _evaluated(config: Path) -> dict[str, Any]:
    """A JavaScript/TypeScript site configuration evaluated by node (evalconfig.mjs: bundled by
    esbuild, packages stubbed to return their first object argument, fast-glob and
    gray-matter real); NODE_PATH must name a node_modules holding those three."""
    # A configuration folder (.vitepress/config/index.ts) reads files from the project root,
    # where VitePress runs.
    folder = config.parent.name == "config" and config.parent.parent.name == ".vitepress"
    cwd = config.parent.parent.parent if folder else config.parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "config.json"
        subprocess.run(
            ["node", str(EVALCONFIG), str(config), str(out)],
            cwd=cwd,
            check=True,
            capture_output=True,
        )
        (config.parent / ".evalconfig.bundle.mjs").unlink(missing_ok=True)
        data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A fast-glob pattern (``**/guide/examples/*``) as a regular expression over a path."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def vitepress(site: Path) -> list[str]:
    """VitePress: the home page, then themeConfig.sidebar of the evaluated configuration (an
    array, or sidebars by path each in file order) walked depth first, each item's link
    before its items and links under the nearest base; then the pages no sidebar lists, by
    path (srcExclude, node_modules, dist, hidden folders and other locales left out)."""
    config_file = next(
        c
        for d in (site, site / "docs")
        for c in [
            *sorted(d.glob(".vitepress/config.*")),
            *sorted(d.glob(".vitepress/config/index.*")),
        ]
    )
    project = next(p for p in config_file.parents if p.name == ".vitepress").parent
    config = _evaluated(config_file)
    src = (project / config.get("srcDir", ".")).resolve()
    excludes = [_glob_regex(p) for p in config.get("srcExclude", [])]
    locales = [k.strip("/") for k in config.get("locales", {}) if k != "root"]
    pages: dict[str, Path] = {}
    for page in sorted(src.rglob("*.md"), key=lambda p: p.relative_to(src).as_posix()):
        rel = page.relative_to(src).as_posix()
        parts = rel.split("/")
        if any(p.startswith(".") or p in ("node_modules", "dist") for p in parts[:-1]):
            continue
        if parts[0] in locales or any(x.match(rel) for x in excludes):
            continue
        route = rel[: -len(".md")]
        route = route[: -len("index")] if route == "index" or route.endswith("/index") else route
        pages[route.strip("/")] = page
    out: list[Path] = [pages[""]] if "" in pages else []

    def walk(items: Any, base: str) -> None:
        for item in items or []:
            own = item.get("base", base)
            link = item.get("link")
            if isinstance(link, str) and "://" not in link:
                target = link if link.startswith("/") else own + link
                key = target.split("#")[0].removesuffix(".md").removesuffix(".html").strip("/")
                key = "" if key == "index" else key.removesuffix("/index")
                if key in pages:
                    out.append(pages[key])
            walk(item.get("items"), own)

    # A root locale's themeConfig overrides the site's (vue-router spreads its English one there).
    root_theme = config.get("locales", {}).get("root", {}).get("themeConfig", {})
    sidebar = root_theme.get("sidebar") or config.get("themeConfig", {}).get("sidebar", [])
    if isinstance(sidebar, list):
        walk(sidebar, "/")
    else:
        for path, value in sidebar.items():
            if isinstance(value, dict):
                walk(value.get("items"), value.get("base", path))
            else:
                walk(value, "/")
    out += [p for p in pages.values() if p not in out]
    return [_rel(site, p) for p in dict.fromkeys(out)]


def _starlight_slug(rel: str, front: dict[str, Any]) -> str:
    """A Starlight page's slug: front matter slug, else its path without suffix, each
    segment slugged as github-slugger does (lowercase; what is no letter, number, space or
    '-' dropped; spaces '-'), an index page its folder."""
    if isinstance(front.get("slug"), str):
        return str(front["slug"]).strip("/")
    segments = rel.rsplit(".", 1)[0].split("/")
    parts = [re.sub(r"[^\w\- ]", "", p.lower()).replace(" ", "-") for p in segments]
    if parts[-1] == "index":
        parts.pop()
    return "/".join(parts)


def _starlight_autogenerated(
    by_slug: dict[str, Path], content: Path, options: dict[str, Any]
) -> list[Path]:
    """Starlight's autogenerated group (navigation.ts treeify, sortDirEntries): the pages
    below ``directory`` as a tree of their file paths (deepest first, so a page named like a
    folder becomes its index), each folder's entries by ``sidebar.order`` (a folder's is its
    lowest), then by slug (a folder by its name), compared as Intl.Collator('en') does
    (approximated by case folding); hidden pages left out."""
    base = str(options.get("directory", "")).strip("/")
    tree: dict[str, Any] = {}
    rows = []
    for slug, page in by_slug.items():
        rel = page.relative_to(content).with_suffix("").as_posix()
        if base and not (rel == base or rel.startswith(base + "/")):
            continue
        front = _front_matter(page)
        sidebar = front.get("sidebar") or {}
        if sidebar.get("hidden") is True:
            continue
        order = sidebar.get("order")
        order = float(order) if isinstance(order, int | float) else float("inf")
        parts = rel[len(base) :].strip("/").split("/") if base else rel.split("/")
        rows.append((parts, (order, slug, page)))
    for parts, leaf in sorted(rows, key=lambda r: -len(r[0])):
        node = tree
        for i, part in enumerate(parts):
            if i == len(parts) - 1:
                folder = node.get(part)
                if isinstance(folder, dict):
                    folder["index"] = leaf
                else:
                    node[part] = leaf
            else:
                node = node.setdefault(part, {})

    def order_of(entry: Any) -> float:
        if isinstance(entry, dict):
            return min((order_of(e) for e in entry.values()), default=float("inf"))
        return entry[0]

    def flat(node: dict[str, Any], path: str) -> list[Path]:
        # A folder is compared by its slug (its path from the content root, as the pages'
        # slugs are), so `examples` (examples/index.mdx) precedes `examples/apps`.
        def key(kv: tuple[str, Any]) -> tuple[float, str]:
            name, entry = kv
            slug = f"{path}/{name}".strip("/") if isinstance(entry, dict) else entry[1]
            return (order_of(entry), slug.casefold())

        got: list[Path] = []
        for name, entry in sorted(node.items(), key=key):
            below = f"{path}/{name}".strip("/")
            got.extend(flat(entry, below) if isinstance(entry, dict) else [entry[2]])
        return got

    return flat(tree, base)


def starlight(site: Path) -> list[str]:
    """Starlight: the landing page, then the sidebar of the evaluated astro.config (slugs,
    {slug}, internal {link}s, groups depth first) in file order; then the pages no sidebar
    lists, by path. Pages: .md/.mdx/.mdoc of src/content/docs but _-named, draft and 404
    ones, other locales' folders (locale keys are slugs) left out."""
    config_file = next(
        c
        for d in (site, site / "docs")
        for c in sorted(d.glob("astro.config.*"))
        if "@astrojs/starlight" in c.read_text(encoding="utf-8")
    )
    config = _evaluated(config_file)
    options = next(
        i for i in config.get("integrations", []) if isinstance(i, dict) and "title" in i
    )
    content = config_file.parent / config.get("srcDir", "src") / "content" / "docs"
    others = [k.lower() for k in options.get("locales", {}) if k != "root"]
    if options.get("defaultLocale") not in (None, "root"):
        raise NotImplementedError("a default locale with its own folder")
    by_slug: dict[str, Path] = {}
    for page in sorted(content.rglob("*"), key=lambda p: p.relative_to(content).as_posix()):
        rel = page.relative_to(content).as_posix()
        if page.suffix not in (".md", ".mdx", ".mdoc") or page.name.startswith("_"):
            continue
        front = _front_matter(page)
        slug = _starlight_slug(rel, front)
        if front.get("draft") is True or slug == "404" or slug.split("/")[0] in others:
            continue
        by_slug.setdefault(slug, page)
    out: list[Path] = [by_slug[""]] if "" in by_slug else []

    def walk(items: Any) -> None:
        for item in items:
            if isinstance(item, str):
                out.extend(by_slug[s] for s in (item.strip("/"),) if s in by_slug)
            elif "autogenerate" in item:
                out.extend(_starlight_autogenerated(by_slug, content, item["autogenerate"]))
            elif isinstance(item.get("slug"), str):
                out.extend(by_slug[s] for s in (item["slug"].strip("/"),) if s in by_slug)
            elif isinstance(item.get("link"), str) and "://" not in item["link"]:
                key = item["link"].split("#")[0].strip("/")
                out.extend(by_slug[s] for s in (key,) if s in by_slug)
            elif isinstance(item.get("items"), list):
                walk(item["items"])

    walk(options.get("sidebar", []))
    out += [p for p in by_slug.values() if p not in out]
    return [_rel(site, p) for p in dict.fromkeys(out)]


# -- Mintlify: docs.json / mint.json, read by its documented navigation rules ---------------

_MINT_SKIPPED = {"node_modules", "build", "dist", "coverage", "tmp", "temp", "snippets"}
_MINT_ROOT_FILES = {"readme.md", "license.md", "changelog.md", "contributing.md"}
_MINT_ENDPOINT = re.compile(
    r"^(\S+\s+)?(get|post|put|patch|delete|head|options|trace|webhook)\s", re.I
)


def _mint_site(site: Path) -> Path:
    for folder in (site, site / "docs"):
        for name in ("docs.json", "mint.json"):
            if (folder / name).is_file():
                return folder / name
    raise FileNotFoundError("no docs.json or mint.json")


def _mint_files(docs: Path) -> dict[str, Path]:
    """Published pages by path without suffix (Mintlify's default ignores and .mintignore)."""
    ignore = docs / ".mintignore"
    patterns = []
    if ignore.is_file():
        patterns = [
            line.strip()
            for line in ignore.read_text().splitlines()
            if line.strip() and not line.startswith("#") and not line.startswith("!")
        ]
    out: dict[str, Path] = {}
    for page in sorted(docs.rglob("*")):
        rel = page.relative_to(docs).as_posix()
        parts = rel.split("/")
        if page.suffix not in (".md", ".mdx") or not page.is_file():
            continue
        if any(p.startswith(".") or p.lower() in _MINT_SKIPPED for p in parts[:-1]):
            continue
        if len(parts) == 1 and parts[0].lower() in _MINT_ROOT_FILES:
            continue
        if any(
            fnmatch.fnmatch(rel, pat.strip("/") + "/*")
            or fnmatch.fnmatch(parts[-1], pat)
            or any(fnmatch.fnmatch(x, pat.strip("/")) for x in parts[:-1])
            for pat in patterns
        ):
            continue
        out.setdefault(rel.rsplit(".", 1)[0], page)
    return out


def mintlify(site: Path) -> list[str]:  # noqa: C901, PLR0915 (one reading, kept whole)
    """Mintlify: the default language's and version's navigation depth first; hidden groups,
    tabs and pages, OpenAPI endpoints, links and `url:` pages left out; unlisted pages are not
    indexed."""
    config = _mint_site(site)
    docs = config.parent
    data = json.loads(config.read_text(encoding="utf-8"))
    files = _mint_files(docs)
    everything = (data.get("seo") or {}).get("indexing") == "all"
    out: list[Path] = []

    def page(entry: str) -> None:
        if "://" in entry or _MINT_ENDPOINT.match(entry.strip()):
            return
        key = entry.strip().strip("/")
        key = key.rsplit(".", 1)[0] if key.endswith((".md", ".mdx")) else key
        found = files.get(key) or files.get(f"{key}/index" if key else "index")
        if found is None:
            return
        if not everything and _front_matter(found).get("hidden") is True:
            return
        # `url:` in the front matter: the entry links another site (organize/pages.mdx).
        if "://" in str(_front_matter(found).get("url") or ""):
            return
        out.append(found)

    def pages(entries: list[Any]) -> None:
        for entry in entries:
            if isinstance(entry, str):
                page(entry)
            elif isinstance(entry, dict) and "group" in entry:
                group(entry)

    def group(g: dict[str, Any]) -> None:
        if g.get("hidden") is True:
            return
        if isinstance(g.get("root"), str):
            page(g["root"])
        pages(g.get("pages") or [])

    def pick(entries: list[Any]) -> dict[str, Any] | None:
        dicts = [e for e in entries if isinstance(e, dict)]
        marked = [e for e in dicts if e.get("default") is True]
        return (marked or dicts or [None])[0]

    def node(n: dict[str, Any]) -> None:
        if n.get("hidden") is True:
            return
        for key in ("languages", "versions"):
            if isinstance(n.get(key), list):
                chosen = pick(n[key])
                if chosen:
                    node(chosen)
        for key in ("products", "tabs", "anchors", "dropdowns", "menu"):
            for item in n.get(key) or []:
                if isinstance(item, dict):
                    node(item)
        for g in n.get("groups") or []:
            if isinstance(g, dict):
                group(g)
        pages(n.get("pages") or [])

    nav = data.get("navigation")
    if isinstance(nav, dict):
        node(nav)
    else:  # mint.json: groups of the first version; a tab's groups after the others
        versions = data.get("versions") or []
        first = versions[0] if versions else None
        first = first.get("name") if isinstance(first, dict) else first
        mine = [g for g in nav or [] if g.get("version") in (None, first)]
        tabs = [str(t["url"]).strip("/") + "/" for t in data.get("tabs") or [] if t.get("url")]

        def tab(g: dict[str, Any]) -> int:
            names = [p for p in g.get("pages", []) if isinstance(p, str)]
            for i, prefix in enumerate(tabs):
                if names and all(p.strip("/").startswith(prefix) for p in names):
                    return i
            return -1

        for i in range(-1, len(tabs)):
            for g in mine:
                if tab(g) == i:
                    group(g)
    if everything:
        out += [p for p in files.values() if p not in out]
    return [_rel(site, p) for p in dict.fromkeys(out)]


# -- Nextra: _meta files, read by its documented rules ---------------------------------------


def _meta_keys(text: str) -> list[tuple[str, str]]:  # noqa: C901, PLR0912 (one scanner)
    """The top-level keys of a _meta file's object (JSON, or `export default {...}`), each with
    the text of its value, in the order JavaScript keeps them (integer-like keys first)."""
    start = text.find("{", text.find("export default") if "export default" in text else 0)
    keys: list[tuple[str, str]] = []
    depth, i, key, value_start = 0, start, None, 0
    quote = None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        elif text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        elif c in "{[(":
            depth += 1
            if depth == 1:
                value_start = i + 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                if key is not None:
                    keys.append((key, text[value_start:i]))
                break
        elif depth == 1 and c == ":" and key is None:
            raw = text[value_start:i].strip().strip(",").strip()
            key = raw.strip("\"'")
            value_start = i + 1
        elif depth == 1 and c == ",":
            if key is not None:
                keys.append((key, text[value_start:i]))
            key, value_start = None, i + 1
        i += 1
    # Comments are no part of a value (`// "display": "hidden"`).
    keys = [(k, re.sub(r"//[^\n]*|/\*.*?\*/", "", v, flags=re.S)) for k, v in keys]
    ints = [k for k in keys if k[0].isdigit() and str(int(k[0])) == k[0]]
    ints.sort(key=lambda k: int(k[0]))
    return ints + [k for k in keys if k not in ints]


def nextra(site: Path) -> list[str]:  # noqa: C901, PLR0915 (one reading, kept whole)
    """Nextra: each folder's _meta keys in order (an index page it does not name first), then
    unlisted entries by name, depth first; separators and links left out; hidden pages after
    the navigation in path order. Nextra 2 i18n: the default locale's files."""
    content = next(
        (
            c
            for c in (site / "content", site / "pages", site / "src/content", site / "src/pages")
            if c.is_dir()
        ),
        None,
    )
    # Nextra 4 without a content folder: the app's page.mdx files are the pages, each at its
    # folder's route; route groups `(name)` are no level; _private, [dynamic] and @slot
    # folders are no pages of the docs.
    app = content is None
    if content is None:
        content = next(c for c in (site / "app", site / "src/app") if c.is_dir())
    global_meta: dict[str, Any] | None = None
    for suffix in ("js", "jsx", "ts", "tsx", "mjs"):
        if (content / f"_meta.global.{suffix}").is_file():
            global_meta = _evaluated(content / f"_meta.global.{suffix}")
    locale = None
    for name in ("next.config.js", "next.config.mjs", "next.config.ts"):
        if (site / name).is_file():
            found = re.search(r"defaultLocale:\s*['\"]([^'\"]+)", (site / name).read_text())
            locale = found.group(1) if found else None
    hidden: list[Path] = []
    out: list[Path] = []

    def entries(folder: Path) -> dict[str, Path]:
        """A folder's entries by route name; a file named like a folder beside it under the
        name and a NUL mark."""
        dirs: dict[str, Path] = {}
        files: dict[str, Path] = {}
        if app:
            app_entries(folder, dirs, files, True)
            return {**dirs, **{k + "\0file" if k in dirs else k: v for k, v in files.items()}}
        for child in sorted(folder.iterdir()):
            name = child.name
            if name.startswith((".", "_")) or name in ("api", "node_modules"):
                continue
            if child.is_dir():
                dirs[name] = child
            elif child.suffix in (".md", ".mdx"):
                stem = child.stem
                if locale:
                    if not stem.endswith("." + locale):
                        continue
                    stem = stem[: -len(locale) - 1]
                elif "." in stem:
                    continue
                files[stem] = child
        found: dict[str, Path] = {}
        for key in sorted(set(dirs) | set(files)):
            if key in dirs:
                found[key] = dirs[key]
                if key in files:
                    found[key + "\0file"] = files[key]
            else:
                found[key] = files[key]
        return found

    def page_of(folder: Path) -> Path | None:
        return next((folder / n for n in ("page.mdx", "page.md") if (folder / n).is_file()), None)

    def routed(name: str) -> bool:
        return not name.startswith((".", "_", "[", "@")) and name != "node_modules"

    def has_pages(folder: Path) -> bool:
        return any(
            page_of(Path(d)) is not None
            for d, subs, _ in os.walk(folder)
            if all(routed(p) for p in Path(d).relative_to(folder).parts)
        )

    def app_entries(folder: Path, dirs: dict[str, Path], files: dict[str, Path], top: bool) -> None:
        if top and page_of(folder) is not None:
            files["index"] = page_of(folder)  # type: ignore[assignment]
        for child in sorted(c for c in folder.iterdir() if c.is_dir()):
            if not routed(child.name):
                continue
            if child.name.startswith("("):
                app_entries(child, dirs, files, False)
            elif any(routed(c.name) and has_pages(c) for c in child.iterdir() if c.is_dir()):
                dirs[child.name] = child
            elif page_of(child) is not None:
                files[child.name] = page_of(child)  # type: ignore[assignment]

    def meta(folder: Path) -> list[tuple[str, str]]:
        if global_meta is not None:
            here: Any = global_meta
            for part in folder.relative_to(content).parts:
                if part.startswith("("):
                    continue
                here = (here.get(part) or {}) if isinstance(here, dict) else {}
                here = here.get("items", {}) if isinstance(here, dict) else {}
            return [(k, json.dumps(v)) for k, v in here.items()] if isinstance(here, dict) else []
        names = [f"_meta.{locale}.json"] if locale else []
        names += ["_meta.json", "_meta.js", "_meta.jsx", "_meta.ts", "_meta.tsx"]
        for n in names:
            if (folder / n).is_file():
                return _meta_keys((folder / n).read_text(encoding="utf-8"))
        return []

    def walk(folder: Path, inherited_hidden: bool) -> None:
        found = entries(folder)
        listed = meta(folder)
        star = dict(listed).get("*", "")
        order = [k for k, _ in listed if k in found]
        rest = sorted(k for k in found if k not in order and "\0" not in k)
        if "index" in rest:
            # normalize.ts sortFolder: an index page the _meta does not name sorts first.
            rest.remove("index")
            order.insert(0, "index")
        values = dict(listed)
        for key in order + rest:
            value = values.get(key, "")
            is_hidden = inherited_hidden or bool(
                re.search(r"display['\"]?\s*:\s*['\"]hidden", value)
                or (re.search(r"display['\"]?\s*:\s*['\"]hidden", star) and key in values)
            )
            path = found[key]
            if path.is_dir():
                twin = found.get(key + "\0file")
                if twin is not None:
                    (hidden if is_hidden else out).append(twin)
                walk(path, is_hidden)
            else:
                (hidden if is_hidden else out).append(path)

    walk(content, False)
    out += sorted(p for p in hidden if p not in out)
    return [_rel(site, p) for p in dict.fromkeys(out)]


# -- Fumadocs: meta.json files, read by its documented page conventions ----------------------


def fumadocs(site: Path) -> list[str]:  # noqa: C901, PLR0915 (one reading, kept whole)
    """Fumadocs: each folder's index page, then its meta.json `pages` (paths, `...`/`z...a`
    rests by name, `...folder` extracted, `!name` excepted) or its items by name; then the
    pages the tree does not show, by path. i18n: `dir` takes the default language's folder,
    `dot` (the default) the files without another language's suffix."""
    config = (site / "source.config.ts").read_text(encoding="utf-8")
    found = re.search(r"defineDocs\(\s*\{[^}]*?dir:\s*['\"]([^'\"]+)", config, re.S)
    docs = (site / (found.group(1) if found else "content/docs")).resolve()
    lib = "\n".join(p.read_text(encoding="utf-8") for p in sorted(site.glob("lib/**/*.ts*")))
    default = re.search(r"defaultLanguage:\s*['\"]([^'\"]+)", lib)
    default_language = default.group(1) if default else None
    dir_parser = re.search(r"parser:\s*['\"]dir['\"]", lib) is not None
    if default_language and dir_parser and (docs / default_language).is_dir():
        docs = docs / default_language
    i18n = "defineI18n(" in lib

    def other_locale(stem: str) -> bool:
        if not i18n or dir_parser or "." not in stem:
            return False
        suffix = stem.rsplit(".", 1)[1]
        return (
            bool(re.fullmatch(r"[a-z]{2}(-[A-Za-z]{2,4})?", suffix)) and suffix != default_language
        )

    def items(folder: Path) -> dict[str, Path]:
        out: dict[str, Path] = {}
        for child in sorted(folder.iterdir()):
            if child.name.startswith("."):
                continue
            if child.is_dir():
                out[child.name] = child
            elif child.suffix in (".md", ".mdx") and not other_locale(child.stem):
                out.setdefault(child.stem, child)
        return out

    order: list[Path] = []

    def add(folder: Path, name: str) -> None:
        target = folder / name
        if target.is_dir():
            walk(target)
            return
        for suffix in (".mdx", ".md"):
            if target.with_name(target.name + suffix).is_file():
                order.append(target.with_name(target.name + suffix))
                return

    def walk(folder: Path) -> None:
        meta_file = folder / "meta.json"
        meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
        index = meta.get("pagesIndex", "index")
        entries = items(folder)
        if index in entries and entries[index].is_file():
            order.append(entries[index])
        names = sorted((n for n in entries if n != index), key=lambda n: (n.casefold(), n))
        pages = meta.get("pages")
        if pages is None:
            for n in names:
                add(folder, n)
            return
        listed = {p.strip().removeprefix("./").strip("/") for p in pages}
        excepted = {p[1:].removeprefix("./") for p in pages if p.startswith("!")}
        for raw in pages:
            entry = raw.strip()
            if entry.startswith(("!", "[", "external:")) or re.fullmatch(r"---.*---", entry):
                continue
            if entry in ("...", "z...a"):
                rest = [n for n in names if n not in listed and n not in excepted]
                for n in reversed(rest) if entry == "z...a" else rest:
                    add(folder, n)
            elif entry.startswith("..."):
                walk(folder / entry[3:].removeprefix("./"))
            else:
                add(folder, entry.removeprefix("./").strip("/"))

    walk(docs)
    shown = set(order)
    rest = [
        p
        for p in sorted(docs.rglob("*"))
        if p.suffix in (".md", ".mdx")
        and p not in shown
        and not other_locale(p.stem)
        and not any(part.startswith(".") for part in p.relative_to(docs).parts)
    ]
    return [_rel(site, p) for p in dict.fromkeys(order + rest)]


_QUARTO_PAGES = (".qmd", ".md", ".markdown", ".rmd", ".rmarkdown", ".ipynb")


def _quarto_inputs(site: Path) -> list[str]:
    """The files ``quarto render`` renders (quarto-cli projectInputFiles): page suffixes, not
    under a ``_``/``.`` name, no README, no engine environment folder; drafts left out."""
    out = []
    for p in sorted(site.rglob("*")):
        rel = p.relative_to(site)
        if not p.is_file() or p.suffix.lower() not in _QUARTO_PAGES:
            continue
        if any(part[0] in "_." for part in rel.parts) or p.stem == "README":
            continue
        if any(part in ("venv", "env", "renv", "packrat", "rsconnect") for part in rel.parts):
            continue
        if p.suffix != ".ipynb" and _front_matter(p).get("draft") is True:
            continue
        out.append(rel.as_posix())
    return out


def quarto(site: Path) -> list[str]:  # noqa: C901, PLR0912, PLR0915 (one reading, kept whole)
    """Quarto by its documented rules: a book's chapters, parts and appendices; a website's
    home page, sidebars (sections depth first, auto entries), navbar, then its other pages."""
    config = yaml.safe_load((site / "_quarto.yml").read_text(encoding="utf-8")) or {}
    for extra in config.get("metadata-files") or []:
        if (site / extra).is_file():
            more = yaml.safe_load((site / extra).read_text(encoding="utf-8")) or {}
            for key, value in more.items():
                if isinstance(value, dict) and isinstance(config.get(key), dict):
                    config[key] = {**value, **config[key]}
                else:
                    config.setdefault(key, value)
    inputs = _quarto_inputs(site)
    out: list[str] = []

    def add(target: str) -> None:
        target = target.split("#", maxsplit=1)[0].removeprefix("./").strip("/")
        stem = target.removesuffix(".html")
        index = (f"{stem}/index" if stem else "index") + "{}"
        suffixes = (".qmd", ".md", ".ipynb", ".Rmd")
        for c in (target, *(stem + s for s in suffixes), *(index.format(s) for s in suffixes)):
            if c in inputs and c not in out:
                out.append(c)
                return

    if (config.get("project") or {}).get("type") == "book":
        book = config.get("book") or {}

        def chapters(items: list[Any]) -> None:
            for item in items or []:
                if isinstance(item, str):
                    add(item)
                elif isinstance(item, dict) and "part" in item:
                    add(item["part"])
                    chapters(item.get("chapters") or [])

        chapters(book.get("chapters") or [])
        chapters(book.get("appendices") or [])
        return out

    def auto(pattern: str) -> None:
        base = pattern.strip("/")
        if (site / base).is_dir():
            pattern = base + "/**"
        hits = [i for i in inputs if fnmatch.fnmatch(i, pattern) or (pattern == "*" and "/" in i)]
        hits = [h for h in hits if h.split("/")[-1].split(".")[0] != "index" or "/" in h]

        def key(rel: str) -> tuple[Any, ...]:
            order = _front_matter(site / rel).get("order")
            numeric = isinstance(order, (int, float))
            return (not numeric, order if numeric else 0, rel.count("/"), rel.upper())

        for rel in sorted(hits, key=key):
            add(rel)

    def contents(items: Any) -> None:
        if isinstance(items, str):
            items = [{"auto": items}]
        for item in items or []:
            if isinstance(item, str):
                if item == "auto" or "*" in item:
                    auto("*" if item == "auto" else item)
                else:
                    add(item)
            elif isinstance(item, dict):
                if "auto" in item:
                    auto("*" if item["auto"] is True else str(item["auto"]))
                if "href" in item or "file" in item:
                    add(str(item.get("href") or item.get("file")))
                if isinstance(item.get("section"), str) and "contents" in item:
                    add(item["section"])
                contents(item.get("contents") or [])

    add("index")
    website = config.get("website") or {}
    sidebars = website.get("sidebar") or []
    for sidebar in sidebars if isinstance(sidebars, list) else [sidebars]:
        contents(sidebar.get("contents") or [])
    navbar = website.get("navbar") or {}
    for item in (navbar.get("left") or []) + (navbar.get("right") or []):
        for entry in [item, *((item.get("menu") or []) if isinstance(item, dict) else [])]:
            target = entry if isinstance(entry, str) else entry.get("href") or entry.get("file")
            if isinstance(target, str) and "://" not in target:
                add(target)
    # A listing page's pages (its `contents` globs from its folder, by default all below it),
    # newest `date` first then by title unless `sort` says otherwise, follow it when no
    # navigation places them.
    listed: dict[str, list[str]] = {}
    for rel in inputs:
        front = {} if rel.endswith(".ipynb") else _front_matter(site / rel)
        spec = front.get("listing")
        specs = [spec] if isinstance(spec, dict) else [x for x in spec or [] if isinstance(x, dict)]
        if spec in ("default", True):
            specs = [{}]
        folder = posixpath.dirname(rel)
        for listing in specs:
            globs = listing.get("contents") or ["**"]
            globs = [globs] if isinstance(globs, str) else globs
            hits = [
                i
                for i in inputs
                if i != rel and any(fnmatch.fnmatch(i, posixpath.join(folder, g)) for g in globs)
            ]
            sort = listing.get("sort", ["date desc", "title"])
            if sort is not False:
                for key in reversed([sort] if isinstance(sort, str) else sort):
                    name, _, way = key.partition(" ")
                    has = [h for h in hits if _front_matter(site / h).get(name) is not None]
                    hits = sorted(
                        has,
                        key=lambda h, n=name: str(_front_matter(site / h)[n]),
                        reverse=way == "desc",
                    ) + [h for h in hits if h not in has]
            listed.setdefault(rel, []).extend(h for h in hits if h not in listed.get(rel, []))
    later = {h for hits in listed.values() for h in hits} - set(out)
    pages = out + [i for i in inputs if i not in out and i not in later]
    final: list[str] = []
    for rel in pages:
        final.append(rel)
        final += [h for h in listed.get(rel, []) if h in later and h not in final]
    return final


MAKERS: dict[str, Callable[[Path], list[str]]] = {
    "mdbook": mdbook,
    "gitbook": gitbook,
    "docfx": docfx,
    "myst": myst,
    "jupyter-book": jupyter_book,
    "sphinx": sphinx,
    "mkdocs": mkdocs,
    "docusaurus": docusaurus,
    "vitepress": vitepress,
    "starlight": starlight,
    "mintlify": mintlify,
    "nextra": nextra,
    "fumadocs": fumadocs,
    "quarto": quarto,
    "docusaurus-all": lambda site: docusaurus(site, only_first=False),
}


def main(argv: list[str]) -> int:
    """Write the order file of each named tree (all of them without names)."""
    status = 0
    trees = tomllib.loads((HERE / "trees.toml").read_text(encoding="utf-8"))["tree"]
    for tree in trees:
        if argv and tree["name"] not in argv:
            continue
        root = TREES / f"{tree['name']}@{tree['commit'][:12]}"
        site = (root / tree["subfolder"]).resolve()
        try:
            if tree["generator"] == "hugo":
                pages = hugo(site, tree["content"])
            else:
                # A tree whose order names every sidebar walks them all.
                every = "every sidebar" in tree["order"]
                maker = "docusaurus-all" if tree["generator"] == "docusaurus" and every else ""
                pages = MAKERS[maker or tree["generator"]](site)
        except Exception as exc:  # report it and go on with the next tree
            print(f"{tree['name']}: {type(exc).__name__}: {exc}", file=sys.stderr)
            status = 1
            continue
        gone = [p for p in pages if not (site / p).is_file()]
        if gone:
            # The generator shows an entry without a file as an error, not as a page.
            print(f"{tree['name']}: no such file, left out: {gone}", file=sys.stderr)
        pages = [p for p in dict.fromkeys(pages) if p not in gone]
        header = f"# {tree['name']}: {tree['order']}\n"
        body = "".join(f"{p}\n" for p in pages)
        (HERE / "orders" / f"{tree['name']}.txt").write_text(header + body)
        print(f"{tree['name']}: {len(pages)} pages")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
