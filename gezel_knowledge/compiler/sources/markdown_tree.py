"""The Markdown tree adapter: a folder of Markdown files to a :class:`CatalogSource`.

- The generator the tree was written for (MkDocs, mdBook, Hugo...,
  :mod:`gezel_knowledge.compiler.generators`) says where the pages are, fills the catalog
  metadata catalog.yaml leaves out, and decides how links and heading anchors are read.
- Document id: the path relative to the content root (the generator's source folder) without
  its extension (NFC).
- Title: the navigation label the generator gives the page (a nav entry's title, a sidebar
  label), else front matter ``title``, else the first H1, else the file name (an index page's
  folder name); a label or heading without the Markdown it is written in
  (:func:`~gezel_knowledge.compiler.text.titles.plain_title`), a front matter title as written.
- Front matter may give ``title``, ``summary`` (or ``description``), ``aliases``, ``ordinal``
  (Hugo trees also ``weight``), ``locations``, ``tocReferences``, ``sourceUrl``,
  ``sourceRevision``, ``sourceUpdatedAt``, ``attribution``, ``meta`` and ``language``.
- The catalog's name, when neither the site, catalog.yaml nor the flags state one (an empty
  ``title``), is, for a generator's site, the landing page's own title (the navigation's
  first page) unless it is a generic word (README, Introduction, Home...).
- The table of contents comes from the outline the generator reads
  (:mod:`gezel_knowledge.compiler.generators.registry`).
- Links to other pages, found by the generator's rules (:mod:`~.site_links`), become
  ``knowledge://publisher/catalog/document`` references, with ``#line=a-b`` when they name a
  heading (``a-b`` being that heading's section in the normalised body, found by the
  generator's slug rules);
  links to images, and images, are copied to ``assets/`` and point there. A link that names no
  page, a missing heading, a missing image or a file that is not a catalog document is kept as
  written with a warning naming the file and line. A target holding a template expression the
  generator has not resolved (Liquid's ``{% link x.md %}``, ``{{ site.baseurl }}/x``, a
  macro's ``{{ url }}``) is kept as written, silently: the site's templating writes it at
  build time, and the compiler cannot know what it becomes.

The tree is read twice: once here, to learn every document's id, title, headings and links (the
bodies are not kept), and once per document during the build, when its body is rewritten.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, cast
from urllib.parse import unquote

from gezel_knowledge.archive.assets import (
    ASSET_MEDIA_TYPES,
    AssetProblem,
    asset_problem,
    catalog_assets_problem,
)
from gezel_knowledge.compiler.errors import BuildWarning, SourceError, display_path
from gezel_knowledge.compiler.generators._context import pretty
from gezel_knowledge.compiler.generators._glob import Glob
from gezel_knowledge.compiler.generators.base import INDEX_STEMS, LinkTarget, Site
from gezel_knowledge.compiler.generators.registry import (
    OUTLINE_KINDS,
    recognise_outline,
    source_site,
)
from gezel_knowledge.compiler.metadata.catalog_yaml import (
    CatalogFile,
    CatalogMetadata,
    MetadataProblem,
    source_metadata,
)
from gezel_knowledge.compiler.metadata.overrides import MetadataInput, apply_metadata
from gezel_knowledge.compiler.sources.inputs import notice_files
from gezel_knowledge.compiler.sources.site_links import LinkResolver, normalise_path
from gezel_knowledge.compiler.sources.source import (
    CatalogSource,
    LinkBase,
    SourceAsset,
    SourceDocument,
)
from gezel_knowledge.compiler.sources.toc import outline_pages, table_of_contents
from gezel_knowledge.compiler.text.anchors import definition_term_anchors, page_anchors
from gezel_knowledge.compiler.text.blocks import (
    Block,
    LineIndex,
    headings,
    normalize_body,
    parse_blocks,
)
from gezel_knowledge.compiler.text.data import (
    load_json,
    read_asset_bytes,
    read_text_file,
    resolved_path,
)
from gezel_knowledge.compiler.text.frontmatter import FrontMatter, split_front_matter
from gezel_knowledge.compiler.text.links import (
    LinkRef,
    find_links,
    rewrite_links,
    unused_definitions,
)
from gezel_knowledge.compiler.text.myst import myst_targets
from gezel_knowledge.compiler.text.names import derive_topic_id, document_slug
from gezel_knowledge.compiler.text.titles import plain_title
from gezk.ids import is_id
from gezk.spatial import Location, LocationRole
from gezk.toc import TocReference
from gezk.uri import KnowledgeUri

__all__ = [
    "load_markdown_tree",
    "parse_aliases",
    "parse_attribution",
    "parse_locations",
    "parse_toc_references",
]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|//")
# A link parsed from `[x]({% link a.md %})` ends at the first space: `{%` alone is a template.
_TEMPLATE = re.compile(r"\{\{|\{%|%\}|\}\}")

_Action = tuple[str, str, tuple[int, int] | None]
_Split = Callable[..., FrontMatter]
"""A generator's front matter reader: ``split(text, path=where)``."""


@dataclass(slots=True)
class _Page:
    rel: str
    file: Path
    doc_id: str
    title: str
    front: dict[str, Any]
    body_line: int
    body_sha256: str
    anchors: dict[str, tuple[int, int]]
    links: list[LinkRef]
    heading: str = ""
    """The page's own title (front matter ``title``, else first H1), whatever its label."""
    subtitle: str = ""
    """When the title is the page's first H1 and another H1 follows it with no heading between
    (a series banner, then the chapter's own title), that second H1."""
    plan: dict[int, _Action] = field(default_factory=dict)
    """link start offset -> ("doc", id, range), ("asset", archive path, None) or ("text",
    replacement, None)."""
    expand: Callable[[str], str] | None = None
    """The generator's includes put into a body (:meth:`Generator.expand`)."""
    split: _Split = split_front_matter
    """How the generator separates front matter from the body
    (:meth:`Generator.split_front_matter`)."""
    generated_headings: bool = False
    """Whether the generator adds headings to the page, so unknown anchors are not reported."""
    notebook_strings: frozenset[str] | None = None
    """The string literals of a notebook page's code cells, read once when a missing image is
    looked for among them."""
    unused: frozenset[int] = frozenset()
    """Start offsets of reference definitions nothing uses: no link of the rendered page, so
    they are rewritten when they resolve but never reported."""


def _templated(raw: str) -> LinkTarget | None:
    """An empty target (kept as written, silently) for a template expression no generator
    rule resolved: the site's templating writes it at build time."""
    return LinkTarget("") if _TEMPLATE.search(raw) else None


def _notebook_markdown(text: str, where: str) -> str:
    """A Jupyter notebook as Markdown: Markdown cells verbatim, code cells fenced."""
    data = load_json(text, path=where, reason="invalid-notebook")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise SourceError(
            "is not a valid notebook: no cells", reason="invalid-notebook", path=where
        )
    metadata = data.get("metadata")
    kernel = metadata.get("kernelspec") if isinstance(metadata, dict) else None
    language = str(kernel.get("language") or "python") if isinstance(kernel, dict) else "python"
    parts: list[str] = []
    for cell in data["cells"]:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        text_ = "".join(source) if isinstance(source, list) else str(source)
        if not text_.strip():
            continue
        if cell.get("cell_type") == "markdown":
            parts.append(text_.strip("\n"))
        elif cell.get("cell_type") == "code":
            fence = "```"
            while fence in text_:
                fence += "`"
            parts.append(f"{fence}{language}\n{text_.strip(chr(10))}\n{fence}")
    return "\n\n".join(parts) + "\n"


# A one-line string literal of a notebook's code ('storm.gif' or "storm.gif").
_CODE_STRING = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")


def _notebook_writes(page: _Page, decoded: str) -> bool:
    """Whether a notebook page's own code writes the image a link names beside it when the
    site executes it (Jupyter Book, MyST-NB and mystmd run notebooks at build time): a code
    cell holds the file name as a string literal (``imageio.get_writer('storm.gif')``)."""
    name = decoded.removeprefix("./")
    if page.file.suffix.lower() != ".ipynb" or not name or "/" in name:
        return False
    if page.notebook_strings is None:
        where = page.rel
        data = load_json(
            read_text_file(page.file, where=where), path=where, reason="invalid-notebook"
        )
        cells = data.get("cells") if isinstance(data, dict) else None
        found: set[str] = set()
        for cell in cells if isinstance(cells, list) else []:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                source = cell.get("source", "")
                code = "".join(source) if isinstance(source, list) else str(source)
                found.update(a or b for a, b in _CODE_STRING.findall(code))
        page.notebook_strings = frozenset(found)
    return name in page.notebook_strings


def _doc_id(stem: str, where: str) -> str:
    doc_id = unicodedata.normalize("NFC", stem)
    if not doc_id or doc_id != doc_id.strip() or len(doc_id) > 256:
        raise SourceError(
            f"file name gives an invalid document id {doc_id!r}",
            reason="invalid-document-id",
            path=where,
        )
    return doc_id


def _file_title(rel: str) -> str:
    """The title of a page that states none: its file name, or for an index page
    (``_index.md``, ``index.md``, ``README.md``) its folder's, as generators name sections."""
    path = PurePosixPath(rel)
    if path.stem.lower() in INDEX_STEMS and path.parent.name:
        return pretty(path.parent.name)[0]
    return path.stem


def _first_h1(blocks: list[Block]) -> str | None:
    return next((h.text for h in headings(blocks) if h.depth == 1 and h.text), None)


def _second_h1(blocks: list[Block]) -> str:
    """The H1 that directly follows the page's opening H1 (no other heading between), or
    ``""``: ``# Book title`` then ``# Chapter 1: ...``."""
    found = list(headings(blocks))[:2]
    if len(found) == 2 and all(h.depth == 1 and h.text for h in found):
        return plain_title(found[1].text)
    return ""


def _retitle_banners(pages: Mapping[str, _Page]) -> None:
    """Pages that all open with one banner H1 (a book series' name) and then their own H1
    are titled by that second H1: a title several pages share names none of them."""
    counts: dict[str, int] = {}
    for page in pages.values():
        counts[page.title] = counts.get(page.title, 0) + 1
    for page in pages.values():
        if page.subtitle and counts[page.title] > 1:
            page.title = page.subtitle


def _load_page_text(
    file: Path,
    rel: str,
    where: str,
    split: _Split = split_front_matter,
    warn: Callable[[str, str, str, int], None] | None = None,
) -> tuple[dict[str, Any], str, int]:
    """A page's front matter, body and the body's first line, split as the generator splits
    them; with ``warn``, front matter that does not parse is reported and left out
    (:attr:`Generator.lenient_front_matter`)."""
    text = read_text_file(file, where=where)
    if file.suffix.lower() == ".ipynb":
        return {}, _notebook_markdown(text, where), 1
    front = split(text, path=where, lenient=warn is not None)
    if front.problem is not None and warn is not None:
        problem = front.problem
        # The problem's text without its place (the warning names the file and line itself).
        message = (
            str(problem).removeprefix(f"{problem.subject}: ") if problem.subject else str(problem)
        )
        warn("invalid-front-matter", f"{message}; front matter left out", where, problem.line or 1)
    return front.data, front.body, front.body_line


def _fm_str(front: Mapping[str, Any], key: str, where: str) -> str | None:
    value = front.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SourceError(
            f"front matter {key} must be a string",
            reason="invalid-front-matter",
            path=where,
            line=1,
        )
    return str(value)


def _fm_int(front: Mapping[str, Any], key: str, where: str) -> int | None:
    value = front.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SourceError(
            f"front matter {key} must be an integer",
            reason="invalid-front-matter",
            path=where,
            line=1,
        )
    return value


def _fm_mapping(front: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any] | None:
    value = front.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SourceError(
            f"front matter {key} must be a mapping",
            reason="invalid-front-matter",
            path=where,
            line=1,
        )
    return value


def parse_locations(value: Any, where: str, line: int | None) -> tuple[Location, ...]:
    """``locations`` input (a list of ``{id, latitude, longitude, role, provenance}``).

    Only the shape is checked here; ids, coordinates and roles are checked with the document
    they belong to (:func:`~gezel_knowledge.compiler.sources.validation.validate_document`)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SourceError(
            "locations must be a list", reason="invalid-location", path=where, line=line
        )
    out = []
    for item in value:
        if not isinstance(item, Mapping):
            raise SourceError(
                "each location must be a mapping", reason="invalid-location", path=where, line=line
            )
        unknown = set(item) - {"id", "latitude", "longitude", "role", "provenance"}
        if unknown:
            raise SourceError(
                f"location has unknown fields {sorted(unknown)}",
                reason="invalid-location",
                path=where,
                line=line,
            )
        lat, lon = item.get("latitude"), item.get("longitude")
        for name, number in (("latitude", lat), ("longitude", lon)):
            if isinstance(number, bool) or not isinstance(number, int | float):
                raise SourceError(
                    f"location {item.get('id')!r}: {name} must be a number",
                    reason="invalid-coordinate",
                    path=where,
                    line=line,
                )
        provenance = item.get("provenance")
        if provenance is not None and not isinstance(provenance, Mapping):
            raise SourceError(
                f"location {item.get('id')!r}: provenance must be a mapping",
                reason="invalid-location",
                path=where,
                line=line,
            )
        out.append(
            Location(
                id=str(item.get("id")),
                latitude=float(lat),  # type: ignore[arg-type]
                longitude=float(lon),  # type: ignore[arg-type]
                role=cast(LocationRole, str(item.get("role"))),
                provenance=provenance,
            )
        )
    return tuple(out)


def parse_toc_references(value: Any, where: str, line: int | None) -> tuple[TocReference, ...]:
    """``tocReferences`` input (a list of ``{topicPath: [...], ordinal}``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SourceError(
            "tocReferences must be a list", reason="invalid-toc-reference", path=where, line=line
        )
    out = []
    for item in value:
        path = item.get("topicPath") if isinstance(item, Mapping) else None
        ordinal = item.get("ordinal") if isinstance(item, Mapping) else None
        if (
            not isinstance(path, list)
            or not path
            or not all(isinstance(p, str) for p in path)
            or (ordinal is not None and (isinstance(ordinal, bool) or not isinstance(ordinal, int)))
            or (isinstance(item, Mapping) and set(item) - {"topicPath", "ordinal"})
        ):
            raise SourceError(
                "each tocReference needs a non-empty topicPath list of topic ids and an optional "
                "integer ordinal",
                reason="invalid-toc-reference",
                path=where,
                line=line,
            )
        out.append(TocReference(tuple(path), ordinal))
    return tuple(out)


def parse_aliases(value: Any, where: str, line: int | None) -> tuple[str, ...]:
    """``aliases`` input: a string or a list of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise SourceError(
            "aliases must be a list of strings", reason="invalid-aliases", path=where, line=line
        )
    return tuple(value)


def parse_attribution(value: Any, where: str, line: int | None) -> Mapping[str, str] | None:
    """``attribution`` input: a mapping of strings to strings."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise SourceError(
            "attribution must map strings to strings",
            reason="invalid-attribution",
            path=where,
            line=line,
        )
    return dict(value)


def _asset_archive_path(rel: str) -> str:
    segments = []
    for segment in rel.split("/"):
        clean = re.sub(r"[^A-Za-z0-9._-]", "-", segment)
        if clean.startswith("."):
            clean = "_" + clean[1:]
        segments.append(clean)
    path = "/".join(segments)
    return path if path.startswith("assets/") else f"assets/{path}"


class _Tree:
    def __init__(
        self,
        source_root: Path,
        content_root: Path,
        site: Site,
        files: Mapping[str, Path] | None = None,
    ) -> None:
        self.source_root = source_root
        self.files = dict(files or {})
        """Pages mounted from a folder the user allowed above the source (content path ->
        file)."""
        self.content_root = content_root
        self.site = site
        self.style = site.links
        self.pages: dict[str, _Page] = {}
        self.by_id: dict[str, _Page] = {}
        self.assets: dict[str, Path] = {}
        self.asset_files: dict[Path, str] = {}
        self.folded_assets: dict[str, str] = {}
        self.warnings: list[BuildWarning] = []
        self.resolver: LinkResolver | None = None
        self.unchecked = Glob(self.style.unchecked_globs)
        self.labels: dict[str, tuple[str, tuple[int, int]]] = {}
        """MyST labels of every page (label -> page, lines), for generators that read them."""
        self._folded_labels: dict[str, tuple[str, tuple[int, int]]] | None = None
        """The labels by their lowercased names (Sphinx's lookup), made when first needed."""
        self.uids: dict[str, _Page] | None = None
        """Pages by their front matter ``uid`` (DocFX's cross-reference ids), made on demand."""
        self.lfs_pointers: set[Path] = set()
        """Images the tree holds as Git LFS pointers (one note for all, no warning per link)."""
        self.active_svgs: dict[Path, str] = {}
        """SVG images that are not inert (a draw.io diagram's ``<foreignObject>``), with why:
        not shipped, their links kept as written (one note for all)."""
        self.refused_images: dict[Path, str] = {}
        """Images of a generator's site whose bytes the archive refuses (a ``.png`` of JPEG
        bytes), with why: not shipped, their links kept as written (one note for all)."""
        self.foreign_images: set[Path] = set()
        """Images of a type no catalog holds (a site's AVIF or BMP): not shipped, their links
        kept as written (one note for all; the site's generator publishes them)."""
        self.outside_files: set[str] = set()
        """Files above the source folder that links name and the generator includes (DocFX
        code snippets): seen to exist, never read (one note for all)."""

    def notes(self) -> tuple[str, ...]:
        """What the author may want to know that is no problem of the site."""
        out: list[str] = []
        if self.lfs_pointers:
            count = len(self.lfs_pointers)
            out.append(
                f"{count} image{'s are' if count != 1 else ' is a'} Git LFS pointer"
                f"{'s' if count != 1 else ''}, not image data (the tree was copied without Git "
                "LFS): the links to them are kept as written"
            )
        if self.active_svgs:
            count = len(self.active_svgs)
            svg = min(self.active_svgs)
            out.append(
                f"{count} SVG image{'s are' if count != 1 else ' is'} not shipped, not being "
                f"inert (such as {self.display(svg)}: {self.active_svgs[svg]}): the links "
                f"to {'them' if count != 1 else 'it'} are kept as written"
            )
        if self.refused_images:
            count = len(self.refused_images)
            refused = min(self.refused_images)
            out.append(
                f"{count} image{'s are' if count != 1 else ' is'} not shipped, the archive "
                f"refusing {'their' if count != 1 else 'its'} bytes (such as "
                f"{self.display(refused)}: {self.refused_images[refused]}): the links to "
                f"{'them' if count != 1 else 'it'} are kept as written"
            )
        if self.foreign_images:
            count = len(self.foreign_images)
            image = min(self.foreign_images)
            out.append(
                f"{count} image{'s' if count != 1 else ''} of a type no catalog holds (such "
                f"as {self.display(image)}) {'are' if count != 1 else 'is'} not shipped: the "
                f"links to {'them' if count != 1 else 'it'} are kept as written"
            )
        if self.outside_files:
            count = len(self.outside_files)
            first = min(self.outside_files)
            out.append(
                f"{count} file{'s' if count != 1 else ''} above the source folder "
                f"(such as {first}) {'are' if count != 1 else 'is'} named by links the "
                "generator resolves; not read (confinement), the links are kept as written"
            )
        return tuple(out)

    def display(self, path: Path) -> str:
        if not path.is_relative_to(self.source_root) and path.is_relative_to(
            self.source_root.parent
        ):
            # A file mounted from the folder above (the user allowed it): ../README.md.
            return Path(os.path.relpath(path, self.source_root)).as_posix()
        return display_path(path, self.source_root)

    def warn(self, reason: str, message: str, where: str, line: int) -> None:
        self.warnings.append(BuildWarning(reason, message, path=where, line=line))

    def scan(self, rel: str, label: str | None) -> _Page:
        mounted = self.files.get(rel)
        file = mounted if mounted is not None else self.content_root / rel
        where = self.display(file)
        resolved = resolved_path(file, where=where)
        if mounted is None and not resolved.is_relative_to(self.source_root):
            raise SourceError(
                "resolves outside the source folder", reason="unsafe-path", path=where
            )
        generator, site, within = self.site.generator, self.site, self.source_root
        lenient = self.warn if generator.lenient_front_matter else None
        front, raw_body, body_line = _load_page_text(
            file, rel, where, generator.split_front_matter, lenient
        )
        front = generator.front_matter(front)

        def expand(text: str) -> str:
            return generator.expand(site, file, text, within=within)

        body = normalize_body(expand(raw_body))
        index = LineIndex(body)
        blocks = parse_blocks(body, index, mdx=file.suffix.lower() == ".mdx")
        # The navigation's label names the page as the site shows it; else the page's own.
        # A front matter title is plain text already (generators show it as written).
        heading = " ".join((_fm_str(front, "title", where) or "").split()) or plain_title(
            _first_h1(blocks) or ""
        )
        title = plain_title(label or "") or heading or _file_title(rel)
        from_h1 = not label and not _fm_str(front, "title", where)
        # The generator's id for the page (Docusaurus' doc id), by default its path.
        doc_id = _doc_id(self.site.generator.document_id(rel, front), where)
        page = _Page(
            rel=rel,
            file=file,
            doc_id=doc_id,
            title=unicodedata.normalize("NFC", title.strip()) or _file_title(rel),
            front=front,
            body_line=body_line,
            body_sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
            expand=expand,
            split=generator.split_front_matter,
            generated_headings=generator.generates_headings(body)
            or generator.headings_from_front_matter(front),
            anchors=page_anchors(blocks, index, body, self.style.slug),
            links=find_links(body, index, blocks, myst=self.style.myst_labels is not None),
            heading=unicodedata.normalize("NFC", heading),
            subtitle=unicodedata.normalize("NFC", _second_h1(blocks)) if from_h1 else "",
        )
        if self.style.definition_terms:
            terms = definition_term_anchors(blocks, body, self.style.slug, page.anchors)
            for target, span in terms.items():
                page.anchors.setdefault(target, span)
        page.unused = unused_definitions(page.links, body)
        if self.style.myst_labels:
            implicit = self.style.myst_labels == "mystmd"
            for target, span in myst_targets(body, front=front, implicit=implicit).items():
                page.anchors.setdefault(target, span)
                self.labels.setdefault(target, (rel, page.anchors[target]))
        other = self.by_id.get(doc_id)
        if other is not None:
            raise SourceError(
                f"document id {doc_id!r} is also the id of {self.display(other.file)}",
                reason="duplicate-document-id",
                path=where,
            )
        self.pages[rel] = page
        self.by_id[doc_id] = page
        return page

    def resolve_links(self, page: _Page) -> None:
        """Decide what each link of ``page`` becomes (see the module docstring)."""
        if self.resolver is None:
            fronts = {rel: p.front for rel, p in self.pages.items()}
            self.resolver = LinkResolver(self.style, fronts, self.site.generator)
        where = self.display(page.file)
        for link in page.links:
            line = link.line + page.body_line - 1
            raw = link.target.strip()
            if raw[:5].lower() == "xref:":
                self._plan_xref(page, link, raw[5:], where=where, line=line)
                continue
            if not raw or _SCHEME.match(raw) or self._ignored(raw):
                continue  # a URL, or a target the site renders itself or does not check
            raw, ref = self._target(self._unaliased(page, raw))
            path_part, _, fragment = (ref.path if ref is not None else raw).partition("#")
            path_part = path_part.split("?", 1)[0]
            if not path_part:
                if fragment:
                    self._plan_doc(page, page, fragment, link, where=where, line=line)
                continue
            decoded = unquote(path_part)
            suffix = PurePosixPath(decoded).suffix.lower().lstrip(".")
            if ref is None and (link.image or suffix in ASSET_MEDIA_TYPES):
                self._plan_asset(page, link, decoded, where, line)
                continue
            rel = self.resolver.resolve(page.rel, decoded, ref=ref is not None)
            rel = rel or self._below_source(page, decoded)
            if rel is not None:
                self._plan_doc(page, self.pages[rel], fragment, link, where=where, line=line)
            elif self.resolver.is_route(page.rel, decoded):
                continue  # published by the site outside the catalog: kept as written
            elif self.style.myst_labels and self._plan_label(page, link, raw, where, line):
                continue
            else:
                on_disk = self._on_disk(page, decoded)
                missing = on_disk is None
                if self._resolved_elsewhere(page, decoded, missing=missing) or self._quiet(
                    page, link, decoded, on_disk
                ):
                    self._keep_silently(page, link)  # the generator resolves it, or is silent
                    continue
                reason = "unresolved-link" if missing else "link-not-rewritten"
                why = "names no page of the tree" if missing else "is not a page of the catalog"
                self._keep(page, link, where, line, reason=reason, why=why)

    def _ignored(self, raw: str) -> bool:
        """Whether the site says the generator renders ``raw`` itself (:attr:`LinkStyle.
        ignored`) or its link checker does not check it (:attr:`LinkStyle.unchecked_globs`)."""
        return raw in self.style.ignored or bool(self.unchecked and self.unchecked.match(raw))

    def _unaliased(self, page: _Page, raw: str) -> str:
        """A target written with an import alias (``@assets/a.png``) as the path from the
        page to the file it names; any other target as it is."""
        alias = self.site.generator.aliased(raw)
        if alias is None:
            return raw
        folder = self.content_root / PurePosixPath(page.rel).parent
        return Path(os.path.relpath(alias[0], folder)).as_posix() + alias[1]

    def _target(self, raw: str) -> tuple[str, LinkTarget | None]:
        """The target, and the generator's reading of it; an ordinary link the generator only
        spells another way (:attr:`LinkTarget.plain`) is that link."""
        ref = self.site.generator.link_target(raw) or _templated(raw)
        if ref is not None and ref.plain:
            return ref.path, None
        return raw, ref

    def _quiet(self, page: _Page, link: LinkRef, decoded: str, on_disk: Path | None) -> bool:
        """Whether the generator, under the site's settings, keeps this unresolved link
        without a warning (:attr:`LinkStyle.quiet`, :attr:`LinkStyle.unchecked_suffixes`)."""
        if self.style.unchecked_suffixes and not link.image:
            # A link, not an image: a missing image is broken whatever the link check skips.
            last = decoded.rstrip("/").rsplit("/", 1)[-1]
            if last.rsplit(".", 1)[-1].lower() in self.style.unchecked_suffixes:
                return True
        quiet = self.style.quiet
        if not quiet:
            return False
        absolute = decoded.startswith("/")
        # Written from the site's root, not spelled so by the generator (DocFX's `~/a.md`).
        rooted = absolute and link.target.lstrip().startswith("/")
        # `absolute-links`: rooted links, not images (a missing image is a broken one) nor
        # links naming a page file (`/docs/a.md` is a source path, never a published URL).
        page_file = PurePosixPath(decoded).suffix.lower() in self.site.generator.page_suffixes
        absolute_quiet = "absolute" in quiet or (
            "absolute-links" in quiet and not link.image and not page_file
        )
        if (link.html and "html" in quiet) or (rooted and absolute_quiet):
            return True
        if "above-root" in quiet and not absolute:
            folder = list(PurePosixPath(page.rel).parent.parts)
            if normalise_path([*folder, *decoded.split("/")]) is None:
                return True  # beyond the site's root: another part of the host
        if on_disk is not None and on_disk.resolve().is_relative_to(self.content_root.resolve()):
            return "content-file" in quiet
        last = decoded.rstrip("/").rsplit("/", 1)[-1]
        no_suffix = decoded.endswith("/") or not PurePosixPath(last).suffix
        return ("extensionless" if no_suffix and not absolute else "not-found") in quiet

    def _on_disk(self, page: _Page, decoded: str) -> Path | None:
        """The file a target names relative to the page (or to the content folder, for a
        root-relative target), when it exists inside the source folder."""
        bases = [[] if decoded.startswith("/") else list(PurePosixPath(page.rel).parent.parts)]
        if not decoded.startswith("/") and self.style.urls == "html":
            # Published at a permalink (pages/x/y.md at /y.html), the page's links are URLs
            # from that URL's folder too.
            published = self.site.generator.page_url(page.rel, page.front)
            folder = published.path if published.folder else posixpath.dirname(published.path)
            bases.append([p for p in folder.split("/") if p])
        above = self.content_root.relative_to(self.source_root).parts
        for base in bases:
            rel = normalise_path([*above, *base, *decoded.lstrip("/").split("/")])
            candidate = None if rel is None else self.source_root / rel
            if candidate is not None and candidate.exists():
                return candidate
        return None

    def _resolved_elsewhere(self, page: _Page, decoded: str, *, missing: bool) -> bool:
        """Whether the generator resolves a target that is no page: a folder it writes, an
        existing file it publishes ((DocFX) also one above the source folder), or (in a
        repository) a file outside the source folder."""
        if self._generated(page, decoded):
            return True
        if self.style.sibling_roots and not decoded.startswith("/"):
            folder = (self.content_root / page.rel).parent
            joined = Path(os.path.normpath(folder / decoded))
            if any(joined.is_relative_to(r) for r in self.style.sibling_roots):
                return True  # in a checkout the site's build puts beside it: never read
        if self.style.repository and self._outside(page, decoded):
            return True
        if not self.style.files_resolve:
            return False
        return not missing or self._above(page, decoded)

    def _above(self, page: _Page, decoded: str) -> bool:
        """Whether a relative target leaves the source folder for a file that exists there
        (only seen to exist, never read); recorded for :meth:`notes`."""
        if decoded.startswith("/"):
            return False
        folder = (self.content_root / page.rel).parent
        joined = Path(os.path.normpath(folder / decoded))
        if joined.is_relative_to(self.source_root) or not joined.is_file():
            return False
        self.outside_files.add(Path(os.path.relpath(joined, self.source_root)).as_posix())
        return True

    def _outside(self, page: _Page, decoded: str) -> bool:
        """Whether a target names a path outside the source folder: one leaving it, or a
        root-relative one whose first folder the source folder does not hold."""
        if decoded.startswith("/"):
            first = decoded.lstrip("/").split("/", 1)[0]
            return bool(first) and not (self.source_root / first).exists()
        base = list(PurePosixPath(page.rel).parent.parts)
        above = self.content_root.relative_to(self.source_root).parts
        return normalise_path([*above, *base, *decoded.split("/")]) is None

    def _below_source(self, page: _Page, decoded: str) -> str | None:
        """The page a root-relative target names when it starts with the source folder's own
        path in its repository (``/docs/a.md`` built at ``docs``)."""
        if not (self.style.repository and decoded.startswith("/")) or self.resolver is None:
            return None
        parts = [p for p in decoded.split("/") if p]
        names = self.source_root.parts
        for k in range(1, min(len(parts), len(names))):
            if parts[:k] == list(names[-k:]):
                return self.resolver.resolve(page.rel, "/" + "/".join(parts[k:]))
        return None

    def _plan_xref(self, page: _Page, link: LinkRef, uid: str, *, where: str, line: int) -> None:
        """An ``xref:uid`` link (DocFX): to the page whose front matter ``uid`` it names, else
        kept silently (a uid of an API reference or another site, resolved by the generator)."""
        if self.uids is None:
            self.uids = {}
            for rel in sorted(self.pages):
                value = self.pages[rel].front.get("uid")
                if isinstance(value, str) and value.strip():
                    self.uids.setdefault(value.strip(), self.pages[rel])
        name, _, fragment = unquote(uid).split("?", 1)[0].partition("#")
        target = self.uids.get(name.strip())
        if target is not None:
            self._plan_doc(page, target, fragment, link, where=where, line=line)

    def _generated(self, page: _Page, decoded: str) -> bool:
        """Whether a target lies in a folder the generator writes when it builds."""
        if not self.style.generated:
            return False
        base = [] if decoded.startswith("/") else list(PurePosixPath(page.rel).parent.parts)
        rel = normalise_path([*base, *decoded.lstrip("/").split("/")])
        return rel is not None and any(
            rel == folder or rel.startswith(folder + "/") for folder in self.style.generated
        )

    @staticmethod
    def _keep_silently(page: _Page, link: LinkRef) -> None:
        """Keep a link as written with no warning (as :meth:`_keep`, never read as an asset)."""
        if link.target.startswith("assets/"):
            page.plan[link.start] = ("text", "./" + link.target, None)

    def _keep(
        self, page: _Page, link: LinkRef, where: str, line: int, *, reason: str, why: str
    ) -> None:
        """Keep a link as written, with a warning. A kept target that would read as a
        reference to a shipped asset (``assets/...``) gets a ``./`` so it does not. An unused
        reference definition is no link of the rendered page: never reported."""
        if link.start not in page.unused:
            self.warn(reason, f"link {link.target!r} {why}; kept as written", where, line)
        if link.target.startswith("assets/"):
            page.plan[link.start] = ("text", "./" + link.target, None)

    def _plan_label(self, page: _Page, link: LinkRef, raw: str, where: str, line: int) -> bool:
        """Plan a link that names no page as MyST reads it: a label of any page, a file it
        publishes as a download, a target the site says not to check, or (with inventories)
        another project's target; ``False`` when none of these, so the link warns."""
        if raw in self.style.ignored:
            return True  # the site's configuration says not to check it
        name = unquote(raw.removeprefix("#"))
        found = self.labels.get(name)
        if found is None and self.style.myst_labels == "sphinx":
            # Sphinx registers labels lowercased and looks references up lowercased:
            # [](#postBuild) finds (postbuild)=.
            if self._folded_labels is None:  # built once, when every page has been read
                self._folded_labels = {}
                for key, value in self.labels.items():
                    self._folded_labels.setdefault(key.lower(), value)
            found = self._folded_labels.get(name.lower())
        if found is not None:
            page.plan[link.start] = ("doc", self.pages[found[0]].doc_id, found[1])
            return True
        path_part = unquote(raw.split("#", 1)[0])
        if path_part and self._on_disk(page, path_part) is not None:
            return True  # a file of the project: published as a download, kept as written
        return self.style.inventories

    def _plan_doc(
        self, page: _Page, doc: _Page, fragment: str, link: LinkRef, *, where: str, line: int
    ) -> None:
        span: tuple[int, int] | None = None
        if fragment:
            span = doc.anchors.get(unquote(fragment)) or doc.anchors.get(unquote(fragment).lower())
            if (
                span is None
                and self.style.myst_labels
                and self._plan_label(page, link, "#" + fragment, where, line)
            ):
                return
            if span is None:
                # A page the generator adds headings to may well have it: not reported; nor
                # when the site's settings leave anchors unchecked.
                missing = not doc.generated_headings and "anchor" not in self.style.quiet
                missing = missing and link.start not in page.unused
                if missing:
                    self.warn(
                        "missing-anchor",
                        f"link {link.target!r}: {doc.doc_id!r} has no heading #{fragment}; "
                        "linking to the document",
                        where,
                        line,
                    )
        page.plan[link.start] = ("doc", doc.doc_id, span)

    def _asset_candidates(self, page: _Page, decoded: str) -> list[Path]:
        """Where an image may be: beside the page, or for a root-relative path in the
        content folder and the site's static folders."""
        if decoded.startswith("/"):
            rel = decoded.lstrip("/")
            roots = (self.content_root, *self.style.static_roots)
            # Under one of the site's URL prefixes (its base URL's path, `/reason-react/`;
            # Hugo's /en/): a path written with it names the same file as one without.
            rels = [rel, *(rel[len(p) :] for p in self.style.prefixes if rel.startswith(p))]
            return [root / r for r in rels for root in roots]
        beside = [self.content_root / PurePosixPath(page.rel).parent / decoded]
        published = self.site.generator.page_url(page.rel, page.front)
        directory = self.style.urls == "directory" or published.folder
        if not directory and self.style.urls != "html":
            return beside
        # An HTML <img> is not rewritten by the generator: the browser resolves it from the
        # page's URL (MkDocs publishes a/b.md at a/b/; a Jekyll collection's permalink may end
        # in /), one folder deeper than the file; or, published as a/b.html, from that URL's
        # folder (a Jekyll permalink puts pages/x/y.md at /y.html, beside /images/).
        url = published.path if directory else posixpath.dirname(published.path)
        from_url = normalise_path([*url.split("/"), *decoded.split("/")])
        if from_url is None:
            return beside
        # From the page's URL, the file may be the site's (content) or a static folder's.
        return [
            *beside,
            *(root / from_url for root in (self.content_root, *self.style.static_roots)),
        ]

    def _plan_asset(self, page: _Page, link: LinkRef, decoded: str, where: str, line: int) -> None:
        if self.style.repository and self._outside(page, decoded):
            # An image of the repository outside the source folder: kept, never read.
            self._keep_silently(page, link)
            return
        candidates = self._asset_candidates(page, decoded)
        candidate = next((c for c in candidates if c.is_file()), None)
        if candidate is None:
            if self._quiet(page, link, decoded, None) or _notebook_writes(page, decoded):
                self._keep_silently(page, link)
                return
            self._keep(page, link, where, line, reason="missing-image", why="names a missing file")
            return
        resolved = resolved_path(candidate, where=where)
        if not resolved.is_relative_to(self.source_root) and self._static_above(candidate):
            # The site's static folder lies above the source folder (docs/ built on its own,
            # the site configured in website/ beside it): the generator serves the image.
            # Seen to exist, never read (confinement); kept as written, noted once.
            self.outside_files.add(Path(os.path.relpath(candidate, self.source_root)).as_posix())
            self._keep_silently(page, link)
            return
        if not resolved.is_relative_to(self.source_root):
            raise SourceError(
                f"image {link.target!r} is outside the source folder",
                reason="unsafe-asset",
                path=where,
                line=line,
            )
        if _is_lfs_pointer(resolved):
            # The tree holds a Git LFS pointer, not the image (a clone without LFS, a ZIP).
            # The generator publishes the file that is there, so the link is no broken one:
            # kept as written, and one note for every such file.
            self.lfs_pointers.add(resolved)
            self._keep_silently(page, link)
            return
        suffix = resolved.suffix.lower().lstrip(".")
        if suffix not in ASSET_MEDIA_TYPES:
            # A site's AVIF or BMP image: the site shows it, a catalog cannot hold it.
            self.foreign_images.add(resolved)
            self._keep_silently(page, link)
            return
        archive = self.asset_files.get(resolved)
        if archive is None and resolved not in self.active_svgs:
            archive = self._ship(resolved, link, where, line)
        if archive is None:
            self._keep_silently(page, link)  # not shipped: noted once
            return
        page.plan[link.start] = ("asset", archive, None)

    def _static_above(self, candidate: Path) -> bool:
        """Whether ``candidate`` is in one of the site's static folders that lies outside the
        source folder."""
        return any(
            candidate.is_relative_to(root) and not root.resolve().is_relative_to(self.source_root)
            for root in self.style.static_roots
        )

    def _unshippable(self, resolved: Path, problem: AssetProblem) -> bool:
        """Whether an image whose bytes the archive refuses is left out rather than stopping
        the build: an SVG that is not inert always (its own generator publishes it as it is),
        other refused bytes (a ``.png`` of JPEG bytes) in a generator's site, whose generator
        publishes them; a plain folder's stops the build, as the user can fix it. Noted once."""
        if problem.reason == "unsafe-svg":
            self.active_svgs[resolved] = problem.message.split("SVG is not inert: ", 1)[-1]
            return True
        if self.site.generator_name is None or problem.reason not in _CONTENT_PROBLEMS:
            return False
        self.refused_images[resolved] = problem.message
        return True

    def _ship(self, resolved: Path, link: LinkRef, where: str, line: int) -> str | None:
        """Check an image and give it its archive path; ``None`` when it is not shipped
        (:meth:`_unshippable`)."""
        try:
            rel = resolved.relative_to(self.content_root.resolve()).as_posix()
        except ValueError:
            rel = resolved.relative_to(self.source_root).as_posix()
        archive = _asset_archive_path(rel)
        # Archive names must differ beyond case (section 3.3), so collisions are found on
        # the case-folded path.
        shipped = self.folded_assets.get(archive.casefold())
        previous = self.assets[shipped] if shipped is not None else None
        if previous is not None and previous != resolved:
            raise SourceError(
                f"images {self.display(previous)} and {self.display(resolved)} would both "
                f"ship as {shipped}",
                reason="asset-path-collision",
                path=where,
                line=line,
            )
        data = read_asset_bytes(resolved, where=self.display(resolved))
        problem = asset_problem(archive, data)
        if problem is not None and self._unshippable(resolved, problem):
            return None
        if problem is not None:
            raise SourceError(
                f"image {link.target!r}: {problem.message}",
                reason=problem.reason,
                path=where,
                line=line,
            )
        self.assets[archive] = resolved
        self.asset_files[resolved] = archive
        self.folded_assets[archive.casefold()] = archive
        return archive


_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_CONTENT_PROBLEMS = ("asset-type-mismatch", "unsafe-svg")


def _is_lfs_pointer(path: Path) -> bool:
    """Whether a file is a Git LFS pointer (small text naming the object) rather than data."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(_LFS_POINTER)) == _LFS_POINTER
    except OSError:
        return False


def _body_loader(
    page: _Page, rel: str, where: str, *, myst: bool, lenient: bool = False
) -> Callable[[LinkBase], str]:
    file = page.file
    expand = page.expand
    expected = page.body_sha256
    plan = dict(page.plan)

    def load(links: LinkBase) -> str:
        # Read again as the scan read it (a lenient page's problem was reported then).
        quiet = (lambda *_: None) if lenient else None
        _, raw_body, _ = _load_page_text(file, rel, where, page.split, quiet)
        if expand is not None:
            raw_body = expand(raw_body)
        body = normalize_body(raw_body)
        if hashlib.sha256(body.encode("utf-8")).hexdigest() != expected:
            raise SourceError(
                "changed while the catalog was being built", reason="source-changed", path=where
            )
        if not plan:
            return body
        refs = find_links(body, myst=myst)
        replacements: dict[int, str] = {}
        for ref in refs:
            action = plan.get(ref.start)
            if action is None:
                continue
            kind, value, span = action
            if kind in ("asset", "text"):
                replacements[ref.start] = value
            else:
                uri = KnowledgeUri(
                    links.publisher_id,
                    links.catalog_id,
                    value,
                    line_start=span[0] if span else None,
                    line_end=span[1] if span else None,
                )
                replacements[ref.start] = str(uri)
        return rewrite_links(body, refs, replacements)

    return load


_GENERIC_TITLES = frozenset(
    {"readme", "introduction", "intro", "overview", "home", "index", "welcome", "about"}
    | {"getting started", "documentation", "docs", "contents", "table of contents"}
)


def _landing_title(tree: _Tree, labels: Mapping[str, str | None]) -> str | None:
    """The catalog's name when the site states none (or an empty title): its landing page's
    own title, the first page of its navigation, unless that is a generic word (README,
    Introduction, Home...) that names no site."""
    first = next(iter(labels), None)
    heading = tree.pages[first].heading if first is not None else ""
    return heading if heading and heading.casefold() not in _GENERIC_TITLES else None


def _is_page(readme: Path, meta: CatalogMetadata, tree: _Tree) -> bool:
    """Whether the default README is a page of the outline (mdBook's Introduction, GitBook's
    first page): a page of the book is a document, not the catalog's description, so the
    catalog's README is then generated (catalog.yaml's ``readme`` is always used)."""
    if meta.readme is not None:
        return False
    resolved = readme.resolve()
    return any(page.file.resolve() == resolved for page in tree.pages.values())


def _checked_outline(meta: CatalogMetadata, where: str) -> CatalogMetadata:
    """``meta``, or with an outline no generator has recorded as a problem (and ``auto``)."""
    if meta.outline is None or meta.outline in OUTLINE_KINDS:
        return meta
    problem = MetadataProblem(
        "outline",
        f"outline must be one of {', '.join(OUTLINE_KINDS)}, not {meta.outline!r}",
        path=where,
    )
    return replace(meta, outline=None, problems=(*meta.problems, problem))


_OTHER_MARKUP = {".rst": "reStructuredText", ".adoc": "AsciiDoc", ".asciidoc": "AsciiDoc"}


def _no_pages(content: Path, site: Site, where: str) -> SourceError:
    """The error for a source holding no page: what was looked for, and the markup of the
    files that are there when it is one the compiler does not read (a Sphinx site in .rst)."""
    suffixes = ", ".join(site.generator.page_suffixes)
    found: dict[str, int] = {}
    for path in content.rglob("*"):
        markup = _OTHER_MARKUP.get(path.suffix.lower())
        hidden = any(p.startswith(".") for p in path.relative_to(content).parts)
        if markup is not None and not hidden:
            found[markup] = found.get(markup, 0) + 1
    other = "".join(
        f"; its {n} {markup} files are not read: pages are Markdown (MyST included)"
        for markup, n in sorted(found.items(), key=lambda kv: -kv[1])[:1]
    )
    return SourceError(f"holds no page ({suffixes}){other}", reason="no-pages", path=where)


def load_markdown_tree(
    root: Path | str,
    *,
    metadata: MetadataInput | None = None,
    catalog: CatalogFile | None = None,
    allow_read: Path | str | None = None,
) -> CatalogSource:
    """Read a Markdown tree (and its ``catalog.yaml``, or ``catalog`` instead of it) into a
    :class:`CatalogSource`; ``metadata`` overrides field by field; ``allow_read`` names the
    folder above the tree whose files the site's configuration may mount."""
    source_root = Path(root).resolve()
    if not source_root.is_dir():
        raise SourceError("is not a folder", reason="not-a-folder", path=str(root))
    config = source_root / "catalog.yaml"
    own = _checked_outline(
        apply_metadata(source_metadata(config, catalog), metadata),
        str(Path(catalog) if isinstance(catalog, Path | str) else config),
    )
    kind = own.outline or "auto"
    site = source_site(source_root, kind)
    meta = site.metadata.merged(own)
    readme, license_file = notice_files(meta, source_root)
    notices = meta.source_notices
    named = Path(catalog) if isinstance(catalog, (Path, str)) else None
    reserved = {
        p.resolve() for p in (readme, license_file, notices, config, named) if p is not None
    }
    recognised = recognise_outline(
        source_root,
        site,
        forced=kind != "auto",
        exclude=meta.exclude or (),
        reserved=reserved,
        allow_read=Path(allow_read).resolve() if allow_read is not None else None,
    )
    labels = outline_pages(recognised.outline)
    if recognised.outline.routes:
        # Pages the generator publishes outside its navigation: links to them are silent.
        routes = (*site.links.routes, *recognised.outline.routes)
        site = replace(site, links=replace(site.links, routes=routes))
    tree = _Tree(source_root, recognised.content_root, site, recognised.outline.files)
    for rel in sorted(labels):
        tree.scan(rel, labels[rel])
    if not tree.pages:
        content = recognised.content_root
        where = str(root) if content == source_root else tree.display(content)
        raise _no_pages(content, site, where)
    _retitle_banners(tree.pages)
    if meta.name is None and site.generator_name is not None:
        meta = replace(meta, name=_landing_title(tree, labels))
    declaration = meta.root_topic or recognised.outline.root_declaration
    root_name = (
        (declaration.name if declaration and declaration.name else None) or meta.name or "Overview"
    )
    # An invalid catalog id is reported with the other metadata problems when the build
    # checks them; the root topic takes an id it can use meanwhile.
    root_id = (
        (declaration.id if declaration and declaration.id else None)
        or (meta.id if is_id(meta.id) else None)
        or derive_topic_id(root_name)
    )
    toc = table_of_contents(
        recognised.outline,
        root_id=root_id,
        root_name=root_name,
        root_description=declaration.description if declaration else None,
        root_order=declaration.order if declaration else None,
        page_titles={rel: page.title for rel, page in tree.pages.items()},
    )
    for rel in sorted(tree.pages):
        tree.resolve_links(tree.pages[rel])
    problem = catalog_assets_problem(p.stat().st_size for p in tree.assets.values())
    if problem is not None:
        raise SourceError(problem.message, reason=problem.reason, path=tree.display(source_root))

    documents: list[SourceDocument] = []
    for rel in sorted(tree.pages):
        page = tree.pages[rel]
        where = tree.display(page.file)
        front = page.front
        placement = toc.primary[rel]
        # A generator's own position (Hugo's weight) is the placement's ordinal already.
        ordinal = _fm_int(front, "ordinal", where)
        if ordinal is None:
            ordinal = placement.ordinal
        summary = _fm_str(front, "summary", where) or _fm_str(front, "description", where)
        meta_value = _fm_mapping(front, "meta", where)
        documents.append(
            SourceDocument(
                id=page.doc_id,
                title=page.title,
                topic_path=placement.topic_path,
                load_body=_body_loader(
                    page,
                    rel,
                    where,
                    myst=site.links.myst_labels is not None,
                    lenient=site.generator.lenient_front_matter,
                ),
                slug=document_slug(page.title),
                summary=summary,
                language=_fm_str(front, "language", where),
                ordinal=ordinal,
                toc_references=toc.references.get(rel, ())
                + parse_toc_references(front.get("tocReferences"), where, 1),
                aliases=parse_aliases(front.get("aliases"), where, 1),
                source_url=_fm_str(front, "sourceUrl", where),
                source_revision=_fm_str(front, "sourceRevision", where),
                source_updated_at=_fm_str(front, "sourceUpdatedAt", where),
                attribution=parse_attribution(front.get("attribution"), where, 1),
                meta=dict(meta_value) if meta_value is not None else None,
                locations=parse_locations(front.get("locations"), where, 1),
                origin=where,
                origin_line=None,
            )
        )
    return CatalogSource(
        root=source_root,
        kind="markdown-tree",
        outline=recognised.outline.kind,
        site=site.generator_name,
        metadata=meta,
        topics=toc.topics,
        documents=tuple(documents),
        assets=tuple(
            SourceAsset(path, file, file.stat().st_size)
            for path, file in sorted(tree.assets.items())
        ),
        warnings=meta.warnings + recognised.warnings + toc.warnings + tuple(tree.warnings),
        notes=tree.notes(),
        readme=readme if readme.is_file() and not _is_page(readme, meta, tree) else None,
        license_notice=license_file,
        source_notices=notices,
    )
