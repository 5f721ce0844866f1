"""The scene layer: the Scene model, the ``miran-scene`` v1 file format, validation and geometry normalisation."""

from .geometry import SceneGeometry, build_geometry, obstacle_polygons, terrain_polygons
from .io import load_scene, save_scene, scene_to_dict
from .model import (
    DEFAULT_PLANNER,
    INTEGRATORS,
    METHODS,
    PLANNERS,
    Agent,
    Network,
    Obstacle,
    Profile,
    Route,
    Scene,
    SimulationSettings,
    TerrainPolygon,
    TerrainType,
)
from .parse import check_scene, parse_scene
from .problems import InputError, Problem

__all__ = [
    "Agent", "DEFAULT_PLANNER", "INTEGRATORS", "InputError", "METHODS", "Network", "Obstacle", "PLANNERS",
    "Problem", "Profile", "Route", "Scene", "SceneGeometry", "SimulationSettings", "TerrainPolygon", "TerrainType",
    "build_geometry",
    "check_scene", "load_scene", "obstacle_polygons", "parse_scene", "save_scene", "scene_to_dict",
    "terrain_polygons",
]
