"""Arguments shared by the ``index``, ``index-search`` and ``memory`` commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from gezel_knowledge.cli._output import note
from gezel_knowledge.embedders import Embedder, default_embedder, load_embedder
from gezel_knowledge.errors import ModelUnavailable
from gezk.profiles import embedding_profile

__all__ = ["add_embedder_argument", "add_home_argument", "resolve_embedder"]


def add_home_argument(parser: argparse.ArgumentParser) -> None:
    """``--home``: the Gezel home holding the indexes (default ``$GEZEL_HOME`` or ``~/.gezel``)."""
    parser.add_argument("--home", type=Path, help="Gezel home (default: $GEZEL_HOME or ~/.gezel)")


def add_embedder_argument(parser: argparse.ArgumentParser) -> None:
    """``--embedder``: ``default``, ``none`` or a registered embedding profile id."""
    parser.add_argument(
        "--embedder",
        default="default",
        metavar="NAME",
        help="'default' (the default model when installed, else keyword only), 'none', or an "
        "embedding profile id such as test-hash-embed@1",
    )


def resolve_embedder(choice: str, *, quiet: bool = False) -> Embedder | None:
    """The embedder named on the command line; ``default`` degrades to keyword-only search
    with a note on stderr when no model is installed, a named profile must load."""
    if choice == "none":
        return None
    if choice == "default":
        try:
            return default_embedder()
        except ModelUnavailable as exc:
            if not quiet:
                note(f"no embedder, keyword search only ({exc})")
            return None
    return load_embedder(embedding_profile(choice))
