"""Code symbols and imports for the structural pass, without a language model.

Python is parsed with :mod:`ast`: functions, async functions, classes and methods with their
qualified names and full line ranges, and the modules it imports. Other languages use the light
line-anchored regular expressions in ``_RULES`` below: they find definitions that start a line
(functions, methods with a modifier, classes, structs, interfaces, traits, enums, type aliases)
and import/include/use/require statements. A regex symbol's range is its first line only, and
unusual formatting can hide a definition; that is the documented cost of not parsing.

Source files are untrusted input, so every rule runs in time linear in the file: no part of a
rule can match one stretch of text in two ways (a rule that could, such as "words, blanks,
words" before a method name, takes its words atomically), and a part that may span lines (a
parameter list, an import clause, a Rust use tree) stops at the first bracket it cannot pair,
never running past the next candidate. ``tests/indexes/test_hostile_index.py`` feeds each
language a megabyte of the inputs that made the earlier rules quadratic.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Symbol", "extract_symbols"]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition in a code file: name, qualified name, kind and 1-based line range."""

    name: str
    qualname: str
    kind: str
    line_start: int
    line_end: int


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    kind: str  # a fixed kind, or "" when group "kind" of the match names it


def _r(pattern: str, kind: str = "") -> _Rule:
    return _Rule(re.compile(pattern, re.MULTILINE), kind)


_ID = r"[A-Za-z_$][\w$]*"
# A parenthesised list, one level of parentheses inside, that may span lines: it stops at the
# first parenthesis it cannot pair, so a scan never runs past the next candidate definition.
_PARAMS = r"\((?:[^()]|\([^()]*\))*\)"
_C_PARAMS = r"\((?:[^;{}()]|\([^;{}()]*\))*\)"
# A braced list that may span lines (an import or export clause, a Rust use tree): it stops at
# the next brace it cannot pair, for the same reason.
_BRACED = r"\{[^{}'\";]*\}"
_JS = (
    _r(
        rf"^[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*"
        rf"(?P<name>{_ID})",
        "function",
    ),
    _r(
        rf"^[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:abstract[ \t]+)?class[ \t]+(?P<name>{_ID})",
        "class",
    ),
    _r(
        rf"^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+(?P<name>{_ID})[ \t]*(?::[^=\n]+)?=[ \t]*"
        rf"(?:async[ \t]+)?(?:function\b|{_PARAMS}[ \t]*(?::[^=\n]+)?=>|{_ID}[ \t]*=>)",
        "function",
    ),
    _r(rf"^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?interface[ \t]+(?P<name>{_ID})", "interface"),
    _r(rf"^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?type[ \t]+(?P<name>{_ID})[^=\n]*=", "type"),
    _r(rf"^[ \t]*(?:export[ \t]+)?(?:const[ \t]+)?enum[ \t]+(?P<name>{_ID})", "enum"),
    _r(
        r"^[ \t]+(?:(?:public|private|protected|static|async|readonly|override|get|set)[ \t]+)*"
        rf"(?!(?:if|for|while|switch|catch|return|function|else)\b)(?P<name>{_ID})[ \t]*"
        r"\([^)\n]*\)[ \t]*(?::[^{\n]+)?\{",
        "method",
    ),
)
_JS_CLAUSE = rf"(?:[\w$]+|\*[ \t]+as[ \t]+[\w$]+|{_BRACED})"
_JS_IMPORTS = (
    re.compile(
        rf"""^[ \t]*import[ \t]+(?:(?:type[ \t]+)?{_JS_CLAUSE}(?:[ \t]*,\s*{_JS_CLAUSE})?"""
        r"""\s*from[ \t]+)?['"]([^'"\n]+)['"]""",
        re.M,
    ),
    re.compile(
        rf"""^[ \t]*export[ \t]+(?:type[ \t]+)?(?:\*(?:[ \t]+as[ \t]+[\w$]+)?|{_BRACED})"""
        r"""\s*from[ \t]+['"]([^'"\n]+)['"]""",
        re.M,
    ),
    re.compile(r"""\brequire\(\s*['"]([^'"\n]+)['"]\s*\)"""),
)
_GO = (
    _r(r"^func[ \t]+\([^)\n]*\)[ \t]*(?P<name>[A-Za-z_]\w*)", "method"),
    _r(r"^func[ \t]+(?P<name>[A-Za-z_]\w*)", "function"),
    _r(r"^type[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]+(?P<kind>struct|interface)\b"),
    _r(r"^type[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]+(?!struct\b|interface\b)", "type"),
)
_GO_IMPORTS = (
    re.compile(r'^import[ \t]+(?:[\w.]+[ \t]+)?"([^"]+)"', re.M),
    re.compile(r'^[ \t]+(?:[\w.]+[ \t]+)?"([^"]+)"[ \t]*$', re.M),  # inside import ( ... )
)
_RUST_VIS = r"(?:pub(?:\([^)\n]*\))?[ \t]+)?"
_RUST = (
    _r(
        rf"^[ \t]*{_RUST_VIS}(?:(?:const|async|unsafe)[ \t]+|extern[ \t]+\"[^\"\n]*\"[ \t]+)*fn"
        r"[ \t]+(?P<name>[A-Za-z_]\w*)",
        "function",
    ),
    _r(
        rf"^[ \t]*{_RUST_VIS}(?P<kind>struct|enum|trait|mod|union|type)[ \t]+"
        r"(?P<name>[A-Za-z_]\w*)"
    ),
    _r(
        r"^[ \t]*impl(?:<[^>\n]*>)?[ \t]+(?:(?:[\w:<>,]+[ \t]+)+?for[ \t]+)?(?P<name>[A-Za-z_]\w*)",
        "impl",
    ),
)
_RUST_IMPORTS = (
    re.compile(r"^[ \t]*(?:pub[ \t]+)?use[ \t]+((?:[^;{}\n]|\{(?:[^;{}]|\{[^;{}]*\})*\})+);", re.M),
    re.compile(r"^[ \t]*extern[ \t]+crate[ \t]+(\w+)", re.M),
)
_JVM_MODS = (
    r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|data|open|partial"
    r"|inline|value|override|virtual|async|synchronized|native|readonly)[ \t]+)"
)
_JVM = (
    _r(
        rf"^[ \t]*{_JVM_MODS}*(?P<kind>class|interface|enum|record|object|struct|trait)[ \t]+"
        r"(?P<name>[A-Za-z_]\w*)"
    ),
    # The modifiers are taken atomically and the type is words each followed by blanks: no
    # stretch of a line can be read two ways, so a long line of words costs its length once.
    _r(
        rf"^[ \t]*(?>{_JVM_MODS}+)(?:<[^>\n]*>[ \t]*)?(?:[\w<>\[\],.?]+[ \t]+)+"
        r"(?P<name>[A-Za-z_]\w*)[ \t]*\(",
        "method",
    ),
    _r(rf"^[ \t]*{_JVM_MODS}*fun[ \t]+(?:<[^>\n]*>[ \t]*)?(?:[\w.]+\.)?(?P<name>\w+)", "function"),
    _r(r"^[ \t]*(?:override[ \t]+)?def[ \t]+(?P<name>\w+)", "function"),
)
_JVM_IMPORTS = (
    re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.*]+)", re.M),
    re.compile(r"^[ \t]*using[ \t]+(?:static[ \t]+)?([\w.]+)[ \t]*;", re.M),
)
_C_KEYWORDS = r"(?!(?:if|for|while|switch|return|sizeof|else|do|case)\b)"
_C = (
    _r(
        r"^(?!#)[A-Za-z_][\w \t\*&:<>,~]*?[ \t\*&]"
        rf"{_C_KEYWORDS}(?P<name>[A-Za-z_~][\w:~]*)[ \t]*{_C_PARAMS}[ \t\n]*"
        r"(?:const[ \t\n]*)?(?:noexcept[ \t\n]*)?(?:override[ \t\n]*)?\{",
        "function",
    ),
    _r(
        r"^[ \t]*(?:typedef[ \t]+)?(?P<kind>struct|class|enum|union|namespace)[ \t]+"
        r"(?:class[ \t]+)?(?P<name>[A-Za-z_]\w*)[ \t\n]*[{:]"
    ),
    _r(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)", "macro"),
)
_C_IMPORTS = (re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.M),)
_RUBY = (
    _r(r"^[ \t]*def[ \t]+(?:self\.)?(?P<name>[\w?!=]+)", "function"),
    _r(r"^[ \t]*(?P<kind>class|module)[ \t]+(?P<name>[A-Z][\w:]*)"),
)
_RUBY_IMPORTS = (re.compile(r"""^[ \t]*require(?:_relative)?[ \t(]+['"]([^'"\n]+)['"]""", re.M),)
_PHP = (
    _r(
        r"^[ \t]*(?:(?:public|private|protected|static|abstract|final)[ \t]+)*function[ \t]+"
        r"(?P<name>\w+)",
        "function",
    ),
    _r(
        r"^[ \t]*(?:abstract[ \t]+|final[ \t]+)?(?P<kind>class|interface|trait|enum)[ \t]+"
        r"(?P<name>\w+)"
    ),
)
_PHP_IMPORTS = (
    re.compile(r"^[ \t]*use[ \t]+([\w\\]+)", re.M),
    re.compile(r"""\b(?:require|include)(?:_once)?[ \t(]+['"]([^'"\n]+)['"]"""),
)
_SWIFT = (
    _r(
        r"^[ \t]*(?:(?:public|private|internal|open|static|override|mutating|final)[ \t]+)*"
        r"func[ \t]+(?P<name>\w+)",
        "function",
    ),
    _r(
        r"^[ \t]*(?:(?:public|private|internal|open|final)[ \t]+)*"
        r"(?P<kind>class|struct|enum|protocol|extension|actor)[ \t]+(?P<name>\w+)"
    ),
)
_SWIFT_IMPORTS = (re.compile(r"^[ \t]*import[ \t]+(\w+)", re.M),)
_SHELL = (
    _r(r"^[ \t]*(?:function[ \t]+)?(?P<name>[A-Za-z_][\w-]*)[ \t]*\(\)[ \t]*\{?", "function"),
)
_SHELL_IMPORTS = (re.compile(r"^[ \t]*(?:source|\.)[ \t]+(\S+)", re.M),)
_LUA = (_r(r"^[ \t]*(?:local[ \t]+)?function[ \t]+(?P<name>[\w.:]+)", "function"),)
_LUA_IMPORTS = (re.compile(r"""\brequire[ \t(]*['"]([^'"\n]+)['"]"""),)

_RULES: dict[str, tuple[tuple[_Rule, ...], tuple[re.Pattern[str], ...]]] = {
    "javascript": (_JS, _JS_IMPORTS),
    "typescript": (_JS, _JS_IMPORTS),
    "vue": (_JS, _JS_IMPORTS),
    "svelte": (_JS, _JS_IMPORTS),
    "go": (_GO, _GO_IMPORTS),
    "rust": (_RUST, _RUST_IMPORTS),
    "java": (_JVM, _JVM_IMPORTS),
    "kotlin": (_JVM, _JVM_IMPORTS),
    "scala": (_JVM, _JVM_IMPORTS),
    "csharp": (_JVM, _JVM_IMPORTS),
    "c": (_C, _C_IMPORTS),
    "cpp": (_C, _C_IMPORTS),
    "ruby": (_RUBY, _RUBY_IMPORTS),
    "php": (_PHP, _PHP_IMPORTS),
    "swift": (_SWIFT, _SWIFT_IMPORTS),
    "shell": (_SHELL, _SHELL_IMPORTS),
    "lua": (_LUA, _LUA_IMPORTS),
}


def _python(text: str) -> tuple[list[Symbol], list[str]] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # Not Python, or Python the parser refuses to hold (``a+a+...`` 100,000 long nests
        # beyond the interpreter's recursion limit): the line rules read it instead.
        return None
    symbols: list[Symbol] = []
    imports: list[str] = []

    def visit(body: Sequence[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qual = prefix + node.name
                if isinstance(node, ast.ClassDef):
                    kind = "class"
                else:
                    kind = "method" if in_class else "function"
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                end = node.end_lineno or node.lineno
                symbols.append(Symbol(node.name, qual, kind, start, end))
                visit(node.body, qual + ".", isinstance(node, ast.ClassDef))
            elif isinstance(node, ast.Import):
                imports.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imports.append("." * node.level + (node.module or ""))
            else:
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        visit([s for s in inner if isinstance(s, ast.stmt)], prefix, in_class)
                for handler in getattr(node, "handlers", None) or ():
                    if isinstance(handler, ast.ExceptHandler):
                        visit(handler.body, prefix, in_class)

    visit(tree.body, "", False)
    return symbols, imports


_PY_FALLBACK = (
    _r(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(?P<name>[A-Za-z_]\w*)", "function"),
    _r(r"^[ \t]*class[ \t]+(?P<name>[A-Za-z_]\w*)", "class"),
)
_PY_FALLBACK_IMPORTS = (
    re.compile(r"^[ \t]*import[ \t]+([\w.]+)", re.M),
    re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import\b", re.M),
)


def _by_rules(
    text: str, rules: Sequence[_Rule], import_patterns: Sequence[re.Pattern[str]]
) -> tuple[list[Symbol], list[str]]:
    line_starts = [0]
    line_starts.extend(m.end() for m in re.finditer("\n", text))
    found: dict[tuple[int, str], Symbol] = {}
    for rule in rules:
        for match in rule.regex.finditer(text):
            name = match.group("name")
            kind = rule.kind or match.group("kind")
            line = max(1, bisect.bisect_right(line_starts, match.start("name")))
            found.setdefault((line, name), Symbol(name, name, kind, line, line))
    imports: list[str] = []
    for pattern in import_patterns:
        imports.extend(m.group(1).strip() for m in pattern.finditer(text))
    symbols = sorted(found.values(), key=lambda s: (s.line_start, s.name))
    return symbols, imports


def extract_symbols(language: str | None, text: str) -> tuple[list[Symbol], list[str]]:
    """Symbols and imported module names of ``text`` written in ``language``.

    Unknown languages give nothing; Python that does not parse falls back to regexes.
    """
    if language == "python":
        parsed = _python(text)
        if parsed is not None:
            symbols, imports = parsed
        else:
            symbols, imports = _by_rules(text, _PY_FALLBACK, _PY_FALLBACK_IMPORTS)
    elif language in _RULES:
        rules, import_patterns = _RULES[language]
        symbols, imports = _by_rules(text, rules, import_patterns)
    else:
        return [], []
    unique_imports = list(dict.fromkeys(i for i in imports if i))
    return symbols, unique_imports
