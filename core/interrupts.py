"""Ctrl+C (SIGINT) that ends a command cleanly, even while a numba kernel is being called.

Python runs a signal handler in the main thread at the next bytecode it executes. While a compiled kernel is called,
that bytecode can be numba's own Python code that its C dispatcher calls back (typing an argument it has no C fast
path for): a KeyboardInterrupt raised there is dropped by the dispatcher, which returns the kernel's result with the
exception still set, and CPython turns that into ``SystemError: CPUDispatcher(...) returned a result with an
exception set`` (its cause the KeyboardInterrupt).

``sigint_handler`` therefore defers an interrupt that lands in numba's or llvmlite's code: it asks again a few
milliseconds later (``_thread.interrupt_main``), so that the KeyboardInterrupt is raised in our own code, between
kernel calls. Dask distributed's code is deferred alike: an interrupt inside ``Client.submit`` left a Future half
built, whose ``__del__`` printed a traceback as the sweep exited (``'Future' object has no attribute '_client'``). A
deferral lasts at most MAX_DEFER_SECONDS (a cold compile runs in numba's Python code for minutes and must stay
interruptible); past it, and for whatever slips through, ``is_interrupt`` recognises the SystemError by its cause,
and the command line reports both as "interrupted" with exit status 130. A KeyboardInterrupt that numba's code
swallowed altogether is asked for again every REASK_SECONDS until the command has ended (seen as a ``miran route``
that ran on for minutes after Ctrl+C), or until the command says it caught it (``acknowledge``) and is ending on
purpose.
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time
from typing import Any, Callable

# The longest an interrupt waits for the main thread to leave numba's code.
MAX_DEFER_SECONDS = 1.0
# How long after a deferral the interrupt is asked again.
RETRY_SECONDS = 0.005
# How long a command may run on after its KeyboardInterrupt was raised before it is asked again: numba's C code
# can swallow an exception raised in a callback of its own, and the command would then run to its end.
REASK_SECONDS = 2.0
_DEFERRED_IN = tuple(os.sep + p + os.sep for p in ("numba", "llvmlite", "distributed"))


class _State:
    def __init__(self) -> None:
        self.count = 0
        self.first_deferred: float | None = None
        self.installed = False
        self.epoch = 0          # one per install and restore: a timer of an ended command never asks again


_state = _State()


def interrupted() -> bool:
    """Whether SIGINT arrived since ``install`` (whatever became of the KeyboardInterrupt)."""
    return _state.count > 0


def is_interrupt(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt or was caused by one (numba's SystemError, an error raised while one
    was being handled), following ``__cause__`` and ``__context__``."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt):
            return True
        todo += [e.__cause__, e.__context__]
    return False


def _in_kernel_machinery(frame: Any) -> bool:
    return frame is not None and any(p in frame.f_code.co_filename for p in _DEFERRED_IN)


_lock = threading.Lock()


def _retry(epoch: int) -> None:
    # a deferred interrupt, unless the command has ended (its handler restored) in the meantime
    with _lock:
        if _state.installed and _state.epoch == epoch:
            _thread.interrupt_main()


def _reask(epoch: int) -> None:
    # the command still runs after its KeyboardInterrupt: ask again, and again later, until it has ended
    with _lock:
        if (not _state.installed or _state.epoch != epoch
                or signal.getsignal(signal.SIGINT) is not sigint_handler):
            return
        _thread.interrupt_main()
    _later(REASK_SECONDS, _reask, epoch)


def _later(seconds: float, fn: Callable[[int], None], epoch: int | None = None) -> None:
    """Call ``fn(epoch)`` in ``seconds`` from a daemon thread (default: the epoch of the command running now)."""
    timer = threading.Timer(seconds, fn, (_state.epoch if epoch is None else epoch,))
    timer.daemon = True
    timer.start()


def acknowledge() -> None:
    """The running command has caught its KeyboardInterrupt and is ending on purpose (a sweep writing what finished
    and closing its cluster): the interrupt is not asked for again, which would cut that short after
    REASK_SECONDS. A further Ctrl+C still interrupts."""
    with _lock:
        _state.epoch += 1


def _absorb(signum: int, frame: Any) -> None:
    """A SIGINT still pending when the command has ended: it has been reported already."""


def sigint_handler(signum: int, frame: Any) -> None:
    """SIGINT: KeyboardInterrupt, deferred while the main thread runs numba's, llvmlite's or Dask distributed's code
    (see above)."""
    now = time.monotonic()
    if _in_kernel_machinery(frame):
        if _state.first_deferred is None:
            _state.first_deferred = now
        if now - _state.first_deferred < MAX_DEFER_SECONDS:
            _later(RETRY_SECONDS, _retry)
            return
    _state.first_deferred = None
    _state.count += 1
    if _state.count == 1:
        _later(REASK_SECONDS, _reask)
    raise KeyboardInterrupt


def install() -> Callable[[], None]:
    """Install ``sigint_handler`` for SIGINT in the main thread (where Python's default handler is installed);
    returns what restores the previous handler. Elsewhere (another thread, a handler of the caller's) a no-op."""
    _state.count = 0
    _state.first_deferred = None
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        return lambda: None
    signal.signal(signal.SIGINT, sigint_handler)
    with _lock:
        _state.installed = True
        _state.epoch += 1

    def restore() -> None:
        with _lock:
            _state.installed = False  # no deferred interrupt is asked again from now on
            _state.epoch += 1
        # one asked already is absorbed (signal.signal runs the pending handlers), not raised after the command
        signal.signal(signal.SIGINT, _absorb)
        signal.signal(signal.SIGINT, previous)

    return restore


__all__ = ["MAX_DEFER_SECONDS", "acknowledge", "install", "interrupted", "is_interrupt", "sigint_handler"]
