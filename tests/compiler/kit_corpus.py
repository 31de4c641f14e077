"""The conformance kit's generated corpus (40 documents, seed 7), regenerated for chunk parity.

The kit's fixture is compiled by the reference implementation from a seeded synthetic corpus:
a 32-bit xorshift generator (shifts 13, 17, 5; seed 0 replaced by 0x9E3779B9; each draw the
state divided by 2**32 - 1) picks words from a fixed vocabulary. Each document is a one-sentence
preamble and two to four ``## Section n word`` sections of one to three paragraphs of three to
six sentences of six to fifteen words. Only the fields the chunker sees are produced here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

VOCABULARY = [
    "lattice",
    "harbor",
    "quill",
    "ember",
    "cascade",
    "meridian",
    "tundra",
    "copper",
    "sonata",
    "drift",
    "glacier",
    "anvil",
    "marrow",
    "tide",
    "beacon",
    "cinder",
    "fable",
    "garnet",
    "hollow",
    "ingot",
    "jasper",
    "kestrel",
    "lumen",
    "mantle",
    "nectar",
    "orchard",
    "pumice",
    "quarry",
    "russet",
    "saffron",
    "talon",
    "umber",
    "vellum",
    "wicker",
]

_MASK = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class KitDocument:
    """A generated document: id, title and Markdown body."""

    id: str
    title: str
    markdown: str


def _draws(seed: int) -> Callable[[], float]:
    state = (seed & _MASK) or 0x9E3779B9

    def draw() -> float:
        nonlocal state
        state ^= (state << 13) & _MASK
        state ^= state >> 17
        state ^= (state << 5) & _MASK
        return state / _MASK

    return draw


def kit_corpus(count: int = 40, seed: int = 7) -> list[KitDocument]:
    """The kit's documents, in generation order."""
    draw = _draws(seed)

    def below(n: int) -> int:
        return int(draw() * n)

    def word() -> str:
        return VOCABULARY[below(len(VOCABULARY))]

    def sentence() -> str:
        words = [word() for _ in range(6 + below(10))]
        return " ".join([words[0][0].upper() + words[0][1:], *words[1:]]) + "."

    documents = []
    for i in range(count):
        title = f"{word()} {word()} {i:04d}"
        sections = 2 + below(3)  # drawn before the preamble
        markdown = f"{sentence()}\n\n"
        for s in range(sections):
            markdown += f"## Section {s + 1} {word()}\n\n"
            for _ in range(1 + below(3)):
                markdown += " ".join(sentence() for _ in range(3 + below(4))) + "\n\n"
        sentence()  # the summary, drawn after the body
        documents.append(KitDocument(f"doc-{i:04d}", title, markdown))
    return documents
