"""A binary min-heap on two flat arrays, for the A* searches (routes, portal, ECM corridors).

``hk`` (capacity,) float64 holds the keys and ``hv`` (capacity,) int64 the values; ``size`` is the number of
entries, passed in and returned (the kernels stay allocation-free). The smallest key is at ``hk[0]``, its value at
``hv[0]``. Ties keep the earlier position (children are compared strictly), so searches pop equal keys in a fixed
order and their results are reproducible.
"""

import numpy as np
import numpy.typing as npt

from core.jitcache import jit


@jit(noalloc=True)
def heap_push(hk: npt.NDArray[np.float64], hv: npt.NDArray[np.int64], size: int, key: float, val: int) -> int:
    """Insert (key, val); return the new size. The arrays must have room for ``size + 1`` entries."""
    i = size
    hk[i] = key
    hv[i] = val
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hv[p], hv[i] = hv[i], hv[p]
        i = p
    return size + 1


@jit(noalloc=True)
def heap_pop(hk: npt.NDArray[np.float64], hv: npt.NDArray[np.int64], size: int) -> int:
    """Remove the smallest entry (read ``hk[0]``, ``hv[0]`` first); return the new size."""
    size -= 1
    hk[0] = hk[size]
    hv[0] = hv[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hk[c + 1] < hk[c]:
            c += 1
        if hk[i] <= hk[c]:
            break
        hk[c], hk[i] = hk[i], hk[c]
        hv[c], hv[i] = hv[i], hv[c]
        i = c
    return size
