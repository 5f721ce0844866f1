"""Idle means idle: a window with a built, played and paused run, its plots, a measurement and the density heatmap
shown, left alone, uses under 2 % of one core. Measured as the process's CPU time (every thread: the UI, the
engine's worker, the preview and the planners) over 10 s of the running event loop, not as wall-clock speed."""

from __future__ import annotations

import time

import pytest

from app_state import settle
from sim_harness import SCENES
from sim_window import WAIT, action
from test_app_state import draw_measurements, play_until

pytestmark = [pytest.mark.perf, pytest.mark.usefixtures("jit_warm")]  # the idle window's CPU share

IDLE_S = 10.0
MAX_SHARE = 0.02


def test_a_paused_window_left_alone_uses_under_two_percent_of_a_core(make_studio, qtbot):
    w = make_studio(SCENES / "mckenna_road.json")
    draw_measurements(w, ((10.0, 10.0), (190.0, 190.0)), ((20.0, 100.0), (180.0, 100.0)))
    mode = w.sim.replay.timeline.mode
    mode.setCurrentIndex(mode.findData("grid"))
    play_until(qtbot, w, 3.0)
    action(w, "sim.pause").trigger()
    qtbot.waitUntil(lambda: w.sim.frame is not None and not w.sim.frame.playing, timeout=WAIT)
    settle(qtbot, w)
    qtbot.wait(3000)                    # the last recording, measurement and heatmap arrive; the autosave runs
    cpu0, wall0 = time.process_time(), time.monotonic()
    qtbot.wait(int(IDLE_S * 1000))
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    assert not w.sim.errors
    assert cpu / wall < MAX_SHARE, f"idle for {wall:.1f} s, the process used {cpu:.2f} s of CPU " \
                                   f"({100 * cpu / wall:.1f} % of a core)"
