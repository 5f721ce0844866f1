"""The cleaning step every importer ends with: features in, a scene that validates (or a located error) out.

What it does, each change counted in the report:
- makes invalid polygons valid (``shapely.make_valid``), keeping their polygonal parts;
- closes loose lines of an obstacle or terrain layer into polygons (``shapely.polygonize``, per layer), after
  snapping ends that miss another line by less than ``ImportOptions.snap`` (1 cm); a line that bounds no face but
  has a drawn width (an SVG stroke, a DXF polyline width) becomes the area it covers (a wall drawn as a thick
  line); the other lines that bound no face are reported;
- merges overlapping obstacles (their union), and makes terrain polygons disjoint while keeping what each type
  paints (a later polygon covers an earlier one, as in the scene format), then merges each type's pieces;
- snaps every coordinate to a grid (``ImportOptions.grid``, 1 mm by default; ``shapely.set_precision`` keeps the
  result valid), which also closes gaps narrower than the grid;
- drops pieces below ``ImportOptions.min_area`` (slivers) and terrain holes below it;
- splits what the scene format does not allow: an obstacle with holes becomes hole-free pieces (cut through each
  hole), a multi-part polygon becomes one item per part;
- sets the bounds to the page (or map) and the data's extent, widened where obstacles would fill them.
The scene is then checked by the scene validator itself; a problem is reported with the source element it came
from (layer, object id).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
import shapely.ops
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from core.scene.io import scene_to_dict
from core.scene.model import Obstacle, Profile, Route, Scene, TerrainPolygon, TerrainType
from core.scene.parse import check_scene
from core.scene.problems import InputError, Problem

from .budget import MAX_ELEMENTS, MAX_VERTICES, Budget
from .features import Feature, Role, Source, resolve_role

PALETTE = ("#7f7f7f", "#d9d9d9", "#7a5230", "#8fbf6a", "#4f81bd", "#e0c872", "#b05f9e", "#5fb0a8", "#c9834b",
           "#9a9ad1")
DEFAULT_TYPE = TerrainType("default", "Open ground", "#cbd5a3")
# Where a source says nothing about size, the free border the bounds get when obstacles would fill them.
MIN_MARGIN = 1.0


@dataclass(frozen=True)
class ImportOptions:
    """How an import converts and cleans (lengths in metres, areas in square metres).

    ``tolerance``: the largest distance between a curve and its flattened polyline; ``grid``: coordinates snap
    to multiples of it; ``snap``: loose line ends closer than this to another line are joined before the lines
    are closed into polygons; ``min_area``: pieces (and terrain holes) smaller than this are dropped; ``scale``: metres
    per source unit, overriding what the file says; ``projection``: ``tmerc`` or ``utm`` for lon/lat data;
    ``layer_property``: the GeoJSON/OGR property naming a feature's layer (None tries layer, class, type, kind);
    ``crs``: what GeoJSON/OGR coordinates are, overriding the file (``metres`` for local metres, or anything pyproj
    reads: ``EPSG:32632``); ``max_elements`` and ``max_vertices``: the work an input may ask for (``budget``).
    """

    tolerance: float = 0.01
    grid: float = 0.001
    min_area: float = 0.01
    snap: float = 0.01
    scale: float | None = None
    projection: str = "tmerc"
    layer_property: str | None = None
    crs: str | None = None
    max_elements: int = MAX_ELEMENTS
    max_vertices: int = MAX_VERTICES

    def budget(self) -> Budget:
        """A fresh count of the work against this import's limits."""
        return Budget(self.max_elements, self.max_vertices)


# How many elements the text report names per reason (the JSON report and ``left_out`` list them all).
NAMED_PER_REASON = 5


@dataclass
class ImportReport:
    """What an import did: notes on units and projection, every change the cleaning made, counts and areas, and
    ``left_out``: every source element that is not in the scene, as (where, why)."""

    notes: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    roles: dict[str, int] = field(default_factory=dict)
    obstacle_area: float = 0.0
    terrain_areas: dict[str, float] = field(default_factory=dict)
    left_out: list[tuple[str, str]] = field(default_factory=list)

    def leave_out(self, feats: list[Feature], why: str) -> None:
        """Record source elements that do not reach the scene, once each."""
        seen = {w for w, _ in self.left_out}
        for f in feats:
            if f.where not in seen:
                seen.add(f.where)
                self.left_out.append((f.where, why))

    def left_out_lines(self) -> list[str]:
        """One line per reason: how many elements were left out for it, naming the first few."""
        by: dict[str, list[str]] = {}
        for where, why in self.left_out:
            by.setdefault(why, []).append(where)
        out = []
        for why, names in by.items():
            more = f" and {len(names) - NAMED_PER_REASON} more" if len(names) > NAMED_PER_REASON else ""
            out.append(f"left out {len(names)} element(s), {why}: {'; '.join(names[:NAMED_PER_REASON])}{more}")
        return out

    def lines(self) -> list[str]:
        """The report as lines of text."""
        out = list(self.notes)
        out += [f"{n} feature(s) as {role}" for role, n in sorted(self.roles.items())]
        out += self.changes
        out += self.left_out_lines()
        out.append(f"obstacle area {self.obstacle_area:.6g} m2")
        out += [f"terrain {t} area {a:.6g} m2" for t, a in self.terrain_areas.items()]
        return out


@dataclass
class ImportResult:
    """A cleaned scene that validates, the report, for each obstacle, terrain polygon and route id the source
    elements it came from (for messages), and per source layer how many features took each role (the preview's
    table: ``{"Walls": {"obstacle": 12}}``)."""

    scene: Scene
    report: ImportReport
    sources: dict[str, list[str]] = field(default_factory=dict)
    layers: dict[str, dict[str, int]] = field(default_factory=dict)


def _polygons(g: BaseGeometry) -> list[Polygon]:
    """The non-empty polygons of any geometry."""
    return [p for p in shapely.get_parts(shapely.get_parts(g)) if isinstance(p, Polygon) and not p.is_empty
            ] if g is not None and not g.is_empty else []


def _lines(g: BaseGeometry) -> list[LineString]:
    return [p for p in shapely.get_parts(g) if isinstance(p, LineString) and not p.is_empty and p.length > 0]


def _where_list(feats: list[Feature], limit: int = 3) -> str:
    names = [f.where for f in feats[:limit]]
    more = f" and {len(feats) - limit} more" if len(feats) > limit else ""
    return "; ".join(names) + more


class _Cleaner:
    def __init__(self, source: Source, mapping: dict[str, Role], opts: ImportOptions):
        self.src = source
        self.map = mapping
        self.opts = opts
        self.report = ImportReport(notes=list(source.notes))
        self.budget = opts.budget()
        # Open lines left out of an area layer: left out of the scene unless a piece of them is used elsewhere.
        self.open_lines: list[Feature] = []
        # Terrain polygons wholly covered by later ones.
        self.covered: list[Feature] = []

    def change(self, text: str) -> None:
        self.report.changes.append(text)

    # -- polygons and lines per role ------------------------------------------------------------------------
    def sort(self) -> tuple[list[tuple[Polygon, Feature]], list[tuple[Polygon, str, Feature]],
                            list[tuple[LineString, Feature]]]:
        obstacles: list[tuple[Polygon, Feature]] = []
        terrains: list[tuple[Polygon, str, Feature]] = []
        routes: list[tuple[LineString, Feature]] = []
        loose: dict[tuple[str, str, str], list[tuple[LineString, Feature]]] = {}
        fixed: list[Feature] = []
        slivers: list[Feature] = []
        points: list[Feature] = []
        rep = self.report
        for f in self.src.features:
            role = resolve_role(f, self.map)
            rep.roles[str(role)] = rep.roles.get(str(role), 0) + 1
            g = f.geometry
            if role.kind == "ignore":
                rep.leave_out([f], "role ignore")
                continue
            if g is None or g.is_empty:
                rep.leave_out([f], "empty geometry")
                continue
            if not _polygons(g) and not _lines(g):
                points.append(f)
                continue
            if role.kind == "route":
                lines = _lines(g) + [LineString(p.exterior.coords) for p in _polygons(g)]
                routes += [(ln, f) for ln in lines]
                continue
            polys = _polygons(g)
            had_area = bool(polys)
            if polys and not all(p.is_valid for p in polys):
                polys = _polygons(shapely.make_valid(MultiPolygon(polys)))
                fixed.append(f)
            for ln in _lines(g):
                loose.setdefault((role.kind, role.type, f.layer), []).append((ln, f))
            if had_area and sum(p.area for p in polys) < self.opts.min_area:
                slivers.append(f)
                continue
            for p in polys:
                if role.kind == "obstacle":
                    obstacles.append((p, f))
                else:
                    terrains.append((p, role.type, f))
        if fixed:
            self.change(f"made {len(fixed)} invalid polygon(s) valid: {_where_list(fixed)}")
        if slivers:
            self.change(f"dropped {len(slivers)} sliver(s) below {self.opts.min_area:g} m2: {_where_list(slivers)}")
            rep.leave_out(slivers, f"a sliver below --min-area {self.opts.min_area:g} m2")
        if points:
            self.change(f"left {len(points)} point feature(s) out (neither area nor line): {_where_list(points)}")
            rep.leave_out(points, "a point (neither area nor line)")
        for (kind, ttype, layer), items in loose.items():
            faces, left_idx = self._close_lines(items, layer)
            stroked, left_idx = self._widen(items, left_idx)
            for p, f in faces + stroked:
                if kind == "obstacle":
                    obstacles.append((p, f))
                else:
                    terrains.append((p, ttype, f))
            if faces:
                self.change(f"closed {len(items)} loose line(s) of layer {layer!r} into {len(faces)} polygon(s)")
            if stroked:
                self.change(f"widened {len(stroked)} stroked line(s) of layer {layer!r} into areas by their drawn "
                            "width")
            left = list({id(items[k][1]): items[k][1] for k in left_idx}.values())
            if left:
                self.change(f"left {len(left_idx)} open line(s) of layer {layer!r} out (they bound no area): "
                            f"{_where_list(left)}")
                self.open_lines += left
        return obstacles, terrains, routes

    def _close_lines(self, items: list[tuple[LineString, Feature]], layer: str):
        lines = list(shapely.set_precision(np.asarray([ln for ln, _ in items], dtype=object), self.opts.grid))
        if len(lines) > 1:
            n = _count_pairs(lines, self.budget.max_pairs)
            self.budget.check_pairs(f"layer {layer!r}", n, "loose lines whose extents overlap (each pair is "
                                                            "checked for crossings before the lines are closed "
                                                            "into polygons)")
        if self.opts.snap > 0 and len(lines) > 1:
            lines, moved = _join_ends(lines, self.opts.snap)
            if moved:
                self.change(f"joined {moved} line end(s) that missed another line by less than {self.opts.snap:g} m")
        noded = shapely.union_all(lines)
        faces = _polygons(shapely.polygonize(shapely.get_parts(noded)))
        if not faces:
            return [], list(range(len(items)))
        merged = shapely.union_all(faces)
        tree = shapely.STRtree(lines)
        out = []
        for p in _polygons(merged):
            hits = tree.query(p.boundary, predicate="intersects")
            owner = items[int(hits[0])][1] if len(hits) else items[0][1]
            out.append((p, owner))
        edges = merged.boundary.buffer(self.opts.grid)
        left = [k for k, ln in enumerate(lines) if ln.difference(edges).length > self.opts.grid]
        return out, left

    @staticmethod
    def _widen(items: list[tuple[LineString, Feature]], left: list[int]) -> tuple[list[tuple[Polygon, Feature]],
                                                                                    list[int]]:
        """The lines ``left`` open that have a drawn width, as the areas they cover (walls drawn as strokes:
        buffered by half the width, flat ends and mitred corners as SVG and CAD draw them), and the indices of
        the lines still left."""
        out, still = [], []
        for k in left:
            ln, f = items[k]
            if f.width <= 0:
                still.append(k)
                continue
            area = shapely.buffer(ln, f.width / 2, cap_style="flat", join_style="mitre", mitre_limit=4.0)
            out += [(p, f) for p in _polygons(area)]
        return out, still

    # -- obstacles ------------------------------------------------------------------------------------------
    def obstacles(self, items: list[tuple[Polygon, Feature]]) -> list[tuple[Polygon, list[Feature]]]:
        if not items:
            return []
        polys = [p for p, _ in items]
        union = shapely.union_all(polys)
        pieces = _polygons(shapely.set_precision(union, self.opts.grid))
        if len(pieces) < len(polys):
            self.change(f"merged {len(polys)} obstacle polygon(s) into {len(pieces)} where they overlap or touch")
        out = []
        tree = shapely.STRtree(polys)
        dropped: list[Feature] = []
        split = 0
        for piece in pieces:
            owners = [items[int(i)][1] for i in tree.query(piece, predicate="intersects")] or [items[0][1]]
            if piece.area < self.opts.min_area:
                dropped += owners[:1]
                continue
            parts = self._split_holes(piece)
            if len(parts) > 1:
                split += 1
            # Every piece of a split obstacle stays, however thin: together they are the obstacle.
            out += [(part, owners) for part in parts if part.area > 0]
        if dropped:
            self.change(f"dropped {len(dropped)} obstacle sliver(s) below {self.opts.min_area:g} m2: "
                        f"{_where_list(dropped)}")
        if split:
            self.change(f"split {split} obstacle(s) with holes into hole-free pieces (the scene format's obstacles "
                        "have no holes)")
        return out

    def dynamic_obstacles(self, items: list[tuple[Polygon, Feature]]) -> list[tuple[Polygon, list[Feature]]]:
        """Obstacles that come and go or move (a scene export's), each kept as it is: one polygon without holes,
        not merged with the obstacles it overlaps, since it is not there all the time."""
        count: dict[int, int] = {}
        for _, f in items:
            count[id(f)] = count.get(id(f), 0) + 1
        out = []
        for p, f in items:
            parts = _polygons(shapely.set_precision(p, self.opts.grid))
            if count[id(f)] != 1 or len(parts) != 1 or parts[0].interiors:
                raise InputError([Problem(f.where, "an obstacle that comes and goes or moves must be one polygon "
                                                   "without holes")])
            out.append((parts[0], [f]))
        if out:
            self.change(f"kept {len(out)} obstacle(s) that come and go or move as they are, not merged with "
                        "the obstacles they overlap")
        return out

    def _split_holes(self, poly: Polygon) -> list[Polygon]:
        """Hole-free pieces covering ``poly``: a piece with holes is cut by a vertical line through the median of
        its holes (so that hole is opened and the others are shared between the halves: log(holes) rounds)."""
        todo: list[Polygon] = [poly]
        done: list[Polygon] = []
        for _ in range(8 * len(poly.interiors) + 16):
            if not todo:
                return done
            p = todo.pop()
            if not p.interiors:
                done.append(p)
                continue
            xs = sorted(Polygon(h).representative_point().x for h in p.interiors)
            x = xs[len(xs) // 2]
            y0, y1 = p.bounds[1] - 1.0, p.bounds[3] + 1.0
            left = shapely.box(p.bounds[0] - 1.0, y0, x, y1)
            halves = [shapely.intersection(p, left), shapely.difference(p, left)]
            for h in halves:
                todo += _polygons(shapely.set_precision(h, self.opts.grid))
        raise InputError([Problem("", "an obstacle's holes could not be split into hole-free pieces")])

    # -- terrain --------------------------------------------------------------------------------------------
    def terrains(self, items: list[tuple[Polygon, str, Feature]]) -> list[tuple[Polygon, str, list[Feature]]]:
        if not items:
            return []
        # What each polygon paints: itself minus every later polygon it meets (a later one covers an earlier one).
        polys = [p for p, _, _ in items]
        self.budget.check_pairs("terrain", _count_pairs(polys, self.budget.max_pairs),
                                "terrain polygons whose extents overlap (a later polygon covers an earlier one)")
        tree = shapely.STRtree(polys)
        first, later = tree.query(polys, predicate="intersects")
        keep = later > first
        covers: dict[int, list[int]] = {}
        for i, j in zip(first[keep].tolist(), later[keep].tolist()):
            covers.setdefault(i, []).append(j)
        visible: list[BaseGeometry] = list(polys)
        overlaps = 0
        for i, js in covers.items():
            v = shapely.difference(polys[i], shapely.union_all([polys[j] for j in js]))
            if v.area < polys[i].area * (1 - 1e-9):
                overlaps += 1
            visible[i] = v
        covered = [items[i][2] for i in covers if visible[i].is_empty]
        if overlaps:
            self.change(f"cut {overlaps} terrain polygon(s) where a later one covers them")
        order: list[str] = []
        for _, t, _ in items:
            if t not in order:
                order.append(t)
        out = []
        dropped: list[Feature] = []
        filled = 0
        for t in order:
            geoms = [visible[i] for i, (_, tt, _) in enumerate(items) if tt == t]
            merged = shapely.set_precision(shapely.union_all(geoms), self.opts.grid)
            for piece in _polygons(merged):
                owners = [items[int(i)][2] for i in tree.query(piece, predicate="intersects")
                          if items[int(i)][1] == t] or [items[0][2]]
                if piece.area < self.opts.min_area:
                    dropped += owners[:1]
                    continue
                holes = [h for h in piece.interiors if Polygon(h).area >= self.opts.min_area]
                if len(holes) < len(piece.interiors):
                    filled += len(piece.interiors) - len(holes)
                    piece = Polygon(piece.exterior, holes)
                out.append((piece, t, owners))
        self.covered = covered
        if dropped:
            self.change(f"dropped {len(dropped)} terrain sliver(s) below {self.opts.min_area:g} m2: "
                        f"{_where_list(dropped)}")
        if filled:
            self.change(f"filled {filled} terrain hole(s) below {self.opts.min_area:g} m2")
        return out

    # -- routes ---------------------------------------------------------------------------------------------
    def routes(self, items: list[tuple[LineString, Feature]]) -> list[tuple[LineString, Feature]]:
        out, dropped = [], []
        for ln, f in items:
            snapped = shapely.set_precision(ln, self.opts.grid)
            pts = shapely.get_coordinates(snapped)
            if len(np.unique(pts, axis=0)) < 2:
                dropped.append(f)
                continue
            out.append((LineString(pts), f))
        if dropped:
            self.change(f"dropped {len(dropped)} route(s) shorter than the grid: {_where_list(dropped)}")
            self.report.leave_out(dropped, f"a route shorter than the --grid {self.opts.grid:g} m")
        return out

    # -- the scene ------------------------------------------------------------------------------------------
    def bounds(self, geoms: list[BaseGeometry], obstacle_union: BaseGeometry) -> tuple[float, float, float, float]:
        g = self.opts.grid
        boxes = [shapely.bounds(x) for x in geoms]
        if self.src.page is not None:
            boxes.append(np.asarray(self.src.page, dtype=float))
        if not boxes:
            raise InputError([Problem("", "nothing to import: no obstacle, terrain or route was found")])
        b = np.asarray(boxes)
        x0, y0 = float(b[:, 0].min()), float(b[:, 1].min())
        x1, y1 = float(b[:, 2].max()), float(b[:, 3].max())
        if x1 - x0 < g or y1 - y0 < g:
            x0, y0, x1, y1 = x0 - MIN_MARGIN, y0 - MIN_MARGIN, x1 + MIN_MARGIN, y1 + MIN_MARGIN
        box = shapely.box(x0, y0, x1, y1)
        if not obstacle_union.is_empty and box.difference(obstacle_union).area <= 1e-9 * box.area:
            m = max(MIN_MARGIN, 0.05 * max(x1 - x0, y1 - y0))
            x0, y0, x1, y1 = x0 - m, y0 - m, x1 + m, y1 + m
            self.change(f"widened the bounds by {m:g} m: the obstacles filled them")
        return (float(np.floor(x0 / g) * g), float(np.floor(y0 / g) * g),
                float(np.ceil(x1 / g) * g), float(np.ceil(y1 / g) * g))


def _count_pairs(geoms: list[BaseGeometry], limit: int) -> int:
    """How many pairs of ``geoms`` have overlapping extents, counted a block at a time and stopping past
    ``limit`` (a query of all pairs at once would hold every pair in memory first)."""
    tree = shapely.STRtree(geoms)
    n = 0
    for i in range(0, len(geoms), 256):
        a, b = tree.query(geoms[i:i + 256])
        n += int(np.count_nonzero(a + i < b))
        if n > limit:
            break
    return n


def _join_ends(lines: list[LineString], tol: float) -> tuple[list[LineString], int]:
    """Lines whose ends miss each other by less than ``tol`` moved to meet: ends closer than ``tol`` to each other
    go to their mean, and an end left alone goes to the nearest point of another line within ``tol`` (a T joint).
    Only ends move, so a drawing's corners and lengths stay; returns the lines and how many ends moved."""
    ends = np.array([[ln.coords[0], ln.coords[-1]] for ln in lines], dtype=np.float64).reshape(-1, 2)
    pts = shapely.points(ends)
    a, b = shapely.STRtree(pts).query(pts, predicate="dwithin", distance=tol)
    parent = np.arange(len(ends))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a.tolist(), b.tolist()):
        if i // 2 != j // 2:                                  # not the two ends of one line
            parent[root(i)] = root(j)
    roots = np.array([root(i) for i in range(len(ends))])
    size = np.bincount(roots, minlength=len(ends))
    new = ends.copy()
    grouped = np.flatnonzero(size[roots] > 1)
    if len(grouped):
        sums = np.zeros_like(ends)
        np.add.at(sums, roots[grouped], ends[grouped])
        new[grouped] = sums[roots[grouped]] / size[roots[grouped]][:, None]
    alone = size[roots] == 1
    tree = shapely.STRtree(lines)
    for i in np.flatnonzero(alone).tolist():
        p = shapely.Point(ends[i])
        best = None
        for j in tree.query(p, predicate="dwithin", distance=tol).tolist():
            if j == i // 2:
                continue
            d = lines[j].distance(p)
            if 0 < d <= tol and (best is None or d < best[0]):
                best = (d, j)
        if best is not None:
            q = shapely.ops.nearest_points(p, lines[best[1]])[1]
            new[i] = (q.x, q.y)
    moved = int(np.sum(np.any(new != ends, axis=1)))
    out = []
    for k, ln in enumerate(lines):
        c = np.asarray(ln.coords, dtype=np.float64)
        c[0], c[-1] = new[2 * k], new[2 * k + 1]
        out.append(LineString(c) if len(np.unique(c, axis=0)) >= 2 else ln)
    return out, moved


def _terrain_types(source: Source, used: list[str]) -> list[TerrainType]:
    """The scene's terrain types, the default first: the source's own list when it has one (a scene exported as
    GeoJSON), else DEFAULT_TYPE; then each type the terrain uses that is not there yet, coloured by the source or
    the palette."""
    types = list(source.types) if source.types else [DEFAULT_TYPE]
    known = {t.id for t in types}
    for t in used:
        if t not in known:
            known.add(t)
            types.append(TerrainType(t, t, source.colors.get(t, PALETTE[(len(types) - 1) % len(PALETTE)])))
    return types


def _ring(coords) -> list[tuple[float, float]]:
    pts = [(float(x), float(y)) for x, y in coords]
    return pts[:-1] if len(pts) > 1 and pts[0] == pts[-1] else pts


def build_scene(source: Source, mapping: dict[str, Role] | None = None,
                opts: ImportOptions | None = None, origin: str = "") -> ImportResult:
    """Clean the features of ``source`` into a Scene that the scene validator accepts.

    Raises InputError when nothing is left to import or when the cleaned scene still breaks a rule (a route
    through an obstacle); each problem names the scene item and the source elements it came from. Every source
    element ends in the scene, merged into a scene item, or in ``report.left_out`` with the reason.
    """
    opts = opts or ImportOptions()
    c = _Cleaner(source, mapping or {}, opts)
    c.report.left_out += source.skipped
    obst_items, terr_items, route_items = c.sort()
    obstacles = c.obstacles([(p, f) for p, f in obst_items if not f.motion])
    obstacles += c.dynamic_obstacles([(p, f) for p, f in obst_items if f.motion])
    terrains = c.terrains(terr_items)
    routes = c.routes(route_items)
    if not (obstacles or terrains or routes or source.extra.get("networks") or source.extra.get("agents")):
        raise InputError([Problem("", "nothing left to import: no obstacle, terrain or route remains after "
                                      "cleaning (see the roles with --map)")]
                         + [Problem("", f"the cleaning {ch}") for ch in c.report.changes]
                         + [Problem("", line) for line in c.report.left_out_lines()], origin)
    obstacle_union = shapely.union_all([p for p, _ in obstacles]) if obstacles else Polygon()
    extent = [p for p, _ in obstacles] + [p for p, _, _ in terrains] + [ln for ln, _ in routes]
    bounds = c.bounds(extent, obstacle_union)

    types = _terrain_types(source, [t for _, t, _ in terrains])
    used_types = [t.id for t in types]
    weights = {t: w for t, w in source.weights.items() if t in used_types}
    profiles = ([dataclasses.replace(p, weights={t: w for t, w in p.weights.items() if t in used_types})
                 for p in source.profiles] or [Profile("pedestrian", weights)])
    # Normalised rings (shapely.normalize: a fixed start vertex and winding) in the order of the source elements
    # they came from make the output independent of the order the union met the pieces in, so an import of an
    # export gives the same scene.
    order = {id(f): k for k, f in enumerate(source.features)}
    obstacles = sorted(((shapely.normalize(p), o) for p, o in obstacles),
                       key=lambda po: min(order[id(f)] for f in po[1]))
    terrains = sorted(((shapely.normalize(p), t, o) for p, t, o in terrains),
                      key=lambda pto: min(order[id(f)] for f in pto[2]))
    oids = _ids([o for _, o in obstacles], "o")
    tids = _ids([o for _, _, o in terrains], "t")
    rids = _ids([[f] for _, f in routes], "r")
    sources: dict[str, list[str]] = {}
    scene_obstacles = []
    for oid, (p, owners) in zip(oids, obstacles):
        scene_obstacles.append(Obstacle(oid, _ring(p.exterior.coords)))
        sources[oid] = [f.where for f in owners]
    scene_terrains = []
    for tid, (p, t, owners) in zip(tids, terrains):
        scene_terrains.append(TerrainPolygon(tid, t, _ring(p.exterior.coords), [_ring(h.coords) for h in p.interiors]))
        sources[tid] = [f.where for f in owners]
    scene_routes = []
    renamed: dict[str, str] = {}
    for rid, (ln, f) in zip(rids, routes):
        scene_routes.append(Route(rid, [(float(x), float(y)) for x, y in ln.coords]))
        sources[rid] = [f.where]
        if f.ident:
            renamed.setdefault(f.ident, rid)
    scene = Scene(bounds=bounds, terrain_types=types, default_terrain=types[0].id, name=source.name,
                  obstacles=scene_obstacles, terrains=scene_terrains, profiles=profiles,
                  routes=scene_routes)
    doc = scene_to_dict(scene)
    for entry, (_, owners) in zip(doc["obstacles"], obstacles):
        entry.update(owners[0].motion)
    doc.update({k: v for k, v in source.extra.items() if k != "agents"})
    if "agents" in source.extra:
        doc["agents"] = _agents(source.extra["agents"], renamed, c.report)
    checked, problems = check_scene(doc)
    if checked is None:
        raise InputError([_locate(p, scene, sources) for p in problems], origin)
    c.report.obstacle_area = float(obstacle_union.area)
    for p, t, _ in terrains:
        c.report.terrain_areas[t] = c.report.terrain_areas.get(t, 0.0) + float(p.area)
    _account(source, sources, c)
    return ImportResult(checked, c.report, sources, layer_roles(source, mapping or {}))


def _ids(owners: list[list[Feature]], prefix: str) -> list[str]:
    """Scene item ids: the id the source states for the element (a scene exported as GeoJSON) where the item
    is that one element's only item, else ``prefix`` and a number that no kept id takes."""
    pieces: dict[int, int] = {}
    for os_ in owners:
        for f in os_:
            pieces[id(f)] = pieces.get(id(f), 0) + 1
    kept: list[str | None] = []
    taken: set[str] = set()
    for os_ in owners:
        f = os_[0]
        ok = len(os_) == 1 and f.ident and pieces[id(f)] == 1 and f.ident not in taken
        kept.append(f.ident if ok else None)
        if ok:
            taken.add(f.ident)
    out, k = [], 0
    for name in kept:
        if name is None:
            k += 1
            while f"{prefix}{k}" in taken:
                k += 1
            name = f"{prefix}{k}"
        out.append(name)
    return out


def _agents(raw: Any, renamed: dict[str, str], report: ImportReport) -> Any:
    """The agents a scene export lists (scene-format objects), their routes renamed as the routes were; an agent
    whose route did not come through is left out, named in the report. Anything else is for the validator."""
    if not isinstance(raw, list):
        return raw
    out = []
    for a in raw:
        route = a.get("route") if isinstance(a, dict) else None
        if isinstance(route, str):
            if route not in renamed:
                report.left_out.append((f"agent {str(a.get('id'))[:40]!r}", f"its route {route[:40]!r} is not in "
                                                                            "the scene"))
                continue
            a = dict(a, route=renamed[route])
        out.append(a)
    return out


def _account(source: Source, sources: dict[str, list[str]], c: _Cleaner) -> None:
    """Every source element that reached no scene item and is not yet in the report's ``left_out``, with the
    reason the cleaning left it out."""
    done = {w for ws in sources.values() for w in ws} | {w for w, _ in c.report.left_out}
    open_lines = {id(f) for f in c.open_lines}
    covered = {id(f) for f in c.covered}
    for f in source.features:
        if f.where in done:
            continue
        if id(f) in open_lines:
            why = "an open line that bounds no area (give its layer the route role to keep it as a route)"
        elif id(f) in covered:
            why = "covered entirely by later terrain polygons"
        else:
            why = "nothing of it is left once overlaps are merged and pieces below --min-area dropped"
        c.report.left_out.append((f.where, why))
        done.add(f.where)


def layer_roles(source: Source, mapping: dict[str, Role]) -> dict[str, dict[str, int]]:
    """Per source layer (a feature's layer, or its first key), how many features take each role under
    ``mapping``: what the import preview lists, known before cleaning (so also when the cleaning fails)."""
    out: dict[str, dict[str, int]] = {}
    for f in source.features:
        per = out.setdefault(f.layer or (f.keys[0] if f.keys else ""), {})
        role = str(resolve_role(f, mapping))
        per[role] = per.get(role, 0) + 1
    return out


def _locate(p: Problem, scene: Scene, sources: dict[str, list[str]]) -> Problem:
    """A validator problem about ``obstacles[3]`` etc., with the source elements the item came from."""
    for key, items in (("obstacles", scene.obstacles), ("terrains", scene.terrains), ("routes", scene.routes)):
        if p.path.startswith(key + "["):
            try:
                i = int(p.path[len(key) + 1:p.path.index("]")])
                src = sources.get(items[i].id, [])
            except (ValueError, IndexError):
                break
            if src:
                return Problem(f"{'; '.join(src[:3])} ({p.path})", p.message)
    return p


__all__ = ["DEFAULT_TYPE", "ImportOptions", "ImportReport", "ImportResult", "build_scene", "layer_roles"]
