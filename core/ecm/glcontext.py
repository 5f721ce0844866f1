"""One headless OpenGL context for the GVD, created on first use and shared (moderngl standalone context).

The default platform is tried first (a desktop with a display), then EGL (servers, CI, this project's software
OpenGL through Mesa's llvmpipe). Loading the driver is the slow part (about 0.7 s for llvmpipe), so the context is
kept for the life of the process; renders hold ``LOCK`` and make the context current in the calling thread.
"""

from __future__ import annotations

import threading
import time

from core.scene.problems import InputError, Problem

LOCK = threading.RLock()
_CONTEXT = None
_CREATE_SECONDS = 0.0

INSTALL_HINT = (
    "install an OpenGL 3.3 driver with EGL, e.g. on Debian/Ubuntu `apt install libegl1 libgl1-mesa-dri` "
    "(Mesa's software renderer llvmpipe is enough), or run on a machine with a GPU driver"
)


class GLUnavailableError(InputError):
    """No OpenGL context could be created; the message says what was tried and what to install."""

    def __init__(self, reasons: list[str]):
        super().__init__([Problem("opengl", "could not create an OpenGL context (" + "; ".join(reasons) + "); "
                                  + INSTALL_HINT)])


def _create():
    import moderngl

    reasons = []
    for backend in (None, "egl"):
        try:
            if backend is None:
                ctx = moderngl.create_standalone_context(require=330)
            else:
                ctx = moderngl.create_standalone_context(require=330, backend=backend)
            return ctx
        except Exception as e:  # noqa: BLE001 - every driver failure means "try the next backend"
            why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            reasons.append(f"{backend or 'default'}: {why}")
    raise GLUnavailableError(reasons)


def get_context():
    """The shared moderngl context (created on first call; raises GLUnavailableError where none can be made)."""
    global _CONTEXT, _CREATE_SECONDS
    with LOCK:
        if _CONTEXT is None:
            t = time.perf_counter()
            _CONTEXT = _create()
            _CREATE_SECONDS = time.perf_counter() - t
        return _CONTEXT


def creation_seconds() -> float:
    """How long creating the shared context took (0 before it exists)."""
    return _CREATE_SECONDS


def renderer() -> str:
    """The OpenGL renderer string of the shared context (e.g. ``llvmpipe (LLVM 15.0.6, 256 bits)``)."""
    return str(get_context().info.get("GL_RENDERER", "unknown"))
