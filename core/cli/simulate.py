"""``miran simulate SCENE``: run the scene's agents headless and write their walked paths (``miran-paths``).

Agents follow their sketched routes (with detours round the pieces that cross an obstacle or pass closer than the
character's radius) or routes planned when they are created (the planner each agent names), keeping their radius
from the obstacles unless ``--clearance`` says otherwise. The run stops when every agent has arrived or is lost
(with a reason), or after ``--steps`` steps (default: a generous budget from the route lengths and speeds, refused
when it exceeds MAX_AUTO_STEPS); the summary names every agent that did not arrive. ``--record every N | none`` says
which positions are kept: every step (the default), every N-th step, or none (memory stays flat; the lengths come
from the per-step sums). ``--threads N`` steps the agents on N cores (default: all but one; the paths are the same
whatever N). ``--fidelity fast`` runs the crowd level of detail (core.sim.fidelity) instead of the papers' method
at every step. ``--out`` writes the paths file atomically; its destination is checked before the run and,
should the write fail after it, the paths are kept in a named temporary file. ``--json`` prints the summary as JSON.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from core.cli.output import check_destination, json_bytes, print_json, write_result
from core.export import paths_from_simulation
from core.export.paths import paths_to_dict
from core.scene.io import load_scene
from core.scene.model import DEFAULT_PLANNER, FIDELITIES, INTEGRATORS, PLANNERS
from core.scene.parse import MAX_AGENTS
from core.scene.problems import InputError, Problem
from core.scene.ranges import RANGES, range_problem
from core.sim import IMPLEMENTED, Simulation
from core.sim.recorder import MAX_RECORD_EVERY
from core.sim.simulation import default_threads

# With --respawn the run never ends by itself: this many steps (IRM section 6 ran 1000).
RESPAWN_STEPS = 1000
# Agents listed one per line in the text summary.
LIST_AGENTS = 20
# Without --steps a run may take at most this many steps (about a minute of one walker); beyond it the scene's
# routes, speeds and dt need --steps.
MAX_AUTO_STEPS = 10_000_000
# The most steps --steps accepts.
MAX_STEPS = 1_000_000_000


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("simulate", help="run the simulation headless and write the walked paths",
                       description="Simulate the scene's agents (and --agents N random ones) with MIRAN, disc "
                                   "MIRAN or IRM until every agent has arrived or is lost (or --steps steps) and "
                                   "write a miran-paths file. Agents pushed out of sight of their route, or whose "
                                   "way is blocked, are replanned (MIRAN 3.5); with --respawn an arrived agent "
                                   "gets a new random goal (IRM 6).")
    # Optional for argparse only: ``--record every N SCENE`` hands SCENE to --record, and _options takes it back.
    p.add_argument("scene", metavar="SCENE", nargs="?")
    p.add_argument("--method", metavar="M", help=f"steering method: {', '.join(IMPLEMENTED)} (default: the scene's)")
    p.add_argument("--integrator", metavar="I", help=f"{', '.join(INTEGRATORS)} (default: the scene's)")
    p.add_argument("--fidelity", metavar="F", help=f"{', '.join(FIDELITIES)}: the papers' method every step, or the "
                                                   "crowd level of detail (default: the scene's, exact unless it "
                                                   "says)")
    dt = RANGES["dt"]
    p.add_argument("--dt", metavar="S", help=f"time step in seconds, {dt.lo:g} to {dt.hi:g} (default: the scene's)")
    p.add_argument("--steps", metavar="N", help=f"at most this many steps, up to {MAX_STEPS:.0e} (default: enough "
                                                f"for every agent, at most {MAX_AUTO_STEPS:.0e})")
    p.add_argument("--agents", metavar="N", help="add N agents with random start and goal and planned routes")
    p.add_argument("--seed", metavar="K", help="random seed for --agents, --respawn and the noise (default 0)")
    p.add_argument("--respawn", action="store_true",
                   help=f"give arrived agents a new random goal and route (runs --steps steps, default "
                        f"{RESPAWN_STEPS})")
    p.add_argument("--planner", metavar="P", help=f"planner for random, respawned and replanned agents: "
                                                  f"{', '.join(PLANNERS)} (default {DEFAULT_PLANNER})")
    p.add_argument("--slope", action="store_true", help="turn away from steep ascents of the scene's height field "
                                                        "(Niederberger 7.2)")
    p.add_argument("--no-replan", action="store_true", help="leave agents that lost sight of their route, or whose "
                                                            "route is blocked, lost")
    p.add_argument("--clearance", metavar="C", help="clearance every route keeps from the obstacles, planned or "
                                                    "repaired (default: each profile's radius)")
    p.add_argument("--record", metavar="WHAT", nargs="+",
                   help="which positions to keep: 'every N' (every N-th step, plus arrivals and the last) or "
                        "'none' (memory stays flat; --out then has nothing to write); default every step")
    p.add_argument("--threads", metavar="N", help=f"step the agents on N threads (default: all cores but one, "
                                                  f"here {default_threads()}); the paths do not depend on it")
    p.add_argument("--out", metavar="FILE", help="write the paths to a miran-paths JSON file (needs recording)")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of text")
    return p


def _count(problems: list, name: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        v = int(text)
        if v < 0:
            raise ValueError
        return v
    except ValueError:
        problems.append(Problem(name, f"expected a whole number >= 0, got {text!r}"))
        return None


def _threads(problems: list, text: str | None) -> int | None:
    """``--threads N`` as an int >= 1 (None when not given)."""
    if text is None:
        return None
    try:
        v = int(text)
        if v >= 1:
            return v
    except ValueError:
        pass
    problems.append(Problem("--threads", f"expected a whole number >= 1, got {text!r}"))
    return None


def _options(args) -> tuple[float | None, int | None]:
    problems: list[Problem] = []
    dt = steps = None
    agents = _count(problems, "--agents", getattr(args, "agents", None))
    seed = _count(problems, "--seed", getattr(args, "seed", None))
    threads = _threads(problems, getattr(args, "threads", None))
    if agents is not None and agents > MAX_AGENTS:
        problems.append(Problem("--agents", f"{agents} agents, over the limit of {MAX_AGENTS}"))
    planner = getattr(args, "planner", None)
    if planner is not None and planner not in PLANNERS:
        problems.append(Problem("--planner", f"unknown planner {planner!r} (valid: {', '.join(PLANNERS)})"))
    if args.method is not None and args.method not in IMPLEMENTED:
        problems.append(Problem("--method", f"unknown method {args.method!r} (valid: {', '.join(IMPLEMENTED)})"))
    if args.integrator is not None and args.integrator not in INTEGRATORS:
        problems.append(Problem("--integrator", f"unknown integrator {args.integrator!r} "
                                                f"(valid: {', '.join(INTEGRATORS)})"))
    if args.fidelity is not None and args.fidelity not in FIDELITIES:
        problems.append(Problem("--fidelity", f"unknown fidelity {args.fidelity!r} (valid: {', '.join(FIDELITIES)})"))
    if args.dt is not None:
        try:
            dt = float(args.dt)
            if not math.isfinite(dt):
                raise ValueError
            msg = range_problem("dt", dt)
            if msg:
                problems.append(Problem("--dt", msg))
                dt = None
        except ValueError:
            problems.append(Problem("--dt", f"expected a positive number of seconds, got {args.dt!r}"))
    clearance = getattr(args, "clearance", None)
    args.clearance_c = None
    if clearance is not None:
        try:
            args.clearance_c = float(clearance)
            if not (math.isfinite(args.clearance_c) and args.clearance_c >= 0):
                raise ValueError
        except ValueError:
            problems.append(Problem("--clearance", f"expected a number >= 0, got {clearance!r}"))
    if args.steps is not None:
        steps = _count(problems, "--steps", args.steps)
        if steps is not None and steps > MAX_STEPS:
            problems.append(Problem("--steps", f"{steps} steps, over the limit of {MAX_STEPS}"))
    words = getattr(args, "record", None)
    if args.scene is None and words and len(words) > (1 if words[0] == "none" else 2):
        args.scene = words.pop()
    if args.scene is None:
        raise InputError([Problem("SCENE", "missing: give the scene file to simulate")])
    record = _record(problems, words)
    if record == 0 and getattr(args, "out", None):
        problems.append(Problem("--out", "needs recording: --record none keeps no positions to write"))
    if problems:
        raise InputError(problems)
    args.agents_n, args.seed_k, args.record_every = agents or 0, seed or 0, record
    args.threads_n = threads or default_threads()
    return dt, steps


def _record(problems: list, words: list[str] | None) -> int:
    """``--record every N`` / ``none`` as a recording interval in steps (0: none); 1 when not given."""
    if words is None:
        return 1
    if words == ["none"]:
        return 0
    if len(words) == 2 and words[0] == "every":
        try:
            n = int(words[1])
            if 1 <= n <= MAX_RECORD_EVERY:
                return n
        except ValueError:
            pass
    problems.append(Problem("--record", f"expected 'every N' (N a whole number from 1 to {MAX_RECORD_EVERY}) or "
                                        f"'none', got {' '.join(words)!r}"))
    return 1


def run(args) -> int:
    dt, steps = _options(args)
    check_destination(args.out, "--out")
    scene = load_scene(args.scene)
    if not scene.agents and not args.agents_n:
        raise InputError([Problem("agents", "the scene has no agents to simulate (add some with --agents N)")],
                         args.scene)
    if args.slope and scene.heightfield is None:
        raise InputError([Problem("heightfield", "--slope needs a scene with a height field")], args.scene)
    try:
        sim = Simulation(scene, method=args.method, integrator=args.integrator, dt=dt, seed=args.seed_k,
                         route_clearance=args.clearance_c, record=args.record_every, threads=args.threads_n,
                         fidelity=args.fidelity)
        sim.replan = not args.no_replan
        sim.respawn = bool(args.respawn)
        sim.planner = args.planner or DEFAULT_PLANNER
        sim.params.set("slope", bool(args.slope))
        if args.agents_n:
            sim.add_random_agents(args.agents_n, seed=args.seed_k)
    except InputError as e:
        # The random agents' problems are the option's.
        problems = [Problem("--agents", p.message) if p.path == "agents" and args.agents_n else p for p in e.problems]
        raise InputError(problems, args.scene) from None
    if args.respawn and steps is None:
        steps = RESPAWN_STEPS
    if steps is None:
        need = sim.needed_steps()
        if need > MAX_AUTO_STEPS:
            raise InputError([Problem("--steps", f"the agents' routes at their speeds and dt {sim.params.dt:g} s "
                                                 f"could need {need:.3g} steps, over the {MAX_AUTO_STEPS} a run "
                                                 "takes unasked: give --steps N (or a larger --dt)")], args.scene)
    t0 = time.perf_counter()
    sim.run(max_steps=steps)
    wall = time.perf_counter() - t0
    pf = paths_from_simulation(sim)
    profiles = {a.id: a.profile for a in scene.agents}
    if args.out:
        write_result(args.out, "--out", json_bytes(paths_to_dict(pf), indent=None))
    summary = {
        "scene": scene.name, "method": sim.method, "integrator": sim.params.get("integrator"), "dt": sim.params.dt,
        "fidelity": sim.params.get("fidelity"),
        "steps": sim.steps, "time": sim.time, "wall_seconds": wall, "threads": sim.threads,
        "record_every": args.record_every,
        "all_arrived": all(a.reached_goal for a in pf.agents), "out": args.out,
        "arrived": sum(a.reached_goal for a in pf.agents), "lost": sum(a.status == "lost" for a in pf.agents),
        "replanned": sim.replanned, "respawned": sim.respawned,
        "recovery": _recovery(sim), "unrouted": dict(sim.unrouted),
        "repaired": {aid: [p.describe(sim.clearance_for(profiles[aid])) for p in pieces]
                     for aid, pieces in sim.repaired.items()},
        "agents": [{**{k: getattr(a, k) for k in ("id", "profile", "reached_goal", "status", "lost_reason", "time",
                                                  "length", "weighted_length", "terrain_lengths", "min_clearance",
                                                  "recovered_steps", "stalls")}, "steps": int(sim.state.walk_steps[i])}
                   for i, a in enumerate(pf.agents)],
    }
    if args.json:
        print_json(summary)
        return 0
    fast = ", fast" if summary["fidelity"] != "exact" else ""
    print(f"{scene.name}: {sim.method}, {summary['integrator']}{fast}, dt {sim.params.dt:g} s: {sim.steps} steps, "
          f"{sim.time:.1f} s simulated in {wall:.2f} s on {sim.threads} thread"
          f"{'s' if sim.threads > 1 else ''}")
    for aid, lines in summary["repaired"].items():
        for line in lines:
            print(f"  {aid}: its route {line}: it walks a detour there")
    for aid, msg in sim.unrouted.items():
        print(f"  {aid}: {msg}; it is lost where it starts, the others walk")
    if len(pf.agents) > LIST_AGENTS:
        print(f"  {summary['arrived']} of {len(pf.agents)} agents arrived; {sim.replanned} replanned, "
              f"{sim.respawned} respawned")
    for a in pf.agents[:LIST_AGENTS]:
        print(f"  {a.id:<16} {a.profile:<12} {_state(a):<22} length {a.length:8.1f}  weighted "
              f"{a.weighted_length:9.1f}  min clearance {a.min_clearance:6.2f}"
              + (f"  recovered {a.recovered_steps} steps in {a.stalls} stall{'s' if a.stalls != 1 else ''}"
                 if a.stalls else ""))
    rec = summary["recovery"]
    print(f"  recovery: {rec['recovered_steps']} of {rec['agent_steps']} agent-steps ({100 * rec['share']:.2f} %) "
          f"walked by the progress guarantee; {rec['stalled']} of {len(pf.agents)} agents stalled")
    late = [a for a in pf.agents if not a.reached_goal]
    if late and not args.respawn:
        print(f"  {len(late)} of {len(pf.agents)} did not arrive: "
              + "; ".join(f"{a.id} ({_state(a)})" for a in late[:LIST_AGENTS])
              + (f"; and {len(late) - LIST_AGENTS} more" if len(late) > LIST_AGENTS else ""))
    if args.out:
        print(f"wrote {args.out}")
    return 0


def _recovery(sim) -> dict:
    """The run's recovery counter (core.sim.progress): agent-steps walked, of them by the progress guarantee, its
    share, stalls and the agents that stalled."""
    st = sim.state
    walked, rec = int(st.walk_steps.sum()), int(st.rec_steps.sum())
    return {"agent_steps": walked, "recovered_steps": rec, "share": rec / walked if walked else 0.0,
            "stalls": int(st.stalls.sum()), "stalled": int(np.count_nonzero(st.stalls))}


def _state(a) -> str:
    """An agent's end state for the summary: when it arrived, or why it did not."""
    if a.reached_goal:
        return f"arrived at {a.time:.1f} s"
    if a.status == "lost":
        return f"lost: {a.lost_reason}"
    return "still walking"
