"""Tiled map import (JSON ``.tmj``/``.json`` and XML ``.tmx``): polygon, rectangle and ellipse objects of object layers.

Tiled's pixel coordinates (y down, object rotation in degrees clockwise about the object's origin, layer offsets)
become metres with one tile = one metre in each direction (``tilewidth`` px across, ``tileheight`` px down), y
flipped against the map's height; ``--scale`` sets metres per pixel instead. Ellipses are flattened to
``ImportOptions.tolerance``; polylines become routes or lines; tile and point objects and hidden layers and
objects are skipped.
An object's role: its custom property ``role`` (obstacle, route, ignore, terrain:TYPE) or ``terrain`` (a type
id); its keys are its class (``class`` or the older ``type``) and then its layer's name, for ``--map``.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
from shapely.geometry import LineString, Polygon

from core.scene.jsonio import read_json
from core.scene.problems import InputError, Problem

from .clean import ImportOptions
from .features import Feature, Role, Source, parse_role

_NUM_KEYS = ("x", "y", "width", "height", "rotation")


def _num(v: Any, where: str, key: str) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InputError([Problem(where, f"{key} is not a number: {v!r}")]) from None
    if not math.isfinite(f):
        raise InputError([Problem(where, f"{key} is not a finite number")])
    return f


def _tmx_props(el: ET.Element) -> list[dict]:
    props = el.find("properties")
    if props is None:
        return []
    return [{"name": p.get("name", ""), "value": p.get("value", p.text or "")} for p in props.findall("property")]


def _tmx_points(text: str, where: str) -> list[dict]:
    out = []
    for pair in text.split():
        xs = pair.split(",")
        if len(xs) != 2:
            raise InputError([Problem(where, f"bad point {pair!r} in points")])
        out.append({"x": xs[0], "y": xs[1]})
    return out


def _tmx_layer(el: ET.Element) -> dict:
    """A TMX layer element as the JSON format's dict, so one reader handles both."""
    if el.tag == "group":
        return {"type": "group", "name": el.get("name", ""), "offsetx": el.get("offsetx", 0),
                "offsety": el.get("offsety", 0),
                "layers": [_tmx_layer(c) for c in el if c.tag in ("group", "objectgroup")]}
    objs = []
    for o in el.findall("object"):
        d: dict[str, Any] = {k: o.get(k) for k in ("id", "name", "x", "y", "width", "height", "rotation", "gid",
                                                   "visible", "template") if o.get(k) is not None}
        d["class"] = o.get("class", o.get("type", ""))
        d["properties"] = _tmx_props(o)
        where = f"layer {el.get('name', '')!r}, object {d.get('id', '?')}"
        if o.find("ellipse") is not None:
            d["ellipse"] = True
        if o.find("point") is not None:
            d["point"] = True
        for tag in ("polygon", "polyline"):
            p = o.find(tag)
            if p is not None:
                d[tag] = _tmx_points(p.get("points", ""), where)
        objs.append(d)
    return {"type": "objectgroup", "name": el.get("name", ""), "offsetx": el.get("offsetx", 0),
            "offsety": el.get("offsety", 0), "visible": el.get("visible", "1"), "objects": objs}


def _read_tmx(path: Path) -> dict:
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {path}")]) from None
    except ET.ParseError as e:
        line, col = e.position
        raise InputError([Problem(f"line {line}, column {col}", f"malformed XML: {e}")], str(path)) from None
    if root.tag != "map":
        raise InputError([Problem("", f"not a Tiled map: the root element is <{root.tag}>, not <map>")], str(path))
    m: dict[str, Any] = {k: root.get(k) for k in ("width", "height", "tilewidth", "tileheight", "infinite",
                                                  "orientation")}
    m["layers"] = [_tmx_layer(c) for c in root if c.tag in ("group", "objectgroup")]
    return m


def _hidden(d: dict) -> bool:
    """Whether a layer or object is hidden (``visible`` false in JSON, ``0`` in TMX)."""
    return str(d.get("visible", True)).lower() in ("false", "0")


def is_tiled_json(data: Any) -> bool:
    """Whether parsed JSON looks like a Tiled map (a map with tile sizes and layers)."""
    return isinstance(data, dict) and "tilewidth" in data and "layers" in data and data.get("type", "map") == "map"


def _object_role(o: dict, where: str) -> Role | None:
    props = {p.get("name"): p.get("value") for p in o.get("properties", []) or [] if isinstance(p, dict)}
    if props.get("role"):
        return parse_role(str(props["role"]), where)
    if props.get("terrain"):
        return parse_role("terrain:" + str(props["terrain"]), where)
    return None


def read_tiled(path: str | Path, opts: ImportOptions, data: dict | None = None) -> Source:
    """The objects of a Tiled map (JSON or TMX) as features in metres (y up)."""
    p = Path(path)
    if data is None:
        data = _read_tmx(p) if p.suffix.lower() == ".tmx" else read_json(p)
    if not is_tiled_json(data):
        raise InputError([Problem("", "not a Tiled map (expected tilewidth, tileheight and layers)")], str(p))
    orientation = str(data.get("orientation", "orthogonal") or "orthogonal")
    if orientation != "orthogonal":
        raise InputError([Problem("map", f"{orientation} maps are not supported (only orthogonal ones: their pixel "
                                         "coordinates are a plan view)")], str(p))
    tw = _num(data.get("tilewidth"), "map", "tilewidth")
    th = _num(data.get("tileheight"), "map", "tileheight")
    if tw <= 0 or th <= 0:
        raise InputError([Problem("map", "tilewidth and tileheight must be positive")], str(p))
    if opts.scale is not None:
        sx = sy = opts.scale
        notes = [f"units: {opts.scale:g} m per pixel (--scale)"]
    else:
        sx, sy = 1.0 / tw, 1.0 / th
        notes = [f"units: one tile ({tw:g} x {th:g} px) = 1 m"]
    infinite = str(data.get("infinite", "0")).lower() in ("1", "true")
    width = _num(data.get("width", 0), "map", "width") * tw
    height = _num(data.get("height", 0), "map", "height") * th
    features: list[Feature] = []
    problems: list[Problem] = []
    raw: list[tuple[np.ndarray, bool, tuple[str, ...], str, str, Role | None]] = []

    def walk(layers: Any, ox: float, oy: float, depth: int) -> None:
        if not isinstance(layers, list) or depth > 64:
            return
        for layer in layers:
            if not isinstance(layer, dict):
                continue
            name = str(layer.get("name", ""))
            lx = ox + _num(layer.get("offsetx", 0) or 0, f"layer {name!r}", "offsetx")
            ly = oy + _num(layer.get("offsety", 0) or 0, f"layer {name!r}", "offsety")
            if layer.get("type") == "group":
                walk(layer.get("layers"), lx, ly, depth + 1)
                continue
            if layer.get("type") != "objectgroup" or _hidden(layer):
                continue
            for o in layer.get("objects", []) or []:
                if not isinstance(o, dict):
                    continue
                where = f"layer {name!r}, object {o.get('id', '?')}"
                try:
                    obj(o, name, where, lx, ly)
                except InputError as e:
                    problems.extend(e.problems)

    def obj(o: dict, layer: str, where: str, lx: float, ly: float) -> None:
        if "gid" in o or o.get("point") or o.get("text") is not None or _hidden(o):
            return
        if o.get("template"):
            raise InputError([Problem(where, f"uses the object template {o['template']!r}, which is not read: "
                                             "detach it in Tiled (Replace With Object... / Detach)")])
        x, y, w, h, rot = (_num(o.get(k, 0) or 0, where, k) for k in _NUM_KEYS)
        if "polygon" in o or "polyline" in o:
            key = "polygon" if "polygon" in o else "polyline"
            pts = o[key]
            if not isinstance(pts, list):
                raise InputError([Problem(where, f"{key} is not a list of points")])
            local = np.array([[_num(q.get("x"), where, key), _num(q.get("y"), where, key)]
                              for q in pts if isinstance(q, dict)], dtype=np.float64).reshape(-1, 2)
            closed = key == "polygon"
        elif o.get("ellipse"):
            if w <= 0 or h <= 0:
                raise InputError([Problem(where, "an ellipse needs a positive width and height")])
            r = 0.5 * max(w * sx, h * sy)
            n = max(8, int(math.ceil(math.pi / math.acos(max(-1.0, 1 - opts.tolerance / r)))) if r > opts.tolerance
                    else 8)
            t = np.linspace(0, 2 * math.pi, n, endpoint=False)
            local = np.column_stack([w / 2 * (1 + np.cos(t)), h / 2 * (1 + np.sin(t))])
            closed = True
        else:
            if w <= 0 or h <= 0:
                return
            local = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
            closed = True
        c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
        px = x + lx + local[:, 0] * c - local[:, 1] * s
        py = y + ly + local[:, 0] * s + local[:, 1] * c
        cls = str(o.get("class", o.get("type", "")) or "")
        keys = tuple(k for k in (cls, layer) if k)
        raw.append((np.column_stack([px, py]), closed, keys, where, layer, _object_role(o, where)))

    walk(data.get("layers"), 0.0, 0.0, 0)
    if problems:
        raise InputError(problems, str(p))
    if infinite or height <= 0:
        allpy = np.concatenate([a[:, 1] for a, *_ in raw]) if raw else np.zeros(1)
        height = float(allpy.max())
    for a, closed, keys, where, layer, role in raw:
        m = np.column_stack([a[:, 0] * sx, (height - a[:, 1]) * sy])
        geom = Polygon(m) if closed and len(m) >= 3 else LineString(m) if len(m) >= 2 else None
        if geom is not None:
            features.append(Feature(geom, keys, where, layer, role))
    page = (0.0, 0.0, width * sx, height * sy) if not infinite and width > 0 and height > 0 else None
    return Source(features, p.stem, page, notes)


__all__ = ["is_tiled_json", "read_tiled"]
