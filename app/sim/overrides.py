"""The live parameter overrides of the open document: values set in the Simulation panel (or edited in the scene
while a run exists) that replace the scene's own until Save to Scene writes them into it. They belong to the
document: the controller clears them when another scene is loaded, so tuning never leaks into the next file.

``Overrides`` is the one owner of these values: it checks a value with the engine's own checks, applies it to the
running simulations and re-applies all of them to a rebuilt one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Iterable

from core.scene.model import Scene
from core.scene.problems import InputError, Problem
from core.sim import IMPLEMENTED, SimParams, Simulation

from .commands import GlobalKey, MethodKey, OverrideKey, ProfileKey, WeightKey

PROFILE_VALUE_FIELDS = ("max_speed", "sigma", "d", "radius")


class Overrides(Mapping):
    """Key -> value of every live change since the document was loaded (read as a mapping)."""

    def __init__(self) -> None:
        self._values: dict[OverrideKey, Any] = {}

    def __getitem__(self, key: OverrideKey) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[OverrideKey]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        """Forget every override (another document was loaded)."""
        self._values.clear()

    def method(self, default: str) -> str:
        """The steering method the panel chose, else ``default`` (the scene's)."""
        return self._values.get(MethodKey(), default)

    def set(self, key: OverrideKey, value: Any, scene: Scene | None, main: Simulation | None,
            compare: Simulation | None) -> None:
        """Check a live change (on the running simulation, else on a throw-away table of ``scene``), apply it to
        the running simulations and record it. InputError, with nothing changed, when the engine refuses it."""
        if main is None:
            check(scene, key, value)
        for sim in (main, compare):
            if sim is not None:
                apply(sim, key, value, compare=sim is compare)
        self._values[key] = value

    def apply_to(self, sim: Simulation) -> None:
        """Apply every override to a freshly built simulation; one the new scene no longer accepts (a profile
        removed, say) is dropped."""
        for key, value in list(self._values.items()):
            try:
                apply(sim, key, value, compare=False)
            except InputError:
                del self._values[key]


def apply(sim: Simulation, key: OverrideKey, value: Any, compare: bool) -> None:
    """Apply one override to a simulation (the side-by-side run keeps its own method)."""
    match key:
        case GlobalKey(name):
            sim.params.set(name, value)
        case ProfileKey(pid, field):
            sim.set_profile(pid, **{field: value})
        case WeightKey(pid, tid):
            sim.set_weight(pid, tid, value)
        case MethodKey() if not compare:
            sim.set_method(value)


def check(scene: Scene | None, key: OverrideKey, value: Any) -> None:
    """Check a live change before any simulation exists (the engine's own checks, on a throw-away table)."""
    if isinstance(key, MethodKey):
        if value not in IMPLEMENTED:
            raise InputError([Problem("method", f"unknown or unavailable method {value!r} (available: "
                                                f"{', '.join(IMPLEMENTED)})")])
        return
    probe = SimParams(scene if scene is not None else Scene.empty())
    match key:
        case GlobalKey(name):
            probe.set(name, value)
        case ProfileKey(pid, field):
            probe.set_profile(pid, **{field: value})
        case WeightKey(pid, tid):
            probe.set_weight(pid, tid, value)


def scene_changes(old: Scene, new: Scene) -> Iterable[tuple[OverrideKey, Any]]:
    """The profile values, weights and run settings that differ between two versions of a scene, as overrides:
    what an edit of the scene changes in the running simulation."""
    for p in new.profiles:
        try:
            q = old.profile(p.id)
        except KeyError:
            continue
        for f in PROFILE_VALUE_FIELDS:
            if getattr(p, f) != getattr(q, f):
                yield ProfileKey(p.id, f), getattr(p, f)
        for t in new.terrain_types:
            if p.weight(t.id) != q.weight(t.id):
                yield WeightKey(p.id, t.id), p.weight(t.id)
    s, o = new.simulation, old.simulation
    if s.integrator != o.integrator:
        yield GlobalKey("integrator"), s.integrator
    if s.dt != o.dt:
        yield GlobalKey("dt"), s.dt
    if s.fidelity != o.fidelity:
        yield GlobalKey("fidelity"), s.fidelity
    if s.method != o.method and s.method in IMPLEMENTED:
        yield MethodKey(), s.method
