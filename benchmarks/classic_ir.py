"""Convert a classic test collection (SMART ``.I``/``.T``/``.W`` files) to a BEIR folder, and
split the judged questions of any BEIR folder into fixed dev and test halves.

Run on demand, never by the test suite; the collections stay out of the repository::

    python benchmarks/classic_ir.py cranfield RAW_DIR OUT_DIR   # cran.all.1400, cran.qry, cranqrel
    python benchmarks/classic_ir.py cisi RAW_DIR OUT_DIR        # CISI.ALL, CISI.QRY, CISI.REL
    python benchmarks/classic_ir.py cacm RAW_DIR OUT_DIR        # cacm.all, query.text, qrels.text
    python benchmarks/classic_ir.py med RAW_DIR OUT_DIR         # MED.ALL, MED.QRY, MED.REL
    python benchmarks/classic_ir.py lisa RAW_DIR OUT_DIR        # LISA[0-5].*, LISA.QUE, LISARJ.NUM
    python benchmarks/classic_ir.py npl RAW_DIR OUT_DIR         # doc-text, query-text, rlv-ass
    python benchmarks/classic_ir.py time RAW_DIR OUT_DIR        # TIME.ALL, TIME.QUE, TIME.REL
    python benchmarks/classic_ir.py cf RAW_DIR OUT_DIR          # cf74 to cf79, cfquery
    python benchmarks/classic_ir.py adi RAW_DIR OUT_DIR         # ADI.ALL, ADI.QRY, ADI.REL
    python benchmarks/classic_ir.py arguana RAW_DIR OUT_DIR     # 02-extracted-arguments/test
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


def smart_raw_records(path: Path) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """Each ``.I`` record of a SMART-format file: its id and its fields' lines, as they are."""
    record: dict[str, list[str]] | None = None
    record_id = ""
    field = ""
    for line in path.read_text(encoding="latin-1").splitlines():
        match = _FIELD.match(line)
        if match and match.group(1) == "I":
            if record is not None:
                yield record_id, record
            record, record_id, field = {}, (match.group(2) or "").strip(), ""
        elif match and record is not None:
            field = match.group(1)
            record.setdefault(field, [])
            if match.group(2):
                record[field].append(match.group(2))
        elif record is not None and field:
            record[field].append(line)
    if record is not None:
        yield record_id, record


def smart_records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Each ``.I`` record of a SMART-format file: its id and its fields (``T``, ``W``...)."""
    for record_id, record in smart_raw_records(path):
        yield record_id, {k: _words(v) for k, v in record.items()}


def _words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


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
    return _lead_title(_MED_NUMBER.sub("", text), _SENTENCE_END)


def _lead_title(text: str, end_of_title: re.Pattern[str]) -> str:
    """The text up to the first match of ``end_of_title``, or its first 12 words when that runs
    past 30 words; for a collection without a title field."""
    end = end_of_title.search(text)
    title = " ".join((text[: end.start()] if end else text).split())
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


def _numbered_lists(path: Path) -> dict[str, dict[str, int]]:
    """Judgements written one question a line, ``QUESTION DOC DOC ...`` (binary)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 2 and all(p.isdigit() for p in parts):
            qrels.setdefault(str(int(parts[0])), {}).update({str(int(d)): 1 for d in parts[1:]})
    return qrels


def lisa(raw: Path, out: Path) -> None:
    """LISA (Sheffield): 6,004 Library and Information Science Abstracts of 1982, 35 questions
    written as requests of one to several sentences, binary judgements (``LISARJ.NUM``, which
    ``LISA.REL`` itself says to use).

    Read in the SMART layout of its Virginia Tech copy (``.I``, then ``.W`` holding the title,
    a blank line and the abstract). The distributed ``LISA1.501`` is damaged: records 1993 to
    1997 are lost and 1998 to 2001 appear twice, after a stray fragment that ends record 1992;
    the first copy of a repeated id is kept (none of those records is judged), 5,999 documents.
    """
    docs: dict[str, dict[str, str]] = {}
    for part in sorted(raw.glob("LISA[0-9].[0-9][0-9][0-9]")):
        for i, f in smart_raw_records(part):
            lines = f.get("W", [])
            blank = next((n for n, line in enumerate(lines) if not line.strip()), len(lines))
            title, text = _words(lines[:blank]), _words(lines[blank:])
            docs.setdefault(
                str(int(i)), {"_id": str(int(i)), "title": title, "text": text or title}
            )
    queries = [
        {"_id": str(int(i)), "text": f.get("W", "")} for i, f in smart_records(raw / "LISA.QUE")
    ]
    _finish(out, list(docs.values()), queries, _numbered_lists(raw / "LISARJ.NUM"))


_DOUBLE_SPACE = re.compile(r"\S(\s{2,})\S")
_NEVER = re.compile(r"(?!)")


def npl(raw: Path, out: Path) -> None:
    """NPL (Vaswani): 11,429 electronics abstracts, lower case without punctuation, 93 short
    questions, binary judgements one question a line.

    The file has no title field; two spaces mark where a sentence ended, so a document's title
    is its text up to the first two spaces (its first 12 words when that runs past 30).
    """
    docs = []
    for i, f in smart_raw_records(raw / "doc-text"):
        joined = " ".join(line.strip() for line in f.get("W", []))
        gap = _DOUBLE_SPACE.search(joined)
        head = joined[: gap.start(1)] if gap else joined
        title = _lead_title(head, _NEVER)
        docs.append({"_id": str(int(i)), "title": title, "text": _words([joined])})
    queries = [
        {"_id": str(int(i)), "text": f.get("W", "")} for i, f in smart_records(raw / "query-text")
    ]
    _finish(out, docs, queries, _numbered_lists(raw / "rlv-ass"))


_TIME_RECORD = re.compile(r"^\*(TEXT|FIND)\s+(\d+)[^\n]*$|^\*STOP\b.*$", re.M)
TIME_GAP = (370, 378)
"""``TIME.REL`` numbers the documents 1 to 425 in file order, but ``TIME.ALL`` holds 423: the
two missing ones sat between numbers 370 and 378 (a judged document up to 370 shares its
question's words at its own number, every one from 378 two numbers earlier; none is judged in
between)."""


def _time_records(path: Path) -> list[tuple[str, str]]:
    """Each ``*TEXT`` or ``*FIND`` record: its number (no leading zeros) and its words."""
    text = path.read_text(encoding="latin-1")
    marks = list(_TIME_RECORD.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [
        (str(int(m.group(2))), _words(text[m.end() : end].splitlines()))
        for m, end in zip(marks, ends, strict=True)
        if m.group(2)
    ]


def time_magazine(raw: Path, out: Path) -> None:
    """TIME: 423 TIME magazine articles of 1963, 83 one-line questions, binary judgements;
    a document's id is its ``*TEXT`` number and its title its first sentence.

    The judgements count documents in file order (``TIME_GAP``); a judgement inside the gap
    has no document and stops the conversion.
    """
    records = _time_records(raw / "TIME.ALL")
    docs = [{"_id": i, "title": _lead_title(t, _SENTENCE_END), "text": t} for i, t in records]
    queries = [{"_id": i, "text": t} for i, t in _time_records(raw / "TIME.QUE")]
    qrels: dict[str, dict[str, int]] = {}
    for question, judged in _numbered_lists(raw / "TIME.REL").items():
        for number in judged:
            n = int(number)
            if TIME_GAP[0] < n < TIME_GAP[1]:
                raise ValueError(f"TIME.REL judges document {n}, inside the gap {TIME_GAP}")
            position = n if n <= TIME_GAP[0] else n - 2
            qrels.setdefault(question, {})[records[position - 1][0]] = 1
    _finish(out, docs, queries, qrels)


_CF_FIELD = re.compile(r"^([a-z]{2}) (.*)$")
_CF_TAGS = frozenset(("pn", "rn", "an", "au", "ti", "so", "mj", "mn", "ab", "ex", "rf", "ct"))
_CF_TEXT = frozenset(("ti", "ab", "ex"))


def _cf_records(path: Path, first: str) -> Iterator[dict[str, list[str]]]:
    """Each record of a Cystic Fibrosis file (two-letter fields at the start of a line, their
    continuations indented; ``first`` opens a record: ``pn`` or ``qn``).

    A line at the start without a known field continues a text field (some abstract lines lost
    their indent); after any other field it begins the abstract (one record's ``ab`` lost its
    name and first letters).
    """
    tags = _CF_TAGS | {"qn", "qu", "nr", "rd"}
    record: dict[str, list[str]] | None = None
    field = ""
    for line in path.read_text(encoding="latin-1").splitlines():
        match = _CF_FIELD.match(line)
        if match and match.group(1) in tags:
            field = match.group(1)
            if field == first:
                if record is not None:
                    yield record
                record = {}
            if record is not None:
                record.setdefault(field, []).append(match.group(2))
        elif record is not None and line.strip():
            if not line[0].isspace() and field not in _CF_TEXT:
                field = "ab"
            record.setdefault(field, []).append(line)
    if record is not None:
        yield record


def cystic_fibrosis(raw: Path, out: Path) -> None:
    """Cystic Fibrosis (Shaw, Wood, Wood and Tibbo 1991): 1,239 MEDLINE records of 1974 to
    1979, 100 questions, each judged document scored 0 to 2 by four judges; the gain is their
    sum (0 to 8). A document is its title and abstract (``ab``, or ``ex``, an extract, when it
    has none); the MeSH headings, references and citations are left out."""
    docs = []
    # The copy read names them cf74.txt ... cfquery.txt; the distribution cf74 ... cfquery.
    for part in sorted(raw.glob("cf7[4-9]*")):
        for f in _cf_records(part, "pn"):
            title = _words(f.get("ti", []))
            text = _words(f.get("ab", []) or f.get("ex", []))
            docs.append({"_id": str(int(_words(f["rn"]))), "title": title, "text": text or title})
    queries: list[dict[str, str]] = []
    qrels: dict[str, dict[str, int]] = {}
    questions = next((p for p in (raw / "cfquery", raw / "cfquery.txt") if p.is_file()), None)
    if questions is None:
        raise FileNotFoundError(f"no cfquery in {raw}")
    for f in _cf_records(questions, "qn"):
        question = str(int(_words(f["qn"])))
        queries.append({"_id": question, "text": _words(f.get("qu", []))})
        pairs = _words(f.get("rd", [])).split()
        for doc, scores in zip(pairs[::2], pairs[1::2], strict=True):
            qrels.setdefault(question, {})[str(int(doc))] = sum(int(c) for c in scores)
    _finish(out, docs, queries, qrels)


def adi(raw: Path, out: Path) -> None:
    """ADI: 82 documents of the 1963 American Documentation Institute conference (title and
    abstract), 35 questions of one to three sentences, binary judgements (``ADI.REL``: question,
    document, two unused columns)."""
    docs = [
        {"_id": i, "title": f.get("T", ""), "text": f.get("W", "") or f.get("T", "")}
        for i, f in smart_records(raw / "ADI.ALL")
    ]
    queries = [{"_id": i, "text": f.get("W", "")} for i, f in smart_records(raw / "ADI.QRY")]
    qrels: dict[str, dict[str, int]] = {}
    for line in (raw / "ADI.REL").read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            qrels.setdefault(str(int(parts[0])), {})[str(int(parts[1]))] = 1
    _finish(out, docs, queries, qrels)


_ARGUANA_FILE = re.compile(r"^(pro|con)(\d+)(a-point|b-counter)\.txt$")


def arguana(raw: Path, out: Path) -> None:
    """ArguAna's best-counter task (Wachsmuth, Syed and Stein 2018), from its extracted
    arguments (``THEME/DEBATE/{pro,con}/pro01a-point.txt``, ``pro01b-counter.txt``): a
    question is a point (its title line and paragraphs: long questions), the one relevant
    document its counter; the documents are every counter of the folder, so the others of the
    same debate, which answer its other points, are the near misses.

    A point without a counter is not a question. Ids are ``DEBATE-pro01`` (question) and
    ``DEBATE-pro01b`` (document); a counter has no title line, so its title is its first
    sentence. A debate filed under two themes (six in the test folder, the same files) is read
    under the first theme only; a counter filed twice in a debate (the same text answering two
    of its points) answers both.
    """
    docs: list[dict[str, str]] = []
    queries: list[dict[str, str]] = []
    theme_of: dict[str, str] = {}
    for path in sorted(raw.glob("*/*/*/*.txt")):
        match = _ARGUANA_FILE.match(path.name)
        if match is None or path.parent.name != match.group(1):
            continue
        debate = path.parent.parent.name
        if theme_of.setdefault(debate, path.parent.parent.parent.name) != (
            path.parent.parent.parent.name
        ):
            continue
        point = f"{debate}-{match.group(1)}{match.group(2)}"
        text = _words(path.read_text(encoding="utf-8").splitlines())
        if match.group(3) == "b-counter":
            docs.append(
                {"_id": f"{point}b", "title": _lead_title(text, _SENTENCE_END), "text": text}
            )
        else:
            queries.append({"_id": point, "text": text})
    # A debate may answer two of its points with the same counter, filed twice: every copy of
    # a point's counter answers it.
    copies: dict[str, list[str]] = {}
    for doc in docs:
        copies.setdefault(doc["text"], []).append(doc["_id"])
    counters = {doc["_id"]: doc["text"] for doc in docs}
    qrels = {
        q["_id"]: dict.fromkeys(copies[counters[q["_id"] + "b"]], 1)
        for q in queries
        if q["_id"] + "b" in counters
    }
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
    kinds = {
        "cranfield": cranfield,
        "cisi": cisi,
        "cacm": cacm,
        "med": med,
        "lisa": lisa,
        "npl": npl,
        "time": time_magazine,
        "cf": cystic_fibrosis,
        "adi": adi,
        "arguana": arguana,
        "split": split_beir,
    }
    parser.add_argument("kind", choices=tuple(kinds))
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    kinds[args.kind](args.source, args.out)


if __name__ == "__main__":
    main()
