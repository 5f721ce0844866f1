"""A generated corpus of hostile cases for the outputs, exports, sweeps and interrupts of ``miran``: outputs that
name inputs or each other, sweep specs whose name is a path or that give a parameter twice, ids that forge rows,
frames out of range, seeds by the hundred thousand, FIFOs, schedulers that never answer, foreign tables to resume,
plots of hostile tables, and look-alikes of our temporaries beside an output.

``build_cases(root, seed)`` writes each case's files into its own folder under ``root`` and returns the cases; the
``seed`` varies names, values and spellings, so that a second seed builds a new corpus the same way (a held-out
one). Each case runs in its own process (``run_case``) with a time bound, in a sandbox: ``in/`` (the inputs),
``out/`` (the working folder, where outputs go, seeded with files that are not ours) and ``elsewhere/`` (files a
derived name that escaped would clobber). ``python hostile_outputs_corpus.py SEED`` runs a corpus and prints what
it found: tracebacks, hangs, exit statuses, files changed outside ``out/``, and how long each refusal took inside
the command (``main()``, the interpreter's start left out).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# No case may run longer (a hang).
CASE_SECONDS = 120

SCENE = {
    "format": "miran-scene", "version": 1, "name": "tiny", "units": "m", "bounds": [0, 0, 20, 20],
    "terrain_types": [{"id": "default"}, {"id": "mud", "color": "#7a5230"}], "default_terrain": "default",
    "obstacles": [{"id": "o1", "polygon": [[8, 8], [12, 8], [12, 12], [8, 12]]}],
    "terrains": [{"id": "t1", "type": "mud", "polygon": [[0, 14], [20, 14], [20, 16], [0, 16]]}],
    "profiles": [{"id": "adult", "weights": {"mud": 4}, "radius": 0.25, "max_speed": 1.4, "sigma": 6, "d": 1},
                 {"id": "child", "weights": {"mud": 2}, "radius": 0.2, "max_speed": 1.1, "sigma": 8, "d": 2}],
    "routes": [{"id": "r1", "points": [[2, 2], [18, 2], [18, 18]]}],
    "networks": [{"id": "n1", "nodes": [[2, 4], [18, 4], [2, 18], [18, 18]], "edges": [[0, 1], [2, 3]]}],
    "agents": [{"id": "a1", "profile": "adult", "route": "r1"}],
    "simulation": {"method": "miran", "integrator": "euler", "dt": 0.2},
}
# Files beside the outputs that are not ours, named like temporaries and journals: they must survive every case.
LOOKALIKES = [".p.json.backup01.tmp", ".p.json.k2j4h5g6.tmp", ".p.json.12345-abcd1234.tmp",
              ".r.parquet.tmp", ".t.csv.tmp", "r.parquet.journal.bak", ".o.sqlite.miran-1-0123456789ab-00000000.tmp"]


@dataclass
class Case:
    """One command line run in ``folder/out`` (paths in it are relative to that folder, or absolute), the exit
    statuses it may give and the phrase its error output must hold ('' for none). ``server`` asks for a
    listening socket that never answers (``"silent"``) or answers like a web server (``"http"``), whose address
    replaces ``{server}`` in the command line."""

    name: str
    folder: Path
    argv: list[str]
    codes: tuple[int, ...]
    mentions: str = ""
    server: str = ""
    outputs: list[str] = field(default_factory=list)


def _spec(scene: str, rng: random.Random, **over) -> dict:
    d = {"format": "miran-sweep", "version": 1, "name": "s", "scenes": [scene], "seeds": [rng.randint(0, 9)],
         "limit": {"steps": rng.choice([2, 3, 4])}}
    d.update(over)
    return d


def _paths_doc(ids: list[str], times=None, dt: float = 0.1) -> dict:
    agents = []
    for k, aid in enumerate(ids):
        ts = times if times is not None else [0.0, dt, 2 * dt]
        agents.append({"id": aid, "profile": "adult", "reached_goal": False, "time": float(ts[-1]), "length": 1.0,
                       "weighted_length": 1.0, "terrain_lengths": {"default": 1.0}, "min_clearance": 0.5,
                       "points": [[t, 1.0 + i, 1.0 + k] for i, t in enumerate(ts)]})
    return {"format": "miran-paths", "version": 1, "scene": "tiny", "method": "miran", "integrator": "euler",
            "dt": dt, "parameters": {}, "agents": agents}


class _Builder:
    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng, self.cases = root, rng, []

    def case(self, name: str, argv: list[str], codes: tuple[int, ...], mentions: str = "", files=None,
             server: str = "", setup=None) -> None:
        folder = self.root / f"{len(self.cases):03d}-{name}"
        for sub in ("in", "out", "elsewhere"):
            (folder / sub).mkdir(parents=True)
        (folder / "in" / "tiny.json").write_text(json.dumps(SCENE))
        (folder / "elsewhere" / "escaped.parquet").write_text("not yours")
        (folder / "escaped.parquet").write_text("not yours either")
        for n in LOOKALIKES:
            (folder / "out" / n).write_text("a user's file")
            os.utime(folder / "out" / n, (1, 1))
        for rel, content in (files or {}).items():
            p = folder / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                text = content if isinstance(content, str) else json.dumps(content)
                p.write_text(text.replace("{in}", str(folder / "in")).replace("{root}", str(folder)))
        if setup is not None:
            setup(folder)
        argv = [a.replace("{in}", str(folder / "in")).replace("{root}", str(folder)) for a in argv]
        self.cases.append(Case(name, folder, argv, codes, mentions, server))


def build_cases(root: Path, seed: int = 0) -> list[Case]:
    """Write every case's files under ``root`` and return the cases (``seed`` varies names and values)."""
    rng = random.Random(seed)
    b = _Builder(Path(root), rng)
    scene = "{in}/tiny.json"
    _outputs_over_inputs(b, rng, scene)
    _sweep_names(b, rng, scene)
    _sweep_parameters(b, rng, scene)
    _sweep_sizes_and_files(b, rng, scene)
    _resume(b, rng, scene)
    _exports(b, rng)
    _plots(b, rng)
    return b.cases


def _aliases(rng: random.Random, name: str) -> list[tuple[str, object]]:
    """Spellings of the input ``{in}/NAME`` as an output, with what each needs set up."""
    def link(folder: Path) -> None:
        (folder / "out" / "link.json").symlink_to(folder / "in" / name)

    def hard(folder: Path) -> None:
        os.link(folder / "in" / name, folder / "out" / "hard.json")

    def linked_dir(folder: Path) -> None:
        (folder / "out" / "d").symlink_to(folder / "in")

    options = [(f"{{in}}/{name}", None), (f"{{in}}/./{name}", None), (f"../in/{name}", None),
               (f"{{in}}/../in/{name}", None), ("link.json", link), ("hard.json", hard), (f"d/{name}", linked_dir)]
    return rng.sample(options, 4)


def _outputs_over_inputs(b: _Builder, rng: random.Random, scene: str) -> None:
    cmds = [("simulate", ["simulate", scene, "--steps", "3", "--out"]),
            ("route", ["route", scene, "--from", "2,2", "--to", "18,6", "--out"]),
            ("import", ["import", "{in}/tiny.geojson", "--out"]),
            ("export", ["export", "{in}/p.json", "--format", rng.choice(["csv", "pedpy", "geojson"]), "--out"]),
            ("ecm", ["ecm", scene, "--resolution", "64", "--png", "e.png", "--out"])]
    files = {"in/p.json": _paths_doc(["x"]), "in/tiny.geojson": {"type": "FeatureCollection", "features": []}}
    for cmd, argv in cmds:
        target = {"import": "tiny.geojson", "export": "p.json"}.get(cmd, "tiny.json")
        for alias, setup in _aliases(rng, target):
            b.case(f"{cmd}-over-input", argv + [alias], (2,), "never replaces an input", files, setup=setup)
    for out, png in rng.sample([("x.png", "x.png"), ("./x.png", "x.png"), ("d/../x.png", "x.png")], 2):
        b.case("ecm-twin-outputs", ["ecm", scene, "--resolution", "64", "--out", out, "--png", png], (2,),
               "never name the same file", setup=lambda f: (f / "out" / "d").mkdir())
    b.case("route-queries-as-output", ["route", scene, "--queries", "{in}/q.json", "--out", "{in}/q.json"], (2,),
           "the input --queries", {"in/q.json": "[[2, 2, 18, 6]]"})
    b.case("export-beside-lookalikes", ["export", "{in}/p.json", "--format", "csv", "--out", "p.json"], (0,), "",
           {"in/p.json": _paths_doc(["x"])})


def _sweep_names(b: _Builder, rng: random.Random, scene: str) -> None:
    names = ["../escaped", "{root}/escaped", "{root}/elsewhere/escaped", "../../escaped", "a/b", "..\\escaped",
             "c:escaped", "x\ny", "..", "e" * 500, " "]
    for name in rng.sample(names, 7):
        b.case("sweep-name-is-a-path", ["sweep", "{in}/s.json", "--workers", "0"], (2,), "name:",
               {"in/s.json": _spec(scene, rng, name=name)})
    b.case("sweep-name-is-a-name", ["sweep", "{in}/s.json", "--workers", "0"], (0,), "",
           {"in/s.json": _spec(scene, rng, name=rng.choice(["plain", "with space", "ünï", ".hidden"]))})


def _sweep_parameters(b: _Builder, rng: random.Random, scene: str) -> None:
    twice = [
        ({"fixed": {"adult.sigma": 20}, "grid": {"*.sigma": [10, 160]}}, "*.sigma"),
        ({"fixed": {"adult.weights.mud": 3}, "grid": {"adult.weight.mud": [1, 2]}}, "adult.weights.mud"),
        ({"grid": {"adult.weights.mud": [1, 2], "adult.weight.mud": [3]}}, "adult.weight"),
        ({"grid": {"*.d": [1, 2]}, "random": {"samples": 2, "parameters": {"child.d": {"uniform": [1, 3]}}}},
         "child.d"),
        ({"fixed": {"c_s": 2}, "random": {"samples": 2, "parameters": {"c_s": {"uniform": [1, 3]}}}}, "c_s"),
        ({"agents": 1, "fixed": {"agents": 2}}, "agents"),
    ]
    for over, says in rng.sample(twice, 4):
        b.case("sweep-parameter-twice", ["sweep", "{in}/s.json", "--workers", "0"], (2,), says,
               {"in/s.json": _spec(scene, rng, **over)})
    toml = ('format = "miran-sweep"\nversion = 1\nscenes = ["{scene}"]\n[limit]\nsteps = 2\n[grid]\n'
            '"adult.sigma" = [10, 20]\nadult.sigma = [30]\n')
    b.case("sweep-toml-two-spellings", ["sweep", "{in}/s.toml", "--workers", "0"], (2,), "grid['adult']['sigma']",
           setup=lambda f: (f / "in" / "s.toml").write_text(toml.replace("{scene}", str(f / "in" / "tiny.json"))))
    grid = {rng.choice(["adult.sigma", "*.sigma"]): [6, 9], rng.choice(["adult.weights.mud", "child.weight.mud"]):
            [2, 3], "method": rng.sample(["miran", "irm", "disc-miran"], 2)}
    b.case("sweep-records-used-values", ["sweep", "{in}/s.json", "--workers", "0", "--out", "r.csv"], (0,), "",
           {"in/s.json": _spec(scene, rng, grid=grid)})


def _sweep_sizes_and_files(b: _Builder, rng: random.Random, scene: str) -> None:
    n = rng.randint(250_000, 300_000)
    seeds = list(range(n)) + [rng.randrange(n)]
    b.case("sweep-seeds-duplicate", ["sweep", "{in}/s.json", "--workers", "0"], (2,), "listed twice",
           {"in/s.json": _spec(scene, rng, seeds=seeds)})
    b.case("sweep-too-many-runs", ["sweep", "{in}/s.json", "--workers", "0"], (2,), "over the limit",
           {"in/s.json": _spec(scene, rng, seeds=list(range(300_000)), grid={"c_s": [1, 2, 3, 4]})})
    b.case("sweep-random-samples-too-many", ["sweep", "{in}/s.json", "--workers", "0"], (2,), "over the limit",
           {"in/s.json": _spec(scene, rng, random={"samples": 10**9, "parameters": {"c_s": {"uniform": [1, 2]}}})})
    b.case("sweep-fifo-spec", ["sweep", "{in}/fifo.json", "--workers", "0"], (2,), "named pipe",
           setup=lambda f: os.mkfifo(f / "in" / "fifo.json"))
    b.case("sweep-fifo-scene", ["sweep", "{in}/s.json", "--workers", "0"], (2,), "named pipe",
           {"in/s.json": _spec("{in}/fifo.json", rng)}, setup=lambda f: os.mkfifo(f / "in" / "fifo.json"))
    b.case("sweep-out-is-a-folder", ["sweep", "{in}/s.json", "--workers", "0", "--out", "r.parquet"], (2,), "--out",
           {"in/s.json": _spec(scene, rng, grid={"c_s": [1, 2]})}, setup=lambda f: (f / "out" / "r.parquet").mkdir())
    b.case("sweep-characters-is-a-folder", ["sweep", "{in}/s.json", "--workers", "0", "--out", "r.csv"], (2,),
           "the character table", {"in/s.json": _spec(scene, rng)},
           setup=lambda f: (f / "out" / "r.characters.csv").mkdir())
    b.case("sweep-journal-is-a-folder", ["sweep", "{in}/s.json", "--workers", "0", "--out", "r.csv"], (2,),
           "the journal", {"in/s.json": _spec(scene, rng)}, setup=lambda f: (f / "out" / "r.csv.journal").mkdir())
    b.case("sweep-out-is-the-spec", ["sweep", "{in}/s.csv", "--workers", "0", "--out", "{in}/s.csv"], (2,),
           "the input SPEC", {"in/s.csv": _spec(scene, rng)})
    for kind in ("silent", "http"):
        b.case(f"sweep-scheduler-{kind}", ["sweep", "{in}/s.json", "--scheduler", "{server}", "--out", "r.csv"],
               (2,), "--scheduler", {"in/s.json": _spec(scene, rng)}, server=kind)


def _resume(b: _Builder, rng: random.Random, scene: str) -> None:
    spec = {"in/s.json": _spec(scene, rng, grid={"c_s": [1, 2]})}
    argv = ["sweep", "{in}/s.json", "--workers", "0", "--out", "r.csv", "--resume"]
    b.case("resume-foreign-csv", argv, (2,), "not a sweep's run table", {**spec, "out/r.csv": "a,b\n1,2\n"})
    lines = rng.choice(['{"run": 5, "characters": []}\n', '[1, 2]\n', '{"run": {"run_id": 7, "run": "x"}}\n',
                        '{"run": {"run_id": "abc", "run": 0, "n_agents": 1}, "characters": [5]}\n'])
    b.case("resume-foreign-journal", argv, (0,), "", {**spec, "out/r.csv.journal": lines})
    b.case("resume-corrupt-characters", argv[:-2] + ["r.parquet", "--resume"], (2,), "cannot read the table",
           {**spec, "out/r.parquet": b"PAR1garbage", "out/r.characters.parquet": b"PAR1\x00\x01"})
    b.case("resume-nothing", argv, (0,), "", spec)


def _exports(b: _Builder, rng: random.Random) -> None:
    hostile = ["a\nb", "=1+1", "+x", "-1", "@SUM(1)", "\tt", "\rr", "a,b", 'q"q', "x;=y", "# framerate: 1",
               "1 2 3 4 0"]
    ids = rng.sample(hostile, 6)
    for fmt in ("pedpy", "csv", "jupedsim", "geojson"):
        b.case(f"export-hostile-ids-{fmt}", ["export", "{in}/p.json", "--format", fmt, "--out", f"o.{fmt}"], (0,),
               "", {"in/p.json": _paths_doc(ids)})
    far = rng.choice([1e19, 2**31 * 0.1 + 1, 1e300])
    b.case("export-frame-overflow", ["export", "{in}/p.json", "--format", rng.choice(["pedpy", "csv", "jupedsim"]),
                                     "--out", "o.txt"], (2,), "points[2]",
           {"in/p.json": _paths_doc(["far"], times=[0.0, 0.1, far])})
    dt = rng.choice([5e-324, 1e-300, 1e-9])
    b.case("export-frame-rate", ["export", "{in}/p.json", "--format", "pedpy", "--out", "o.txt"], (2,), "dt",
           {"in/p.json": _paths_doc(["x"], times=[0.0, dt, 2 * dt], dt=dt)})


def _plots(b: _Builder, rng: random.Random) -> None:
    n = rng.randint(20_000, 25_000)
    rows = "x,y,h\n" + "".join(f"{i % 3},{i * 0.5},{i}\n" for i in range(n))
    b.case("plot-hue-too-many", ["sweep-plot", "{in}/t.csv", "--x", "x", "--y", "y", "--hue", "h", "--out", "p.png"],
           (2,), "over the limit", {"in/t.csv": rows})
    weird = rng.choice(["$\\frac{$", "$x$", "$$", "a$b", "\\$"])
    table = f'"{weird}",y,h\n"{weird}",1.0,"{weird}"\nb,2.0,$\nc,3.0,x\n'
    b.case("plot-mathtext", ["sweep-plot", "{in}/t.csv", "--x", weird, "--y", "y", "--hue", "h", "--out", "p.svg"],
           (0,), "", {"in/t.csv": table})
    col = rng.choice(["a/b", "../../up", "/abs", "a\\b"])
    # the default plot goes beside the table: here in the output folder, where the name must stay
    b.case("plot-y-path", ["sweep-plot", "t.csv", "--x", "x", "--y", col], (0,), "",
           {"out/t.csv": f'x,"{col}"\n1,2.0\n2,3.0\n'})
    for out, says in (("missing/p.png", "does not exist"), ("p.png", "is a folder"), ("{in}/t.csv", "RESULTS")):
        b.case("plot-bad-out", ["sweep-plot", "{in}/t.csv", "--x", "x", "--y", "y", "--out", out], (2,), says,
               {"in/t.csv": "x,y\n1,2.0\n"}, setup=(lambda f: (f / "out" / "p.png").mkdir()) if
               says == "is a folder" else None)


# ----- running


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every entry under ``folder`` but ``out/`` (and the seeded look-alikes in it) as bytes."""
    snap = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if rel.startswith("out/") and rel[4:] not in LOOKALIKES:
            continue
        if p.is_symlink():
            snap[rel] = b"->" + os.readlink(p).encode()
        elif p.is_file():
            snap[rel] = p.read_bytes()
        elif p.is_dir():
            snap[rel] = b"<dir>"
        else:
            snap[rel] = b"<special>"
    return snap


# Times main() alone: the interpreter's start and the commands' modules (loaded by build_parser) are left out.
_WRAPPER = """
import json, sys, time
t0 = time.perf_counter()
from core.cli.main import build_parser, main
build_parser()
t1 = time.perf_counter()
try:
    code = main(sys.argv[2:])
except SystemExit as e:
    code = e.code
t2 = time.perf_counter()
with open(sys.argv[1], "w") as f:
    json.dump({"import": t1 - t0, "main": t2 - t1}, f)
sys.exit(int(code or 0))
"""


@dataclass
class Outcome:
    case: Case
    code: int | None
    stderr: str
    main_seconds: float | None
    changed: list[str]
    problems: list[str]


def run_case(case: Case, server_address: str = "") -> Outcome:
    """Run one case in its own process, bounded by CASE_SECONDS; what went wrong is listed in ``problems``."""
    argv = [a.replace("{server}", server_address) for a in case.argv]
    before = snapshot(case.folder)
    timing = Path(tempfile.mkstemp(prefix="miran-corpus-", suffix=".json")[1])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    problems: list[str] = []
    try:
        p = subprocess.run([sys.executable, "-c", _WRAPPER, str(timing), *argv], cwd=case.folder / "out", env=env,
                           capture_output=True, text=True, timeout=CASE_SECONDS, errors="backslashreplace")
        code, err = p.returncode, p.stderr + p.stdout
    except subprocess.TimeoutExpired as e:
        code, err = None, str(e.stderr or "")
        problems.append(f"hang: more than {CASE_SECONDS} s")
    try:
        main_seconds = json.loads(timing.read_text())["main"]
    except (OSError, ValueError, KeyError):
        main_seconds = None
    timing.unlink(missing_ok=True)
    after = snapshot(case.folder)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if code is not None and code not in case.codes:
        problems.append(f"exit {code}, expected {case.codes}: {err[-400:]!r}")
    if "Traceback" in err:
        problems.append(f"traceback: {err[-600:]!r}")
    if code == 2 and case.mentions and case.mentions not in err:
        problems.append(f"the message does not name {case.mentions!r}: {err[-300:]!r}")
    if changed:
        problems.append(f"changed outside out/: {changed[:5]}")
    return Outcome(case, code, err, main_seconds, changed, problems)


class Servers:
    """The listening sockets the scheduler cases talk to: one that accepts and never answers, one that answers
    like a web server once it is sent a request."""

    def __init__(self) -> None:
        import socket
        import threading

        self.socks, self.conns = {}, []
        for kind in ("silent", "http"):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(16)
            self.socks[kind] = s
            threading.Thread(target=self._serve, args=(s, kind), daemon=True).start()

    def _serve(self, s, kind: str) -> None:
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            self.conns.append(c)
            if kind == "http":
                try:
                    c.settimeout(30)
                    c.recv(65536)
                    c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def address(self, kind: str) -> str:
        return f"tcp://127.0.0.1:{self.socks[kind].getsockname()[1]}" if kind else ""

    def close(self) -> None:
        for s in list(self.socks.values()) + self.conns:
            s.close()


def run_corpus(root: Path, seed: int) -> list[Outcome]:
    cases = build_cases(root, seed)
    servers = Servers()
    try:
        return [run_case(c, servers.address(c.server)) for c in cases]
    finally:
        servers.close()


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        outcomes = run_corpus(Path(tmp), seed)
        refusals = [o for o in outcomes if o.code == 2 and o.main_seconds is not None]
        slowest = sorted(refusals, key=lambda o: -o.main_seconds)[:5]
        print(f"seed {seed}: {len(outcomes)} cases in {time.monotonic() - t0:.0f} s; "
              f"{sum(o.code == 0 for o in outcomes)} succeeded, {len(refusals)} refused")
        print(f"tracebacks {sum(any(p.startswith('traceback') for p in o.problems) for o in outcomes)}, "
              f"hangs {sum(o.code is None for o in outcomes)}, "
              f"changed outside out/ {sum(bool(o.changed) for o in outcomes)}")
        print("slowest refusals inside main(): " + ", ".join(f"{o.case.name} {o.main_seconds:.2f} s" for o in slowest))
        for o in outcomes:
            for p in o.problems:
                print(f"  {o.case.name}: {p}")
        print(json.dumps({o.case.name + f"#{i}": round(o.main_seconds or -1, 3) for i, o in enumerate(outcomes)}))
