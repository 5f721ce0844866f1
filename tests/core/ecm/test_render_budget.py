"""A GVD a software renderer would take minutes to draw is refused before drawing, naming the resolution that fits;
a hardware renderer and ordinary scenes are never limited."""

from __future__ import annotations

import re

import pytest

from core.cli.main import main
from core.ecm import glcontext, gvd
from core.ecm.gvd import MAX_SOFTWARE_QUADS, SOFTWARE_RENDERERS, check_render_budget
from core.scene import save_scene
from core.scene.problems import InputError

from ecmgen import comb_scene


def test_budget_applies_to_software_renderers_only():
    check_render_budget(MAX_SOFTWARE_QUADS, 4096, "llvmpipe (LLVM 15.0.6, 256 bits)")
    check_render_budget(10 * MAX_SOFTWARE_QUADS, 4096, "NVIDIA H100 80GB HBM3/PCIe/SSE2")
    with pytest.raises(InputError) as err:
        check_render_budget(4 * MAX_SOFTWARE_QUADS, 4096, "llvmpipe (LLVM 15.0.6, 256 bits)")
    problem = err.value.problems[0]
    assert problem.path == "resolution"
    # Quads grow faster than the resolution: 4x the budget at 4096 px fits at a quarter of it.
    assert "--resolution 1024 or less" in problem.message


@pytest.mark.heavy
def test_a_comb_of_sub_pixel_teeth_is_refused_at_4096_px(tmp_path, capsys, monkeypatch):
    """The command refuses, names a resolution, and builds at the one it names. The budget is lowered to a quarter,
    so that the named resolution builds in seconds (at the real budget, drawing its 4 million quads took most of a
    minute of this test); the arithmetic at the real budget is the test above."""
    monkeypatch.setattr(gvd, "MAX_SOFTWARE_QUADS", gvd.MAX_SOFTWARE_QUADS // 4)
    try:
        renderer = glcontext.renderer()
    except InputError:
        pytest.skip("no OpenGL context here")
    if not any(n in renderer.lower() for n in SOFTWARE_RENDERERS):
        pytest.skip(f"a hardware renderer ({renderer}) draws it")
    path = tmp_path / "comb.json"
    save_scene(comb_scene(20000), path)
    out = str(tmp_path / "ecm.json")
    assert main(["ecm", str(path), "--resolution", "4096", "--backend", "gpu", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "resolution" in err and "--resolution" in err and "Traceback" not in err
    assert not (tmp_path / "ecm.json").exists()
    # The resolution it names is built.
    fits = re.search(r"--resolution (\d+) or less", err).group(1)
    assert main(["ecm", str(path), "--resolution", fits, "--backend", "gpu", "--out", str(tmp_path / "ecm.json")]) == 0
    assert (tmp_path / "ecm.json").exists()
