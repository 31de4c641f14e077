"""The object and array literals of a JavaScript or TypeScript file, read without running it.

Docusaurus keeps its configuration and sidebars in JavaScript. Their useful parts are plain
literals (``{ docs: { path: '../docs' } }``, ``[{ type: 'doc', id: 'intro' }]``), so this reads
every literal the file holds as Python values: objects as dicts, arrays as lists, strings
(template literals without ``${...}`` too), numbers, ``true``/``false``/``null``, regular
expressions (as :class:`Regex`, their source), and
``require('x')``/``require.resolve('x')`` as the string they name, and so
``path.join(__dirname, 'x')``/``path.resolve(__dirname, 'x')`` (the parts joined). A name bound
to a literal earlier in the file (``const items = [...]``, ``const last = '11.x'``) stands for
it, in a value, a computed key (``[last]: {...}``), a spread (``[...items, 'x']``,
``{...base}``) or a template's ``${name}`` (a string or a number). A test of an environment
variable (``process.env.X ? a : b``, ``process.env.X || b``) is ``b``, what a build with none
set gives. Anything else that needs JavaScript to evaluate (a call, a template interpolating
more than a name) is :data:`UNKNOWN`.

The files are untrusted, so everything here is linear in the text: one pass of the tokenizer,
brackets matched once, each literal parsed once (a failed attempt is remembered), nesting
deeper than :data:`MAX_DEPTH` left unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_CALLS",
    "MAX_DEPTH",
    "SPREAD",
    "UNKNOWN",
    "Import",
    "Module",
    "Regex",
    "Returning",
    "Token",
    "imports",
    "literals",
    "object_with_most",
    "read_module",
    "tokenize",
    "walk_values",
]

MAX_DEPTH = 64
"""Literals nested deeper than this are unknown (bounds the reader's recursion)."""

MAX_SPREAD = 100_000
"""How many items spreads of bound literals may copy in one file, in all (a chain of
``[...a, ...a]`` doubles each time); spreads past it are unknown."""


MAX_CALLS = 1_000
"""How many calls of functions with parameters one file's reading may evaluate (each reads
the function's returned literal again, with its parameters bound); calls past it are
unknown."""


_MAX_CALLED_TOKENS = 5_000
"""A called function's returned literal longer than this is unknown (bounds the work of
:data:`MAX_CALLS` calls)."""


@dataclass(frozen=True, slots=True)
class Returning:
    """A function that returns a literal at once (``function group(key, g) { return {
    label: key, ...g } }``), as another file that imports it calls it: the returned
    literal's tokens, its parameters' names and the literals its own file binds."""

    tokens: tuple[Token, ...]
    params: tuple[str, ...]
    names: Mapping[str, Any]


class _Unknown:
    """A value that needs JavaScript to evaluate."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
"""The value of an expression that is not a plain literal."""

SPREAD = "..."
"""The key an object holds (valued :data:`UNKNOWN`) when it spreads what needs JavaScript to
evaluate (``{...make(), x: 1}``): what it copies is unknown."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``str`` (``value`` ``None`` for an interpolated template), ``tmpl`` (a
    template interpolating names only: its parts, ``(True, name)`` or ``(False, text)``),
    ``num``, ``ident``, ``punc`` or ``regex``."""

    kind: str
    value: Any


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?)n?")
_SPACE = re.compile(r"\s+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
# After these, a `/` starts a regular expression rather than a division.
# What a short TypeScript type may hold besides names: `A.B[]`, `Array<A | B>`.
_TYPE_PUNC = frozenset({".", "[", "]", "<", ">", "|", ","})
_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "=>", None}


def _unescape(raw: str) -> str:
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        if e == "u" and raw[i + 2 : i + 3] == "{":
            end = raw.find("}", i + 3, i + 12)
            code = raw[i + 3 : end] if end > 0 else ""
            if code and all(ch in "0123456789abcdefABCDEF" for ch in code):
                out.append(chr(min(int(code, 16), 0x10FFFF)))
                i = end + 1
                continue
        if e in "ux":
            size = 4 if e == "u" else 2
            code = raw[i + 2 : i + 2 + size]
            if len(code) == size and all(ch in "0123456789abcdefABCDEF" for ch in code):
                out.append(chr(int(code, 16)))
                i += 2 + size
                continue
        if e == "\n":
            i += 2
            continue
        out.append(_ESCAPES.get(e, e))
        i += 2
    # `\uD83D\uDE00` is one character written as its UTF-16 pair; a lone half is none.
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _string_end(text: str, start: int, quote: str) -> int:
    """The index after the closing ``quote`` of a string opened at ``start`` (or the line
    end: an unterminated string stops there)."""
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if c == "\n":
            return i
        i += 1
    return n


def _comment_end(text: str, i: int) -> int:
    """The index after a comment starting at ``i``, or ``i`` when none starts there."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return i


def _in_template_text(text: str, i: int, stack: list[int]) -> tuple[int, bool | None]:
    """One step in template text: the next index, and ``True`` at ``${``, ``False`` at the
    outermost closing backtick (else ``None``)."""
    c = text[i]
    if c == "\\":
        return i + 2, None
    if c == "`":
        if not stack:
            return i + 1, False
        stack.pop()
        return i + 1, None
    if text.startswith("${", i):
        stack.append(0)
        return i + 2, True
    return i + 1, None


def _in_template_code(text: str, i: int, stack: list[int]) -> int:
    """One step in the code of a ``${...}``: the next index."""
    c = text[i]
    if c in "'\"":
        return _string_end(text, i, c)
    if c == "`":
        stack.append(-1)
        return i + 1
    end = _comment_end(text, i)
    if end != i:
        return end
    if c == "{":
        stack[-1] += 1
    elif c == "}":
        if stack[-1] == 0:
            stack.pop()
        else:
            stack[-1] -= 1
    return i + 1


def _template_end(text: str, start: int) -> tuple[int, bool]:
    """The index after a template literal opened at ``start`` and whether it interpolates.

    ``${...}`` may hold strings, comments and templates of its own: a stack of brace depths,
    one per open template (-1 for a nested template's text), keeps this one pass."""
    i, n = start + 1, len(text)
    stack: list[int] = []
    dynamic = False
    while i < n:
        if not stack or stack[-1] < 0:
            i, event = _in_template_text(text, i, stack)
            if event is False:
                return i, dynamic
            dynamic = dynamic or event is True
        else:
            i = _in_template_code(text, i, stack)
    return n, dynamic


# `${NAME}` in a template literal: a name, which a binding may give.
_PLACEHOLDER = re.compile(r"\$\{\s*([A-Za-z_$][\w$]*)\s*\}")


def _template_parts(body: str) -> tuple[tuple[bool, str], ...] | None:
    """An interpolated template's text and names in order (``True`` for a name), when every
    ``${...}`` holds a name only; else ``None``."""
    parts: list[tuple[bool, str]] = []
    cursor = 0
    for match in _PLACEHOLDER.finditer(body):
        parts += [(False, _unescape(body[cursor : match.start()])), (True, match.group(1))]
        cursor = match.end()
    rest = body[cursor:]
    if "${" in rest or any("${" in text for named, text in parts if not named):
        return None
    return (*parts, (False, _unescape(rest)))


def _regex_end(text: str, start: int) -> int:
    i, n, in_class = start + 1, len(text), False
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            return i
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "/":
            i += 1
            while i < n and (text[i].isalnum() or text[i] in "_$"):
                i += 1
            return i
        i += 1
    return n


def _number(text: str, i: int) -> tuple[Token, int]:
    match = _NUMBER.match(text, i)
    end = match.end() if match and match.end() > i else i + 1
    raw = text[i:end].replace("_", "").rstrip("n")
    try:
        value: Any = float(int(raw, 16)) if raw[:2] in ("0x", "0X") else float(raw)
    except ValueError:
        value = UNKNOWN
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return Token("num", value), end


def _token(text: str, i: int, last: Any) -> tuple[Token, int, Any]:
    """The token at ``i`` (no space or comment there), the index after it, and what the
    regex rule remembers of it."""
    c = text[i]
    if c in "'\"":
        end = _string_end(text, i, c)
        body = text[i + 1 : end - 1] if text[end - 1 : end] == c and end > i + 1 else ""
        return Token("str", _unescape(body)), end, "str"
    if c == "`":
        end, dynamic = _template_end(text, i)
        if dynamic:
            parts = _template_parts(text[i + 1 : end - 1])
            return Token("tmpl", parts) if parts else Token("str", None), end, "str"
        return Token("str", _unescape(text[i + 1 : end - 1])), end, "str"
    if c == "/" and last in _REGEX_AFTER:
        end = _regex_end(text, i)
        return Token("regex", text[i:end]), end, "regex"
    match = _IDENT.match(text, i)
    if match is not None:
        word = match.group()
        return Token("ident", word), match.end(), word if word in _REGEX_AFTER else "ident"
    if c.isdigit() or (c == "." and text[i + 1 : i + 2].isdigit()):
        token, end = _number(text, i)
        return token, end, "num"
    op = next((op for op in ("...", "=>", "?.") if text.startswith(op, i)), c)
    return Token("punc", op), i + len(op), op


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text`` (comments dropped), in one pass."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    last: Any = None  # the previous significant token, for the regex rule
    while i < n:
        if text[i].isspace():
            i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
            continue
        end = _comment_end(text, i)
        if end != i:
            i = end
            continue
        token, i, last = _token(text, i, last)
        tokens.append(token)
    return tokens


class _Reader:
    """Literals out of a token list (see the module docstring)."""

    def __init__(
        self,
        tokens: list[Token],
        names: Mapping[str, Any] | None = None,
        functions: Mapping[str, Returning] | None = None,
        calls: list[int] | None = None,
    ) -> None:
        self.t = tokens
        self.match = self._match_brackets()
        self.memo: dict[int, tuple[Any, int]] = {}
        self.spread_budget = MAX_SPREAD
        self.bindings: dict[str, Any] = dict(names or {})
        """Literals bound by ``const NAME = ...`` (also ``let``, ``var``, a type annotation)
        earlier in the file, or given (what an imported file binds): a later ``NAME`` is
        their value."""
        self.params: dict[str, tuple[str, ...]] = {}
        """The parameters' names of each function of :attr:`functions` that has some."""
        self.functions = self._functions()
        """Functions that return a literal at once, by name: where the literal opens."""
        self.foreign: dict[str, Returning] = {
            k: v for k, v in (functions or {}).items() if k not in self.functions
        }
        """Functions an imported file defines (``import { group } from './config/sidebar'``)."""
        self.calls = calls if calls is not None else [MAX_CALLS]
        """What is left of :data:`MAX_CALLS`, shared with the readers of the calls made."""
        self.reading: set[int] = set()
        """Literals being read (a function's literal calling the function is unknown)."""

    def _match_brackets(self) -> list[int]:
        """For each opening bracket, the index of its closing one (-1 when unclosed)."""
        match = [-1] * len(self.t)
        stack: list[int] = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for k, tok in enumerate(self.t):
            if tok.kind != "punc":
                continue
            if tok.value in "([{" and len(tok.value) == 1:
                stack.append(k)
            elif tok.value in pairs:
                # Pop to the matching opener; unmatched openers in between stay unclosed.
                while stack and self.t[stack[-1]].value != pairs[tok.value]:
                    stack.pop()
                if stack:
                    match[stack.pop()] = k
        return match

    def _functions(self) -> dict[str, int]:
        """``function NAME(...) { return [...] }`` and ``const NAME = (...) => [...]`` (also
        ``=> ({...})``): the index where each returned literal opens, by the function's name
        (VitePress sidebars are often written so: ``items: sidebarGuide()``)."""
        t, n = self.t, len(self.t)
        opener = {close: k for k, close in enumerate(self.match) if close > 0}
        found: dict[str, int] = {}
        for k, tok in enumerate(t):
            start = -1
            paren = -1
            if tok.kind == "ident" and tok.value == "function" and k + 2 < n:
                name, paren = t[k + 1], k + 2
                close = self.match[paren] if self.punc(paren, "(") else -1
                # Past a return type annotation to the body (a few tokens at most).
                body = next(
                    (j for j in range(close + 1, min(close + 16, n)) if self.punc(j, "{")), -1
                )
                if close > 0 and body > 0 and body + 1 < n and t[body + 1].value == "return":
                    start = body + 2
                elif close > 0 and body > 0:
                    start = self._returned_local(body)
            elif self.punc(k, "=>") and k >= 4 and (close := self._params_end(k)) > 0:
                paren = opener.get(close, -1)
                name = t[paren - 2] if paren >= 2 and self.punc(paren - 1, "=") else tok
                if paren >= 3 and self.is_declared(paren - 2):
                    start = k + 1
            if start < 0 or name.kind != "ident" or start >= n:
                continue
            if self.punc(start, "(") and start + 1 < n:
                start += 1  # `=> ({ ... })`, `return ([ ... ])`
            if t[start].kind == "punc" and t[start].value in ("[", "{"):
                found.setdefault(str(name.value), start)
                params = self._param_names(paren)
                if params and str(name.value) not in self.params:
                    self.params[str(name.value)] = params
        return found

    def _returned_local(self, body: int) -> int:
        """``{ const sidebar: T = [...]; return sidebar }``: where the literal a function's
        first statement binds opens, when the function returns that name (VuePress' shared
        sidebar builders); -1 otherwise."""
        t, end = self.t, self.match[body]
        k = body + 1
        if end < 0 or k + 2 >= end or t[k].value not in ("const", "let", "var"):
            return -1
        name = t[k + 1]
        if name.kind != "ident":
            return -1
        # Past a short type annotation to the `=`.
        eq = next((j for j in range(k + 2, min(k + 18, end)) if self.punc(j, "=")), -1)
        start = eq + 1
        if eq < 0 or not (t[start].kind == "punc" and t[start].value in ("[", "{")):
            return -1
        after = self.match[start]
        if after < 0:
            return -1
        j = after + 1
        while j + 1 < end:
            if t[j].kind == "punc" and t[j].value in ("(", "[", "{") and self.match[j] > 0:
                j = self.match[j] + 1  # a nested block's `return` is not the function's
                continue
            if t[j].value == "return" and t[j + 1].kind == "ident":
                return start if t[j + 1].value == name.value else -1
            j += 1
        return -1

    def _params_end(self, arrow: int) -> int:
        """The ``)`` closing an arrow function's parameters, before its ``=>`` at ``arrow`` or
        before a short TypeScript return type (``(): DefaultTheme.SidebarItem[] =>``); -1."""
        if self.punc(arrow - 1, ")"):
            return arrow - 1
        for j in range(arrow - 1, max(arrow - 16, 1), -1):
            tok = self.t[j]
            if self.punc(j, ":"):
                return j - 1 if self.punc(j - 1, ")") else -1
            if tok.kind != "ident" and not (tok.kind == "punc" and tok.value in _TYPE_PUNC):
                return -1
        return -1

    def _param_names(self, paren: int) -> tuple[str, ...]:
        """The names of the parameters in the parentheses opened at ``paren`` (``(key: K,
        group: Omit<G, 'label'>)`` holds ``key``, ``group``); none when one is no plain name
        (a destructuring pattern, a default value)."""
        if paren < 0 or not self.punc(paren, "(") or self.match[paren] < 0:
            return ()
        names: list[str] = []
        k, close, angle = paren + 1, self.match[paren], 0
        expect_name = True
        while k < close:
            tok = self.t[k]
            if expect_name:
                if tok.kind != "ident":
                    return ()
                names.append(str(tok.value))
                expect_name = False
            elif tok.kind == "punc" and tok.value in ("(", "[", "{") and self.match[k] > 0:
                k = self.match[k]
            elif self.punc(k, "<"):
                angle += 1
            elif self.punc(k, ">"):
                angle -= 1
            elif self.punc(k, "=") or self.punc(k, "..."):
                return ()
            elif self.punc(k, ",") and angle == 0:
                expect_name = True
            k += 1
        return tuple(names)

    def returning(self, name: str, *, bare: bool = False) -> Returning | None:
        """The function ``name`` of this file (with parameters, or ``bare``: with none too)
        or of an imported one."""
        start = self.functions.get(name)
        if start is None:
            return self.foreign.get(name)
        params = self.params.get(name, ())
        if (not params and not bare) or self.match[start] < 0:
            return None
        return Returning(tuple(self.t[start : self.match[start] + 1]), params, self.bindings)

    def call_with(self, k: int, paren: int, depth: int) -> Any:
        """The literal the function named at ``k`` returns with the arguments of the call
        opened at ``paren`` bound to its parameters: ``group('guides', { items: [...] })``
        with ``return { label: key, ...group }``; ``UNKNOWN`` past :data:`MAX_CALLS`."""
        function = self.returning(str(self.t[k].value))
        if function is None or depth > MAX_DEPTH or self.calls[0] <= 0:
            return UNKNOWN
        if len(function.tokens) > _MAX_CALLED_TOKENS:
            return UNKNOWN
        self.calls[0] -= 1
        args: list[Any] = []
        j, close = paren + 1, self.match[paren]
        while j < close and len(args) < len(function.params):
            value, j = self.value(j, close, depth + 1)
            args.append(value)
            j = j + 1 if self.punc(j, ",") else self.skip_expression(j, close) + 1
        names = dict(function.names)
        for param, arg in zip(function.params, args, strict=False):
            if arg is not UNKNOWN:
                names[param] = arg
            else:
                names.pop(param, None)
        inner = _Reader(list(function.tokens), names, calls=self.calls)
        return inner.literal(0, depth + 1)[0]

    def call(self, k: int, depth: int) -> Any:
        """The literal the function named at ``k`` returns, when it returns one at once."""
        start = self.functions.get(str(self.t[k].value))
        if start is None or start in self.reading or depth > MAX_DEPTH:
            return UNKNOWN
        self.reading.add(start)
        try:
            return self.literal(start, depth + 1)[0]
        finally:
            self.reading.discard(start)

    def punc(self, k: int, value: str) -> bool:
        return k < len(self.t) and self.t[k].kind == "punc" and self.t[k].value == value

    def skip_expression(self, k: int, end: int) -> int:
        """The index of the ``,`` (or ``end``) ending the expression at ``k``."""
        while k < end:
            tok = self.t[k]
            if tok.kind == "punc":
                if tok.value == ",":
                    return k
                if tok.value in ("(", "[", "{") and self.match[k] > 0:
                    k = self.match[k] + 1
                    continue
            k += 1
        return end

    def value(self, k: int, end: int, depth: int) -> tuple[Any, int]:
        """The value of the expression at ``k`` (before ``end``) and the index after it."""
        if k >= end:
            return UNKNOWN, end
        tok = self.t[k]
        result: Any = UNKNOWN
        after = k + 1
        if tok.kind == "punc" and tok.value in ("{", "[") and self.match[k] > 0:
            result, after = self.literal(k, depth + 1)
        elif self.punc(k, "(") and self.match[k] > 0:
            # `({ docs: {...} })`, as Docusaurus' templates wrap their options.
            close = self.match[k]
            if depth < MAX_DEPTH:
                inner, inner_end = self.value(k + 1, close, depth + 1)
                result = inner if inner_end == close else UNKNOWN
            after = close + 1
        elif tok.kind in ("str", "num", "regex", "tmpl"):
            result = self.template(tok.value) if tok.kind == "tmpl" else _scalar(tok)
        elif tok.kind == "ident" and (unset := self.env_default(k, end, depth)) is not None:
            return unset
        elif tok.kind == "ident":
            result, after = self.member(*self.name(k))
            if self.punc(after, "(") and self.match[after] > 0 and result is UNKNOWN:
                # `sidebarGuide()`: the literal the function returns, if it returns one;
                # `group('key', {...})`: with its arguments bound to its parameters.
                name = str(tok.value)
                with_args = self.match[after] > after + 1 and (
                    name in self.params or name in self.foreign
                )
                # An imported function called with no arguments (`getApiSidebar()`).
                with_args = with_args or name in self.foreign
                result = self.call_with(k, after, depth) if with_args else self.call(k, depth)
                after = self.match[after] + 1
        elif tok.kind == "punc" and tok.value == "-" and k + 1 < end:
            nxt = self.t[k + 1]
            if nxt.kind == "num" and isinstance(nxt.value, int | float):
                result, after = -nxt.value, k + 2
        # TypeScript's `as T` and `satisfies T` leave the value as it is.
        if (
            after < end
            and self.t[after].kind == "ident"
            and self.t[after].value
            in (
                "as",
                "satisfies",
            )
        ):
            return result, self.skip_expression(after, end)
        if after < end and not self.punc(after, ","):
            return UNKNOWN, self.skip_expression(after, end)
        return result, after

    def member(self, value: Any, after: int) -> tuple[Any, int]:
        """``labels[key]`` after a name bound to an object: its member named by a string or
        by a name bound to one (``UNKNOWN`` for any other); else ``value`` as it is."""
        if (
            not isinstance(value, dict)
            or not self.punc(after, "[")
            or self.match[after] != after + 2
        ):
            return value, after
        inner = self.t[after + 1]
        key = self.bindings.get(str(inner.value)) if inner.kind == "ident" else None
        key = inner.value if inner.kind == "str" else key
        return (value.get(key, UNKNOWN) if isinstance(key, str) else UNKNOWN), after + 3

    def env_default(self, k: int, end: int, depth: int) -> tuple[Any, int] | None:
        """``process.env.X ? a : b``, ``process.env.X || b`` and ``process.env.X ?? b``: the
        value ``b`` a build with no environment variable set gives, with the index after it
        (``None`` for any other expression)."""
        t = self.t
        if not (
            k + 5 < end
            and t[k].value == "process"
            and self.punc(k + 1, ".")
            and t[k + 2].value == "env"
            and self.punc(k + 3, ".")
            and t[k + 4].kind == "ident"
        ):
            return None
        op = k + 5
        if (self.punc(op, "|") and self.punc(op + 1, "|")) or (
            self.punc(op, "?") and self.punc(op + 1, "?")
        ):
            return self.value(op + 2, end, depth)
        if not self.punc(op, "?"):
            return None
        j, nested = op + 1, 0
        while j < end:
            if self.punc(j, ",") or self.punc(j, ";"):
                return None
            if t[j].kind == "punc" and t[j].value in ("(", "[", "{") and self.match[j] > 0:
                j = self.match[j] + 1
                continue
            if self.punc(j, "?"):
                nested += 1
            elif self.punc(j, ":"):
                if nested == 0:
                    return self.value(j + 1, end, depth)
                nested -= 1
            j += 1
        return None

    def name(self, k: int) -> tuple[Any, int]:
        """A name's value: ``true``, ``false``, ``null``, ``undefined``, a ``require``, or a
        literal bound to it earlier (else ``UNKNOWN``), with the index after it."""
        word = self.t[k].value
        words = {"true": True, "false": False, "null": None, "undefined": None}
        if word in words:
            return words[word], k + 1
        if word == "require":
            return self.require(k)
        if (
            word == "path"
            and self.punc(k + 1, ".")
            and k + 2 < len(self.t)
            and self.t[k + 2].value in ("join", "resolve")
        ):
            return self.path_call(k + 3)
        return self.bindings.get(word, UNKNOWN), k + 1

    def path_call(self, j: int) -> tuple[Any, int]:
        """``path.join(__dirname, 'a', 'b')`` (or ``resolve``), whose ``(`` is at ``j``: the
        string parts joined, relative to the file's folder; ``UNKNOWN`` for other
        arguments."""
        if not self.punc(j, "(") or self.match[j] < 0:
            return UNKNOWN, j
        close = self.match[j]
        parts: list[str] = []
        k = j + 1
        while k < close:
            tok = self.t[k]
            if self.punc(k, ","):
                k += 1
                continue
            if tok.kind == "ident" and tok.value == "__dirname" and not parts:
                k += 1
                continue
            if tok.kind != "str" or tok.value is None:
                return UNKNOWN, close + 1
            parts.append(tok.value)
            k += 1
        if not parts or parts[0].startswith("/"):
            return UNKNOWN, close + 1
        return "/".join(
            p.strip("/") if i else p.rstrip("/") for i, p in enumerate(parts)
        ), close + 1

    def require(self, k: int) -> tuple[Any, int]:
        """``require('x')`` and ``require.resolve('x')`` as ``'x'``."""
        j = k + 1
        if self.punc(j, ".") and j + 1 < len(self.t) and self.t[j + 1].value == "resolve":
            j += 2
        if self.punc(j, "(") and self.match[j] == j + 2 and self.t[j + 1].kind == "str":
            name = self.t[j + 1].value
            return (UNKNOWN if name is None else name), j + 3
        return UNKNOWN, k + 1

    def literal(self, k: int, depth: int) -> tuple[Any, int]:
        """The object or array literal opened at ``k``; ``UNKNOWN`` when it is none (a
        block, a destructuring pattern), with the index after its closing bracket."""
        if k in self.memo:
            return self.memo[k]
        close = self.match[k]
        if depth > MAX_DEPTH:
            result: tuple[Any, int] = (UNKNOWN, close + 1)
        elif self.t[k].value == "[":
            result = (self.array(k + 1, close, depth), close + 1)
        else:
            result = (self.object(k + 1, close, depth), close + 1)
        self.memo[k] = result
        return result

    def array(self, k: int, end: int, depth: int) -> list[Any]:
        out: list[Any] = []
        while k < end:
            if self.punc(k, ","):
                k += 1
                continue
            if self.punc(k, "..."):
                spread = self.spread(k + 1, end, list, depth)
                out.extend(spread if isinstance(spread, list) else [UNKNOWN])
                k = self.skip_expression(k + 1, end)
                continue
            item, k = self.value(k, end, depth)
            out.append(item)
        return out

    def spread(
        self, k: int, end: int, kind: type[list[Any]] | type[dict[str, Any]], depth: int
    ) -> Any:
        """The literal of kind ``kind`` a spread copies: a bound ``...NAME``, or ``...NAME()``
        of a function returning one at once (Mermaid's ``...sidebarSyntax()``); ``UNKNOWN``
        for anything else, or past :data:`MAX_SPREAD`."""
        tok = self.t[k] if k < end else None
        if tok is None or tok.kind != "ident":
            return UNKNOWN
        after = self.skip_expression(k, end)
        if after == k + 1:
            value = self.bindings.get(str(tok.value), UNKNOWN)
        elif self.punc(k + 1, "(") and self.match[k + 1] == after - 1:
            value = self.call(k, depth)
        else:
            return UNKNOWN
        if not isinstance(value, kind) or self.spread_budget < len(value):
            return UNKNOWN
        self.spread_budget -= len(value)
        return value

    def template(self, parts: tuple[tuple[bool, str], ...]) -> Any:
        """A template of names (```${BASE_URL}/```): each name bound to a string or a number
        earlier in the file, else :data:`UNKNOWN`."""
        out: list[str] = []
        for named, text in parts:
            value = self.bindings.get(text, UNKNOWN) if named else text
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                return UNKNOWN
            out.append(str(value))
        return "".join(out)

    def key(self, k: int) -> tuple[str | None, int] | None:
        """A property's key at ``k`` and the index of its last token (``None`` as the key
        of a computed ``[key]``); ``None`` when no key is there."""
        tok = self.t[k]
        if tok.kind == "str" and tok.value is not None:
            return tok.value, k
        if tok.kind == "ident":
            return tok.value, k
        if tok.kind == "num":
            return str(tok.value), k
        if self.punc(k, "[") and self.match[k] > 0:
            # A computed key: a name bound to a string is that string; else its value is
            # skipped.
            inner = self.t[k + 1]
            if self.match[k] == k + 2 and inner.kind == "ident":
                bound = self.bindings.get(str(inner.value))
                if isinstance(bound, str):
                    return bound, self.match[k]
            if self.match[k] == k + 2 and inner.kind == "str" and inner.value is not None:
                return inner.value, self.match[k]
            return None, self.match[k]
        return None

    def object(self, k: int, end: int, depth: int) -> Any:
        out: dict[str, Any] = {}
        while k < end:
            if self.punc(k, ","):
                k += 1
                continue
            tok = self.t[k]
            if self.punc(k, "..."):
                spread = self.spread(k + 1, end, dict, depth)
                if isinstance(spread, dict):
                    out.update(spread)
                else:
                    out.setdefault(SPREAD, UNKNOWN)
                k = self.skip_expression(k + 1, end)
                continue
            found = self.key(k)
            if found is None:
                return UNKNOWN  # not an object literal (a block, a statement)
            key, k = found
            k += 1
            if self.punc(k, ":"):
                value, k = self.value(k + 1, end, depth)
                if key is not None:
                    out[key] = value
                continue
            if k >= end or self.punc(k, ","):
                if tok.kind != "ident":
                    return UNKNOWN
                # Shorthand `{ users }`: the literal the name is bound to, if any.
                out[str(key)] = self.bindings.get(str(key), UNKNOWN)
                continue
            if self.punc(k, "(") or (tok.kind == "ident" and tok.value in ("get", "set", "async")):
                k = self.skip_expression(k, end)  # a method
                out.setdefault(str(key), UNKNOWN)
                continue
            return UNKNOWN
        return out

    def all_literals(self) -> list[Any]:
        """Every outermost literal of the file, in file order (literals inside code that is
        no literal, such as a function's body, are outermost too)."""
        out: list[Any] = []
        k, n = 0, len(self.t)
        while k < n:
            tok = self.t[k]
            if tok.kind == "punc" and tok.value in ("{", "[") and self.match[k] > 0:
                value, after = self.literal(k, 1)
                if value is not UNKNOWN:
                    name = self.bound_name(k)
                    if name is not None:
                        self.bindings.setdefault(name, value)
                    out.append(value)
                    k = after
                    continue
            elif (
                tok.kind in ("str", "num") and tok.value is not None and self.ends_statement(k + 1)
            ):
                # `const last = '11.x'`: a name for a scalar, used as a value or a key later.
                name = self.bound_name(k)
                if name is not None:
                    self.bindings.setdefault(name, tok.value)
            k += 1
        return out

    def ends_statement(self, k: int) -> bool:
        """Whether the expression before ``k`` ends there (``;``, the file's end, or a new
        declaration), so a value just before it is the whole expression."""
        if k >= len(self.t) or self.punc(k, ";"):
            return True
        tok = self.t[k]
        return tok.kind == "ident" and tok.value in (
            "const",
            "let",
            "var",
            "export",
            "import",
            "function",
            "module",
            "class",
        )

    def bound_name(self, k: int) -> str | None:
        """The name a literal at ``k`` is bound to (``const NAME = {``, ``const NAME: T = {``,
        ``let``, ``var``), if any; a few tokens are looked at, never more."""
        if k < 3 or not self.punc(k - 1, "="):
            return None
        j = k - 2
        if not self.is_declared(j):
            # A type annotation (`: Name`, `: a.Name`, `: A & B`, `: Record<K, V>`, `: T[]`),
            # read back to its colon.
            for _ in range(16):
                if j < 2 or self.punc(j, ":"):
                    break
                if self.t[j].kind != "ident" and not any(
                    self.punc(j, c) for c in (".", "&", "|", "<", ">", ",", "[", "]")
                ):
                    return None
                j -= 1
            if not self.punc(j, ":") or not self.is_declared(j - 1):
                return None
            j -= 1
        return str(self.t[j].value)

    def is_declared(self, j: int) -> bool:
        """Whether the token at ``j`` is a name that ``const``, ``let`` or ``var`` declares."""
        return (
            j >= 1
            and self.t[j].kind == "ident"
            and self.t[j - 1].kind == "ident"
            and self.t[j - 1].value in ("const", "let", "var")
        )

    def exported(self) -> Any:
        """What the module exports (``module.exports = X``, ``export default X``): a literal,
        or a name bound to one; ``UNKNOWN`` otherwise."""
        t, n = self.t, len(self.t)
        for k in range(n - 1, -1, -1):
            default = t[k].value == "default" and k >= 1 and t[k - 1].value == "export"
            assigned = (
                self.punc(k, "=")
                and k >= 3
                and t[k - 1].value == "exports"
                and self.punc(k - 2, ".")
                and t[k - 3].value == "module"
            )
            start = k + 1
            if not (default or assigned) or start >= n:
                continue
            if t[start].kind == "ident":
                return self.bindings.get(str(t[start].value), UNKNOWN)
            if self.punc(start, "{") or self.punc(start, "["):
                return self.memo.get(start, (UNKNOWN, 0))[0]
            return UNKNOWN
        return UNKNOWN


@dataclass(frozen=True, slots=True)
class Regex:
    """A regular expression literal (``/^\\/play/``): its source and flags, never compiled."""

    source: str
    flags: str


def _scalar(tok: Token) -> Any:
    """A string, number or regular expression token's value."""
    if tok.kind == "regex":
        body, _, flags = str(tok.value)[1:].rpartition("/")
        return Regex(body, flags)
    return UNKNOWN if tok.value is None else tok.value


@dataclass(frozen=True, slots=True)
class Module:
    """A JavaScript or TypeScript file's literals and what it exports."""

    literals: list[Any]
    exported: Any
    names: dict[str, Any] = field(default_factory=dict)
    """The literals bound to names (``export const api = [...]`` among them)."""
    functions: dict[str, Returning] = field(default_factory=dict)
    """Its functions (with parameters or none) that return a literal at once, for the files that
    import them."""


@dataclass(frozen=True, slots=True)
class Import:
    """A name a file binds to another file's export: ``import NAME from 'x'``,
    ``const NAME = require('x')`` (``member`` ``None``: the default export or
    ``module.exports``), or ``import { member as NAME } from 'x'``."""

    name: str
    source: str
    member: str | None = None


def imports(text: str) -> list[Import]:
    """The imports of ``text`` whose names a literal may use (type-only imports left out)."""
    t = tokenize(text)
    out: list[Import] = []
    for k, tok in enumerate(t):
        if tok.kind != "ident":
            continue
        if tok.value == "import" and k + 3 < len(t) and t[k + 1].kind == "ident":
            name = t[k + 1].value
            if name != "type" and t[k + 2].value == "from" and t[k + 3].kind == "str":
                out.append(Import(str(name), str(t[k + 3].value)))
        elif tok.value == "import" and k + 1 < len(t) and t[k + 1] == Token("punc", "{"):
            out += _named_imports(t, k + 1)
        elif (
            tok.value == "require"
            and k >= 3
            and t[k - 1] == Token("punc", "=")
            and t[k - 2].kind == "ident"
            and t[k - 3].value in ("const", "let", "var")
            and k + 3 < len(t)
            and t[k + 1] == Token("punc", "(")
            and t[k + 2].kind == "str"
            and t[k + 2].value is not None
            and t[k + 3] == Token("punc", ")")
        ):
            out.append(Import(str(t[k - 2].value), str(t[k + 2].value)))
    return out


def _named_imports(t: list[Token], k: int) -> list[Import]:
    """``{ a, b as c } from 'x'`` opened at ``k``."""
    end = next((j for j in range(k, min(len(t), k + 200)) if t[j] == Token("punc", "}")), -1)
    if end < 0 or end + 2 >= len(t) or t[end + 1].value != "from" or t[end + 2].kind != "str":
        return []
    source = str(t[end + 2].value)
    out: list[Import] = []
    parts: list[str] = []
    for tok in [*t[k + 1 : end], Token("punc", ",")]:
        if tok == Token("punc", ","):
            if len(parts) == 1:
                out.append(Import(parts[0], source, parts[0]))
            elif len(parts) == 3 and parts[1] == "as":
                out.append(Import(parts[2], source, parts[0]))
            parts = []
        elif tok.kind == "ident":
            parts.append(str(tok.value))
        else:
            parts = ["", "", "", ""]  # not a plain name: left out
    return [i for i in out if i.name != "type"]


def read_module(
    text: str,
    known: Mapping[str, Any] | None = None,
    functions: Mapping[str, Returning] | None = None,
) -> Module:
    """The literals of ``text`` (see :func:`literals`) and its export; ``known`` binds names
    the file imports to their values (``import { guide } from './sidebar'``), ``functions``
    the functions it imports (``import { group } from './config/sidebar'``)."""
    reader = _Reader(tokenize(text), known, functions)
    found = reader.all_literals()
    own = {n: f for n in reader.functions if (f := reader.returning(n, bare=True)) is not None}
    return Module(found, reader.exported(), dict(reader.bindings), own)


def literals(text: str) -> list[Any]:
    """Every outermost object or array literal of a JavaScript/TypeScript text, as values."""
    return _Reader(tokenize(text)).all_literals()


def object_with_most(text: str, keys: Iterable[str]) -> dict[str, Any]:
    """The object literal of a script that holds the most of ``keys`` (a site's settings
    object among the script's other literals), the first of those tied; ``{}`` when none
    holds any."""
    wanted = frozenset(keys)
    best: dict[str, Any] = {}
    score = 0
    for value in walk_values(literals(text)):
        if isinstance(value, dict):
            here = sum(k in value for k in wanted)
            if here > score:
                best, score = value, here
    return best


def walk_values(value: Any) -> list[Any]:
    """``value`` and every dict or list inside it, depth first, each once (a literal bound
    to a name may appear in many places)."""
    out: list[Any] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            if id(item) in seen:
                continue
            seen.add(id(item))
        out.append(item)
        children: Any = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            stack.extend(c for c in reversed(list(children)) if isinstance(c, dict | list))
    return out
