"""Smoothing a shortest minimum-clearance path (ECM section V): the path becomes the control path of the Indicative
Route Method, an attraction point moves along it, the character is steered by the attraction and obstacle forces
inside the corridor and the equation of motion is integrated with Verlet (ECM V, after IRM sections 4.1-4.6).

This is the engine's IRM steering (core.steering.irm, core.sim) with the ECM path as the indicative route: its
corridor is the route retracted onto the medial axis (IRM 3.2), the same maximum-clearance discs as the explicit
corridor's. ECM V names the attraction and obstacle forces only, so IRM's noise force (IRM 4.4) is off.

```python
smoother = PathSmoother(scene, mesh)
smooth = smoother.smooth(path)        # (n, 2) positions every dt, C1 (ECM section V)
```
"""

from __future__ import annotations

import time

import numpy as np

from core.routes.route import Route

# ECM section VI: the character walks "a fast walking pace of 2 m/s".
ECM_SPEED = 2.0


class PathSmoother:
    """Smooths paths in one scene: one simulation of IRM characters, one added per path (the ones before have
    arrived and cost a status check per step). ``profile`` (default the scene's first) with ``speed`` and
    ``radius`` overriding its maximum speed and radius when given."""

    def __init__(self, scene, mesh=None, profile: str | None = None, speed: float | None = ECM_SPEED,
                 dt: float = 0.1, radius: float | None = None) -> None:
        from core.sim import Simulation

        self.sim = Simulation(scene, mesh=mesh, method="irm", integrator="verlet", dt=dt, record=True,
                              add_scene_agents=False)
        self.sim.params.set("c_n", 0.0)
        self.sim.replan = False
        self.profile = profile or scene.profiles[0].id
        if speed is not None:
            self.sim.set_profile(self.profile, max_speed=speed)
        if radius is not None:
            self.sim.set_profile(self.profile, radius=radius)
        self.cpu_s = 0.0

    def smooth(self, path: np.ndarray) -> np.ndarray:
        """The smooth path (n, 2) of a character that walks ``path`` (a shortest minimum-clearance path, (m, 2))
        with IRM to its end; the CPU time it took (corridor and steering) is added to ``cpu_s``."""
        t0 = time.thread_time()
        k = int(self.sim.add_agents([Route.from_points(np.asarray(path, dtype=np.float64))], [self.profile])[0])
        self.sim.run()
        self.cpu_s += time.thread_time() - t0
        return self.sim.path(k)[:, 1:]
