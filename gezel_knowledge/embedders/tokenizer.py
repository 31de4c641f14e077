"""A :class:`~gezel_knowledge.embedders.base.Tokenizer` over a Hugging Face ``tokenizer.json``.

Two views of one definition: the chunker counts and locates tokens *without* special tokens,
truncation or padding (spec section 7.1: counts exclude special tokens), while the embedder
encodes model inputs *with* special tokens, truncated to the profile's ``maxTokens``. Whatever
truncation or padding the file itself configures is ignored; the profile decides.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from tokenizers import Tokenizer as _HFTokenizer

from gezel_knowledge.errors import ModelUnavailable

__all__ = ["HuggingFaceTokenizer", "ModelInputs"]

_PAD_TOKENS = ("[PAD]", "<pad>")


class ModelInputs:
    """Token ids of a batch of texts, special tokens included, unpadded (one row per text)."""

    __slots__ = ("ids", "lengths")

    def __init__(self, ids: list[list[int]]) -> None:
        self.ids = ids
        self.lengths: NDArray[np.int64] = np.fromiter(
            (len(row) for row in ids), dtype=np.int64, count=len(ids)
        )


def _parse(definition: str, name: str) -> _HFTokenizer:
    try:
        return _HFTokenizer.from_str(definition)
    except Exception as exc:  # the Rust side raises a bare Exception for any parse error
        raise ModelUnavailable(
            f"{name} is not a usable tokenizer definition: {exc}",
            reason="invalid-tokenizer",
            subject=name,
        ) from exc


class HuggingFaceTokenizer:
    """Counts and locates tokens of a ``tokenizer.json`` definition, special tokens excluded."""

    pad_id: int
    """The id to right-pad model inputs with: the definition's padding id or pad token, else 0."""

    def __init__(
        self, definition: str, *, max_tokens: int = 512, name: str = "tokenizer.json"
    ) -> None:
        model = _parse(definition, name)
        # Read before padding is switched off below: the definition's own padding names it.
        self.pad_id = _pad_id(model)
        model.no_padding()
        # Fixed here, never per call: the Rust tokenizer is shared by threads and mutating it
        # while another thread encodes would fail.
        model.enable_truncation(max_length=max_tokens)
        self._model = model
        self._definition = definition
        # The untruncated copy that counts and locates tokens is parsed on first use: a query
        # embedder never needs it, and parsing costs as much as the model side's (~40 ms).
        self._plain_copy: _HFTokenizer | None = None
        self._plain_lock = threading.Lock()
        self._name = name
        self.max_tokens = max_tokens

    @property
    def _plain(self) -> _HFTokenizer:
        plain = self._plain_copy
        if plain is None:
            with self._plain_lock:
                plain = self._plain_copy
                if plain is None:
                    plain = _parse(self._definition, self._name)
                    plain.no_truncation()
                    plain.no_padding()
                    self._plain_copy = plain
        return plain

    @classmethod
    def from_bytes(
        cls, data: bytes, *, max_tokens: int = 512, name: str = "tokenizer.json"
    ) -> HuggingFaceTokenizer:
        """A tokenizer from the bytes of a ``tokenizer.json`` file."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ModelUnavailable(
                f"{name} is not UTF-8 JSON", reason="invalid-tokenizer", subject=name
            ) from exc
        return cls(text, max_tokens=max_tokens, name=name)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character ``(start, end)`` spans of each token of ``text``, special tokens excluded."""
        encoding = self._plain.encode(text, add_special_tokens=False)
        return [(int(a), int(b)) for a, b in encoding.offsets]

    def count(self, text: str) -> int:
        """The number of tokens in ``text``, special tokens excluded."""
        return len(self._plain.encode(text, add_special_tokens=False).ids)

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Token counts of many texts at once (special tokens excluded)."""
        encodings = self._plain.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def model_inputs(self, texts: Sequence[str]) -> ModelInputs:
        """Model input ids with special tokens, each row truncated to :attr:`max_tokens`."""
        encodings = self._model.encode_batch(list(texts), add_special_tokens=True)
        return ModelInputs([e.ids for e in encodings])


def _pad_id(tokenizer: _HFTokenizer) -> int:
    # Right padding is masked out of attention and pooling, so the id only has to be one the
    # graph accepts; prefer the definition's own padding, then its pad token.
    padding = tokenizer.padding
    if padding is not None:
        return int(padding["pad_id"])
    added = tokenizer.get_added_tokens_decoder()
    for token_id in sorted(added):
        if added[token_id].content in _PAD_TOKENS:
            return int(token_id)
    return 0
