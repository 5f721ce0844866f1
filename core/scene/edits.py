"""Scene edits as pure functions: each returns the changed top-level fields of a Scene and never mutates it.

An editor applies an edit by setting those fields on its scene and undoes it by setting the old values back, so
every edit is undoable by construction. Items (obstacles, routes ...) are treated as immutable values: an edit
replaces an item with a new one, and the lists it returns are new lists.

Items are named by kind and id (a ``Ref``: ``("obstacle", "b1")``); the kinds are the drawable ones in
``ITEM_KINDS`` plus ``terrain_type`` and ``profile``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .io import scene_to_dict
from .model import Agent, Network, Obstacle, Point, Profile, Route, Scene, TerrainPolygon, TerrainType
from .parse import parse_scene
from .problems import InputError, Problem

Changes = dict[str, Any]
Ref = tuple[str, str]

KIND_FIELD = {
    "terrain": "terrains", "obstacle": "obstacles", "route": "routes", "network": "networks", "agent": "agents",
    "terrain_type": "terrain_types", "profile": "profiles",
}
ITEM_KINDS = ("terrain", "obstacle", "route", "network", "agent")
ID_PREFIX = {
    "terrain": "t", "obstacle": "o", "route": "r", "network": "n", "agent": "a", "terrain_type": "type",
    "profile": "profile",
}
CLIPBOARD_FORMAT = "miran-clipboard"


def items(scene: Scene, kind: str) -> list:
    """The scene's list of items of one kind."""
    return getattr(scene, KIND_FIELD[kind])


def find(scene: Scene, kind: str, item_id: str):
    """The item of this kind and id, or None."""
    for it in items(scene, kind):
        if it.id == item_id:
            return it
    return None


def index_of(scene: Scene, kind: str, item_id: str) -> int:
    """The position of an item in its list, or -1."""
    for i, it in enumerate(items(scene, kind)):
        if it.id == item_id:
            return i
    return -1


def fresh_id(taken, prefix: str) -> str:
    """``prefix`` followed by the smallest number >= 1 that makes an id not in ``taken``."""
    taken = set(taken)
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def new_id(scene: Scene, kind: str) -> str:
    """A fresh id for a new item of this kind."""
    return fresh_id((it.id for it in items(scene, kind)), ID_PREFIX[kind])


def apply(scene: Scene, changes: Changes) -> Scene:
    """The scene with the changed fields set (a new Scene sharing the unchanged fields)."""
    return dataclasses.replace(scene, **changes)


def add_item(scene: Scene, kind: str, item) -> Changes:
    """Append an item (its id must be new)."""
    if find(scene, kind, item.id) is not None:
        raise ValueError(f"a {kind} with id {item.id!r} already exists")
    return {KIND_FIELD[kind]: [*items(scene, kind), item]}


def replace_item(scene: Scene, kind: str, item_id: str, new) -> Changes:
    """Replace the item with this id by ``new`` in place (same position in the list)."""
    i = index_of(scene, kind, item_id)
    if i < 0:
        raise KeyError(f"no {kind} {item_id!r}")
    lst = list(items(scene, kind))
    lst[i] = new
    return {KIND_FIELD[kind]: lst}


def remove_items(scene: Scene, refs) -> tuple[Changes, list[Ref]]:
    """Remove items; agents that follow a removed route go too. Returns the changes and the extra items removed."""
    drop: dict[str, set[str]] = {}
    for kind, item_id in refs:
        drop.setdefault(kind, set()).add(item_id)
    extra: list[Ref] = []
    gone_routes = drop.get("route", set())
    if gone_routes:
        for a in scene.agents:
            if a.route in gone_routes and a.id not in drop.get("agent", set()):
                drop.setdefault("agent", set()).add(a.id)
                extra.append(("agent", a.id))
    changes: Changes = {}
    for kind, gone in drop.items():
        before = items(scene, kind)
        after = [it for it in before if it.id not in gone]
        if len(after) != len(before):
            changes[KIND_FIELD[kind]] = after
    return changes, extra


def _shift(points, dx: float, dy: float) -> list[Point]:
    return [(float(x) + dx, float(y) + dy) for x, y in points]


def translate_item(kind: str, item, dx: float, dy: float):
    """The item moved by (dx, dy); an agent that follows a route keeps it (the route moves, not the agent)."""
    if kind == "obstacle":
        return dataclasses.replace(item, polygon=_shift(item.polygon, dx, dy))
    if kind == "terrain":
        return dataclasses.replace(item, polygon=_shift(item.polygon, dx, dy),
                                   holes=[_shift(h, dx, dy) for h in item.holes])
    if kind == "route":
        return dataclasses.replace(item, points=_shift(item.points, dx, dy))
    if kind == "network":
        return dataclasses.replace(item, nodes=_shift(item.nodes, dx, dy))
    if kind == "agent":
        start = None if item.start is None else _shift([item.start], dx, dy)[0]
        goal = None if item.goal is None else _shift([item.goal], dx, dy)[0]
        return dataclasses.replace(item, start=start, goal=goal)
    raise ValueError(f"cannot move a {kind}")


def translate_items(scene: Scene, refs, dx: float, dy: float) -> Changes:
    """Move several items by (dx, dy)."""
    want: dict[str, set[str]] = {}
    for kind, item_id in refs:
        want.setdefault(kind, set()).add(item_id)
    changes: Changes = {}
    for kind, chosen in want.items():
        changes[KIND_FIELD[kind]] = [
            translate_item(kind, it, dx, dy) if it.id in chosen else it for it in items(scene, kind)
        ]
    return changes


def item_rings(kind: str, item) -> list[list[Point]]:
    """The item's editable vertex lists: a polygon's shell then holes, a route's points, a network's nodes,
    an agent's [start, goal] (none for an agent that follows a route)."""
    if kind == "obstacle":
        return [list(item.polygon)]
    if kind == "terrain":
        return [list(item.polygon), *[list(h) for h in item.holes]]
    if kind == "route":
        return [list(item.points)]
    if kind == "network":
        return [list(item.nodes)]
    if kind == "agent":
        return [[item.start, item.goal]] if item.start is not None and item.goal is not None else []
    raise ValueError(f"unknown kind {kind!r}")


def ring_is_closed(kind: str) -> bool:
    """Whether a kind's vertex lists are closed rings (polygons) or open polylines / point sets."""
    return kind in ("obstacle", "terrain")


def min_vertices(kind: str) -> int:
    """The fewest vertices a ring of this kind may keep."""
    return {"obstacle": 3, "terrain": 3, "route": 2, "network": 2, "agent": 2}[kind]


def with_ring(kind: str, item, ring: int, points) -> Any:
    """The item with vertex list ``ring`` replaced by ``points``."""
    pts = [(float(x), float(y)) for x, y in points]
    if kind == "obstacle":
        return dataclasses.replace(item, polygon=pts)
    if kind == "terrain":
        if ring == 0:
            return dataclasses.replace(item, polygon=pts)
        holes = list(item.holes)
        holes[ring - 1] = pts
        return dataclasses.replace(item, holes=holes)
    if kind == "route":
        return dataclasses.replace(item, points=pts)
    if kind == "network":
        return dataclasses.replace(item, nodes=pts)
    if kind == "agent":
        return dataclasses.replace(item, start=pts[0], goal=pts[1])
    raise ValueError(f"unknown kind {kind!r}")


def move_vertex(kind: str, item, ring: int, index: int, p) -> Any:
    """The item with one vertex moved to ``p``."""
    pts = item_rings(kind, item)[ring]
    pts[index] = (float(p[0]), float(p[1]))
    return with_ring(kind, item, ring, pts)


def insert_vertex(kind: str, item, ring: int, after: int, p) -> tuple[Any, int]:
    """Insert ``p`` on the edge that starts at vertex ``after`` (for a network: splits edge number ``after``).

    Returns the new item and the new vertex's index.
    """
    if kind == "network":
        a, b = item.edges[after]
        k = len(item.nodes)
        edges = [e for i, e in enumerate(item.edges) if i != after] + [(a, k), (k, b)]
        return dataclasses.replace(item, nodes=[*item.nodes, (float(p[0]), float(p[1]))], edges=edges), k
    if kind == "agent":
        raise ValueError("an agent has no edges")
    pts = item_rings(kind, item)[ring]
    pts.insert(after + 1, (float(p[0]), float(p[1])))
    return with_ring(kind, item, ring, pts), after + 1


def delete_vertex(kind: str, item, ring: int, index: int):
    """The item without one vertex, or None when it would keep too few (a network also drops the node's edges)."""
    pts = item_rings(kind, item)[ring]
    if kind == "agent" or len(pts) - 1 < min_vertices(kind):
        return None
    if kind == "network":
        nodes = [p for i, p in enumerate(item.nodes) if i != index]
        edges = [(a - (a > index), b - (b > index)) for a, b in item.edges if index not in (a, b)]
        return dataclasses.replace(item, nodes=nodes, edges=edges)
    del pts[index]
    return with_ring(kind, item, ring, pts)


def network_with_node(net: Network, p) -> tuple[Network, int]:
    """The network with one more node at ``p``; returns it and the node's index."""
    return dataclasses.replace(net, nodes=[*net.nodes, (float(p[0]), float(p[1]))]), len(net.nodes)


def network_with_edge(net: Network, a: int, b: int) -> Network:
    """The network with an edge between nodes a and b (unchanged when that edge exists or a == b)."""
    if a == b or (a, b) in net.edges or (b, a) in net.edges:
        return net
    return dataclasses.replace(net, edges=[*net.edges, (int(a), int(b))])


def agent_ends(scene: Scene, agent: Agent) -> tuple[Point | None, Point | None]:
    """Where an agent starts and ends: its own start and goal, or else its route's first and last points."""
    start, goal = agent.start, agent.goal
    if agent.route is not None:
        r = find(scene, "route", agent.route)
        if r is not None:
            start = start if start is not None else r.points[0]
            goal = goal if goal is not None else r.points[-1]
    return start, goal


def rename(scene: Scene, kind: str, old: str, new: str) -> Changes:
    """Give an item a new id and update every reference to it (agents' routes and profiles, terrain types)."""
    new = new.strip()
    if not new:
        raise ValueError("an id must not be empty")
    if new == old:
        return {}
    if find(scene, kind, new) is not None:
        raise ValueError(f"the id {new!r} is already used by another {kind.replace('_', ' ')}")
    it = find(scene, kind, old)
    if it is None:
        raise KeyError(f"no {kind} {old!r}")
    changes = replace_item(scene, kind, old, dataclasses.replace(it, id=new))
    if kind == "route":
        changes["agents"] = [dataclasses.replace(a, route=new) if a.route == old else a for a in scene.agents]
    elif kind == "profile":
        changes["agents"] = [dataclasses.replace(a, profile=new) if a.profile == old else a for a in scene.agents]
    elif kind == "terrain_type":
        changes["terrains"] = [dataclasses.replace(t, type=new) if t.type == old else t for t in scene.terrains]
        changes["profiles"] = [
            dataclasses.replace(p, weights={(new if k == old else k): w for k, w in p.weights.items()})
            for p in scene.profiles
        ]
        if scene.default_terrain == old:
            changes["default_terrain"] = new
    return changes


def terrain_type_usage(scene: Scene, type_id: str) -> int:
    """How many terrain polygons paint this type."""
    return sum(1 for t in scene.terrains if t.type == type_id)


def remove_terrain_type(scene: Scene, type_id: str, replacement: str | None) -> Changes:
    """Remove a terrain type. Its polygons are repainted with ``replacement``, or deleted when it is None.

    The default type can only go with a replacement, which becomes the default; the last type cannot go.
    """
    if find(scene, "terrain_type", type_id) is None:
        raise KeyError(f"no terrain type {type_id!r}")
    if len(scene.terrain_types) < 2:
        raise ValueError("a scene needs at least one terrain type")
    if replacement == type_id or (replacement is not None and find(scene, "terrain_type", replacement) is None):
        raise ValueError(f"cannot replace {type_id!r} by {replacement!r}")
    if scene.default_terrain == type_id and replacement is None:
        raise ValueError(f"{type_id!r} is the default terrain type: choose a type to replace it")
    changes: Changes = {"terrain_types": [t for t in scene.terrain_types if t.id != type_id]}
    if replacement is None:
        changes["terrains"] = [t for t in scene.terrains if t.type != type_id]
    else:
        changes["terrains"] = [
            dataclasses.replace(t, type=replacement) if t.type == type_id else t for t in scene.terrains
        ]
    changes["profiles"] = [
        dataclasses.replace(p, weights={k: w for k, w in p.weights.items() if k != type_id}) for p in scene.profiles
    ]
    if scene.default_terrain == type_id:
        changes["default_terrain"] = replacement
    return changes


def profile_usage(scene: Scene, profile_id: str) -> int:
    """How many agents use this profile."""
    return sum(1 for a in scene.agents if a.profile == profile_id)


def remove_profile(scene: Scene, profile_id: str, replacement: str | None) -> Changes:
    """Remove a profile; its agents take ``replacement``, or are deleted when it is None."""
    if find(scene, "profile", profile_id) is None:
        raise KeyError(f"no profile {profile_id!r}")
    if replacement == profile_id or (replacement is not None and find(scene, "profile", replacement) is None):
        raise ValueError(f"cannot replace {profile_id!r} by {replacement!r}")
    changes: Changes = {"profiles": [p for p in scene.profiles if p.id != profile_id]}
    if replacement is None:
        changes["agents"] = [a for a in scene.agents if a.profile != profile_id]
    else:
        changes["agents"] = [
            dataclasses.replace(a, profile=replacement) if a.profile == profile_id else a for a in scene.agents
        ]
    return changes


def copy_items(scene: Scene, refs) -> dict[str, Any]:
    """A clipboard document for these items: a valid scene holding them (plus routes their agents follow)."""
    chosen: dict[str, list[str]] = {}
    for kind, item_id in refs:
        if kind in ITEM_KINDS and find(scene, kind, item_id) is not None:
            chosen.setdefault(kind, []).append(item_id)
    keep = {k: set(v) for k, v in chosen.items()}
    agents = [a for a in scene.agents if a.id in keep.get("agent", ())]
    route_ids = keep.get("route", set()) | {a.route for a in agents if a.route is not None}
    profile_ids = {a.profile for a in agents}
    sub = dataclasses.replace(
        scene,
        obstacles=[o for o in scene.obstacles if o.id in keep.get("obstacle", ())],
        terrains=[t for t in scene.terrains if t.id in keep.get("terrain", ())],
        routes=[r for r in scene.routes if r.id in route_ids],
        # Agents that plan on a network need one for the clipboard scene to be valid; it is not pasted.
        networks=[n for n in scene.networks
                  if n.id in keep.get("network", ()) or any(a.planner == "network" for a in agents)],
        agents=agents,
        profiles=[p for p in scene.profiles if p.id in profile_ids],
    )
    selected = [[k, i] for k in ITEM_KINDS for i in chosen.get(k, [])]
    return {"format": CLIPBOARD_FORMAT, "version": 1, "scene": scene_to_dict(sub), "items": selected}


def paste_items(scene: Scene, doc: Any, dx: float, dy: float) -> tuple[Changes, list[Ref]]:
    """Add the items of a clipboard document, moved by (dx, dy), with fresh ids where theirs are taken.

    Terrain types and profiles they need and the scene lacks are added; an agent keeps following the pasted copy
    of its route, or the scene's route of that id, or else a copy of its route is added. Raises InputError when
    the document is not a valid clipboard document.
    """
    if not isinstance(doc, dict) or doc.get("format") != CLIPBOARD_FORMAT or doc.get("version") != 1:
        raise InputError([Problem("", "the clipboard holds no MIRAN Studio items")], "clipboard")
    sub = parse_scene(doc.get("scene"), "clipboard")
    raw = doc.get("items")
    if not isinstance(raw, list) or not all(
        isinstance(r, list) and len(r) == 2 and r[0] in ITEM_KINDS and isinstance(r[1], str) for r in raw
    ):
        raise InputError([Problem("items", "expected a list of [kind, id] pairs")], "clipboard")
    selected = {(k, i) for k, i in raw}
    changes: Changes = {}
    added: list[Ref] = []

    def lst(kind: str) -> list:
        field = KIND_FIELD[kind]
        if field not in changes:
            changes[field] = list(getattr(scene, field))
        return changes[field]

    def taken(kind: str) -> set[str]:
        return {it.id for it in (changes.get(KIND_FIELD[kind]) or items(scene, kind))}

    def put(kind: str, item) -> str:
        nid = item.id if item.id not in taken(kind) else fresh_id(taken(kind), ID_PREFIX[kind])
        lst(kind).append(dataclasses.replace(translate_item(kind, item, dx, dy) if kind in ITEM_KINDS else item,
                                             id=nid))
        return nid

    type_ids = {t.id for t in scene.terrain_types}
    for t in sub.terrains:
        if ("terrain", t.id) in selected and t.type not in type_ids:
            lst("terrain_type").append(sub.terrain_types[sub.terrain_index(t.type)])
            type_ids.add(t.type)
    for a in sub.agents:
        if ("agent", a.id) in selected and find(scene, "profile", a.profile) is None and a.profile not in taken(
                "profile"):
            p = sub.profile(a.profile)
            lst("profile").append(dataclasses.replace(p, weights={k: w for k, w in p.weights.items() if k in type_ids}))
    for kind in ("obstacle", "terrain", "network"):
        for it in items(sub, kind):
            if (kind, it.id) in selected:
                added.append((kind, put(kind, it)))
    route_map: dict[str, str] = {}
    for r in sub.routes:
        if ("route", r.id) in selected:
            route_map[r.id] = put("route", r)
            added.append(("route", route_map[r.id]))
    for a in sub.agents:
        if ("agent", a.id) not in selected:
            continue
        route = a.route
        if route is not None:
            if route in route_map:
                route = route_map[route]
            elif find(scene, "route", route) is None:
                route_map[route] = put("route", sub.route(route))
                route = route_map[route]
        moved = dataclasses.replace(a, route=route)
        nid = a.id if a.id not in taken("agent") else fresh_id(taken("agent"), ID_PREFIX["agent"])
        lst("agent").append(dataclasses.replace(translate_item("agent", moved, dx, dy), id=nid))
        added.append(("agent", nid))
    return changes, added


def make_item(kind: str, item_id: str, **fields):
    """A new item of a drawable kind (for the editor's tools)."""
    cls = {"obstacle": Obstacle, "terrain": TerrainPolygon, "route": Route, "network": Network, "agent": Agent,
           "terrain_type": TerrainType, "profile": Profile}[kind]
    return cls(id=item_id, **fields)


__all__ = [
    "CLIPBOARD_FORMAT", "Changes", "ID_PREFIX", "ITEM_KINDS", "KIND_FIELD", "Ref", "add_item", "agent_ends",
    "apply", "copy_items", "delete_vertex", "find", "fresh_id", "index_of", "insert_vertex", "item_rings", "items",
    "make_item", "min_vertices", "move_vertex", "network_with_edge", "network_with_node", "new_id", "paste_items",
    "profile_usage", "remove_items", "remove_profile", "remove_terrain_type", "rename", "replace_item",
    "ring_is_closed", "terrain_type_usage", "translate_item", "translate_items", "with_ring",
]
