"""Sphinx with MyST Markdown pages (myst-parser, MyST-NB): ``conf.py`` (or ``source/conf.py``,
``sphinx-quickstart``'s separate layout); pages in its folder.

``conf.py`` is read statically, never run: module-level assignments of literals (strings,
numbers, lists, tuples, mappings), of names assigned before, of ``+`` of such values and of
f-strings made of them; anything else is unknown and left at Sphinx's default.

Navigation: the ``toctree`` directives (:mod:`~gezel_knowledge.compiler.text.myst`; also
those of a MyST page's ``{eval-rst}`` blocks) walked
from the root document (``root_doc``, or ``master_doc``; default ``index``), depth first, each
document placed where it is first included, as Sphinx builds its navigation. The root
document's toctrees with a ``:caption:`` are sections named by it; a document whose own
toctrees include documents leads a section of them. Entries are document names relative to the
including document (or to the source folder with a leading ``/``), with or without their
suffix; ``:glob:`` patterns match every document not already named, in name order
(``:reversed:`` reverses); ``self`` and URLs are no pages. Documents Sphinx builds that the
catalog cannot read (reStructuredText, jupytext formats) are left out silently (their own
toctrees are still followed), as are the pages an API generator writes at build time
(sphinx-autodoc2's ``apidocs``, sphinx-tags' ``_tags``); a missing document is left out with
a warning, as Sphinx gives one (sphinx-autoapi's ``autoapi_root`` is such a folder too, and a
file ``conf.py`` names by its path, which its code writes). Documents no toctree includes are
not in the navigation and are left out, but for those whose front matter says ``orphan:``
(published outside the navigation, as pages link to them), which follow it in name order.

Metadata: ``project`` (the name), ``author`` (the publisher, unless ``html_theme_options``
names a ``repository_url``, or ``html_context`` a GitHub user), ``language`` (else ``en``),
``html_baseurl``. Links: files, and MyST labels of the whole project; a label no page defines is
left as written silently when Sphinx may find it elsewhere: another project's inventory
(``intersphinx``), an object documented from the code (autodoc, autosummary, sphinx-autodoc2,
sphinx-autoapi), or an ``extensions`` list not stated literally.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from gezel_knowledge._untrusted import MAX_NESTING
from gezel_knowledge.compiler.errors import SourceError
from gezel_knowledge.compiler.generators import _config as config
from gezel_knowledge.compiler.generators._context import (
    MARKDOWN_SUFFIXES,
    NOTEBOOK,
    SCHEME,
    Context,
)
from gezel_knowledge.compiler.generators.base import Generator, LinkStyle, Site
from gezel_knowledge.compiler.generators.outline import Outline, OutlinePage, OutlineSection
from gezel_knowledge.compiler.text.data import read_text_file
from gezel_knowledge.compiler.text.frontmatter import split_front_matter
from gezel_knowledge.compiler.text.myst import Toctree, toctrees

__all__ = [
    "Sphinx",
    "assigned_names",
    "read_conf",
    "sphinx_generated_folders",
    "sphinx_labels_outside_pages",
    "sphinx_repository",
    "sphinx_site",
]

_UNKNOWN = object()
_MAX_CONF_BYTES = 1 << 20


def _collection(node: ast.List | ast.Tuple | ast.Set | ast.Dict, known: Mapping[str, Any]) -> Any:
    """A list, tuple or set of literals; a mapping keeps the items it can say."""
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            key = _value(k, known) if k is not None else _UNKNOWN
            value = _value(v, known)
            if isinstance(key, str | int) and value is not _UNKNOWN:
                out[key] = value
        return out
    items = [_value(e, known) for e in node.elts]
    return _UNKNOWN if any(i is _UNKNOWN for i in items) else list(items)


def _joined(node: ast.JoinedStr, known: Mapping[str, Any]) -> Any:
    """An f-string whose every part is a known string."""
    parts = []
    for piece in node.values:
        if isinstance(piece, ast.Constant):
            parts.append(str(piece.value))
            continue
        inner = _value(piece.value, known) if isinstance(piece, ast.FormattedValue) else None
        if not isinstance(inner, str):
            return _UNKNOWN
        parts.append(inner)
    return "".join(parts)


def _value(node: ast.AST, known: Mapping[str, Any]) -> Any:
    """The value of a literal expression (see the module docstring), else ``_UNKNOWN``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id, _UNKNOWN)
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return _collection(node, known)
    if isinstance(node, ast.JoinedStr):
        return _joined(node, known)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, known), _value(node.right, known)
        same = (isinstance(left, str) and isinstance(right, str)) or (
            isinstance(left, list) and isinstance(right, list)
        )
        return left + right if same and _fits(left, right) else _UNKNOWN
    return _UNKNOWN


def _fits(left: Any, right: Any) -> bool:
    """Whether a sum is no larger than ``conf.py`` could spell: a value doubled again and
    again (``x += x``, ``x.extend(x)``) would otherwise grow as 2^n."""
    return len(left) + len(right) <= _MAX_CONF_BYTES


def read_conf(text: str) -> dict[str, Any]:
    """The module-level assignments of ``conf.py`` text whose values are literal (never run);
    an unparsable file says nothing."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    known: dict[str, Any] = {}
    for statement in _module_statements(tree.body):
        if isinstance(statement, ast.Expr):
            _mutate(statement.value, known)
            continue
        if isinstance(statement, ast.Assign):
            targets, value_node = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value_node = [statement.target], statement.value
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
            # ``extensions += [...]``: the sum of what is known
            targets = [statement.target]
            value_node = ast.BinOp(statement.target, ast.Add(), statement.value)
        else:
            continue
        try:
            value = _value(value_node, known)
        except RecursionError:
            value = _UNKNOWN
        for target in targets:
            if isinstance(target, ast.Name):
                if value is _UNKNOWN:
                    known.pop(target.id, None)
                else:
                    known[target.id] = value
    return known


_GROWING = ("append", "extend", "insert")


def _module_statements(body: list[ast.stmt], *, nested: bool = False) -> list[ast.stmt]:
    """The module's statements in order; inside its ``if``/``try``/``with`` blocks (every
    branch), only those growing a list (``extensions.append("x")``, ``.extend(...)``,
    ``.insert(...)``, ``+=``), which a configuration often does under a condition (``if "man"
    not in tags:``): what the HTML build may load is counted (a function's body is not run)."""
    out: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If | ast.Try | ast.With):
            blocks: list[list[ast.stmt]] = [statement.body]
            if isinstance(statement, ast.If):
                blocks.append(statement.orelse)
            elif isinstance(statement, ast.Try):
                blocks += [statement.orelse, statement.finalbody]
                blocks += [handler.body for handler in statement.handlers]
            for block in blocks:
                out += _module_statements(block, nested=True)
        elif not nested or _grows(statement):
            out.append(statement)
    return out


def _grows(statement: ast.stmt) -> bool:
    """Whether a statement may grow a list: ``+=`` or a call (``.append(...)``)."""
    if isinstance(statement, ast.AugAssign):
        return isinstance(statement.op, ast.Add)
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)


def _mutate(node: ast.expr, known: dict[str, Any]) -> None:
    """``name.append(x)``, ``.extend(xs)``, ``.insert(i, x)`` of a known list, applied; with a
    value that is not literal the list is no longer known."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.attr in _GROWING
        and isinstance(known.get(node.func.value.id), list)
    ):
        return
    name = node.func.value.id
    args = node.args[1:] if node.func.attr == "insert" else node.args
    try:
        values = [_value(a, known) for a in args]
    except RecursionError:
        values = [_UNKNOWN]
    if len(values) != 1 or node.keywords or values[0] is _UNKNOWN:
        known.pop(name, None)
    elif node.func.attr == "extend" and isinstance(values[0], list):
        if not _fits(known[name], values[0]):
            known.pop(name, None)
            return
        known[name] = [*known[name], *values[0]]
    elif node.func.attr == "extend":
        known.pop(name, None)
    else:
        known[name] = [*known[name], values[0]]


def assigned_names(text: str) -> frozenset[str]:
    """Every name ``conf.py`` assigns at module level, its value literal or not."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
            targets = [statement.target]
        else:
            continue
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


_OUTSIDE_PAGES = frozenset(
    {
        "sphinx.ext.intersphinx",
        "sphinx.ext.autodoc",
        "sphinx.ext.autosummary",
        "autodoc2",
        "autoapi.extension",
    }
)
"""Extensions whose targets no page holds: other projects' inventories, objects documented
from the code."""


def sphinx_site(
    generator: Generator,
    file: Path,
    root: Path,
    conf: Mapping[str, Any],
    conf_text: str,
    *,
    outline_file: Path,
    title: str | None = None,
) -> Site:
    """The site of a Sphinx project configured by ``file`` (``conf``, read from
    ``conf_text``): metadata and link rules from ``conf.py``; ``title`` when it names no
    ``project``."""
    repository = sphinx_repository(conf)
    return Site(
        generator,
        file,
        root,
        config.site_metadata(
            conf.get("project") or title,
            None,
            conf.get("language"),
            config.absolute_url(conf.get("html_baseurl"), repository),
            config.publisher(repository, conf.get("author")),
        ),
        LinkStyle(
            myst_labels="sphinx",
            inventories=sphinx_labels_outside_pages(conf, assigned_names(conf_text)),
        ),
        outline_file=outline_file,
    )


def sphinx_labels_outside_pages(conf: Mapping[str, Any], assigned: frozenset[str]) -> bool:
    """Whether Sphinx may find a label in no page: ``intersphinx_mapping``, an extension that
    documents code, or an ``extensions`` list that is not literal."""
    extensions = conf.get("extensions")
    if not isinstance(extensions, list):
        return True
    names = {e for e in extensions if isinstance(e, str)}
    return bool(names & _OUTSIDE_PAGES) or bool(
        assigned & {"intersphinx_mapping", "autodoc2_packages", "autoapi_dirs"}
    )


def sphinx_generated_folders(conf: Mapping[str, Any], assigned: frozenset[str]) -> list[str]:
    """Folders an extension writes pages into at build time: sphinx-autodoc2's
    ``autodoc2_output_dir`` (``apidocs``), sphinx-autoapi's ``autoapi_root`` (``autoapi``),
    sphinx-tags' ``tags_output_dir`` (``_tags``, with ``tags_create_tags``)."""
    extensions = conf.get("extensions")
    names = {e for e in extensions if isinstance(e, str)} if isinstance(extensions, list) else set()
    folders = []
    if "autodoc2_packages" in assigned or "autodoc2" in names:
        folders.append(config.string(conf.get("autodoc2_output_dir")) or "apidocs")
    if "autoapi_dirs" in assigned or "autoapi.extension" in names:
        folders.append(config.string(conf.get("autoapi_root")) or "autoapi")
    if "sphinx_tags" in names and conf.get("tags_create_tags") is True:
        folders.append(config.string(conf.get("tags_output_dir")) or "_tags")
    return [f.strip("/") + "/" for f in folders]


def _suffixes(conf: Mapping[str, Any]) -> tuple[str, ...]:
    """The source suffixes Sphinx reads: ``.rst``, what the MyST extensions add (``.md``;
    MyST-NB and nbsphinx ``.ipynb``; MyST-NB's custom formats) and ``source_suffix``; when
    ``extensions`` is not a literal list, both ``.md`` and ``.ipynb``."""
    suffixes = [".rst"]
    extensions = conf.get("extensions")
    known = isinstance(extensions, list)
    names = [e for e in extensions if isinstance(e, str)] if isinstance(extensions, list) else []
    if not known or any(e in ("myst_parser", "myst_nb") for e in names):
        suffixes.append(".md")
    if not known or any(e in ("myst_nb", "nbsphinx") for e in names):
        suffixes.append(NOTEBOOK)
    stated = conf.get("source_suffix")
    if isinstance(stated, str):
        suffixes.append(stated)
    elif isinstance(stated, (list, dict)):
        suffixes += [s for s in stated if isinstance(s, str)]
    custom = conf.get("nb_custom_formats")
    if isinstance(custom, dict):
        suffixes += [s for s in custom if isinstance(s, str)]
    return tuple(dict.fromkeys(suffixes))


def sphinx_repository(conf: Mapping[str, Any]) -> str | None:
    """The repository URL ``conf.py``'s theme options or HTML context name."""
    theme = config.mapping(conf.get("html_theme_options"))
    for key in ("repository_url", "github_url", "source_repository"):
        url = config.absolute_url(theme.get(key))
        if url:
            return url
    context = config.mapping(conf.get("html_context"))
    user, repo = (
        config.string(context.get("github_user")),
        config.string(context.get("github_repo")),
    )
    return f"https://github.com/{user}/{repo}" if user and repo else None


class Sphinx(Generator):
    """Sphinx, its pages in MyST Markdown."""

    name = "sphinx"
    described_as = "a Sphinx site"
    marker = "conf.py"
    # myst-parser warns about front matter that is not YAML (myst.topmatter) and builds the
    # page without it.
    lenient_front_matter = True
    page_suffixes = (*MARKDOWN_SUFFIXES, NOTEBOOK)

    def detect(self, root: Path, *, forced: bool) -> Site | None:
        # ``sphinx-quickstart`` with separate source and build folders keeps it in source/
        file = next(
            (f for f in (root / "conf.py", root / "source" / "conf.py") if f.is_file()), None
        )
        if file is None:
            return None
        text = config.read_text(file, root)
        conf = read_conf(text)
        root_doc = conf.get("root_doc") or conf.get("master_doc") or "index"
        if not forced and not any(
            (file.parent / f"{root_doc}{suffix}").is_file() for suffix in _suffixes(conf)
        ):
            return None  # a conf.py without its root document is no Sphinx site to read
        return sphinx_site(self, file, file.parent, conf, text, outline_file=file)

    def outline(self, site: Site, ctx: Context) -> Outline | None:
        if site.outline_file is None:
            return None
        text = read_text_file(site.outline_file, where=ctx.display(site.outline_file))
        return _Toctrees(ctx, site.outline_file, text).outline()


class _Toctrees:
    """The toctree walk from the root document."""

    def __init__(self, ctx: Context, conf_file: Path, conf_text: str) -> None:
        conf = read_conf(conf_text)
        assigned = assigned_names(conf_text)
        self.conf_text = conf_text
        self.ctx = ctx
        self.conf_file = conf_file
        self.suffixes = _suffixes(conf)
        root = conf.get("root_doc") or conf.get("master_doc") or "index"
        self.root_doc = root if isinstance(root, str) else "index"
        excludes = conf.get("exclude_patterns")
        self.excludes = (
            [e for e in excludes if isinstance(e, str)] if isinstance(excludes, list) else []
        )
        self.generated = sphinx_generated_folders(conf, assigned)
        self.placed: set[str] = set()
        self._docnames: list[str] | None = None

    # ── documents ───────────────────────────────────────────────────────────────────────

    def file_of(self, docname: str) -> Path | None:
        """The source file of a document name, if it exists."""
        for suffix in self.suffixes:
            path = self.ctx.content_root / f"{docname}{suffix}"
            if path.is_file():
                return path
        return None

    def docnames(self) -> list[str]:
        """Every document of the source folder (for ``:glob:``), in name order."""
        if self._docnames is None:
            names: set[str] = set()
            for suffix in self.suffixes:
                for path in self.ctx.content_root.rglob(f"*{suffix}"):
                    rel = self.ctx.rel(path)
                    if not path.is_file() or any(p.startswith(".") for p in rel.split("/")):
                        continue
                    if any(fnmatch.fnmatchcase(rel, e) for e in self.excludes):
                        continue
                    names.add(rel[: -len(suffix)])
            self._docnames = sorted(names)
        return self._docnames

    def docname(self, current: str, target: str) -> str | None:
        """The document name an entry names from document ``current``."""
        for suffix in self.suffixes:
            if target.endswith(suffix):
                target = target[: -len(suffix)]
                break
        base = [] if target.startswith("/") else list(PurePosixPath(current).parent.parts)
        parts: list[str] = []
        for part in [*base, *target.lstrip("/").split("/")]:
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    return None
                parts.pop()
            else:
                parts.append(part)
        return "/".join(parts) or None

    def written_at_build(self, name: str) -> bool:
        """Whether a missing document is one Sphinx's run writes: in an API generator's
        folder, or a file ``conf.py`` names (its code writes it)."""
        if any(name.startswith(g) for g in self.generated):
            return True
        return any(f"{name}{suffix}" in self.conf_text for suffix in self.suffixes)

    # ── the walk ────────────────────────────────────────────────────────────────────────

    def outline(self) -> Outline:
        where = self.ctx.display(self.conf_file)
        root = OutlineSection(name="", key=where)
        file = self.file_of(self.root_doc)
        if file is None:
            self.ctx.warn(
                "missing-outline-page",
                f"the root document {self.root_doc!r} does not exist; the folders are the outline",
                where,
            )
            return Outline("sphinx", root, where, interleaved_root=True)
        self.placed.add(self.root_doc)
        if self.ctx.is_page(file):
            root.children.append(OutlinePage(self.ctx.rel(file), None, 0, where, None))
        for tree in self.trees(file):
            into = root
            caption = tree.options.get("caption")
            if caption:
                into = OutlineSection(
                    name=caption,
                    key=f"{self.ctx.display(file)}:{tree.line}",
                    order=len(root.children),
                )
                root.children.append(into)
            self.include(self.root_doc, file, tree, into)
        self.orphans(root)
        return Outline("sphinx", root, where, interleaved_root=True)

    def orphans(self, root: OutlineSection) -> None:
        """The pages no toctree includes that say they are published outside the navigation
        (front matter ``orphan:``), after it in name order, as MkDocs' ``not_in_nav`` pages:
        Sphinx builds them, and pages link to them."""
        for name in self.docnames():
            file = self.file_of(name)
            if name in self.placed or file is None or file.suffix.lower() == NOTEBOOK:
                continue
            if not self.ctx.is_page(file):
                continue
            # A page linked from outside the source folder is never read (confinement), and
            # not placed: the build leaves such a page out as it does any other.
            if not file.resolve().is_relative_to(self.ctx.source_root.resolve()):
                continue
            text = read_text_file(file, where=self.ctx.display(file))
            front = split_front_matter(text, path=self.ctx.display(file), lenient=True)
            if "orphan" in front.data:
                self.placed.add(name)
                root.children.append(
                    OutlinePage(self.ctx.rel(file), None, len(root.children), None, None)
                )

    def trees(self, file: Path) -> list[Toctree]:
        """The toctrees of a document's source (none in a notebook)."""
        suffix = file.suffix.lower()
        if suffix == NOTEBOOK or suffix not in (*MARKDOWN_SUFFIXES, ".rst"):
            return []
        text = read_text_file(file, where=self.ctx.display(file))
        return toctrees(text, rst=suffix == ".rst")

    def include(
        self, current: str, file: Path, tree: Toctree, into: OutlineSection, depth: int = 0
    ) -> None:
        """One toctree's entries, placed into ``into`` (``depth``: documents above)."""
        where = self.ctx.display(file)
        globbing = "glob" in tree.options
        names: list[tuple[str, str | None, int]] = []
        for entry in tree.entries:
            target = entry.target
            if target == "self" or SCHEME.match(target):
                continue
            if globbing and any(c in target for c in "*?["):
                pattern = self.docname(current, target)
                matches = sorted(
                    n for n in self.docnames() if pattern and fnmatch.fnmatchcase(n, pattern)
                )
                names += [(n, None, entry.line) for n in matches if n != current]
                continue
            name = self.docname(current, target)
            if name is None:
                continue
            names.append((name, entry.title, entry.line))
        if "reversed" in tree.options:
            names.reverse()
        for name, title, line in names:
            if name in self.placed:
                continue
            child = self.file_of(name)
            if child is None:
                if not self.written_at_build(name):
                    self.ctx.warn(
                        "missing-outline-page",
                        f"toctree names a missing document {name!r}; left out",
                        where,
                        line,
                    )
                continue
            self.placed.add(name)
            if depth >= MAX_NESTING:
                raise SourceError(
                    f"toctrees nest deeper than {MAX_NESTING} documents",
                    reason="too-deep",
                    path=where,
                    line=line,
                )
            self.place(name, child, title=title, line=line, where=where, into=into, depth=depth)

    def place(
        self,
        name: str,
        file: Path,
        *,
        title: str | None,
        line: int,
        where: str,
        into: OutlineSection,
        depth: int,
    ) -> None:
        """A document, and the documents its own toctrees include after it."""
        readable = self.ctx.is_page(file) and not self.ctx.excluded(file)
        page = (
            OutlinePage(self.ctx.rel(file), title, len(into.children), where, line)
            if readable
            else None
        )
        trees = self.trees(file)
        if not trees:
            if page is not None:
                into.children.append(page)
            return
        section = OutlineSection(
            name=title or ("" if page else PurePosixPath(name).name),
            key=f"{where}:{line}",
            order=len(into.children),
            title_page=page.path if page else None,
        )
        if page is not None:
            page.order = 0
            section.children.append(page)
        for tree in trees:
            self.include(name, file, tree, section, depth + 1)
        if page is not None and section.children == [page]:
            page.order = section.order
            into.children.append(page)  # its toctrees include nothing new: a page
        elif section.children:
            into.children.append(section)
