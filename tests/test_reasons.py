"""Every ``reason`` is declared once (gezk/reasons.py, gezel_knowledge/reasons.py), every declared
reason is used, docs/errors.md lists them all, and the error classes' categories hold."""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from gezel_knowledge import reasons as product
from gezel_knowledge.errors import InvalidInput, NotFound
from gezk import reasons as formats
from gezk.errors import CATEGORIES, InvalidIdentifier, ReasonedError
from tests import reason_uses
from tests.reason_uses import DOC, REASON_GRAMMAR, ROOT, Use, by_reason

REGISTRY_FILE = {"gezk": "gezk/reasons.py", "gezel_knowledge": "gezel_knowledge/reasons.py"}
REGISTRY = {"gezk": formats.REASONS, "gezel_knowledge": product.REASONS}
ERROR_MODULES = (
    "gezel_knowledge._locking",
    "gezel_knowledge.compiler.errors",
    "gezel_knowledge.compiler.sources.parquet_document_list",
    "gezel_knowledge.errors",
    "gezel_knowledge.extras",
    "gezel_knowledge.indexes.errors",
    "gezel_knowledge.install.errors",
    "gezel_knowledge.install.mount",
    "gezk.errors",
)


@pytest.fixture(scope="module")
def uses() -> dict[str, list[Use]]:
    found, computed = reason_uses.reason_uses()
    assert computed == [], "reasons must be string literals the registry check can see"
    return by_reason(found)


def _table(category: str | None) -> str:
    return "_" + (category or "<CATEGORY>").upper().replace("-", "_")


def test_every_reason_the_code_uses_is_declared(uses: dict[str, list[Use]]) -> None:
    missing: list[str] = []
    for name, where in sorted(uses.items()):
        in_gezk = [u for u in where if u.package == "gezk"]
        if name in formats.REASONS or (not in_gezk and name in product.REASONS):
            continue
        package = "gezk" if in_gezk else "gezel_knowledge"
        category = next((u.category for u in where if u.category), None)
        missing.append(
            f'{name!r} (used at {where[0]}): add "{name}": "<what it means, one line>", to '
            f"{_table(category)} in {REGISTRY_FILE[package]}, in alphabetical order"
        )
    assert missing == []


def test_every_declared_reason_is_used(uses: dict[str, list[Use]]) -> None:
    unused: list[str] = []
    for package, registry in REGISTRY.items():
        for name in registry:
            packages = {u.package for u in uses.get(name, [])}
            if package in packages:
                continue
            hint = (
                f"only {other} uses it: move it to {REGISTRY_FILE[other]}"
                if (other := next(iter(sorted(packages)), None))
                else "no code uses it: remove it"
            )
            unused.append(f"{name!r} in {REGISTRY_FILE[package]}: {hint}")
    assert unused == []


def test_no_reason_is_declared_by_both_packages() -> None:
    assert sorted(set(formats.REASONS) & set(product.REASONS)) == []


@pytest.mark.parametrize("package", sorted(REGISTRY))
def test_reasons_are_kebab_case_one_line_and_in_alphabetical_order(package: str) -> None:
    registry = REGISTRY[package]
    for name, reason in registry.items():
        assert REASON_GRAMMAR.fullmatch(name), name
        assert reason.description, name
        assert "\n" not in reason.description, name
    for category in CATEGORIES.keys() | {"warning", "status"}:
        names = [n for n, r in registry.items() if r.category == category]
        assert names == sorted(names), f"{_table(category)} of {REGISTRY_FILE[package]}"


def test_a_reason_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'lost' is declared twice"):
        formats.declare({"input": {"lost": "a"}, "not-found": {"lost": "b"}})


def test_docs_list_every_reason_from_the_registries() -> None:
    documented = reason_uses.documented_table(DOC.read_text(encoding="utf-8"))
    expected = reason_uses.markdown_table(REGISTRY)
    assert documented == expected, (
        "docs/errors.md is out of date: run python -m tests.reason_uses --write-docs"
    )


def test_the_errors_page_example_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    fences = re.findall(r"^```(\w+)\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert [kind for kind, _ in fences] == ["python", "text"]
    exec(compile(fences[0][1], "errors.md:python", "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out == fences[1][1]


def test_the_verifier_refusals_in_security_md_are_declared() -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    documented: set[str] = set()
    for table in re.findall(r"\| reason \|.*?\n((?:\|.*\n)+)", text):
        for row in table.splitlines()[1:]:
            documented.update(re.findall(r"`([a-z0-9-]+)`", row.split("|")[1]))
    assert len(documented) > 40
    declared = formats.REASONS.keys() | product.REASONS.keys()
    assert sorted(documented - declared) == []


def _all_error_classes() -> list[type[ReasonedError]]:
    for module in ERROR_MODULES:
        importlib.import_module(module)
    found: list[type[ReasonedError]] = []
    todo: list[type[ReasonedError]] = [ReasonedError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_error_class_has_a_category_the_builtins_agree_with() -> None:
    classes = _all_error_classes()
    assert len(classes) > 25
    for cls in classes:
        assert cls.category in CATEGORIES, cls
        assert issubclass(cls, ValueError) == (cls.category == "input"), cls
        assert issubclass(cls, LookupError) == (cls.category == "not-found"), cls


def test_input_errors_are_value_errors_in_both_packages() -> None:
    with pytest.raises(ValueError, match="bad") as caught:
        raise InvalidInput("bad", reason="invalid-argument")
    assert caught.value.category == "input"
    with pytest.raises(ValueError, match="bad id"):
        raise InvalidIdentifier("bad id")
    with pytest.raises(LookupError):
        raise NotFound("nothing", reason="document-not-found")


_SAMPLE = """
from dataclasses import dataclass

class Finding:
    pass

@dataclass
class Note:
    text: str
    reason: str

def _fail(message: str, reason: str) -> QuantizationError:
    return QuantizationError(message, reason=reason)

class Scan:
    def add(self, reason: str, message: str) -> None: ...

class Oops(KnowledgeError, ValueError):
    default_reason = "oops-default"
    category = "input"

def f(scan, exc, seen):
    raise InvalidInput("x", reason="kw-reason")
    raise _fail("a message", "positional-reason")
    Note("text", "field-reason")
    scan.add("method-reason", "message")
    seen.add("not a reason")
    reason, message = "tuple-reason", "message"
    reason = "plain-reason" if exc else "other-reason"
    if exc.reason == "compared-reason":
        pass
    raise Oops("x", reason=f"built-{exc}")
"""


def test_the_collector_sees_every_form_of_reason() -> None:
    tree = ast.parse(_SAMPLE)
    defs = reason_uses._definitions([("gezk/sample.py", tree)])
    defs.categories["QuantizationError"] = "input"
    found = list(reason_uses._uses_in("gezk/sample.py", tree, defs))
    names = sorted(u.reason for u in found if isinstance(u, Use))
    assert names == sorted(
        [
            "oops-default",
            "kw-reason",
            "positional-reason",
            "field-reason",
            "method-reason",
            "tuple-reason",
            "plain-reason",
            "other-reason",
            "compared-reason",
        ]
    )
    computed = [c for c in found if not isinstance(c, Use)]
    assert [c.source for c in computed] == ["f'built-{exc}'"]
    by_name = {u.reason: u for u in found if isinstance(u, Use)}
    assert by_name["oops-default"].category == "input"
    assert by_name["positional-reason"].category == "input"  # _fail returns a QuantizationError
