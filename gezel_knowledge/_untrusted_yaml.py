"""YAML from authors and repositories, bounded (the YAML half of :mod:`._untrusted`'s policy).

YAML is read with a safe loader that also tolerates tags it does not know: configuration files
such as ``mkdocs.yml`` routinely carry ``!!python/name:...`` and ``!ENV`` tags, which are read as
their plain value and never executed or resolved. Before anything is constructed:

- the event stream is walked once: collections nest at most :data:`MAX_NESTING` deep
  (``too-deep``; PyYAML composes recursively, so a deep file would otherwise end in a
  ``RecursionError``) and a plain scalar read as a number has at most
  :data:`MAX_NUMBER_DIGITS` characters (``number-too-long``);
- the composed node graph is measured with its aliases expanded: an alias that refers to a node
  containing it (``exclude: &x [*x]``) and a graph that expands beyond
  :data:`MAX_YAML_VALUES` values or nests deeper than :data:`MAX_NESTING` through its aliases
  ("billion laughs": ten aliases of ten aliases of ...) are refused (``yaml-aliases``,
  ``too-deep``) in time proportional to the file, not to its expansion.

Strings must be valid Unicode (a double-quoted ``"\\ud800"`` is ``invalid-unicode``). Errors are
:class:`~gezel_knowledge._untrusted.StructuredInputError` with the 1-based line.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

import yaml

from gezel_knowledge._untrusted import (
    MAX_NESTING,
    MAX_NUMBER_DIGITS,
    StructuredInputError,
    check_nesting,
    check_text,
)

__all__ = ["MAX_YAML_VALUES", "TolerantLoader", "compose_yaml", "jsonable", "load_yaml"]

MAX_YAML_VALUES: Final = 500_000
"""Scalars, lists and mappings a YAML document may hold once its aliases are expanded."""

_NUMBER_TAGS: Final = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})


class TolerantLoader(yaml.SafeLoader):
    """A safe loader that reads unknown tags as plain scalars, lists or mappings."""


# libyaml's parser when PyYAML was built with it (its wheels are): about twenty times faster
# than the pure-Python one on a large file, with the same safe constructors and events.
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FastTolerantLoader(_Base):  # type: ignore[valid-type,misc]
    """:class:`TolerantLoader` over libyaml's parser, where there is one."""


def _plain(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> Any:
    del tag_suffix
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return None  # pragma: no cover - PyYAML has no other node kinds


TolerantLoader.add_multi_constructor("", _plain)
_FastTolerantLoader.add_multi_constructor("", _plain)


def _line(mark: Any) -> int | None:
    return None if mark is None else int(mark.line) + 1


def _syntax_error(exc: yaml.YAMLError, what: str) -> StructuredInputError:
    mark = getattr(exc, "problem_mark", None)
    problem = str(getattr(exc, "problem", None) or exc)
    if "depth" in problem:
        # libyaml refuses nesting beyond its own limit while reading ahead, before the event
        # walk sees the level past ours: the same refusal.
        return StructuredInputError(
            f"{what} nests deeper than {MAX_NESTING} levels", reason="too-deep", line=_line(mark)
        )
    return StructuredInputError(
        f"{what} is not valid YAML: {problem}",
        reason="invalid-yaml",
        line=_line(mark),
        problem=problem,
    )


def _resolve(loader: TolerantLoader, value: str) -> str:
    """The tag a plain scalar resolves to (``tag:yaml.org,2002:int`` for ``12``)."""
    return str(loader.resolve(yaml.ScalarNode, value, (True, False)))  # type: ignore[no-untyped-call]


_EXPLAIN_BYTES: Final = 256 * 1024


def _explained(exc: yaml.YAMLError, text: str, what: str) -> StructuredInputError:
    """The refusal of a YAML text libyaml could not read, in PyYAML's words where the text is
    small enough to read again with it (its messages say what it expected and what it found;
    libyaml's only what it did not find)."""
    if len(text) <= _EXPLAIN_BYTES:
        try:
            # With the nesting bound: PyYAML's scanner does work in proportion to the open
            # levels for every token, so an unbounded deep text would cost its square.
            _walk_events(text, what, TolerantLoader)
        except yaml.YAMLError as pure:
            return _syntax_error(pure, what)
        except StructuredInputError as refused:
            return refused
    return _syntax_error(exc, what)


def _check_events(text: str, what: str) -> None:
    """Nesting and number length, from the event stream (iterative, before composing)."""
    _walk_events(text, what, _FastTolerantLoader)


def _walk_events(text: str, what: str, loader: type[yaml.SafeLoader]) -> None:
    depth = 0
    resolver = TolerantLoader("")
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise StructuredInputError(
                    f"{what} nests deeper than {MAX_NESTING} levels",
                    reason="too-deep",
                    line=_line(event.start_mark),
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif (
            isinstance(event, yaml.ScalarEvent)
            and event.implicit[0]
            and len(event.value) > MAX_NUMBER_DIGITS
            and _resolve(resolver, event.value) in _NUMBER_TAGS
        ):
            raise StructuredInputError(
                f"{what} holds a number longer than {MAX_NUMBER_DIGITS:,} digits",
                reason="number-too-long",
                line=_line(event.start_mark),
            )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_graph(root: yaml.Node, what: str) -> None:
    """Refuse self-referring aliases and a graph too large or deep once aliases are expanded.

    One iterative depth-first walk with memoised sizes: each node is measured once however many
    aliases point at it, so measuring costs what the file costs, not what it expands to.
    """
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    entered: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        children = _children(node)
        if leaving:
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            if size[key] > MAX_YAML_VALUES:
                raise StructuredInputError(
                    f"{what} expands its aliases to more than {MAX_YAML_VALUES:,} values",
                    reason="yaml-aliases",
                    line=_line(node.start_mark),
                )
            if depth[key] > MAX_NESTING + 1:
                raise StructuredInputError(
                    f"{what} nests deeper than {MAX_NESTING} levels through its aliases",
                    reason="too-deep",
                    line=_line(node.start_mark),
                )
            continue
        if key in size:
            continue
        if key in entered:
            raise StructuredInputError(
                f"{what} has an alias that refers to a value containing it",
                reason="yaml-aliases",
                line=_line(node.start_mark),
            )
        entered.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in size)


def compose_yaml(text: str, what: str) -> yaml.Node | None:
    """The checked node graph of a one-document YAML text (``None`` when it is empty)."""
    check_text(text, what)
    try:
        _check_events(text, what)
        loader = _FastTolerantLoader(text)
        try:
            root: yaml.Node | None = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _explained(exc, text, what) from None
    if root is not None:
        _check_graph(root, what)
    return root


def jsonable(value: Any) -> Any:
    """A plain JSON-compatible copy: dates become ISO 8601 strings, bytes text."""
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def load_yaml(text: str, what: str) -> Any:
    """The value of a one-document YAML text under the policy, as plain JSON-compatible data
    (the aliases' values copied, which the size bound keeps small)."""
    root = compose_yaml(text, what)
    if root is None:
        return None
    loader = _FastTolerantLoader("")
    try:
        try:
            value = loader.construct_document(root)
        except yaml.YAMLError as exc:
            raise _syntax_error(exc, what) from None
        except ValueError as exc:
            # A value the constructor cannot convert (a timestamp out of range, bad base64).
            raise StructuredInputError(
                f"{what} is not valid YAML: {exc}",
                reason="invalid-yaml",
                line=_line(root.start_mark),
            ) from None
    finally:
        loader.dispose()
    return check_nesting(jsonable(value), what)
