"""Plain arrays for drawing the navigation mesh (the app's triangulation overlay); nothing here draws.

```python
seg, constrained = triangle_edges(mesh)   # (m, 4) float64 [x0, y0, x1, y1], (m,) bool
```
"""

from __future__ import annotations

import numpy as np

from .mesh import NavMesh


def triangle_edges(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """Every edge of the free triangles once: segments (m, 4) float64 [x0, y0, x1, y1] in scene units and
    (m,) bool, True where the edge is a constraint (an obstacle outline, the bounds or a terrain boundary).

    An interior edge is shared by two triangles and listed once (from the triangle whose index is smaller, or
    the only one on the free-space boundary).
    """
    nt = mesh.n_triangles
    if nt == 0:
        return np.zeros((0, 4), dtype=np.float64), np.zeros(0, dtype=bool)
    t = np.repeat(np.arange(nt, dtype=np.int64), 3)
    k = np.tile(np.arange(3, dtype=np.int64), nt)
    nb = mesh.neighbors.reshape(-1).astype(np.int64)
    keep = (nb < 0) | (t < nb)
    a = mesh.triangles[t[keep], k[keep]]
    b = mesh.triangles[t[keep], (k[keep] + 1) % 3]
    seg = np.hstack([mesh.vertices[a], mesh.vertices[b]])
    return seg, mesh.constrained.reshape(-1)[keep].copy()


__all__ = ["triangle_edges"]
