"""Items as flat drawing arrays: outlines as one (n, 2) float64 array of polylines separated by NaN rows, and
vertices as (m, 2) arrays, all in scene units. Shared by the selection layer and the tools' previews."""

from __future__ import annotations

import numpy as np

from core.scene import Scene
from core.scene.edits import agent_ends, item_rings, ring_is_closed

from .document import lookup

NAN_ROW = np.array([[np.nan, np.nan]])


def item_polylines(scene: Scene, kind: str, item) -> list[np.ndarray]:
    """The item's lines: closed rings repeat their first point; a network gives one 2-point line per edge; an
    agent the straight line from its start to its goal."""
    if kind == "network":
        nodes = np.asarray(item.nodes, dtype=np.float64).reshape(-1, 2)
        return [nodes[[a, b]] for a, b in item.edges]
    if kind == "agent":
        s, g = agent_ends(scene, item)
        return [np.array([s, g], dtype=np.float64)] if s is not None and g is not None else []
    out = []
    for ring in item_rings(kind, item):
        a = np.asarray(ring, dtype=np.float64).reshape(-1, 2)
        out.append(np.vstack([a, a[:1]]) if ring_is_closed(kind) and len(a) else a)
    return out


def join_polylines(lines: list[np.ndarray]) -> np.ndarray:
    """Polylines joined into one (n, 2) array with a NaN row after each (for ``connect='finite'``)."""
    if not lines:
        return np.zeros((0, 2))
    parts = []
    for a in lines:
        parts.append(a)
        parts.append(NAN_ROW)
    return np.vstack(parts)


def outlines(scene: Scene, refs, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """The outlines of these items, moved by (dx, dy), as one NaN-separated (n, 2) array."""
    lines = []
    for kind, it in lookup(scene, refs):
        lines.extend(item_polylines(scene, kind, it))
    out = join_polylines(lines)
    if len(out) and (dx or dy):
        out = out + np.array([dx, dy])
    return out


def vertices(scene: Scene, refs, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """The editable vertices of these items (agents: start and goal), moved by (dx, dy), as (m, 2)."""
    pts = []
    for kind, it in lookup(scene, refs):
        if kind == "agent":
            s, g = agent_ends(scene, it)
            pts.extend(p for p in (s, g) if p is not None)
        else:
            for ring in item_rings(kind, it):
                pts.extend(ring)
    a = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    return a + np.array([dx, dy]) if len(a) else a
