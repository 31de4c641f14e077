"""Convert a classic test collection (SMART ``.I``/``.T``/``.W`` files) to a BEIR folder, and
split the judged questions of any BEIR folder into fixed dev and test halves.

Run on demand, never by the test suite; the collections stay out of the repository::

    python benchmarks/classic_ir.py cranfield RAW_DIR OUT_DIR   # cran.all.1400, cran.qry, cranqrel
    python benchmarks/classic_ir.py cisi RAW_DIR OUT_DIR        # CISI.ALL, CISI.QRY, CISI.REL
    python benchmarks/classic_ir.py cacm RAW_DIR OUT_DIR        # cacm.all, query.text, qrels.text
    python benchmarks/classic_ir.py med RAW_DIR OUT_DIR         # MED.ALL, MED.QRY, MED.REL
    python benchmarks/classic_ir.py split BEIR_DIR OUT_DIR      # e.g. SciFact's training claims

Every output folder holds ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/dev.tsv`` and
``qrels/test.tsv``: the judged questions shuffled by ``random.Random(SEED)`` in the order of
their ids and cut in two halves (dev gets the smaller when the count is odd). The split is made
before any run looks at the questions; fusion is tuned on dev halves only and reported on test
halves (docs/quality.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

SEED = 23
"""The split's seed: the issue number that asked for it, fixed before any run."""

_FIELD = re.compile(r"^\.([A-Z])(?:\s+(.*))?$")


def smart_records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Each ``.I`` record of a SMART-format file: its id and its fields (``T``, ``W``...)."""
    record: dict[str, list[str]] | None = None
    record_id = ""
    field = ""
    for line in path.read_text(encoding="latin-1").splitlines():
        match = _FIELD.match(line)
        if match and match.group(1) == "I":
            if record is not None:
                yield record_id, {k: " ".join(" ".join(v).split()) for k, v in record.items()}
            record, record_id, field = {}, (match.group(2) or "").strip(), ""
        elif match and record is not None:
            field = match.group(1)
            record.setdefault(field, [])
            if match.group(2):
                record[field].append(match.group(2))
        elif record is not None and field:
            record[field].append(line)
    if record is not None:
        yield record_id, {k: " ".join(" ".join(v).split()) for k, v in record.items()}


def _write_jsonl(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def _write_split(out: Path, qrels: dict[str, dict[str, int]]) -> None:
    judged = sorted((q for q, g in qrels.items() if any(v > 0 for v in g.values())), key=_id_key)
    random.Random(SEED).shuffle(judged)
    half = len(judged) // 2
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    for name, ids in (("dev", judged[:half]), ("test", judged[half:])):
        lines = ["query-id\tcorpus-id\tscore\n"]
        for q in sorted(ids, key=_id_key):
            lines += [f"{q}\t{d}\t{g}\n" for d, g in sorted(qrels[q].items()) if g > 0]
        (out / "qrels" / f"{name}.tsv").write_text("".join(lines), "utf-8")


def _id_key(value: str) -> tuple[int, str]:
    return (int(value), value) if value.isdigit() else (1 << 62, value)


def cranfield(raw: Path, out: Path) -> None:
    """Cranfield 1400: grades are Cleverdon's codes 1 (complete answer) to 4, gain 5 - code."""
    docs = [
        {"_id": i, "title": f.get("T", ""), "text": f.get("W", "")}
        for i, f in smart_records(raw / "cran.all.1400")
    ]
    # cranqrel numbers the questions 1..225 in file order, not by their .I labels.
    queries = [
        {"_id": str(n), "text": f.get("W", "")}
        for n, (_, f) in enumerate(smart_records(raw / "cran.qry"), start=1)
    ]
    qrels: dict[str, dict[str, int]] = {}
    for line in (raw / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].lstrip("-").isdigit():
            code = int(parts[2])
            qrels.setdefault(parts[0], {})[parts[1]] = 5 - code if 1 <= code <= 4 else 0
    _finish(out, docs, queries, qrels)


def cisi(raw: Path, out: Path) -> None:
    """CISI: 1,460 library-science abstracts, questions of one to several sentences (title and
    text of the longer ones joined), binary judgements."""
    docs = [
        {"_id": i, "title": f.get("T", ""), "text": f.get("W", "")}
        for i, f in smart_records(raw / "CISI.ALL")
    ]
    queries = [
        {"_id": i, "text": " ".join(p for p in (f.get("T", ""), f.get("W", "")) if p)}
        for i, f in smart_records(raw / "CISI.QRY")
    ]
    qrels: dict[str, dict[str, int]] = {}
    for line in (raw / "CISI.REL").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            qrels.setdefault(parts[0], {})[parts[1]] = 1
    _finish(out, docs, queries, qrels)


def cacm(raw: Path, out: Path) -> None:
    """CACM: 3,204 Communications of the ACM titles (about half with an abstract), questions
    written as requests in plain sentences, binary judgements; ids lose their leading zeros.

    A record without an abstract gets its title as its text too: a document with an empty body
    has no passage to search, while BM25 over title and body would still find it.
    """
    docs = [
        {"_id": str(int(i)), "title": f.get("T", ""), "text": f.get("W", "") or f.get("T", "")}
        for i, f in smart_records(raw / "cacm.all")
    ]
    queries = [
        {"_id": str(int(i)), "text": f.get("W", "")} for i, f in smart_records(raw / "query.text")
    ]
    qrels: dict[str, dict[str, int]] = {}
    for line in (raw / "qrels.text").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            qrels.setdefault(str(int(parts[0])), {})[str(int(parts[1]))] = 1
    _finish(out, docs, queries, qrels)


_MED_NUMBER = re.compile(r"^\d+\.\s+")
_SENTENCE_END = re.compile(r"\.\s")
_MED_INSERTED = " to be or not to be. to be or not to be."
"""A sentence the copy of MED.ALL read (its document 1) holds and the Glasgow original does not."""


def _med_title(text: str) -> str:
    """A MEDLINE record's ``.W`` starts with the article's title: its first sentence (after an
    abstract number some records carry), or its first 12 words when that runs past 30 words."""
    text = _MED_NUMBER.sub("", text)
    end = _SENTENCE_END.search(text)
    title = text[: end.start()].strip() if end else text
    return title if len(title.split()) <= 30 else " ".join(text.split()[:12])


def med(raw: Path, out: Path) -> None:
    """MED (Medline): 1,033 medical abstracts, 30 questions of one to three sentences, binary
    judgements in TREC's four columns (``1 0 MED-13 1``); ids are the ``.I`` numbers.

    The file has no title field: a document's title is its text's first sentence (kept in the
    text too, as the file has it), so no document is titled by its bare number.
    """
    docs = []
    for i, f in smart_records(raw / "MED.ALL"):
        text = f.get("W", "").replace(_MED_INSERTED, "")
        docs.append({"_id": str(int(i)), "title": _med_title(text), "text": text})
    queries = [
        {"_id": str(int(i)), "text": f.get("W", "")} for i, f in smart_records(raw / "MED.QRY")
    ]
    qrels: dict[str, dict[str, int]] = {}
    for line in (raw / "MED.REL").read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3].isdigit():
            doc = parts[2].removeprefix("MED-")
            qrels.setdefault(str(int(parts[0])), {})[str(int(doc))] = int(parts[3])
    _finish(out, docs, queries, qrels)


def split_beir(source: Path, out: Path) -> None:
    """Copy a one-split BEIR folder's corpus and questions and write its dev and test halves."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "corpus.jsonl", out / "corpus.jsonl")
    queries = next(
        p
        for p in (source / "queries.jsonl", *sorted(source.glob("queries-*.jsonl")))
        if p.is_file()
    )
    shutil.copyfile(queries, out / "queries.jsonl")
    qrels_file = next(iter(sorted(source.glob("qrels*.tsv")) or sorted(source.glob("qrels/*"))))
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_file.read_text().splitlines()[1:]:
        parts = line.split("\t")
        qrels.setdefault(parts[0], {})[parts[-2]] = int(parts[-1])
    _write_split(out, qrels)


def _finish(
    out: Path,
    docs: list[dict[str, str]],
    queries: list[dict[str, str]],
    qrels: dict[str, dict[str, int]],
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "corpus.jsonl", docs)
    _write_jsonl(out / "queries.jsonl", queries)
    _write_split(out, qrels)


def main() -> None:
    """Parse the command line and convert."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("cranfield", "cisi", "cacm", "med", "split"))
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    kinds = {"cranfield": cranfield, "cisi": cisi, "cacm": cacm, "med": med, "split": split_beir}
    kinds[args.kind](args.source, args.out)


if __name__ == "__main__":
    main()
