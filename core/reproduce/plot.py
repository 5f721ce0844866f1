"""Figures for the report with matplotlib (the optional ``reproduce`` extra): a scene with its terrain, obstacles,
routes and walked paths, and labelled charts. matplotlib is imported only when a figure is made, so the rest of
the engine (and the app) runs without it; figures are ``matplotlib.figure.Figure`` objects, never pyplot's global
state, saved as PNG and SVG by ``save``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from core.scene.model import Scene

OBSTACLE = "#3c3c46"
# Distinct line colours for series (colour-blind-safe palette of Wong 2011).
PALETTE = ["#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000"]
PAPER = "#8c8c8c"


class MissingMatplotlib(RuntimeError):
    """matplotlib is not installed (``pip install 'miran-studio[reproduce]'``)."""


def _mpl():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as e:  # the reproduce extra is optional: say how to get it
        raise MissingMatplotlib("miran reproduce draws its figures with matplotlib: install the 'reproduce' extra "
                                "(pip install 'miran-studio[reproduce]')") from e
    matplotlib.rcParams["svg.hashsalt"] = "miran"  # SVG ids stable from run to run
    return Figure


def figure(width: float = 8.0, height: float = 5.0, ncols: int = 1) -> tuple[Any, Any]:
    """A new (Figure, axes) pair (axes an array when ncols > 1), constrained layout."""
    Figure = _mpl()
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def mosaic(layout: list[list[str]], width: float, height: float, **gridspec: Any) -> Any:
    """A new Figure with named axes laid out as ``layout`` (matplotlib's subplot_mosaic; ``gridspec`` as
    width_ratios / height_ratios); the axes are in ``fig.axes_dict``."""
    Figure = _mpl()
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.axes_dict = fig.subplot_mosaic(layout, **gridspec)
    return fig


def save(fig, stem: Path) -> list[Path]:
    """Write ``stem.png`` (150 dpi) and ``stem.svg``; returns both paths."""
    out = []
    for ext, kw in (("png", {"dpi": 150}), ("svg", {"metadata": {"Date": None}})):
        p = stem.with_suffix(f".{ext}")
        fig.savefig(p, format=ext, **kw)
        out.append(p)
    return out


def _type_color(scene: Scene, type_id: str) -> str:
    for t in scene.terrain_types:
        if t.id == type_id:
            return t.color[:7]
    return "#cbd5a3"


def _ring_path(rings: list) -> Any:
    from matplotlib.path import Path as MPath

    verts, codes = [], []
    for ring in rings:
        r = np.asarray(ring, dtype=float)
        verts.extend(list(r) + [r[0]])
        codes.extend([MPath.MOVETO] + [MPath.LINETO] * (len(r) - 1) + [MPath.CLOSEPOLY])
    return MPath(np.array(verts), codes)


def draw_scene(ax, scene: Scene, heights: bool = False, legend_terrain: bool = True) -> list:
    """Paint the scene on ``ax``: default terrain, terrain polygons in file order, obstacles on top, equal aspect,
    axes in the scene's units. With ``heights`` the height field is drawn as contour lines (metres). Returns legend
    handles for the terrain types that appear and the obstacles."""
    from matplotlib.patches import PathPatch, Patch

    x0, y0, x1, y1 = scene.bounds
    ax.add_patch(PathPatch(_ring_path([[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]]),
                           facecolor=_type_color(scene, scene.default_terrain), edgecolor="none", zorder=0))
    used = [scene.default_terrain]
    for t in scene.terrains:
        ax.add_patch(PathPatch(_ring_path([t.polygon] + list(t.holes)), facecolor=_type_color(scene, t.type),
                               edgecolor="none", zorder=1))
        if t.type not in used:
            used.append(t.type)
    for o in scene.obstacles:
        ax.add_patch(PathPatch(_ring_path([o.polygon]), facecolor=OBSTACLE, edgecolor="none", zorder=2))
    hf = getattr(scene, "heightfield", None)
    if heights and hf is not None:
        h = hf.array()
        xs = hf.origin[0] + hf.cell * np.arange(h.shape[1])
        ys = hf.origin[1] + hf.cell * np.arange(h.shape[0])
        cs = ax.contour(xs, ys, h, levels=8, colors="#5a4a2a", linewidths=0.6, zorder=2)
        ax.clabel(cs, fmt="%.0f m", fontsize=6)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    units = scene.units or "m"
    ax.set_xlabel(f"x ({units})")
    ax.set_ylabel(f"y ({units})")
    handles = []
    if legend_terrain:
        names = {t.id: t.name or t.id for t in scene.terrain_types}
        handles = [Patch(facecolor=_type_color(scene, u), edgecolor="#555555", linewidth=0.5, label=names[u])
                   for u in used]
    if scene.obstacles:
        handles.append(Patch(facecolor=OBSTACLE, label="obstacle"))
    return handles


def line(ax, pts: np.ndarray, label: str | None, color: str, width: float = 1.6, style: str = "-",
         z: int = 4) -> None:
    """A polyline (n, 2) in scene coordinates."""
    p = np.asarray(pts, dtype=float)
    ax.plot(p[:, 0], p[:, 1], style, color=color, linewidth=width, label=label, zorder=z)
