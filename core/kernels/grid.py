"""The neighbour-grid scan: which cells of a uniform grid a disc around a point touches.

The grid (``core.sim.neighbors``) has its origin at (gx0, gy0), square cells of side ``cell``, ``ncx`` by ``ncy``
cells, row-major (cell index cy * ncx + cx); the agents of cell c are ``order[cell_start[c]:cell_start[c + 1]]``.
"""

import math

from core.jitcache import jit


@jit(inline=True, noalloc=True)
def cell_range(gx0: float, gy0: float, cell: float, ncx: int, ncy: int, x: float, y: float,
               reach: float) -> tuple[int, int, int, int]:
    """(cx0, cx1, cy0, cy1), inclusive and clamped to the grid: the cells within ``reach`` of (x, y) along each axis."""
    cx0 = max(int((x - reach - gx0) / cell), 0)
    cx1 = min(int((x + reach - gx0) / cell), ncx - 1)
    cy0 = max(int((y - reach - gy0) / cell), 0)
    cy1 = min(int((y + reach - gy0) / cell), ncy - 1)
    return cx0, cx1, cy0, cy1


@jit(inline=True, noalloc=True)
def disc_row_span(gx0: float, gy0: float, cell: float, ncx: int, ncy: int, x: float, y: float, reach: float,
                  cy: int) -> tuple[int, int]:
    """(cx0, cx1), inclusive and clamped: the cells of row cy that can hold a point within ``reach`` of (x, y). The
    row's corner cells beyond the disc are left out; a margin far above rounding keeps every cell a point with
    |p - (x, y)|^2 <= reach^2 (as a scan computes it) may lie in, border rows and columns holding what lies beyond.
    Intersect it with ``cell_range``'s columns to scan a subset of what that scans."""
    margin = 1e-6 * (cell + abs(gx0) + abs(gy0) + abs(x) + abs(y))
    lo = gy0 + cy * cell
    dy = 0.0
    if y < lo and cy > 0:
        dy = lo - y
    elif y > lo + cell and cy < ncy - 1:
        dy = y - lo - cell
    dy = max(dy - margin, 0.0)
    half = math.sqrt(max(reach * reach - dy * dy, 0.0)) + margin
    cx0 = max(min(int((x - half - gx0) / cell), ncx - 1), 0)
    cx1 = min(max(int((x + half - gx0) / cell), 0), ncx - 1)
    return cx0, cx1
