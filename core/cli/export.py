"""``miran export PATHS --format pedpy|jupedsim|geojson|csv --out FILE``: trajectories and paths for other tools.

PATHS is a ``miran-paths`` file (``miran simulate --out``); for ``geojson`` it may also be a scene file, which is
written alone. ``--scene`` adds the scene: its free space becomes JuPedSim's walkable area, its obstacles,
terrain and routes go into the GeoJSON.
"""

from __future__ import annotations

import argparse

from core.cli.output import check_destination
from core.export.geojson import write_geojson
from core.export.paths import parse_paths
from core.export.trajectories import DEFAULT_DECIMALS, write_csv, write_jupedsim, write_pedpy
from core.scene.io import load_scene
from core.scene.jsonio import read_json
from core.scene.parse import parse_scene
from core.scene.problems import InputError, Problem

FORMATS = ("pedpy", "jupedsim", "geojson", "csv")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("export", help="trajectories and paths for PedPy, JuPedSim, GIS tools or CSV",
                       description="Write a run's paths as PedPy trajectory text (id frame x y z, metres, frame "
                                   "rate 1/dt), a JuPedSim SQLite trajectory file with the walkable area as WKT, "
                                   "GeoJSON (paths and scene, readable by miran import) or CSV without float "
                                   "noise.")
    p.add_argument("paths", metavar="PATHS", help="a miran-paths file (or, for geojson, a miran-scene file)")
    p.add_argument("--format", metavar="F", required=True, help=f"one of: {', '.join(FORMATS)}")
    p.add_argument("--out", metavar="FILE", required=True)
    p.add_argument("--scene", metavar="SCENE", help="the scene of the run (walkable area; GeoJSON geometry)")
    p.add_argument("--decimals", metavar="N", default=str(DEFAULT_DECIMALS),
                   help=f"decimals of the coordinates (default {DEFAULT_DECIMALS}: 1 mm)")
    return p


def run(args) -> int:
    problems: list[Problem] = []
    if args.format not in FORMATS:
        problems.append(Problem("--format", f"unknown format {args.format!r} (choose one of: {', '.join(FORMATS)})"))
    try:
        decimals = int(args.decimals)
        if not 0 <= decimals <= 12:
            raise ValueError
    except ValueError:
        problems.append(Problem("--decimals", f"expected a whole number from 0 to 12, got {args.decimals!r}"))
    if problems:
        raise InputError(problems)
    check_destination(args.out, "--out")
    data = read_json(args.paths)
    scene = load_scene(args.scene) if args.scene else None
    pf = None
    if isinstance(data, dict) and data.get("format") == "miran-scene":
        if args.format != "geojson":
            raise InputError([Problem("", f"this is a scene file; --format {args.format} needs a miran-paths file "
                                          "(miran simulate --out)")], args.paths)
        scene = parse_scene(data, args.paths)
    else:
        pf = parse_paths(data, args.paths)
    note = ""
    try:
        if pf is None or args.format == "geojson":
            # A scene file (no paths) reaches here only for geojson: checked above.
            write_geojson(args.out, scene, pf, decimals)
        elif args.format == "pedpy":
            write_pedpy(args.out, pf, decimals)
        elif args.format == "csv":
            write_csv(args.out, pf, decimals)
        elif args.format == "jupedsim":
            note = write_jupedsim(args.out, pf, scene, decimals)
    except InputError as e:
        raise InputError(e.problems, e.source or args.paths) from None
    except OSError as e:
        raise InputError([Problem("--out", f"cannot write {args.out}: {e.strerror or e}")]) from None
    what = f"{len(pf.agents)} agents" if pf is not None else "the scene"
    print(f"wrote {args.out} ({args.format}, {what})" + (f"; {note}" if note else ""))
    return 0
