"""The published JSON Schemas of gezk 0.5, 0.6 and 0.7, and validators built on them.

The schema files ship unchanged as package data (see ``LICENSE.md`` beside them), one directory
per format version. A manifest is validated against the schema of the ``formatVersion`` it
names (spec section 4); on top of the schema, :func:`manifest_errors` applies the manifest rules
of sections 2 and 4 that JSON Schema cannot express (empty ``requires.features``, the version
pairing, ``license.noticePath`` listed in ``files``, unique topic ids, a parent forest of depth at
most 16, no Windows device name as ``version``, the document id grammar), and
:func:`document_errors` the id rules of sections 2 and 5.2.2 (document and location ids, unique
location ids per document). ``$ref``s resolve only among the bundled files; nothing is ever fetched.

Findings name the failing place as a JSON path (``$.embedding.dimensions``,
``$.topics[2].parentId``); for a missing or forbidden property the path names the property
itself.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from gezk.errors import GezkError, InvalidIdentifier, SchemaViolation, UnsupportedVersion
from gezk.ids import (
    is_document_id,
    is_version,
    validate_document_id,
    validate_location_id,
    validate_version,
)
from gezk.versions import SUPPORTED, generation

if TYPE_CHECKING:
    import referencing
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = [
    "SchemaFinding",
    "available_schemas",
    "document_errors",
    "load_schema",
    "manifest_errors",
    "schema_errors",
    "validate_document",
    "validate_manifest",
    "validate_registry",
    "validate_source_notices",
]

_SUFFIX: Final = ".schema.json"
_MAX_TOPIC_DEPTH: Final = 16
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_PathElement = str | int


@dataclass(frozen=True, slots=True)
class SchemaFinding:
    """One way a JSON document breaks its schema or a rule of the spec."""

    path: str
    """JSON path of the offending value, e.g. ``$.embedding.dimensions``."""
    message: str
    """What is wrong, one line."""
    keyword: str
    """The JSON Schema keyword that failed, or ``gezk:<rule>`` for a spec rule."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


# --- loading ----------------------------------------------------------------------------------


def _version_dir(version: str) -> Any:
    return resources.files(__name__).joinpath(version)


def _checked_version(version: object) -> str:
    for gen in SUPPORTED:
        if version == gen.format_version:
            return gen.format_version
    supported = ", ".join(g.format_version for g in SUPPORTED)
    raise UnsupportedVersion(
        f"no gezk JSON Schemas for format version {version!r} (bundled: {supported})",
        reason="unsupported-format",
        subject=str(version),
    )


@cache
def _schema_names(version: str) -> tuple[str, ...]:
    return tuple(
        sorted(
            entry.name.removesuffix(_SUFFIX)
            for entry in _version_dir(version).iterdir()
            if entry.name.endswith(_SUFFIX)
        )
    )


def available_schemas(version: str) -> tuple[str, ...]:
    """Names of the schemas bundled for a format version, e.g. ``catalog-manifest``."""
    return _schema_names(_checked_version(version))


@cache
def _schema(name: str, version: str) -> Mapping[str, Any]:
    names = _schema_names(version)
    stem = name.removesuffix(_SUFFIX)
    if stem not in names:
        raise GezkError(
            f"no schema {name!r} in gezk {version} (there are: {', '.join(names)})",
            reason="unknown-schema",
            subject=name,
        )
    text = _version_dir(version).joinpath(stem + _SUFFIX).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def load_schema(name: str, version: str) -> dict[str, Any]:
    """A fresh copy of a bundled schema, by name (``catalog-manifest`` or its file name)."""
    return copy.deepcopy(dict(_schema(name, _checked_version(version))))


@cache
def _registry() -> referencing.Registry[Any]:
    # The JSON Schema libraries are imported on first use: they cost about 60 ms, and reading a
    # manifest without its schema (every catalog a reader opens) never needs them.
    import referencing  # noqa: PLC0415
    from referencing.jsonschema import DRAFT202012  # noqa: PLC0415

    resources_by_id: list[tuple[str, referencing.Resource[Any]]] = []
    for gen in SUPPORTED:
        for name in _schema_names(gen.format_version):
            contents = _schema(name, gen.format_version)
            resource = referencing.Resource.from_contents(
                dict(contents), default_specification=DRAFT202012
            )
            resources_by_id.append((str(contents["$id"]), resource))
    # A Registry built without a retrieve function fails on any URI it does not hold; passing it
    # also keeps jsonschema from its default of fetching unknown https references.
    registry: referencing.Registry[Any] = referencing.Registry()
    return registry.with_resources(resources_by_id).crawl()


@cache
def _validator(name: str, version: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # noqa: PLC0415

    return Draft202012Validator(dict(_schema(name, version)), registry=_registry())


# --- findings ---------------------------------------------------------------------------------


def _json_path(elements: Iterable[_PathElement]) -> str:
    path = "$"
    for element in elements:
        if isinstance(element, int):
            path += f"[{element}]"
        elif _IDENTIFIER.fullmatch(element):
            path += f".{element}"
        else:
            escaped = element.replace("\\", "\\\\").replace("'", "\\'")
            path += f"['{escaped}']"
    return path


def _path_key(elements: Iterable[_PathElement]) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, e, "") if isinstance(e, int) else (1, 0, e) for e in elements)


def _short(value: object, limit: int = 48) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_JSON_TYPES: Final = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def _json_type(value: object) -> str:
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def _describe(error: ValidationError) -> str:
    keyword, expected, value = error.validator, error.validator_value, error.instance
    if keyword == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        return f"expected {wanted}, got {_json_type(value)}"
    if keyword == "const":
        return f"must be {_short(expected)}, got {_short(value)}"
    if keyword == "enum":
        return f"must be one of {', '.join(_short(v) for v in expected)}, got {_short(value)}"
    if keyword == "pattern":
        return f"{_short(value)} does not match the pattern {expected}"
    if keyword in ("minItems", "maxItems"):
        bound = "at least" if keyword == "minItems" else "at most"
        return f"has {len(value)} items, {bound} {expected} allowed"
    if keyword in ("minLength", "maxLength"):
        bound = "at least" if keyword == "minLength" else "at most"
        return f"is {len(value)} characters long, {bound} {expected} allowed"
    if keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        relation = {
            "minimum": ">=",
            "exclusiveMinimum": ">",
            "maximum": "<=",
            "exclusiveMaximum": "<",
        }[keyword]
        return f"{_short(value)} is out of range (must be {relation} {expected})"
    message = " ".join(str(error.message).split())
    return message if len(message) <= 160 else message[:159] + "…"


def _missing_properties(error: ValidationError) -> list[str]:
    instance = error.instance if isinstance(error.instance, dict) else {}
    return [p for p in error.validator_value if isinstance(p, str) and p not in instance]


def _required_property(error: ValidationError) -> str | None:
    # jsonschema reports one error per missing property; the message names which one.
    for prop in _missing_properties(error):
        if error.message == f"{prop!r} is a required property":
            return prop
    return None


def _unexpected_properties(error: ValidationError) -> list[str]:
    if not isinstance(error.instance, dict):
        return []
    declared = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
    patterns = error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
    return sorted(
        key
        for key in error.instance
        if key not in declared and not any(re.search(p, key) for p in patterns)
    )


_Located = tuple[tuple[_PathElement, ...], SchemaFinding]


def _at(elements: Iterable[_PathElement], message: str, keyword: str) -> _Located:
    path = tuple(elements)
    return path, SchemaFinding(_json_path(path), message, keyword)


def _alternatives(error: ValidationError) -> list[Any] | None:
    """The allowed values when every branch of an anyOf/oneOf is a ``const`` or ``enum``."""
    branches = error.validator_value
    values: list[Any] = []
    for branch in branches if isinstance(branches, list) else []:
        if isinstance(branch, dict) and "const" in branch:
            values.append(branch["const"])
        elif isinstance(branch, dict) and isinstance(branch.get("enum"), list):
            values += branch["enum"]
        else:
            return None
    return values


def _branch_error(error: ValidationError) -> ValidationError:
    """The error of the branch that got furthest: deepest path, then first branch, keyword."""
    return min(
        error.context,
        key=lambda e: (
            -len(e.absolute_path),
            list(e.relative_schema_path)[:1],
            str(e.validator),
            e.message,
        ),
    )


def _located(error: ValidationError) -> list[_Located]:
    path = tuple(error.absolute_path)
    if error.context:
        values = _alternatives(error)
        if values is not None:
            allowed = ", ".join(_short(v) for v in values)
            return [_at(path, f"must be one of {allowed}, got {_short(error.instance)}", "anyOf")]
        return _located(_branch_error(error))
    if error.validator == "required":
        prop = _required_property(error)
        if prop is not None:
            return [_at((*path, prop), "required property is missing", "required")]
    if error.validator == "additionalProperties" and error.validator_value is False:
        extras = _unexpected_properties(error)
        if extras:
            return [
                _at((*path, key), "property is not allowed here", "additionalProperties")
                for key in extras
            ]
    return [_at(path, _describe(error), str(error.validator))]


def _ordered(located: Iterable[_Located]) -> list[SchemaFinding]:
    """Findings without duplicates: the most relevant first, the rest in path order.

    The most relevant is the shallowest (the more of the document it spoils), ties broken by
    path, keyword and message, so the choice never depends on dict or iteration order.
    """
    unique = {finding: path for path, finding in located}
    if not unique:
        return []

    def in_order(item: tuple[SchemaFinding, tuple[_PathElement, ...]]) -> tuple[Any, ...]:
        finding, path = item
        return (_path_key(path), finding.keyword, finding.message)

    ranked = sorted(unique.items(), key=in_order)
    primary = min(ranked, key=lambda item: (len(item[1]), *in_order(item)))
    return [primary[0]] + [finding for finding, _ in ranked if finding != primary[0]]


def _schema_located(obj: object, name: str, version: str) -> list[_Located]:
    import referencing.exceptions  # noqa: PLC0415 - see _registry

    try:
        errors = list(_validator(name, version).iter_errors(obj))
    except referencing.exceptions.Unresolvable as exc:
        raise GezkError(
            f"gezk {version} schema {name} has a reference that does not resolve locally: {exc}",
            reason="unresolvable-ref",
            subject=name,
        ) from exc
    return [item for error in errors for item in _located(error)]


def _with_rules(located: list[_Located], rules: Iterable[_Located]) -> list[_Located]:
    """Schema findings plus rule findings at paths the schema did not already flag."""
    flagged = {path for path, _ in located}
    return [*located, *(item for item in rules if item[0] not in flagged)]


def schema_errors(obj: object, name: str, version: str) -> list[SchemaFinding]:
    """Every way ``obj`` breaks a bundled schema, the most relevant first; empty when valid."""
    version = _checked_version(version)
    _schema(name, version)  # unknown names fail here, with their own reason
    return _ordered(_schema_located(obj, name.removesuffix(_SUFFIX), version))


# --- manifest rules beyond the schema (spec section 4) ----------------------------------------


def _manifest_rules(manifest: Mapping[str, Any], version: str) -> Iterator[_Located]:
    requires = manifest.get("requires")
    if isinstance(requires, dict):
        features = requires.get("features")
        if isinstance(features, list) and features:
            yield _at(
                ("requires", "features"),
                f"must be empty or absent in gezk {version}, got {_short(features)}",
                "gezk:features",
            )

    license_ = manifest.get("license")
    files = manifest.get("files")
    notice = license_.get("noticePath") if isinstance(license_, dict) else None
    if isinstance(notice, str) and isinstance(files, list):
        listed = {f.get("path") for f in files if isinstance(f, dict)}
        if notice not in listed:
            yield _at(
                ("license", "noticePath"),
                f"names {_short(notice)}, which files does not list",
                "gezk:notice-listed",
            )

    isv = manifest.get("indexSchemaVersion")
    expected = generation(version).index_schema_version
    if isinstance(isv, int | float) and not isinstance(isv, bool) and isv != expected:
        yield _at(
            ("indexSchemaVersion",),
            f"formatVersion {version} pairs with indexSchemaVersion {expected}, not {_short(isv)}",
            "gezk:version-pairing",
        )

    version_value = manifest.get("version")
    if isinstance(version_value, str) and not is_version(version_value):
        yield _at(
            ("version",), _identifier_problem(validate_version, version_value), "gezk:version"
        )

    queries = manifest.get("smokeQueries")
    for q_index, query in enumerate(queries if isinstance(queries, list) else []):
        expected_ids = query.get("expectedDocumentIds") if isinstance(query, dict) else None
        for d_index, document_id in enumerate(
            expected_ids if isinstance(expected_ids, list) else []
        ):
            if isinstance(document_id, str) and not is_document_id(document_id):
                yield _at(
                    ("smokeQueries", q_index, "expectedDocumentIds", d_index),
                    _identifier_problem(validate_document_id, document_id),
                    "gezk:document-id",
                )

    topics = manifest.get("topics")
    if version != "0.5" and isinstance(topics, list):
        yield from _topic_rules(topics)


def _identifier_problem(validate: Callable[[object], str], value: object) -> str:
    try:
        validate(value)
    except InvalidIdentifier as exc:
        return exc.message
    return "is not valid"  # pragma: no cover - only called for values known to be invalid


def _document_rules(document: object) -> Iterator[_Located]:
    """Section 2 and 5.2.2 rules on a compiler input document that its schema cannot express."""
    if not isinstance(document, dict):
        return
    document_id = document.get("id")
    if isinstance(document_id, str) and not is_document_id(document_id):
        yield _at(
            ("id",), _identifier_problem(validate_document_id, document_id), "gezk:document-id"
        )
    locations = document.get("locations")
    seen: dict[str, int] = {}
    for index, location in enumerate(locations if isinstance(locations, list) else []):
        location_id = location.get("id") if isinstance(location, dict) else None
        if not isinstance(location_id, str):
            continue
        if not is_document_id(location_id):
            yield _at(
                ("locations", index, "id"),
                _identifier_problem(validate_location_id, location_id),
                "gezk:location-id",
            )
        elif location_id in seen:
            yield _at(
                ("locations", index, "id"),
                f"repeats location id {_short(location_id)} of $.locations[{seen[location_id]}]",
                "gezk:unique-location-id",
            )
        else:
            seen[location_id] = index


def _topic_rules(topics: list[Any]) -> Iterator[_Located]:
    first_index: dict[str, int] = {}
    parent_of: dict[str, str | None] = {}
    yield from _unique_topic_ids(topics, first_index, parent_of)
    yield from _topic_forest(first_index, parent_of)


def _unique_topic_ids(
    topics: list[Any], first_index: dict[str, int], parent_of: dict[str, str | None]
) -> Iterator[_Located]:
    """Refuse repeated topic ids; fill ``first_index`` and ``parent_of`` with the others."""
    for index, topic in enumerate(topics):
        if not isinstance(topic, dict) or not isinstance(topic.get("id"), str):
            continue
        topic_id = topic["id"]
        if topic_id in first_index:
            yield _at(
                ("topics", index, "id"),
                f"duplicate topic id {_short(topic_id)}"
                f" (first at $.topics[{first_index[topic_id]}])",
                "gezk:unique-topic-id",
            )
            continue
        first_index[topic_id] = index
        parent = topic.get("parentId")
        parent_of[topic_id] = parent if isinstance(parent, str) else None


def _topic_forest(
    first_index: dict[str, int], parent_of: dict[str, str | None]
) -> Iterator[_Located]:
    """Parents are declared topics, form no cycle, and nest at most 16 deep."""
    for topic_id, parent in parent_of.items():
        if parent is not None and parent not in parent_of:
            yield _at(
                ("topics", first_index[topic_id], "parentId"),
                f"names {_short(parent)}, which is not a declared topic",
                "gezk:topic-parent",
            )

    # One walk per unresolved topic towards its root: O(n) overall, even for hostile input.
    depth: dict[str, int] = {}
    broken: set[str] = set()  # on or below a parent cycle: no depth exists
    for start_id in parent_of:
        path: list[str] = []
        position: dict[str, int] = {}
        node: str | None = start_id
        base: int | None = 0
        while node is not None and node in parent_of:
            if node in depth:
                base = depth[node]
                break
            if node in broken:
                base = None
                break
            if node in position:
                cycle = path[position[node] :]
                members = sorted(cycle, key=first_index.__getitem__)
                yield _at(
                    ("topics", first_index[members[0]], "parentId"),
                    f"topics {', '.join(members)} form a parent cycle; topics must be a forest",
                    "gezk:topic-forest",
                )
                base = None
                break
            position[node] = len(path)
            path.append(node)
            node = parent_of[node]
        for member in reversed(path):
            if base is None:
                broken.add(member)
                continue
            base += 1
            depth[member] = base
            if base == _MAX_TOPIC_DEPTH + 1:
                yield _at(
                    ("topics", first_index[member], "parentId"),
                    f"topic {_short(member)} is {base} levels deep; "
                    f"at most {_MAX_TOPIC_DEPTH} are allowed",
                    "gezk:topic-depth",
                )


# --- public validators ------------------------------------------------------------------------


def _format_version(obj: object, what: str) -> tuple[dict[str, Any], str]:
    """``obj`` as a JSON object and the supported ``formatVersion`` it names."""
    if not isinstance(obj, dict):
        raise SchemaViolation(
            f"a {what} must be a JSON object, got {_json_type(obj)}",
            reason="schema-violation",
            subject="$",
        )
    if "formatVersion" not in obj:
        raise UnsupportedVersion(
            f"the {what} has no formatVersion", reason="unsupported-format", subject="$"
        )
    return obj, generation(obj["formatVersion"]).format_version


def _manifest_findings(manifest: dict[str, Any], version: str) -> list[SchemaFinding]:
    located = _schema_located(manifest, "catalog-manifest", version)
    return _ordered(_with_rules(located, _manifest_rules(manifest, version)))


def manifest_errors(obj: object) -> list[SchemaFinding]:
    """Every problem of a manifest, most relevant first; the schema is chosen by formatVersion.

    Raises :class:`UnsupportedVersion` (reason ``unsupported-format``) when ``formatVersion``
    is missing or not one this implementation reads, since then no schema applies.
    """
    return _manifest_findings(*_format_version(obj, "manifest"))


def _raise_first(findings: list[SchemaFinding], what: str, version: str) -> None:
    if not findings:
        return
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    raise SchemaViolation(
        f"{what} does not satisfy gezk {version} at {first.path}: {first.message}{more}",
        reason="schema-violation",
        subject=first.path,
    )


def validate_manifest(obj: object) -> None:
    """Check a parsed ``manifest.json`` against its generation's schema and section 4.

    Raises :class:`UnsupportedVersion` for a missing or unsupported ``formatVersion``
    (``unsupported-format``) and for a mis-paired ``indexSchemaVersion`` (``version-mismatch``),
    and :class:`SchemaViolation` naming the JSON path of the most relevant other problem.
    """
    manifest, version = _format_version(obj, "manifest")
    findings = _manifest_findings(manifest, version)
    pairing = [f for f in findings if f.keyword == "gezk:version-pairing"]
    others = [f for f in findings if f.keyword != "gezk:version-pairing"]
    _raise_first(others, "manifest", version)
    if pairing:
        raise UnsupportedVersion(
            f"manifest {pairing[0].message}", reason="version-mismatch", subject=pairing[0].path
        )


def document_errors(obj: object, format_version: str = "0.7") -> list[SchemaFinding]:
    """Every way a normalized compiler input document breaks its schema or the id rules."""
    version = _checked_version(format_version)
    located = _schema_located(obj, "catalog-document", version)
    return _ordered(_with_rules(located, _document_rules(obj)))


def validate_document(obj: object, format_version: str = "0.7") -> None:
    """Check one normalized compiler input document (``catalog-document`` schema)."""
    version = _checked_version(format_version)
    _raise_first(document_errors(obj, version), "document", version)


def validate_registry(obj: object) -> None:
    """Check a publisher registry (``kind: gezk-registry``) against its formatVersion's schema."""
    _, version = _format_version(obj, "registry")
    _raise_first(schema_errors(obj, "registry-index", version), "registry", version)


def validate_source_notices(obj: object, format_version: str = "0.7") -> None:
    """Check ``LICENSES/source-notices.json``."""
    version = _checked_version(format_version)
    _raise_first(schema_errors(obj, "source-notices", version), "source notices", version)
