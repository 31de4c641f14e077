"""Which chunking profile fits an embedding model's window (spec sections 6.1, 7.1 and 7.2).

A chunk's embed input is ``passageInstruction + header + text`` (7.2 step 5), and the model adds
its special tokens and truncates at the profile's ``maxTokens``: whatever lies past that limit
is silently missing from the chunk's vector. The chunker keeps ``text`` within ``target`` units
(the overlap counted inside it) and ``header`` within ``contextHeader.max``, so a token-unit
chunking profile fits a model when

    target + contextHeader.max + tokens(passageInstruction) + special tokens <= maxTokens.

``markdown-chunks@2`` (420 + 64) fits 512-token models; ``markdown-chunks-256@2`` (192 + 32)
fits 256-token ones. Without an explicit choice the compiler takes the largest registered
profile that fits; an explicit choice that does not fit is refused rather than truncated.
"""

from __future__ import annotations

from dataclasses import dataclass

from gezel_knowledge.compiler.errors import ChunkingDoesNotFit
from gezel_knowledge.embedders.base import Tokenizer
from gezel_knowledge.embedders.tokenizer import HuggingFaceTokenizer
from gezk.profiles import CHUNKING_PROFILES, ChunkingProfile, EmbeddingProfile, chunking_profile

__all__ = ["WindowBudget", "choose_chunking", "special_tokens", "window_budget"]

# Special tokens a tokenizer kind wraps every input in, for tokenizers that cannot say it
# themselves: BERT's [CLS] ... [SEP], XLM-R's <s> ... </s>; the kit's whitespace stand-in has
# no model and adds none. An unknown kind is assumed to add two, like every encoder above.
_SPECIAL_BY_KIND = {"whitespace": 0, "wordpiece-bert": 2, "sentencepiece-xlmr": 2}
_DEFAULT_SPECIAL = 2


def special_tokens(profile: EmbeddingProfile, tokenizer: Tokenizer) -> int:
    """Tokens the model adds to every input ([CLS]/[SEP] and the like)."""
    if isinstance(tokenizer, HuggingFaceTokenizer):
        # The tokenizer definition knows its own post-processor: encode nothing and count.
        return int(tokenizer.model_inputs([""]).lengths[0])
    return _SPECIAL_BY_KIND.get(profile.tokenizer.kind, _DEFAULT_SPECIAL)


@dataclass(frozen=True, slots=True)
class WindowBudget:
    """The worst-case embed input of a chunking profile against a model's ``maxTokens``."""

    chunking: ChunkingProfile
    embedding_id: str
    max_tokens: int
    instruction_tokens: int
    special_tokens: int

    @property
    def needed(self) -> int | None:
        """Tokens the longest embed input may take, or ``None`` for a ``chars`` profile."""
        if self.chunking.unit != "tokens":
            return None
        return (
            self.chunking.target
            + self.chunking.context_header_max
            + self.instruction_tokens
            + self.special_tokens
        )

    @property
    def fits(self) -> bool:
        """Whether every embed input fits the window (``chars`` profiles cannot be checked)."""
        needed = self.needed
        return needed is None or needed <= self.max_tokens

    def describe(self) -> str:
        """The sum, spelled out: ``420 + 64 header + 0 instruction + 2 special = 486``."""
        c = self.chunking
        return (
            f"{c.target} + {c.context_header_max} header + {self.instruction_tokens} instruction"
            f" + {self.special_tokens} special = {self.needed} tokens"
        )


def window_budget(
    chunking: ChunkingProfile, embedding: EmbeddingProfile, tokenizer: Tokenizer
) -> WindowBudget:
    """How ``chunking``'s longest embed input compares with ``embedding``'s window."""
    instruction = embedding.passage_instruction
    return WindowBudget(
        chunking=chunking,
        embedding_id=embedding.id,
        max_tokens=embedding.max_tokens,
        instruction_tokens=tokenizer.count(instruction) if instruction else 0,
        special_tokens=special_tokens(embedding, tokenizer),
    )


def choose_chunking(
    embedding: EmbeddingProfile,
    tokenizer: Tokenizer,
    requested: ChunkingProfile | str | None = None,
) -> ChunkingProfile:
    """The requested chunking profile if it fits, else refuse; without a request, the largest
    registered token profile that fits the model's window."""
    if requested is not None:
        profile = chunking_profile(requested) if isinstance(requested, str) else requested
        budget = window_budget(profile, embedding, tokenizer)
        if not budget.fits:
            fallback = _largest_fitting(embedding, tokenizer)
            raise ChunkingDoesNotFit(
                f"chunking profile {profile.id!r} does not fit embedding profile "
                f"{embedding.id!r}: {budget.describe()} > maxTokens {embedding.max_tokens}, so "
                "the end of long passages would be cut from their vectors"
                + (f"; use {fallback.id} or leave the choice to the compiler" if fallback else ""),
                chunking_id=profile.id,
                embedding_id=embedding.id,
            )
        return profile
    chosen = _largest_fitting(embedding, tokenizer)
    if chosen is None:
        smallest = min(_token_profiles(), key=lambda p: p.target)
        budget = window_budget(smallest, embedding, tokenizer)
        raise ChunkingDoesNotFit(
            f"no registered chunking profile fits embedding profile {embedding.id!r}: the "
            f"smallest, {smallest.id!r}, needs {budget.describe()} > maxTokens "
            f"{embedding.max_tokens}",
            chunking_id=smallest.id,
            embedding_id=embedding.id,
        )
    return chosen


def _token_profiles() -> list[ChunkingProfile]:
    return sorted(
        (p for p in CHUNKING_PROFILES.values() if p.unit == "tokens"),
        key=lambda p: (-p.target, p.id),
    )


def _largest_fitting(embedding: EmbeddingProfile, tokenizer: Tokenizer) -> ChunkingProfile | None:
    for profile in _token_profiles():
        if window_budget(profile, embedding, tokenizer).fits:
            return profile
    return None
