"""The simulation's exports besides ``miran-paths`` JSON: the writers of ``miran export`` (core.export), chosen
by format name, so the app and the command line write the same files.

CSV rows are ``agent, profile, t, x, y`` with t = frame x dt and coordinates to 1 mm (no float noise); PedPy text
and JuPedSim SQLite number agents 1..n and frames t / dt; GeoJSON holds the paths and the scene.
"""

from __future__ import annotations

import os

from core.export import PathsFile
from core.export.geojson import write_geojson
from core.export.trajectories import write_csv, write_jupedsim, write_pedpy
from core.scene.model import Scene

FORMATS = ("csv", "pedpy", "jupedsim", "geojson")


def write_trajectories(path: str | os.PathLike, pf: PathsFile, fmt: str, scene: Scene | None = None) -> None:
    """Write the paths in one of FORMATS (the scene gives JuPedSim's walkable area and GeoJSON's geometry)."""
    if fmt == "csv":
        write_csv(path, pf)
    elif fmt == "pedpy":
        write_pedpy(path, pf)
    elif fmt == "jupedsim":
        write_jupedsim(path, pf, scene)
    elif fmt == "geojson":
        write_geojson(path, scene, pf)
    else:
        raise ValueError(f"unknown export format {fmt!r} (choose one of: {', '.join(FORMATS)})")


__all__ = ["FORMATS", "write_trajectories"]
