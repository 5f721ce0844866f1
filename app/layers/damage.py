"""Where an edit changed the scene's picture: the bounds of each item that differs between the scene before and
after, so that the cached picture is drawn again only there (``RasterCache.invalidate``).

Each scene layer draws every item of a kind in z order, with the item's own geometry and colour, so an edit of
some items changes the picture only where those items were and are now: a building moved across a street changes
two rectangles of the city, not the whole view. Anything else (an edit of many items, items reordered, the bounds,
the terrain types' colours, the profiles) answers None: the whole picture is drawn again.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from core.scene import Scene
from core.scene.edits import agent_ends

# The scene's item lists whose items are drawn each within its own bounds (plus a few pixels of pen and marker).
ITEM_FIELDS = frozenset({"obstacles", "terrains", "routes", "networks", "agents"})
# More changed items than this draw the whole picture again (as cheap, and one rectangle each would not be).
MAX_ITEMS = 16

Rect = tuple[float, float, float, float]


def changed_rects(old: Scene, new: Scene, fields: Iterable[str]) -> list[Rect] | None:
    """(x0, y0, x1, y1) in scene units for each item of ``fields`` that differs between ``old`` and ``new``
    (added, removed or changed: the union of its bounds before and after); None when the whole picture must be
    drawn again."""
    fields = set(fields)
    if not fields or not fields <= ITEM_FIELDS:
        return None
    rects: list[Rect] = []
    for field in sorted(fields):
        before, after = list(getattr(old, field)), list(getattr(new, field))
        by_id = {it.id: it for it in before}
        now = {it.id: it for it in after}
        if len(by_id) != len(before) or len(now) != len(after):
            return None                   # ids repeated: items cannot be paired
        if [k for k in by_id if k in now] != [k for k in now if k in by_id]:
            return None                   # reordered: what overlaps is painted in another order
        for key in by_id.keys() | now.keys():
            a, b = by_id.get(key), now.get(key)
            if a == b:
                continue
            pts = [*_points(old, field, a), *_points(new, field, b)]
            if not pts:
                continue
            xy = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
            if not np.isfinite(xy).all():
                return None
            rects.append((float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max())))
            if len(rects) > MAX_ITEMS:
                return None
    return rects


def _points(scene: Scene, field: str, item) -> list:
    """The points whose bounds hold everything the layers draw of ``item`` (None: no points)."""
    if item is None:
        return []
    if field == "obstacles":
        return [*item.polygon, *(item.path or [])]
    if field == "terrains":
        return list(item.polygon)
    if field == "routes":
        return list(item.points)
    if field == "networks":
        return list(item.nodes)
    start, goal = agent_ends(scene, item)
    return [p for p in (start, goal) if p is not None]
