"""numba kernels of the navigation mesh (``@njit(cache=True, nogil=True)``), callable from other njit code.

- ``predicates``: exact orientation sign.
- ``walk``: the straight-line triangle walk (``walk_start``, ``walk_step``) and point location (``locate_free``,
  ``locate_any``, ``locate_batch``).
- ``segments``: visibility, terrain lengths and weighted cost of segments, polylines and candidate fans.
- ``clearance``: distance to the nearest obstacle edge (points, segments, polylines).
- ``visibility``: visible intervals of a route window (MIRAN 2013, 3.2) by an exact triangle expansion.
- ``shadows``: the same from the shadows of the obstacle edges (faster; defers to ``visibility`` where the
  floating-point geometry is ill-conditioned), single and packed-route batch.
- ``disc``: traversal cost of a sweeping disc (Kremyzas 2014, ch. 3).
- ``grids``: building the location and edge grids.

Walk kernels take ``*mesh.kernel_args()`` = (V, T, N, TT, B, G, S) first; clearance kernels take
``*mesh.clearance_args()`` = (E, EG, ES, EI). See ``walk`` and ``clearance`` for the arrays.
"""

import hashlib
from pathlib import Path


def _refresh_cache() -> None:
    """Drop this package's cached machine code when any of its sources changed since it was cached.

    numba's ``cache=True`` checks a function against its own file only, but these kernels inline each other across
    files (segments -> walk -> predicates): after an edit of walk.py, segments.py's cached code would be stale.
    A stamp of all the package's sources (mtime and size) guards the whole cache directory at import time."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for f in sorted(here.glob("*.py")):
        try:
            st = f.stat()
        except OSError:
            continue
        h.update(f"{f.name}:{st.st_mtime_ns}:{st.st_size}\n".encode())
    stamp = h.hexdigest()
    cache = here / "__pycache__"
    marker = cache / "navmesh-kernels.stamp"
    try:
        if marker.read_text() == stamp:
            return
    except OSError:
        pass
    try:
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        marker.write_text(stamp)
    except OSError:
        return


_refresh_cache()
