"""Python's heap after a build: what survives is frozen out of the garbage collector's full collections.

A full collection walks every object the collector tracks while it holds the GIL, and so stops every thread of the
app: the window drops frames while one runs on the thread preparing a live edit (the decision record of
2026-11-30 has the figures). Almost all of those objects are the app's own (modules, numba's compiled kernels, Qt's
wrappers) and the open document's, and live as long as they do. ``settle`` runs at the end of a build, a moment the
user waits anyway: it collects, then freezes the survivors (``gc.freeze``), so that the full collections during the
run walk only what was made since.

Objects frozen that become garbage in a cycle (a closed document's) wait for a settle that unfreezes everything and
collects it all: the first, and every one after the frozen heap has grown by ``REGROW`` since the last of them.
"""

from __future__ import annotations

import gc

# Growth of the frozen heap, as a share of its size after the last full settle, that makes the next settle full.
REGROW = 0.5

_after_full = [0]


def settle() -> bool:
    """Collect the garbage and freeze what survives; True when this collection was a full one (everything
    unfrozen first), False when it walked only the objects made since the last settle."""
    full = gc.get_freeze_count() == 0 or gc.get_freeze_count() > (1.0 + REGROW) * _after_full[0]
    if full:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    if full:
        _after_full[0] = gc.get_freeze_count()
    return full
