"""``miran import FILE --out scene.json [--map LAYER=ROLE ...]``: a scene from SVG, DXF, Tiled, GeoJSON/OGR or OSM.

The file's format comes from its name; the importer cleans what it reads (``core.importers.clean``) and the
scene is written only when it validates. The report lists the units or projection used, the role each layer
took and every change the cleaning made; ``--json`` prints it as JSON.
"""

from __future__ import annotations

import argparse
import math

from core.cli.output import check_destination, print_json
from core.importers import ImportOptions, import_file
from core.importers.budget import MAX_ELEMENTS, MAX_VERTICES
from core.importers.project import PROJECTIONS
from core.scene.io import save_scene
from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("import", help="a scene from SVG, DXF, Tiled JSON/TMX, GeoJSON/OGR or OSM",
                       description="Read a drawing or map (SVG, DXF, Tiled .tmj/.json/.tmx, GeoJSON, Shapefile, "
                                   "GeoPackage and other OGR formats, OpenStreetMap .osm/.osm.pbf), clean it and "
                                   "write a valid miran-scene file. ROLE is obstacle, route, ignore, terrain:TYPE "
                                   "or a terrain TYPE; LAYER is a layer, class or property value (for OSM a tag "
                                   "KEY=VALUE or KEY), or '(no layer)' for the elements that have none.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--out", metavar="SCENE", required=True, help="the miran-scene JSON file to write")
    p.add_argument("--map", metavar="LAYER=ROLE", action="append", default=[],
                   help="the role of a layer (repeatable), e.g. --map Walls=obstacle --map Mud=terrain:mud")
    p.add_argument("--tolerance", metavar="M", default="0.01",
                   help="largest distance between a curve and its polyline, metres (default 0.01)")
    p.add_argument("--grid", metavar="M", default="0.001", help="snap coordinates to this grid, metres "
                                                                 "(default 0.001)")
    p.add_argument("--min-area", metavar="M2", default="0.01", help="drop pieces smaller than this, square "
                                                                     "metres (default 0.01)")
    p.add_argument("--snap", metavar="M", default="0.01", help="join loose line ends closer than this before "
                                                                "closing them into polygons, metres (default 0.01)")
    p.add_argument("--scale", metavar="K", help="metres per source unit, overriding the file's units")
    p.add_argument("--projection", metavar="P", default="tmerc",
                   help=f"for longitude/latitude data: {' or '.join(PROJECTIONS)} (default tmerc)")
    p.add_argument("--layer-property", metavar="NAME", help="GeoJSON/OGR: the property naming a feature's layer")
    p.add_argument("--crs", metavar="CRS", help="GeoJSON/OGR: what the coordinates are, overriding the file: metres "
                                               "(taken as they are) or a CRS pyproj reads, e.g. EPSG:32632")
    p.add_argument("--max-elements", metavar="N", default=str(MAX_ELEMENTS),
                   help=f"refuse files that expand to more elements (block copies, <use> instances, features; "
                        f"default {MAX_ELEMENTS:,})")
    p.add_argument("--max-vertices", metavar="N", default=str(MAX_VERTICES),
                   help=f"refuse files whose flattened curves and buffered lines make more vertices (default "
                        f"{MAX_VERTICES:,})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def _number(problems: list[Problem], name: str, text: str, zero_ok: bool = False) -> float:
    """The positive (or, with ``zero_ok``, non-negative) number given for option ``name``; NaN after adding a
    problem naming the option when it is not one."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or v < 0 or (v == 0 and not zero_ok):
        problems.append(Problem(name, f"expected a {'non-negative' if zero_ok else 'positive'} number, got {text!r}"))
        return math.nan
    return v


def _count(problems: list[Problem], name: str, text: str) -> int:
    """The positive whole number given for option ``name``; 0 after adding a problem when it is not one."""
    try:
        v = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        v = 0
    if v <= 0:
        problems.append(Problem(name, f"expected a positive whole number, got {text!r}"))
    return v


def run(args) -> int:
    problems: list[Problem] = []
    tol = _number(problems, "--tolerance", args.tolerance)
    grid = _number(problems, "--grid", args.grid)
    min_area = _number(problems, "--min-area", args.min_area, zero_ok=True)
    snap = _number(problems, "--snap", args.snap, zero_ok=True)
    scale = _number(problems, "--scale", args.scale) if args.scale is not None else None
    max_elements = _count(problems, "--max-elements", args.max_elements)
    max_vertices = _count(problems, "--max-vertices", args.max_vertices)
    if args.crs is not None and not args.crs.strip():
        problems.append(Problem("--crs", "names no coordinate reference system"))
    if args.projection not in PROJECTIONS:
        problems.append(Problem("--projection", f"unknown projection {args.projection!r} (choose one of: "
                                                f"{', '.join(PROJECTIONS)})"))
    if problems:
        raise InputError(problems)
    check_destination(args.out, "--out")
    opts = ImportOptions(tolerance=tol, grid=grid, min_area=min_area, snap=snap, scale=scale,
                         projection=args.projection, layer_property=args.layer_property, crs=args.crs,
                         max_elements=max_elements, max_vertices=max_vertices)
    result = import_file(args.file, args.map, opts)
    try:
        save_scene(result.scene, args.out)
    except OSError as e:
        raise InputError([Problem("--out", f"cannot write {args.out}: {e.strerror or e}")]) from None
    s, rep = result.scene, result.report
    if args.json:
        print_json({"file": args.file, "out": args.out, "obstacles": len(s.obstacles),
                    "terrains": len(s.terrains), "routes": len(s.routes), "bounds": list(s.bounds),
                    "roles": rep.roles, "notes": rep.notes, "changes": rep.changes,
                    "obstacle_area": rep.obstacle_area, "terrain_areas": rep.terrain_areas,
                    "sources": result.sources,
                    "left_out": [{"element": w, "reason": why} for w, why in rep.left_out]})
        return 0
    print(f"{args.file} -> {args.out}: {len(s.obstacles)} obstacles, {len(s.terrains)} terrain polygons, "
          f"{len(s.routes)} routes; bounds {list(s.bounds)}")
    for line in rep.lines():
        print(f"  {line}")
    return 0
