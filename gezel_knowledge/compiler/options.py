"""How a build is asked for: one value, :class:`BuildOptions`, that the ``build`` command and
:func:`~gezel_knowledge.compiler.build.compile_catalog` share.

Every field has the default the command line has. The values are checked when the options are
made (a bad ``jobs`` or shard size is an :class:`~gezel_knowledge.errors.InvalidInput` at once),
and resolved when the build starts: the embedder by profile id, catalog.yaml's ``embedder``
or the default model; the signing key read from its file; ``createdAt`` from the options, else
catalog.yaml, else :attr:`BuildOptions.clock`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gezel_knowledge.compiler.metadata.catalog_yaml import CatalogFile
from gezel_knowledge.compiler.metadata.overrides import MetadataInput
from gezel_knowledge.compiler.passes.sharding import ShardFill
from gezel_knowledge.embedders.base import Embedder
from gezel_knowledge.errors import InvalidInput
from gezk.profiles import ChunkingProfile

__all__ = [
    "DEFAULT_EMBED_BATCH",
    "DEFAULT_SHARD_MAX",
    "DEFAULT_SHARD_TARGET",
    "SHARD_FILLS",
    "BuildOptions",
]

DEFAULT_SHARD_TARGET = 200_000
DEFAULT_SHARD_MAX = 250_000
DEFAULT_EMBED_BATCH = 64
SHARD_FILLS: tuple[ShardFill, ...] = ("topic", "semantic")


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """Everything a build takes besides its source, its output and a progress sink."""

    embedder: Embedder | str | None = None
    """An embedder, or an embedding profile id; default: catalog.yaml's ``embedder``, else the
    default model."""
    catalog: CatalogFile | None = None
    """A catalog.yaml (or metadata read from one) used instead of the source's own."""
    metadata: MetadataInput | None = None
    """Metadata given beside catalog.yaml (:class:`~.catalog_yaml.CatalogMetadata`, or the
    command line's :class:`~.overrides.MetadataOverrides`); each field set wins."""
    created_at: str | None = None
    """ISO 8601; default: catalog.yaml's ``createdAt``, else :attr:`clock`."""
    clock: Callable[[], str] | None = None
    """Where ``createdAt`` comes from when nothing states it (without one, that is an error:
    the build stays deterministic)."""
    signing_key: Ed25519PrivateKey | Path | str | None = None
    """An Ed25519 private key, or the PEM file holding one; unsigned without."""
    cache_dir: Path | None = None
    """The persistent content-hash -> vector cache (none when ``None``)."""
    chunking: ChunkingProfile | str | None = None
    """A chunking profile or id; default: catalog.yaml's ``chunking``, else the largest
    registered profile whose embed inputs fit the embedder's window."""
    shard_fill: ShardFill = "topic"
    shard_target: int = DEFAULT_SHARD_TARGET
    shard_max: int = DEFAULT_SHARD_MAX
    embed_batch: int = DEFAULT_EMBED_BATCH
    jobs: int | None = None
    """Processes that chunk and embed (default: every usable core); on Ray, embedding actors."""
    ray: bool | str | None = None
    """Chunk and embed on Ray (the ``ray`` extra): ``True`` on ``RAY_ADDRESS`` or a new local
    instance, a string on that address. The archive is the local build's, byte for byte."""
    strict: bool = False
    """Stop at warnings (:class:`~gezel_knowledge.compiler.errors.WarningsAsErrors`)."""
    allow_read: Path | None = None
    """A folder above the source that the site's configuration may read files from (Hugo
    ``module.mounts`` with ``../``); only the files it names are read. Without it such a
    configuration stops the build, naming this option."""

    def __post_init__(self) -> None:
        if self.jobs is not None and self.jobs < 1:
            raise InvalidInput(f"jobs must be at least 1, not {self.jobs}", reason="invalid-jobs")
        if self.shard_target <= 0 or self.shard_max < self.shard_target:
            raise InvalidInput(
                f"shard target {self.shard_target} and maximum {self.shard_max} must satisfy "
                "0 < target <= maximum",
                reason="invalid-shard-size",
            )
        if self.shard_fill not in SHARD_FILLS:
            raise InvalidInput(
                f"unknown shard fill {self.shard_fill!r}", reason="invalid-shard-fill"
            )
