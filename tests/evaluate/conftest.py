"""A tiny BEIR folder whose answers are known, for end-to-end evaluations with the hash embedder.

``test-hash-embed@1`` hashes whole texts, so it finds nothing by meaning: a question finds a
passage by vector only when it is the passage's exact embed input (title, newline, text). The
questions are chosen so every mode's answer can be worked out by hand:

* ``q-tulip`` ("tulip"): only ``tulips`` holds the word; its hash vector matches nothing.
* ``q-roses``: the exact embed input of ``roses``, so vectors find it (cosine 1) and so do words.
* ``q-long``: a word only the document with an over-long corpus id holds (that id is mapped).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

LONG_ID = "long-" + "x" * 300
"""Longer than a document id may be: the catalog stores it under a ``beir-`` digest."""

DOCUMENTS = [
    ("tulips", "Tulips", "Plant tulip bulbs in autumn, three times as deep as the bulb is tall."),
    ("roses", "Roses", "Prune roses in late winter just above an outward-facing bud."),
    ("daffodils", "Daffodils", "Daffodils naturalise in grass and come back every spring."),
    ("bread", "Bread", "Knead the dough for ten minutes and let it rise in a warm place."),
    ("sourdough", "Sourdough", "A sourdough starter needs flour and water fed daily."),
    ("espresso", "", "Espresso is brewed by forcing hot water through finely ground coffee."),
    ("kettle", "Kettles", "Descale a kettle with diluted vinegar when limescale builds up."),
    (LONG_ID, "Teapots", "Warm the teapot before brewing loose leaf oolong."),
]

QUERIES = {
    "q-tulip": "tulip",
    "q-roses": "Roses\nPrune roses in late winter just above an outward-facing bud.",
    "q-long": "oolong",
    "q-unjudged": "nothing judges this question",
}

QRELS = [
    ("q-tulip", "tulips", 1),
    ("q-roses", "roses", 1),
    ("q-roses", "bread", 0),
    ("q-long", LONG_ID, 1),
]


def write_beir(root: Path, *, qrels: list[tuple[str, str, int]] | None = None) -> Path:
    """Write the tiny corpus, its questions and judgements as ``root`` (split ``test``)."""
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for doc_id, title, text in DOCUMENTS:
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for query_id, text in QUERIES.items():
            fh.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    rows = QRELS if qrels is None else qrels
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in rows),
        encoding="utf-8",
    )
    return root


@pytest.fixture
def beir_folder(tmp_path: Path) -> Path:
    """The tiny BEIR folder."""
    return write_beir(tmp_path / "tiny-beir")
