"""Named tuples of arrays that the GVD kernels take whole (numba types them as named tuples; fields read by name).

``ConvexPieces`` and ``RealEdges`` are views of ``Sites``' flat arrays (no copies), ``SiteBuckets`` a bucket grid
of the sites' bounding boxes and ``PixelGrid`` the raster of a GVD image.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class ConvexPieces(NamedTuple):
    """The GVD's sites as convex polygons: site s is ``xy[vert[ptr[s]:ptr[s+1]]]`` with bounding box ``bbox[s]``."""

    ptr: np.ndarray
    vert: np.ndarray
    xy: np.ndarray
    bbox: np.ndarray


class RealEdges(NamedTuple):
    """The ring edges bounding each site (``edge[ptr[s]:ptr[s+1]]``), for exact closest points; ``bbox`` per site."""

    ptr: np.ndarray
    edge: np.ndarray
    xy: np.ndarray
    ring_next: np.ndarray
    bbox: np.ndarray


class SiteBuckets(NamedTuple):
    """Square cells of side ``size`` from (x0, y0), ``nx`` by ``ny``; cell c lists sites ``idx[ptr[c]:ptr[c+1]]``."""

    x0: float
    y0: float
    size: float
    nx: int
    ny: int
    ptr: np.ndarray
    idx: np.ndarray


class PixelGrid(NamedTuple):
    """An image of ``width`` x ``height`` pixels of side ``h``; pixel (i, j) has its centre at
    (x0 + (j + 0.5) h, y0 + (i + 0.5) h)."""

    width: int
    height: int
    h: float
    x0: float
    y0: float


def convex_pieces(sites) -> ConvexPieces:
    """The convex-piece view of a ``Sites``."""
    return ConvexPieces(sites.piece_ptr, sites.piece_vert, sites.ring_xy, sites.piece_bbox)


def real_edges(sites) -> RealEdges:
    """The real-edge view of a ``Sites``."""
    return RealEdges(sites.real_ptr, sites.real_edge, sites.ring_xy, sites.ring_next, sites.piece_bbox)
