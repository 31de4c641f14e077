"""The query arguments ``search`` and ``find`` share: words, ``--near LAT,LON,R``, or both."""

from __future__ import annotations

import argparse

from gezel_knowledge.errors import InvalidInput
from gezk.spatial import RadiusQuery

__all__ = ["add_query_arguments", "parse_near", "query_and_near"]


def add_query_arguments(parser: argparse.ArgumentParser) -> None:
    """The positional ``QUERY`` words and ``--near``."""
    parser.add_argument("query", metavar="QUERY", nargs="*", help="what to look for")
    parser.add_argument(
        "--near",
        metavar="LAT,LON,R",
        help="only documents about a place within R metres (alone: list them by distance)",
    )


def parse_near(text: str) -> RadiusQuery:
    """``LAT,LON,RADIUS_METERS`` as a validated radius query."""
    parts = text.split(",")
    try:
        lat, lon, radius = (float(p) for p in parts)
    except ValueError:
        raise InvalidInput(
            f"--near takes LAT,LON,RADIUS_METERS, got {text!r}",
            reason="invalid-near",
            subject=text,
        ) from None
    return RadiusQuery(lat, lon, radius).validate()


def query_and_near(args: argparse.Namespace) -> tuple[str, RadiusQuery | None]:
    """The query text and radius the arguments give; :class:`InvalidInput` when neither."""
    query = " ".join(args.query)
    near = parse_near(args.near) if args.near else None
    if not query.strip() and near is None:
        raise InvalidInput("give a query, --near, or both", reason="empty-query")
    return query, near
