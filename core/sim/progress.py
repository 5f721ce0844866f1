"""The progress guarantee: every walking agent gets on along its route, whatever its method and the forces on it.

MIRAN's Theorem 1 (MIRAN 3.5) proves arrival for a character that "is moving towards each attraction point
directly" and is not pushed by other forces. The force model of MIRAN 3.4 and IRM 4 does not move directly: the
steering force turns a character of speed vmax on a circle of radius vmax / c_s at best, so a character can orbit an
attraction point closer than that for ever (IRM eq. 4 leaves its attraction point where it is until the character
enters the next disc); the boundary and avoidance forces can hold it against a corner; a disc can stand in front of
a gap its sweep cannot pass. The papers leave these cases open. This module closes them:

- **Watching progress.** An agent makes progress when its reference point (MIRAN 3.1; for IRM the arc length of its
  corridor disc, IRM 4.3) or its attraction point moves forward along the route by at least ``eps``, or when it
  comes ``eps`` nearer to the same attraction point than it has been; ``eps`` is a tenth of a full step
  (0.1 vmax dt). "The same" is to within ``eps`` along the route: the end of a visibility interval (MIRAN 3.2)
  moves as x moves, by rounding (1e-10) or by creeping back a little each step, and an agent walking steadily at
  such a point was once taken for stalled (MIRAN Figure 7's sigma = 250 walker: its attraction point moved by
  1e-10 a step for 40 steps while it came 0.14 m nearer each step, and the recovery then walked 62 % of its path).
  An agent with no progress for ``stall_time`` seconds (at least 20 steps) is *stalled*.
- **Recovering: Theorem 1's own assumption.** A stalled agent walks straight at its attraction point, a full step
  at a time (the point is visible by Lemma 1, and for a disc sweepable: core.steering), and from there walks its
  route itself, vertex by vertex, until it stands ``vmax * stall_time / 2`` further along than where it stalled.
  Then the forces take over again from there, with its reference and attraction points moved up to where it
  stands; or as soon as its reference or attraction point has got that far while it walked (``passed_target``:
  IRM's attraction point moves ahead as the agent enters the next disc, so the agent may never reach it). Every
  stall thus moves the agent at least that far along a route of finite length: it arrives after finitely many,
  whatever the forces do in between.
- **Blocked.** Where a recovery step would leave the free space (a sketched route through an obstacle, a gap
  narrower than the disc), the agent becomes LOST with the reason BLOCKED, and the simulation replans its route
  from where it stands (MIRAN 3.5).

- **Counted.** The net is public: every agent counts the steps it walks (``walk_steps``), the steps of them the
  recovery walked (``rec_steps``) and its stalls (``stalls``), over its whole life (``count_step``, ``note_progress``).
  A method whose forces carry the walk keeps ``rec_steps`` at or near 0.

``pg`` is the agent state's ``ProgressArrays`` (core.sim.agent_arrays: lost_reason, prog_t, prog_s, prog_a,
prog_sa, prog_d, rec_s, rec_u, walk_steps, rec_steps, stalls).
"""

from __future__ import annotations

from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d
from core.routes.kernels import point_at_into, segment_of

# Progress is at least this fraction of a full step (vmax dt).
PROGRESS_FRACTION = 0.1
# The stall time is at least this many steps.
MIN_STALL_STEPS = 20
# Results of ``recovery_target``.
HEAD_FOR_ATTRACTION = 0
ON_THE_ROUTE = 1


@jit(noalloc=True)
def stall_time(g) -> float:
    """Seconds without progress after which an agent recovers: ``stall_time``, at least MIN_STALL_STEPS steps."""
    return max(g.stall_time, MIN_STALL_STEPS * g.dt)


@jit(noalloc=True)
def count_step(i, pg) -> None:
    """Count one step walked by agent i, as a recovery step when it is recovering (``rec_s`` >= 0 as the step
    begins)."""
    pg.walk_steps[i] += 1
    if pg.rec_s[i] >= 0.0:
        pg.rec_steps[i] += 1


@jit(noalloc=True)
def note_progress(i, g, vmax, t, x, attr, s_ref, s_attr, total, pg) -> bool:
    """Book agent i's progress at time t, standing at x; start its recovery when it has stalled. Returns True
    when the recovery starts."""
    prog_t, prog_s, prog_a, prog_sa, prog_d = pg.prog_t, pg.prog_s, pg.prog_a, pg.prog_sa, pg.prog_d
    rec_s, rec_u = pg.rec_s, pg.rec_u
    eps = PROGRESS_FRACTION * vmax * g.dt
    d = norm2d(attr[0] - x[0], attr[1] - x[1])
    shift = abs(s_attr - prog_sa[i])
    moved = False
    if s_ref > prog_s[i] + eps or s_attr > prog_a[i] + eps:
        moved = True
    elif shift > eps:
        # Another attraction point, not further on: measure the approach to it from here.
        prog_sa[i] = s_attr
        prog_d[i] = d
    elif d + shift < prog_d[i] - eps:
        # The same attraction point to within eps along the route (a visibility interval's end moves by rounding
        # or creeps as x moves; MIRAN 3.2): x came eps nearer to the point it was measured to, which lies within
        # ``shift`` of this one.
        moved = True
    if moved:
        prog_t[i] = t
        prog_s[i] = max(prog_s[i], s_ref)
        prog_a[i] = max(prog_a[i], s_attr)
        prog_sa[i] = s_attr
        prog_d[i] = d
        return False
    if t - prog_t[i] < stall_time(g):
        return False
    rec_s[i] = min(total, max(s_ref, s_attr) + 0.5 * vmax * stall_time(g))
    rec_u[i] = -1.0
    pg.stalls[i] += 1
    return True


@jit(noalloc=True)
def recovery_target(rp, rs, lo, hi, x, attr, s_attr, u, h, out) -> float:
    """Where a recovering agent at x steps next, at most h away, into ``out`` (2,); returns the route arc length
    of that point, or -1 while it is still heading for its attraction point ``attr`` (arc length ``s_attr``).

    Standing on the route at arc length u >= 0, it walks the route: to u + h, but never past the next route
    vertex, so that the step is a piece of the route itself (which a planned route keeps free)."""
    if u < 0.0:
        dx = attr[0] - x[0]
        dy = attr[1] - x[1]
        da = norm2d(dx, dy)
        if da <= h:
            out[0] = attr[0]
            out[1] = attr[1]
            return s_attr
        out[0] = x[0] + dx * (h / da)
        out[1] = x[1] + dy * (h / da)
        return -1.0
    total = rs[hi - 1]
    u1 = min(u + h, total)
    j = segment_of(rs, lo, hi, u)
    if rs[j + 1] > u and rs[j + 1] < u1:
        u1 = rs[j + 1]
    point_at_into(rp, rs, lo, hi, u1, out)
    return u1


@jit(noalloc=True)
def end_recovery(i, t, x, rp, rs, lo, hi, u, s_ref, s_attr, attr, pg) -> None:
    """Agent i stands at x on its route at arc length u, where its recovery ends: its reference and attraction points
    move up to u (never back), and its progress is booked from here."""
    if s_ref[i] < u:
        s_ref[i] = u
    if s_attr[i] < u:
        s_attr[i] = u
        point_at_into(rp, rs, lo, hi, u, attr[i])
    resume_forces(i, t, x, s_ref[i], s_attr[i], attr[i], pg)


@jit(noalloc=True)
def passed_target(i, s_ref, s_attr, pg) -> bool:
    """Whether recovering agent i, still heading for its attraction point, has its reference or attraction point
    at or past the arc length its recovery walks to: the attraction phase moved them on while it walked (IRM's
    attraction point moves ahead as the agent enters the next disc, so it may never reach one), and the recovery
    has done its work. Every stall still ends with max(s_ref, s_attr) at least ``0.5 vmax stall_time`` further on."""
    return pg.rec_s[i] >= 0.0 and pg.rec_u[i] < 0.0 and max(s_ref, s_attr) >= pg.rec_s[i]


@jit(noalloc=True)
def resume_forces(i, t, x, s_ref, s_attr, attr, pg) -> None:
    """End agent i's recovery at time t, standing at x with reference and attraction arc lengths s_ref and s_attr
    and attraction point ``attr`` (2,): the forces walk it on, and its progress is booked from here."""
    pg.rec_s[i] = -1.0
    pg.rec_u[i] = -1.0
    pg.prog_t[i] = t
    pg.prog_s[i] = s_ref
    pg.prog_a[i] = s_attr
    pg.prog_sa[i] = s_attr
    pg.prog_d[i] = norm2d(attr[0] - x[0], attr[1] - x[1])
