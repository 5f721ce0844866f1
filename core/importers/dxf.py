"""DXF (CAD) import with ezdxf: LWPOLYLINE, POLYLINE, CIRCLE, ARC, ELLIPSE, SPLINE, LINE and HATCH entities by
layer, block references (INSERT, and MINSERT arrays) expanded with their transforms at any nesting.

Closed entities and hatches (islands inside a boundary are holes) become polygons; open ones (LINE, ARC, open
polylines) are lines, which the cleaning step closes into polygons per layer with ``shapely.polygonize`` (or keeps
as routes on a route layer); an open LWPOLYLINE with a constant width is the area it covers. Curves are flattened
to ``ImportOptions.tolerance``: circles, arcs, ellipses and polyline bulges on the true curve (ezdxf's
``flattening`` and ``bulge_to_arc``), splines and hatch edges through ezdxf's Bezier path of them. Every count is
known before the points are made: a block's size (entities after its own nested blocks) is counted once, times
the copies a reference makes, and charged to the budget before the reference is expanded.
Units come from the header's ``$INSUNITS`` (unitless drawings are taken as metres); ``--scale`` overrides.
A feature's key is its layer name; messages name the layer and the entity's handle (of the outermost INSERT for
the entities of a block).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.problems import InputError, Problem

from .budget import Budget
from .clean import ImportOptions
from .curves import bezier_bound, bezier_points, chords
from .deps import require
from .features import Feature, Source
from .files import check_path

# $INSUNITS code -> metres per drawing unit (exact, from the unit definitions; 0 = unitless).
INSUNITS_M = {1: 0.0254, 2: 0.3048, 3: 1609.344, 4: 0.001, 5: 0.01, 6: 1.0, 7: 1000.0, 8: 2.54e-8, 9: 2.54e-5,
              10: 0.9144, 11: 1e-10, 12: 1e-9, 13: 1e-6, 14: 0.1, 15: 10.0, 16: 100.0, 17: 1e9,
              18: 149597870700.0, 21: 1200.0 / 3937.0}
UNIT_NAMES = {1: "inches", 2: "feet", 3: "miles", 4: "millimetres", 5: "centimetres", 6: "metres", 7: "kilometres",
              8: "microinches", 9: "mils", 10: "yards", 11: "angstroms", 12: "nanometres", 13: "microns",
              14: "decimetres", 15: "decametres", 16: "hectometres", 17: "gigametres", 18: "astronomical units",
              21: "US survey feet"}
ENTITY_TYPES = ("LWPOLYLINE", "POLYLINE", "CIRCLE", "ARC", "ELLIPSE", "SPLINE", "LINE")
# Nested block references deeper than this are refused (a block that inserts itself would never end).
MAX_BLOCK_DEPTH = 16
# Entities read but never geometry (annotations, images, 3D solids): named in the report as not imported.
NOT_GEOMETRY = "not a plan outline (text, dimension, point, image or 3D entity)"


def _is_closed(e) -> bool:
    t = e.dxftype()
    if t == "LWPOLYLINE":
        return bool(e.closed)
    if t == "POLYLINE":
        return bool(e.is_closed)
    if t == "CIRCLE":
        return True
    if t == "ELLIPSE":
        span = (e.dxf.end_param - e.dxf.start_param) % (2 * math.pi)
        return math.isclose(span, 0.0, abs_tol=1e-9) or math.isclose(span, 2 * math.pi, abs_tol=1e-9)
    if t == "SPLINE":
        return bool(e.closed)
    return False


class _Reader:
    """One drawing's entities as features: counts first (``size``), then points."""

    def __init__(self, doc, tol: float, scale: float, budget: Budget, opts: ImportOptions) -> None:
        self.doc = doc
        self.tol = tol
        self.scale = scale
        self.budget = budget
        self.opts = opts
        self.features: list[Feature] = []
        self.problems: list[Problem] = []
        self.skipped: list[tuple[str, str]] = []
        self.sizes: dict[str, int] = {}

    # -- counting -------------------------------------------------------------------------------------------
    def size(self, name: str, where: str, stack: tuple[str, ...] = ()) -> int:
        """How many entities block ``name`` draws once its own references are expanded (memoised)."""
        if name in self.sizes:
            return self.sizes[name]
        if name in stack:
            raise InputError([Problem(where, f"block {name!r} inserts itself (through {' > '.join(stack)}): the "
                                             "expansion would never end")])
        if len(stack) >= MAX_BLOCK_DEPTH:
            raise InputError([Problem(where, f"block references nested deeper than {MAX_BLOCK_DEPTH}")])
        block = self.doc.blocks.get(name)
        if block is None:
            raise InputError([Problem(where, f"refers to block {name!r}, which the drawing does not define")])
        n = 0
        for e in block:
            if e.dxftype() == "INSERT":
                n += max(int(e.mcount), 1) * self.size(e.dxf.name, where, stack + (name,))
            else:
                n += 1
            if n > 2**62:
                break
        self.sizes[name] = n
        return n

    # -- the walk -------------------------------------------------------------------------------------------
    def walk(self, entities, depth: int, layer_of_block: str | None, where_of_block: str | None) -> None:
        for e in entities:
            t = e.dxftype()
            layer = str(e.dxf.get("layer", "0")) if e.dxf.is_supported("layer") else "0"
            if layer_of_block is not None and layer == "0":
                layer = layer_of_block
            handle = e.dxf.get("handle", None) if e.dxf.is_supported("handle") else None
            where = where_of_block or f"layer {layer!r}, {t} handle {handle}"
            try:
                self.entity(e, t, depth, layer, where, where_of_block is None)
            except InputError:
                raise
            except Exception as err:  # ezdxf raises assorted errors on entities a damaged file defines badly
                self.problems.append(Problem(where, f"cannot read the entity: {err}"))

    def entity(self, e, t: str, depth: int, layer: str, where: str, top: bool) -> None:
        if t == "INSERT":
            self.insert(e, depth, layer, where)
        elif t == "POLYLINE" and not (e.is_2d_polyline or e.is_3d_polyline):
            self.skipped.append((where, "a polyface or polygon mesh (3D) is not a plan outline"))
        elif t == "HATCH":
            self.add_hatch(e, layer, where)
        elif t in ENTITY_TYPES:
            self.add(e, layer, where)
        elif top:
            self.skipped.append((where, NOT_GEOMETRY))

    def insert(self, e, depth: int, layer: str, where: str) -> None:
        if depth >= MAX_BLOCK_DEPTH:
            raise InputError([Problem(where, f"block references nested deeper than {MAX_BLOCK_DEPTH}")])
        copies = max(int(e.mcount), 1)
        if depth == 0:
            # Counted once, at the outermost reference: its size includes every nested copy.
            n = copies * self.size(e.dxf.name, where)
            what = f"block {e.dxf.name!r}" + (f" ({copies} copies in a MINSERT array)" if copies > 1 else "")
            self.budget.add_elements(where, n, f"{what}, expanded to {n:,} entities,")
        try:
            refs = list(e.multi_insert()) if copies > 1 else [e]
            for ref in refs:
                self.walk(ref.virtual_entities(), depth + 1, layer, where)
        except InputError:
            raise
        except Exception as err:  # ezdxf raises on broken block definitions and transforms it cannot apply
            self.problems.append(Problem(where, f"cannot expand the block reference: {err}"))

    # -- geometry -------------------------------------------------------------------------------------------
    def add(self, e, layer: str, where: str) -> None:
        t = e.dxftype()
        try:
            if t in ("CIRCLE", "ARC"):
                span = 2 * math.pi if t == "CIRCLE" else math.radians((e.dxf.end_angle - e.dxf.start_angle) % 360)
                self.budget.add_vertices(where, chords(abs(e.dxf.radius), span, self.tol, least=8),
                                         tolerance=self.opts.tolerance)
                pts = np.array([(v.x, v.y) for v in e.flattening(self.tol)], dtype=np.float64)
            elif t == "ELLIPSE":
                major = e.dxf.major_axis
                r = math.hypot(major.x, major.y) * max(1.0, abs(e.dxf.ratio))
                span = (e.dxf.end_param - e.dxf.start_param) % (2 * math.pi) or 2 * math.pi
                self.budget.add_vertices(where, chords(r, span, self.tol, least=8), tolerance=self.opts.tolerance)
                pts = np.array([(v.x, v.y) for v in e.flattening(self.tol)], dtype=np.float64)
            elif t in ("LWPOLYLINE", "POLYLINE") and not (t == "POLYLINE" and e.is_3d_polyline):
                pts = self.polyline(e, where)
            elif t == "LINE":
                self.budget.add_vertices(where, 2)
                pts = np.array([(e.dxf.start.x, e.dxf.start.y), (e.dxf.end.x, e.dxf.end.y)], dtype=np.float64)
            else:
                from ezdxf import path as dxfpath
                rings = self.path_points(dxfpath.make_path(e), where)
                pts = rings[0] if rings else np.zeros((0, 2))
        except InputError:
            raise
        except Exception as err:  # ezdxf raises TypeError/ValueError/ezdxf errors on degenerate entities
            self.problems.append(Problem(where, f"cannot read the geometry: {err}"))
            return
        if len(pts) < 2:
            self.skipped.append((where, "an entity of no extent"))
            return
        if not np.isfinite(pts).all():
            self.problems.append(Problem(where, "coordinates are not finite numbers"))
            return
        pts = pts * self.scale
        closed = _is_closed(e) or (len(pts) > 3 and np.array_equal(pts[0], pts[-1]))
        geom = Polygon(pts) if closed and len(pts) >= 3 else LineString(pts)
        width = float(e.dxf.get("const_width", 0.0) or 0.0) * self.scale if t == "LWPOLYLINE" else 0.0
        self.features.append(Feature(geom, (layer,), where, layer, width=max(width, 0.0)))

    def polyline(self, e, where: str) -> np.ndarray:
        """A 2D polyline's vertices in world coordinates, each bulge flattened on its true arc."""
        from ezdxf.math import bulge_to_arc

        if e.dxftype() == "LWPOLYLINE":
            raw = [(x, y, b) for x, y, _, _, b in e.get_points("xyseb")]
            elevation = float(e.dxf.get("elevation", 0.0) or 0.0)
        else:
            raw = [(v.dxf.location.x, v.dxf.location.y, float(v.dxf.get("bulge", 0.0) or 0.0)) for v in e.vertices]
            elevation = float(e.dxf.elevation.z) if e.dxf.hasattr("elevation") else 0.0
        closed = _is_closed(e)
        n_seg = len(raw) if closed else len(raw) - 1
        plan = []
        for i in range(max(n_seg, 0)):
            x0, y0, b = raw[i]
            x1, y1, _ = raw[(i + 1) % len(raw)]
            if b and (x0, y0) != (x1, y1) and math.isfinite(b):
                _, a0, a1, r = bulge_to_arc((x0, y0), (x1, y1), b)
                plan.append((i, chords(abs(r), 4 * math.atan(abs(b)), self.tol)))
            else:
                plan.append((i, 1))
        self.budget.add_vertices(where, sum(n for _, n in plan) + 1, "flattening its bulges",
                                 tolerance=self.opts.tolerance)
        pts = [(raw[0][0], raw[0][1])] if raw else []
        for i, n in plan:
            x0, y0, b = raw[i]
            x1, y1, _ = raw[(i + 1) % len(raw)]
            if n > 1 or (b and (x0, y0) != (x1, y1)):
                c, a0, a1, r = bulge_to_arc((x0, y0), (x1, y1), b)
                sweep = (a1 - a0) % (2 * math.pi)
                # ezdxf's arc runs counter-clockwise from a0 to a1: from this vertex for a positive bulge, from
                # the next one for a negative bulge (walked back from a1).
                k = np.arange(1, n + 1) / n
                ang = a0 + sweep * k if b > 0 else a1 - sweep * k
                arc = np.column_stack([c.x + r * np.cos(ang), c.y + r * np.sin(ang)])
                arc[-1] = (x1, y1)
                pts += [tuple(p) for p in arc.tolist()]
            else:
                pts.append((x1, y1))
        ocs = e.ocs()
        if ocs.transform or elevation:
            pts = [(v.x, v.y) for v in ocs.points_to_wcs([(x, y, elevation) for x, y in pts])]
        return np.asarray(pts, dtype=np.float64).reshape(-1, 2)

    def path_points(self, path, where: str) -> list[np.ndarray]:
        """Each sub-path of an ezdxf Path as points, its Bezier segments flattened with counted chords."""
        from ezdxf.path import Command

        subs = list(path.sub_paths()) if path.has_sub_paths else [path]
        plan = []
        for sp in subs:
            start = sp.start
            segs = []
            for cmd in sp.commands():
                if cmd.type == Command.CURVE3_TO:
                    ctrl = np.array([(start.x, start.y), (cmd.ctrl.x, cmd.ctrl.y), (cmd.end.x, cmd.end.y)])
                elif cmd.type == Command.CURVE4_TO:
                    ctrl = np.array([(start.x, start.y), (cmd.ctrl1.x, cmd.ctrl1.y), (cmd.ctrl2.x, cmd.ctrl2.y),
                                     (cmd.end.x, cmd.end.y)])
                else:
                    ctrl = np.array([(start.x, start.y), (cmd.end.x, cmd.end.y)])
                n = chords(bezier_bound(ctrl), 1.0, self.tol) if len(ctrl) > 2 else 1
                segs.append((ctrl, n))
                start = cmd.end
            plan.append((sp.start, segs))
        self.budget.add_vertices(where, sum(n for _, segs in plan for _, n in segs) + len(plan),
                                 tolerance=self.opts.tolerance)
        out = []
        for start, segs in plan:
            pts = [np.array([[start.x, start.y]], dtype=np.float64)]
            for ctrl, n in segs:
                pts.append(bezier_points(ctrl.astype(np.float64), n)[1:] if len(ctrl) > 2 else ctrl[1:])
            out.append(np.concatenate(pts).astype(np.float64))
        return out

    def add_hatch(self, e, layer: str, where: str) -> None:
        """A filled HATCH: its boundary paths, combined even-odd (islands inside a boundary are holes)."""
        from ezdxf import path as dxfpath

        try:
            rings = [r for p in dxfpath.from_hatch(e) for r in self.path_points(p, where)]
        except InputError:
            raise
        except Exception as err:  # ezdxf raises on malformed boundary paths
            self.problems.append(Problem(where, f"cannot read the hatch boundary: {err}"))
            return
        area = None
        for r in rings:
            if len(r) < 3 or not np.isfinite(r).all():
                continue
            poly = shapely.make_valid(Polygon(r * self.scale))
            area = poly if area is None else shapely.symmetric_difference(area, poly)
        if area is not None and not area.is_empty:
            self.features.append(Feature(area, (layer,), where, layer))
        else:
            self.skipped.append((where, "a hatch whose boundary encloses no area"))


def read_dxf(path: str | Path, opts: ImportOptions, budget: Budget | None = None) -> Source:
    """The entities of a DXF file's model space as features in metres, keyed by layer."""
    ezdxf = require("ezdxf", "DXF")
    check_path(path)
    try:
        doc = ezdxf.readfile(str(path))
    except Exception as e:  # ezdxf raises DXFStructureError, StopIteration (a truncated file), ValueError ...
        why = "the file ends early (truncated?)" if isinstance(e, (StopIteration, EOFError)) else str(e)
        raise InputError([Problem("", f"not a readable DXF file: {why or type(e).__name__}")], str(path)) from None
    code = int(doc.header.get("$INSUNITS", 0) or 0)
    notes = []
    if opts.scale is not None:
        scale = opts.scale
        notes.append(f"units: {scale:g} m per drawing unit (--scale)")
    elif code in INSUNITS_M:
        scale = INSUNITS_M[code]
        notes.append(f"units: {UNIT_NAMES[code]} ($INSUNITS {code})")
    else:
        scale = 1.0
        notes.append(f"units: $INSUNITS {code} states no length unit; 1 drawing unit = 1 m (use --scale to change)")
    r = _Reader(doc, opts.tolerance / scale, scale, budget or opts.budget(), opts)
    try:
        msp = doc.modelspace()
        r.budget.add_elements("model space", len(msp), f"{len(msp):,} entities")
        r.walk(msp, 0, None, None)
    except InputError as e:
        raise InputError(e.problems, str(path)) from None
    if r.problems:
        raise InputError(r.problems, str(path))
    return Source(r.features, Path(path).stem, None, notes, skipped=r.skipped)


__all__ = ["INSUNITS_M", "read_dxf"]
