"""Every ``reason`` string literal in the code of both packages, found in their syntax trees.

A reason is a string literal that is:

- the ``reason=`` keyword argument of any call;
- a positional argument in the place of a parameter named ``reason`` of a function, method or
  dataclass of either package (``Finding("digest-mismatch", ...)``, ``ctx.add("...", ...)``; a
  method is known by its name only, so there only kebab-case literals with a hyphen count);
- a class's ``default_reason``;
- assigned to a variable named ``reason`` (also in ``reason, message = "...", "..."``);
- compared with something named ``reason`` (``exc.reason == "..."``, ``reason in (...)``);
- a member of a ``Literal`` type named ``...Reason``;
- the first item of a pair returned by a function annotated ``-> tuple[str, str]`` (its
  ``(reason, message)``).

A reason built at run time (an f-string) cannot be checked, and is reported as such.

``python -m tests.reason_uses --write-docs`` rewrites the generated table of docs/errors.md from
the registries (``gezk.reasons``, ``gezel_knowledge.reasons``).
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from gezel_knowledge import reasons as product
from gezk import reasons as formats

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gezk", "gezel_knowledge")
DOC = ROOT / "docs" / "errors.md"
BEGIN = "<!-- reasons: generated from gezk/reasons.py and gezel_knowledge/reasons.py -->"
END = "<!-- reasons: end -->"
REASON_GRAMMAR = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_REASON_LIKE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")  # with a hyphen: "x.add('a-b')"


@dataclass(frozen=True, slots=True)
class Use:
    """One reason literal in the code: where, and through what."""

    reason: str
    path: str
    line: int
    via: str
    category: str | None = None
    """The category of the error class it is given to, when that is known."""

    @property
    def package(self) -> str:
        return self.path.split("/")[0]

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.via})"


@dataclass(frozen=True, slots=True)
class Computed:
    """A reason built at run time, which the registry check cannot see."""

    path: str
    line: int
    source: str


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            yield rel, ast.parse(path.read_text(encoding="utf-8"), rel)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_dataclass(node: ast.ClassDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if _name(target) == "dataclass":
            return True
    return any(_name(base) == "NamedTuple" for base in node.bases)


def _reason_position(args: ast.arguments, method: bool) -> int | None:
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if method and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names.index("reason") if "reason" in names else None


@dataclass
class _Definitions:
    """What the packages define that takes a reason positionally, and the error classes."""

    local: dict[tuple[str, str], int]
    """(module path, function or class name) -> position of ``reason``."""
    anywhere: dict[str, set[int]]
    """method, function or class name -> positions of ``reason`` (for calls across modules)."""
    bases: dict[str, list[str]]
    """class name -> base class names; a function name -> the class it returns."""
    categories: dict[str, str]

    def positions(self, path: str, call: ast.Call) -> tuple[set[int], bool]:
        """Where ``call`` takes a reason positionally, and whether that is certain.

        A call of a function of the same module is certain; a method call is matched by the
        method's name only (``x.add(...)`` may be a set's), so it is not.
        """
        name = _name(call.func)
        if name is None:
            return set(), False
        if isinstance(call.func, ast.Name) and (path, name) in self.local:
            return {self.local[(path, name)]}, True
        return self.anywhere.get(name, set()), False

    def category(self, cls: str | None, seen: frozenset[str] = frozenset()) -> str | None:
        if cls is None or cls in seen:
            return None
        if cls in self.categories:
            return self.categories[cls]
        for base in self.bases.get(cls, []):
            found = self.category(base, seen | {cls})
            if found is not None:
                return found
        return None


def _definitions(modules: list[tuple[str, ast.Module]]) -> _Definitions:
    found = _Definitions({}, defaultdict(set), {}, {})
    for path, tree in modules:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                position = _reason_position(node.args, method=False)
                if position is not None:
                    found.local[(path, node.name)] = position
                    found.anywhere[node.name].add(position)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.returns is not None:
                returned = _name(node.returns)
                if returned is not None:
                    found.bases.setdefault(node.name, [returned])
            elif isinstance(node, ast.ClassDef):
                _add_class(found, node)
    return found


def _add_class(found: _Definitions, node: ast.ClassDef) -> None:
    """A class's bases and category, and where its methods or fields take a reason."""
    found.bases[node.name] = [n for n in map(_name, node.bases) if n]
    fields: list[str] = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            position = _reason_position(item.args, method=True)
            if position is not None:
                name = node.name if item.name == "__init__" else item.name
                found.anywhere[name].add(position)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if "ClassVar" not in ast.unparse(item.annotation):
                fields.append(item.target.id)
        elif (
            isinstance(item, ast.Assign)
            and [_name(t) for t in item.targets] == ["category"]
            and isinstance(item.value, ast.Constant)
        ):
            found.categories[node.name] = str(item.value.value)
    if _is_dataclass(node) and "reason" in fields:
        found.anywhere[node.name].add(fields.index("reason"))


def _literals(node: ast.expr | None) -> list[str] | None:
    """The string constants ``node`` can be, or ``None`` when it is built at run time."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _literals(node.body), _literals(node.orelse)
        return [*(body or []), *(orelse or [])] if body is not None or orelse is not None else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for elt in node.elts for s in (_literals(elt) or [])]
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        return None
    return []


def _returns_reason_pairs(node: ast.FunctionDef) -> bool:
    """A function annotated ``-> tuple[str, str]`` (or ``| None``) returns (reason, message)."""
    returns = ast.unparse(node.returns) if node.returns is not None else ""
    return returns in ("tuple[str, str]", "tuple[str, str] | None")


def _is_reason(node: ast.expr) -> bool:
    return _name(node) == "reason"


def _assigned(item: ast.stmt) -> list[str | None]:
    if isinstance(item, ast.Assign):
        return [_name(t) for t in item.targets]
    if isinstance(item, ast.AnnAssign):
        return [_name(item.target)]
    return []


@dataclass
class _Collector:
    """The reasons of one module, one kind of syntax node at a time."""

    path: str
    defs: _Definitions

    def found(
        self, node: ast.expr | None, line: int, via: str, category: str | None = None
    ) -> Iterator[Use | Computed]:
        values = _literals(node)
        if values is None:
            assert node is not None
            yield Computed(self.path, line, ast.unparse(node))
            return
        for value in values:
            yield Use(value, self.path, line, via, category)

    def visit(self, node: ast.AST) -> Iterator[Use | Computed]:
        if isinstance(node, ast.Call):
            yield from self.call(node)
        elif isinstance(node, ast.ClassDef):
            yield from self.default_reason(node)
        elif isinstance(node, ast.FunctionDef) and _returns_reason_pairs(node):
            yield from self.pairs(node)
        elif isinstance(node, ast.Assign):
            yield from self.assign(node)
        elif isinstance(node, ast.Compare) and _is_reason(node.left):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                    yield from self.found(right, node.lineno, "compared with a reason")

    def call(self, node: ast.Call) -> Iterator[Use | Computed]:
        callee = _name(node.func)
        category = self.defs.category(callee)
        for kw in node.keywords:
            if kw.arg == "reason":
                yield from self.found(kw.value, node.lineno, f"{callee}(reason=...)", category)
        positions, certain = self.defs.positions(self.path, node)
        for position in positions:
            if position >= len(node.args):
                continue
            arg = node.args[position]
            via = f"{callee}(...) argument {position + 1}"
            if certain:
                yield from self.found(arg, node.lineno, via, category)
            elif isinstance(arg, ast.Constant) and _REASON_LIKE.fullmatch(str(arg.value)):
                yield Use(str(arg.value), self.path, node.lineno, via, category)

    def default_reason(self, node: ast.ClassDef) -> Iterator[Use | Computed]:
        for item in node.body:
            if _assigned(item) == ["default_reason"]:
                assert isinstance(item, ast.Assign | ast.AnnAssign)
                via = f"{node.name}.default_reason"
                yield from self.found(item.value, item.lineno, via, self.defs.category(node.name))

    def pairs(self, node: ast.FunctionDef) -> Iterator[Use | Computed]:
        for inner in ast.walk(node):
            if (
                isinstance(inner, ast.Return)
                and isinstance(inner.value, ast.Tuple)
                and len(inner.value.elts) == 2  # a (reason, message) pair
            ):
                yield from self.found(inner.value.elts[0], inner.lineno, f"{node.name}() returns")

    def assign(self, node: ast.Assign) -> Iterator[Use | Computed]:
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == "reason":
                yield from self.found(node.value, node.lineno, "reason = ...")
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for i, elt in enumerate(target.elts):
                    if _is_reason(elt) and i < len(node.value.elts):
                        yield from self.found(node.value.elts[i], node.lineno, "reason, ... = ...")
        alias = _name(node.targets[0])
        value = node.value
        if (
            alias is not None
            and alias.endswith("Reason")
            and isinstance(value, ast.Subscript)
            and _name(value.value) == "Literal"
        ):
            yield from self.found(value.slice, node.lineno, alias)


def _uses_in(path: str, tree: ast.Module, defs: _Definitions) -> Iterator[Use | Computed]:
    collector = _Collector(path, defs)
    for node in ast.walk(tree):
        yield from collector.visit(node)


def reason_uses() -> tuple[list[Use], list[Computed]]:
    """Every reason literal of both packages, and every reason built at run time."""
    modules = list(_modules())
    defs = _definitions(modules)
    uses: list[Use] = []
    computed: list[Computed] = []
    for path, tree in modules:
        for item in _uses_in(path, tree, defs):
            (uses if isinstance(item, Use) else computed).append(item)
    return uses, computed


def by_reason(uses: list[Use]) -> dict[str, list[Use]]:
    """Uses grouped by reason."""
    grouped: dict[str, list[Use]] = defaultdict(list)
    for use in uses:
        grouped[use.reason].append(use)
    return dict(grouped)


def markdown_table(registries: Mapping[str, Mapping[str, object]]) -> str:
    """The reasons table of docs/errors.md: one row per reason, in alphabetical order."""
    rows = ["| reason | category | package | meaning |", "| --- | --- | --- | --- |"]
    merged = sorted(
        (name, package, entry)
        for package, table in registries.items()
        for name, entry in table.items()
    )
    for name, package, entry in merged:
        category = entry.category
        description = entry.description
        text = str(description).replace("<", "&lt;").replace(">", "&gt;")
        rows.append(f"| `{name}` | {category} | `{package}` | {text} |")
    return "\n".join(rows) + "\n"


def registries() -> dict[str, Mapping[str, object]]:
    """Both packages' registries, by package."""
    return {"gezk": formats.REASONS, "gezel_knowledge": product.REASONS}


def documented_table(text: str) -> str:
    """The generated part of docs/errors.md."""
    start = text.index(BEGIN) + len(BEGIN)
    return text[start : text.index(END)].strip("\n") + "\n"


def write_docs() -> None:
    """Replace the generated part of docs/errors.md with the table of the registries."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(BEGIN) + len(BEGIN)
    end = text.index(END)
    table = markdown_table(registries())
    DOC.write_text(f"{text[:start]}\n{table}{text[end:]}", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-docs"]:
        write_docs()
    else:
        sys.exit("usage: python -m tests.reason_uses --write-docs")
