"""Exact annotation of the traced Voronoi edges (ECM section II-B): vertices, event points, closest points.

The pixels only say *which* two obstacles form an edge and roughly where it runs; every number stored comes from
the obstacles' geometry. The phases, one module each:

- ``vertices``: a Voronoi vertex is the point equidistant from the three (or more) sites around its node, solved
  by Gauss-Newton from the pixel corner;
- ``ends``: an edge ending in an obstacle concavity ends exactly at the vertex that the two sides share; other
  ends of degree 1 or 2 are projected onto the bisector of the two sides;
- ``samples``: crack midpoints along the chain, each with the closest feature of both sides;
- ``ray_events``: where a side's closest feature changes, the event on the half-line from the obstacle vertex
  along the edge normal, in closed form (``distance.ray_bisector``);
- ``events``: the chain's ordered event rows, with the clearance minimum inserted inside a piece where there is
  one, so that the clearance is monotone between consecutive events; ``lengths``: their arc lengths;
- ``chains``: the kernel that runs these phases over every chain; ``split``: two vertices seen as one node.

The kernels take the named structures of ``arrays`` (site edges, rings, pixel frame, chains, nodes). Storage: a
chain's events come from ring features that its sides pass, so their number is linear in the obstacles' vertices
(ECM II-B).
"""

from __future__ import annotations

import numpy as np

from .arrays import Chains, CrackPixels, Frame, Nodes, Rings, SiteEdges
from .chains import chain_events
from .kinds import MAX_SIDE, NODE_INEXACT, NODE_OPEN, NODE_TOUCH, NODE_VERTEX
from .lengths import interval_length
from .split import split_four_way
from .vertices import node_vertices

__all__ = ["MAX_SIDE", "NODE_INEXACT", "NODE_OPEN", "NODE_TOUCH", "NODE_VERTEX", "Chains", "CrackPixels", "Frame",
           "Nodes", "Rings", "SiteEdges", "annotate_chains", "chain_events", "interval_length", "node_vertices",
           "solve_nodes", "split_four_way"]


def solve_nodes(node_ij: np.ndarray, node_deg: np.ndarray, labels: np.ndarray, vb: np.ndarray, hb: np.ndarray,
                real_ptr: np.ndarray, real_edge: np.ndarray, xy: np.ndarray, ring_next: np.ndarray, x0: float,
                y0: float, h: float, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact positions of the nodes where three or more cracks meet: (node_xy, node_R, node_kind).

    The build's entry point; it names the arrays and runs ``vertices.node_vertices``."""
    return node_vertices(node_ij, node_deg, CrackPixels(labels, vb, hb),
                         SiteEdges(real_ptr, real_edge, xy, ring_next),
                         Frame(float(x0), float(y0), float(h), float(scale)))


def annotate_chains(chain_ptr: np.ndarray, pts: np.ndarray, lab: np.ndarray, chain_nodes: np.ndarray,
                    node_ij: np.ndarray, node_deg: np.ndarray, node_xy: np.ndarray, node_R: np.ndarray,
                    node_kind: np.ndarray, real_ptr: np.ndarray, real_edge: np.ndarray, xy: np.ndarray,
                    ring_next: np.ndarray, ring_prev: np.ndarray, ring_of: np.ndarray, ring_pos: np.ndarray,
                    ring_len: np.ndarray, normal: np.ndarray, x0: float, y0: float, h: float,
                    scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Events of every chain; fills in the nodes of degree 1 and 2 (``node_xy``/``node_R``/``node_kind``).

    The build's entry point; it names the arrays and runs ``chains.chain_events`` (see there for the result)."""
    return chain_events(Chains(chain_ptr, pts, lab, chain_nodes),
                        Nodes(node_ij, node_deg, node_xy, node_R, node_kind),
                        SiteEdges(real_ptr, real_edge, xy, ring_next),
                        Rings(ring_prev, ring_of, ring_pos, ring_len, normal),
                        Frame(float(x0), float(y0), float(h), float(scale)))
