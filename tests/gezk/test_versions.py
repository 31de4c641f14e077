from __future__ import annotations

import pytest

from gezk.errors import UnsupportedVersion
from gezk.versions import SUPPORTED, WRITTEN, generation, generation_for_schema


@pytest.mark.parametrize(("fmt", "schema"), [("0.5", 2), ("0.6", 3), ("0.7", 4)])
def test_supported_pairs_resolve(fmt: str, schema: int) -> None:
    gen = generation(fmt, schema)
    assert (gen.format_version, gen.index_schema_version) == (fmt, schema)
    assert generation_for_schema(schema) == gen


def test_writer_generation_is_0_7_schema_4() -> None:
    assert (WRITTEN.format_version, WRITTEN.index_schema_version) == ("0.7", 4)
    assert [g.format_version for g in SUPPORTED] == ["0.5", "0.6", "0.7"]


@pytest.mark.parametrize(("fmt", "schema"), [("0.7", 3), ("0.6", 4), ("0.5", 4)])
def test_mispaired_versions_are_refused(fmt: str, schema: int) -> None:
    with pytest.raises(UnsupportedVersion) as info:
        generation(fmt, schema)
    assert info.value.reason == "version-mismatch"


@pytest.mark.parametrize("fmt", ["0.8", "1.0", "0.4", 0.7, None, ""])
def test_unknown_generations_are_refused(fmt: object) -> None:
    with pytest.raises(UnsupportedVersion) as info:
        generation(fmt)
    assert info.value.reason == "unsupported-format"
    assert "not supported" in str(info.value)


def test_unknown_schema_is_refused() -> None:
    with pytest.raises(UnsupportedVersion) as info:
        generation_for_schema(5)
    assert info.value.reason == "unsupported-format"
