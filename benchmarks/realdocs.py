"""Real documentation trees built at their site root: builds, warnings, navigation order, search.

Each tree listed in ``benchmarks/realdocs/trees.toml`` (public documentation sites of eight
generators) is checked out at its commit from the snapshot the search tool's ``fetch`` keeps
in ``/work/.mirror/<owner>+<name>/repo`` (``--mirror`` or ``GEZEL_REALDOCS_MIRROR``), into
``--trees`` (default ``../realdocs-trees`` beside the repository, kept between runs). The
checkout holds the repository's top-level files, the site root and the tree's ``extra``
paths, and is made a git repository as a clone is (``--zip`` leaves that out, as a downloaded
archive would). It is then built as it is by ``gezel-knowledge build SITE_ROOT`` in a child
process (so ``PYTHONPATH`` chooses the library measured), run in the site root, with the default
embedder unless ``--embedder`` says otherwise, ``--created-at``, and the tree's ``flags``: the
flags the build asks for, one per thing the site does not state (``--license-file ../LICENSE``
for a licence at the repository's root, ``--publisher-name ...``). A tree that builds with its
flags counts as built; the table prints the flags and the summary how many build with none.
``--zip`` builds each tree from a ZIP-like checkout (no ``.git``) and from a clone, and says
whether the two catalogs are byte-identical.

Per tree it prints: whether it builds (else the error), documents, warnings and how many of
them are genuine by the reviewed verdicts in ``realdocs/verdicts/<name>.toml`` (a warning is
genuine only when the generator itself would fail to resolve that link; warnings no verdict
covers are counted as unreviewed), the navigation order against the generator's own order in
``realdocs/orders/<name>.txt`` (pages out of place: how many must move for the catalog's order
to equal the generator's; Kendall tau over the pages both list; pages missing or extra), the
build's wall and CPU seconds, and the search score of ``realdocs/questions/<name>.toml``
(fraction of questions whose answer page is the first hit, and in the top 3; hybrid search;
every first-hit miss explained by its lists). ``--catalogs DIR`` searches the catalogs of an
earlier ``--out DIR`` again without building them.

The catalog's order is its table of contents walked depth first, a topic's documents and
subtopics merged by position (document ordinals and numeric topic sort keys share one space,
as the compiler writes them). Documents are matched to source pages by id (a path under the
tree's ``content`` folder), else by the page whose lines the body shares most. Goals (issue
21): every tree builds; no false warning on at least 20; order identical on all; first >= 0.8
and top-3 >= 0.95 on every tree. On demand only; the tests check the lists and ``--help``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import posixpath
import re
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gezel_knowledge
from gezel_knowledge import open_catalog
from gezel_knowledge.errors import KnowledgeError

HERE = Path(__file__).resolve().parent
DATA = HERE / "realdocs"
DEFAULT_TREES = HERE.parents[1] / "realdocs-trees"
DEFAULT_MIRROR = Path("/work/.mirror")
CREATED_AT = "2026-01-01T00:00:00Z"
MARKDOWN_SUFFIXES = (".md", ".mdx", ".ipynb", ".markdown")
PAGE_SUFFIXES = (*MARKDOWN_SUFFIXES, ".qmd", ".Rmd")
"""Pages any tree's catalog may hold: Quarto reads its own and R Markdown pages too."""
GENERATORS = (
    "mkdocs",
    "mdbook",
    "jupyter-book",
    "myst",
    "docusaurus",
    "hugo",
    "gitbook",
    "docfx",
    "sphinx",
    "vitepress",
    "starlight",
    "jekyll",
    "docsify",
    "mintlify",
    "nextra",
    "fumadocs",
    "quarto",
    "vuepress",
    "rspress",
    "zola",
    "folders",
)
GOALS = {"false_free_trees": 20, "first": 0.8, "top3": 0.95}


# -- the lists ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tree:
    """One documentation tree of ``trees.toml``."""

    name: str
    repository: str
    commit: str
    subfolder: str
    generator: str
    licence: str
    content: str
    order: str
    extra: tuple[str, ...] = ()
    theme: str | None = None
    flags: tuple[str, ...] = ()
    """What the build asks for that the site does not state (run in the site root)."""


@dataclass(frozen=True)
class Question:
    """A reader's question and the page (path relative to the site root) that answers it."""

    text: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    """A reviewed class of warnings: which ones it covers and whether they are genuine."""

    genuine: bool
    why: str
    reason: str | None = None
    path: str | None = None
    message: str | None = None
    source: str | None = None
    expect: int | None = None

    def covers(self, warning: dict[str, Any]) -> bool:
        """Whether this verdict applies to one warning of the build's JSON (``source`` is
        matched against the line the warning names, as ``classify`` reads it)."""
        if (
            self.source is not None
            and re.search(self.source, warning.get("source_line", "")) is None
        ):
            return False
        if self.reason is not None and warning.get("reason") != self.reason:
            return False
        if self.path is not None and not fnmatch.fnmatchcase(
            str(warning.get("path") or ""), self.path
        ):
            return False
        return (
            self.message is None or re.search(self.message, str(warning.get("message"))) is not None
        )


class ListError(ValueError):
    """A malformed realdocs list, questions, order or verdicts file."""


def _need(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value:
        raise ListError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_trees(path: Path = DATA / "trees.toml") -> list[Tree]:
    """Every tree of the list, checked: unique names, known generators, 40-digit commits."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    trees: list[Tree] = []
    for i, t in enumerate(raw.get("tree", [])):
        where = f"{path.name} tree {i + 1}"
        allowed = {"name", "repository", "commit", "subfolder", "extra", "generator", "theme"}
        allowed |= {"licence", "content", "order", "flags"}
        unknown = set(t) - allowed
        if unknown:
            raise ListError(f"{where}: unknown keys {sorted(unknown)}")
        tree = Tree(
            name=_need(t, "name", where),
            repository=_need(t, "repository", where),
            commit=_need(t, "commit", where),
            subfolder=_need(t, "subfolder", where),
            generator=_need(t, "generator", where),
            licence=_need(t, "licence", where),
            content=_need(t, "content", where),
            order=_need(t, "order", where),
            extra=tuple(t.get("extra", ())),
            theme=t.get("theme"),
            flags=tuple(t.get("flags", ())),
        )
        if not all(isinstance(f, str) and f for f in tree.flags):
            raise ListError(f"{where}: flags must be a list of non-empty strings")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", tree.name):
            raise ListError(f"{where}: name {tree.name!r} is not [a-z0-9-]")
        if not re.fullmatch(r"[0-9a-f]{40}", tree.commit):
            raise ListError(f"{where}: commit must be 40 hex digits")
        if tree.repository.count("/") != 1:
            raise ListError(f"{where}: repository must be owner/name")
        if tree.generator not in GENERATORS:
            raise ListError(f"{where}: generator {tree.generator!r} not one of {GENERATORS}")
        trees.append(tree)
    names = [t.name for t in trees]
    if len(set(names)) != len(names):
        raise ListError(f"{path.name}: tree names repeat")
    return trees


def load_questions(name: str) -> list[Question]:
    """The questions of one tree (``questions/<name>.toml``)."""
    path = DATA / "questions" / f"{name}.toml"
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    out: list[Question] = []
    for i, q in enumerate(raw.get("question", [])):
        where = f"{path.name} question {i + 1}"
        if set(q) - {"text", "answer", "answers"}:
            raise ListError(f"{where}: unknown keys {sorted(set(q) - {'text', 'answer'})}")
        answers = q.get("answers") or ([q["answer"]] if "answer" in q else [])
        if not answers or not all(isinstance(a, str) and a for a in answers):
            raise ListError(f"{where}: 'answer' (a page path) is required")
        out.append(Question(_need(q, "text", where), tuple(answers)))
    return out


def load_order(name: str) -> list[str]:
    """The generator's own navigation order: page paths relative to the site root."""
    path = DATA / "orders" / f"{name}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def load_verdicts(name: str) -> list[Verdict]:
    """The reviewed warning classes of one tree (none when the file is absent)."""
    path = DATA / "verdicts" / f"{name}.toml"
    if not path.is_file():
        return []
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    out: list[Verdict] = []
    for i, v in enumerate(raw.get("verdict", [])):
        where = f"{path.name} verdict {i + 1}"
        if set(v) - {"genuine", "why", "reason", "path", "message", "source", "expect"}:
            raise ListError(f"{where}: unknown keys")
        if not isinstance(v.get("genuine"), bool):
            raise ListError(f"{where}: 'genuine' must be true or false")
        for key in ("message", "source"):
            if v.get(key) is not None:
                re.compile(v[key])
        out.append(
            Verdict(
                genuine=v["genuine"],
                why=_need(v, "why", where),
                reason=v.get("reason"),
                path=v.get("path"),
                message=v.get("message"),
                source=v.get("source"),
                expect=v.get("expect"),
            )
        )
    return out


# -- checking a tree out --------------------------------------------------------------------


class Unavailable(RuntimeError):
    """A tree's snapshot or commit is not on this machine."""


def git_dir(mirror: Path, repository: str) -> Path:
    """The bare git directory of a fetched snapshot."""
    base = mirror / repository.replace("/", "+") / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "HEAD").is_file():
            return candidate
    raise Unavailable(
        f"no snapshot of {repository} in {mirror}: fetch it first "
        f"(the search tool's fetch, source github:{repository})"
    )


def _git(gd: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gd}", *args], check=True, capture_output=True).stdout


def _extract(gd: Path, commit: str, paths: list[str], into: Path) -> list[str]:
    """Write the blobs under ``paths`` at ``commit`` into ``into``; the paths of absent ones."""
    listing = _git(gd, "ls-tree", "-r", "-z", commit, "--", *paths).decode()
    blobs: list[tuple[str, str]] = []
    links: set[str] = set()
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, name = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob":
            blobs.append((sha, name))
            if mode == "120000":
                links.add(name)
    request = "".join(f"{sha}\n" for sha, _ in blobs).encode()
    done = subprocess.run(
        ["git", f"--git-dir={gd}", "cat-file", "--batch"],
        input=request,
        capture_output=True,
        check=True,
    )
    data, at, missing = done.stdout, 0, []
    for _, name in blobs:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            missing.append(name)
            continue
        size = int(header[2])
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in links:
            # A symbolic link, as a clone has it (LICENSE -> packages/x/LICENSE).
            os.symlink(data[at : at + size].decode(), target)
        else:
            target.write_bytes(data[at : at + size])
        at += size + 1
    return missing


def checkout(tree: Tree, mirror: Path, trees_dir: Path, *, as_zip: bool = False) -> Path:
    """The tree's site root, extracted at its commit (reused when already there)."""
    root = trees_dir / f"{tree.name}@{tree.commit[:12]}{'-zip' if as_zip else ''}"
    done = root / ".realdocs-checkout"
    site = (root / tree.subfolder).resolve()
    if done.is_file():
        return site
    gd = git_dir(mirror, tree.repository)
    try:
        _git(gd, "cat-file", "-e", f"{tree.commit}^{{commit}}")
    except subprocess.CalledProcessError:
        raise Unavailable(
            f"{tree.repository} snapshot in {gd} lacks commit {tree.commit}: fetch it again"
        ) from None
    listing = _git(gd, "ls-tree", tree.commit).decode()
    paths = [line.split("\t", 1)[1] for line in listing.splitlines() if line.split()[1] == "blob"]
    if tree.subfolder != ".":
        paths.append(tree.subfolder)
    paths.extend(tree.extra)
    tmp = Path(tempfile.mkdtemp(prefix=f".{tree.name}-", dir=trees_dir))
    missing = _extract(gd, tree.commit, sorted(set(paths)), tmp)
    if missing:
        # Snapshots lack files of 4 MiB and more and, in old commits, some objects.
        (tmp / ".realdocs-missing").write_text("".join(f"{m}\n" for m in missing))
    if not as_zip:
        subprocess.run(["git", "init", "-q", str(tmp)], check=True)
    (tmp / ".realdocs-checkout").write_text(f"{tree.repository}@{tree.commit}\n")
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    tmp.rename(root)
    return site


# -- building -------------------------------------------------------------------------------


@dataclass
class Build:
    """What one build of a site root gave."""

    ok: bool
    error: str | None
    wall: float
    cpu: float
    report: dict[str, Any] = field(default_factory=dict)


METADATA_REASONS = r"\[(missing|invalid)-metadata\]$|licence notice is missing"


def metadata_flags(tree: Tree, site: Path, error: str) -> tuple[str, ...]:
    """Flags that supply the metadata a failed build asked for (``--metadata-flags``)."""
    owner = tree.repository.split("/")[0]
    flags: list[str] = []
    # Only what the error names as missing: whatever the site states is kept.
    if "id is missing" in error:
        flags += ["--catalog-id", tree.name]
    if "name is missing" in error:
        flags += ["--name", tree.name]
    if "language is missing" in error:
        flags += ["--language", "en"]
    if "publisher is missing" in error:
        publisher = re.sub(r"[^a-z0-9-]", "-", owner.lower())
        flags += ["--publisher-id", publisher, "--publisher-name", owner]
    if "licen" in error:
        root = next(p for p in (site, *site.parents) if (p / ".realdocs-checkout").is_file())
        notices = sorted(
            p for p in root.iterdir() if p.name.upper().startswith(("LICEN", "COPYING"))
        )
        if notices:
            flags += ["--license-file", str(notices[0])]
        flags += ["--license-name", tree.licence]
    return tuple(flags)


def build(site: Path, output: Path, embedder: str | None, flags: tuple[str, ...] = ()) -> Build:
    """``gezel-knowledge build SITE`` in a child process, timed (wall and children's CPU)."""
    command = [sys.executable, "-m", "gezel_knowledge.cli", "build", str(site)]
    command += ["-o", str(output), "--json", "--quiet", "--created-at", CREATED_AT, *flags]
    if embedder:
        command += ["--embedder", embedder]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=site, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return Build(False, lines[-1] if lines else f"exit {done.returncode}", wall, cpu)
    return Build(True, None, wall, cpu, json.loads(done.stdout))


# -- reading the catalog back ---------------------------------------------------------------


def _position(sort_key: str) -> float | None:
    """A numeric topic sort key (``zero-padded(order + 2**31)``) as its order, else None."""
    if re.fullmatch(r"\d{10}", sort_key):
        return float(int(sort_key) - 2**31)
    return None


def catalog_order(catalog: Any) -> list[str]:
    """Document ids in table-of-contents order, subtopics merged with documents by position."""
    topics = list(catalog.topics())
    children: dict[str | None, list[Any]] = {}
    for t in topics:
        children.setdefault(t.parent_id, []).append(t)
    out: list[str] = []
    seen: set[str] = set()

    def documents(topic_id: str) -> list[Any]:
        page = catalog.list_documents(topic_id, descendants=False, limit=10_000, order="toc")
        return list(page.documents)

    def visit(topic_id: str) -> None:
        if topic_id in seen:
            return
        seen.add(topic_id)
        items: list[tuple[float, int, int, str, str]] = []
        for i, d in enumerate(documents(topic_id)):
            pos = float(d.ordinal) if d.ordinal is not None else float("inf")
            items.append((pos, 0, i, "document", d.id))
        for i, t in enumerate(children.get(topic_id, [])):
            pos = _position(t.sort_key)
            items.append((pos if pos is not None else float("inf"), 1, i, "topic", t.id))
        for _, _, _, kind, ident in sorted(items):
            if kind == "document":
                out.append(ident)
            else:
                visit(ident)

    for t in children.get(None, []):
        visit(t.id)
    for t in topics:
        visit(t.id)
    return out


def _lines(text: str) -> set[str]:
    return {
        " ".join(line.split())
        for line in text.splitlines()
        if len(line.strip()) > 24 and "](" not in line and "http" not in line
    }


def _page_key(path: str) -> str:
    return "/".join(re.sub(r"^\d+[-_.]", "", part) for part in path.lower().split("/"))


class PageMap:
    """Document ids of one catalog to page paths relative to the site root."""

    def __init__(self, site: Path, content: str) -> None:
        self.site = site
        # Several folders, comma-separated, when ids are relative to more than one (the docs
        # plugin instances of a Docusaurus site): each is tried in turn.
        parts = [c.strip() for c in content.split(",") if c.strip()]
        # `folder=prefix`: ids under prefix come from folder (a Hugo module.mounts of a folder
        # of the content at another path: content/docs/v2=docs).
        self.mounts = [
            (posixpath.normpath(c.split("=", 1)[0]), c.split("=", 1)[1].strip("/"))
            for c in parts
            if "=" in c
        ]
        self.contents = [posixpath.normpath(c) for c in parts if "=" not in c]
        self.content = self.contents[0]
        bases = [(site / c).resolve() for c in self.contents]
        self.pages = sorted(
            {
                p
                for base in bases
                for p in base.rglob("*")
                if p.suffix in PAGE_SUFFIXES and p.is_file()
            }
        )
        self._lines: dict[Path, set[str]] | None = None
        # Ids as generators derive them: number prefixes dropped (Docusaurus), any case.
        keys: dict[str, list[Path]] = {}
        for base in bases:
            for page in (p for p in self.pages if p.is_relative_to(base)):
                key = _page_key(page.relative_to(base).with_suffix("").as_posix())
                keys.setdefault(key, []).append(page)
        self._keys = {k: v[0] for k, v in keys.items() if len(v) == 1}

    def _relative(self, page: Path) -> str:
        return posixpath.normpath(os.path.relpath(page, self.site)).replace(os.sep, "/")

    def _mounted(self, document_id: str) -> str | None:
        """The page of an id under a mounted prefix (``folder=prefix``), if any."""
        for folder, prefix in self.mounts:
            if document_id.startswith(prefix + "/"):
                rest = document_id[len(prefix) + 1 :]
                for candidate in (rest, f"{rest}/index"):
                    for suffix in PAGE_SUFFIXES:
                        page = self.site / folder / f"{candidate}{suffix}"
                        if page.is_file():
                            return self._relative(page)
        return None

    def path(self, document_id: str, body: str) -> str:
        """The page a document was built from."""
        # Ids relative to a content folder, else to a folder above it up to the site root
        # (an id that kept the language folder: en/docs/page for content/en/docs/page.md).
        roots: list[Path] = []
        for content in self.contents:
            base = (self.site / content).resolve()
            roots += [base, *(p for p in base.parents if p.is_relative_to(self.site.resolve()))]
        roots = list(dict.fromkeys(roots))
        # `docs/guide/page.mdx` is the Next.js app router's page of the `docs/guide` route.
        names = ("index", "README", "page")
        for root in roots:
            for candidate in (document_id, *(f"{document_id}/{n}" for n in names)):
                for suffix in PAGE_SUFFIXES:
                    page = root / f"{candidate}{suffix}"
                    if page.is_file():
                        return self._relative(page)
        mounted = self._mounted(document_id)
        if mounted is not None:
            return mounted
        for key in (_page_key(document_id), _page_key(f"{document_id}/index")):
            if key in self._keys:
                return self._relative(self._keys[key])
        # A page of the site whose body it is (a file merged in under another path: the
        # mkdocs-monorepo-plugin's site_name/page.md), else a file mounted into the content
        # from the folder above the site (Hugo module.mounts of ../README.md at
        # content/project/repo/README.md).
        found = self._by_content(document_id, body)
        if not found.startswith("?"):
            return found
        for suffix in PAGE_SUFFIXES:
            above = self.site.parent / (posixpath.basename(document_id) + suffix)
            if above.is_file():
                return self._relative(above)
        return found

    def _by_content(self, document_id: str, body: str) -> str:
        """The page whose lines the body shares most (at least 30%), for an id no rule maps."""
        if self._lines is None:
            self._lines = {
                p: _lines(p.read_text(encoding="utf-8", errors="replace")) for p in self.pages
            }
        mine = _lines(body)
        if not mine:
            # A page of a heading or two: the one page whose text is the same, spaces aside.
            flat = " ".join(body.split())
            same = [
                p
                for p in self.pages
                if flat
                and " ".join(p.read_text(encoding="utf-8", errors="replace").split()) == flat
            ]
            return self._relative(same[0]) if len(same) == 1 else f"?{document_id}"
        best, score = None, 0.0
        for page, theirs in self._lines.items():
            if not mine or not theirs:
                continue
            s = len(mine & theirs) / len(mine | theirs)
            if s > score:
                best, score = page, s
        return self._relative(best) if best is not None and score >= 0.3 else f"?{document_id}"


# -- measures -------------------------------------------------------------------------------


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def readable_suffixes(generator: str) -> tuple[str, ...]:
    """The page files a generator's catalog reads: Quarto's ``.qmd`` and ``.Rmd`` are read for
    Quarto sites only (Jupyter Book and MyST-NB render R Markdown through jupytext)."""
    return PAGE_SUFFIXES if generator == "quarto" else MARKDOWN_SUFFIXES


def compare_order(
    ours: list[str], reference: list[str], *, readable: tuple[str, ...] = MARKDOWN_SUFFIXES
) -> dict[str, Any]:
    """Pages out of place (how many must move), Kendall tau, and pages missing or extra."""
    first_ours = list(dict.fromkeys(ours))
    first_ref = list(dict.fromkeys(reference))
    common = set(first_ours) & set(first_ref)
    a = [p for p in first_ours if p in common]
    b = [p for p in first_ref if p in common]
    rank = {p: i for i, p in enumerate(b)}
    n = len(a)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if rank[a[i]] < rank[a[j]]:
                concordant += 1
            else:
                discordant += 1
    pairs = concordant + discordant
    tau = (concordant - discordant) / pairs if pairs else 1.0
    out_of_place = n - _lcs(a, b)
    # Pages in formats no catalog reads (reStructuredText, AsciiDoc, R Markdown) are counted
    # apart: the generator shows them, the catalog cannot.
    unreadable = [p for p in first_ref if p not in common and not p.endswith(readable)]
    missing = [p for p in first_ref if p not in common and p.endswith(readable)]
    extra = [p for p in first_ours if p not in common]
    first_wrong = next((p for p, q in zip(a, b, strict=True) if p != q), None)
    return {
        "pages": len(first_ref),
        "common": n,
        "out_of_place": out_of_place,
        "kendall_tau": round(tau, 4),
        "missing": missing,
        "unreadable": unreadable,
        "extra": extra,
        "identical": out_of_place == 0 and not missing and not extra,
        "first_difference": first_wrong,
    }


def source_line(site: Path, warning: dict[str, Any]) -> str:
    """The line of the site's file that a warning names ("" when it names none)."""
    path, line = warning.get("path"), warning.get("line")
    if not path or not line:
        return ""
    try:
        lines = (site / path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def title_report(titles: list[str]) -> dict[str, Any]:
    """Titles that keep Markdown markup (code spans, emphasis, links) and titles used twice."""
    markup = [t for t in titles if re.search(r"`|\*\*|\]\(|(^|\s)_\w|<\w", t)]
    seen: dict[str, int] = {}
    for t in titles:
        seen[t] = seen.get(t, 0) + 1
    repeated = sorted(t for t, n in seen.items() if n > 1)
    return {"markup": len(markup), "repeated": repeated, "markup_examples": markup[:5]}


def classify(
    warnings: list[dict[str, Any]], verdicts: list[Verdict], site: Path | None = None
) -> dict[str, Any]:
    """Genuine, false and unreviewed warnings by the first verdict that covers each."""
    if site is not None:
        warnings = [{**w, "source_line": source_line(site, w)} for w in warnings]
    genuine = false = 0
    unreviewed: list[dict[str, Any]] = []
    classes: dict[str, int] = {}
    listed: list[dict[str, Any]] = []
    matched: dict[int, int] = {}
    for w in warnings:
        verdict = next((v for v in verdicts if v.covers(w)), None)
        if verdict is not None:
            matched[id(verdict)] = matched.get(id(verdict), 0) + 1
        listed.append({**w, "verdict": None if verdict is None else verdict.genuine})
        if verdict is None:
            unreviewed.append(w)
            continue
        if verdict.genuine:
            genuine += 1
        else:
            false += 1
            classes[verdict.why] = classes.get(verdict.why, 0) + 1

    return {
        "warnings": len(warnings),
        "genuine": genuine,
        "false": false,
        "unreviewed": len(unreviewed),
        "false_classes": classes,
        "unreviewed_examples": unreviewed[:5],
        "warning_list": listed,
        # Genuine problems the generator reports that the build no longer warns about.
        "missed": sum(
            max(0, v.expect - matched.get(id(v), 0))
            for v in verdicts
            if v.genuine and v.expect is not None
        ),
    }


EXPLAIN_K = 10
"""How deep a question that missed is searched again to say where its page ranks and why."""


def _signals(hit: Any) -> dict[str, list[float]]:
    """A hit's lists: name -> [rank there, raw score] (``keyword-only`` is a mark, rank 0)."""
    return {s.name: [s.rank, round(s.score, 4)] for s in hit.signals}


def explain(
    catalog: Any, pages: dict[str, str], question: Question, got: list[str]
) -> dict[str, Any]:
    """A missed question: what came first and where the answer page ranks, with the lists
    (vector, title, keyword) that put each there, from a search :data:`EXPLAIN_K` deep."""
    deep = catalog.search(question.text, k=EXPLAIN_K)
    ranked = [(pages.get(h.document_id, f"?{h.document_id}"), h) for h in deep.hits]
    expected = next(((i, h) for i, (p, h) in enumerate(ranked) if p in question.answers), None)
    first = ranked[0][1] if ranked else None
    return {
        "question": question.text,
        "answer": list(question.answers),
        "got": got,
        "first": None
        if first is None
        else {"page": ranked[0][0], "title": first.title, "lists": _signals(first)},
        "expected": None
        if expected is None
        else {
            "rank": expected[0] + 1,
            "title": expected[1].title,
            "lists": _signals(expected[1]),
        },
    }


SEARCH_K = 3
"""Documents each question asks for (``--search-k``); the library's default is 10, and lists
fused for fewer documents are shallower, so the top 3 of ``k = 3`` can differ from its own."""


def search_score(
    catalog: Any, pages: dict[str, str], questions: list[Question], k: int = SEARCH_K
) -> dict[str, Any]:
    """Fraction of questions answered by the first hit and within the first three, each
    searched for ``k`` documents; every question whose first hit is not its page, explained
    (:func:`explain`)."""
    first = top3 = 0
    misses: list[dict[str, Any]] = []
    first_misses: list[dict[str, Any]] = []
    # A large shard's keyword index is otherwise built in the background after the first
    # searches, which FTS5 answers meanwhile: the same catalog would score differently by timing.
    catalog.prepare_keyword_index()
    for q in questions:
        result = catalog.search(q.text, k=k)
        got = [pages.get(h.document_id, f"?{h.document_id}") for h in result.hits[:3]]
        if got[:1] and got[0] in q.answers:
            first += 1
        else:
            first_misses.append(explain(catalog, pages, q, got))
        if any(g in q.answers for g in got):
            top3 += 1
        else:
            misses.append({"question": q.text, "answer": list(q.answers), "got": got})
    n = len(questions) or 1
    return {
        "questions": len(questions),
        "first": round(first / n, 3),
        "top3": round(top3 / n, 3),
        "misses": misses,
        "first_misses": first_misses,
    }


def search_built(
    tree: Tree, *, catalogs: Path, mirror: Path, trees_dir: Path, k: int = SEARCH_K
) -> dict[str, Any]:
    """Search one tree's catalog that an earlier run wrote to ``catalogs`` (its ``--out``),
    with no build: the questions' scores in the row a full run prints."""
    row: dict[str, Any] = {"name": tree.name, "generator": tree.generator}
    output = catalogs / f"{tree.name}.gezk"
    if not output.is_file():
        row.update(builds=False, error=f"no catalog {output}")
        return row
    try:
        site = checkout(tree, mirror, trees_dir)
    except Unavailable as exc:
        row.update(builds=False, error=f"not checked out: {exc}")
        return row
    try:
        catalog = open_catalog(output)
    except KnowledgeError as exc:
        row.update(builds=True, searched_only=True, error=f"catalog does not open: {exc}")
        return row
    try:
        ids = catalog_order(catalog)
        mapper = PageMap(site, tree.content)
        pages = {i: mapper.path(i, catalog.body(i)) for i in dict.fromkeys(ids)}
        row.update(builds=True, searched_only=True, documents=len(pages))
        if (DATA / "questions" / f"{tree.name}.toml").is_file():
            row["search"] = search_score(catalog, pages, load_questions(tree.name), k)
    finally:
        catalog.close()
    return row


# -- one tree -------------------------------------------------------------------------------


def measure(
    tree: Tree,
    *,
    mirror: Path,
    trees_dir: Path,
    out_dir: Path,
    embedder: str | None,
    as_zip: bool,
    search: bool,
    fill_metadata: bool = False,
    search_k: int = SEARCH_K,
) -> dict[str, Any]:
    """Check out, build, read back and score one tree."""
    row: dict[str, Any] = {"name": tree.name, "generator": tree.generator}
    try:
        site = checkout(tree, mirror, trees_dir, as_zip=as_zip)
    except Unavailable as exc:
        row.update(builds=False, error=f"not checked out: {exc}")
        return row
    output = out_dir / f"{tree.name}.gezk"
    b = build(site, output, embedder, tree.flags)
    row.update(builds=b.ok, error=b.error, wall=round(b.wall, 2), cpu=round(b.cpu, 2))
    row["flags"] = list(tree.flags)
    if as_zip and b.ok:
        row["zip_identical"] = _zip_identical(
            tree, mirror, trees_dir, output=output, embedder=embedder
        )
    if not b.ok and fill_metadata and re.search(METADATA_REASONS, b.error or ""):
        # Measured anyway, with the metadata it asked for, so that warnings, order and search
        # are known; the tree still counts as not building.
        flags = (*tree.flags, *metadata_flags(tree, site, b.error))
        b = build(site, output, embedder, flags)
        row["measured_with"] = list(flags)
        if b.ok:
            row.update(wall=round(b.wall, 2), cpu=round(b.cpu, 2))
    if not b.ok:
        return row
    row["documents"] = b.report.get("documents")
    row["embedded"] = b.report.get("embedded")
    row["notes"] = list(b.report.get("notes", []))  # said once each, never warnings
    manifest = b.report.get("manifest", {})
    row["catalog"] = {
        k: manifest.get(k) for k in ("id", "name", "description", "language", "sourceUrl")
    }
    row["catalog"]["publisher"] = (manifest.get("publisher") or {}).get("id")
    row["catalog"]["license"] = (manifest.get("license") or {}).get("spdx")
    row.update(classify(list(b.report.get("warnings", [])), load_verdicts(tree.name), site))
    try:
        catalog = open_catalog(output) if search else open_catalog(output, embedder=None)
    except KnowledgeError as exc:
        # Built but refused at open: a defect of this library worth its own line, not the
        # end of the whole run.
        row["error"] = f"catalog does not open: {exc}"
        return row
    try:
        ids = catalog_order(catalog)
        mapper = PageMap(site, tree.content)
        pages = {i: mapper.path(i, catalog.body(i)) for i in dict.fromkeys(ids)}
        if (DATA / "orders" / f"{tree.name}.txt").is_file():
            row["order"] = compare_order(
                [pages[i] for i in ids],
                load_order(tree.name),
                readable=readable_suffixes(tree.generator),
            )
        row["catalog_order"] = [pages[i] for i in ids]
        row["unmapped"] = sorted(i for i, p in pages.items() if p.startswith("?"))
        row["titles"] = title_report([catalog.document(i).title for i in pages])
        if search and (DATA / "questions" / f"{tree.name}.toml").is_file():
            row["search"] = search_score(catalog, pages, load_questions(tree.name), search_k)
    finally:
        catalog.close()
    return row


def _zip_identical(
    tree: Tree, mirror: Path, trees_dir: Path, *, output: Path, embedder: str | None
) -> bool | str:
    """Whether the clone of the tree builds the very bytes its ZIP-like checkout built
    (``output``); the error when the clone does not build."""
    clone = checkout(tree, mirror, trees_dir, as_zip=False)
    other = output.with_name(f"{tree.name}.clone.gezk")
    b = build(clone, other, embedder, tree.flags)
    if not b.ok:
        return f"the clone does not build: {b.error}"
    return other.read_bytes() == output.read_bytes()


# -- output ---------------------------------------------------------------------------------


def _machine() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
    }


def _library(label: str | None = None) -> dict[str, Any]:
    where = Path(gezel_knowledge.__file__).resolve().parents[1]
    if label:
        return {"path": str(where), "commit": label}
    try:
        commit = subprocess.run(
            ["git", "-C", str(where), "log", "-1", "--format=%h %s"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        commit = "unknown"
    return {"path": str(where), "commit": commit[:90]}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The goals of issue 21, met or not."""
    built = [r for r in rows if r.get("builds")]
    false_free = [r for r in built if r.get("false", 0) == 0 and r.get("unreviewed", 0) == 0]
    identical = [r for r in built if r.get("order", {}).get("identical")]
    searched = [r for r in built if "search" in r]
    good_search = [
        r
        for r in searched
        if r["search"]["first"] >= GOALS["first"] and r["search"]["top3"] >= GOALS["top3"]
    ]
    measured = [r for r in rows if "documents" in r]
    return {
        "trees": len(rows),
        "build": len(built),
        "build_with_no_flag": sum(1 for r in built if not r.get("flags")),
        "zip_identical": sum(1 for r in built if r.get("zip_identical") is True),
        "zip_compared": sum(1 for r in built if "zip_identical" in r),
        "measured": len(measured),
        "measured_no_false_warnings": sum(
            1 for r in measured if r.get("false", 0) == 0 and r.get("unreviewed", 0) == 0
        ),
        "measured_order_identical": sum(1 for r in measured if r.get("order", {}).get("identical")),
        "measured_search_goal_met": sum(
            1
            for r in measured
            if "search" in r
            and r["search"]["first"] >= GOALS["first"]
            and r["search"]["top3"] >= GOALS["top3"]
        ),
        "no_false_warnings": len(false_free),
        "order_identical": len(identical),
        "search_goal_met": len(good_search),
        "searched": len(searched),
        "goals_met": {
            "all_build": len(built) == len(rows),
            "no_false_warnings_on_20": len(false_free) >= GOALS["false_free_trees"],
            "order_identical_on_all": len(identical) == len(rows),
            "search_on_every_tree": len(good_search) == len(rows),
        },
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per tree."""
    head = (
        f"{'tree':<29} {'builds':<6} {'docs':>4} {'warn':>5} {'genu':>4} {'false':>5} "
        f"{'unrev':>5} {'lost':>4} {'order':>10} {'tau':>6} {'miss':>4} {'xtra':>4} "
        f"{'wall':>6} {'cpu':>6} {'first':>5} {'top3':>5}  flags"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        if "documents" not in r:
            print(f"{r['name']:<29} {'no':<6} (see below)")
            continue
        s = r.get("search", {})
        if r.get("searched_only"):
            dashes = f"{'-':>5} {'-':>4} {'-':>5} {'-':>5} {'-':>4} {'-':>10} {'-':>6} {'-':>4} "
            print(
                f"{r['name']:<29} {'built':<6} {r['documents']:>4} {dashes}{'-':>4} "
                f"{'-':>6} {'-':>6} {s.get('first', float('nan')):>5.2f} "
                f"{s.get('top3', float('nan')):>5.2f}"
            )
            continue
        o = r.get("order", {})
        order = "same" if o.get("identical") else f"{o.get('out_of_place')}/{o.get('common')}"
        builds = "yes" if r.get("builds") else "no*"
        print(
            f"{r['name']:<29} {builds:<6} {r['documents']:>4} {r['warnings']:>5} "
            f"{r['genuine']:>4} {r['false']:>5} {r['unreviewed']:>5} {r.get('missed', 0):>4} "
            f"{order:>10} "
            f"{o.get('kendall_tau', 0):>6.3f} {len(o.get('missing', [])):>4} "
            f"{len(o.get('extra', [])):>4} {r['wall']:>6.1f} {r['cpu']:>6.1f} "
            f"{s.get('first', float('nan')):>5.2f} {s.get('top3', float('nan')):>5.2f}  "
            f"{' '.join(r.get('flags') or ()) or '-'}"
            + ("" if "zip_identical" not in r else f"  zip={r['zip_identical']}")
        )
    for r in rows:
        for m in r.get("search", {}).get("first_misses", []) if r.get("searched_only") else ():
            e = m["expected"]
            print(
                f"  {r['name']}: {m['question']!r} wants {m['answer'][0]}, first "
                f"{m['got'][0] if m['got'] else None}; "
                f"its rank {e['rank'] if e else '>' + str(EXPLAIN_K)}"
            )
    failed = [r for r in rows if not r.get("builds")]
    if failed:
        print("\nno: the build stops (no*: measured again with --metadata-flags):")
        for r in failed:
            print(f"  {r['name']}: {r.get('error')}")
    refused = [r for r in rows if r.get("builds") and r.get("error")]
    if refused:
        print("\nbuilt, but the catalog does not open:")
        for r in refused:
            print(f"  {r['name']}: {r['error']}")


def rescore(result: dict[str, Any], trees_dir: Path) -> dict[str, Any]:
    """A saved ``--json`` result scored again with today's orders and verdicts (no build)."""
    trees = {t.name: t for t in load_trees()}
    for row in result["trees"]:
        tree = trees.get(row["name"])
        if tree is None or "warning_list" not in row:
            continue
        site = (trees_dir / f"{tree.name}@{tree.commit[:12]}" / tree.subfolder).resolve()
        warnings = [
            {k: v for k, v in w.items() if k not in ("verdict", "source_line")}
            for w in row["warning_list"]
        ]
        row.update(classify(warnings, load_verdicts(tree.name), site))
        if "catalog_order" in row:
            row["order"] = compare_order(
                row["catalog_order"],
                load_order(tree.name),
                readable=readable_suffixes(tree.generator),
            )
    result["summary"] = summary(result["trees"])
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        epilog="PYTHONPATH=DIR measures the library in DIR (the build runs as a child process "
        "that inherits it).",
    )
    parser.add_argument("--only", action="append", metavar="NAME", help="these trees only")
    parser.add_argument("--generator", action="append", choices=GENERATORS, help="these only")
    parser.add_argument("--trees", type=Path, help=f"checkouts folder (default {DEFAULT_TREES})")
    parser.add_argument("--mirror", type=Path, help=f"fetched snapshots (default {DEFAULT_MIRROR})")
    parser.add_argument("--out", type=Path, help="where the catalogs go (default: a temp folder)")
    parser.add_argument(
        "--catalogs",
        type=Path,
        metavar="DIR",
        help="search the catalogs an earlier run wrote to its --out DIR, without building "
        "(questions only; same output)",
    )
    parser.add_argument(
        "--search-k",
        type=int,
        default=SEARCH_K,
        metavar="N",
        help=f"documents each question asks for (default {SEARCH_K}; the library's default is 10)",
    )
    parser.add_argument("--embedder", metavar="PROFILE", help="profile (default model)")
    parser.add_argument("--zip", action="store_true", help="check out without .git, as a ZIP")
    parser.add_argument("--no-search", action="store_true", help="skip the questions")
    parser.add_argument(
        "--metadata-flags",
        action="store_true",
        help="when a build stops for missing metadata only, measure it again with flags that "
        "supply it (the tree still counts as not building)",
    )
    parser.add_argument("--checkout-only", action="store_true", help="check the trees out only")
    parser.add_argument("--label", help="name of the library measured (default: its git commit)")
    parser.add_argument(
        "--rescore",
        type=Path,
        metavar="RESULT.json",
        help="score a saved --json result again with today's orders and verdicts (no build)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _selected(args: argparse.Namespace) -> list[Tree] | None:
    """The trees ``--only`` and ``--generator`` choose; ``None`` (said) for an unknown name."""
    trees = load_trees()
    if args.only:
        unknown = set(args.only) - {t.name for t in trees}
        if unknown:
            print(f"no such tree: {', '.join(sorted(unknown))}", file=sys.stderr)
            return None
        trees = [t for t in trees if t.name in args.only]
    if args.generator:
        trees = [t for t in trees if t.generator in args.generator]
    return trees


def main(argv: list[str] | None = None) -> int:
    """Measure the listed trees and print the table (or JSON)."""
    args = _parser().parse_args(argv)
    trees = _selected(args)
    if trees is None:
        return 2
    mirror = args.mirror or Path(os.environ.get("GEZEL_REALDOCS_MIRROR", DEFAULT_MIRROR))
    trees_dir = args.trees or Path(os.environ.get("GEZEL_REALDOCS_TREES", DEFAULT_TREES))
    if args.rescore is not None:
        result = rescore(json.loads(args.rescore.read_text(encoding="utf-8")), trees_dir)
        if args.json:
            print(json.dumps(result, indent=2))
        else:
            print_report(result)
        return 0
    trees_dir.mkdir(parents=True, exist_ok=True)
    if args.checkout_only:
        status = 0
        for tree in trees:
            try:
                print(f"{tree.name}: {checkout(tree, mirror, trees_dir, as_zip=args.zip)}")
            except Unavailable as exc:
                print(f"{tree.name}: {exc}", file=sys.stderr)
                status = 1
        return status
    before = _machine()
    rows: list[dict[str, Any]] = []
    if args.catalogs is not None:
        for tree in trees:
            if not args.json:
                print(f"... {tree.name}", file=sys.stderr, flush=True)
            rows.append(
                search_built(
                    tree,
                    catalogs=args.catalogs,
                    mirror=mirror,
                    trees_dir=trees_dir,
                    k=args.search_k,
                )
            )
        return _finish(rows, before, args)
    with tempfile.TemporaryDirectory(prefix="realdocs-") as scratch:
        out_dir = args.out or Path(scratch)
        out_dir.mkdir(parents=True, exist_ok=True)
        for tree in trees:
            if not args.json:
                print(f"... {tree.name}", file=sys.stderr, flush=True)
            rows.append(
                measure(
                    tree,
                    mirror=mirror,
                    trees_dir=trees_dir,
                    out_dir=out_dir,
                    embedder=args.embedder,
                    as_zip=args.zip,
                    search=not args.no_search,
                    fill_metadata=args.metadata_flags,
                    search_k=args.search_k,
                )
            )
    return _finish(rows, before, args)


def _finish(rows: list[dict[str, Any]], before: dict[str, Any], args: argparse.Namespace) -> int:
    """Print the rows measured (JSON or the report)."""
    result = {
        "library": _library(args.label),
        "machine_before": before,
        "machine_after": _machine(),
        "summary": summary(rows),
        "trees": rows,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print_report(result)
    return 0


def print_report(result: dict[str, Any]) -> None:
    """The table, the goals and the machine."""
    print_table(result["trees"])
    s = result["summary"]
    before, after = result["machine_before"], result["machine_after"]
    print()
    print(
        f"{s['build']}/{s['trees']} build ({s['build_with_no_flag']} with no flag); "
        f"no false warning on {s['no_false_warnings']} "
        f"(goal >= {GOALS['false_free_trees']}); order identical on {s['order_identical']}; "
        f"search goal met on {s['search_goal_met']}/{s['searched']}"
    )
    if s.get("zip_compared"):
        print(f"ZIP and clone byte-identical on {s['zip_identical']}/{s['zip_compared']}")
    print(
        f"built or measured with --metadata-flags: {s['measured']}; of those, no false warning "
        f"on {s['measured_no_false_warnings']}, order identical on "
        f"{s['measured_order_identical']}, search goal met on {s['measured_search_goal_met']}"
    )
    print(
        f"library {result['library']['path']} ({result['library']['commit']}); machine "
        f"{before['cores']} cores, load average {before['load_average']} before, "
        f"{after['load_average']} after"
    )


if __name__ == "__main__":
    sys.exit(main())
