"""Shared fixtures for the ECM tests: random scenes and their maps, built once per session at small resolutions."""

from __future__ import annotations

import functools

import pytest

from core.ecm import build_ecm
from core.ecm.glcontext import GLUnavailableError, get_context
from core.scene import build_geometry

from ecmgen import random_scene

RESOLUTION = 320


@functools.lru_cache(maxsize=None)
def case(seed: int, resolution: int = RESOLUTION):
    """(scene, geometry, ecm) of random scene ``seed``."""
    scene = random_scene(seed)
    geometry = build_geometry(scene)
    return scene, geometry, build_ecm(scene, resolution, geometry=geometry, keep_gvd=True)


@pytest.fixture(scope="session", autouse=True)
def _opengl():
    try:
        get_context()
    except GLUnavailableError as e:  # the map cannot be built at all on this machine
        pytest.skip(f"no OpenGL: {e}")
