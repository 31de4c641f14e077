"""Bounded JSON parsing: deep nesting is a ValueError, never a RecursionError."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezk.untrusted_json import MAX_JSON_DEPTH, check_depth, loads

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(_JSON)
def test_shallow_documents_parse_as_json_does(value: Any) -> None:
    text = json.dumps(value)
    assert loads(text) == json.loads(text)


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ('{"a":', "}")])
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 5_000, 200_000])
def test_deep_nesting_is_a_value_error(opening: str, closing: str, depth: int) -> None:
    text = opening * depth + "1" + closing * depth
    with pytest.raises(ValueError, match="nested deeper"):
        loads(text)


def test_the_limit_itself_is_accepted() -> None:
    depth = MAX_JSON_DEPTH
    assert loads("[" * depth + "]" * depth) is not None
    check_depth([[1]], max_depth=2)
    with pytest.raises(ValueError, match="nested deeper"):
        check_depth([[[1]]], max_depth=2)


def test_options_reach_json_loads() -> None:
    with pytest.raises(ValueError, match="dup"):
        loads('{"a": 1, "a": 2}', object_pairs_hook=_no_duplicates)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("dup")
    return dict(pairs)
