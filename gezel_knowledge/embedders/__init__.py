"""Profile embedders: turn text into unit vectors of a declared vector space."""

from gezel_knowledge.embedders.base import Embedder, HashEmbedder, Tokenizer, WhitespaceTokenizer

__all__ = ["Embedder", "HashEmbedder", "Tokenizer", "WhitespaceTokenizer"]
