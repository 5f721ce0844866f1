"""Tiled map import (JSON ``.tmj``/``.json`` and XML ``.tmx``): objects of object layers and tiles of tile layers.

Tiled's pixel coordinates (y down, object rotation in degrees clockwise about the object's origin, layer offsets)
become metres with one tile = one metre in each direction (``tilewidth`` px across, ``tileheight`` px down), y
flipped against the map's height; ``--scale`` sets metres per pixel instead. Groups nest to any depth (read with
a stack, not recursion). Objects: polygons, rectangles and ellipses (flattened to ``ImportOptions.tolerance``)
are areas, polylines routes or lines. Tile layers (CSV, base64, base64 + zlib or gzip; finite maps and the chunks of
infinite ones): the cells of each tile class become one area per layer and class, each cell one map tile.
An object's or tile's role: its custom property ``role`` (obstacle, route, ignore, terrain:TYPE) or ``terrain``
(a type id); its keys are its class (``class`` or the older ``type``; a tile's from its tileset) and then its
layer's name, for ``--map``. Point and tile objects, text, image layers and hidden layers and objects are listed in
the report as not imported.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import math
import struct
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.fields import MAX_COORD
from core.scene.jsonio import read_json
from core.scene.problems import InputError, Problem

from .budget import Budget
from .clean import ImportOptions
from .curves import chords
from .features import Feature, Role, Source, parse_role
from .files import read_bytes

_NUM_KEYS = ("x", "y", "width", "height", "rotation")
GID_MASK = 0x1FFFFFFF          # the bits of a tile id left once Tiled's flip flags are cleared
# Tile cells a map may hold, per vertex the budget allows (decoding is cheap; the cells' areas are not).
CELLS_PER_VERTEX = 20


def _num(v: Any, where: str, key: str) -> float:
    if isinstance(v, bool):
        raise InputError([Problem(where, f"{key} is not a number: {v!r}")])
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        raise InputError([Problem(where, f"{key} is not a number: {str(v)[:40]!r}")]) from None
    if not math.isfinite(f):
        raise InputError([Problem(where, f"{key} is not a finite number")])
    return f


def _list(v: Any, where: str, key: str) -> list:
    """``v`` when it is a list (None counts as empty); InputError naming ``key`` otherwise."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise InputError([Problem(where, f"{key} is not a list: {str(v)[:40]!r}")])
    return v


# -- TMX into the JSON format's dicts --------------------------------------------------------------------------------
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
            raise InputError([Problem(where, f"bad point {pair[:40]!r} in points")])
        out.append({"x": xs[0], "y": xs[1]})
    return out


def _tmx_data(d: ET.Element | None) -> dict:
    """A TMX <data> element as the JSON format's data, encoding, compression and chunks."""
    if d is None:
        return {}
    out: dict[str, Any] = {"encoding": d.get("encoding", "xml"), "compression": d.get("compression", "")}
    chunks = d.findall("chunk")
    if chunks:
        out["chunks"] = [{"x": c.get("x", 0), "y": c.get("y", 0), "width": c.get("width", 0),
                          "height": c.get("height", 0), "data": _tmx_cells(c, out["encoding"])} for c in chunks]
    else:
        out["data"] = _tmx_cells(d, out["encoding"])
    return out


def _tmx_cells(el: ET.Element, encoding: str) -> Any:
    if encoding == "xml":
        return [int(t.get("gid", 0) or 0) for t in el.findall("tile")]
    return (el.text or "").strip()


def _tmx_object(o: ET.Element, layer_name: str) -> dict:
    d: dict[str, Any] = {k: o.get(k) for k in ("id", "name", "x", "y", "width", "height", "rotation", "gid",
                                               "visible", "template") if o.get(k) is not None}
    d["class"] = o.get("class", o.get("type", ""))
    d["properties"] = _tmx_props(o)
    where = f"layer {layer_name!r}, object {d.get('id', '?')}"
    for tag in ("ellipse", "point"):
        if o.find(tag) is not None:
            d[tag] = True
    if o.find("text") is not None:
        d["text"] = {}
    for tag in ("polygon", "polyline"):
        p = o.find(tag)
        if p is not None:
            d[tag] = _tmx_points(p.get("points", ""), where)
    return d


def _tmx_map(root: ET.Element) -> dict:
    """A TMX map as the JSON format's dict (groups converted with a stack, so any depth reads)."""
    m: dict[str, Any] = {k: root.get(k) for k in ("width", "height", "tilewidth", "tileheight", "infinite",
                                                  "orientation")}
    m["tilesets"] = [{"firstgid": ts.get("firstgid", 1), "source": ts.get("source"),
                      "tiles": [{"id": t.get("id", 0), "class": t.get("class", t.get("type", "")),
                                 "properties": _tmx_props(t)} for t in ts.findall("tile")]}
                     for ts in root.findall("tileset")]
    m["layers"] = []
    stack: list[tuple[ET.Element, list]] = [(root, m["layers"])]
    while stack:
        el, into = stack.pop()
        for c in el:
            name = c.get("name", "")
            base: dict[str, Any] = {"name": name, "offsetx": c.get("offsetx", 0), "offsety": c.get("offsety", 0),
                                    "visible": c.get("visible", "1")}
            d: dict[str, Any]
            if c.tag == "group":
                d = dict(base, type="group", layers=[])
                stack.append((c, d["layers"]))
            elif c.tag == "objectgroup":
                d = dict(base, type="objectgroup", objects=[_tmx_object(o, name) for o in c.findall("object")])
            elif c.tag == "layer":
                d = dict(base, type="tilelayer", width=c.get("width", 0), height=c.get("height", 0),
                         properties=_tmx_props(c), **_tmx_data(c.find("data")))
            elif c.tag == "imagelayer":
                d = dict(base, type="imagelayer")
            else:
                continue
            into.append(d)
    return m


def _read_tmx(path: Path) -> dict:
    data = read_bytes(path)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise InputError([Problem(f"line {line}, column {col}", f"malformed XML: {e}")], str(path)) from None
    if root.tag != "map":
        raise InputError([Problem("", f"not a Tiled map: the root element is <{root.tag}>, not <map>")], str(path))
    return _tmx_map(root)


def _hidden(d: dict) -> bool:
    """Whether a layer or object is hidden (``visible`` false in JSON, ``0`` in TMX)."""
    return str(d.get("visible", True)).lower() in ("false", "0")


def is_tiled_json(data: Any) -> bool:
    """Whether parsed JSON looks like a Tiled map (a map with tile sizes and layers)."""
    return isinstance(data, dict) and "tilewidth" in data and "layers" in data and data.get("type", "map") == "map"


def _props_role(props: Any, where: str) -> Role | None:
    """The role a ``role`` or ``terrain`` custom property states, or None."""
    table = {p.get("name"): p.get("value") for p in _list(props, where, "properties") if isinstance(p, dict)}
    if table.get("role"):
        return parse_role(str(table["role"]), where)
    if table.get("terrain"):
        return parse_role("terrain:" + str(table["terrain"]), where)
    return None


# -- tiles ----------------------------------------------------------------------------------------------------------
def _cells(data: Any, encoding: str, compression: str, n: int, where: str) -> np.ndarray:
    """A tile layer's (or chunk's) ``n`` cells as tile ids with the flip flags cleared."""
    if isinstance(data, list):
        vals = [int(_num(v, where, "data")) for v in data]
    elif encoding == "csv":
        try:
            vals = [int(v) for v in str(data).replace("\n", "").split(",") if v.strip()]
        except ValueError:
            raise InputError([Problem(where, "the CSV tile data holds something that is not a tile id")]) from None
    elif encoding == "base64":
        try:
            raw = base64.b64decode(str(data), validate=False)
        except (binascii.Error, ValueError):
            raise InputError([Problem(where, "the base64 tile data cannot be decoded")]) from None
        size = 4 * n
        try:
            if compression == "zlib":
                d = zlib.decompressobj()
                raw = d.decompress(raw, size + 1)
            elif compression == "gzip":
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                raw = d.decompress(raw, size + 1)
            elif compression:
                raise InputError([Problem(where, f"{compression}-compressed tile data is not supported: save the "
                                                 "map with CSV, base64, zlib or gzip tile layer data")])
        except (zlib.error, gzip.BadGzipFile):
            raise InputError([Problem(where, f"the {compression} tile data cannot be decompressed")]) from None
        if len(raw) != size:
            held = f"{len(raw) // 4} cells, not" if len(raw) < size else "more cells than"
            raise InputError([Problem(where, f"the tile data holds {held} the {n} of the layer's size")])
        vals = list(struct.unpack(f"<{n}I", raw))
    else:
        raise InputError([Problem(where, f"unknown tile data encoding {str(encoding)[:20]!r}")])
    if len(vals) != n:
        raise InputError([Problem(where, f"the tile data holds {len(vals)} cells, not the {n} of the layer's size")])
    return np.asarray(vals, dtype=np.int64) & GID_MASK


def _runs(grid: np.ndarray, ox: int, oy: int) -> dict[int, list[tuple[int, int, int]]]:
    """Per tile id, the horizontal runs of equal cells as (row, first column, past-last column), offset by the
    chunk's cell position."""
    out: dict[int, list[tuple[int, int, int]]] = {}
    for r in range(grid.shape[0]):
        row = grid[r]
        edges = np.flatnonzero(np.diff(np.concatenate([[-1], row, [-1]])) != 0)
        for a, b in zip(edges[:-1], edges[1:]):
            gid = int(row[a])
            if gid:
                out.setdefault(gid, []).append((oy + r, ox + int(a), ox + int(b)))
    return out


class _TileSets:
    """Tile id -> (class, role) from the map's embedded tilesets; external tilesets are named in a note."""

    def __init__(self, tilesets: Any, notes: list[str]) -> None:
        self.info: dict[int, tuple[str, Role | None]] = {}
        for ts in _list(tilesets, "map", "tilesets"):
            if not isinstance(ts, dict):
                continue
            first = int(_num(ts.get("firstgid", 1), "tileset", "firstgid"))
            if ts.get("source"):
                notes.append(f"tileset {str(ts['source'])[:80]!r} is in another file, which is not read: its tiles "
                             "are keyed by their layer only")
            for t in _list(ts.get("tiles"), "tileset", "tiles"):
                if isinstance(t, dict):
                    tid = int(_num(t.get("id", 0), "tileset", "tile id"))
                    where = f"tileset tile {tid}"
                    cls = str(t.get("class", t.get("type", "")) or "")
                    self.info[first + tid] = (cls, _props_role(t.get("properties"), where))

    def get(self, gid: int) -> tuple[str, Role | None]:
        return self.info.get(gid, ("", None))


# -- the map --------------------------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, opts: ImportOptions, budget: Budget, sx: float, sy: float, tw: float, th: float,
                 tiles: _TileSets) -> None:
        self.opts = opts
        self.budget = budget
        self.sx, self.sy, self.tw, self.th = sx, sy, tw, th
        self.tiles = tiles
        self.problems: list[Problem] = []
        self.skipped: list[tuple[str, str]] = []
        # (pixel points, closed, keys, where, layer, role); tile areas as (shapely geometry in px, keys, ...).
        self.raw: list[tuple[np.ndarray, bool, tuple[str, ...], str, str, Role | None]] = []
        self.tile_areas: list[tuple[Any, tuple[str, ...], str, str, Role | None]] = []
        self.cells = 0

    def walk(self, layers: Any) -> None:
        """Every layer in document order (later layers paint over earlier ones), groups followed with a stack of
        iterators, so any depth reads."""
        end = object()
        stack: list[tuple[Any, float, float, bool]] = [(iter(_list(layers, "map", "layers")), 0.0, 0.0, False)]
        while stack:
            it, ox, oy, hidden = stack[-1]
            layer = next(it, end)
            if layer is end:
                stack.pop()
                continue
            if not isinstance(layer, dict):
                continue
            name = str(layer.get("name", ""))
            lx = ox + _num(layer.get("offsetx", 0) or 0, f"layer {name!r}", "offsetx")
            ly = oy + _num(layer.get("offsety", 0) or 0, f"layer {name!r}", "offsety")
            hid = hidden or _hidden(layer)
            kind = layer.get("type")
            if kind == "group":
                stack.append((iter(_list(layer.get("layers"), f"layer {name!r}", "layers")), lx, ly, hid))
            elif kind == "objectgroup":
                for o in _list(layer.get("objects"), f"layer {name!r}", "objects"):
                    if isinstance(o, dict):
                        self.object(o, name, lx, ly, hid)
            elif kind == "tilelayer":
                try:
                    self.tile_layer(layer, name, lx, ly, hid)
                except InputError as e:
                    self.problems.extend(e.problems)
            elif kind == "imagelayer":
                self.skipped.append((f"image layer {name!r}", "an image layer is a picture, not geometry"))

    def object(self, o: dict, layer: str, lx: float, ly: float, hidden: bool) -> None:
        where = f"layer {layer!r}, object {str(o.get('id', '?'))[:40]}"
        try:
            why = self.skip_reason(o, hidden)
            if why:
                self.skipped.append((where, why))
                return
            self.shape(o, layer, where, lx, ly)
        except InputError as e:
            self.problems.extend(e.problems)

    @staticmethod
    def skip_reason(o: dict, hidden: bool) -> str:
        if hidden or _hidden(o):
            return "hidden (in a hidden layer, or itself)"
        if "gid" in o:
            return "a tile object (an image; draw a rectangle or polygon to import it)"
        if o.get("point"):
            return "a point object (neither area nor line)"
        if o.get("text") is not None:
            return "a text object"
        return ""

    def shape(self, o: dict, layer: str, where: str, lx: float, ly: float) -> None:
        if o.get("template"):
            raise InputError([Problem(where, f"uses the object template {str(o['template'])[:80]!r}, which is not "
                                             "read: detach it in Tiled (Replace With Object... / Detach)")])
        x, y, w, h, rot = (_num(o.get(k, 0) or 0, where, k) for k in _NUM_KEYS)
        reach = max(abs(x + lx), abs(y + ly)) + math.hypot(w, h)
        if reach * max(self.sx, self.sy) > MAX_COORD:
            raise InputError([Problem(where, f"reaches {reach:g} px, beyond the scene's limit of +/-{MAX_COORD:g} m "
                                             "(see --scale)")])
        if "polygon" in o or "polyline" in o:
            key = "polygon" if "polygon" in o else "polyline"
            pts = _list(o[key], where, key)
            self.budget.add_vertices(where, len(pts), f"its {key}")
            local = np.array([[_num(q.get("x"), where, key), _num(q.get("y"), where, key)]
                              for q in pts if isinstance(q, dict)], dtype=np.float64).reshape(-1, 2)
            closed = key == "polygon"
        elif o.get("ellipse"):
            if w <= 0 or h <= 0:
                raise InputError([Problem(where, "an ellipse needs a positive width and height")])
            r = 0.5 * max(w * self.sx, h * self.sy)
            n = chords(r, 2 * math.pi, self.opts.tolerance, least=8)
            self.budget.add_vertices(where, n, "flattening the ellipse", tolerance=self.opts.tolerance)
            t = np.linspace(0, 2 * math.pi, n, endpoint=False)
            local = np.column_stack([w / 2 * (1 + np.cos(t)), h / 2 * (1 + np.sin(t))])
            closed = True
        else:
            if w <= 0 or h <= 0:
                self.skipped.append((where, "a rectangle of zero width or height"))
                return
            self.budget.add_vertices(where, 4)
            local = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
            closed = True
        c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
        px = x + lx + local[:, 0] * c - local[:, 1] * s
        py = y + ly + local[:, 0] * s + local[:, 1] * c
        cls = str(o.get("class", o.get("type", "")) or "")
        keys = tuple(k for k in (cls, layer) if k)
        self.raw.append((np.column_stack([px, py]), closed, keys, where, layer, _props_role(o.get("properties"),
                                                                                            where)))

    def tile_layer(self, layer: dict, name: str, lx: float, ly: float, hidden: bool) -> None:
        where = f"tile layer {name!r}"
        if hidden:
            self.skipped.append((where, "hidden (in a hidden layer, or itself)"))
            return
        enc, comp = str(layer.get("encoding", "csv") or "csv"), str(layer.get("compression", "") or "")
        pieces = []
        if layer.get("chunks") is not None:
            for k, ch in enumerate(_list(layer.get("chunks"), where, "chunks")):
                if isinstance(ch, dict):
                    pieces.append((ch, f"{where}, chunk {k}"))
        else:
            pieces.append((layer, where))
        runs: dict[int, list[tuple[int, int, int]]] = {}
        limit = CELLS_PER_VERTEX * self.budget.max_vertices
        for d, w in pieces:
            cx, cy = int(_num(d.get("x", 0) or 0, w, "x")), int(_num(d.get("y", 0) or 0, w, "y"))
            cw, ch_ = int(_num(d.get("width", 0), w, "width")), int(_num(d.get("height", 0), w, "height"))
            if cw < 0 or ch_ < 0:
                raise InputError([Problem(w, "a negative width or height")])
            self.cells += cw * ch_
            if self.cells > limit:
                raise InputError([Problem(w, f"brings the map to {self.cells:,} tile cells, over the limit of "
                                             f"{limit:,} ({CELLS_PER_VERTEX} per allowed vertex); to import it "
                                             "anyway, raise --max-vertices")])
            if cw * ch_ == 0:
                continue
            grid = _cells(d.get("data"), enc, comp, cw * ch_, w).reshape(ch_, cw)
            for gid, rs in _runs(grid, cx, cy).items():
                runs.setdefault(gid, []).extend(rs)
        by_key: dict[tuple[str, Role | None], list[tuple[int, int, int]]] = {}
        layer_role = _props_role(layer.get("properties"), where)
        for gid, rs in runs.items():
            cls, role = self.tiles.get(gid)
            by_key.setdefault((cls, role or layer_role), []).extend(rs)
        if not by_key:
            self.skipped.append((where, "a tile layer with no tiles"))
        for (cls, role), rs in by_key.items():
            keys = tuple(k for k in (cls, name) if k)
            self.budget.add_elements(where, len(rs), f"{len(rs):,} runs of tiles")
            self.budget.add_vertices(where, 4 * len(rs), "its tiles")
            boxes = shapely.box([a * self.tw + lx for _, a, _ in rs], [r * self.th + ly for r, _, _ in rs],
                                [b * self.tw + lx for _, _, b in rs], [(r + 1) * self.th + ly for r, _, _ in rs])
            label = f"{where}, tiles of class {cls!r}" if cls else f"{where}, tiles"
            self.tile_areas.append((shapely.union_all(boxes), keys, label, name, role))


def read_tiled(path: str | Path, opts: ImportOptions, data: dict | None = None, budget: Budget | None = None
               ) -> Source:
    """The objects and tiles of a Tiled map (JSON or TMX) as features in metres (y up)."""
    p = Path(path)
    budget = budget or opts.budget()
    if data is None:
        data = _read_tmx(p) if p.suffix.lower() == ".tmx" else read_json(p)
    if not is_tiled_json(data):
        raise InputError([Problem("", "not a Tiled map (expected tilewidth, tileheight and layers)")], str(p))
    orientation = str(data.get("orientation", "orthogonal") or "orthogonal")
    if orientation != "orthogonal":
        raise InputError([Problem("map", f"{orientation[:40]} maps are not supported (only orthogonal ones: their "
                                         "pixel coordinates are a plan view)")], str(p))
    try:
        tw = _num(data.get("tilewidth"), "map", "tilewidth")
        th = _num(data.get("tileheight"), "map", "tileheight")
        if tw <= 0 or th <= 0:
            raise InputError([Problem("map", "tilewidth and tileheight must be positive")])
        if opts.scale is not None:
            sx = sy = opts.scale
            notes = [f"units: {opts.scale:g} m per pixel (--scale)"]
        else:
            sx, sy = 1.0 / tw, 1.0 / th
            notes = [f"units: one tile ({tw:g} x {th:g} px) = 1 m"]
        infinite = str(data.get("infinite", "0")).lower() in ("1", "true")
        width = _num(data.get("width", 0) or 0, "map", "width") * tw
        height = _num(data.get("height", 0) or 0, "map", "height") * th
        r = _Reader(opts, budget, sx, sy, tw, th, _TileSets(data.get("tilesets"), notes))
        r.walk(data.get("layers"))
    except InputError as e:
        raise InputError(e.problems, str(p)) from None
    if r.problems:
        raise InputError(r.problems, str(p))
    if infinite or height <= 0:
        ys = [a[:, 1] for a, *_ in r.raw] + [np.array(g.bounds[1::2]) for g, *_ in r.tile_areas if not g.is_empty]
        height = float(np.concatenate(ys).max()) if ys else 0.0
    features: list[Feature] = []
    for a, closed, keys, where, layer, role in r.raw:
        m = np.column_stack([a[:, 0] * sx, (height - a[:, 1]) * sy])
        geom = Polygon(m) if closed and len(m) >= 3 else LineString(m) if len(m) >= 2 else None
        if geom is None:
            r.skipped.append((where, "fewer points than a line needs"))
            continue
        features.append(Feature(geom, keys, where, layer, role))
    for g, keys, where, layer, role in r.tile_areas:
        g = shapely.transform(g, lambda xy: np.column_stack([xy[:, 0] * sx, (height - xy[:, 1]) * sy]))
        features.append(Feature(g, keys, where, layer, role))
    page = (0.0, 0.0, width * sx, height * sy) if not infinite and width > 0 and height > 0 else None
    return Source(features, p.stem, page, notes, skipped=r.skipped)


__all__ = ["is_tiled_json", "read_tiled"]
