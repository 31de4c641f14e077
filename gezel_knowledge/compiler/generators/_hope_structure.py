"""vuepress-theme-hope's ``'structure'`` sidebars: the pages of a folder (the scope) as the
theme arranges them.

The scope's pages form a tree of folders. In each folder the entries are sorted by the
theme's default sorters, each deciding only when the ones before it tie: a ``README.md``
first; then front matter ``order`` (a folder's from its README's ``dir.order``): positive
orders ascending before the entries without one, negative orders ascending after them; then
the title (a page's ``shortTitle``, else its ``title``, else its first ``#`` heading; a
folder's ``dir.text``, else its README's title, else its name with ``-`` and ``_`` as
spaces), compared case-blind with numbers by value; then the file or folder name, likewise (a
file before a folder of the same name). A page whose front matter says ``index: false`` is
left out, and so is a folder whose README says ``dir: {index: false}``, with its pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

__all__ = ["Entry", "PageInfo", "structure"]

_README = "readme.md"
_NUMBER = re.compile(r"(\d{1,40})")
_MAX_DEPTH = 32


@dataclass(frozen=True, slots=True)
class PageInfo:
    """What the sorters read of one page: its front matter and its title."""

    front: Mapping[str, Any]
    title: str


@dataclass(slots=True)
class Entry:
    """A page (``rel`` set) or a folder (``children``) of a structure sidebar."""

    name: str
    title: str
    order: float | None
    rel: str | None = None
    children: list[Entry] = field(default_factory=list)

    @property
    def readme(self) -> bool:
        return self.rel is not None and self.name.lower() == _README


def _order(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _natural(text: str) -> list[tuple[int, int, str]]:
    """A key comparing text case-blind, runs of digits by their value."""
    key = []
    for n, part in enumerate(_NUMBER.split(text.casefold())):
        if n % 2:
            key.append((0, int(part), ""))
        elif part:
            key.append((1, 0, part))
    return key


def _sign(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


def _by_order(a: float | None, b: float | None) -> int:
    # Positive orders come first (ascending), then entries without one, then negative
    # orders (ascending): the theme's order sorter, which treats 0 with the negatives.
    if a is None:
        return 0 if b is None else _sign(b, 0)
    if b is None:
        return -_sign(a, 0)
    if a > 0:
        return _sign(a, b) if b > 0 else -1
    return _sign(a, b) if b < 0 else 1


def _compare(a: Entry, b: Entry) -> int:
    if a.readme:
        return -1
    if b.readme:
        return 1
    found = _by_order(a.order, b.order)
    if found:
        return found
    found = _sign(_natural(a.title), _natural(b.title))
    if found:
        return found
    stem_a = a.name[:-3] if a.rel is not None and a.name.endswith(".md") else a.name
    stem_b = b.name[:-3] if b.rel is not None and b.name.endswith(".md") else b.name
    found = _sign(_natural(stem_a), _natural(stem_b))
    if found:
        return found
    return _sign(a.rel is None, b.rel is None)  # a file before a folder of its name


def _folder_title(name: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", name).split())


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _entries(tree: dict[str, Any], info: Callable[[str], PageInfo], depth: int) -> list[Entry]:
    out: list[Entry] = []
    for name, value in tree.items():
        if isinstance(value, str):  # a page: its path
            page = info(value)
            if page.front.get("index") is False:
                continue
            title = _text(page.front.get("shortTitle")) or page.title
            out.append(Entry(name, title, _order(page.front.get("order")), value))
            continue
        if depth >= _MAX_DEPTH:
            continue
        readme = next(
            (v for k, v in value.items() if isinstance(v, str) and k.lower() == _README), None
        )
        title, order = _folder_title(name), None
        if readme is not None:
            page = info(readme)
            options = _mapping(page.front.get("dir"))
            if options.get("index") is False:
                continue
            title = _text(options.get("text")) or _text(page.front.get("shortTitle")) or page.title
            order = _order(options.get("order"))
        out.append(Entry(name, title, order, None, _entries(value, info, depth + 1)))
    out.sort(key=cmp_to_key(_compare))
    return out


def structure(pages: Sequence[str], scope: str, info: Callable[[str], PageInfo]) -> list[Entry]:
    """The structure sidebar of the pages under ``scope`` (``''`` or ``'guide/'``), sorted
    as the module docstring says; ``info`` gives a page's front matter and title."""
    tree: dict[str, Any] = {}
    for rel in pages:
        if not rel.startswith(scope):
            continue
        *folders, name = rel[len(scope) :].split("/")
        node = tree
        for folder in folders:
            child = node.setdefault(folder, {})
            if isinstance(child, str):  # a file and a folder of one name: keep the file
                break
            node = child
        else:
            node.setdefault(name, rel)
    return _entries(tree, info, 0)
