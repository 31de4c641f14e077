"""The characters include directives may put into one page.

Generators expand includes depth first, each included text expanded in turn: with a depth
limit alone, a file that includes another ``K`` times, ``D`` levels deep, is ``K**D`` copies
(a hostile source of a few kilobytes would take hours and all memory). Every directive of a
page, and of the text it puts in, draws on one :class:`Budget`; a directive past it is left as
written.
"""

from __future__ import annotations

__all__ = ["MAX_EXPANDED", "Budget"]

MAX_EXPANDED = 4 * 1024 * 1024
"""Characters a page's includes may put in, in all (a file used many times counts each time)."""


class Budget:
    """What is left of a page's :data:`MAX_EXPANDED` characters."""

    __slots__ = ("left",)

    def __init__(self, page: str = "") -> None:
        self.left = MAX_EXPANDED - len(page)

    def take(self, text: str) -> bool:
        """Count ``text`` against the budget; ``False`` (nothing counted) when it does not fit."""
        return self.spend(len(text))

    def spend(self, characters: int) -> bool:
        """Count ``characters`` against the budget; ``False`` (nothing counted) when they do not
        fit."""
        if characters > self.left:
            return False
        self.left -= characters
        return True
