"""The values and seams of the content index: options, reports, status, and the summarizer
and image embedder a caller may plug in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.indexes._chunker import DEFAULT_MAX_CHARS, DEFAULT_OVERLAP

__all__ = [
    "ContentStatus",
    "Describer",
    "EnrichmentReport",
    "ImageEmbedder",
    "IndexOptions",
    "IndexReport",
    "StructuralReport",
    "Summarizer",
    "Transcriber",
]


class Summarizer(Protocol):
    """Writes a short summary of a file for the enrichment pass (an inference call, typically)."""

    def __call__(self, path: str, text: str) -> str:
        """A summary of ``text``, the searchable text of workspace file ``path``."""
        ...


class Transcriber(Protocol):
    """Turns an audio file into text for the enrichment pass (a speech-to-text model).

    The transcript becomes the file's searchable summary: keyword search finds the recording by
    what is said in it, and the hit shows the transcript."""

    def __call__(self, path: str, audio: bytes) -> str:
        """The transcript of ``audio``, the bytes of workspace file ``path``."""
        ...


class Describer(Protocol):
    """Describes an image in words for the enrichment pass (a captioning or vision model).

    The description becomes the file's searchable summary, as a transcript does for audio."""

    def __call__(self, path: str, image: bytes) -> str:
        """A description of ``image``, the bytes of workspace file ``path``."""
        ...


class ImageEmbedder(Protocol):
    """Embeds images and text queries into one vector space (a CLIP-style model)."""

    @property
    def stamp(self) -> str:
        """The identity of the image vector space; a change re-embeds every image."""
        ...

    def embed_images(self, images: Sequence[bytes]) -> NDArray[np.float32]:
        """One vector per encoded image."""
        ...

    def embed_texts(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One vector per text query, in the images' space."""
        ...


@dataclass(frozen=True, slots=True)
class IndexOptions:
    """Knobs of the structural pass."""

    max_text_bytes: int = 2 * 1024 * 1024
    """Code, Markdown and text files larger than this are skipped as oversized."""
    max_binary_bytes: int = 32 * 1024 * 1024
    """Documents, images and audio files larger than this are skipped as oversized."""
    chunk_chars: int = DEFAULT_MAX_CHARS
    chunk_overlap: int = DEFAULT_OVERLAP
    extra_ignores: tuple[str, ...] = ()
    """Additional gitignore-style patterns, applied at the workspace root."""
    batch_files: int = 256
    """Files written per transaction: a crash loses at most one batch of work."""


@dataclass(frozen=True, slots=True)
class StructuralReport:
    """What a structural pass did."""

    files_seen: int
    unchanged: int
    processed: tuple[str, ...]
    touched: tuple[str, ...]
    removed: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    chunks_written: int
    seconds: float


@dataclass(frozen=True, slots=True)
class EnrichmentReport:
    """What an enrichment pass did."""

    chunks_embedded: int = 0
    files_summarized: int = 0
    images_embedded: int = 0
    audio_transcribed: int = 0
    images_described: int = 0
    vectors_reset: bool = False
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class IndexReport:
    """The structural pass and (when an embedder or summarizer was given) the enrichment."""

    workspace: str
    database: str
    structure: StructuralReport
    enrichment: EnrichmentReport | None


@dataclass(frozen=True, slots=True)
class ContentStatus:
    """Counts and the embedder stamp of a content index."""

    workspace: str
    database: str
    files: int
    chunks: int
    chunks_embedded: int
    symbols: int
    summaries: int
    images: int
    images_embedded: int
    text_stamp: str | None
    vector_dimensions: int | None
    vector_metric: str | None
