"""Reading BEIR folders: both layouts, split choice, and typed errors for malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gezel_knowledge.errors import InvalidInput, NotFound
from gezel_knowledge.evaluate import load_judgements
from gezel_knowledge.evaluate.beir import locate_beir, read_corpus, read_qrels, read_queries


def _jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _beir(root: Path, splits: tuple[str, ...] = ("test",)) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _jsonl(root / "corpus.jsonl", [{"_id": "d1", "title": "T", "text": "x"}])
    _jsonl(root / "queries.jsonl", [{"_id": "q1", "text": "question"}])
    (root / "qrels").mkdir()
    for split in splits:
        (root / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    return root


def test_the_only_split_is_chosen_without_asking(tmp_path: Path) -> None:
    found = locate_beir(_beir(tmp_path / "b"))
    assert found.split == "test"
    assert found.qrels == tmp_path / "b" / "qrels" / "test.tsv"
    assert found.queries == tmp_path / "b" / "queries.jsonl"


def test_several_splits_need_a_choice(tmp_path: Path) -> None:
    root = _beir(tmp_path / "b", ("dev", "test"))
    with pytest.raises(InvalidInput) as caught:
        locate_beir(root)
    assert caught.value.reason == "beir-split-ambiguous"
    assert "dev, test" in str(caught.value)
    assert locate_beir(root, "dev").qrels.name == "dev.tsv"
    with pytest.raises(InvalidInput) as missing:
        locate_beir(root, "train")
    assert missing.value.reason == "beir-split-missing"


def test_flat_split_files_are_read(tmp_path: Path) -> None:
    # The layout of the shared SciFact training split: queries-train.jsonl, qrels-train.tsv.
    root = tmp_path / "flat"
    root.mkdir()
    _jsonl(root / "corpus.jsonl", [{"_id": "d1", "title": "", "text": "x"}])
    _jsonl(root / "queries-train.jsonl", [{"_id": "q1", "text": "question"}])
    (root / "qrels-train.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    found = locate_beir(root)
    assert (found.split, found.queries.name, found.qrels.name) == (
        "train",
        "queries-train.jsonl",
        "qrels-train.tsv",
    )


@pytest.mark.parametrize(
    ("remove", "reason"),
    [
        ("corpus.jsonl", "beir-corpus-missing"),
        ("queries.jsonl", "beir-queries-missing"),
        ("qrels/test.tsv", "beir-qrels-missing"),
    ],
)
def test_a_missing_file_is_named(tmp_path: Path, remove: str, reason: str) -> None:
    root = _beir(tmp_path / "b")
    (root / remove).unlink()
    with pytest.raises(InvalidInput) as caught:
        locate_beir(root)
    assert caught.value.reason == reason


def test_a_missing_folder_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as caught:
        locate_beir(tmp_path / "nowhere")
    assert caught.value.reason == "eval-folder-not-found"


def test_corpus_lines_become_documents(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        '{"_id": "a", "title": " Alpha ", "text": "one"}\n\n{"_id": 7, "text": "two"}\n'
    )
    docs = list(read_corpus(path))
    assert [(d.id, d.title, d.text) for d in docs] == [("a", "Alpha", "one"), ("7", "", "two")]


@pytest.mark.parametrize(
    ("content", "reason", "line"),
    [
        ('{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n', "eval-invalid-json", 2),
        ('["a", "x"]\n', "eval-invalid-json", 1),
        ('{"title": "no id", "text": "x"}\n', "eval-invalid-record", 1),
        ('{"_id": "  ", "text": "x"}\n', "eval-invalid-record", 1),
        ('{"_id": "a", "title": "no text"}\n', "eval-invalid-record", 1),
        ('{"_id": "a", "text": 3}\n', "eval-invalid-record", 1),
        ('{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n', "eval-duplicate-id", 2),
    ],
)
def test_malformed_corpus_lines_name_file_and_line(
    tmp_path: Path, content: str, reason: str, line: int
) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(content)
    with pytest.raises(InvalidInput) as caught:
        list(read_corpus(path))
    assert caught.value.reason == reason
    assert caught.value.subject == f"{path}:{line}"
    assert f"corpus.jsonl:{line}" in str(caught.value)


def test_malformed_queries_are_refused(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "q.jsonl", [{"_id": "q1", "text": "a"}, {"_id": "q1", "text": "b"}])
    with pytest.raises(InvalidInput) as caught:
        read_queries(path)
    assert caught.value.reason == "eval-duplicate-id"


def test_qrels_header_is_optional_and_trec_columns_are_read(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("q1\td1\t1\nq1\td2\t0\n\nq2 0 d3 2\n")
    assert read_qrels(path) == {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\n", 2),
        ("q1\td1\tyes\n", 1),
        ("q1\t\t1\n", 1),
        ("q1\td1\t1\textra\tcolumns\n", 1),
    ],
)
def test_malformed_qrels_rows_name_the_line(tmp_path: Path, content: str, line: int) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text(content)
    with pytest.raises(InvalidInput) as caught:
        read_qrels(path)
    assert caught.value.reason == "eval-invalid-qrels"
    assert caught.value.subject == f"{path}:{line}"


def test_judgements_keep_questions_with_a_relevant_document(tmp_path: Path) -> None:
    queries = _jsonl(
        tmp_path / "q.jsonl",
        [{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"}, {"_id": "q3", "text": "c"}],
    )
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1\td1\t1\nq1\td2\t0\nq2\td2\t0\n")
    judged = load_judgements(queries, qrels, split="dev")
    assert [q.id for q in judged.queries] == ["q1"]  # q2 has no relevant, q3 no judgement
    assert judged.relevant("q1") == {"d1"}
    assert dict(judged.qrels["q1"]) == {"d1": 1, "d2": 0}
    assert judged.split == "dev"


def test_judgements_naming_an_unknown_question_are_refused(tmp_path: Path) -> None:
    queries = _jsonl(tmp_path / "q.jsonl", [{"_id": "q1", "text": "a"}])
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1\td1\t1\nq9\td1\t1\n")
    with pytest.raises(InvalidInput) as caught:
        load_judgements(queries, qrels)
    assert caught.value.reason == "eval-unknown-query"
    assert caught.value.subject == "q9"


def test_judgements_without_any_relevant_document_are_refused(tmp_path: Path) -> None:
    queries = _jsonl(tmp_path / "q.jsonl", [{"_id": "q1", "text": "a"}])
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1\td1\t0\n")
    with pytest.raises(InvalidInput) as caught:
        load_judgements(queries, qrels)
    assert caught.value.reason == "eval-no-judged-queries"


@pytest.mark.parametrize("which", ["queries", "qrels", "corpus"])
def test_an_input_that_cannot_be_read_is_unreadable(tmp_path: Path, which: str) -> None:
    queries = _jsonl(tmp_path / "q.jsonl", [{"_id": "q1", "text": "a"}])
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("q1\td1\t1\n")
    folder = tmp_path / "a-folder"  # a folder where a file should be
    folder.mkdir()
    read = {
        "queries": lambda: load_judgements(folder, qrels),
        "qrels": lambda: load_judgements(queries, folder),
        "corpus": lambda: list(read_corpus(folder)),
    }[which]
    with pytest.raises(InvalidInput) as caught:
        read()
    assert (caught.value.reason, caught.value.subject) == ("unreadable", str(folder))
    assert str(caught.value).startswith("cannot read ")
