"""Reading a retrieval benchmark in the BEIR layout: a corpus, queries and relevance judgements.

A BEIR folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``,
``text``) and ``qrels/<split>.tsv`` (``query-id``, ``corpus-id``, ``score``, with a header
line). Folders that keep one split flat (``queries-<split>.jsonl``, ``qrels-<split>.tsv``) are
read too. Every malformed line is an :class:`~gezel_knowledge.errors.InvalidInput` naming the
file and line, with a stable ``reason``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gezel_knowledge._files import open_input, read_input_bytes
from gezel_knowledge.errors import InvalidInput, NotFound

__all__ = [
    "BeirFolder",
    "CorpusDocument",
    "Judgements",
    "Query",
    "load_judgements",
    "locate_beir",
    "read_corpus",
    "read_qrels",
    "read_queries",
]


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    """One corpus line: its id, title (possibly empty) and text."""

    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Query:
    """One question to evaluate."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Judgements:
    """The questions to run and, for each, the judged documents with their grades.

    ``qrels`` maps a query id to ``{document id: grade}``; a grade above zero is relevant. Only
    questions with at least one relevant document are kept (as BEIR evaluates them).
    """

    queries: tuple[Query, ...]
    qrels: Mapping[str, Mapping[str, int]]
    split: str | None = None

    def relevant(self, query_id: str) -> frozenset[str]:
        """The documents judged relevant (grade above zero) to a question."""
        return frozenset(d for d, g in self.qrels.get(query_id, {}).items() if g > 0)


@dataclass(frozen=True, slots=True)
class BeirFolder:
    """Where a BEIR folder's three files are, for one split."""

    root: Path
    corpus: Path
    queries: Path
    qrels: Path
    split: str | None


def _qrels_splits(root: Path) -> dict[str, Path]:
    """Split name -> qrels file, from ``qrels/<split>.tsv`` and ``qrels-<split>.tsv``."""
    found: dict[str, Path] = {}
    folder = root / "qrels"
    if folder.is_dir():
        found.update({p.stem: p for p in sorted(folder.glob("*.tsv"))})
    for p in sorted(root.glob("qrels-*.tsv")):
        found.setdefault(p.stem.removeprefix("qrels-"), p)
    return found


def locate_beir(folder: Path | str, split: str | None = None) -> BeirFolder:
    """Find a BEIR folder's corpus, queries and qrels for ``split``.

    Without ``split``, the folder's only split is used; a folder with several needs one
    (``test``, ``dev``, ``train``). ``queries-<split>.jsonl`` is preferred to ``queries.jsonl``.
    """
    root = Path(folder)
    if not root.is_dir():
        raise NotFound(f"{root} is not a folder", reason="eval-folder-not-found", subject=str(root))
    corpus = root / "corpus.jsonl"
    if not corpus.is_file():
        raise InvalidInput(
            f"{root} has no corpus.jsonl: not a BEIR folder",
            reason="beir-corpus-missing",
            subject=str(root),
        )
    splits = _qrels_splits(root)
    if not splits:
        raise InvalidInput(
            f"{root} has no relevance judgements (qrels/<split>.tsv or qrels-<split>.tsv)",
            reason="beir-qrels-missing",
            subject=str(root),
        )
    if split is None:
        if len(splits) > 1:
            raise InvalidInput(
                f"{root} has the splits {', '.join(sorted(splits))}: choose one (--split)",
                reason="beir-split-ambiguous",
                subject=str(root),
            )
        split = next(iter(splits))
    if split not in splits:
        raise InvalidInput(
            f"{root} has no split {split!r} (it has {', '.join(sorted(splits))})",
            reason="beir-split-missing",
            subject=split,
        )
    queries = next(
        (p for p in (root / f"queries-{split}.jsonl", root / "queries.jsonl") if p.is_file()),
        None,
    )
    if queries is None:
        raise InvalidInput(
            f"{root} has no queries.jsonl (nor queries-{split}.jsonl)",
            reason="beir-queries-missing",
            subject=str(root),
        )
    return BeirFolder(root, corpus, queries, splits[split], split)


def _json_lines(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines file."""
    with open_input(path, what) as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InvalidInput(
                    f"{path}:{number}: invalid JSON ({exc})",
                    reason="eval-invalid-json",
                    subject=f"{path}:{number}",
                ) from None
            if not isinstance(obj, dict):
                raise InvalidInput(
                    f"{path}:{number}: each line must be a JSON object",
                    reason="eval-invalid-json",
                    subject=f"{path}:{number}",
                )
            yield number, obj


def _field(obj: Mapping[str, Any], key: str, path: Path, number: int, *, required: bool) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    if key == "_id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # some corpora write numeric ids as JSON numbers
    if not isinstance(value, str) or (key == "_id" and not value.strip()):
        raise InvalidInput(
            f"{path}:{number}: {key} must be a non-empty string"
            if key == "_id"
            else f"{path}:{number}: {key} must be a string",
            reason="eval-invalid-record",
            subject=f"{path}:{number}",
        )
    return value


def read_corpus(path: Path | str) -> Iterator[CorpusDocument]:
    """The documents of a ``corpus.jsonl``, in file order; a repeated ``_id`` is an error."""
    source = Path(path)
    seen: set[str] = set()
    for number, obj in _json_lines(source, "the corpus"):
        doc_id = _field(obj, "_id", source, number, required=True)
        if doc_id in seen:
            raise InvalidInput(
                f"{source}:{number}: document {doc_id!r} appears twice",
                reason="eval-duplicate-id",
                subject=f"{source}:{number}",
            )
        seen.add(doc_id)
        yield CorpusDocument(
            doc_id,
            _field(obj, "title", source, number, required=False).strip(),
            _field(obj, "text", source, number, required=True),
        )


def read_queries(path: Path | str) -> dict[str, str]:
    """Query id -> text from a ``queries.jsonl``."""
    source = Path(path)
    queries: dict[str, str] = {}
    for number, obj in _json_lines(source, "the queries"):
        query_id = _field(obj, "_id", source, number, required=True)
        if query_id in queries:
            raise InvalidInput(
                f"{source}:{number}: query {query_id!r} appears twice",
                reason="eval-duplicate-id",
                subject=f"{source}:{number}",
            )
        queries[query_id] = _field(obj, "text", source, number, required=True)
    return queries


def _qrels_row(line: str, path: Path, number: int) -> tuple[str, str, int] | None:
    """One judgement: BEIR's ``query-id corpus-id score`` (tabs) or TREC's four columns."""
    fields = line.split("\t") if "\t" in line else line.split()
    fields = [f.strip() for f in fields]
    if number == 1 and fields[:2] == ["query-id", "corpus-id"]:
        return None
    if len(fields) == 4:  # TREC: query-id iteration corpus-id score
        fields = [fields[0], fields[2], fields[3]]
    if len(fields) != 3 or not fields[0] or not fields[1]:
        raise InvalidInput(
            f"{path}:{number}: expected query-id, corpus-id and score separated by tabs",
            reason="eval-invalid-qrels",
            subject=f"{path}:{number}",
        )
    try:
        grade = int(fields[2])
    except ValueError:
        raise InvalidInput(
            f"{path}:{number}: the score {fields[2]!r} is not an integer",
            reason="eval-invalid-qrels",
            subject=f"{path}:{number}",
        ) from None
    return fields[0], fields[1], grade


def read_qrels(path: Path | str) -> dict[str, dict[str, int]]:
    """Query id -> {document id: grade} from a qrels file (a header line is optional)."""
    source = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    raw = read_input_bytes(source, "the relevance judgements")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{source}: not UTF-8 text ({exc})", reason="eval-invalid-qrels", subject=str(source)
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = _qrels_row(line, source, number)
        if row is not None:
            qrels.setdefault(row[0], {})[row[1]] = row[2]
    return qrels


def load_judgements(
    queries_path: Path | str, qrels_path: Path | str, *, split: str | None = None
) -> Judgements:
    """Questions with at least one relevant judgement, and their qrels.

    A judged question missing from the queries file is an error; questions without judgements
    are left out (they cannot be scored).
    """
    texts = read_queries(queries_path)
    qrels = read_qrels(qrels_path)
    unknown = sorted(q for q in qrels if q not in texts)
    if unknown:
        raise InvalidInput(
            f"{qrels_path} judges {len(unknown)} queries missing from {queries_path} "
            f"(first: {unknown[0]!r})",
            reason="eval-unknown-query",
            subject=unknown[0],
        )
    kept = [Query(q, t) for q, t in texts.items() if any(g > 0 for g in qrels.get(q, {}).values())]
    if not kept:
        raise InvalidInput(
            f"{qrels_path} judges no query relevant to any document",
            reason="eval-no-judged-queries",
            subject=str(qrels_path),
        )
    frozen = {q.id: MappingProxyType(dict(qrels[q.id])) for q in kept}
    return Judgements(tuple(kept), MappingProxyType(frozen), split)
