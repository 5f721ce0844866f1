"""Triangle's constrained triangulations, run in a helper process when a window's background thread asks for a large
one.

The ``triangle`` binding holds the interpreter's lock for the whole of a call. When a live edit is prepared on a
background thread of the app, the ``cdt`` planner's clearance meshes of the changed city are refined anew: four
calls of 30 to 37 ms on about 4,350 vertices, during which neither the engine's thread nor the window's could run
Python, and the window dropped frames. A process that asks for it (``offload(True)``; the app does) runs such calls
of at least ``MIN_VERTICES`` input vertices, made from any thread but the main one, in one helper process, while
the calling thread waits without the lock. The helper runs the same library on the same input, so the output is the
same. An exception of the triangulation itself comes back as it would here; a helper that cannot start or dies
makes this call and every later one run here instead.

This module imports nothing of the engine: it is all a helper process loads.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing
import os
import pickle
import threading
import time

import triangle as tr

MIN_VERTICES = 1000     # smaller inputs triangulate in about a millisecond: not worth the round trip
PARENT_POLL_S = 1.0     # how often the helper looks whether its parent is still there

_LOCK = threading.Lock()
_STATE: dict = {"on": False, "pool": None, "offloaded": 0}


def triangulate(pslg: dict, opts: str) -> dict:
    """``triangle.triangulate(pslg, opts)``, in the helper process when offloading is on, the calling thread is not
    the main one and the input has at least MIN_VERTICES vertices."""
    if _STATE["on"] and threading.current_thread() is not threading.main_thread() and \
            len(pslg["vertices"]) >= MIN_VERTICES:
        out = _in_helper(pslg, opts)
        if out is not None:
            return out
    return tr.triangulate(pslg, opts)


def offload(on: bool) -> None:
    """Run large triangulations asked for off the main thread in a helper process from now on (True: the helper
    starts now, in the background, so that the first such triangulation does not wait for it), or here (False:
    the helper, if any, is stopped)."""
    with _LOCK:
        _STATE["on"] = bool(on)
    if on:
        _submit(_ready)
    else:
        _stop()


def offloaded() -> int:
    """How many triangulations the helper process has made."""
    return int(_STATE["offloaded"])


def _in_helper(pslg: dict, opts: str) -> dict | None:
    """The triangulation made by the helper; None when the helper failed (the caller then makes it)."""
    future = _submit(tr.triangulate, pslg, opts)
    if future is None:
        return None
    try:
        out = future.result()
    except (cf.process.BrokenProcessPool, cf.CancelledError, pickle.PicklingError):
        _give_up()      # the helper died, or was stopped (offloading off, the process exiting)
        return None
    with _LOCK:
        _STATE["offloaded"] += 1
    return out


def _submit(fn, *args) -> cf.Future | None:
    """``fn(*args)`` sent to the helper (started if need be); None when offloading is off or the helper failed."""
    pool = _pool()
    if pool is None:
        return None
    try:
        return pool.submit(fn, *args)
    except (cf.process.BrokenProcessPool, RuntimeError, OSError, pickle.PicklingError):
        _give_up()
        return None


def _ready() -> bool:
    """What the helper runs first: importing this module (and triangle) is its start."""
    return True


def _pool() -> cf.ProcessPoolExecutor | None:
    with _LOCK:
        if _STATE["pool"] is None and _STATE["on"]:
            try:
                _STATE["pool"] = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                        initializer=_watch_parent, initargs=(os.getpid(),))
            except (OSError, ValueError):
                _STATE["on"] = False
        return _STATE["pool"]


def _watch_parent(parent: int) -> None:
    """In the helper: end it when the process that started it is gone (killed, crashed), so that no helper is
    left behind."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _give_up() -> None:
    """The helper failed: triangulate here from now on."""
    with _LOCK:
        _STATE["on"] = False
    _stop()


def _stop() -> None:
    with _LOCK:
        pool, _STATE["pool"] = _STATE["pool"], None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


atexit.register(_stop)
