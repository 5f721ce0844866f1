"""Keep numba's on-disk cache of the steering and simulation kernels consistent with the kernels they call.

numba's ``cache=True`` re-validates a cached function against its own source file only: when a kernel it calls in
another file changes (a navmesh walk, a route kernel, a steering function), the stale machine code is still
loaded. ``refresh()`` stamps the sources of every kernel file these packages compile against and, when the stamp
changes, removes the cached code of the dependent packages (core.steering, core.sim, core.export) so numba
compiles them afresh. It runs once per process, before any of those kernels is first called.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_CORE = Path(__file__).resolve().parent
# Files whose compiled code other kernels inline: a change in any of them stales the dependents' caches.
_SOURCES = ("navmesh/kernels", "routes/kernels.py", "steering", "sim", "export")
# Packages whose cached kernels call across files.
_DEPENDENTS = ("steering", "sim", "export")
_done = False


def _stamp() -> str:
    h = hashlib.sha1()
    for rel in _SOURCES:
        p = _CORE / rel
        files = sorted(p.glob("*.py")) if p.is_dir() else [p]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            h.update(f"{f.relative_to(_CORE)}:{st.st_mtime_ns}:{st.st_size}\n".encode())
    return h.hexdigest()


def refresh() -> None:
    """Drop the dependents' cached kernels if any kernel source changed since they were cached."""
    global _done
    if _done:
        return
    _done = True
    stamp = _stamp()
    marker = _CORE / "__pycache__" / "jit-sources.stamp"
    try:
        if marker.read_text() == stamp:
            return
    except OSError:
        pass
    try:
        for pkg in _DEPENDENTS:
            cache = _CORE / pkg / "__pycache__"
            for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                f.unlink(missing_ok=True)
        marker.parent.mkdir(exist_ok=True)
        marker.write_text(stamp)
    except OSError:
        return
