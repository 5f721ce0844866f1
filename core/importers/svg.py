"""SVG (Inkscape) import: closed paths, polygons, rectangles, circles and ellipses by layer or class.

The document is read twice. First as XML (``svgtree``): ``<use>`` instances (``href`` or ``xlink:href``) are
expanded into groups carrying the use's transform, ``<symbol>``, ``<defs>`` and the other never-drawn containers
are set aside (their shapes appear only through ``<use>``), the elements are counted against the budget, and every
shape is tagged with its name for the report. Then svgelements reads the expanded document: transforms, units,
viewBox, CSS and the shapes' outlines. Curves are flattened so that no point of the polyline is further than
``ImportOptions.tolerance`` metres from the curve (arcs exactly on the ellipse; a zero-radius arc is the straight
line SVG defines it to be); y is flipped (SVG's y points down).
Units: when the root ``width``/``height`` carry a physical unit (mm, cm, in, pt, pc, m) the drawing has that size;
when they are plain numbers, px or absent, one user unit (of the viewBox) is one metre. ``--scale`` overrides both.
A shape's keys are its classes, then its Inkscape layer (the nearest ``inkscape:groupmode="layer"`` ancestor,
by ``inkscape:label``), so ``--map`` can name either; open paths become routes or lines for the cleaning step,
carrying their stroke width (a wall drawn as a thick line becomes the area it covers).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from core.scene.fields import MAX_COORD
from core.scene.problems import InputError, Problem

from .budget import Budget
from .clean import ImportOptions
from .curves import bezier_bound, bezier_points, chords
from .deps import require
from .features import Feature, Source
from .svgtree import TAG_KEY, expand

PX_PER_INCH = 96.0
# Metres per physical unit of the root's width/height.
UNIT_M = {"mm": 0.001, "cm": 0.01, "m": 1.0, "in": 0.0254, "pt": 0.0254 / 72, "pc": 0.0254 / 6}
_PHYSICAL = re.compile(r"^\s*([-+0-9.eE]+)\s*(mm|cm|in|pt|pc|m)\s*$")


def _segment_plan(path, tol_px: float, se) -> list[tuple[Any, int]]:
    """Each segment of a reified svgelements Path with the number of chords it flattens to (1 for lines, 0 for
    moves and closes); counted before any point is made."""
    plan: list[tuple[Any, int]] = []
    for seg in path:
        if isinstance(seg, se.Arc):
            if _degenerate_arc(seg):
                plan.append((seg, 1))
                continue
            plan.append((seg, chords(max(seg.rx, seg.ry), float(seg.sweep), tol_px)))
        elif isinstance(seg, (se.CubicBezier, se.QuadraticBezier)):
            ctrl = np.array([(q.x, q.y) for q in _controls(seg, se)], dtype=np.float64)
            plan.append((seg, chords(bezier_bound(ctrl), 1.0, tol_px)))
        elif isinstance(seg, (se.Line, se.Close)):
            plan.append((seg, 1))
        else:
            plan.append((seg, 0))
    return plan


def _degenerate_arc(seg) -> bool:
    """An arc SVG draws as a straight line: a zero radius (or a sweep of zero, what svgelements makes of one)."""
    return not (seg.rx > 0 and seg.ry > 0 and seg.sweep != 0)


def _controls(seg, se) -> tuple:
    if isinstance(seg, se.CubicBezier):
        return seg.start, seg.control1, seg.control2, seg.end
    return seg.start, seg.control, seg.end


def _flatten(plan: list[tuple[Any, int]], se) -> list[tuple[list[tuple[float, float]], bool]]:
    """The subpaths of a segment plan as point lists, each with whether it was closed."""
    out: list[tuple[list[tuple[float, float]], bool]] = []
    cur: list[tuple[float, float]] = []

    def flush(closed: bool) -> None:
        nonlocal cur
        if len(cur) >= 2:
            out.append((cur, closed))
        cur = []

    for seg, n in plan:
        if isinstance(seg, se.Move):
            flush(False)
            cur = [(seg.end.x, seg.end.y)]
            continue
        if isinstance(seg, se.Close):
            flush(True)
            continue
        if seg.end is None:
            continue
        if not cur:
            if seg.start is None:                            # a path must begin with a move: nothing to draw yet
                continue
            cur = [(seg.start.x, seg.start.y)]
        if isinstance(seg, se.Arc) and not _degenerate_arc(seg):
            cur += [tuple(p) for p in seg.npoint(np.linspace(0.0, 1.0, n + 1)[1:]).tolist()]
        elif isinstance(seg, (se.CubicBezier, se.QuadraticBezier)):
            ctrl = np.array([(q.x, q.y) for q in _controls(seg, se)], dtype=np.float64)
            cur += [tuple(p) for p in bezier_points(ctrl, n)[1:].tolist()]
        elif seg.end is not None:
            cur.append((seg.end.x, seg.end.y))
    flush(False)
    return out


def _page_scale(svg, opts: ImportOptions, where: str) -> tuple[float, str]:
    """Metres per user unit of the rendered document, and the note saying where that came from."""
    width_attr = str(svg.values.get("width", "") or "")
    if opts.scale is not None:
        ratio = svg.viewbox.width / svg.width if svg.viewbox is not None and svg.width else 1.0
        return opts.scale * ratio, f"units: {opts.scale:g} m per user unit (--scale)"
    m = _PHYSICAL.match(width_attr)
    if m and float(m.group(1)) > 0 and svg.width:
        # From the stated size itself: svgelements' own px-per-unit constants are rounded.
        return (float(m.group(1)) * UNIT_M[m.group(2)] / float(svg.width),
                f"units: the document is {width_attr.strip()} wide")
    upx = svg.width / svg.viewbox.width if svg.viewbox is not None and svg.viewbox.width else 1.0
    if not upx > 0:
        raise InputError([Problem(where, "the document's width is not positive")])
    return 1.0 / upx, "units: the document states no physical size; 1 user unit = 1 m (use --scale to change)"


def read_svg(path: str | Path, opts: ImportOptions, budget: Budget | None = None) -> Source:
    """The shapes of an SVG file as features in metres (y up), keyed by class and Inkscape layer."""
    se = require("svgelements", "SVG")
    budget = budget or opts.budget()
    tree = expand(path, budget)
    try:
        svg = se.SVG.parse(io.BytesIO(tree.document), reify=True, ppi=PX_PER_INCH)
    except Exception as e:  # svgelements raises ParseError, ValueError ... on malformed attributes
        raise InputError([Problem("", f"not a readable SVG file: {e}")], str(path)) from None
    if not isinstance(svg, se.SVG):
        raise InputError([Problem("", "not an SVG document (no <svg> root)")], str(path))
    if not (float(svg.width or 0) > 0 and float(svg.height or 0) > 0):
        raise InputError([Problem("<svg>", "the document's width or height is zero, negative or too small to "
                                           "draw: SVG draws nothing at that size (give the root a positive width "
                                           "and height)")], str(path))
    m_per_px, note = _page_scale(svg, opts, "<svg>")
    height_px = float(svg.height)
    tol_px = opts.tolerance / m_per_px
    if not (np.isfinite(tol_px) and tol_px > 0 and np.isfinite(m_per_px) and m_per_px > 0):
        raise InputError([Problem("<svg>", f"the document's size gives {m_per_px:g} m per user unit, which cannot "
                                           "be used (use --scale)")], str(path))
    features: list[Feature] = []
    seen: set[int] = set()
    source = Source(features, Path(path).stem, None, [note])

    def to_m(pts: list[tuple[float, float]]) -> np.ndarray:
        a = np.asarray(pts, dtype=np.float64)
        return np.column_stack([a[:, 0] * m_per_px, (height_px - a[:, 1]) * m_per_px])

    for el in svg.elements():
        k = el.values.get(TAG_KEY) if hasattr(el, "values") else None
        if k is None or int(k) in seen:
            continue
        info = tree.elements[int(k)]
        seen.add(int(k))
        if not isinstance(el, se.Shape):
            source.skip(info.where, "text and images are not imported")
            continue
        if el.values.get("visibility") in ("hidden", "collapse"):
            source.skip(info.where, "hidden (visibility)")
            continue
        keys = info.classes + ((info.layer,) if info.layer else ())
        # The drawn width of the outline (svgelements scales it with the transforms), when it has one.
        stroked = el.stroke is not None and el.stroke.value is not None
        stroke_m = float(el.stroke_width or 0.0) * m_per_px if stroked else 0.0
        try:
            plan = _segment_plan(abs(se.Path(el)), tol_px, se)    # abs: apply what reify left
            budget.add_vertices(info.where, sum(n for _, n in plan), tolerance=opts.tolerance)
            subpaths = _flatten(plan, se)
        except (AttributeError, TypeError, ValueError, ZeroDivisionError, OverflowError) as err:
            raise InputError([Problem(info.where, f"an outline that cannot be read: {err}")], str(path)) from None
        made = len(features)
        rings = []
        for pts, closed in subpaths:
            a = to_m(pts)
            if not np.isfinite(a).all():
                raise InputError([Problem(info.where, "coordinates are not finite numbers")], str(path))
            if np.abs(a).max() > MAX_COORD:
                x, y = a[int(np.argmax(np.abs(a).max(axis=1)))]
                raise InputError([Problem(info.where, f"coordinate ({x:g}, {y:g}) m is beyond the scene's limit of "
                                                      f"+/-{MAX_COORD:g} m (see --scale)")], str(path))
            if (closed or (len(a) > 3 and np.allclose(a[0], a[-1]))) and len(a) >= 3:
                rings.append(shapely.make_valid(Polygon(a)))
            else:
                features.append(Feature(LineString(a), keys, info.where, info.layer, width=stroke_m))
        if rings:
            # Subpaths inside one another cut holes (the even-odd rule; what a drawn ring with a hole means under
            # either fill rule when its rings wind opposite ways).
            area = rings[0] if len(rings) == 1 else _even_odd(rings)
            features.append(Feature(area, keys, info.where, info.layer))
        if len(features) == made:
            source.skip(info.where, "an outline of no extent")
    for k, info in enumerate(tree.elements):
        if k not in seen:
            source.skip(info.where, "not drawn (display: none, or a shape of zero size)")
    source.skipped = tree.skipped + source.skipped
    x1 = float(svg.width) * m_per_px
    source.page = (0.0, 0.0, x1, height_px * m_per_px) if x1 > 0 and height_px > 0 else None
    return source


def _even_odd(rings: list) -> object:
    """The even-odd area of rings: the faces their outlines cut the plane into, kept where an odd number of rings
    covers them (one pass, where a symmetric difference per ring would copy the growing area each time)."""
    polys = [p for r in rings for p in shapely.get_parts(r) if not p.is_empty]
    if len(polys) <= 8:
        area = polys[0]
        for r in polys[1:]:
            area = shapely.symmetric_difference(area, r)
        return area
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.union_all(
        [shapely.boundary(p) for p in polys]))))
    if len(faces) == 0:
        return Polygon()
    probe = shapely.point_on_surface(faces)
    tree = shapely.STRtree(polys)
    inside, _ = tree.query(probe, predicate="within")
    depth = np.bincount(inside, minlength=len(faces))
    return shapely.union_all(faces[depth % 2 == 1])


__all__ = ["read_svg"]
