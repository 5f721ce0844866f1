"""2-D cross products: the orientation test of the funnels and convex decompositions (positive: counter-clockwise).

``orient(o, a, b)`` is the z-component of (a - o) x (b - o), twice the signed area of the triangle o, a, b;
``cross(a, b)`` the same for two vectors. The jitted forms take scalars (called from kernels); ``orient_points``
takes two-element sequences for the Python-level decompositions. This is floating-point arithmetic, not the exact
predicate of ``core.navmesh.kernels.predicates``.
"""

from collections.abc import Sequence

from core.jitcache import jit


@jit(noalloc=True)
def orient(ox: float, oy: float, ax: float, ay: float, bx: float, by: float) -> float:
    """(a - o) x (b - o)."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@jit(noalloc=True)
def cross(ax: float, ay: float, bx: float, by: float) -> float:
    """a x b."""
    return ax * by - ay * bx


def orient_points(o: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    """(a - o) x (b - o) of points given as (x, y) sequences or array rows, in Python."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))
