"""benchmarks/classic_ir.py (SMART files to BEIR, fixed dev/test halves) and
benchmarks/bm25_ablation.py on tiny inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark

CISI_ALL = """.I 1
.T
Indexing by words
.A
Someone, A.
.W
   Words index
documents well.
.X
1 5 1
.I 2
.T
Catalogues
.W
Cards in drawers.
"""

CISI_QRY = """.I 1
.W
How are documents indexed
by their words?
.I 2
.T
Card catalogues
.W
Drawers of cards.
.I 3
.W
Unjudged question.
"""

CISI_REL = "     1      1 0 0.000000\n     2      2 0 0.000000\n"


def test_smart_files_become_a_beir_folder_with_fixed_halves(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "CISI.ALL").write_text(CISI_ALL)
    (raw / "CISI.QRY").write_text(CISI_QRY)
    (raw / "CISI.REL").write_text(CISI_REL)
    out = tmp_path / "cisi"
    classic.cisi(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus == [
        {"_id": "1", "title": "Indexing by words", "text": "Words index documents well."},
        {"_id": "2", "title": "Catalogues", "text": "Cards in drawers."},
    ]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries[1] == {"_id": "2", "text": "Card catalogues Drawers of cards."}
    dev = (out / "qrels" / "dev.tsv").read_text().splitlines()
    test = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert dev[0] == test[0] == "query-id\tcorpus-id\tscore"
    # Two judged questions: one in each half, the unjudged one in neither.
    assert sorted(dev[1:] + test[1:]) == ["1\t1\t1", "2\t2\t1"]
    assert len(dev) == len(test) == 2
    again = tmp_path / "again"
    classic.cisi(raw, again)
    assert (again / "qrels" / "dev.tsv").read_text() == (out / "qrels" / "dev.tsv").read_text()


def test_cranfield_grades_turn_cleverdons_codes_into_gains(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "cran.all.1400").write_text(".I 1\n.T\nwing .\n.W\nwing flow .\n.I 2\n.T\nx\n.W\ny\n")
    # The question labels skip numbers; the judgements count questions in file order.
    (raw / "cran.qry").write_text(".I 001\n.W\nwing ?\n.I 004\n.W\nflow ?\n")
    (raw / "cranqrel").write_text("1 1 1\n1 2 4\n2 2 -1\n2 1 2\n")
    classic.cranfield(raw, tmp_path / "cran")
    lines = sorted(
        (tmp_path / "cran" / "qrels" / "dev.tsv").read_text().splitlines()[1:]
        + (tmp_path / "cran" / "qrels" / "test.tsv").read_text().splitlines()[1:]
    )
    assert lines == ["1\t1\t4", "1\t2\t1", "2\t1\t3"]
    queries = (tmp_path / "cran" / "queries.jsonl").read_text().splitlines()
    assert [json.loads(q)["_id"] for q in queries] == ["1", "2"]


def test_cacm_ids_lose_leading_zeros_and_a_title_only_record_gets_its_title_as_text(
    tmp_path: Path,
) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "cacm.all").write_text(
        ".I 1\n.T\nSorting networks\n.B\nCACM 1960\n.A\nSomeone, A.\n.X\n1 5 1\n"
        ".I 2\n.T\nParsing\n.W\nA parser for\nexpressions.\n.B\nCACM 1961\n"
    )
    (raw / "query.text").write_text(
        ".I 1\n.W\n I am interested in parsers.\n.N\n 1. Someone\n.I 2\n.W\n Unjudged.\n"
    )
    (raw / "qrels.text").write_text("01 2  0 0\n")
    out = tmp_path / "cacm"
    classic.cacm(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus == [
        {"_id": "1", "title": "Sorting networks", "text": "Sorting networks"},
        {"_id": "2", "title": "Parsing", "text": "A parser for expressions."},
    ]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries[0] == {"_id": "1", "text": "I am interested in parsers."}
    lines = (out / "qrels" / "dev.tsv").read_text().splitlines()[1:]
    lines += (out / "qrels" / "test.tsv").read_text().splitlines()[1:]
    assert lines == ["1\t2\t1"]


def test_med_titles_come_from_the_first_sentence_and_the_inserted_sentence_goes(
    tmp_path: Path,
) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    long_title = " ".join(f"w{i}" for i in range(40))
    (raw / "MED.ALL").write_text(
        ".I 1\n.W\ncorrelation of glucose and fatty\nacids .  to be or not to be. to be or not"
        " to be.\n  levels were measured .\n"
        ".I 2\n.W\n2431. histochemistry of lung mucins. the demonstration of sialomucin\n"
        f".I 3\n.W\n{long_title} end\n"
    )
    (raw / "MED.QRY").write_text(".I 1\n.W\n the crystalline lens.\n.I 2\n.W\n unjudged.\n")
    (raw / "MED.REL").write_text("1 0 MED-2 1\n1 0 MED-3 1\n")
    out = tmp_path / "med"
    classic.med(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus[0] == {
        "_id": "1",
        "title": "correlation of glucose and fatty acids",
        "text": "correlation of glucose and fatty acids . levels were measured .",
    }
    assert corpus[1]["title"] == "histochemistry of lung mucins"
    assert corpus[2]["title"] == " ".join(f"w{i}" for i in range(12))
    lines = (out / "qrels" / "dev.tsv").read_text().splitlines()[1:]
    lines += (out / "qrels" / "test.tsv").read_text().splitlines()[1:]
    assert lines == ["1\t2\t1", "1\t3\t1"]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries[0] == {"_id": "1", "text": "the crystalline lens."}


def test_bm25_ablation_separates_stems_from_query_term_counts(tmp_path: Path) -> None:
    ablation = load_benchmark("bm25_ablation")
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    docs = [("a", "Knead", "knead the dough"), ("b", "Bake", "bake the loaf in the oven")]
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in docs)
    )
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "kneading"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\ta\t1\n")
    result = ablation.ablation(folder, None, "en")
    assert result == {
        "unstemmed, counts": 0.0,
        "unstemmed, once": 0.0,
        "stemmed, counts": 1.0,
        "stemmed, once": 1.0,
    }


def _halves(out: Path) -> list[str]:
    lines = (out / "qrels" / "dev.tsv").read_text().splitlines()[1:]
    return sorted(lines + (out / "qrels" / "test.tsv").read_text().splitlines()[1:])


def test_lisa_titles_end_at_the_blank_line_and_a_repeated_record_keeps_its_first_copy(
    tmp_path: Path,
) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "LISA0.001").write_text(
        ".I    1\n.W\nTHE INDIAN COUNCIL OF LIBRARY\nRESEARCH.\n     \nEXAMINES THE\n"
        "INDIAN LIBRARY SCENE.\n\n.I 2\n.W\nA TITLE ALONE.\n"
    )
    # The damaged part file repeats a record after a stray fragment; the first copy stays.
    (raw / "LISA0.501").write_text(
        ".I 3\n.W\nVIDEODISCS.\n\nFIRST COPY.\n\nSTRAY FRAGMENT.\n\n.I 3\n.W\nVIDEODISCS.\n\n"
        "SECOND COPY.\n"
    )
    (raw / "LISA.QUE").write_text(
        ".I 1\n.W\ni am interested in\nindian libraries. \n.I 2\n.W\nunjudged.\n"
    )
    (raw / "LISA.REL").write_text("!!! USE LISARJ.NUM !!!\n\nQuery 1\n1 Relevant Refs:\n2 -1\n")
    (raw / "LISARJ.NUM").write_text("1 1 3  \r\n2   \r\n")
    out = tmp_path / "lisa"
    classic.lisa(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus == [
        {
            "_id": "1",
            "title": "THE INDIAN COUNCIL OF LIBRARY RESEARCH.",
            "text": "EXAMINES THE INDIAN LIBRARY SCENE.",
        },
        {"_id": "2", "title": "A TITLE ALONE.", "text": "A TITLE ALONE."},
        {"_id": "3", "title": "VIDEODISCS.", "text": "FIRST COPY. STRAY FRAGMENT."},
    ]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries[0] == {"_id": "1", "text": "i am interested in indian libraries."}
    # LISARJ.NUM, not LISA.REL, holds the judgements.
    assert _halves(out) == ["1\t1\t1", "1\t3\t1"]


def test_npl_titles_end_at_the_first_two_spaces(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    long_run = " ".join(f"w{i}" for i in range(40))
    (raw / "doc-text").write_text(
        ".I 1\n.W\ncompact memories have flexible capacities  a digital data\nstorage system\n"
        f".I 2\n.W\nno sentence mark here\nat all\n.I 3\n.W\n{long_run}  tail\n"
    )
    (raw / "query-text").write_text(".I 1\n.W\nDIGITAL STORAGE\n.I 2\n.W\nMICROWAVES\n")
    (raw / "rlv-ass").write_text("1 1  3\n2 2\n")
    out = tmp_path / "npl"
    classic.npl(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus[0] == {
        "_id": "1",
        "title": "compact memories have flexible capacities",
        "text": "compact memories have flexible capacities a digital data storage system",
    }
    assert corpus[1]["title"] == "no sentence mark here at all"
    assert corpus[2]["title"] == " ".join(f"w{i}" for i in range(12))
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries == [{"_id": "1", "text": "DIGITAL STORAGE"}, {"_id": "2", "text": "MICROWAVES"}]
    assert _halves(out) == ["1\t1\t1", "1\t3\t1", "2\t2\t1"]


def _time_files(raw: Path, judged: str) -> None:
    raw.mkdir(exist_ok=True)
    # 376 documents numbered 17, 18, ... in file order: the judgements count them 1 to 378,
    # with the two lost ones between 370 and 378.
    (raw / "TIME.ALL").write_text(
        "".join(
            f"\n*TEXT {n + 16:03d} 01/04/63 PAGE 020\n\nSTORY {n} . IT GOES ON .\n\n"
            for n in range(1, 377)
        )
        + "*STOP\n"
    )
    (raw / "TIME.QUE").write_text(
        "*FIND      1\n\n STORY ONE .\n\n*FIND      2\n\n STORY\n\nLAST .\n\n*STOP\n"
    )
    (raw / "TIME.REL").write_text(judged)


def test_time_numbers_judged_documents_by_position_across_the_two_lost_ones(
    tmp_path: Path,
) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    _time_files(raw, "1  1 370\n\n2  378\n")
    out = tmp_path / "time"
    classic.time_magazine(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert len(corpus) == 376
    assert corpus[0] == {"_id": "17", "title": "STORY 1", "text": "STORY 1 . IT GOES ON ."}
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries == [{"_id": "1", "text": "STORY ONE ."}, {"_id": "2", "text": "STORY LAST ."}]
    # Position 370 is the 370th document (*TEXT 386); 378 is the 376th (*TEXT 392).
    assert _halves(out) == ["1\t17\t1", "1\t386\t1", "2\t392\t1"]


def test_time_refuses_a_judgement_inside_the_gap(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    _time_files(raw, "1  372\n")
    with pytest.raises(ValueError, match="inside the gap"):
        classic.time_magazine(raw, tmp_path / "time")


CF_DOCS = """pn 74001
rn 00001
an 75051687
au smithj
ti mucus in cystic
   fibrosis
so actapaed 1974
mn cysticfibrosis
ab calcium changes
   mucus
cp
   in children
rf smith j
ct jones k
pn 74002
rn 00002
ti sweat tests
mn human
e on o th sodium is high
   in sweat
"""

CF_QUERIES = """qn 00001
qu what does calcium do to mucus
   in cf
nr 00002
rd    1 2210    2 0001

qn 00002
qu sweat
nr 00001
rd    2 2222
"""


def test_cf_gains_sum_four_judges_and_unindented_lines_stay_in_their_record(
    tmp_path: Path,
) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "cf74").write_text(CF_DOCS)
    (raw / "cfquery").write_text(CF_QUERIES)
    out = tmp_path / "cf"
    classic.cystic_fibrosis(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    # An unindented line inside the abstract continues it; one after the MeSH headings
    # begins the abstract of a record whose ab lost its name.
    assert corpus == [
        {
            "_id": "1",
            "title": "mucus in cystic fibrosis",
            "text": "calcium changes mucus cp in children",
        },
        {"_id": "2", "title": "sweat tests", "text": "e on o th sodium is high in sweat"},
    ]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries == [
        {"_id": "1", "text": "what does calcium do to mucus in cf"},
        {"_id": "2", "text": "sweat"},
    ]
    halves = (out / "qrels" / "dev.tsv").read_text() + (out / "qrels" / "test.tsv").read_text()
    # 2210 -> 2 + 2 + 1 + 0 = 5; 0001 -> 1; 2222 -> 8.
    assert sorted(line for line in halves.splitlines() if not line.startswith("query-id")) == [
        "1\t1\t5",
        "1\t2\t1",
        "2\t2\t8",
    ]


ADI_ALL = """.I 1
.T
titles of
articles
.A
A. Writer
.W
 titles tell
 what articles hold .
.I 2
.T
punched cards
"""

ADI_QRY = """.I 1
.W
What do titles say?
.I 2
.W
Cards.
"""

ADI_REL = "1   1   0   0.000000   \n2   2   0   0.000000   \n"


def test_adi_records_and_binary_judgements(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "ADI.ALL").write_text(ADI_ALL)
    (raw / "ADI.QRY").write_text(ADI_QRY)
    (raw / "ADI.REL").write_text(ADI_REL)
    out = tmp_path / "adi"
    classic.adi(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus == [
        {"_id": "1", "title": "titles of articles", "text": "titles tell what articles hold ."},
        {"_id": "2", "title": "punched cards", "text": "punched cards"},
    ]
    halves = (out / "qrels" / "dev.tsv").read_text() + (out / "qrels" / "test.tsv").read_text()
    assert sorted(line for line in halves.splitlines() if not line.startswith("query-id")) == [
        "1\t1\t1",
        "2\t2\t1",
    ]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_arguana_points_ask_for_their_counters_among_every_counter(tmp_path: Path) -> None:
    classic = load_benchmark("classic_ir")
    raw = tmp_path / "test"
    debate = raw / "culture" / "ban-child-actors"
    _write(debate / "pro" / "pro01a-point.txt", "Schooling suffers\n\nLess time for lessons.\n")
    _write(debate / "pro" / "pro01b-counter.txt", "Tutors come on set. Grades stay high.\n")
    _write(debate / "con" / "con01a-point.txt", "Art needs children\n\nPlays have child roles.\n")
    _write(debate / "con" / "con01b-counter.txt", "Adults can play them.\n")
    _write(debate / "con" / "con02a-point.txt", "Families need income\n\nPay helps.\n")
    _write(debate / "con" / "con02b-counter.txt", "Adults can play them.\n")  # filed twice
    _write(debate / "pro" / "pro02a-point.txt", "A point without a counter\n")
    _write(debate / "intro.txt", "Not an argument.\n")
    # The same debate filed under a second theme is read once.
    _write(raw / "society" / "ban-child-actors" / "pro" / "pro01a-point.txt", "Schooling\n")
    _write(raw / "society" / "ban-child-actors" / "pro" / "pro01b-counter.txt", "Tutors.\n")
    out = tmp_path / "arguana"
    classic.arguana(raw, out)
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert corpus == [
        {
            "_id": "ban-child-actors-con01b",
            "title": "Adults can play them.",
            "text": "Adults can play them.",
        },
        {
            "_id": "ban-child-actors-con02b",
            "title": "Adults can play them.",
            "text": "Adults can play them.",
        },
        {
            "_id": "ban-child-actors-pro01b",
            "title": "Tutors come on set",
            "text": "Tutors come on set. Grades stay high.",
        },
    ]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert {q["_id"]: q["text"] for q in queries} == {
        "ban-child-actors-con01": "Art needs children Plays have child roles.",
        "ban-child-actors-con02": "Families need income Pay helps.",
        "ban-child-actors-pro01": "Schooling suffers Less time for lessons.",
        "ban-child-actors-pro02": "A point without a counter",
    }
    halves = (out / "qrels" / "dev.tsv").read_text() + (out / "qrels" / "test.tsv").read_text()
    # Both copies of the counter filed twice answer each of the two points; pro02 has none.
    assert sorted(line for line in halves.splitlines() if not line.startswith("query-id")) == [
        "ban-child-actors-con01\tban-child-actors-con01b\t1",
        "ban-child-actors-con01\tban-child-actors-con02b\t1",
        "ban-child-actors-con02\tban-child-actors-con01b\t1",
        "ban-child-actors-con02\tban-child-actors-con02b\t1",
        "ban-child-actors-pro01\tban-child-actors-pro01b\t1",
    ]
