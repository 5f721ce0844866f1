"""A generated corpus of hostile inputs for every ``miran`` command: files and options a hostile user would try.

``build_corpus(folder)`` writes the files into ``folder`` and returns the cases: ``Case(name, argv, code,
mentions)``: the command line, the exit status it must give (0, or 2 for bad input) and the text its error
output must contain (the JSON path, option or file the message names). The classes come from issue 14's findings
(an obstacle outside the bounds sharing their edge, lone surrogates, extreme speeds, time steps and weights,
devices and FIFOs as scenes, unwritable outputs, a disconnected network, a huge grid) and the neighbouring ones.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from core.cli.main import main

BASE = {
    "format": "miran-scene", "version": 1, "name": "Hostile base", "units": "m", "bounds": [0, 0, 20, 20],
    "terrain_types": [{"id": "default"}, {"id": "mud", "color": "#7a5230"}], "default_terrain": "default",
    "obstacles": [{"id": "o1", "polygon": [[8, 8], [12, 8], [12, 12], [8, 12]]}],
    "terrains": [{"id": "t1", "type": "mud", "polygon": [[0, 14], [20, 14], [20, 16], [0, 16]]}],
    "profiles": [{"id": "p", "weights": {"mud": 4}, "radius": 0.25, "max_speed": 1.4, "sigma": 6, "d": 1}],
    "routes": [{"id": "r1", "points": [[2, 2], [18, 2], [18, 18]]}],
    "networks": [{"id": "n1", "nodes": [[2, 4], [18, 4], [2, 18], [18, 18]], "edges": [[0, 1], [2, 3]]}],
    "agents": [{"id": "a1", "profile": "p", "route": "r1"}],
    "simulation": {"method": "miran", "integrator": "euler", "dt": 0.2},
}
# A moving obstacle: a car driving up and down across the route at x = 15, turning at the ends.
CAR = {"id": "car", "polygon": [[14, 1.5], [16, 1.5], [16, 2.5], [14, 2.5]], "path": [[15, 2], [15, 6]], "speed": 3,
       "loop": True, "turns": True}
# Options that keep each run small: a route query, a bounded simulation, a coarse map.
ROUTE = ["--from", "2,2", "--to", "18,6"]
SIMULATE = ["--steps", "300"]
ECM = ["--resolution", "64"]
# No case may run longer (issue 14: "0 hangs (60 s each)").
CASE_SECONDS = 60


@dataclass(frozen=True)
class Case:
    """One command line, the exit status it must give and what its error output must name ('' for none)."""

    name: str
    argv: tuple[str, ...]
    code: int
    mentions: str = ""


class Hang(Exception):
    """A command ran past its time."""


def run_cli(argv: list[str], seconds: float = CASE_SECONDS) -> tuple[int, str, str, float]:
    """(exit status, stdout, stderr, wall seconds) of one in-process command; Hang after ``seconds``."""
    def alarm(signum, frame):
        raise Hang(f"{argv} ran for more than {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse's own usage errors exit 2 with a message
                code = e.code
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return int(code or 0), out.getvalue(), err.getvalue(), time.perf_counter() - t0


def _scene(**changes) -> dict:
    d = copy.deepcopy(BASE)
    for k, v in changes.items():
        d[k] = v
    return d


def _profile(**fields) -> list[dict]:
    return [{**BASE["profiles"][0], **fields}]


def bad_scenes() -> dict[str, tuple[object, str]]:
    """Name -> (document, or raw text/bytes, the JSON path or phrase the problem must be reported with)."""
    outside = [BASE["obstacles"][0], {"id": "o2", "polygon": [[20, 0], [25, 0], [25, 5], [20, 5]]}]
    corner = [BASE["obstacles"][0], {"id": "o2", "polygon": [[20, 20], [25, 20], [25, 25], [20, 25]]}]
    terrain_out = [{"id": "t2", "type": "mud", "polygon": [[-5, 0], [0, 0], [0, 5], [-5, 5]]}]
    big = [-1e9, -1e9, 1e9, 1e9]
    wall = [{"id": "w", "polygon": [[-1e9, 5e8], [1e9, 5e8], [1e9, 5e8 + 0.001], [-1e9, 5e8 + 0.001]]}]
    deep = "[" * 100_000 + "]" * 100_000
    return {
        "obstacle_outside_sharing_edge": (_scene(obstacles=outside), "obstacles[1].polygon"),
        "obstacle_outside_sharing_corner": (_scene(obstacles=corner), "obstacles[1].polygon"),
        "terrain_outside_sharing_edge": (_scene(terrains=terrain_out), "terrains[0].polygon"),
        "surrogate_agent_id": (_scene(agents=[{"id": "\ud800", "profile": "p", "route": "r1"}]), "agents[0].id"),
        "surrogate_name": (_scene(name="x\udfff"), "name"),
        "surrogate_terrain_type": (_scene(terrain_types=[{"id": "default"}, {"id": "mud"}, {"id": "\udc80"}]),
                                   "terrain_types[2].id"),
        "surrogate_units": (_scene(units="\ud83d"), "units"),
        "max_speed_denormal": (_scene(profiles=_profile(max_speed=5e-324)), "profiles[0].max_speed"),
        "max_speed_huge": (_scene(profiles=_profile(max_speed=1e308)), "profiles[0].max_speed"),
        "max_speed_zero": (_scene(profiles=_profile(max_speed=0)), "profiles[0].max_speed"),
        "dt_tiny": (_scene(simulation={"dt": 1e-300}), "simulation.dt"),
        "dt_huge": (_scene(simulation={"dt": 1e300}), "simulation.dt"),
        "dt_negative": (_scene(simulation={"dt": -0.1}), "simulation.dt"),
        "weight_huge": (_scene(profiles=_profile(weights={"mud": 1e308})), "profiles[0].weights.mud"),
        "weight_tiny": (_scene(profiles=_profile(weights={"mud": 1e-308})), "profiles[0].weights.mud"),
        "radius_huge": (_scene(profiles=_profile(radius=1e300)), "profiles[0].radius"),
        "sigma_over_d": (_scene(profiles=_profile(sigma=1e9, d=1e-3)), "profiles[0].d"),
        "sigma_huge": (_scene(profiles=_profile(sigma=1e300)), "profiles[0].sigma"),
        "thin_wall_at_scale": (_scene(bounds=big, obstacles=wall, terrains=[]), "obstacles[0].polygon"),
        "deep_nesting": (deep, "nested too deeply"),
        "huge_integer": ('{"format": "miran-scene", "version": ' + "9" * 5000 + "}", "malformed JSON"),
        "nan_literal": (json.dumps(_scene()).replace('"dt": 0.2', '"dt": NaN'), "simulation.dt"),
        "infinity_coordinate": (json.dumps(_scene()).replace("[8, 8]", "[Infinity, 8]", 1), "obstacles[0].polygon"),
        "overflowing_coordinate": (json.dumps(_scene()).replace("[8, 8]", "[1e400, 8]", 1), "obstacles[0].polygon"),
        "coordinate_beyond_limit": (_scene(bounds=[0, 0, 2e9, 20]), "bounds[2]"),
        "duplicate_key": (json.dumps(_scene())[:-1] + ', "name": "again"}', "appears twice"),
        "not_utf8": (b'{"format": "miran-scene", "name": "\xff\xfe"}', "not UTF-8"),
        "empty_file": ("", "malformed JSON"),
        "null_document": ("null", "expected an object"),
        "list_document": ("[]", "expected an object"),
        "string_document": ('"scene"', "expected an object"),
        "bowtie_obstacle": (_scene(obstacles=[{"id": "b", "polygon": [[2, 2], [6, 6], [6, 2], [2, 6]]}]),
                            "obstacles[0].polygon"),
        "collinear_obstacle": (_scene(obstacles=[{"id": "c", "polygon": [[1, 1], [2, 2], [3, 3]]}]),
                               "obstacles[0].polygon"),
        "route_in_obstacle": (_scene(routes=[{"id": "r1", "points": [[2, 2], [10, 10]]}]), "routes[0].points[1]"),
        "unknown_profile": (_scene(agents=[{"id": "a1", "profile": "ghost", "route": "r1"}]), "agents[0].profile"),
        "inverted_bounds": (_scene(bounds=[20, 20, 0, 0]), "bounds"),
        "network_bad_edge": (_scene(networks=[{"id": "n", "nodes": [[1, 1], [3, 3]], "edges": [[0, 7]]}]),
                             "networks[0].edges[0][1]"),
        "heightfield_ragged": (_scene(heightfield={"origin": [0, 0], "cell": 1, "heights": [[0, 1], [0]]}),
                               "heightfield.heights[1]"),
        "obstacles_cover_everything": (_scene(obstacles=[{"id": "all", "polygon": [[-1, -1], [21, -1], [21, 21],
                                                                                   [-1, 21]]}], routes=[], agents=[]),
                                       "obstacles"),
        "schedule_backwards": (_scene(obstacles=[{**BASE["obstacles"][0], "appears": 9, "vanishes": 3}]),
                               "obstacles[0].vanishes"),
        "schedule_negative": (_scene(obstacles=[{**BASE["obstacles"][0], "appears": -1}]), "obstacles[0].appears"),
        "schedule_text": (_scene(obstacles=[{**BASE["obstacles"][0], "vanishes": "later"}]), "obstacles[0].vanishes"),
        "schedule_infinite": (json.dumps(_scene(obstacles=[{**BASE["obstacles"][0], "appears": 1}])).replace(
            '"appears": 1', '"appears": Infinity'), "obstacles[0].appears"),
        # Points may lie inside no obstacle, scheduled or not: a flood from 2 s over everything is refused.
        "schedule_over_everything": (_scene(obstacles=[BASE["obstacles"][0], {
            "id": "flood", "polygon": [[-1, -1], [21, -1], [21, 21], [-1, 21]], "appears": 2}]),
            "inside obstacle 'flood'"),
        "motion_without_path": (_scene(obstacles=[BASE["obstacles"][0], {**CAR, "path": None}]), "obstacles[1].path"),
        "motion_speed_only": (_scene(obstacles=[BASE["obstacles"][0], {k: v for k, v in CAR.items() if k != "path"}]),
                              "obstacles[1].speed"),
        "motion_speed_infinite": (json.dumps(_scene(obstacles=[BASE["obstacles"][0], CAR])).replace(
            '"speed": 3', '"speed": Infinity'), "obstacles[1].speed"),
        "motion_path_standing_still": (_scene(obstacles=[BASE["obstacles"][0], {**CAR, "path": [[15, 2], [15, 2]]}]),
                                       "obstacles[1].path"),
        "motion_loop_text": (_scene(obstacles=[BASE["obstacles"][0], {**CAR, "loop": "yes"}]), "obstacles[1].loop"),
    }


def good_scenes() -> dict[str, dict]:
    """Valid scenes with awkward features: every command must succeed on them (or refuse with a reason)."""
    inside_touch = [BASE["obstacles"][0], {"id": "o2", "polygon": [[16, 0], [20, 0], [20, 1], [16, 1]]}]
    return {
        "base": _scene(),
        "obstacle_touching_bounds_inside": _scene(obstacles=inside_touch),
        "unicode_ids": _scene(name="Ünïcødé 🚶 مسار", agents=[{"id": "🚶‍♀️", "profile": "p", "route": "r1"}]),
        "speed_at_upper_edge": _scene(profiles=_profile(max_speed=1e4, sigma=6, d=1)),
        "dt_at_edges": _scene(simulation={"dt": 10}),
        "weights_at_edges": _scene(profiles=_profile(weights={"default": 1e-6, "mud": 1e6})),
        # A scheduled obstacle across the route for a while.
        "obstacle_scheduled_across_the_route": _scene(obstacles=[
            BASE["obstacles"][0], {"id": "gate", "polygon": [[14, 0], [15, 0], [15, 7], [14, 7]], "appears": 1,
                                   "vanishes": 6}]),
        # A car driving up and down across the route, turning at the ends, from 1 s to 8 s.
        "car_across_the_route": _scene(obstacles=[BASE["obstacles"][0], {**CAR, "appears": 1, "vanishes": 8}]),
    }


def write_case(folder: Path, name: str, content) -> Path:
    """Write one case's file (a document, text with lone surrogates kept, or raw bytes) as NAME.json."""
    p = folder / f"{name}.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    elif isinstance(content, str):
        p.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        p.write_text(json.dumps(content), encoding="utf-8", errors="surrogatepass")
    return p


def special_files(folder: Path) -> dict[str, tuple[str, str]]:
    """Name -> (path, phrase): things that are not scene files at all."""
    out = {}
    fifo = folder / "fifo.json"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        out["fifo"] = (str(fifo), "not a regular file")
    for dev in ("/dev/zero", "/dev/urandom"):
        if os.path.exists(dev):
            out[Path(dev).name] = (dev, "not a regular file")
    out["directory"] = (str(folder), "is a directory")
    out["missing"] = (str(folder / "nowhere.json"), "no such file")
    if hasattr(socket, "AF_UNIX") and len(str(folder / "s.sock")) < 100:
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(folder / "s.sock"))
        s.close()
        out["socket"] = (str(folder / "s.sock"), "not a regular file")
    return out


def build_corpus(folder: Path, ecm: bool = True) -> list[Case]:
    """Write the corpus's files into ``folder`` and return its cases (``ecm=False`` leaves out ``miran ecm``)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    scene_commands = [("validate", []), ("info", []), ("route", ROUTE), ("simulate", SIMULATE)]
    if ecm:
        scene_commands.append(("ecm", ECM))
    bad_files = {name: (str(write_case(folder, name, doc)), where) for name, (doc, where) in bad_scenes().items()}
    bad_files.update(special_files(folder))
    for name, (path, where) in bad_files.items():
        for cmd, extra in scene_commands:
            cases.append(Case(f"{cmd}:{name}", (cmd, path, *extra), 2, where))
        cases.append(Case(f"measure:{name}", ("measure", path, path), 2, where))
    good = {name: str(write_case(folder, name, doc)) for name, doc in good_scenes().items()}
    for name, path in good.items():
        for cmd, extra in scene_commands:
            cases.append(Case(f"{cmd}:{name}", (cmd, path, *extra), 0))
    cases += option_cases(folder, good["base"], ecm)
    return cases


def option_cases(folder: Path, base: str, ecm: bool) -> list[Case]:
    """Hostile options of every command on a good scene."""
    missing_dir = str(folder / "no" / "such" / "folder" / "out.json")
    ragged = write_case(folder, "queries_ragged", [[1, 2, 3]])
    paths_bad = write_case(folder, "paths_bad", [[["a", 1]]])
    paths_format = write_case(folder, "paths_format", {"format": "miran-other"})
    paths_far = write_case(folder, "paths_far", [[[2, 2], [1e300, 1e300]]])
    out = []

    def add(name, argv, code, mentions=""):
        out.append(Case(name, tuple(argv), code, mentions))

    for v in ("nan,1", "1e999,1", "1", "", "a,b", "1,2,3", "inf,inf"):
        add(f"route --from {v!r}", ["route", base, "--from", v, "--to", "18,6"], 2, "--from")
    for v in ("0", "-1", "1e-300", "nan", "x", "0.001", "inf"):
        add(f"route --cell-size {v}", ["route", base, *ROUTE, "--planner", "grid", "--cell-size", v], 2,
            "--cell-size")
    for v in ("-1", "inf", "nan", "x"):
        add(f"route --clearance {v}", ["route", base, *ROUTE, "--clearance", v], 2, "--clearance")
    add("route --clearance 1e308", ["route", base, *ROUTE, "--clearance", "1e308"], 2, "--clearance")
    add("route --planner bogus", ["route", base, *ROUTE, "--planner", "bogus"], 2, "--planner")
    add("route --profile surrogate", ["route", base, *ROUTE, "--profile", "\udcff"], 2, "--profile")
    add("route --queries /dev/zero", ["route", base, "--queries", "/dev/zero"], 2, "not a regular file")
    add("route --queries ragged", ["route", base, "--queries", str(ragged)], 2, "[0]")
    add("route --queries and --from", ["route", base, "--queries", str(ragged), *ROUTE], 2, "--queries")
    add("route --out missing folder", ["route", base, *ROUTE, "--out", missing_dir], 2, "--out")
    add("route --out a folder", ["route", base, *ROUTE, "--out", str(folder)], 2, "--out")
    add("route network disconnected", ["route", base, "--from", "2,3", "--to", "18,17", "--planner", "network",
                                       "--json"], 2, "does not connect")
    add("route network disconnected text", ["route", base, "--from", "2,3", "--to", "18,17", "--planner",
                                            "network"], 2, "does not connect")
    add("route network connected", ["route", base, "--from", "2,3", "--to", "18,5", "--planner", "network"], 0)
    add("route --network unknown", ["route", base, *ROUTE, "--planner", "network", "--network", "zz"], 2,
        "network")
    for v in ("0", "-1", "1e-300", "1e300", "nan", "inf", "x", "1e-5", "11"):
        add(f"simulate --dt {v}", ["simulate", base, "--dt", v], 2, "--dt")
    for v in ("-1", "1e3", "x", str(10**12)):
        add(f"simulate --steps {v}", ["simulate", base, "--steps", v], 2, "--steps")
    for v in ("-1", "x", str(10**9)):
        add(f"simulate --agents {v}", ["simulate", base, "--agents", v], 2, "--agents")
    add("simulate --seed -1", ["simulate", base, "--seed", "-1"], 2, "--seed")
    add("simulate --agents denser than fits", ["simulate", base, "--agents", "10235", "--steps", "10"], 2,
        "--agents")
    add("simulate --agents 300", ["simulate", base, "--agents", "300", "--steps", "20"], 0)
    for opt in ("--method", "--integrator", "--planner"):
        add(f"simulate {opt} bogus", ["simulate", base, opt, "bogus"], 2, opt)
    for words in (["every", "0"], ["every", "x"], ["every"], ["every", "1", "2"], ["bogus"], ["every", "-3"]):
        add(f"simulate --record {' '.join(words)}", ["simulate", base, "--record", *words], 2, "--record")
    add("simulate --record none --out", ["simulate", base, "--record", "none", "--out", str(folder / "p.json")], 2,
        "--out")
    add("simulate --record none", ["simulate", base, *SIMULATE, "--record", "none"], 0)
    add("simulate --record before SCENE", ["simulate", *SIMULATE, "--record", "every", "3", base], 0)
    add("simulate --record none before SCENE", ["simulate", *SIMULATE, "--record", "none", base], 0)
    add("simulate without SCENE", ["simulate", *SIMULATE, "--record", "none"], 2, "SCENE")
    add("simulate --record every N M without SCENE", ["simulate", "--record", "every", "3", "x"], 2, "no such file")
    add("simulate --record every 5", ["simulate", base, *SIMULATE, "--record", "every", "5", "--out",
                                      str(folder / "p5.json")], 0)
    add("simulate --out missing folder", ["simulate", base, "--out", missing_dir], 2, "--out")
    add("simulate --out a folder", ["simulate", base, "--out", str(folder)], 2, "--out")
    add("simulate --out /dev/null", ["simulate", base, "--out", "/dev/null"], 2, "--out")
    add("simulate --slope without heights", ["simulate", base, *SIMULATE, "--slope"], 2, "heightfield")
    add("simulate --dt at edge", ["simulate", base, "--dt", "10", *SIMULATE], 0)
    if ecm:
        for v in ("0", "-5", "1e9", "x", "nan", str(10**6), "32768", "8193"):
            add(f"ecm --resolution {v}", ["ecm", base, "--resolution", v], 2, "resolution")
        add("ecm --out missing folder", ["ecm", base, *ECM, "--out", missing_dir], 2, "--out")
        add("ecm --png a folder", ["ecm", base, *ECM, "--png", str(folder)], 2, "--png")
    for v in ("-1", "nan", "x", "inf"):
        add(f"measure --radius {v}", ["measure", base, str(paths_bad), "--radius", v], 2, "--radius")
    add("measure bad points", ["measure", base, str(paths_bad)], 2, "[0][0]")
    add("measure foreign format", ["measure", base, str(paths_format)], 2, "format")
    add("measure coordinates beyond the limit", ["measure", base, str(paths_far)], 2, "[0][1]")
    add("measure fifo paths", ["measure", base, "/dev/zero"], 2, "not a regular file")
    add("measure --profile unknown", ["measure", base, str(paths_bad), "--profile", "zz"], 2, "--profile")
    add("validate mixed", ["validate", base, "/dev/zero", base], 2, "/dev/zero")
    out += heldout_findings(folder, base)
    add("bench --section bogus", ["bench", "--section", "bogus"], 2, "--section")
    add("reproduce --only bogus", ["reproduce", str(folder / "rep"), "--only", "bogus"], 2, "--only")
    return out


def heldout_findings(folder: Path, base: str) -> list[Case]:
    """What the held-out corpus (``hostile_heldout.py``) found: import options beyond their ranges and coordinates
    beyond the scene's limit (GEOS exceptions), outputs renamed over a device or a pipe (as root, ``export --out
    /dev/full`` replaced the device with a file), 10^5 route queries (past 60 s)."""
    svg = folder / "plan.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
                   '<rect x="5" y="5" width="4" height="4" id="wall"/></svg>')
    huge = folder / "huge.geojson"
    huge.write_text(json.dumps({"type": "FeatureCollection", "features": [{
        "type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [
            [[0, 0], [1e308, 0], [1e308, 1e308], [0, 0]]]}}]}))
    pipe = folder / "out.pipe"
    if hasattr(os, "mkfifo") and not pipe.exists():
        os.mkfifo(pipe)
    many = write_case(folder, "queries_many", [[2, 2, 18, 6]] * 10_001)
    imp = ["import", str(svg), "--out"]
    cases = [
        Case("import --grid 1e-320", (*imp, str(folder / "i1.json"), "--grid", "1e-320"), 2, "--grid"),
        Case("import --tolerance 1e-300", (*imp, str(folder / "i2.json"), "--tolerance", "1e-300"), 2, "--tolerance"),
        Case("import --scale 1e300", (*imp, str(folder / "i3.json"), "--scale", "1e300"), 2, "--scale"),
        Case("import --snap 1e300", (*imp, str(folder / "i4.json"), "--snap", "1e300"), 2, "--snap"),
        Case("import coordinates 1e308", ("import", str(huge), "--out", str(folder / "i5.json")), 2,
             "beyond the scene's limit"),
        Case("import a drawing", (*imp, str(folder / "i6.json")), 0),
        Case("export geojson of a scene", ("export", base, "--format", "geojson", "--out", str(folder / "e.geojson")),
             0),
        Case("route --queries over the limit", ("route", base, "--queries", str(many)), 2, "over the limit"),
    ]
    if pipe.exists():
        cases += [Case("import --out a pipe", (*imp, str(pipe)), 2, "--out"),
                  Case("export --out a pipe", ("export", base, "--format", "geojson", "--out", str(pipe)), 2, "--out")]
    return cases


__all__ = ["BASE", "CASE_SECONDS", "Case", "Hang", "bad_scenes", "build_corpus", "good_scenes", "heldout_findings",
           "option_cases", "run_cli", "special_files", "write_case"]
