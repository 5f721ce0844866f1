"""The commands the UI sends the simulation worker: one frozen record a command, applied between steps by
``SimController.handle`` with ``match``; and the keys of the live parameter overrides the controller keeps.

The UI builds them by name through ``cmd`` (``cmd("param", "c_s", 3.0)``): ``COMMANDS`` maps each name to its
record, so a misspelt name fails where it is sent, naming the known ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.scene.model import Scene


@dataclass(frozen=True)
class Warmup:
    """Compile what the scene's first step needs (numba), then the rest of the engine in the background."""

    scene: Scene | None = None


@dataclass(frozen=True)
class Load:
    """Open a scene (another document): what belonged to the last one is dropped; the navmesh and simulation
    are built on the next play, step or reset. ``document`` numbers the documents the UI opened: the snapshots of
    builds and overlays carry it, so the UI can tell a late one of the last document."""

    scene: Scene
    document: int = 0


@dataclass(frozen=True)
class SceneEdit:
    """The edited scene: profiles and settings apply live, geometry and agents on the next reset."""

    scene: Scene


@dataclass(frozen=True)
class Play:
    """Run, paced by the speed."""


@dataclass(frozen=True)
class Pause:
    """Stop stepping."""


@dataclass(frozen=True)
class Step:
    """Advance ``n`` steps and pause."""

    n: int = 1


@dataclass(frozen=True)
class Reset:
    """Rebuild the simulation from the scene."""


@dataclass(frozen=True)
class Speed:
    """Simulated seconds per wall-clock second; 0 runs as fast as the engine can."""

    factor: float


@dataclass(frozen=True)
class Param:
    """A global parameter (``core.sim.GLOBAL_NAMES``)."""

    name: str
    value: Any


@dataclass(frozen=True)
class ProfileValue:
    """A field of a profile (``core.sim.PROFILE_FIELDS``)."""

    profile: str
    field: str
    value: float


@dataclass(frozen=True)
class Weight:
    """A profile's weight of a terrain type."""

    profile: str
    terrain: str
    value: float


@dataclass(frozen=True)
class Method:
    """The steering method of the main simulation."""

    name: str


@dataclass(frozen=True)
class Threads:
    """How many threads step the simulations (core.sim.Simulation.set_threads; the paths do not depend on it)."""

    n: int


@dataclass(frozen=True)
class Select:
    """The traced agent (-1: none)."""

    index: int


@dataclass(frozen=True)
class Overlays:
    """The overlays the UI draws (some need the traced agent's step)."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Preview:
    """The ghost preview of the future on or off."""

    on: bool


@dataclass(frozen=True)
class Compare:
    """Run a second simulation with this method side by side (None: none)."""

    method: str | None


@dataclass(frozen=True)
class AddAgents:
    """``n`` agents with random start and goal (seeded), of one profile or all."""

    n: int
    seed: int
    profile: str | None = None


@dataclass(frozen=True)
class Export:
    """Write the walked paths: ``fmt`` json, csv, pedpy, jupedsim or geojson."""

    path: str
    fmt: str = "json"


@dataclass(frozen=True)
class Ecm:
    """Build and show the GVD and the Explicit Corridor Map at this raster resolution."""

    resolution: int = 1024


@dataclass(frozen=True)
class Recording:
    """Publish the run recorded so far (a core.sim.replay.Replay) for the timeline."""


@dataclass(frozen=True)
class Stop:
    """End the worker."""


Command = (Warmup | Load | SceneEdit | Play | Pause | Step | Reset | Speed | Param | ProfileValue | Weight | Method
           | Threads | Select | Overlays | Preview | Compare | AddAgents | Export | Ecm | Recording | Stop)

COMMANDS: dict[str, type] = {
    "warmup": Warmup, "load": Load, "scene": SceneEdit, "play": Play, "pause": Pause, "step": Step, "reset": Reset,
    "speed": Speed, "param": Param, "profile": ProfileValue, "weight": Weight, "method": Method, "threads": Threads,
    "select": Select,
    "overlays": Overlays, "preview": Preview, "compare": Compare, "add_agents": AddAgents, "export": Export,
    "ecm": Ecm, "recording": Recording, "stop": Stop,
}


def cmd(name: str, *args: Any) -> Command:
    """The command record called ``name`` with these arguments (``cmd("param", "c_s", 3.0)``)."""
    try:
        kind = COMMANDS[name]
    except KeyError:
        raise ValueError(f"unknown command {name!r} (known: {', '.join(sorted(COMMANDS))})") from None
    if kind is Overlays:
        args = (tuple(args[0]),) if args else args
    command: Command = kind(*args)
    return command


# ----- the keys of live overrides: what a value set in the dock replaces ------------------------------------------


@dataclass(frozen=True)
class GlobalKey:
    """A global parameter."""

    name: str


@dataclass(frozen=True)
class ProfileKey:
    """A field of a profile."""

    profile: str
    field: str


@dataclass(frozen=True)
class WeightKey:
    """A profile's weight of a terrain type."""

    profile: str
    terrain: str


@dataclass(frozen=True)
class MethodKey:
    """The steering method."""


OverrideKey = GlobalKey | ProfileKey | WeightKey | MethodKey
