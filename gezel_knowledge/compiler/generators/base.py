"""The one interface every documentation generator implements, and the site it finds.

A :class:`Generator` knows one generator's rules: how its project is recognised and where its
configuration and pages are (:meth:`~Generator.detect`, giving a :class:`Site`), what that
configuration says about the catalog (:attr:`Site.metadata`), the navigation it shows, in its
order (:meth:`~Generator.outline`), the URL it publishes each page at and the other names a
page answers to (:meth:`~Generator.page_url`, :meth:`~Generator.url_aliases`), the link
targets only it understands (:meth:`~Generator.link_target`) and how headings become anchors
(:attr:`LinkStyle.slug`). The defaults are a plain folder's rules, so a generator states only where
it differs. Adding a generator is one module with one subclass, listed in :mod:`.registry`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar, Literal

from gezel_knowledge.compiler.errors import BuildWarning
from gezel_knowledge.compiler.generators._context import MARKDOWN_SUFFIXES, Context
from gezel_knowledge.compiler.generators.outline import Outline
from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogMetadata
from gezel_knowledge.compiler.text.anchors import SlugRule, SlugStyle
from gezel_knowledge.compiler.text.data import YamlNode
from gezel_knowledge.compiler.text.frontmatter import FrontMatter, split_front_matter

__all__ = [
    "INDEX_STEMS",
    "Generator",
    "LinkStyle",
    "LinkTarget",
    "PageUrl",
    "Site",
    "UrlStyle",
]

UrlStyle = Literal["files", "directory", "html"]
INDEX_STEMS = ("index", "readme", "_index")
"""File stems that stand for their folder."""


@dataclass(frozen=True, slots=True)
class LinkStyle:
    """How a generator turns pages into URLs, so links written as URLs find their pages."""

    urls: UrlStyle = "files"
    """``files``: links name source files only; ``directory``: a page ``a/b.md`` is published
    as ``a/b/`` (relative links resolve from there); ``html``: as ``a/b.html``."""
    slug: SlugStyle | SlugRule = "github"
    """The heading slug rule: the generator's own, or the one its site configures."""
    lowercase: bool = False
    """Whether URLs are lowercased (Hugo)."""
    prefixes: tuple[str, ...] = ()
    """URL path prefixes of the site (``/mdBook/``, a ``baseUrl``), stripped from root-relative
    links."""
    static_roots: tuple[Path, ...] = ()
    """Folders served at the site root (Hugo and Docusaurus ``static/``), for images."""
    resource_roots: tuple[Path, ...] = ()
    """Content folders whose files that are no pages the generator publishes at the URL of
    their path (Hugo's page-bundle resources: ``op-guide/grafana.json`` beside
    ``op-guide/_index.md`` is ``/op-guide/grafana.json``): a URL link naming one, from the
    linking page's URL, is kept as written, silently."""
    routes: tuple[str, ...] = ()
    """What the site publishes besides the catalog's pages, which a link may name and the
    generator resolves (Docusaurus ``src/pages``, Hugo's ``sitemap.xml`` and taxonomies):
    URL paths or content-relative file paths without leading ``/``; one ending in ``/``
    stands for everything below it. A link to one is kept as written, with no warning."""
    myst_labels: Literal["sphinx", "mystmd"] | None = None
    """Whether a link may name a MyST label of any page (``[text](label)``, ``[text](#label)``),
    as Sphinx (Jupyter Book 1) or mystmd (whose headings are targets too) resolve them:
    :mod:`~gezel_knowledge.compiler.text.myst`."""
    ignored: frozenset[str] = frozenset()
    """Link targets the site's configuration says not to check (mystmd ``error_rules``), or
    that its own render hook renders (Hugo's ``render-link.html`` comparing a destination
    with a literal): kept as written, silently."""
    definition_terms: bool = False
    """Whether the terms of definition lists get ids as headings do (goldmark's
    ``autoDefinitionTermID``), so links may name them."""
    inventories: bool = False
    """Whether a label no page defines may be another project's (Sphinx ``intersphinx``),
    so an unknown label is left as written without a warning."""
    generated: tuple[str, ...] = ()
    """Content-relative folders the generator writes when it builds (DocFX's ``docfx
    metadata`` ``dest``): links into them resolve there, silently."""
    sibling_roots: tuple[Path, ...] = ()
    """Folders above the source folder that the site's own build checks out beside it (a
    DocFX ``metadata`` or ``build.content`` ``src`` of ``../../engine``): a relative link into
    one (a sample's source file) resolves there; kept as written, silently, never read."""
    files_resolve: bool = False
    """Whether a link to an existing file that is no page resolves in the generator (DocFX
    builds, copies or includes every file of its project), so it is kept silently."""
    repository: bool = False
    """Whether links are read as GitHub reads them in a repository (a plain folder): a
    root-relative link is from the repository's root, so it may start with the source
    folder's own path (``/docs/a.md`` built at ``docs``); a link leaving the source folder, or
    root-relative to a folder the source folder does not hold, names a file of the repository
    the compiler does not read, and is kept as written with no warning."""

    unchecked_globs: tuple[str, ...] = ()
    """Glob patterns (``/plugin/*/#default-permission``, as JavaScript tools write them) of
    link targets, as written, that the site's link checker is told not to check: kept as
    written, silently."""
    unchecked_suffixes: frozenset[str] = frozenset()
    """Suffixes (lowercase, no dot) of link targets the generator never checks, kept as
    written without a warning when no page answers them (VitePress' known file types: a
    link to a ``.ts`` or ``.pdf`` file is no page link to it)."""
    quiet: frozenset[str] = frozenset()
    """Links the generator resolves or does not report under the site's settings (MkDocs'
    ``validation``), kept as written without a warning when no page answers them:
    ``anchor`` (a heading the target page lacks), ``absolute`` (a target from the site
    root), ``absolute-links`` (the same, for links but not images: DocFX),
    ``extensionless`` (a target whose last segment has no suffix), ``html`` (a raw
    HTML ``<img src>``), ``content-file`` (an existing file of the content folder that is no
    page of the catalog, which the generator publishes), ``not-found`` (any other missing
    target), ``above-root`` (a relative target that climbs above the content folder: a path
    of the host beyond the site, such as mdBook's ``../std/`` beside ``/nomicon/``)."""


@dataclass(frozen=True, slots=True)
class Site:
    """A documentation generator's project found in a source folder."""

    generator: Generator
    config: Path | None
    content_root: Path
    metadata: CatalogMetadata
    links: LinkStyle
    outline_file: Path | None = None
    """The outline the generator reads (SUMMARY.md, mkdocs.yml, _toc.yml, toc.yml)."""
    nav: YamlNode | None = None
    """The navigation the configuration holds (MkDocs' ``nav``), when it holds one."""
    warnings: tuple[BuildWarning, ...] = field(default=())
    tentative: bool = False
    """Recognised from a bare file alone (a SUMMARY.md with no GitBook configuration): another
    generator's configuration at the same root outranks it."""

    @property
    def generator_name(self) -> str | None:
        """The generator's name, ``None`` for a plain folder tree."""
        return None if self.generator.plain else self.generator.name


@dataclass(frozen=True, slots=True)
class PageUrl:
    """Where a generator publishes a page: its URL path (``a/b`` for ``/a/b/``), and whether
    that is its folder's URL (an index page, whose relative links resolve from the folder)."""

    path: str
    folder: bool = False


@dataclass(frozen=True, slots=True)
class LinkTarget:
    """A link target written in a generator's own syntax, as the file path it names."""

    path: str
    file_first: bool = True
    """Resolve as a file relative to the page, then to the content folder (Hugo's ``ref``)."""
    plain: bool = False
    """An ordinary link written another way (DocFX's ``~/a.md`` is ``/a.md``): resolved, as a
    page or an asset, exactly as that link would be."""


class Generator(ABC):
    """One documentation generator's rules (see the module docstring)."""

    name: str
    """The generator's name: catalog.yaml's ``outline`` value and ``CatalogSource.site``."""
    described_as: ClassVar[str | None]
    """How the generated README names a source written for it (``an MkDocs site``)."""
    marker: ClassVar[str]
    """What recognises a project, for messages (``mkdocs.yml``)."""
    page_suffixes: ClassVar[tuple[str, ...]] = MARKDOWN_SUFFIXES
    """The file suffixes that are pages."""
    found_from_content: ClassVar[bool] = False
    """Whether a source folder that is this generator's content folder, configured one or two
    folders up, is built as that project (``docs/`` of an MkDocs site)."""
    plain: ClassVar[bool] = False
    """Whether this is no generator at all: a plain folder tree."""
    lenient_front_matter: ClassVar[bool] = False
    """Whether a page whose front matter does not parse is still published, without it (a
    repository's folder: GitHub shows the error above the page); else the build stops."""
    outline_required: ClassVar[str | None] = None
    """What must exist when catalog.yaml insists on this outline (``mkdocs.yml with nav``), for
    generators whose navigation is a file; ``None`` when the folders may stand in for it."""

    @abstractmethod
    def detect(self, root: Path, *, forced: bool) -> Site | None:
        """The project at ``root``, or ``None``; ``forced`` when catalog.yaml names this
        generator (a missing part is then an error rather than no match)."""

    @abstractmethod
    def outline(self, site: Site, ctx: Context) -> Outline | None:
        """The navigation the generator shows, in its order; ``None`` when the folder tree
        stands in for it (:mod:`.folders`)."""

    def page_url(self, rel: str, front: Mapping[str, Any]) -> PageUrl:
        """The URL path a page is published at (a generator whose links are files only never
        asks). The default: the path without its suffix, an index page at its folder."""
        path = PurePosixPath(rel)
        folders = list(path.parent.parts)
        index = path.stem.lower() in INDEX_STEMS
        segments = folders if index else [*folders, path.stem]
        return PageUrl("/".join(s for s in segments if s), index)

    def document_id(self, rel: str, front: Mapping[str, Any]) -> str:
        """The document id of the page at ``rel`` (relative to the content folder): the
        generator's own id for it (Docusaurus' doc id), by default its path without suffix."""
        del front
        return PurePosixPath(rel).with_suffix("").as_posix()

    def file_bases(self, rel: str) -> tuple[str, ...]:
        """Content-relative folders (``''`` or ``a/``) where a page's file links are also
        looked up when none is found beside it (Docusaurus: its docs folder); the default:
        none."""
        del rel
        return ()

    def front_matter(self, data: dict[str, Any]) -> dict[str, Any]:
        """A page's front matter as the generator reads it (Hugo: keys in any case, so
        ``Title`` is ``title``); the default: as written."""
        return data

    def file_variants(self, rel: str) -> tuple[str, ...]:
        """Other content-relative files a file link to ``rel`` may name (Hugo: the default
        language's own ``page.en.md`` for ``page.md``); the default: none."""
        del rel
        return ()

    def url_aliases(self, rel: str, front: Mapping[str, Any]) -> tuple[str, ...]:
        """Other URLs a page answers to (Hugo's ``aliases``)."""
        del rel, front
        return ()

    def split_front_matter(self, text: str, *, path: str, lenient: bool = False) -> FrontMatter:
        """A page's front matter and body as the generator reads them; the default: YAML
        (``---``) or TOML (``+++``) front matter (:mod:`~.text.frontmatter`; ``lenient`` as
        there)."""
        return split_front_matter(text, path=path, lenient=lenient)

    def expand(self, site: Site, page: Path, body: str, *, within: Path) -> str:
        """A page's body with what the generator includes before rendering it put in
        (MkDocs' ``pymdownx.snippets``), reading only files inside ``within`` (the source
        folder); the default includes nothing."""
        del site, page, within
        return body

    def generates_headings(self, body: str) -> bool:
        """Whether the generator adds headings of its own to this page (MkDocs' ``:::``
        blocks of mkdocstrings and mkdocs-click), so an anchor not found in its text may
        still exist; the default: never."""
        del body
        return False

    def headings_from_front_matter(self, front: Mapping[str, Any]) -> bool:
        """Whether the generator renders headings of its own for a page its front matter
        describes (Mintlify's ``openapi: GET /users`` page, whose parameters it lists from
        the OpenAPI file), so an anchor not found in its text may still exist; the default:
        never."""
        del front
        return False

    def link_target(self, raw: str) -> LinkTarget | None:
        """A target in the generator's own syntax (Hugo's ``{{< ref >}}``), or ``None``."""
        del raw
        return None

    def aliased(self, raw: str) -> tuple[Path, str] | None:
        """The file a target written with an import alias names (Astro's tsconfig ``paths``:
        ``@assets/a.png``) and what follows its path (``#x``); ``None`` for other targets."""
        del raw
        return None
