"""The IRM corridors of a running simulation in one growable packed buffer (like ``RouteBook`` for routes).

Arrays (M rows in use; scene units): ``B`` (M, 2) disc centres on the medial axis, ``R`` (M,) their radii (the
clearance), ``L`` / ``Q`` (M, 2) the left / right closest obstacle points, ``S`` (M,) the route arc length each
disc was retracted from (IRM 3.2; see core.steering.irm). An agent's corridor is the rows [lo, hi).
"""

from __future__ import annotations

import numpy as np

from core.routes.route import Route
from core.steering.irm import build_corridor

_NAMES = ("B", "R", "L", "Q", "S")


class CorridorBook:
    """Append-only packed corridors: ``add(arrays) -> (lo, hi)``; ``B, R, L, Q, S`` are the used rows."""

    def __init__(self, capacity: int = 256) -> None:
        self._a = {"B": np.zeros((capacity, 2)), "R": np.zeros(capacity), "L": np.zeros((capacity, 2)),
                   "Q": np.zeros((capacity, 2)), "S": np.zeros(capacity)}
        self.used = 0

    def __getattr__(self, name: str) -> np.ndarray:
        a = self.__dict__.get("_a")
        if a is not None and name in a:
            return a[name][: self.__dict__["used"]]
        raise AttributeError(name)

    def _views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        B, R, L, Q, S = (self._a[n][: self.used] for n in _NAMES)
        return B, R, L, Q, S

    def add(self, parts: tuple[np.ndarray, ...]) -> tuple[int, int]:
        """Append one corridor given as (B, R, L, Q, S); returns its row range."""
        k = len(parts[1])
        if self.used + k > len(self._a["R"]):
            cap = max(self.used + k, 2 * len(self._a["R"]))
            for name in _NAMES:
                old = self._a[name]
                new = np.zeros((cap,) + old.shape[1:])
                new[: self.used] = old[: self.used]
                self._a[name] = new
        lo = self.used
        for name, part in zip(_NAMES, parts):
            self._a[name][lo: lo + k] = part
        self.used += k
        return lo, lo + k

    def compact(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Keep only the corridors still referenced (row ranges [lo, hi), one per agent; empty ones refer to none);
        returns each agent's shift, new lo - old lo (an empty range moves to 0)."""
        keys = sorted({(a, b) for a, b in zip(lo.tolist(), hi.tolist()) if b > a})
        total = sum(b - a for a, b in keys)
        new = {n: np.zeros((max(16, total),) + self._a[n].shape[1:]) for n in _NAMES}
        where: dict[tuple[int, int], int] = {}
        used = 0
        for a, b in keys:
            for n in _NAMES:
                new[n][used: used + b - a] = self._a[n][a:b]
            where[(a, b)] = used
            used += b - a
        self._a, self.used = new, used
        return np.array([where[(a, b)] - a if b > a else -a for a, b in zip(lo.tolist(), hi.tolist())],
                        dtype=np.int64)

    def layout_key(self) -> tuple:
        """Equal as long as the views stay the same arrays: it changes when corridors are added (the id is of an
        array every cached view keeps alive)."""
        return self.used, id(self._a["R"])

    def kernel_tuple(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(B, R, L, Q, S) for the kernels; the same views until corridors are added."""
        key = self.layout_key()
        cached = self.__dict__.get("_kt")
        if cached is None or cached[0] != key:
            cached = (key, self._views())
            self.__dict__["_kt"] = cached
        return cached[1]

    def copy(self) -> "CorridorBook":
        c = CorridorBook(max(1, self.used))
        for name in _NAMES:
            c._a[name][: self.used] = self._a[name][: self.used]
        c.used = self.used
        return c


def corridor_of_route(mesh, route: Route, scale: float) -> tuple[np.ndarray, ...]:
    """The IRM corridor (B, R, L, Q, S) of a route in a navigation mesh's free space (IRM 3.2)."""
    # Writable copies (a Route's arrays are read-only), so the kernel keeps one specialisation.
    pts = np.array(route.points, dtype=np.float64)
    s = np.array(route.s, dtype=np.float64)
    min_step = max(1e-4 * scale, 1e-3 * route.length / max(len(pts), 1), 1e-9)
    max_step = max(0.02 * scale, min_step)
    return build_corridor(mesh.arrays.edges, pts, s, 0, len(pts), min_step, max_step, scale)
