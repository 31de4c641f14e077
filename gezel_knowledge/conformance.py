"""Re-check an implementation against a gezk conformance kit (``vectors.json``).

Each vector group of the kit is checked independently and reported as passed, failed (with
the first few differences) or not checkable (the group needs the kit's fixture archives, which
only a full kit checkout ships).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from gezel_knowledge._files import read_input_bytes
from gezel_knowledge.conformance_fixture import check_fixture
from gezel_knowledge.errors import InvalidInput
from gezk.errors import GezkError, InvalidReference, ReasonedError
from gezk.hashembed import hash_embed
from gezk.ids import chunk_uid, content_hash
from gezk.jcs import canonicalize
from gezk.quantize import hamming_topk, pack_sign_bits, quantize_int8
from gezk.signing import key_id, public_key_from_pem
from gezk.spatial import distance_meters
from gezk.uri import KnowledgeUri
from gezk.versions import WRITTEN

__all__ = ["GroupResult", "check_vectors", "kit_file", "load_kit"]

_MAX_FAILURES = 5


@dataclass(frozen=True, slots=True)
class GroupResult:
    """The outcome of one vector group: how many entries were checked and what failed."""

    name: str
    checked: int
    failures: tuple[str, ...] = ()
    skipped: str | None = None

    @property
    def passed(self) -> bool:
        """Whether every checked entry matched and nothing was skipped."""
        return not self.failures and self.skipped is None

    @property
    def status(self) -> str:
        """``pass``, ``FAIL`` or ``skip``."""
        if self.failures:
            return "FAIL"
        return "skip" if self.skipped is not None else "pass"


def kit_file(path: Path) -> Path:
    """The ``vectors.json`` a ``--kit`` argument names: the file, or inside a kit directory."""
    if not path.is_dir():
        return path
    nested = path / "conformance" / "vectors.json"
    return nested if nested.exists() else path / "vectors.json"


def load_kit(path: Path | None = None) -> dict[str, Any]:
    """Load ``vectors.json`` from ``path`` (a file or a kit directory) or the bundled copy."""
    if path is None:
        raw = (
            resources.files("gezel_knowledge")
            .joinpath("_data/conformance-vectors.json")
            .read_bytes()
        )
    else:
        raw = read_input_bytes(kit_file(path), "conformance vectors")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"conformance vectors are not JSON: {exc}", reason="kit-malformed"
        ) from None
    if not isinstance(data, dict) or "formatVersion" not in data:
        raise InvalidInput("conformance vectors lack formatVersion", reason="kit-malformed")
    return data


class _Group:
    def __init__(self, name: str) -> None:
        self.name = name
        self.checked = 0
        self.failures: list[str] = []

    def expect(self, ok: bool, what: str) -> None:
        self.checked += 1
        if not ok and len(self.failures) < _MAX_FAILURES:
            self.failures.append(what)

    def result(self) -> GroupResult:
        return GroupResult(self.name, self.checked, tuple(self.failures))


def _check_format_version(kit: Mapping[str, Any], g: _Group) -> None:
    g.expect(
        kit["formatVersion"] == WRITTEN.format_version,
        f"kit is for {kit['formatVersion']}, this implementation writes {WRITTEN.format_version}",
    )


def _check_chunk_uid(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["chunkUid"]:
        got = chunk_uid(case["documentId"], case["ordinal"], case["text"])
        g.expect(got == case["expected"], f"{case['documentId']!r}: {got} != {case['expected']}")


def _check_content_hash(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["contentHash"]:
        got = content_hash(case["text"])
        g.expect(got == case["expected"], f"{case['text']!r}: {got}")


def _check_quantization(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["quantization"]:
        x = np.asarray(case["input"], dtype=np.float64)
        q = quantize_int8(x).tolist()
        bits = pack_sign_bits(x).tolist()
        g.expect(q == case["int8"], f"int8 of {case['input']}: {q}")
        g.expect(bits == case["bits"], f"bits of {case['input']}: {bits}")


def _check_jcs(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["jcs"]:
        got = canonicalize(case["input"]).decode("utf-8")
        g.expect(got == case["canonical"], f"{got} != {case['canonical']}")


def _uri_fields(uri: KnowledgeUri) -> dict[str, Any]:
    out: dict[str, Any] = {
        "publisherId": uri.publisher_id,
        "catalogId": uri.catalog_id,
        "documentId": uri.document_id,
    }
    if uri.chunk is not None:
        out["fragment"] = {"chunk": uri.chunk}
    elif uri.line_start is not None:
        out["fragment"] = {"lineStart": uri.line_start}
        if uri.line_end is not None:
            out["fragment"]["lineEnd"] = uri.line_end
    return out


def _check_uri(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["uri"]:
        try:
            parsed: dict[str, Any] | None = _uri_fields(KnowledgeUri.parse(case["uri"]))
        except InvalidReference:
            parsed = None
        g.expect(parsed == case["parsed"], f"{case['uri']}: parsed as {parsed}")


def _check_uri_format(kit: Mapping[str, Any], g: _Group) -> None:
    src = kit["uriFormat"]["input"]
    fragment = src.get("fragment") or {}
    uri = KnowledgeUri(
        src["publisherId"],
        src["catalogId"],
        src["documentId"],
        chunk=fragment.get("chunk"),
        line_start=fragment.get("lineStart"),
        line_end=fragment.get("lineEnd"),
    )
    expected = kit["uriFormat"]["expected"]
    g.expect(str(uri) == expected, f"{uri} != {expected}")


def _check_hamming(kit: Mapping[str, Any], g: _Group) -> None:
    case = kit["hamming"]
    rows = np.asarray(case["rows"], dtype=np.uint8).reshape(-1, case["bytesPerRow"])
    query = np.asarray(case["query"], dtype=np.uint8)
    shortlist = hamming_topk(rows, query, case["k"])
    got = [
        {"chunkId": int(r) + 1, "distance": int(d)}
        for r, d in zip(shortlist.rows, shortlist.scores, strict=True)
    ]
    g.expect(got == case["expected"], f"top-{case['k']}: {got}")


def _check_hash_embedder(kit: Mapping[str, Any], g: _Group) -> None:
    spec = kit["hashEmbedder"]
    vector = hash_embed([spec["sample"]["text"]], spec["dimensions"])[0]
    expected = np.asarray(spec["sample"]["unitVector"], dtype=np.float64)
    head = vector[: len(expected)].astype(np.float64)
    g.expect(bool(np.allclose(head, expected, rtol=0, atol=1e-7)), f"sample vector {head.tolist()}")


def _check_signature(kit: Mapping[str, Any], g: _Group) -> None:
    spec = kit["signature"]
    got = key_id(public_key_from_pem(spec["publicKeyPem"].encode("ascii")))
    g.expect(got == spec["keyId"], f"keyId {got} != {spec['keyId']}")


def _check_spatial(kit: Mapping[str, Any], g: _Group) -> None:
    for case in kit["spatial"]["distance"]:
        a, b = case["from"], case["to"]
        got = distance_meters(a["latitude"], a["longitude"], b["latitude"], b["longitude"])
        want = float(case["expectedMeters"])
        g.expect(abs(got - want) <= 1e-9 + 1e-12 * abs(want), f"{a} -> {b}: {got} m")


_GROUPS: tuple[tuple[str, Callable[[Mapping[str, Any], _Group], None]], ...] = (
    ("formatVersion", _check_format_version),
    ("chunkUid", _check_chunk_uid),
    ("contentHash", _check_content_hash),
    ("quantization", _check_quantization),
    ("jcs", _check_jcs),
    ("uri", _check_uri),
    ("uriFormat", _check_uri_format),
    ("hamming", _check_hamming),
    ("hashEmbedder", _check_hash_embedder),
    ("signature", _check_signature),
    ("spatial", _check_spatial),
)

_NO_ARCHIVE = "needs {path} (run with --kit pointing at a kit checkout that ships it)"


def check_vectors(kit: Mapping[str, Any], base: Path | None = None) -> list[GroupResult]:
    """Check every vector group of ``kit``.

    ``base`` is the directory holding the kit's ``vectors.json``; fixture groups are checked
    when their archives are found under it and reported as skipped otherwise.
    """
    results: list[GroupResult] = []
    for name, check in _GROUPS:
        if name not in kit:
            results.append(GroupResult(name, 0, skipped="absent from this kit"))
            continue
        group = _Group(name)
        try:
            check(kit, group)
        except (GezkError, KeyError, TypeError, ValueError) as exc:
            group.failures.append(f"error: {type(exc).__name__}: {exc}")
        results.append(group.result())
    fixtures: list[tuple[str, Mapping[str, Any], bool]] = []
    if "fixture" in kit:
        fixtures.append(("fixture", kit["fixture"], True))
    for entry in kit.get("legacy", ()):
        fixtures.append((f"legacy {entry.get('formatVersion', '?')}", entry, False))
    for name, entry, current in fixtures:
        results.append(_fixture_result(name, entry, base, kit if current else None))
    return results


def _fixture_result(
    name: str, entry: Mapping[str, Any], base: Path | None, kit: Mapping[str, Any] | None
) -> GroupResult:
    skipped = GroupResult(name, 0, skipped=_NO_ARCHIVE.format(path=entry.get("path")))
    if base is None:
        return skipped
    try:
        outcome = check_fixture(
            entry,
            base,
            spatial=None if kit is None else kit.get("spatial"),
            signature=None if kit is None else kit.get("signature"),
        )
    except (ReasonedError, KeyError, TypeError, ValueError) as exc:
        return GroupResult(name, 1, (f"error: {type(exc).__name__}: {exc}",))
    if outcome is None:
        return skipped
    checked, failures = outcome
    return GroupResult(name, checked, tuple(failures[:_MAX_FAILURES]))
