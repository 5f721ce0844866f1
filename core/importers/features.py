"""What every importer hands to the cleaning step: features in scene metres, and the roles they take.

A Feature is one drawn element of the source file (an SVG path, a DXF entity, a Tiled object, a GeoJSON feature,
an OSM way) already converted to scene coordinates (metres, y up). Its role (obstacle, terrain of some type,
route, or ignored) is chosen by the names in ``keys`` (class, layer, tag ...), most specific first: the user's
``--map KEY=ROLE`` entries win, then a role the file states itself, then the built-in guesses (``guess_role``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shapely.geometry.base import BaseGeometry

from core.scene.model import Profile, TerrainType
from core.scene.problems import InputError, Problem

KINDS = ("obstacle", "terrain", "route", "ignore")
# Layer or class names that mean an obstacle or a route without a --map entry (compared in lower case).
OBSTACLE_WORDS = frozenset({"obstacle", "obstacles", "wall", "walls", "building", "buildings", "solid", "blocked",
                            "0"})
ROUTE_WORDS = frozenset({"route", "routes"})
IGNORE_WORDS = frozenset({"defpoints", "ignore"})
# How ``--map`` and the import preview name the features that have no layer, class or other key (a shape in a
# plain SVG group, a GeoJSON feature without a layer property): ``--map "(no layer)=route"``; an empty name
# before '=' means the same.
NO_LAYER = "(no layer)"


@dataclass(frozen=True)
class Role:
    """What a feature becomes: ``kind`` is one of KINDS; ``type`` is the terrain type id for terrain."""

    kind: str
    type: str = ""

    def __str__(self) -> str:
        return f"terrain:{self.type}" if self.kind == "terrain" else self.kind


@dataclass(frozen=True)
class Feature:
    """One source element in scene metres (y up): its geometry, the names choosing its role, and where it is.

    ``where`` names the element for messages (``layer 'Walls', path 'rect12'``); ``layer`` groups loose lines
    that are closed into polygons together; ``role`` is a role the file states itself (a Tiled ``role``
    property, the OSM tag table), or None; ``width`` (metres) is a line's drawn width (an SVG stroke, a DXF
    polyline's constant width), which makes an open line on an obstacle or terrain layer an area (a wall);
    ``ident`` is an id the file states for the element as a scene item's id (a scene exported as GeoJSON), kept
    when the element becomes exactly one item; ``motion`` the schedule and motion such an export writes for an
    obstacle (``appears``, ``vanishes``, ``path``, ``speed``, ``loop``, ``turns``, as the scene format writes them):
    the obstacle is then kept as it is, one polygon, not merged with those it overlaps.
    """

    geometry: BaseGeometry
    keys: tuple[str, ...]
    where: str
    layer: str = ""
    role: Role | None = None
    width: float = 0.0
    ident: str = ""
    motion: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class Source:
    """What an importer read: the features, the page or map rectangle if the format has one (scene metres), the
    scene name, notes on units and projection for the report, the type colours and profile weights the format
    suggests (OSM's tag table), the terrain types (the first is the default) and profiles a scene export lists,
    ``skipped``: every source element read but not made a feature, as (where, why), so that the report names it
    (nothing is dropped silently), and ``extra``: scene fields a scene export carries as the scene format writes
    them (``networks``, ``agents``, ``simulation``, ``measurement``, ``heightfield``), checked by the scene
    validator with the rest."""

    features: list[Feature]
    name: str
    page: tuple[float, float, float, float] | None = None
    notes: list[str] = field(default_factory=list)
    colors: dict[str, str] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    types: list[TerrainType] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def skip(self, where: str, why: str) -> None:
        """Record a source element that is not imported, and why (listed in the report)."""
        self.skipped.append((where, why))


def layer_key(name: str) -> str:
    """The key a ``--map`` entry or the preview's table uses for a layer name: lower case, stripped; the features
    with no layer are ``""`` (spelt ``(no layer)`` or left empty)."""
    key = name.strip().lower()
    return "" if key == NO_LAYER else key


def slug(name: str) -> str:
    """A terrain type id from a layer or class name: lower case, runs of other characters turned into '-'."""
    s = re.sub(r"[^a-z0-9_]+", "-", name.strip().lower()).strip("-")
    return s or "terrain"


def parse_role(text: str, where: str = "--map") -> Role:
    """``obstacle``, ``route``, ``ignore``, ``terrain:TYPE`` or a bare TYPE (a terrain type id)."""
    t = text.strip()
    low = t.lower()
    if low in ("obstacle", "route", "ignore"):
        return Role(low)
    if low.startswith("terrain:"):
        t = t[len("terrain:"):].strip()
    if not t or low == "terrain":
        raise InputError([Problem(where, f"role {text!r} names no terrain type (use terrain:TYPE)")])
    return Role("terrain", slug(t))


def parse_role_map(entries: list[str] | None) -> dict[str, Role]:
    """``LAYER=ROLE`` strings into a map keyed by the lower-case LAYER. The last '=' separates the role, so OSM
    tags map as ``highway=footway=sidewalk``; ``(no layer)=ROLE`` (or ``=ROLE``) maps the features that have no
    layer; every malformed entry is reported at once."""
    out: dict[str, Role] = {}
    problems: list[Problem] = []
    for i, e in enumerate(entries or []):
        if "=" not in e:
            problems.append(Problem(f"--map {e!r}", "expected LAYER=ROLE (ROLE: obstacle, route, ignore, "
                                                     "terrain:TYPE or TYPE)"))
            continue
        key, role = e.rsplit("=", 1)
        try:
            out[layer_key(key)] = parse_role(role, f"--map {e!r}")
        except InputError as err:
            problems.extend(err.problems)
    if problems:
        raise InputError(problems)
    return out


def guess_role(keys: tuple[str, ...]) -> Role:
    """The built-in role of a feature whose keys no --map entry names: obstacle and route words, else a terrain
    type named after the first key, else (no names at all) an obstacle."""
    for k in keys:
        low = k.strip().lower()
        if low in OBSTACLE_WORDS:
            return Role("obstacle")
        if low in ROUTE_WORDS:
            return Role("route")
        if low in IGNORE_WORDS:
            return Role("ignore")
    for k in keys:
        if k.strip():
            return Role("terrain", slug(k))
    return Role("obstacle")


def resolve_role(feature: Feature, mapping: dict[str, Role]) -> Role:
    """The role of one feature: the user's map over its keys (a feature without keys is under ``(no layer)``),
    then the role the file states, then the guess."""
    for k in feature.keys or ("",):
        r = mapping.get(layer_key(k))
        if r is not None:
            return r
    if feature.role is not None:
        return feature.role
    return guess_role(feature.keys)


__all__ = ["Feature", "KINDS", "NO_LAYER", "Role", "Source", "guess_role", "layer_key", "parse_role", "parse_role_map",
           "resolve_role",
           "slug"]
