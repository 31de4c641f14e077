"""benchmarks/realdocs: the list of trees, questions, orders and verdicts are well-formed, and
the script's pieces that need no tree (order comparison, verdicts, page mapping) behave."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from tests.benchmark_modules import BENCHMARKS, load_benchmark


@pytest.fixture
def realdocs(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return load_benchmark("realdocs", monkeypatch)


def test_the_corpus_covers_every_generator(realdocs: ModuleType) -> None:
    trees = realdocs.load_trees()
    assert len(trees) >= 24
    per = Counter(t.generator for t in trees)
    for generator in ("mkdocs", "mdbook", "docusaurus", "hugo", "gitbook", "docfx", "sphinx"):
        assert per[generator] >= 3, generator
    assert per["jupyter-book"] >= 1
    assert per["myst"] >= 2
    assert {t.theme for t in trees if t.generator == "mkdocs"} >= {"material", "mkdocs"}
    assert all(t.licence and t.order for t in trees)


def test_every_tree_has_questions_an_order_and_answers_in_it(realdocs: ModuleType) -> None:
    for tree in realdocs.load_trees():
        questions = realdocs.load_questions(tree.name)
        order = realdocs.load_order(tree.name)
        assert len(questions) >= 8, tree.name
        assert len(order) == len(set(order)), f"{tree.name}: a page repeats in its order"
        texts = [q.text for q in questions]
        assert len(texts) == len(set(texts)), f"{tree.name}: a question repeats"
        for q in questions:
            for answer in q.answers:
                assert answer in order, f"{tree.name}: {answer} is not a page of the site"
        realdocs.load_verdicts(tree.name)


def test_verdict_files_name_listed_trees(realdocs: ModuleType) -> None:
    names = {t.name for t in realdocs.load_trees()}
    for path in (BENCHMARKS / "realdocs" / "verdicts").glob("*.toml"):
        assert path.stem in names
        for verdict in realdocs.load_verdicts(path.stem):
            assert verdict.reason or verdict.path or verdict.message or verdict.source, path.name


def test_malformed_lists_are_refused(realdocs: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "trees.toml"
    bad.write_text(
        '[[tree]]\nname = "x"\nrepository = "a/b"\ncommit = "abc"\nsubfolder = "."\n'
        'generator = "mkdocs"\nlicence = "MIT"\ncontent = "docs"\norder = "nav"\n'
    )
    with pytest.raises(realdocs.ListError, match="40 hex digits"):
        realdocs.load_trees(bad)
    bad.write_text(bad.read_text().replace('"abc"', '"' + "a" * 40 + '"') + 'colour = "red"\n')
    with pytest.raises(realdocs.ListError, match="unknown keys"):
        realdocs.load_trees(bad)
    bad.write_text(bad.read_text().replace('colour = "red"', 'flags = ["--name", ""]'))
    with pytest.raises(realdocs.ListError, match="flags must be"):
        realdocs.load_trees(bad)


def test_flags_are_read_and_counted_apart(realdocs: ModuleType) -> None:
    trees = {t.name: t for t in realdocs.load_trees()}
    assert trees["mdbook-guide"].flags == ("--license-file", "../LICENSE")
    assert trees["mkdocs-httpx"].flags == ()
    rows = [
        {"name": "a", "builds": True, "flags": []},
        {"name": "b", "builds": True, "flags": ["--license-file", "../LICENSE"]},
        {"name": "c", "builds": False, "flags": []},
    ]
    summary = realdocs.summary(rows)
    assert (summary["build"], summary["build_with_no_flag"]) == (2, 1)


def test_order_comparison_counts_pages_to_move(realdocs: ModuleType) -> None:
    same = realdocs.compare_order(["a", "b", "c"], ["a", "b", "c"])
    assert same["identical"]
    assert same["out_of_place"] == 0
    assert same["kendall_tau"] == 1.0
    # Sections' own pages listed before their subsections: one page out of place.
    moved = realdocs.compare_order(["a", "c", "d", "b"], ["a", "b", "c", "d"])
    assert moved["out_of_place"] == 1
    assert not moved["identical"]
    assert moved["first_difference"] == "c"
    assert moved["kendall_tau"] == pytest.approx(1 / 3, abs=1e-4)
    gaps = realdocs.compare_order(["a.md", "x.md", "a.md"], ["a.md", "b.md", "c.rst"])
    assert gaps["missing"] == ["b.md"]
    assert gaps["extra"] == ["x.md"]
    assert not gaps["identical"]
    assert gaps["unreadable"] == ["c.rst"]
    rst = realdocs.compare_order(["a.md"], ["a.md", "api.rst"])
    assert rst["identical"]
    assert rst["unreadable"] == ["api.rst"]
    # R Markdown: a page of a Quarto site, a format other catalogs cannot read.
    rmd = realdocs.compare_order(["a.md"], ["a.md", "b.Rmd"])
    assert rmd["identical"]
    assert rmd["unreadable"] == ["b.Rmd"]
    quarto = realdocs.compare_order(
        ["a.md"], ["a.md", "b.Rmd"], readable=realdocs.readable_suffixes("quarto")
    )
    assert quarto["missing"] == ["b.Rmd"]
    assert not quarto["identical"]


def test_warnings_are_classified_by_the_first_covering_verdict(realdocs: ModuleType) -> None:
    verdicts = [
        realdocs.Verdict(genuine=True, why="page really missing", message="old-page", expect=2),
        realdocs.Verdict(genuine=False, why="MyST label", reason="unresolved-link"),
    ]
    warnings = [
        {"reason": "unresolved-link", "path": "a.md", "message": "link to old-page.md"},
        {"reason": "unresolved-link", "path": "b.md", "message": "link to (label)"},
        {"reason": "draft-chapter", "path": "SUMMARY.md", "message": "draft"},
    ]
    got = realdocs.classify(warnings, verdicts)
    assert (got["genuine"], got["false"], got["unreviewed"]) == (1, 1, 1)
    assert got["false_classes"] == {"MyST label": 1}
    # The generator reports the old page twice; the build warned once.
    assert got["missed"] == 1


def test_documents_map_to_pages_by_id_else_by_content(realdocs: ModuleType, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "docs" / "guide").mkdir(parents=True)
    (site / "docs" / "guide" / "index.md").write_text("# Guide\n")
    body = "A sentence long enough to be matched against its page.\nAnother line of the page.\n"
    (site / "docs" / "02-setup.md").write_text("---\nid: setup\n---\n" + body)
    pages = realdocs.PageMap(site, "docs")
    assert pages.path("guide", "# Guide\n") == "docs/guide/index.md"
    assert pages.path("setup", body) == "docs/02-setup.md"
    (site / "docs" / "insert").mkdir()
    (site / "docs" / "insert" / "0010-single-row.mdx").write_text(body)
    assert realdocs.PageMap(site, "docs").path("Insert/single-row", body) == (
        "docs/insert/0010-single-row.mdx"
    )
    assert pages.path("nowhere", "nothing alike at all in this body text here") == "?nowhere"


def test_ids_under_a_mounted_prefix_map_to_the_mounted_folder(
    realdocs: ModuleType, tmp_path: Path
) -> None:
    # Hugo's module.mounts of content/docs/v2 at docs: the id docs/2.1/start is the page
    # content/docs/v2/2.1/start.md; an id the content folder holds itself stays there.
    site = tmp_path / "site"
    (site / "content" / "docs" / "v2" / "2.1").mkdir(parents=True)
    (site / "content" / "docs" / "_index.md").write_text("# Docs\n")
    (site / "content" / "docs" / "v2" / "_index.md").write_text("# V2\n")
    (site / "content" / "docs" / "v2" / "2.1" / "start.md").write_text("# Start\n")
    pages = realdocs.PageMap(site, "content,content/docs/v2=docs")
    assert pages.path("docs/2.1/start", "") == "content/docs/v2/2.1/start.md"
    assert pages.path("docs/_index", "# Docs\n") == "content/docs/_index.md"


def test_a_missing_snapshot_names_the_fetch_to_run(realdocs: ModuleType, tmp_path: Path) -> None:
    tree = realdocs.load_trees()[0]
    with pytest.raises(realdocs.Unavailable, match=f"source github:{tree.repository}"):
        realdocs.checkout(tree, tmp_path / "mirror", tmp_path / "trees")


def test_a_checkout_keeps_symbolic_links_as_a_clone_does(
    realdocs: ModuleType, tmp_path: Path
) -> None:
    # unocss/unocss: LICENSE at the root links to packages-integrations/vscode/LICENSE.
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "LICENSE").write_text("MIT License\n")
    (work / "LICENSE").symlink_to("pkg/LICENSE")
    (work / "docs").mkdir()
    (work / "docs" / "index.md").write_text("# Home\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    mirror = tmp_path / "mirror" / "acme+kit"
    mirror.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror / "repo")], check=True)
    tree = realdocs.Tree(
        name="kit",
        repository="acme/kit",
        commit=commit,
        subfolder="docs",
        generator="folders",
        licence="MIT",
        content=".",
        order="path order",
        extra=("pkg/LICENSE",),
    )
    (tmp_path / "trees").mkdir()
    site = realdocs.checkout(tree, tmp_path / "mirror", tmp_path / "trees")
    licence = site.parent / "LICENSE"
    assert licence.is_symlink()
    assert licence.read_text() == "MIT License\n"


class _Hit:
    def __init__(self, document_id: str, signals: tuple[tuple[str, int, float], ...]) -> None:
        self.document_id = document_id
        self.title = document_id.title()
        self.signals = [SimpleNamespace(name=n, rank=r, score=s) for n, r, s in signals]


class _Catalog:
    """Answers every question with the same ranking, as deep as asked."""

    def __init__(self, hits: list[_Hit]) -> None:
        self.hits = hits
        self.asked: list[int] = []
        self.prepared_after: int | None = None

    def prepare_keyword_index(self) -> int:
        self.prepared_after = len(self.asked)
        return 1

    def search(self, text: str, k: int) -> SimpleNamespace:
        self.asked.append(k)
        return SimpleNamespace(hits=self.hits[:k])


def test_first_hit_misses_are_explained_by_their_lists(realdocs: ModuleType) -> None:
    ranking = [
        _Hit("index", (("vector", 1, 0.61), ("keyword", 2, 7.5))),
        _Hit("b", (("keyword", 1, 9.0),)),
        _Hit("c", ()),
        _Hit("d", (("title", 1, 3.25), ("vector", 9, 0.4))),
    ]
    pages = {"index": "docs/index.md", "b": "docs/b.md", "c": "docs/c.md", "d": "docs/d.md"}
    questions = [
        realdocs.Question("first?", ("docs/index.md",)),
        realdocs.Question("second?", ("docs/b.md",)),
        realdocs.Question("fourth?", ("docs/d.md",)),
    ]
    catalog = _Catalog(ranking)
    got = realdocs.search_score(catalog, pages, questions)
    assert (got["first"], got["top3"]) == (0.333, 0.667)
    assert [m["question"] for m in got["misses"]] == ["fourth?"]
    second, fourth = got["first_misses"]
    assert second["first"] == {
        "page": "docs/index.md",
        "title": "Index",
        "lists": {"vector": [1, 0.61], "keyword": [2, 7.5]},
    }
    assert second["expected"] == {"rank": 2, "title": "B", "lists": {"keyword": [1, 9.0]}}
    assert fourth["got"] == ["docs/index.md", "docs/b.md", "docs/c.md"]
    assert fourth["expected"]["rank"] == 4
    assert fourth["expected"]["lists"] == {"title": [1, 3.25], "vector": [9, 0.4]}
    # The keyword index is ready before the first question, not built behind the searches.
    assert catalog.prepared_after == 0
    # Scored three deep; only the two misses searched again, deeper.
    assert catalog.asked == [3, 3, realdocs.EXPLAIN_K, 3, realdocs.EXPLAIN_K]
    # Asked for ten documents (the library's default), the first three count all the same.
    deep = _Catalog(ranking)
    got = realdocs.search_score(deep, pages, questions, k=10)
    assert (got["first"], got["top3"]) == (0.333, 0.667)
    assert deep.asked[0] == 10
    assert got["first_misses"][1]["got"] == ["docs/index.md", "docs/b.md", "docs/c.md"]


def test_searching_built_catalogs_needs_the_catalog(realdocs: ModuleType, tmp_path: Path) -> None:
    tree = realdocs.load_trees()[0]
    row = realdocs.search_built(
        tree, catalogs=tmp_path, mirror=tmp_path / "mirror", trees_dir=tmp_path / "trees"
    )
    assert row["builds"] is False
    assert f"{tree.name}.gezk" in row["error"]


def test_help_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "realdocs.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--only" in done.stdout
    assert "--catalogs" in done.stdout
    assert "PYTHONPATH" in done.stdout
