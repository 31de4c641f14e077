"""The shared bounded readers (issue 26): one size, depth, number and Unicode policy for files,
JSON, JSON Lines, TOML and YAML, refused with typed reasons and never a RecursionError,
MemoryError or blocked read; property tests over each parser boundary."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gezel_knowledge._files import read_key_bytes
from gezel_knowledge._untrusted import (
    MAX_NESTING,
    MAX_NUMBER_DIGITS,
    StructuredInputError,
    check_text,
    decode_utf8,
    iter_lines,
    load_json,
    load_toml,
    read_bounded,
)
from gezel_knowledge._untrusted_yaml import MAX_YAML_VALUES, load_yaml
from gezel_knowledge.errors import InvalidInput


def _reason(call: object) -> str:
    assert callable(call)
    with pytest.raises(InvalidInput) as err:
        call()
    return err.value.reason


# -- files -------------------------------------------------------------------------------------


def test_a_fifo_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "key.pem"
    os.mkfifo(fifo)
    done: list[str] = []
    # No writer ever opens the FIFO: a blocking open or read would hang the thread.
    worker = threading.Thread(
        target=lambda: done.append(_reason(lambda: read_bounded(fifo, "key", limit=10)))
    )
    worker.start()
    worker.join(timeout=10)
    assert done == ["not-a-file"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_not_read_to_memory_error(device: str) -> None:
    assert _reason(lambda: read_bounded(device, "trust key", limit=1 << 30)) == "not-a-file"


def test_a_folder_cannot_be_read(tmp_path: Path) -> None:
    assert _reason(lambda: read_bounded(tmp_path, "key", limit=10)) == "unreadable"


def test_a_sparse_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    huge = tmp_path / "huge.md"
    with huge.open("wb") as fh:
        fh.truncate(1 << 30)  # a 1 GiB hole: refused by fstat, never read
    with pytest.raises(InvalidInput) as err:
        read_bounded(huge, "page", limit=16 << 20)
    assert err.value.reason == "input-too-large"
    assert str(huge) in str(err.value)


def test_a_missing_file_is_unreadable_and_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as err:
        read_bounded(tmp_path / "nope", "signing key", limit=10)
    assert (err.value.reason, err.value.subject) == ("unreadable", str(tmp_path / "nope"))


def test_a_world_writable_key_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_bytes(b"-----BEGIN PUBLIC KEY-----\n")
    os.chmod(key, 0o666)
    assert _reason(lambda: read_key_bytes(key, "trust key")) == "insecure-permissions"
    os.chmod(key, 0o644)
    assert read_key_bytes(key, "trust key").startswith(b"-----BEGIN")


def test_a_key_over_64_kib_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_bytes(b"x" * (64 * 1024 + 1))
    assert _reason(lambda: read_key_bytes(key, "signing key")) == "input-too-large"


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole() -> None:
    stream = io.BytesIO(b"short\n" + b"x" * 1000 + b"\nafter\n")
    lines = iter_lines(stream, "docs.jsonl", max_line_bytes=100)
    assert next(lines) == (1, 0, b"short")
    with pytest.raises(StructuredInputError) as err:
        next(lines)
    assert (err.value.reason, err.value.line) == ("input-too-large", 2)
    assert stream.tell() < 200


# -- text --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["\ud800", "ok \udcff", "x\udfff"])
def test_lone_surrogates_are_refused(text: str) -> None:
    assert _reason(lambda: check_text(text, "the query")) == "invalid-unicode"


def test_bytes_that_are_not_utf8_name_their_line() -> None:
    with pytest.raises(StructuredInputError) as err:
        decode_utf8(b"one\ntwo \xff\n", "README.md")
    assert (err.value.reason, err.value.line) == ("invalid-encoding", 2)


@given(st.text())
@settings(deadline=None)
def test_valid_text_passes_unchanged(text: str) -> None:
    # Hypothesis's text() can hold surrogates; the check refuses exactly those strings.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert _reason(lambda: check_text(text, "the query")) == "invalid-unicode"
    else:
        assert check_text(text, "the query") is text


# -- JSON --------------------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=20,
)


@given(depth=st.integers(min_value=1, max_value=5000), objects=st.booleans())
@settings(max_examples=50, deadline=None)
def test_json_nesting_is_refused_beyond_the_limit_and_only_there(depth: int, objects: bool) -> None:
    text = ('{"a":' * depth + "1" + "}" * depth) if objects else ("[" * depth + "]" * depth)
    if depth <= MAX_NESTING:
        load_json(text, "meta")
    else:
        assert _reason(lambda: load_json(text, "meta")) == "too-deep"


@given(digits=st.integers(min_value=1, max_value=9000))
@settings(max_examples=40, deadline=None)
def test_json_numbers_over_4300_digits_are_refused(digits: int) -> None:
    for text in ("9" * digits, "1." + "5" * digits, f'{{"ordinal": {"7" * digits}}}'):
        if len(text.split(":")[-1].strip(" }")) <= MAX_NUMBER_DIGITS:
            load_json(text, "a line")
        else:
            assert _reason(lambda t=text: load_json(t, "a line")) == "number-too-long"


@given(_JSON)
@settings(deadline=None)
def test_acceptable_json_round_trips(value: object) -> None:
    text = json.dumps(value)
    try:
        text.encode("utf-8")
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        assert _reason(lambda: load_json(text, "x")) == "invalid-unicode"
        return
    assert load_json(text, "x") == value


def test_a_json_string_escaping_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(StructuredInputError) as err:
        load_json('{"title": "\\ud800"}', "docs.jsonl", line=3)
    assert (err.value.reason, err.value.line) == ("invalid-unicode", 3)


# -- TOML --------------------------------------------------------------------------------------


@given(depth=st.integers(min_value=1, max_value=3000))
@settings(max_examples=30, deadline=None)
def test_toml_nesting_is_refused_beyond_the_limit(depth: int) -> None:
    text = "a = " + "[" * depth + "]" * depth
    if depth < MAX_NESTING:
        load_toml(text, "front matter")
    elif depth > MAX_NESTING:
        assert _reason(lambda: load_toml(text, "front matter")) == "too-deep"


def test_toml_long_numbers_and_syntax_are_typed() -> None:
    assert _reason(lambda: load_toml("a = " + "1" * 5000, "x")) == "number-too-long"
    assert _reason(lambda: load_toml("a = 1." + "1" * 5000, "x")) == "number-too-long"
    assert _reason(lambda: load_toml("a = = 1", "x")) == "invalid-toml"


def test_deep_toml_tables_are_refused() -> None:
    header = "[" + ".".join(["k"] * 200) + "]\nv = 1\n"
    assert _reason(lambda: load_toml(header, "hugo.toml")) == "too-deep"


# -- YAML --------------------------------------------------------------------------------------


def _laughs(levels: int, fan: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * fan)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_yaml_billion_laughs_is_refused_in_time_proportional_to_the_file() -> None:
    with pytest.raises(StructuredInputError) as err:
        load_yaml(_laughs(10), "mkdocs.yml")
    assert err.value.reason == "yaml-aliases"
    assert err.value.line is not None


@pytest.mark.parametrize(
    "text",
    ["exclude: &x [*x]", "a: &m {b: *m}", "- &l [1, [2, *l]]"],
)
def test_yaml_recursive_aliases_are_refused(text: str) -> None:
    assert _reason(lambda: load_yaml(text, "catalog.yaml")) == "yaml-aliases"


def test_a_few_aliases_are_read_as_copies() -> None:
    value = load_yaml("base: &b {theme: dark}\nother: *b\n", "mkdocs.yml")
    assert value == {"base": {"theme": "dark"}, "other": {"theme": "dark"}}


@given(depth=st.integers(min_value=1, max_value=4000), flow=st.booleans())
@settings(max_examples=40, deadline=None)
def test_yaml_nesting_is_refused_beyond_the_limit(depth: int, flow: bool) -> None:
    if flow:
        text = "[" * depth + "]" * depth
    else:
        text = "".join("  " * i + "- \n" for i in range(depth)) + "  " * depth + "x\n"
    if depth <= MAX_NESTING - 1:
        load_yaml(text, "_toc.yml")
    elif depth > MAX_NESTING + 1:
        assert _reason(lambda: load_yaml(text, "_toc.yml")) == "too-deep"


def test_yaml_nesting_through_aliases_counts_too() -> None:
    lines = ["l0: &l0 [x]"]
    lines += [f"l{i}: &l{i} [[[[[[[[[[*l{i - 1}]]]]]]]]]]" for i in range(1, 10)]
    assert _reason(lambda: load_yaml("\n".join(lines), "nav")) == "too-deep"


def test_yaml_numbers_strings_and_tags() -> None:
    assert _reason(lambda: load_yaml("a: " + "1" * 5000, "x")) == "number-too-long"
    assert load_yaml("a: '" + "1" * 5000 + "'", "x") == {"a": "1" * 5000}
    # libyaml refuses the escape itself; the pure-Python reader yields it and the check refuses.
    assert _reason(lambda: load_yaml('a: "\\ud800"', "x")) in ("invalid-unicode", "invalid-yaml")
    # Unknown and Python tags stay inert data.
    assert load_yaml("a: !!python/object/apply:os.system [ls]", "x") == {"a": ["ls"]}
    assert load_yaml("a: !ENV HOME", "x") == {"a": "HOME"}


def test_the_expansion_limit_is_the_documented_one() -> None:
    assert MAX_YAML_VALUES == 500_000
    # Just under it: an alias fan that expands to fewer values is read.
    load_yaml(_laughs(4), "x")
