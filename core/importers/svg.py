"""SVG (Inkscape) import with svgelements: closed paths, polygons, rectangles, circles and ellipses by layer or class.

Transforms are applied (svgelements ``reify``); curves are flattened so that no point of the polyline is further
than ``ImportOptions.tolerance`` metres from the curve; y is flipped (SVG's y points down). Units: when the root
``width``/``height`` carry a physical unit (mm, cm, in, pt, pc, m) the drawing has that size; when they are plain
numbers, px or absent, one user unit (of the viewBox) is one metre. ``--scale`` overrides both.
A shape's keys are its classes, then its Inkscape layer (the nearest ``inkscape:groupmode="layer"`` ancestor,
by ``inkscape:label``), so ``--map`` can name either; open paths become routes or lines for the cleaning step,
carrying their stroke width (a wall drawn as a thick line becomes the area it covers).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.problems import InputError, Problem

from .clean import ImportOptions
from .deps import require
from .features import Feature, Source

INKSCAPE = "{http://www.inkscape.org/namespaces/inkscape}"
PX_PER_INCH = 96.0
# Metres per physical unit of the root's width/height.
UNIT_M = {"mm": 0.001, "cm": 0.01, "m": 1.0, "in": 0.0254, "pt": 0.0254 / 72, "pc": 0.0254 / 6}
_PHYSICAL = re.compile(r"^\s*([-+0-9.eE]+)\s*(mm|cm|in|pt|pc|m)\s*$")


def _segments_n(seg, tol_px: float) -> int:
    """How many chords flatten one segment to within ``tol_px`` (bound on the second derivative)."""
    from svgelements import CubicBezier, QuadraticBezier

    if isinstance(seg, CubicBezier):
        p = [np.array([q.x, q.y]) for q in (seg.start, seg.control1, seg.control2, seg.end)]
        m = 6.0 * max(np.linalg.norm(p[0] - 2 * p[1] + p[2]), np.linalg.norm(p[1] - 2 * p[2] + p[3]))
    elif isinstance(seg, QuadraticBezier):
        p = [np.array([q.x, q.y]) for q in (seg.start, seg.control, seg.end)]
        m = 2.0 * np.linalg.norm(p[0] - 2 * p[1] + p[2])
    else:
        return 1
    return max(1, min(10_000, int(math.ceil(math.sqrt(m / (8.0 * tol_px))))))


def _flatten(path, tol_px: float) -> list[tuple[list[tuple[float, float]], bool]]:
    """The subpaths of a reified svgelements Path as point lists, each with whether it was closed."""
    from svgelements import Arc, Close, CubicBezier, Line, Move, QuadraticBezier

    out: list[tuple[list[tuple[float, float]], bool]] = []
    cur: list[tuple[float, float]] = []

    def flush(closed: bool) -> None:
        nonlocal cur
        if len(cur) >= 2:
            out.append((cur, closed))
        cur = []

    for seg in path:
        if isinstance(seg, Move):
            flush(False)
            cur = [(seg.end.x, seg.end.y)]
        elif isinstance(seg, Close):
            flush(True)
        elif isinstance(seg, Arc):
            if not cur:
                cur = [(seg.start.x, seg.start.y)]
            for cub in seg.as_cubic_curves():
                n = _segments_n(cub, tol_px)
                cur += [(p.x, p.y) for p in (cub.point(t) for t in np.linspace(0, 1, n + 1)[1:])]
        elif isinstance(seg, (CubicBezier, QuadraticBezier)):
            if not cur:
                cur = [(seg.start.x, seg.start.y)]
            n = _segments_n(seg, tol_px)
            cur += [(p.x, p.y) for p in (seg.point(t) for t in np.linspace(0, 1, n + 1)[1:])]
        elif isinstance(seg, Line):
            if not cur:
                cur = [(seg.start.x, seg.start.y)]
            cur.append((seg.end.x, seg.end.y))
    flush(False)
    return out


def read_svg(path: str | Path, opts: ImportOptions) -> Source:
    """The shapes of an SVG file as features in metres (y up), keyed by class and Inkscape layer."""
    se = require("svgelements", "SVG")
    try:
        svg = se.SVG.parse(str(path), reify=True, ppi=PX_PER_INCH)
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {path}")]) from None
    except Exception as e:  # svgelements raises ParseError, ValueError ... on malformed XML and attributes
        raise InputError([Problem("", f"not a readable SVG file: {e}")], str(path)) from None
    if not isinstance(svg, se.SVG):
        raise InputError([Problem("", "not an SVG document (no <svg> root)")], str(path))
    width_attr = str(svg.values.get("width", "") or "")
    notes = []
    if opts.scale is not None:
        m_per_px = opts.scale * (svg.viewbox.width / svg.width if svg.viewbox is not None and svg.width else 1.0)
        notes.append(f"units: {opts.scale:g} m per user unit (--scale)")
    elif (m := _PHYSICAL.match(width_attr)) and float(m.group(1)) > 0 and svg.width:
        # From the stated size itself: svgelements' own px-per-unit constants are rounded.
        m_per_px = float(m.group(1)) * UNIT_M[m.group(2)] / float(svg.width)
        notes.append(f"units: the document is {width_attr.strip()} wide")
    else:
        upx = svg.width / svg.viewbox.width if svg.viewbox is not None and svg.viewbox.width else 1.0
        m_per_px = 1.0 / upx
        notes.append("units: the document states no physical size; 1 user unit = 1 m (use --scale to change)")
    height_px = float(svg.height)
    tol_px = opts.tolerance / m_per_px
    features: list[Feature] = []

    def to_m(pts: list[tuple[float, float]]) -> np.ndarray:
        a = np.asarray(pts, dtype=np.float64)
        return np.column_stack([a[:, 0] * m_per_px, (height_px - a[:, 1]) * m_per_px])

    def walk(group, layer: str) -> None:
        for el in group:
            if isinstance(el, se.Group):
                v = el.values
                own = v.get(INKSCAPE + "groupmode") == "layer" and v.get(INKSCAPE + "label") not in (None, layer)
                walk(el, str(v.get(INKSCAPE + "label")) if own else layer)
            elif isinstance(el, se.Shape) and not isinstance(el, se.Use):
                if el.values.get("visibility") == "hidden" or el.values.get("display") == "none":
                    continue
                classes = tuple(str(el.values.get("class", "") or "").split())
                eid = el.id or f"#{len(features) + 1}"
                kind = type(el).__name__.lower()
                where = f"layer {layer!r}, {kind} {eid!r}" if layer else f"{kind} {eid!r}"
                keys = classes + ((layer,) if layer else ())
                # The drawn width of the outline (svgelements scales it with the transforms), when it has one.
                stroked = el.stroke is not None and el.stroke.value is not None
                stroke_m = float(el.stroke_width or 0.0) * m_per_px if stroked else 0.0
                rings = []
                for pts, closed in _flatten(abs(se.Path(el)), tol_px):   # abs: apply what reify left
                    a = to_m(pts)
                    if not np.isfinite(a).all():
                        raise InputError([Problem(where, "coordinates are not finite numbers")], str(path))
                    if (closed or (len(a) > 3 and np.allclose(a[0], a[-1]))) and len(a) >= 3:
                        rings.append(shapely.make_valid(Polygon(a)))
                    else:
                        features.append(Feature(LineString(a), keys, where, layer, width=stroke_m))
                if rings:
                    # Subpaths inside one another cut holes (the even-odd rule; what a drawn ring with a hole
                    # means under either fill rule when its rings wind opposite ways).
                    area = rings[0]
                    for r in rings[1:]:
                        area = shapely.symmetric_difference(area, r)
                    features.append(Feature(area, keys, where, layer))

    walk(svg, "")
    x1 = float(svg.width) * m_per_px
    page = (0.0, 0.0, x1, height_px * m_per_px) if x1 > 0 and height_px > 0 else None
    return Source(features, Path(path).stem, page, notes)


__all__ = ["read_svg"]
