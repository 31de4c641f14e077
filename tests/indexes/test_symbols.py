"""Symbols and imports from code, by ast (Python) and documented regexes (the rest)."""

from __future__ import annotations

import pytest

from gezel_knowledge.indexes._symbols import extract_symbols


def _names(language: str, text: str) -> list[tuple[str, str, int]]:
    symbols, _ = extract_symbols(language, text)
    return [(s.qualname, s.kind, s.line_start) for s in symbols]


def test_python_symbols_have_qualified_names_and_full_ranges() -> None:
    text = (
        "import os\nfrom .util import helper\n\n"
        "class Store:\n    @property\n    def size(self):\n        return 1\n\n"
        "async def fetch():\n    pass\n"
        "try:\n    import fast\nexcept ImportError:\n    def fallback():\n        pass\n"
    )
    symbols, imports = extract_symbols("python", text)
    ranges = {s.qualname: (s.kind, s.line_start, s.line_end) for s in symbols}
    assert ranges == {
        "Store": ("class", 4, 7),
        "Store.size": ("method", 5, 7),
        "fetch": ("function", 9, 10),
        "fallback": ("function", 14, 15),
    }
    assert imports == ["os", ".util", "fast"]


def test_python_that_does_not_parse_falls_back_to_regexes() -> None:
    assert _names("python", "def ok():\n    pass\ndef broken(:\n") == [
        ("ok", "function", 1),
        ("broken", "function", 3),
    ]


@pytest.mark.parametrize(
    ("language", "text", "expected", "imports"),
    [
        (
            "typescript",
            'import { a } from "./a";\n'
            "export async function loadUser(id: string) {\n}\n"
            "export const save = async (u) => u;\ninterface User {}\ntype Id = string;\n",
            [
                ("loadUser", "function", 2),
                ("save", "function", 4),
                ("User", "interface", 5),
                ("Id", "type", 6),
            ],
            ["./a"],
        ),
        (
            "javascript",
            "const fs = require('fs');\n"
            "class Cache {\n  get(key) {\n    if (key) {\n    }\n  }\n}\n",
            [("Cache", "class", 2), ("get", "method", 3)],
            ["fs"],
        ),
        (
            "go",
            'import (\n\t"fmt"\n\tio "io"\n)\nfunc (s *Server) Start() error {\n}\n'
            "func main() {}\ntype Server struct {}\n",
            [("Start", "method", 5), ("main", "function", 7), ("Server", "struct", 8)],
            ["fmt", "io"],
        ),
        (
            "rust",
            "use std::fs;\npub async fn read_all() {}\n"
            "pub struct Reader;\nimpl Read for Reader {}\n",
            [("read_all", "function", 2), ("Reader", "struct", 3), ("Reader", "impl", 4)],
            ["std::fs"],
        ),
        (
            "java",
            "import java.util.Map;\npublic class Registry {\n"
            "    public static Map<String, String> load(String p) {\n    }\n}\n",
            [("Registry", "class", 2), ("load", "method", 3)],
            ["java.util.Map"],
        ),
        (
            "c",
            '#include "util.h"\n'
            "static int add(int a,\n               int b)\n{\n  return a + b;\n}\n"
            "typedef struct point {\n  int x;\n} point;\n",
            [("add", "function", 2), ("point", "struct", 7)],
            ["util.h"],
        ),
        (
            "ruby",
            "require 'json'\nmodule Billing\n  def self.total(items)\n  end\nend\n",
            [("Billing", "module", 2), ("total", "function", 3)],
            ["json"],
        ),
    ],
)
def test_regex_languages(
    language: str, text: str, expected: list[tuple[str, str, int]], imports: list[str]
) -> None:
    symbols, found_imports = extract_symbols(language, text)
    assert [(s.name, s.kind, s.line_start) for s in symbols] == expected
    assert found_imports == imports


def test_unknown_language_gives_nothing() -> None:
    assert extract_symbols("cobol", "PROCEDURE DIVISION.") == ([], [])
