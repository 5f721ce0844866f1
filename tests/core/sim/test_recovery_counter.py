"""The public recovery counter (core.sim.progress): per character, the steps walked, the steps of them the progress
guarantee walked, and its stalls; in the simulation, the trace, the paths file (optional v1 fields, older files
still valid, the schema agrees), the sweep's tables and ``miran simulate``'s summary."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from core.export import paths_from_simulation
from core.export.paths import parse_paths, paths_to_dict
from core.scene.io import load_scene
from core.scene.problems import InputError
from core.sim import Simulation

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "resources" / "schemas" / "miran-paths.schema.json").read_text())


def _stalling_run():
    """The McKenna walker with a steering force so weak that it cannot get going: it stalls, and the progress
    guarantee walks it."""
    sim = Simulation(load_scene(ROOT / "scenes" / "mckenna.json"))
    sim.params.set("c_s", 1e-4)
    sim.run(max_steps=400)
    return sim


def test_a_stalled_character_is_counted_in_every_view():
    sim = _stalling_run()
    r = sim.recovery()
    steps, rec, stalls = int(r["steps"][0]), int(r["recovered_steps"][0]), int(r["stalls"][0])
    assert stalls >= 1 and 0 < rec <= steps == sim.steps
    s = sim.summary()
    assert (s["agent_steps"], s["recovered_steps"], s["stalls"], s["stalled"]) == (steps, rec, stalls, 1)
    t = sim.step(trace=[0])[0]
    assert t.stalls == stalls and t.recovered_steps >= rec
    # The paths file carries it (optional v1 fields), the schema accepts it, and it reads back.
    doc = paths_to_dict(paths_from_simulation(sim))
    a = doc["agents"][0]
    assert (a["stalls"], a["recovered_steps"], a["steps"]) == (int(sim.state.stalls[0]), int(sim.state.rec_steps[0]),
                                                               int(sim.state.walk_steps[0]))
    jsonschema.validate(doc, SCHEMA)
    back = parse_paths(doc).agents[0]
    assert (back.stalls, back.recovered_steps, back.steps) == (a["stalls"], a["recovered_steps"], a["steps"])


def test_files_without_the_counter_stay_valid_and_bad_counts_are_named():
    sim = Simulation(load_scene(ROOT / "scenes" / "mckenna.json"))
    sim.run(max_steps=50)
    doc = paths_to_dict(paths_from_simulation(sim))
    a = doc["agents"][0]
    assert "stalls" not in a and "recovered_steps" not in a      # a character that never stalled: as before
    jsonschema.validate(doc, SCHEMA)
    back = parse_paths(doc).agents[0]
    assert (back.stalls, back.recovered_steps, back.steps) == (0, 0, -1)
    for bad, where in (({"stalls": -1}, "stalls"), ({"steps": 2, "recovered_steps": 3, "stalls": 1},
                                                     "recovered_steps"), ({"stalls": 1.5}, "stalls")):
        d = json.loads(json.dumps(doc))
        d["agents"][0].update(bad)
        with pytest.raises(InputError) as e:
            parse_paths(d)
        assert f"agents[0].{where}" in str(e.value)


@pytest.mark.experiment  # MIRAN Figure 7 at five sigmas
def test_the_figure_7_walker_is_carried_by_its_forces():
    """MIRAN Figure 7's sigma = 250 walker: its attraction point, a visibility interval's end, moves by rounding as
    it walks straight at it; that is the same point, and the walker never stalls."""
    scene = load_scene(ROOT / "scenes" / "mckenna.json")
    for sigma in (100.0, 250.0, 300.0, 400.0, 1250.0):
        sim = Simulation(scene)
        sim.set_profile(scene.agents[0].profile, sigma=sigma, d=20.0)
        sim.run()
        assert sim.arrived().all()
        assert int(sim.state.stalls[0]) == 0 and int(sim.state.rec_steps[0]) == 0, sigma
        assert int(sim.state.walk_steps[0]) == sim.steps


def test_the_sweep_tables_carry_the_counter():
    from core.sweep.task import _reduce

    sim = _stalling_run()

    class Task:
        index, run_id, scene, seed, params = 0, "r", "mckenna.json", 0, ()
        metrics = ("arrival",)

    out = _reduce(sim, Task(), {})  # no swept parameters
    row = out["characters"][0]
    assert row["recovered_steps"] == int(sim.state.rec_steps[0]) and row["stalls"] == int(sim.state.stalls[0])
    assert np.isclose(out["run"]["recovery_share"], sim.state.rec_steps.sum() / sim.state.walk_steps.sum())
    assert out["run"]["stalled"] == 1


def test_a_recovery_ends_once_the_attraction_point_has_moved_past_its_target():
    """IRM's attraction point moves ahead as a recovering character walks at it, so the character may never reach
    it: the recovery hands the character back to the forces as soon as its reference or attraction point has got as
    far as the recovery walks to (a forest character was walked 898 steps to its goal before). The McKenna walker
    is put into a recovery whose target lies 1 m past its attraction point, 30 m ahead."""
    sim = Simulation(load_scene(ROOT / "scenes" / "mckenna.json"), method="irm")
    st = sim.state
    sim.step(30)
    attr0 = st.attr[0].copy()
    assert np.hypot(*(attr0 - st.pos[0])) > 20.0
    st.rec_s[0] = max(st.s_ref[0], st.s_attr[0]) + 1.0
    st.rec_u[0] = -1.0
    for n in range(400):
        sim.step(1)
        late = st.rec_s[0] >= 0.0 and st.rec_u[0] < 0.0 and max(st.s_ref[0], st.s_attr[0]) >= st.rec_s[0]
        assert not late, "the recovery went on past its target"
        if st.rec_s[0] < 0.0:
            break
    assert st.rec_s[0] < 0.0 and np.hypot(*(attr0 - st.pos[0])) > 5.0, "the recovery walked on to the old point"
    assert sim.recovery()["recovered_steps"][0] == n  # the step it was handed back on is the forces'
