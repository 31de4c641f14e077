"""The embedder seam shared by the compiler, the reader and the mutable indexes.

An :class:`Embedder` produces float32 ``(n, d)`` unit vectors for queries and passages in the
vector space its :class:`~gezk.profiles.EmbeddingProfile` declares, and exposes the
:class:`Tokenizer` that the chunker counts units with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from gezk.hashembed import hash_embed
from gezk.profiles import TEST_HASH_EMBED_1, EmbeddingProfile

__all__ = ["Embedder", "HashEmbedder", "Tokenizer", "WhitespaceTokenizer"]


@runtime_checkable
class Tokenizer(Protocol):
    """Counts and locates the units a chunking profile measures, excluding special tokens."""

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character ``(start, end)`` spans of each token of ``text``, special tokens excluded."""
        ...

    def count(self, text: str) -> int:
        """The number of tokens in ``text``, special tokens excluded."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Embeds queries and passages into the vector space of :attr:`profile`."""

    @property
    def profile(self) -> EmbeddingProfile:
        """The embedding profile whose vector space this embedder produces."""
        ...

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer of the profile, for chunking and truncation."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit vectors for search queries (the query instruction is prefixed here)."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit vectors for passages (the passage instruction is prefixed here)."""
        ...


_NON_SPACE = re.compile(r"\S+")


class WhitespaceTokenizer:
    """The ``whitespace`` tokenizer kind: a token is a maximal run of non-whitespace."""

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Spans of each whitespace-separated token."""
        return [m.span() for m in _NON_SPACE.finditer(text)]

    def count(self, text: str) -> int:
        """Number of whitespace-separated tokens."""
        # str.split() and the regex's \s agree on what whitespace is (Py_UNICODE_ISSPACE);
        # split() is several times faster, and the chunker counts every block and chunk.
        return len(text.split())


class HashEmbedder:
    """``test-hash-embed@1`` (spec section 13): deterministic vectors for tests and fixtures."""

    def __init__(self, profile: EmbeddingProfile = TEST_HASH_EMBED_1) -> None:
        self._profile = profile
        self._tokenizer = WhitespaceTokenizer()

    @property
    def profile(self) -> EmbeddingProfile:
        """The ``test-hash-embed@1`` profile."""
        return self._profile

    @property
    def tokenizer(self) -> Tokenizer:
        """The whitespace tokenizer the kit's fixtures were chunked with."""
        return self._tokenizer

    def embed_queries(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Hash vectors of ``queryInstruction + text``."""
        prefix = self._profile.query_instruction
        return hash_embed([prefix + t for t in texts], self._profile.dimensions)

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Hash vectors of ``passageInstruction + text``."""
        prefix = self._profile.passage_instruction
        return hash_embed([prefix + t for t in texts], self._profile.dimensions)
