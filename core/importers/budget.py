"""The work an input may ask of an import, counted before the work is done.

A small file can ask for unbounded work: a DXF block that inserts ten blocks that each insert ten (10^6 copies
from 23 kB), an ellipse flattened at a nanometre, a path of 10^5 subpaths. Each reader counts what it is about
to make (elements after block and ``<use>`` expansion, vertices after flattening and buffering) and refuses, naming
the element and the limit, before it makes it. The limits are ``ImportOptions.max_elements`` and
``max_vertices`` (``miran import --max-elements / --max-vertices``); the cleaning's pairwise work (overlapping
terrain, crossing lines) is bounded by ``MAX_PAIRS``, a multiple of the element limit.
"""

from __future__ import annotations

from core.scene.problems import InputError, Problem

# Defaults. A scene holds at most 20,000 vertices (core.scene.parse.MAX_VERTICES); what is read may hold more,
# since the cleaning merges overlapping and touching shapes, but not unboundedly more.
MAX_ELEMENTS = 10_000
MAX_VERTICES = 200_000
# Pairs of overlapping terrain polygons or crossing lines the cleaning compares, per element allowed.
PAIRS_PER_ELEMENT = 50


class Budget:
    """Counts elements and vertices as a reader is about to make them; InputError past a limit.

    ``elements`` and ``vertices`` are the limits (``ImportOptions.max_elements`` / ``max_vertices``).
    """

    def __init__(self, elements: int = MAX_ELEMENTS, vertices: int = MAX_VERTICES) -> None:
        self.max_elements = int(elements)
        self.max_vertices = int(vertices)
        self.elements = 0
        self.vertices = 0

    @property
    def max_pairs(self) -> int:
        """How many overlapping or crossing pairs the cleaning may compare."""
        return self.max_elements * PAIRS_PER_ELEMENT

    def add_elements(self, where: str, n: int = 1, what: str = "") -> None:
        """Count ``n`` elements of ``where`` (a block reference's copies, a ``<use>``'s instances) before making
        them."""
        self.elements += int(n)
        if self.elements > self.max_elements:
            detail = f"{what} " if what else ""
            raise InputError([Problem(where, f"{detail}brings the file to {self.elements:,} elements, over the "
                                             f"limit of {self.max_elements:,}; to import it anyway, raise the "
                                             f"limit with --max-elements {_above(self.elements)}")])

    def add_vertices(self, where: str, n: int, what: str = "flattening", tolerance: float | None = None) -> None:
        """Count ``n`` vertices ``where`` is about to become; the message says how to import it anyway."""
        self.vertices += int(n)
        if self.vertices > self.max_vertices:
            coarser = (f"use a coarser --tolerance (now {tolerance:g} m; halving the vertices takes four times "
                       "the tolerance) or " if tolerance is not None else "")
            raise InputError([Problem(where, f"{what} makes {n:,} vertices, bringing the file to "
                                             f"{self.vertices:,}, over the limit of {self.max_vertices:,}; to import "
                                             f"it anyway, {coarser}raise the limit with --max-vertices "
                                             f"{_above(self.vertices)}")])

    def check_pairs(self, where: str, n: int, what: str) -> None:
        """Refuse before comparing ``n`` pairs of ``what`` (overlapping polygons, crossing lines)."""
        if n > self.max_pairs:
            raise InputError([Problem(where, f"{n:,} pairs of {what} would be compared, over the limit of "
                                             f"{self.max_pairs:,} ({PAIRS_PER_ELEMENT} per element allowed); to "
                                             "import it anyway, raise --max-elements")])


def _above(n: int) -> str:
    """The first of 1, 2, 5, 10, 20, 50 ... at or above ``n``: a round limit to suggest."""
    k = 1
    while True:
        for m in (1, 2, 5):
            if k * m >= n:
                return str(k * m)
        k *= 10


__all__ = ["Budget", "MAX_ELEMENTS", "MAX_VERTICES", "PAIRS_PER_ELEMENT"]
