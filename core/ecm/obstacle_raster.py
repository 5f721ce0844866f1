"""The obstacles as a label image without OpenGL (for drawing an ECM built by the exact backend)."""

from __future__ import annotations

import numpy as np

from core.jitcache import jit

from .kernel_views import ConvexPieces, PixelGrid, convex_pieces
from .sites import Sites


@jit
def _fill_pieces(labels, pieces, pix):
    """Set -1 at the pixels whose centre lies in a convex piece (scanline fill of each piece's row span)."""
    h = pix.h
    for s in range(pieces.ptr.shape[0] - 1):
        a = pieces.ptr[s]
        n = pieces.ptr[s + 1] - a
        if n < 3:
            continue
        i0 = max(0, int(np.ceil((pieces.bbox[s, 1] - pix.y0) / h - 0.5)))
        i1 = min(pix.height - 1, int(np.floor((pieces.bbox[s, 3] - pix.y0) / h - 0.5)))
        for i in range(i0, i1 + 1):
            y = pix.y0 + (i + 0.5) * h
            lo = np.inf
            hi = -np.inf
            for k in range(n):
                u = pieces.vert[a + k]
                v = pieces.vert[a + (k + 1) % n]
                ya = pieces.xy[u, 1]
                yb = pieces.xy[v, 1]
                if (ya <= y <= yb) or (yb <= y <= ya):
                    if ya == yb:
                        xs0 = min(pieces.xy[u, 0], pieces.xy[v, 0])
                        xs1 = max(pieces.xy[u, 0], pieces.xy[v, 0])
                    else:
                        xs0 = pieces.xy[u, 0] + (y - ya) / (yb - ya) * (pieces.xy[v, 0] - pieces.xy[u, 0])
                        xs1 = xs0
                    lo = min(lo, xs0)
                    hi = max(hi, xs1)
            j0 = max(0, int(np.ceil((lo - pix.x0) / h - 0.5)))
            j1 = min(pix.width - 1, int(np.floor((hi - pix.x0) / h - 0.5)))
            for j in range(j0, j1 + 1):
                labels[i, j] = -1


def obstacle_labels(sites: Sites, height: int, width: int, h: float) -> np.ndarray:
    """(height, width) int32: -1 where the pixel centre lies in an obstacle, 0 elsewhere."""
    labels = np.zeros((height, width), dtype=np.int32)
    pieces: ConvexPieces = convex_pieces(sites)
    _fill_pieces(labels, pieces, PixelGrid(width, height, h, float(sites.bounds[0]), float(sites.bounds[1])))
    return labels
