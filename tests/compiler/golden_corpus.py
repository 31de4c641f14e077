"""A deterministic multi-shard document list whose archives' digests are pinned in the tests.

The digests in ``GOLDEN`` were recorded with the compiler as it was before the build streamed
its documents and vectors (flat memory, ``--jobs``, Ray): a change to the build passes must give
the same bytes for every configuration here. The corpus exercises what those passes touch:
several topics (nested), documents of one to many passages, empty documents, the same passage in
two documents, summaries, aliases, locations, TOC references, meta and attribution, and shards
filled by topic and by k-means, with one or several routing centroids per shard.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.compiler.trees import write_jsonl, write_tree

CATALOG = """\
id: golden
version: "1.0.0"
name: Golden corpus
description: A corpus whose archive digests are pinned.
language: en
publisher: {id: tester, name: Test Publisher}
license: {name: CC0 1.0, spdx: CC0-1.0, attributionRequired: false}
topics:
  - {id: north, name: North, order: 1}
  - {id: north-hills, name: Hills, parentId: north}
  - {id: south, name: South, order: 2}
  - {id: east, name: East, order: 3}
  - {id: west, name: West, order: 4}
"""

_SYLLABLES = ("ka", "ro", "mi", "tu", "ve", "lo", "sa", "ne", "di", "po", "gre", "bal")
_TOPICS = (["north"], ["north", "north-hills"], ["south"], ["east"], ["west"])

GOLDEN_DOCUMENTS = 260
GOLDEN_SHARD_TARGET = 220
GOLDEN_SHARD_MAX = 400


def _words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n))


def _body(rng: random.Random, vocab: list[str]) -> str:
    sections = rng.randint(0, 5)
    parts: list[str] = []
    for s in range(sections):
        parts.append(f"## Part {s + 1}\n")
        for _ in range(rng.randint(1, 4)):
            sentences = [
                _words(rng, vocab, rng.randint(5, 30)).capitalize() + "." for _ in range(6)
            ]
            parts.append(" ".join(sentences) + "\n")
    return "\n".join(parts)


def golden_documents(count: int = GOLDEN_DOCUMENTS) -> Iterator[dict[str, Any]]:
    """The documents of the corpus, in file order (not build order)."""
    rng = random.Random(20261201)
    vocab = sorted(
        {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(900)}
    )
    shared = _body(random.Random(5), vocab) or "A shared passage.\n"
    for i in range(count):
        path = _TOPICS[(i * 7) % len(_TOPICS)]
        doc: dict[str, Any] = {
            "id": f"{path[-1]}/doc-{(i * 37) % 1009:04d}",
            "title": f"Document {i % 97} {_words(rng, vocab, 2)}",
            "topicPath": path,
            "markdown": shared if i % 41 == 3 else _body(rng, vocab),
        }
        if i % 41 == 3:
            doc["title"] = "Shared page"
        if i % 5 == 0:
            doc["summary"] = _words(rng, vocab, 8)
        if i % 6 == 1:
            doc["aliases"] = [_words(rng, vocab, 1), _words(rng, vocab, 2)]
        if i % 9 == 2:
            doc["locations"] = [
                {
                    "id": f"p{k}",
                    "latitude": round(rng.uniform(-80, 80), 4),
                    "longitude": round(rng.uniform(-179, 179), 4),
                    "role": "subject" if k == 0 else "associated",
                }
                for k in range(1 + i % 3)
            ]
        if i % 11 == 4 and path[-1] != "east":
            doc["tocReferences"] = [{"topicPath": ["east"], "ordinal": i}]
        if i % 13 == 5:
            doc["meta"] = {"n": i, "tags": ["b", "a"]}
            doc["attribution"] = {"author": _words(rng, vocab, 2)}
        if i % 17 == 6:
            doc["ordinal"] = i % 10
        yield doc


def write_golden_corpus(root: Path, count: int = GOLDEN_DOCUMENTS) -> Path:
    """The corpus as ``root/docs.jsonl`` beside its catalog.yaml, README.md and LICENSE."""
    write_tree(root, {}, catalog=CATALOG)
    return write_jsonl(root / "docs.jsonl", golden_documents(count))
