"""Pictures for the report: a scene with its terrain, obstacles, routes and walked paths, and simple charts (lines,
grouped bars, stacked bars) drawn with ``raster.Canvas``."""

from __future__ import annotations

import numpy as np

from core.scene.model import Scene

from .raster import Canvas, Color, hex_color, text_width

BLACK: Color = (0, 0, 0)
GREY: Color = (120, 120, 120)
OBSTACLE: Color = (60, 60, 70)
# Distinct line colours for series (colour-blind-safe palette of Wong 2011).
PALETTE: list[Color] = [(213, 94, 0), (0, 114, 178), (0, 158, 115), (204, 121, 167), (230, 159, 0), (86, 180, 233),
                        (240, 228, 66), (0, 0, 0)]


def scene_canvas(scene: Scene, width: int = 800, heights: bool = False) -> Canvas:
    """The scene's bounds with its terrain painted in file order and its obstacles on top; with ``heights`` the
    height field is shaded under the terrain colours' darkening."""
    cv = Canvas(scene.bounds, width=width)
    x0, y0, x1, y1 = scene.bounds
    cv.fill_polygon([[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]], hex_color(_type_color(scene, scene.default_terrain)))
    for t in scene.terrains:
        cv.fill_polygon([t.polygon] + list(t.holes), hex_color(_type_color(scene, t.type)))
    hf = getattr(scene, "heightfield", None)
    if heights and hf is not None:
        _shade_heights(cv, hf)
    for o in scene.obstacles:
        cv.fill_polygon([o.polygon], OBSTACLE)
    return cv


def _type_color(scene: Scene, type_id: str) -> str:
    for t in scene.terrain_types:
        if t.id == type_id:
            return t.color
    return "#cbd5a3"


def _shade_heights(cv: Canvas, hf) -> None:
    """Darken the picture by height (bilinear) and draw contour bands every tenth of the range."""
    h = hf.array()
    ys, xs = np.mgrid[0: cv.height, 0: cv.width]
    x0, y0, _, _ = cv.box
    wx = x0 + (xs - cv.margin) / cv.sx
    wy = y0 + (cv.height - cv.margin - ys) / cv.sy
    u = np.clip((wx - hf.origin[0]) / hf.cell, 0, h.shape[1] - 1.000001)
    v = np.clip((wy - hf.origin[1]) / hf.cell, 0, h.shape[0] - 1.000001)
    i, j = u.astype(int), v.astype(int)
    fu, fv = u - i, v - j
    i1, j1 = np.minimum(i + 1, h.shape[1] - 1), np.minimum(j + 1, h.shape[0] - 1)
    z = (h[j, i] * (1 - fu) + h[j, i1] * fu) * (1 - fv) + (h[j1, i] * (1 - fu) + h[j1, i1] * fu) * fv
    span = max(float(h.max() - h.min()), 1e-12)
    t = (z - h.min()) / span
    shade = 1.0 - 0.45 * t
    band = (np.floor(t * 10) % 2 == 1)
    shade = np.where(band, shade * 0.93, shade)
    cv.rgb[:] = (cv.rgb * shade[..., None]).astype(np.uint8)


def legend(cv: Canvas, items: list[tuple[str, Color]], x: int = 16, y: int = 16, scale: int = 2) -> None:
    """A boxed legend of coloured lines and labels at pixel (x, y); a negative x counts from the right edge."""
    w = max(text_width(s, scale) for s, _ in items) + 40
    if x < 0:
        x = cv.width + x - w
    h = len(items) * 10 * scale + 8
    cv.rgb[y: y + h, x: x + w] = (255, 255, 255)
    cv.rgb[y, x: x + w] = BLACK
    cv.rgb[y + h - 1, x: x + w] = BLACK
    cv.rgb[y: y + h, x] = BLACK
    cv.rgb[y: y + h, x + w - 1] = BLACK
    for k, (label, color) in enumerate(items):
        yy = y + 6 + k * 10 * scale
        cv.rgb[yy + 3 * scale: yy + 4 * scale + 1, x + 6: x + 30] = color
        cv.text(x + 34, yy, label, BLACK, scale)


def line_chart(series: list[tuple[str, np.ndarray, np.ndarray, Color, bool]], xlabel: str, ylabel: str,
               width: int = 800, height: int = 500, hline: float | None = None) -> Canvas:
    """Lines (``dots`` True: markers only) over shared axes starting at 0; ``hline`` a dashed level."""
    xmax = max(float(np.max(x)) for _, x, _, _, _ in series) * 1.05
    ymax = max(float(np.max(y)) for _, _, y, _, _ in series)
    if hline is not None:
        ymax = max(ymax, hline)
    ymax *= 1.1
    cv = _axes(width, height, xmax, ymax, xlabel, ylabel)
    if hline is not None:
        cv.polyline([(0, hline), (xmax, hline)], GREY, 1.5, dash=6)
    for _, x, y, color, dots in series:
        pts = np.column_stack([x, y])
        if not dots:
            cv.polyline(pts, color, 2.5)
        cv.points(pts, color, 4)
    legend(cv, [(s[0], s[3]) for s in series], x=-16, y=16)
    return cv


def bar_chart(groups: list[str], series: list[tuple[str, np.ndarray, Color]], ylabel: str, width: int = 800,
              height: int = 500, log: bool = False) -> Canvas:
    """Grouped bars: one group per label, one bar per series (values >= 0; ``log``: log10 scale above 1e-3)."""
    vals = np.array([s[1] for s in series], dtype=np.float64)
    if log:
        vals = np.log10(np.maximum(vals, 1e-3)) + 3.0
    ymax = float(vals.max()) * 1.15 if vals.size else 1.0
    cv = _axes(width, height, float(len(groups)), ymax, "", ylabel + (" (LOG10 + 3)" if log else ""), xticks=False)
    nb = len(series)
    for g, label in enumerate(groups):
        for k in range(nb):
            a = g + 0.1 + 0.8 * k / nb
            b = g + 0.1 + 0.8 * (k + 1) / nb - 0.02
            v = vals[k, g]
            cv.fill_polygon([[(a, 0), (b, 0), (b, v), (a, v)]], series[k][2])
        px = cv.to_px([(g + 0.5, 0)])[0]
        cv.text(px[0] - text_width(label[:12], 1) / 2, px[1] + 6, label[:12], BLACK, 1)
    legend(cv, [(s[0], s[2]) for s in series], x=-16, y=16)
    return cv


def stacked_bars(rows: list[str], parts: list[tuple[str, np.ndarray, Color]], width: int = 800,
                 height: int = 360) -> Canvas:
    """Horizontal bars of fractions (each row's parts sum to 1), like Niederberger's Figure 9."""
    cv = Canvas((0, 0, 1, len(rows)), width=width, height=height, margin=40)
    cv.margin = 40
    for r, label in enumerate(rows):
        acc = 0.0
        y = len(rows) - r - 1
        for _, frac, color in parts:
            f = float(frac[r])
            cv.fill_polygon([[(acc, y + 0.15), (acc + f, y + 0.15), (acc + f, y + 0.85), (acc, y + 0.85)]], color)
            if f > 0.06:
                p = cv.to_px([(acc + f / 2, y + 0.5)])[0]
                s = f"{100 * f:.0f}%"
                cv.text(p[0] - text_width(s, 2) / 2, p[1] - 7, s, (255, 255, 255), 2)
            acc += f
        p = cv.to_px([(0, y + 0.95)])[0]
        cv.text(p[0], p[1] - 2, label, BLACK, 1)
    legend(cv, [(s[0], s[2]) for s in parts], x=width - 260, y=4, scale=1)
    return cv


def _axes(width: int, height: int, xmax: float, ymax: float, xlabel: str, ylabel: str,
          xticks: bool = True) -> Canvas:
    cv = Canvas((0, 0, xmax, ymax), width=width, height=height, margin=70)
    o = cv.to_px([(0, 0)])[0]
    cv.polyline([(0, 0), (xmax, 0)], BLACK, 1.5)
    cv.polyline([(0, 0), (0, ymax)], BLACK, 1.5)
    for v in _ticks(ymax):
        p = cv.to_px([(0, v)])[0]
        cv.polyline([(0, v), (xmax * 0.01, v)], BLACK, 1)
        s = _fmt(v)
        cv.text(p[0] - text_width(s, 1) - 6, p[1] - 3, s, BLACK, 1)
    if xticks:
        for v in _ticks(xmax):
            p = cv.to_px([(v, 0)])[0]
            s = _fmt(v)
            cv.text(p[0] - text_width(s, 1) / 2, p[1] + 6, s, BLACK, 1)
    cv.text(o[0] + (width - 140) / 2 - text_width(xlabel, 2) / 2, height - 28, xlabel, BLACK, 2)
    cv.text(8, 40, ylabel, BLACK, 2)
    return cv


def _ticks(vmax: float) -> list[float]:
    raw = vmax / 5
    mag = 10 ** np.floor(np.log10(raw)) if raw > 0 else 1.0
    step = min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=mag)
    return [k * step for k in range(int(vmax / step) + 1)]


def _fmt(v: float) -> str:
    return f"{v:g}" if abs(v) >= 0.01 or v == 0 else f"{v:.1e}"
