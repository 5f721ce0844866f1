"""The heap after a build (app.sim.heap): what survives is frozen out of the full collections, what is garbage is
collected, and frozen garbage waits for the next full settle, no longer."""

import gc
import weakref

import pytest

from app.sim import heap
from core.scene.io import load_scene

from sim_harness import SCENES, Harness


class Node:
    def __init__(self) -> None:
        self.me = self                    # a reference cycle: only the collector frees it


@pytest.fixture
def clean_heap():
    gc.unfreeze()
    heap._after_full[0] = 0
    yield
    gc.unfreeze()
    heap._after_full[0] = 0


def test_settle_collects_the_garbage_and_freezes_the_survivors(clean_heap):
    dead = Node()
    gone = weakref.ref(dead)
    del dead
    kept = Node()
    assert heap.settle() is True          # the first settle is a full one
    assert gone() is None
    assert gc.get_freeze_count() > 0
    assert not any(o is kept for o in gc.get_objects())   # frozen: no collection walks it

    young = Node()
    young_ref = weakref.ref(young)
    del young
    frozen_ref = weakref.ref(kept)
    del kept
    assert heap.settle() is False         # the frozen heap has not grown: only what is new is walked
    assert young_ref() is None            # new garbage is collected
    assert frozen_ref() is not None       # frozen garbage waits ...
    heap._after_full[0] = gc.get_freeze_count() // 2      # ... until the frozen heap has grown by REGROW
    assert heap.settle() is True
    assert frozen_ref() is None


def test_a_build_leaves_the_run_s_objects_frozen(clean_heap, jit_warm):
    h = Harness()
    try:
        h.send("load", load_scene(SCENES / "mckenna_road.json"))
        h.send("reset")
        h.wait(lambda h: "build" in h.latest, what="a build")
        frozen = gc.get_freeze_count()
        assert frozen > 10 * len(gc.get_objects(generation=2))
        sim = h.controller.sim
        assert not any(o is sim for o in gc.get_objects())
    finally:
        h.close()
