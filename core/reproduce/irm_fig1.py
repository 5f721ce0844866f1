"""IRM Figure 1, "Obstacle avoidance inside corridors": the Corridor Map Method (a) against the Indicative Route
Method (b) on the same backbone path, with small static obstacles inside the corridor (core.reproduce.cmm).

The paper's claims (IRM section 1.1 and 4.5): with CMM "the character has to be very close to an obstacle to avoid
it and only at the very last moment adapts its motion, while in real-life people react much earlier"; IRM's path,
"using the medial axis as the indicative route", avoids the obstacles and "is more natural". The paper gives the
figure only, no numbers; the scene is a stand-in (scenes/README.md): a corridor 8 m wide with two bends, three
obstacle discs of 0.4 m set 0.3 m off its medial axis on the straight stretches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from . import plot
from .verdict import check

# The stand-in: the corridor's centre line, half width, scene size, and the small obstacles [x, y, radius].
CENTRE = ((0.0, 8.0), (40.0, 8.0), (60.0, 28.0), (100.0, 28.0))
HALF_WIDTH = 4.0
BOUNDS = (0.0, 0.0, 100.0, 36.0)
_OFF = 0.3 / np.sqrt(2.0)
OBSTACLES = np.array([[20.0, 8.3, 0.4], [50.0 + _OFF, 18.0 - _OFF, 0.4], [80.0, 27.7, 0.4]])
# A path has "reacted" to an obstacle where it leaves its own obstacle-free path by more than this (m).
REACTION = 0.05


def corridor_scene():
    """The stand-in scene: the free space is the centre line buffered by HALF_WIDTH (round joins); the rest of the
    bounds are two wall obstacles."""
    from core.scene.model import Obstacle, Profile, Scene, TerrainType

    free = shapely.LineString(CENTRE).buffer(HALF_WIDTH, cap_style="flat", join_style="round")
    walls = shapely.box(*BOUNDS).difference(free)
    obstacles = [Obstacle(f"wall{k}", [tuple(map(float, v)) for v in np.round(shapely.get_coordinates(p.exterior),
                                                                              3)[:-1]])
                 for k, p in enumerate(walls.geoms)]
    return Scene(bounds=BOUNDS, terrain_types=[TerrainType("default")], default_terrain="default",
                 obstacles=obstacles, profiles=[Profile("walker")], name="corridor with small obstacles")


def curvature(path: np.ndarray) -> np.ndarray:
    """Heading change per metre walked at each inner vertex of a polyline (1/m)."""
    d = np.diff(path, axis=0)
    step = np.hypot(d[:, 0], d[:, 1])
    keep = step > 1e-9
    d, step = d[keep], step[keep]
    h = np.arctan2(d[:, 1], d[:, 0])
    turn = np.abs((np.diff(h) + np.pi) % (2.0 * np.pi) - np.pi)
    return turn / (0.5 * (step[1:] + step[:-1]))


def passing(path: np.ndarray, free_path: np.ndarray, obstacle: np.ndarray, radius: float) -> dict:
    """How a path passes one obstacle: the closest gap between the character's and the obstacle's discs (m), and
    the gap where the path first left its obstacle-free path by REACTION on the stretch that leads to that closest
    point (the reaction; the closest gap when it never left it)."""
    gap = np.hypot(path[:, 0] - obstacle[0], path[:, 1] - obstacle[1]) - obstacle[2] - radius
    dev = shapely.distance(shapely.points(path), shapely.LineString(free_path))
    c = int(np.argmin(gap))
    j = c
    while j > 0 and dev[j - 1] > REACTION:
        j -= 1
    return {"closest_gap": float(gap[c]), "reaction_gap": float(gap[j]), "largest_deviation":
            float(dev[max(0, c - 40): c + 40].max())}


def irm_fig1(quick: bool = False):
    """IRM Figure 1: CMM's and IRM's paths along the same medial axis among small obstacles, with computed claims."""
    from core.navmesh import build_navmesh
    from core.routes.route import Route

    from .cmm import Walker, corridor, walk
    from .experiments import Experiment

    scene = corridor_scene()
    mesh = build_navmesh(scene)
    who = Walker()
    scale = float(np.hypot(BOUNDS[2] - BOUNDS[0], BOUNDS[3] - BOUNDS[1]))
    # The medial axis path: the straight route along the centre line retracted onto the medial axis (IRM 3.2).
    ends = np.array(CENTRE)
    ends[0, 0] += 1.0
    ends[-1, 0] -= 1.0
    B = corridor(mesh, Route.from_points(ends), 0.25, scale)[0]
    backbone = Route.from_points(B)
    paths: dict[str, np.ndarray] = {}
    free: dict[str, Any] = {}
    data: dict[str, dict[str, Any]] = {}
    for method in ("cmm", "irm"):
        paths[method] = walk(method, mesh, backbone, OBSTACLES, scene, who)
        free[method] = walk(method, mesh, backbone, OBSTACLES[:0], scene, who)
        p = paths[method]
        data[method] = {"obstacles": [passing(p, free[method], o, who.radius) for o in OBSTACLES],
                        "max_curvature": float(curvature(p).max()),
                        "length": float(np.sum(np.hypot(*np.diff(p, axis=0).T))),
                        "arrived": bool(np.hypot(*(p[-1] - B[-1])) <= who.vmax * who.dt)}
    cm, ir = data["cmm"], data["irm"]
    fig = plot.mosaic([["all", "all", "all"], ["o0", "o1", "o2"]], 10.0, 7.2, height_ratios=[1.3, 1.0])
    axes = fig.axes_dict
    from matplotlib.patches import Circle

    for name, ax in axes.items():
        handles = plot.draw_scene(ax, scene, legend_terrain=False)
        plot.line(ax, B, "medial axis (backbone path, IRM's route)", "black", 0.9, "--", z=3)
        for o in OBSTACLES:
            ax.add_patch(Circle(o[:2], o[2], facecolor="#7f7f7f", edgecolor="black", linewidth=0.6, zorder=5))
        plot.line(ax, paths["cmm"], "CMM (a)", plot.PALETTE[0], 1.6, "-", z=6)
        plot.line(ax, paths["irm"], "IRM (b)", plot.PALETTE[1], 1.6, "-", z=6)
        if name != "all":
            k = int(name[1])
            o = OBSTACLES[k]
            ax.set_xlim(o[0] - 2.5, o[0] + 2.5)
            ax.set_ylim(o[1] - 1.8, o[1] + 1.8)
            ax.set_title(f"obstacle {k + 1}: closest gap CMM {cm['obstacles'][k]['closest_gap']:.2f} m, "
                         f"IRM {ir['obstacles'][k]['closest_gap']:.2f} m", fontsize=8)
    axes["all"].plot([], [], "o", color="#7f7f7f", label="small obstacle (r = 0.4 m, not in the corridor map)")
    axes["all"].legend(handles=axes["all"].get_legend_handles_labels()[0] + handles, loc="upper left", fontsize=7,
                       framealpha=0.9)
    axes["all"].set_title("IRM Figure 1: obstacle avoidance inside a corridor, CMM (a) and IRM (b)")
    n = len(OBSTACLES)
    cg = [c["closest_gap"] for c in cm["obstacles"]]
    ig = [c["closest_gap"] for c in ir["obstacles"]]
    cr = [c["reaction_gap"] for c in cm["obstacles"]]
    irr = [c["reaction_gap"] for c in ir["obstacles"]]
    fmt = ", ".join
    checks = [
        # Criterion: at every obstacle CMM's closest gap between the character and the obstacle is at most half
        # of IRM's ("very close").
        check("CMM: the character has to be very close to an obstacle to avoid it",
              "closest gap CMM <= half of IRM's at every obstacle", "CMM closer (figure only)",
              f"CMM {fmt(f'{g:.3f}' for g in cg)} m, IRM {fmt(f'{g:.3f}' for g in ig)} m",
              all(a <= 0.5 * b for a, b in zip(cg, ig))),
        # Criterion: IRM's path turns away from every obstacle (leaves its obstacle-free path by 5 cm), and the gap
        # where it starts to is larger than where CMM's does: IRM turns away before CMM does.
        check("CMM adapts its motion only at the very last moment; IRM reacts earlier",
              f"IRM leaves its obstacle-free path by {100 * REACTION:.0f} cm at every obstacle, at a larger gap "
              "than CMM (the reaction gap)", "IRM earlier (figure only)",
              f"CMM {fmt(f'{g:.3f}' for g in cr)} m, IRM {fmt(f'{g:.3f}' for g in irr)} m",
              all(b > a and o["largest_deviation"] > REACTION for a, b, o in zip(cr, irr, ir["obstacles"]))),
        # Criterion: IRM's sharpest turn (heading change per metre) is gentler than CMM's.
        check("IRM's path is more natural than CMM's", "largest curvature IRM < CMM", "IRM smoother (figure only)",
              f"IRM {ir['max_curvature']:.1f} 1/m, CMM {cm['max_curvature']:.1f} 1/m",
              ir["max_curvature"] < cm["max_curvature"]),
        check("IRM avoids the small obstacles and reaches the goal", "IRM closest gap > 0 at every obstacle, "
              "both arrive", "avoided", f"IRM smallest gap {min(ig):.3f} m; arrived CMM "
              f"{'yes' if cm['arrived'] else 'no'}, IRM {'yes' if ir['arrived'] else 'no'}",
              min(ig) > 0.0 and cm["arrived"] and ir["arrived"]),
    ]
    md = ("Stand-in corridor (scenes/README.md): 8 m wide with two bends, 100 x 36 m; three obstacle discs of "
          "0.4 m, 0.3 m off the medial axis, not part of the corridor map. One character (r 0.25 m, 1.4 m/s, "
          f"dt {who.dt:g} s) walks the medial axis path with each method: CMM after [5] (attraction point the "
          "farthest backbone point whose disc holds the character, force 1/(R - d) - 1/R, Euler, backbone sampled "
          "every 5 cm) and IRM as the engine steers it (eqs. 1-4, Verlet). Both feel the obstacles through the "
          "same eq. 6 (k_r = c_o d_o, d_o = 1.4 m, uncapped). The paper gives the figure only, no numbers.\n\n"
          "| | " + " | ".join(f"obstacle {k + 1} CMM | obstacle {k + 1} IRM" for k in range(n)) + " |\n|---|"
          + "---:|" * (2 * n) + "\n"
          + "| closest gap (m) | " + " | ".join(f"{a:.3f} | {b:.3f}" for a, b in zip(cg, ig)) + " |\n"
          + "| reaction gap (m) | " + " | ".join(f"{a:.3f} | {b:.3f}" for a, b in zip(cr, irr)) + " |\n"
          + "| largest deviation from the obstacle-free path (m) | "
          + " | ".join(f"{a['largest_deviation']:.2f} | {b['largest_deviation']:.2f}"
                       for a, b in zip(cm["obstacles"], ir["obstacles"])) + " |\n\n"
          f"| | CMM | IRM |\n|---|---:|---:|\n| path length (m) | {cm['length']:.2f} | {ir['length']:.2f} |\n"
          f"| largest curvature (1/m) | {cm['max_curvature']:.1f} | {ir['max_curvature']:.1f} |\n"
          "\nA negative gap is an overlap: CMM's attraction force, unbounded near the rim of the farthest disc, "
          "lets eq. 6 win only within one step of contact.\n")
    return Experiment("irm_fig1", "IRM Figure 1: CMM and IRM avoiding small obstacles in a corridor", fig, md,
                      data, checks)
