"""A second hostile corpus, held out from ``hostile_corpus``: other files, other classes, every command.

Classes: every field of every object type set to wrong types, NaN, infinities, negative, zero, denormal and huge
values; degenerate geometry (self-touching rings, a courtyard whose hole touches its shell, obstacles lying on the
bounds, starts on obstacle vertices, terrain over obstacles, one-point and over-limit routes, zero-length segments,
ids shared across kinds); encodings (BOM, UTF-16/32, invalid UTF-8, NUL bytes, one huge line); extreme options of
``import``, ``export``, ``sweep``, ``sweep-plot``, ``reproduce``, ``bench`` and ``measure`` besides the scene
commands.

``heldout_cases(folder)`` writes the files and returns ``Case``s whose expected status is None where either exit
0 or a clean exit 2 is right. ``classify`` sorts a finished run into clean, traceback, hang or wrong (exit 0 with
NaN or infinity in its output, or a result file that does not load). Run as a script it runs every case in its
own subprocess with a 60 s timeout and prints the counts per class::

    python tests/core/cli/hostile_heldout.py [--jobs 2] [--only SUBSTRING]
"""

from __future__ import annotations

import copy
import json
import math
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_corpus import BASE, CASE_SECONDS  # noqa: E402

ROUTE = ["--from", "2,2", "--to", "18,6"]
# Values a hostile user puts in a field, as JSON text (NaN and Infinity are Python's json extensions).
VALUES = {
    "string": '"x"', "list": "[]", "object": "{}", "true": "true", "null": "null", "nan": "NaN",
    "inf": "Infinity", "-inf": "-Infinity", "negative": "-1", "zero": "0", "denormal": "5e-324",
    "huge": "1e308", "-huge": "-1e308", "bigint": str(10**30), "neg_bigint": str(-(10**30)), "deep": "[[[[[[1]]]]]]",
}


@dataclass(frozen=True)
class Case:
    """One command line, its expected exit status (None: 0 or a clean 2) and what a refusal must name."""

    name: str
    argv: tuple[str, ...]
    code: int | None
    mentions: str = ""
    output: str = ""  # a result file the command writes when it succeeds: it must load


def _leaves(doc, path=""):
    """(JSON path, parent, key) of every scalar (and every short list of numbers) in a document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves_of(v, f"{path}.{k}" if path else k, doc, k)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves_of(v, f"{path}[{i}]", doc, i)


def _leaves_of(v, path, parent, key):
    if isinstance(v, (dict, list)):
        if isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v):
            yield path, parent, key
        yield from _leaves(v, path)
    else:
        yield path, parent, key


MARK = "__HOSTILE_VALUE__"


def field_scenes() -> dict[str, tuple[str, str]]:
    """Name -> (scene text, JSON path): every leaf of the base scene set to every hostile value."""
    out = {}
    paths = [p for p, _, _ in _leaves(BASE)]
    for path in paths:
        for vname, text in VALUES.items():
            doc = copy.deepcopy(BASE)
            for p, parent, key in _leaves(doc):
                if p == path:
                    parent[key] = MARK
                    break
            out[f"field {path} = {vname}"] = (json.dumps(doc).replace(f'"{MARK}"', text), path)
    return out


def _scene(**changes) -> dict:
    d = copy.deepcopy(BASE)
    d.update(changes)
    return d


def geometry_scenes() -> dict[str, dict]:
    """Degenerate geometry: each scene must be refused with its JSON path, or accepted and then run correctly."""
    o1 = BASE["obstacles"][0]
    court = {"id": "c", "polygon": [[2, 6], [7, 6], [7, 11], [4.5, 11], [4.5, 7], [3, 7], [3, 10], [4.5, 10],
                                    [4.5, 11], [2, 11]]}
    return {
        "figure-eight obstacle": _scene(obstacles=[{"id": "f", "polygon": [[2, 6], [4, 8], [6, 6], [6, 10], [4, 8],
                                                                           [2, 10]]}]),
        "courtyard hole touching its shell": _scene(obstacles=[court]),
        "obstacle along the whole bottom bound": _scene(obstacles=[o1, {"id": "b", "polygon": [[0, 0], [20, 0],
                                                                                                [20, 1], [0, 1]]}]),
        "obstacle filling a corner": _scene(obstacles=[o1, {"id": "b", "polygon": [[19, 19], [20, 19], [20, 20],
                                                                                    [19, 20]]}]),
        "obstacle on the bounds outside": _scene(obstacles=[o1, {"id": "b", "polygon": [[-1, -1], [21, -1],
                                                                                         [21, 0], [-1, 0]]}]),
        "route starting on an obstacle vertex": _scene(routes=[{"id": "r1", "points": [[8, 8], [2, 2], [18, 18]]}]),
        "route along an obstacle edge": _scene(routes=[{"id": "r1", "points": [[8, 7], [12, 7], [18, 18]]}]),
        "terrain over the obstacle": _scene(terrains=[{"id": "t1", "type": "mud", "polygon": [[6, 6], [14, 6],
                                                                                             [14, 14], [6, 14]]}]),
        "one-point route": _scene(routes=[{"id": "r1", "points": [[2, 2]]}]),
        "route of 10^5 points": _scene(routes=[{"id": "r1", "points": [[2 + (i % 2) * 1e-3, 2] for i in
                                                                        range(100_000)]}]),
        "zero-length route segments": _scene(routes=[{"id": "r1", "points": [[2, 2], [2, 2], [2, 2], [18, 2],
                                                                              [18, 2], [18, 18]]}]),
        "route start equals goal": _scene(routes=[{"id": "r1", "points": [[2, 2], [2, 2]]}]),
        "ids shared across kinds": _scene(obstacles=[{"id": "a1", "polygon": o1["polygon"]}],
                                          terrains=[{"id": "a1", "type": "mud", "polygon": [[0, 14], [20, 14],
                                                                                           [20, 16], [0, 16]]}],
                                          routes=[{"id": "a1", "points": [[2, 2], [18, 2], [18, 18]]}],
                                          agents=[{"id": "a1", "profile": "p", "route": "a1"}]),
        "duplicate agent ids": _scene(agents=[{"id": "a1", "profile": "p", "route": "r1"}] * 2),
        "obstacle with a zero-length edge": _scene(obstacles=[{"id": "z", "polygon": [[8, 8], [12, 8], [12, 8],
                                                                                       [12, 12], [8, 12]]}]),
        "obstacle of two points": _scene(obstacles=[{"id": "z", "polygon": [[8, 8], [12, 8]]}]),
        "obstacle sliver 1e-9 wide": _scene(obstacles=[{"id": "z", "polygon": [[8, 8], [12, 8], [12, 8 + 1e-9],
                                                                               [8, 8 + 1e-9]]}]),
        "network edge of one node": _scene(networks=[{"id": "n1", "nodes": [[2, 4], [18, 4]], "edges": [[0, 0]]}]),
        "network node inside an obstacle": _scene(networks=[{"id": "n1", "nodes": [[2, 4], [10, 10]],
                                                             "edges": [[0, 1]]}]),
        "bounds of zero width": _scene(bounds=[0, 0, 0, 20]),
        "bounds 1e-9 across": _scene(bounds=[0, 0, 1e-9, 1e-9], obstacles=[], terrains=[], routes=[], networks=[],
                                     agents=[]),
        "tiny world at 1e-6 scale": _scene(bounds=[0, 0, 2e-5, 2e-5], obstacles=[], terrains=[], networks=[],
                                           routes=[{"id": "r1", "points": [[2e-6, 2e-6], [1.8e-5, 1.8e-5]]}],
                                           profiles=[{**BASE["profiles"][0], "radius": 1e-7}]),
        "huge world": _scene(bounds=[-1e9, -1e9, 1e9, 1e9], obstacles=[], terrains=[], networks=[],
                             routes=[{"id": "r1", "points": [[-9e8, -9e8], [9e8, 9e8]]}]),
        "agent radius wider than the gaps": _scene(profiles=[{**BASE["profiles"][0], "radius": 9.5}]),
        "heightfield with NaN": _scene(heightfield={"origin": [0, 0], "cell": 1, "heights": [[0, "NaN"], [0, 1]]}),
        "heightfield 1e308 high": _scene(heightfield={"origin": [0, 0], "cell": 1, "heights": [[0, 1e308],
                                                                                               [-1e308, 1]]}),
        "heightfield cell 1e-300": _scene(heightfield={"origin": [0, 0], "cell": 1e-300, "heights": [[0, 1],
                                                                                                      [0, 1]]}),
    }


def encoded_files() -> dict[str, bytes]:
    """Name -> raw bytes: the base scene in hostile encodings and shapes."""
    text = json.dumps(BASE)
    return {
        "utf-8 with BOM": b"\xef\xbb\xbf" + text.encode("utf-8"),
        "utf-16 with BOM": text.encode("utf-16"),
        "utf-16-be without BOM": text.encode("utf-16-be"),
        "utf-32": text.encode("utf-32"),
        "invalid utf-8 inside a string": text.replace("Hostile base", "Hostile \udcff").encode("utf-8",
                                                                                             "surrogateescape"),
        "overlong utf-8": text.replace("Hostile base", "Hostile \x00").encode("utf-8").replace(b"\x00", b"\xc0\x80"),
        "NUL byte between tokens": text.replace(", ", ",\x00 ", 1).encode("utf-8"),
        "escaped NUL in the name": text.replace("Hostile base", "Hostile \\u0000 base").encode("utf-8"),
        "one 40 MB line": (text[:-1] + ', "x": "' + "a" * 40_000_000 + '"}').encode("utf-8"),
        "40 MB of spaces then the scene": b" " * 40_000_000 + text.encode("utf-8"),
        "truncated": text[: len(text) // 2].encode("utf-8"),
        "two documents": (text + text).encode("utf-8"),
        "trailing garbage": (text + " xyz").encode("utf-8"),
        "CRLF and tabs": text.replace(", ", ",\r\n\t").encode("utf-8"),
    }


def option_cases(folder: Path, base: str) -> list[Case]:
    """Extreme options of every command on a good scene."""
    cases: list[Case] = []

    def add(name, argv, code=None, mentions="", output=""):
        cases.append(Case(name, tuple(str(a) for a in argv), code, mentions, output))

    paths = str(folder / "good.paths.json")
    add("simulate to make a paths file", ["simulate", base, "--steps", "200", "--out", paths], 0, output=paths)
    big = ["1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "-0", "0", "1e30", "-5"]
    for v in big:
        # Refused as "start: (x, y) is outside the bounds" or "--from: expected ..."; 0 and denormals are inside.
        add(f"route --from {v},{v}", ["route", base, "--from", f"{v},{v}", "--to", "18,6"], None)
        add(f"route --min-clearance {v}", ["route", base, *ROUTE, "--min-clearance", v], None)
        add(f"route --clearance {v}", ["route", base, *ROUTE, "--clearance", v], None)
        add(f"simulate --clearance {v}", ["simulate", base, "--steps", "50", "--clearance", v], None)
        add(f"simulate --seed {v}", ["simulate", base, "--steps", "20", "--agents", "3", "--seed", v], None)
        add(f"ecm --resolution {v}", ["ecm", base, "--resolution", v], 2, "resolution")
        add(f"measure --radius {v}", ["measure", base, paths, "--radius", v], None)
        add(f"export --decimals {v}", ["export", paths, "--format", "csv", "--out", folder / f"d{v}.csv",
                                       "--decimals", v], None)
        for opt in ("--tolerance", "--grid", "--min-area", "--snap", "--scale"):
            add(f"import {opt} {v}", ["import", folder / "plan.svg", "--out", folder / f"i{opt}{v}.json", opt, v],
                None, output=str(folder / f"i{opt}{v}.json"))
        add(f"sweep --workers {v}", ["sweep", folder / "tiny.sweep.json", "--workers", v, "--out",
                                     folder / f"s{v}.csv"], None)
    for v in ("0", str(2**31), str(2**64), "-1", "1"):
        add(f"simulate --steps {v}", ["simulate", base, "--steps", v], None)
        add(f"simulate --agents {v}", ["simulate", base, "--agents", v, "--steps", "10"], None)
        add(f"simulate --record every {v}", ["simulate", base, "--steps", "30", "--record", "every", v], None)
        add(f"export --decimals int {v}", ["export", paths, "--format", "pedpy", "--out", folder / f"e{v}.txt",
                                           "--decimals", v], None)
    add("ecm --resolution 16", ["ecm", base, "--resolution", "16"], 0)
    add("route --queries empty list", ["route", base, "--queries", _write(folder, "q0.json", "[]")], None)
    add("route --queries NaN", ["route", base, "--queries", _write(folder, "qn.json", "[[NaN, 1, 2, 3]]")], 2,
        "[0]")
    add("route --queries 1e5 identical", ["route", base, "--queries",
                                          _write(folder, "qb.json", json.dumps([[2, 2, 18, 6]] * 100_000))], None)
    add("route --from == --to", ["route", base, "--from", "2,2", "--to", "2,2"], None)
    add("route --from in obstacle", ["route", base, "--from", "10,10", "--to", "2,2"], 2, "inside an obstacle")
    add("route --from on the bounds", ["route", base, "--from", "0,0", "--to", "2,2"], None)
    add("route --profile empty", ["route", base, *ROUTE, "--profile", ""], 2, "--profile")
    # import: hostile source files.
    _write(folder, "plan.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
                               '<rect x="5" y="5" width="4" height="4" id="wall"/></svg>')
    for name, content in {
        "empty.svg": "", "garbage.svg": "<svg><rect x='nan' y='inf' width='-1' height='1e308'/></svg>",
        "deep.svg": "<svg xmlns='http://www.w3.org/2000/svg'>" + "<g>" * 5000 + "</g>" * 5000 + "</svg>",
        "entity.svg": '<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;'
                      '&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><svg>&c;</svg>',
        "empty.geojson": "", "nan.geojson": '{"type": "FeatureCollection", "features": [{"type": "Feature", '
                                            '"properties": {}, "geometry": {"type": "Polygon", "coordinates": '
                                            '[[[0, 0], [NaN, 0], [1, 1], [0, 0]]]}}]}',
        "huge.geojson": '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, '
                        '"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1e308, 0], [1e308, 1e308], '
                        '[0, 0]]]}}]}',
        "empty.dxf": "", "garbage.dxf": "0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nnan\n20\ninf\n0\nENDSEC\n0\nEOF\n",
        "empty.osm": "", "empty.tmj": "{}", "scene.txt": "not a map",
    }.items():
        src = _write(folder, name, content)
        add(f"import {name}", ["import", src, "--out", folder / f"imp-{name}.json"], None,
            output=str(folder / f"imp-{name}.json"))
    add("import --map bad", ["import", folder / "plan.svg", "--out", folder / "m.json", "--map", "=="], 2, "--map")
    add("import --map a new terrain type", ["import", folder / "plan.svg", "--out", folder / "m.json", "--map",
                                            "wall=lava"], 0)
    add("import --projection bogus", ["import", folder / "plan.svg", "--out", folder / "m.json", "--projection",
                                      "bogus"], 2, "--projection")
    add("import --out a folder", ["import", folder / "plan.svg", "--out", folder], 2, "--out")
    # export: hostile paths files.
    bad_paths = {"nan": '{"format": "miran-paths", "agents": [{"id": "a", "points": [[NaN, 0]]}]}',
                 "empty": "", "list": "[]",
                 "huge": '{"format": "miran-paths", "version": 1, "dt": 1e-300, '
                         '"agents": [{"id": "a", "points": [[1e308, 1e308]]}]}'}
    for name, content in bad_paths.items():
        p = _write(folder, f"{name}.paths.json", content)
        for fmt in ("pedpy", "jupedsim", "geojson", "csv"):
            add(f"export {name} {fmt}", ["export", p, "--format", fmt, "--out", folder / f"x-{name}.{fmt}"], 2)
    add("export --format bogus", ["export", paths, "--format", "bogus", "--out", folder / "b.x"], 2, "--format")
    add("export --scene garbage", ["export", paths, "--format", "geojson", "--out", folder / "g.geojson",
                                   "--scene", _write(folder, "garbage.json", "{")], 2)
    add("export --out /dev/full", ["export", paths, "--format", "csv", "--out", "/dev/full"], 2, "--out")
    # sweep and sweep-plot.
    _write(folder, "tiny.sweep.json", json.dumps({"format": "miran-sweep", "version": 1, "scenes": [base],
                                                  "seeds": [1], "limit": {"time": 5}}))
    for name, spec in {"nan seeds": '{"format": "miran-sweep", "version": 1, "scenes": ["x"], "seeds": [NaN]}',
                       "huge grid": json.dumps({"format": "miran-sweep", "version": 1, "scenes": [base],
                                                "seeds": list(range(10_000)),
                                                "grid": {"profiles.p.sigma": list(range(1, 1000))}}),
                       "empty": "", "scene as spec": json.dumps(BASE),
                       "limit inf": '{"format": "miran-sweep", "version": 1, "scenes": ["%s"], "seeds": [1], '
                                    '"limit": {"time": Infinity}}' % base}.items():
        p = _write(folder, f"{name.replace(' ', '_')}.sweep.json", spec)
        add(f"sweep {name}", ["sweep", p, "--workers", "0", "--out", folder / f"sw-{name.replace(' ', '_')}.csv"], 2)
    add("sweep-plot missing column", ["sweep-plot", _write(folder, "t.csv", "a,b\n1,2\n"), "--x", "zz", "--y", "b",
                                      "--out", folder / "p.png"], 2, "zz")
    add("sweep-plot empty table", ["sweep-plot", _write(folder, "e.csv", ""), "--x", "a", "--y", "b", "--out",
                                   folder / "p.png"], 2)
    add("sweep-plot NaN column", ["sweep-plot", _write(folder, "n.csv", "a,b\nnan,inf\n1,2\n"), "--x", "a", "--y",
                                  "b", "--out", folder / "pn.png"], None)
    # reproduce and bench.
    add("reproduce into a file", ["reproduce", base, "--quick", "--only", "x"], 2)
    add("reproduce --only empty", ["reproduce", folder / "rep", "--only", ""], 2, "--only")
    add("bench --section empty", ["bench", "--section", ""], 2, "--section")
    add("bench --section surrogate", ["bench", "--section", "\udcff"], 2, "--section")
    return cases


def _write(folder: Path, name: str, content: str) -> str:
    p = folder / name
    p.write_text(content, encoding="utf-8", errors="surrogatepass")
    return str(p)


SCENE_COMMANDS = [("validate", []), ("info", []), ("route", ROUTE), ("simulate", ["--steps", "200"]),
                  ("ecm", ["--resolution", "64"])]


def heldout_cases(folder: Path, ecm: bool = True, fields: bool = True) -> list[Case]:
    """Write the held-out corpus into ``folder`` and return its cases (``fields``: the field-by-field mutants)."""
    folder.mkdir(parents=True, exist_ok=True)
    commands = [c for c in SCENE_COMMANDS if ecm or c[0] != "ecm"]
    cases: list[Case] = []
    k = 0
    if fields:
        for name, (text, path) in field_scenes().items():
            k += 1
            p = _write(folder, f"field{k}.json", text)
            # Every mutant through validate; a rotating command too, so each command sees every class.
            cmd, extra = commands[1 + k % (len(commands) - 1)]
            cases.append(Case(f"validate {name}", ("validate", p), None, path))
            cases.append(Case(f"{cmd} {name}", (cmd, p, *extra), None, path))
    for name, doc in geometry_scenes().items():
        k += 1
        p = _write(folder, f"geom{k}.json", json.dumps(doc))
        for cmd, extra in commands:
            cases.append(Case(f"{cmd} {name}", (cmd, p, *extra), None))
    for name, data in encoded_files().items():
        k += 1
        p = folder / f"enc{k}.json"
        p.write_bytes(data)
        for cmd, extra in commands[:3]:
            cases.append(Case(f"{cmd} {name}", (cmd, str(p), *extra), None))
    base = _write(folder, "base.json", json.dumps(BASE))
    cases += option_cases(folder, base)
    return cases


NONFINITE = re.compile(r"(?<![A-Za-z_])(nan|inf|infinity)(?![A-Za-z_])", re.IGNORECASE)


def classify(case: Case, code: int | None, out: str, err: str) -> str:
    """'clean', 'traceback', 'hang' (code None), 'wrong' or 'unexpected' (a status other than the case's)."""
    if code is None:
        return "hang"
    if "Traceback (most recent call last)" in err or "Traceback (most recent call last)" in out:
        return "traceback"
    if code not in (0, 2):
        return "traceback"
    if code == 2:
        # A refusal names the field or a field that refers to it (a renamed id: the references to it).
        top = re.split(r"[\[.]", case.mentions)[0]
        named = not case.mentions or case.mentions in err or bool(top and top in err) or "unknown" in err
        if not err.strip() or not named:
            return "unexpected"
        return "clean" if case.code in (None, 2) else "unexpected"
    if case.code == 2:
        return "unexpected"
    if NONFINITE.search(out) or NONFINITE.search(err):
        return "wrong"
    if case.output and not _output_loads(case.output):
        return "wrong"
    return "clean"


def _output_loads(path: str) -> bool:
    try:
        if path.endswith(".json"):
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
            if doc.get("format") == "miran-scene":
                from core.scene.io import load_scene

                load_scene(path)
            return all(math.isfinite(x) for x in _numbers(doc))
        return Path(path).stat().st_size > 0
    except Exception:  # anything that stops it loading makes the run's result wrong
        return False


def _numbers(doc):
    if isinstance(doc, dict):
        for v in doc.values():
            yield from _numbers(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _numbers(v)
    elif isinstance(doc, float):
        yield doc


def run_subprocess(case: Case, seconds: float = CASE_SECONDS) -> tuple[int | None, str, str]:
    """(exit status or None after ``seconds``, stdout, stderr) of ``miran ARGV`` in its own process."""
    try:
        r = subprocess.run([sys.executable, "-m", "core.cli", *case.argv], capture_output=True, timeout=seconds,
                           env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    except subprocess.TimeoutExpired:
        return None, "", ""
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    """Run the held-out corpus in subprocesses and print the counts per class and every non-clean case."""
    import argparse
    import tempfile
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-fields", action="store_true")
    ap.add_argument("--in-process", action="store_true", help="run every case in this process (alarm, not kill)")
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="miran-heldout-"))
    cases = [c for c in heldout_cases(folder, fields=not args.no_fields) if args.only in c.name]
    counts: Counter = Counter()
    # The field mutants (a thousand) run in this process, under the same 60 s alarm; the rest each in its own.
    in_process = [c for c in cases if args.in_process or c.name.split(" ", 1)[1].startswith("field ")]
    separate = [c for c in cases if c not in in_process]

    def run_here(case: Case):
        from hostile_corpus import Hang, run_cli

        try:
            code, out, err, _ = run_cli(list(case.argv))
        except Hang:
            return None, "", ""
        except BaseException as e:  # a traceback escaping main() is what this run looks for
            return 1, "", f"Traceback (most recent call last): {type(e).__name__}: {e}"
        return code, out, err

    with ThreadPoolExecutor(args.jobs) as pool:
        results = [(c, run_here(c)) for c in in_process]
        results += list(zip(separate, pool.map(run_subprocess, separate)))
        for case, (code, out, err) in results:
            kind = classify(case, code, out, err)
            counts[kind] += 1
            if kind != "clean":
                print(f"{kind}: {case.name}: exit {code}: {err.strip()[-400:]!r}", flush=True)
    print(f"{len(cases)} cases:", dict(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
