"""DXF (CAD) import with ezdxf: LWPOLYLINE, POLYLINE, CIRCLE, ARC, ELLIPSE, SPLINE, LINE and HATCH entities by
layer.

Closed entities and hatches (islands inside a boundary are holes) become polygons; open ones (LINE, ARC, open polylines)
are lines, which the cleaning step closes into polygons per layer with ``shapely.polygonize`` (or keeps as routes on a
route layer); an open LWPOLYLINE with a constant width is the area it covers. Block references
(INSERT) are exploded with their transforms. Curves and bulges are flattened to ``ImportOptions.tolerance``.
Units come from the header's ``$INSUNITS`` (unitless drawings are taken as metres); ``--scale`` overrides.
A feature's key is its layer name; messages name the layer and the entity's handle.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.problems import InputError, Problem

from .clean import ImportOptions
from .deps import require
from .features import Feature, Source

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


def read_dxf(path: str | Path, opts: ImportOptions) -> Source:
    """The entities of a DXF file's model space as features in metres, keyed by layer."""
    ezdxf = require("ezdxf", "DXF")
    from ezdxf import path as dxfpath

    try:
        doc = ezdxf.readfile(str(path))
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {path}")]) from None
    except (IOError, ezdxf.DXFError, UnicodeDecodeError, ValueError) as e:
        raise InputError([Problem("", f"not a readable DXF file: {e}")], str(path)) from None
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
    tol = opts.tolerance / scale
    features: list[Feature] = []
    problems: list[Problem] = []

    def add(e, layer: str, where: str) -> None:
        try:
            p = dxfpath.make_path(e)
            pts = np.array([(v.x, v.y) for v in p.flattening(distance=tol)], dtype=np.float64)
        except Exception as err:  # ezdxf raises TypeError/ValueError/ezdxf errors on degenerate entities
            problems.append(Problem(where, f"cannot read the geometry: {err}"))
            return
        if len(pts) < 2:
            return
        if not np.isfinite(pts).all():
            problems.append(Problem(where, "coordinates are not finite numbers"))
            return
        pts = pts * scale
        closed = _is_closed(e) or (len(pts) > 3 and np.array_equal(pts[0], pts[-1]))
        geom = Polygon(pts) if closed and len(pts) >= 3 else LineString(pts)
        width = float(e.dxf.get("const_width", 0.0) or 0.0) * scale if e.dxftype() == "LWPOLYLINE" else 0.0
        features.append(Feature(geom, (layer,), where, layer, width=max(width, 0.0)))

    def add_hatch(e, layer: str, where: str) -> None:
        """A filled HATCH: its boundary paths, combined even-odd (islands inside a boundary are holes)."""
        try:
            rings = [np.array([(v.x, v.y) for v in p.flattening(distance=tol)], dtype=np.float64)
                     for p in dxfpath.from_hatch(e)]
        except Exception as err:  # ezdxf raises on malformed boundary paths
            problems.append(Problem(where, f"cannot read the hatch boundary: {err}"))
            return
        area = None
        for r in rings:
            if len(r) < 3 or not np.isfinite(r).all():
                continue
            poly = shapely.make_valid(Polygon(r * scale))
            area = poly if area is None else shapely.symmetric_difference(area, poly)
        if area is not None and not area.is_empty:
            features.append(Feature(area, (layer,), where, layer))

    def walk(entities, depth: int, layer_of_block: str | None, where_of_block: str | None) -> None:
        for e in entities:
            t = e.dxftype()
            layer = e.dxf.get("layer", "0")
            if layer_of_block is not None and layer == "0":
                layer = layer_of_block
            handle = e.dxf.get("handle", None)
            where = where_of_block or f"layer {layer!r}, {t} handle {handle}"
            if t == "INSERT":
                if depth >= MAX_BLOCK_DEPTH:
                    problems.append(Problem(where, f"block references nested deeper than {MAX_BLOCK_DEPTH}"))
                    continue
                try:
                    walk(e.virtual_entities(), depth + 1, layer, where)
                except Exception as err:  # a reference to a missing or broken block
                    problems.append(Problem(where, f"cannot explode the block reference: {err}"))
            elif t == "POLYLINE" and not (e.is_2d_polyline or e.is_3d_polyline):
                continue
            elif t == "HATCH":
                add_hatch(e, layer, where)
            elif t in ENTITY_TYPES:
                add(e, layer, where)

    walk(doc.modelspace(), 0, None, None)
    if problems:
        raise InputError(problems, str(path))
    return Source(features, Path(path).stem, None, notes)


__all__ = ["INSUNITS_M", "read_dxf"]
