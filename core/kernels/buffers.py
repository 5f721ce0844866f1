"""Growing a flat array inside a kernel that ran out of room: the capacity doubles, so n appends cost O(n).

The caller keeps its own count of used rows and rebinds the array: ``a = reserve(a, n + 1)`` before writing row n.
"""

import numpy as np
import numpy.typing as npt

from core.jitcache import jit


@jit
def reserve(a: npt.NDArray[np.generic], n: int) -> npt.NDArray[np.generic]:
    """``a`` if it has at least ``n`` rows, else a copy with the capacity doubled until it has (rows beyond the old
    ones uninitialised)."""
    if n <= a.shape[0]:
        return a
    m = max(a.shape[0], 1)
    while m < n:
        m *= 2
    b = np.empty((m,) + a.shape[1:], dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@jit
def doubled(a: npt.NDArray[np.generic], n: int) -> npt.NDArray[np.generic]:
    """A copy of ``a`` with twice the rows, of which the first ``n`` are copied (the rest uninitialised)."""
    b = np.empty((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b
