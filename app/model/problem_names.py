"""Problems as the window words them: the engine locates a problem by its JSON path (``obstacles[1].polygon``),
which names a list position a user never sees; the window names the item by its id instead (``obstacle 'wall'``),
as the Scene panel lists it."""

from __future__ import annotations

import re

from core.scene import Scene
from core.scene.problems import Problem

# The scene's lists of items with ids, by their JSON name: the singular a message uses.
ITEM_LISTS = {"obstacles": "obstacle", "terrains": "terrain polygon", "routes": "route", "networks": "network",
              "agents": "agent", "profiles": "profile", "terrain_types": "terrain type"}
_PATH = re.compile(r"\b(" + "|".join(ITEM_LISTS) + r")\[(\d+)\](?:\.(\w+))?")


def named(scene: Scene | None, text: str) -> str:
    """``text`` with every ``obstacles[1]``-style path of ``scene`` replaced by the item's kind and id; a path
    the scene has no item for is left as it is."""
    if scene is None:
        return text

    def name(m: re.Match) -> str:
        items = getattr(scene, m.group(1), None)
        k = int(m.group(2))
        if items is None or k >= len(items):
            return m.group(0)
        field = f" {m.group(3)}" if m.group(3) else ""
        return f"{ITEM_LISTS[m.group(1)]} {items[k].id!r}{field}"

    return _PATH.sub(name, text)


def problem_text(scene: Scene | None, problem: Problem) -> str:
    """One problem as a sentence naming its item: ``obstacle 'wall' polygon: lies entirely outside the bounds``."""
    return named(scene, str(problem))
