"""The ``--trust`` option every command that verifies signatures shares."""

from __future__ import annotations

import argparse

from gezel_knowledge.trust import load_trust_anchors
from gezk.signing import TrustAnchors

__all__ = ["add_trust_option", "trust_from"]


def add_trust_option(parser: argparse.ArgumentParser, purpose: str) -> None:
    """Add the repeatable ``--trust KEY`` option; ``purpose`` says what the keys verify."""
    parser.add_argument(
        "--trust",
        metavar="KEY",
        action="append",
        default=[],
        help=f"a trusted Ed25519 public key: a PEM file or a folder of .pem files; {purpose} "
        "(repeatable)",
    )


def trust_from(args: argparse.Namespace) -> TrustAnchors | None:
    """The trust anchors ``--trust`` names; ``None`` when it was not given."""
    return load_trust_anchors(args.trust) if args.trust else None
