"""The sweep spec (``miran-sweep`` v1, JSON or TOML): read, checked before any run, and expanded into run tasks.

```json
{"format": "miran-sweep", "version": 1, "name": "sigma",
 "scenes": ["forest.json"],                        # paths relative to the spec file
 "fixed": {"method": "miran", "dt": 0.1},          # the same in every run
 "grid": {"adult.sigma": [20, 40, 80], "method": ["miran", "irm"]},   # every combination
 "random": {"samples": 4, "seed": 1,               # drawn once, crossed with every grid point
            "parameters": {"adult.d": {"uniform": [10, 30]}, "c_s": {"log_uniform": [1, 8]},
                           "integrator": {"choice": ["euler", "verlet"]}, "agents": {"integers": [0, 4]}}},
 "seeds": [0, 1], "agents": 0, "scene_agents": true,
 "limit": {"steps": 4000, "time": 600.0},
 "metrics": ["arrival", "time", "length", "weighted_length", "terrain_lengths", "min_clearance", "mean_speed",
             "cpu_time"]}
```

Parameter names (``PARAMETERS`` below): every global of core.sim.params (``c_s``, ``dt``, ``integrator``,
``interact``, ``fidelity`` (exact or fast), ``fast_steps`` ...), ``method``, ``planner`` (of the scene's start/goal
agents and of the random ones), ``agents``
(random agents added to the scene's), and per profile ``<profile>.sigma|d|max_speed|radius`` and
``<profile>.weight.<terrain>`` (``*`` for every profile; ``weights`` is an alias, made canonical before the runs are
planned). Each parameter is given once: the same name in two tables, a wildcard and a named profile, an alias and
its canonical name, or a TOML quoted key and dotted key spelling one name, is refused naming both places. The
``name`` is a name, not a path (``name_problem``). The number of runs is counted from the lists' lengths before
anything is read (MAX_RUNS). Every problem is reported with its spec path (``grid["adult.sigma"][2]``) before any
run starts; the values are checked by the engine's own setters.

Runs are numbered scene by scene, then grid point (the grid's keys in file order, the last varying fastest), then
random sample, then seed; each is keyed by ``run_id``, a hash of everything that shapes its result (the scene file's
bytes, the parameters, the seed, the limits, the metrics), which ``--resume`` compares.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from core.scene.jsonio import parse_json_text, read_bytes_bounded
from core.scene.model import FIDELITIES, INTEGRATORS, PLANNERS, Scene
from core.scene.parse import MAX_AGENTS, parse_scene
from core.scene.problems import InputError, Problem

FORMAT = "miran-sweep"
VERSION = 1
# What a run can keep (docs: Reference, sweep format): each name selects columns of the run and character tables.
METRICS = ("arrival", "time", "length", "weighted_length", "terrain_lengths", "min_clearance", "mean_speed",
           "cpu_time")
# Parameters that are not profile fields; the globals come from core.sim.params.
RUN_PARAMETERS = ("method", "planner", "agents")
PROFILE_PARAMETERS = ("sigma", "d", "max_speed", "radius")
DISTRIBUTIONS = ("uniform", "log_uniform", "integers", "choice")
TOP_KEYS = ("format", "version", "name", "scenes", "fixed", "grid", "random", "seeds", "agents", "scene_agents",
            "limit", "metrics")
# A spec's name is a name (the default table is <name>.parquet in the current folder), not a path.
MAX_NAME = 120
NAME_FORBIDDEN = frozenset('/\\:*?"<>|')
# A sweep larger than this is refused (a typo in a grid multiplies), counted before anything is expanded.
MAX_RUNS = 1_000_000
# The most parameter names one table of a spec (fixed, grid, random.parameters) may give.
MAX_PARAMETERS = 1000
# A spec file larger than this is refused before it is read (a million seeds take about 8 MB).
MAX_SPEC_BYTES = 16 * 2**20
# Bumped when what a run computes changes, so that --resume does not mix tables of two versions.
ROW_VERSION = 1


@dataclass(frozen=True)
class SceneFile:
    """A scene of the sweep: its ``label`` (file stem), ``path``, file ``text`` and ``sha`` (sha256 of its bytes)."""

    label: str
    path: str
    text: str
    sha: str


@dataclass(frozen=True)
class RunTask:
    """One run: everything a worker needs besides the scene's text (looked up by ``scene_sha``).

    ``params`` are (name, value) pairs in column order; ``steps`` / ``time`` the limits (None: automatic / none).
    """

    index: int
    run_id: str
    scene: str
    scene_sha: str
    params: tuple[tuple[str, Any], ...]
    seed: int
    steps: int | None
    time: float | None
    scene_agents: bool
    metrics: tuple[str, ...]
    keep_paths: bool = False

    def param_dict(self) -> dict[str, Any]:
        """The parameters as a dict."""
        return dict(self.params)


@dataclass(frozen=True)
class SweepSpec:
    """A checked sweep spec; ``tasks()`` expands it into RunTasks, in run order."""

    name: str
    source: str
    scenes: tuple[SceneFile, ...]
    fixed: dict[str, Any]
    grid: dict[str, list[Any]]
    samples: list[dict[str, Any]]
    seeds: tuple[int, ...]
    agents: int
    scene_agents: bool
    steps: int | None
    time: float | None
    metrics: tuple[str, ...]
    parameter_names: tuple[str, ...] = field(default=())

    def tasks(self, keep_paths: bool = False) -> list[RunTask]:
        """Every run of the sweep, numbered in run order."""
        out: list[RunTask] = []
        keys = list(self.grid)
        points = [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k] for k in keys))]
        samples = self.samples or [{}]
        for sc in self.scenes:
            for point in points:
                for sample in samples:
                    values = {"agents": self.agents, **self.fixed, **point, **sample}
                    params = tuple((n, values[n]) for n in self.parameter_names)
                    for seed in self.seeds:
                        rid = run_key(sc.sha, params, seed, self.steps, self.time, self.scene_agents, self.metrics)
                        out.append(RunTask(len(out), rid, sc.label, sc.sha, params, seed, self.steps, self.time,
                                           self.scene_agents, self.metrics, keep_paths))
        return out

    @property
    def n_runs(self) -> int:
        n = len(self.scenes) * max(1, len(self.samples)) * len(self.seeds)
        for v in self.grid.values():
            n *= len(v)
        return n

    def scene_texts(self) -> dict[str, str]:
        """Scene sha -> file text (what workers parse, once each)."""
        return {s.sha: s.text for s in self.scenes}


def run_key(scene_sha: str, params, seed: int, steps, time, scene_agents: bool, metrics) -> str:
    """The run's key: 16 hex digits of a sha256 over everything that shapes its row."""
    doc = {"v": ROW_VERSION, "scene": scene_sha, "params": sorted([n, _canon(v)] for n, v in params),
           "seed": int(seed), "steps": steps, "time": time, "scene_agents": bool(scene_agents),
           "metrics": sorted(metrics)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def _canon(v: Any) -> Any:
    # 2 and 2.0 are the same parameter value; a bool stays a bool.
    if isinstance(v, bool) or isinstance(v, str):
        return v
    return float(v)


# ----- reading


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read and check a sweep spec file (``.json`` or ``.toml``); InputError lists every problem with its path."""
    p = Path(path)
    raw = read_bytes_bounded(p, MAX_SPEC_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError([Problem("", f"not UTF-8 text (byte {e.start})")], str(p)) from None
    if p.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise InputError([Problem("", f"malformed TOML: {e}")], str(p)) from None
    else:
        data = parse_json_text(text, str(p))
    return parse_spec(data, base_dir=p.parent, source=str(p))


def parse_spec(data: Any, base_dir: str | os.PathLike = ".", source: str = "") -> SweepSpec:
    """Check a spec document (a dict as read from JSON or TOML); scene paths are relative to ``base_dir``."""
    r = _Reader()
    if not isinstance(data, dict):
        raise InputError([Problem("", "a sweep spec is a JSON object (or a TOML table)")], source)
    for k in data:
        if k not in TOP_KEYS:
            r.add(k, f"unknown field (valid: {', '.join(TOP_KEYS)})")
    if data.get("format") != FORMAT:
        r.add("format", f"must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION or isinstance(data.get("version"), bool):
        r.add("version", f"must be {VERSION}, got {data.get('version')!r}")
    name = data.get("name", Path(source).name.split(".")[0] if source else "sweep")
    msg = name_problem(name)
    if msg:
        r.add("name", msg)
        name = "sweep"
    _count_runs(data, source)
    scenes = _scenes(r, data.get("scenes"), Path(base_dir))
    loaded = [_parse_scene(r, f"scenes[{i}]", s) for i, s in enumerate(scenes)]
    parsed = [(s, sc) for s, sc in zip(scenes, loaded) if sc is not None]
    checker = _ValueChecker([sc for _, sc in parsed])

    fixed = _mapping(r, data, "fixed")
    grid_raw = _mapping(r, data, "grid")
    fixed_vals = {n: checker.value(r, path, n, v) for n, (path, v) in fixed.items() if checker.known(r, path, n)}
    grid: dict[str, list[Any]] = {}
    for n, (path, vals) in grid_raw.items():
        if not checker.known(r, path, n):
            continue
        if not isinstance(vals, list) or not vals:
            r.add(path, "must be a non-empty list of values")
            continue
        checked = [checker.value(r, f"{path}[{i}]", n, v) for i, v in enumerate(vals)]
        seen = set()
        for i, v in enumerate(checked):
            key = json.dumps(_canon(v)) if v is not None else None
            if key is not None and key in seen:
                r.add(f"{path}[{i}]", f"{v!r} is listed twice")
            seen.add(key)
        grid[n] = checked
    samples, random_paths = _random(r, data.get("random"), checker)
    random_names = set(random_paths)
    given = [(n, path) for n, (path, _) in fixed.items()] + [(n, path) for n, (path, _) in grid_raw.items()]
    given += list(random_paths.items())
    if "agents" in data:
        given.append(("agents", "agents"))
    _overlaps(r, given)
    seeds = _seeds(r, data.get("seeds", [0]))
    agents = data.get("agents", 0)
    if not _is_int(agents) or not 0 <= agents <= MAX_AGENTS:
        r.add("agents", f"must be a whole number from 0 to {MAX_AGENTS}, got {agents!r}")
        agents = 0
    scene_agents = data.get("scene_agents", True)
    if not isinstance(scene_agents, bool):
        r.add("scene_agents", f"must be true or false, got {scene_agents!r}")
        scene_agents = True
    steps, time = _limit(r, data.get("limit", {}))
    metrics = _metrics(r, data.get("metrics", list(METRICS)))
    if r.problems:
        raise InputError(r.problems, source)
    names = tuple(dict.fromkeys(["agents", *fixed_vals, *grid, *random_names]))
    spec = SweepSpec(name.strip(), source, tuple(s for s, _ in parsed), fixed_vals, grid, samples, tuple(seeds),
                     int(agents), scene_agents, steps, time, metrics, names)
    if not (agents or "agents" in grid or "agents" in random_names):
        empty = [i for i, (_, sc) in enumerate(parsed) if not (scene_agents and sc.agents)]
        if empty:
            raise InputError([Problem(f"scenes[{i}]", "no agents to simulate: the scene has none (or scene_agents "
                                                      "is false) and 'agents' is 0") for i in empty], source)
    return spec


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a sweep, or None. The name is a name, not a path: the default table is
    ``<name>.parquet`` in the current folder, so a separator, a control character or a drive would let a spec
    shared with others write elsewhere."""
    if not isinstance(name, str) or not name.strip():
        return f"must be a non-blank string, got {name!r}"
    if len(name) > MAX_NAME:
        return f"at most {MAX_NAME} characters, got {len(name)}"
    bad = sorted({c for c in name if c in NAME_FORBIDDEN or ord(c) < 32 or ord(c) == 127})
    if bad:
        return (f"{name!r} is a name, not a path: it may not hold {', '.join(repr(c) for c in bad)} "
                f"(give the table's path with --out)")
    if name.strip() in (".", ".."):
        return f"{name!r} is a name, not a path (give the table's path with --out)"
    return None


class _Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v)


def _mapping(r: _Reader, data: dict, key: str) -> dict[str, tuple[str, Any]]:
    """A ``fixed`` or ``grid`` table as canonical parameter name -> (the path it is spelled at, value)."""
    v = data.get(key, {})
    if not isinstance(v, dict):
        r.add(key, "must be an object of parameter name -> value")
        return {}
    if len(v) > MAX_PARAMETERS:
        r.add(key, f"{len(v)} parameters, over the limit of {MAX_PARAMETERS}")
        return {}
    return _dotted(r, v, lambda name, x: isinstance(x, dict), key)


def canonical(name: str) -> str:
    """A parameter's canonical name: ``<profile>.weights.<terrain>`` is ``<profile>.weight.<terrain>``."""
    parts = name.split(".")
    if len(parts) == 3 and parts[1] == "weights":
        return f"{parts[0]}.weight.{parts[2]}"
    return name


def _dotted(r: _Reader, d: dict, nested, path: str, prefix: str = "",
            out: dict[str, tuple[str, Any]] | None = None, depth: int = 0) -> dict[str, tuple[str, Any]]:
    """TOML's unquoted dotted keys (``adult.sigma = [20, 40]``) nest tables: join them back into parameter names,
    canonical (``canonical``), each with the path it is spelled at (``grid['adult']['sigma']``,
    ``grid['adult.sigma']``).
    ``nested(name, value)`` says whether the value at ``name`` is such a table. A name spelled twice (a quoted and
    a dotted key, or an alias and its canonical name) is a problem naming both spellings."""
    out = {} if out is None else out
    for k, v in d.items():
        name, where = f"{prefix}{k}", f"{path}[{k!r}]"
        if depth < 3 and nested(name, v):
            _dotted(r, v, nested, where, name + ".", out, depth + 1)
            continue
        c = canonical(name)
        if c in out:
            r.add(where, f"gives {c!r} a second time (also given at {out[c][0]}): a spec gives each parameter once")
            continue
        out[c] = (where, v)
    return out


def _covers(name: str) -> tuple[str, str]:
    """(what a parameter sets, which profile): ``("sigma", "adult")``, ``("weight.mud", "*")``; a parameter that is
    not a profile's is its own name for every profile (``("c_s", "")``)."""
    parts = name.split(".")
    if len(parts) >= 2:
        return ".".join(parts[1:]), parts[0]
    return name, ""


def _overlaps(r: _Reader, given: list[tuple[str, str]]) -> None:
    """A problem naming both places where one parameter is given twice: the same canonical name in two tables, or a
    wildcard profile (``*.sigma``) and a named one (``adult.sigma``). Linear in the names given."""
    by_field: dict[str, dict[str, str]] = {}
    for name, path in given:
        field, profile = _covers(name)
        seen = by_field.setdefault(field, {})
        other = seen.get(profile) or (seen.get("*") if profile else None)
        if other is None and profile == "*" and seen:
            other = next(iter(seen.values()))
        if other is not None:
            r.add(path, f"sets what {other} already sets: a spec gives each parameter once (a wildcard profile "
                        f"'*' covers every named one)")
            continue
        seen[profile] = path


def _count_runs(data: dict, source: str) -> None:
    """InputError when the spec asks for more than MAX_RUNS runs, counted from the lengths of its lists before
    anything is read, checked or drawn (a spec of a few bytes can multiply into millions)."""
    def length(v: Any) -> int:
        return len(v) if isinstance(v, list) else 1

    n = length(data.get("scenes")) * length(data.get("seeds", [0]))
    grid = data.get("grid")
    if isinstance(grid, dict):
        for v in _leaves(grid):
            n *= max(1, length(v))
            if n > MAX_RUNS:
                break
    rnd = data.get("random")
    if isinstance(rnd, dict) and _is_int(rnd.get("samples")) and rnd["samples"] > 0:
        n *= int(rnd["samples"])
    if n > MAX_RUNS:
        raise InputError([Problem("", f"{n:,} runs (scenes x grid points x random samples x seeds), over the "
                                      f"limit of {MAX_RUNS:,} runs a spec may ask for: split the sweep")], source)


def _leaves(d: dict, depth: int = 0):
    """The values of a (TOML-nested) table of lists."""
    for v in d.values():
        if isinstance(v, dict) and depth < 3:
            yield from _leaves(v, depth + 1)
        else:
            yield v


def _scenes(r: _Reader, v: Any, base: Path) -> list[SceneFile]:
    if not isinstance(v, list) or not v:
        r.add("scenes", "must be a non-empty list of scene file paths")
        return []
    out, labels = [], set()
    for i, s in enumerate(v):
        if not isinstance(s, str) or not s:
            r.add(f"scenes[{i}]", f"must be a file path, got {s!r}")
            continue
        p = Path(s) if Path(s).is_absolute() else base / s
        try:
            raw = read_bytes_bounded(p)
        except InputError as e:
            r.add(f"scenes[{i}]", f"cannot read {p}: " + "; ".join(pr.message for pr in e.problems))
            continue
        label = p.name[:-5] if p.name.endswith(".json") else p.stem
        if label in labels:
            r.add(f"scenes[{i}]", f"a second scene named {label!r} (scene file names must differ)")
        labels.add(label)
        out.append(SceneFile(label, str(p), raw.decode("utf-8-sig", errors="replace"),
                             hashlib.sha256(raw).hexdigest()))
    return out


def _parse_scene(r: _Reader, path: str, sf: SceneFile) -> Scene | None:
    try:
        return parse_scene(parse_json_text(sf.text, sf.path), sf.path)
    except InputError as e:
        for line in e.lines()[:5]:
            r.add(path, f"bad scene: {line}")
        return None


class _ValueChecker:
    """Checks a parameter name and value against every scene of the sweep, with the engine's own setters."""

    def __init__(self, scenes: list[Scene]) -> None:
        from core.sim.params import GLOBAL_NAMES, SimParams

        self.scenes = scenes
        self.globals = GLOBAL_NAMES
        self.params = [SimParams(s) for s in scenes]

    def names_help(self) -> str:
        return (f"{', '.join(RUN_PARAMETERS + tuple(self.globals))}, <profile>.{{{','.join(PROFILE_PARAMETERS)}}}, "
                f"<profile>.weight.<terrain>")

    def is_parameter(self, name: str) -> bool:
        """Whether ``name`` has the form of a parameter (profiles and terrain types not checked)."""
        return name in RUN_PARAMETERS or name in self.globals or self._profile_field(name)

    def known(self, r: _Reader, path: str, name: Any) -> bool:
        """Whether ``name`` is a sweepable parameter (a problem at ``path`` when not)."""
        ok = isinstance(name, str) and self.is_parameter(name)
        if not ok:
            r.add(path, f"unknown parameter {name!r} (valid: {self.names_help()})")
            return False
        parts = name.split(".")
        for params, scene in zip(self.params, self.scenes):
            where = f" in scene {scene.name!r}" if len(self.scenes) > 1 else ""
            if len(parts) > 1 and parts[0] != "*" and parts[0] not in params.profile_ids:
                r.add(path, f"unknown profile {parts[0]!r}{where} (known: {', '.join(params.profile_ids)}, or *)")
                return False
            if len(parts) == 3 and parts[2] not in params.terrain_ids:
                r.add(path, f"unknown terrain type {parts[2]!r}{where} (known: {', '.join(params.terrain_ids)})")
                return False
        return True

    @staticmethod
    def _profile_field(name: str) -> bool:
        parts = name.split(".")
        return (len(parts) == 2 and parts[1] in PROFILE_PARAMETERS) or (len(parts) == 3 and
                                                                       parts[1] in ("weight", "weights"))

    def value(self, r: _Reader, path: str, name: Any, v: Any) -> Any:
        """The checked value (ints stay ints), or None after adding a problem at ``path``."""
        from core.sim import IMPLEMENTED

        if not isinstance(name, str):
            r.add(path, "parameter names are strings")
            return None
        if name == "method":
            return self._choice(r, path, v, IMPLEMENTED)
        if name == "integrator":
            return self._choice(r, path, v, INTEGRATORS)
        if name == "fidelity":
            return self._choice(r, path, v, FIDELITIES)
        if name == "planner":
            return self._choice(r, path, v, PLANNERS)
        if name == "agents":
            if not _is_int(v) or not 0 <= v <= MAX_AGENTS:
                r.add(path, f"agents must be a whole number from 0 to {MAX_AGENTS}, got {v!r}")
                return None
            return int(v)
        if name in self.globals:
            if name in ("interact", "social", "slope"):
                if not isinstance(v, bool):
                    r.add(path, f"{name} is a switch: true or false, got {v!r}")
                    return None
                if name == "slope" and v and any(s.heightfield is None for s in self.scenes):
                    r.add(path, "slope needs every scene to have a height field")
                return v
            return self._engine(r, path, v, lambda p: p.set(name, v))
        parts = name.split(".")
        if len(parts) == 2 and parts[1] in PROFILE_PARAMETERS:
            return self._engine(r, path, v, lambda p: [p.set_profile(pid, **{parts[1]: v})
                                                       for pid in self._profiles(p, parts[0])])
        if len(parts) == 3 and parts[1] in ("weight", "weights"):
            return self._engine(r, path, v, lambda p: [p.set_weight(pid, parts[2], v)
                                                       for pid in self._profiles(p, parts[0])])
        r.add(path, f"unknown parameter {name!r} (valid: {self.names_help()})")
        return None

    @staticmethod
    def _profiles(params, pid: str) -> list[str]:
        if pid == "*":
            return list(params.profile_ids)
        params.profile_index(pid)
        return [pid]

    @staticmethod
    def _choice(r: _Reader, path: str, v: Any, valid) -> Any:
        if v not in valid or not isinstance(v, str):
            r.add(path, f"unknown value {v!r} (valid: {', '.join(valid)})")
            return None
        return v

    def _engine(self, r: _Reader, path: str, v: Any, apply) -> Any:
        if not _is_num(v):
            r.add(path, f"expected a finite number, got {v!r}")
            return None
        for params, scene in zip(self.params, self.scenes):
            trial = params.copy()
            try:
                apply(trial)
            except InputError as e:
                where = f" in scene {scene.name!r}" if len(self.scenes) > 1 else ""
                r.add(path, "; ".join(p.message for p in e.problems) + where)
                return None
        return int(v) if _is_int(v) else float(v)


def _random(r: _Reader, v: Any, checker: _ValueChecker) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The random samples drawn and the parameters they set (canonical name -> the path it is spelled at)."""
    if v is None:
        return [], {}
    if not isinstance(v, dict):
        r.add("random", "must be an object with 'samples', 'seed' and 'parameters'")
        return [], {}
    for k in v:
        if k not in ("samples", "seed", "parameters"):
            r.add(f"random.{k}", "unknown field (valid: samples, seed, parameters)")
    n = v.get("samples")
    if not _is_int(n) or not 1 <= n <= MAX_RUNS:
        r.add("random.samples", f"must be a whole number from 1 to {MAX_RUNS}, got {n!r}")
        n = 0
    seed = v.get("seed", 0)
    if not _is_int(seed) or seed < 0:
        r.add("random.seed", f"must be a whole number >= 0, got {seed!r}")
        seed = 0
    raw = v.get("parameters")
    if not isinstance(raw, dict) or not raw or len(raw) > MAX_PARAMETERS:
        r.add("random.parameters", f"must be an object of 1 to {MAX_PARAMETERS} parameter name -> distribution")
        return [], {}
    params = _dotted(r, raw, lambda name, x: isinstance(x, dict) and not checker.is_parameter(canonical(name)),
                     "random.parameters")
    paths = {name: path for name, (path, _) in params.items()}
    dists: list[tuple[str, str, Any]] = []
    for name, (path, d) in params.items():
        if not checker.known(r, path, name):
            continue
        if not isinstance(d, dict) or len(d) != 1 or next(iter(d)) not in DISTRIBUTIONS:
            r.add(path, "must be one distribution: {\"uniform\": [lo, hi]}, {\"log_uniform\": [lo, hi]}, "
                        "{\"integers\": [lo, hi]} or {\"choice\": [values]}")
            continue
        kind, arg = next(iter(d.items()))
        dpath = f"{path}.{kind}"
        if kind == "choice":
            if not isinstance(arg, list) or not arg:
                r.add(dpath, "must be a non-empty list of values")
                continue
            vals = [checker.value(r, f"{dpath}[{i}]", name, x) for i, x in enumerate(arg)]
            dists.append((name, kind, vals))
            continue
        if not (isinstance(arg, list) and len(arg) == 2 and all(_is_num(x) for x in arg) and arg[0] <= arg[1]):
            r.add(dpath, f"must be [lo, hi] with lo <= hi, got {arg!r}")
            continue
        if kind == "log_uniform" and arg[0] <= 0:
            r.add(dpath, f"log_uniform needs lo > 0, got {arg[0]!r}")
            continue
        if kind == "integers" and not all(_is_int(x) for x in arg):
            r.add(dpath, f"integers needs whole numbers, got {arg!r}")
            continue
        for i, x in enumerate(arg):
            checker.value(r, f"{dpath}[{i}]", name, int(x) if kind == "integers" else float(x))
        dists.append((name, kind, arg))
    if r.problems or not n:
        return [], paths
    rng = np.random.default_rng(int(seed))
    samples = []
    for _ in range(int(n)):
        s: dict[str, Any] = {}
        for name, kind, arg in dists:
            if kind == "uniform":
                s[name] = float(rng.uniform(arg[0], arg[1]))
            elif kind == "log_uniform":
                s[name] = float(math.exp(rng.uniform(math.log(arg[0]), math.log(arg[1]))))
            elif kind == "integers":
                s[name] = int(rng.integers(arg[0], arg[1], endpoint=True))
            else:
                s[name] = arg[int(rng.integers(len(arg)))]
        samples.append(s)
    # A sample drawn twice would be one run listed twice under one id, and its rows would overwrite each other.
    first: dict[str, int] = {}
    for i, s in enumerate(samples):
        key = json.dumps(s, sort_keys=True, default=repr)
        if key in first:
            r.add("random.samples", f"samples {first[key] + 1} and {i + 1} of {n} draw the same values ({key}): "
                                    "widen the distributions, or draw fewer samples")
            return [], paths
        first[key] = i
    return samples, paths


def _seeds(r: _Reader, v: Any) -> list[int]:
    if not isinstance(v, list) or not v:
        r.add("seeds", "must be a non-empty list of whole numbers >= 0")
        return [0]
    if all(type(s) is int for s in v) and min(v) >= 0 and len(set(v)) == len(v):
        return list(v)  # the common case, at C speed: a million seeds are checked in milliseconds
    out: dict[int, int] = {}
    for i, s in enumerate(v):
        if not _is_int(s) or s < 0:
            r.add(f"seeds[{i}]", f"must be a whole number >= 0, got {s!r}")
        elif int(s) in out:
            r.add(f"seeds[{i}]", f"seed {s} is listed twice (first at seeds[{out[int(s)]}])")
        else:
            out[int(s)] = i
    return list(out) or [0]


def _limit(r: _Reader, v: Any) -> tuple[int | None, float | None]:
    if not isinstance(v, dict):
        r.add("limit", "must be an object with 'steps' and/or 'time'")
        return None, None
    for k in v:
        if k not in ("steps", "time"):
            r.add(f"limit.{k}", "unknown field (valid: steps, time)")
    steps, time = v.get("steps"), v.get("time")
    if steps is not None and (not _is_int(steps) or steps < 1):
        r.add("limit.steps", f"must be a whole number >= 1, got {steps!r}")
        steps = None
    if time is not None and (not _is_num(time) or time <= 0):
        r.add("limit.time", f"must be a positive number of seconds, got {time!r}")
        time = None
    return (int(steps) if steps is not None else None), (float(time) if time is not None else None)


def _metrics(r: _Reader, v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not v:
        r.add("metrics", f"must be a non-empty list of: {', '.join(METRICS)}")
        return METRICS
    out = []
    for i, m in enumerate(v):
        if m not in METRICS:
            r.add(f"metrics[{i}]", f"unknown metric {m!r} (valid: {', '.join(METRICS)})")
        elif m not in out:
            out.append(m)
    return tuple(m for m in METRICS if m in out)
