"""Builders shared by the index tests."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from gezel_knowledge.embedders import HashEmbedder
from gezk.hashembed import hash_embed
from gezk.profiles import TEST_HASH_EMBED_1


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Create ``files`` (relative path -> text or bytes) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def bump_mtime(path: Path, seconds: int = 5) -> None:
    """Move a file's modification time forward (file systems with coarse clocks)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def hash_embedder(
    *, dimensions: int = 384, passage_instruction: str = "", profile_id: str | None = None
) -> HashEmbedder:
    """A ``test-hash-embed`` embedder, optionally in another (stamp-distinct) space."""
    profile = replace(
        TEST_HASH_EMBED_1,
        id=profile_id or TEST_HASH_EMBED_1.id,
        dimensions=dimensions,
        passage_instruction=passage_instruction,
    )
    return HashEmbedder(profile)


class MeetingEmbedder(HashEmbedder):
    """A hash embedder that embeds only once every writer sharing its barrier has asked:
    concurrent writers are then certain to have read the same pending rows."""

    def __init__(self, barrier: threading.Barrier) -> None:
        super().__init__()
        self.barrier = barrier

    def embed_passages(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.barrier.wait()
        return super().embed_passages(texts)


class CountingSummarizer:
    """A summarizer that records which paths it was asked about."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str, text: str) -> str:
        self.calls.append(path)
        return f"summary of {path.rsplit('/', 1)[-1]}: zebracorn {len(text)} characters"


class ScriptedTranscriber:
    """A stand-in speech-to-text model: the transcript is the text the audio bytes carry after a
    ``SPEECH:`` marker (so a test controls what is "said"); records every call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str, audio: bytes) -> str:
        self.calls.append(path)
        return audio.split(b"SPEECH:", 1)[-1].decode("utf-8", "replace")


class ScriptedDescriber:
    """A stand-in captioning model: the description is the image's ``CAPTION:`` text."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str, image: bytes) -> str:
        self.calls.append(path)
        return image.split(b"CAPTION:", 1)[-1].decode("utf-8", "replace")


class LabelImageEmbedder:
    """A stand-in image model: an image's vector is the hash vector of its bytes' label."""

    def __init__(self, stamp: str = "label-images@1") -> None:
        self._stamp = stamp
        self.embedded: list[bytes] = []

    @property
    def stamp(self) -> str:
        return self._stamp

    def embed_images(self, images: Sequence[bytes]) -> NDArray[np.float32]:
        self.embedded.extend(images)
        return hash_embed([i.decode("latin-1") for i in images], 32)

    def embed_texts(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return hash_embed(list(texts), 32)
