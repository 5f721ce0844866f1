"""Large triangulations asked for off the main thread run in a helper process when offloading is on, with the same
output as triangle gives here, and a helper that fails or outlives its parent is not left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import triangle

from core import triangulate as T

pytestmark = pytest.mark.subprocess


def _pslg(seed: int, n: int) -> dict:
    """A random point set with a square outline as constraints and n vertices in all."""
    rng = np.random.default_rng(seed)
    inner = rng.uniform(1.0, 99.0, size=(n - 4, 2))
    box = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]])
    return {"vertices": np.vstack([box, inner]), "segments": np.array([[0, 1], [1, 2], [2, 3], [3, 0]])}


def _in_thread(pslg: dict, opts: str) -> dict:
    out: dict = {}
    t = threading.Thread(target=lambda: out.update(T.triangulate(pslg, opts)))
    t.start()
    t.join()
    return out


def _same(a: dict, b: dict) -> bool:
    return sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.fixture
def offloading():
    T.offload(True)
    yield
    T.offload(False)


def test_a_background_thread_s_large_triangulation_runs_in_the_helper_with_the_same_output(offloading):
    for seed in range(3):
        pslg = _pslg(seed, 2500)
        before = T.offloaded()
        out = _in_thread(pslg, "pq30Q")
        assert T.offloaded() == before + 1
        assert _same(out, triangle.triangulate(pslg, "pq30Q"))


def test_the_main_thread_and_small_inputs_triangulate_here(offloading):
    before = T.offloaded()
    big = _pslg(5, 2500)
    assert _same(T.triangulate(big, "pQ"), triangle.triangulate(big, "pQ"))       # the main thread
    small = _pslg(6, T.MIN_VERTICES - 1)
    assert _same(_in_thread(small, "pQ"), triangle.triangulate(small, "pQ"))     # too small to send
    assert T.offloaded() == before


def test_a_helper_that_died_leaves_the_work_here_and_offloading_off(offloading):
    pslg = _pslg(7, 2500)
    _in_thread(pslg, "pQ")                                     # the helper is up
    for proc in list(T._STATE["pool"]._processes.values()):
        proc.kill()
        proc.join(5.0)
    before = T.offloaded()
    assert _same(_in_thread(pslg, "pQ"), triangle.triangulate(pslg, "pQ"))
    assert T.offloaded() == before and not T._STATE["on"] and T._STATE["pool"] is None


def test_the_helper_ends_when_its_parent_is_killed(tmp_path):
    """A parent that ends without its exit handlers (killed, crashed) leaves no helper behind."""
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import os, sys, threading
        import numpy as np
        from core import triangulate as T
        if __name__ == "__main__":
            T.offload(True)
            pslg = {"vertices": np.random.default_rng(0).uniform(0, 1, (2000, 2))}
            t = threading.Thread(target=T.triangulate, args=(pslg, "Q"))
            t.start(); t.join()
            print(*[p.pid for p in T._STATE["pool"]._processes.values()], flush=True)
            os._exit(0)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    # Files, not pipes: a helper left behind would hold a pipe open and hang the call.
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        subprocess.run([sys.executable, str(script)], stdout=out, stderr=err, timeout=120, env=env, cwd=os.getcwd())
    pids = [int(p) for p in (tmp_path / "out").read_text().split()]
    assert len(pids) == 1, (tmp_path / "err").read_text()

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(")")[-1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    if not os.path.exists("/proc"):
        pytest.skip("reads /proc")
    deadline = time.monotonic() + 10 * T.PARENT_POLL_S + 5
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pids[0])
