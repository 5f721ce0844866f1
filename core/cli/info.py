"""``miran info SCENE``: counts, areas per terrain type, free area and connected components."""

from __future__ import annotations

import argparse

from core.cli.output import print_json
from core.scene.geometry import build_geometry
from core.scene.io import load_scene
from core.scene.polygons import is_convex


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("info", help="counts and areas per terrain type",
                       description="Print a scene's counts, the area of each terrain type, the free area and the "
                                   "connected components of the free space.")
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def scene_info(scene) -> dict:
    """The facts ``miran info`` prints, as a JSON-ready dict."""
    g = build_geometry(scene)
    x0, y0, x1, y1 = scene.bounds
    return {
        "name": scene.name,
        "units": scene.units,
        "bounds": list(scene.bounds),
        "bounds_area": (x1 - x0) * (y1 - y0),
        "obstacles": len(scene.obstacles),
        "obstacle_vertices": sum(len(o.polygon) for o in scene.obstacles),
        "convex_obstacles": sum(is_convex(o.polygon) for o in scene.obstacles),
        "terrain_polygons": len(scene.terrains),
        "terrain_vertices": sum(len(t.polygon) + sum(len(h) for h in t.holes) for t in scene.terrains),
        "terrain_types": len(scene.terrain_types),
        "profiles": len(scene.profiles),
        "routes": len(scene.routes),
        "networks": len(scene.networks),
        "agents": len(scene.agents),
        "obstacle_area": float(g.obstacles.area),
        "free_area": g.free_area,
        "components": len(g.components),
        "terrain_areas": {t.id: float(a) for t, a in zip(scene.terrain_types, g.areas)},
    }


def run(args) -> int:
    scene = load_scene(args.scene)
    info = scene_info(scene)
    if args.json:
        print_json(info)
        return 0
    u = info["units"]
    print(f"{info['name']}  ({args.scene})")
    print(f"  bounds           {info['bounds']}  ({info['bounds_area']:.1f} {u}^2)")
    print(f"  obstacles        {info['obstacles']}  ({info['obstacle_vertices']} vertices, "
          f"{info['convex_obstacles']} convex)")
    print(f"  terrain polygons {info['terrain_polygons']}  ({info['terrain_vertices']} vertices)")
    print(f"  terrain types    {info['terrain_types']}   profiles {info['profiles']}   routes {info['routes']}"
          f"   networks {info['networks']}   agents {info['agents']}")
    print(f"  free area        {info['free_area']:.1f} {u}^2 in {info['components']} connected component(s)")
    print("  area per terrain type:")
    for tid, a in info["terrain_areas"].items():
        print(f"    {tid:<16} {a:12.1f} {u}^2")
    return 0
