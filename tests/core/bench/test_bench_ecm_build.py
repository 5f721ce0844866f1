"""Bench section ecm, build records: the GPU backend per resolution with its baseline, the exact backend beside it."""

import pytest

from core.bench import ecm as bench_ecm
from core.ecm.glcontext import GLUnavailableError, get_context
from core.ecm.sites import build_sites
from core.scene.geometry import build_geometry
from core.scene.io import load_scene


def test_build_records_quick():
    try:
        get_context()
    except GLUnavailableError as e:
        pytest.skip(f"no OpenGL: {e}")
    scene = load_scene(bench_ecm.CITY)
    geometry = build_geometry(scene)
    sites = build_sites(geometry, scene.bounds)
    gpu, ecm = bench_ecm._gpu_build_records(scene, geometry, sites, quick=True)
    names = {r.name: r for r in gpu}
    for res in (512, 1024):
        for ph in bench_ecm.PHASES:
            assert names[f"city build {res} px: {ph}"].value >= 0
        base = names[f"city build {res} px: GVD render, every tile shaded (baseline), process CPU"]
        assert base.value > 0 and "same run" in base.reference
        assert names[f"city build {res} px: GVD render, process CPU"].value > 0
        assert names[f"city build {res} px: vertices / edges / events"].value == 422
    assert ecm.resolution == 512
    exact = {r.name: r for r in bench_ecm._exact_build_records(scene, geometry, sites, ecm, quick=True)}
    assert exact["exact backend build: total"].value > 0
    assert "GPU build at 512 px in this run" in exact["exact backend build: total"].reference
    assert exact["exact backend: vertices / edges / events"].reference.endswith("the same counts as the GPU map")
