"""The worker's commands: frozen records built by name, dispatched by type; live overrides keyed by named types."""

from __future__ import annotations

import dataclasses

import pytest

from app.sim.commands import (COMMANDS, GlobalKey, Method, MethodKey, Overlays, Param, ProfileKey, ProfileValue,
                              SceneEdit, Speed, Stop, Weight, WeightKey, cmd)
from app.sim.controller import SimController, _coalesce
from app.sim.mailbox import Mailbox
from core.scene.model import Scene


def test_cmd_builds_the_record_of_each_name():
    assert cmd("param", "c_s", 3.0) == Param("c_s", 3.0)
    assert cmd("profile", "adult", "sigma", 2.0) == ProfileValue("adult", "sigma", 2.0)
    assert cmd("overlays", ["a", "b"]) == Overlays(("a", "b"))
    assert cmd("stop") == Stop()
    assert set(COMMANDS) >= {"load", "scene", "play", "pause", "step", "reset", "speed", "param", "profile", "weight",
                             "method", "select", "overlays", "preview", "compare", "add_agents", "export", "ecm",
                             "warmup", "stop"}


def test_a_misspelt_or_misused_command_fails_where_it_is_sent():
    with pytest.raises(ValueError, match=r"unknown command 'parm' \(known: .*param"):
        cmd("parm", "c_s", 3.0)
    with pytest.raises(TypeError):
        cmd("speed")


def test_commands_and_keys_are_frozen():
    for record in (Param("c_s", 1.0), Speed(2.0), GlobalKey("dt"), ProfileKey("a", "sigma")):
        field = dataclasses.fields(record)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, None)


def test_only_the_last_scene_edit_of_a_batch_is_kept():
    a, b = SceneEdit(Scene.empty()), SceneEdit(Scene.empty())
    batch = [a, Speed(1.0), b, Stop()]
    out = _coalesce(batch)
    assert len(out) == 3 and out[0] == Speed(1.0) and out[1] is b and out[2] == Stop()


def test_the_controller_applies_records_and_keys_overrides_by_type():
    c = SimController(Mailbox())
    c.scene = Scene.empty()
    c.handle(Speed(2.5))
    assert c.speed == 2.5
    c.handle(Param("c_s", 3.0))
    assert c.overrides == {GlobalKey("c_s"): 3.0}
    box = c.outbox
    box.take()
    c.handle(Param("c_s", -1.0))     # checked by the engine before it is recorded: refused, reported, not recorded
    c.handle(Method("no-such-method"))
    _, events = box.take()
    assert [(e.kind, e.args[0]) for e in events] == [("error", "c_s not changed"), ("error", "method not changed")]
    assert c.overrides == {GlobalKey("c_s"): 3.0}
    pid = c.scene.profiles[0].id
    tid = c.scene.terrain_types[0].id
    c.handle(Weight(pid, tid, 2.0))
    c.handle(ProfileValue(pid, "sigma", 1.5))
    assert c.overrides[WeightKey(pid, tid)] == 2.0 and c.overrides[ProfileKey(pid, "sigma")] == 1.5
    assert MethodKey() not in c.overrides
    with pytest.raises(TypeError, match="not a command"):
        c.handle("play")  # type: ignore[arg-type]
