"""The neighbour-grid scan: which cells of a uniform grid a disc around a point touches.

The grid (``core.sim.neighbors``) has its origin at (gx0, gy0), square cells of side ``cell``, ``ncx`` by ``ncy``
cells, row-major (cell index cy * ncx + cx); the agents of cell c are ``order[cell_start[c]:cell_start[c + 1]]``.
"""

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
