"""The named structures the annotation kernels take (numba types each as a named tuple of arrays or floats).

Built once by ``core.ecm.annotate`` from the owners' arrays (``Sites``, the GVD pixels, the traced chains) and
passed whole; kernels read the fields by name.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SiteEdges(NamedTuple):
    """The real obstacle edges of every GVD site: what a closest-point query (``distance.set_closest``) reads.

    ``real_ptr``/``real_edge``: site s is bounded by ring edges ``real_edge[real_ptr[s]:real_ptr[s+1]]``; ring edge
    i runs from ``xy[i]`` to ``xy[ring_next[i]]`` (see ``core.ecm.sites.Sites``).
    """

    real_ptr: np.ndarray
    real_edge: np.ndarray
    xy: np.ndarray
    ring_next: np.ndarray


class Rings(NamedTuple):
    """The rest of the obstacle rings a chain's events are walked on: neighbours, ring index, arc position, normal."""

    ring_prev: np.ndarray
    ring_of: np.ndarray
    ring_pos: np.ndarray
    ring_len: np.ndarray
    normal: np.ndarray


class Frame(NamedTuple):
    """The GVD's pixel frame: centre of pixel (0, 0) at (x0, y0), pixel size h; ``scale`` the bounds' diagonal."""

    x0: float
    y0: float
    h: float
    scale: float


class CrackPixels(NamedTuple):
    """The GVD's site labels (H, W) int32 and its vertical/horizontal crack flags (``trace.crack_flags``)."""

    labels: np.ndarray
    vb: np.ndarray
    hb: np.ndarray


class Chains(NamedTuple):
    """The traced chains (``trace.trace_chains``): chain c runs over crack corners ``pts[ptr[c]:ptr[c+1]]`` with
    left/right site labels ``lab`` per crack, from node ``ends[c, 0]`` to node ``ends[c, 1]``."""

    ptr: np.ndarray
    pts: np.ndarray
    lab: np.ndarray
    ends: np.ndarray


class Nodes(NamedTuple):
    """The medial-axis nodes: pixel corner ``ij``, crack degree ``deg``; exact position ``xy``, clearance ``R`` and
    ``kind`` (``kinds.NODE_*``), filled in by the annotation."""

    ij: np.ndarray
    deg: np.ndarray
    xy: np.ndarray
    R: np.ndarray
    kind: np.ndarray
