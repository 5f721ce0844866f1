"""Display pacing: what the UI draws between the engine's frames, and how often it may draw.

The engine hands over a new state when a step is done (every 100 ms for 2,000 agents on the city), the screen
refreshes at 60 Hz. ``FramePacer`` draws the agents moving linearly from what is on screen to the newest state,
over ``GLIDE_SLACK`` times the engine's usual interval between states, and limits the drawing rate so that
painting takes at most ``duty`` of the UI thread's time: however heavy the scene, the event loop keeps most of its
time for the user.

The slack is a playout buffer, as a game client interpolating a server's snapshots keeps one: the picture runs
``GLIDE_SLACK`` engine frames behind instead of one, and a state that comes up to ``GLIDE_SLACK - 1`` of an
interval late (the engine shares the CPU with a live edit being prepared) finds the agents still walking towards
the last one, not standing still waiting for it. In steady state the agents move at their true speed.
"""

from __future__ import annotations

import numpy as np

DISPLAY_HZ = 60.0
# How many of the engine's intervals a glide to the newest state lasts (the display's lag, in engine frames).
GLIDE_SLACK = 1.5
# Weight of the newest interval in the engine's smoothed interval between states.
INTERVAL_WEIGHT = 0.2


class FramePacer:
    """Keeps the two latest frames (any objects with ``generation``, ``time``, ``positions`` (n, 2) and ``playing``)."""

    def __init__(self, duty: float = 0.5, display_hz: float = DISPLAY_HZ, smooth: bool = True) -> None:
        self.duty = duty
        self.min_gap = 1.0 / display_hz
        self.gap = self.min_gap
        self.smooth = smooth
        self.prev = None
        self.cur = None
        self.t_cur = 0.0
        self.t_step = 0.0
        self.step_s = 0.0
        self.paint_s = 0.0
        self.late_s = 0.0
        self.last_draw = -np.inf
        self.done = True

    def push(self, frame, now: float) -> None:
        """A new frame arrived at wall time ``now`` (s)."""
        same = self.cur is not None and frame.generation == self.cur.generation and \
            frame.positions.shape == self.cur.positions.shape and self.cur.playing and frame.playing
        if same and frame.time == self.cur.time and np.array_equal(frame.positions, self.cur.positions):
            # No step since the last frame (the engine answered a command, applied a live edit): the glide goes
            # on. Started afresh, it lasted as long as the few milliseconds since the last frame, and the agents
            # then stood still until the next step's frame (90 ms without a drawing after a live edit).
            self.cur = frame
            return
        if same and self.smooth:
            # Start the next glide from what is on screen now, so motion never jumps backwards.
            self.prev = _Shown(self.positions(now))
            if frame.time != self.cur.time:         # a step (not an edit's move): learn the engine's interval
                step = max(now - self.t_step, 1e-3)
                w = INTERVAL_WEIGHT if self.step_s > 0.0 else 1.0
                self.step_s = (1 - w) * self.step_s + w * step
                self.t_step = now
        else:
            self.prev = None
            self.step_s = 0.0             # a run started or resumed: its intervals are learnt afresh
            self.t_step = now
        self.cur = frame
        self.t_cur = now
        self.done = False

    def interval(self) -> float:
        """Seconds the glide to the newest frame lasts: ``GLIDE_SLACK`` times the engine's smoothed interval
        between frames."""
        return max(GLIDE_SLACK * self.step_s, 1e-3)

    def positions(self, now: float) -> np.ndarray:
        """(n, 2) positions to draw at wall time ``now``."""
        if self.cur is None:
            return np.zeros((0, 2))
        if self.prev is None or not self.smooth:
            return self.cur.positions
        a = min(1.0, max(0.0, (now - self.t_cur) / self.interval()))
        if a >= 1.0:
            return self.cur.positions
        return self.prev.positions + a * (self.cur.positions - self.prev.positions)

    def settled(self, now: float) -> bool:
        """True once the newest frame is drawn exactly (nothing left to animate)."""
        return self.prev is None or not self.smooth or now - self.t_cur >= self.interval()

    def due(self, now: float) -> bool:
        """May the UI draw now (the last paint's cost allowing)?"""
        return now - self.last_draw >= self.gap - self.late_s

    def wait(self, now: float) -> float:
        """Seconds to set the timer for the next drawing: until it is due, less the timer's usual lateness."""
        return max(0.0, self.last_draw + self.gap - self.late_s - now)

    def drew(self, now: float) -> None:
        """A drawing was started at ``now``: the next one is due ``gap`` later. (Counting the gap from the end of
        the paint instead added the paint's time to every frame's: 30 ms frames for a 17 ms gap.)

        A busy event loop fires timers a few milliseconds late (3 ms on the loaded development machine, which
        made 60 Hz into 50); ``late_s`` learns by how much, from drawings that came within a gap of being due,
        and ``wait`` sets the timer that much earlier."""
        late = now - (self.last_draw + self.gap)
        if abs(late) < self.gap:
            self.late_s = min(max(0.0, self.late_s + 0.3 * late), 0.5 * self.min_gap)
        self.last_draw = now

    def painted(self, now: float, seconds: float) -> None:
        """A paint finished at ``now`` and took ``seconds``: adapt the gap to keep the duty cycle."""
        self.paint_s = seconds if self.paint_s == 0 else 0.7 * self.paint_s + 0.3 * seconds
        self.gap = max(self.min_gap, self.paint_s / self.duty)


class _Shown:
    """The positions on screen when a new frame came (the start of the next glide)."""

    def __init__(self, positions: np.ndarray) -> None:
        self.positions = np.array(positions, copy=True)
