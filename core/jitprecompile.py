"""Compile the engine's kernels in several processes at once on a first start, into numba's on-disk cache.

numba compiles one function at a time per process (its global compiler lock), so a first start spent about four
minutes of one core. A manifest (``jit_manifest.json`` beside this module, written by ``packaging/jit_manifest.py``
from a run with an empty cache) lists every kernel specialisation the studio compiles: function, argument types
(pickled numba types) and the kernels it calls. ``precompile`` hands the entries missing from the cache to a pool of
worker processes, callees before their callers: each worker compiles one entry (its callees load from the cache,
written by the workers before it) and numba saves it; the parallel kernels and their callers are one task, compiled
in one worker. The studio's own warm-up then loads everything from the cache. An entry the code no longer has (a
kernel renamed, its argument types changed) is skipped and reported; the warm-up compiles what is missing, as
without a manifest.
"""

from __future__ import annotations

import base64
import concurrent.futures as cf
import heapq
import json
import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
from numba.core import dispatcher as nb_dispatcher
from numba.core import sigutils

from core.jitcache import KernelCache
from core.jitlink import kernel_at

MANIFEST = Path(__file__).with_name("jit_manifest.json")


@dataclass(frozen=True)
class Entry:
    """One specialisation: ``function`` as ``module:qualname``, its argument types (a pickled tuple of numba types,
    base64), their text for a reader, the indices of the entries it calls and the CPU seconds its own compilation
    took when recorded (without its callees')."""

    function: str
    signature: str
    text: str
    calls: tuple[int, ...]
    cpu_s: float


@dataclass
class Report:
    """What ``precompile`` did: entries compiled, found in the cache already, or skipped (with why)."""

    compiled: int = 0
    cached: int = 0
    skipped: list[str] = field(default_factory=list)
    grouped: int = 0  # compiled together in one worker: parallel kernels and their callers (``in_one_process``)
    workers: int = 0
    wall_s: float = 0.0
    worker_cpu_s: float = 0.0


# A specialisation while recording: the dispatcher and its argument types.
_Key = tuple[Any, tuple[Any, ...]]


def _function_name(d: Any) -> str:
    return f"{d.py_func.__module__}:{d.py_func.__qualname__}"


@contextmanager
def _hooked_compile(hook: Callable[[Callable[..., Any], Any, Any], Any]) -> Iterator[None]:
    """Inside the block, every ``Dispatcher.compile(self, sig)`` (a compile, or a load from numba's cache) runs as
    ``hook(original, self, sig)``."""
    original = nb_dispatcher.Dispatcher.compile
    nb_dispatcher.Dispatcher.compile = lambda self, sig: hook(original, self, sig)  # type: ignore[method-assign]
    try:
        yield
    finally:
        nb_dispatcher.Dispatcher.compile = original  # type: ignore[method-assign]


@contextmanager
def recording() -> Iterator[list[Entry]]:
    """Record every specialisation compiled (not loaded from the cache) inside the block, with the kernels it calls;
    the list fills when the block ends. For ``packaging/jit_manifest.py``: run it with an empty cache."""
    stack: list[tuple[list[_Key], list[float]]] = []  # per open compile: the kernels it calls, its callees' seconds
    compiled: dict[_Key, tuple[list[_Key], float]] = {}
    order: list[_Key] = []

    def compile_recorded(original: Callable[..., Any], self: Any, sig: Any) -> Any:
        args, _ = sigutils.normalize_signature(sig)
        key = (self, tuple(args))
        if stack:
            stack[-1][0].append(key)
        misses = self._cache_misses[sig]
        stack.append(([], [0.0]))
        t0 = time.process_time()
        try:
            result = original(self, sig)
        except BaseException:
            stack.pop()  # a failed attempt (numba may try argument types that do not type) is not listed
            raise
        calls, nested = stack.pop()
        took = time.process_time() - t0
        if self._cache_misses[sig] > misses and key not in compiled:
            compiled[key] = (calls, max(took - nested[0], 0.0))
            order.append(key)
            if stack:
                stack[-1][1][0] += took
        return result

    entries: list[Entry] = []
    with _hooked_compile(compile_recorded):
        yield entries
    kept = [k for k in order if isinstance(getattr(k[0], "_cache", None), KernelCache)
            and "<locals>" not in k[0].py_func.__qualname__]
    index = {k: i for i, k in enumerate(kept)}
    for d, args in kept:
        calls = tuple(sorted({index[c] for c in compiled[(d, args)][0] if c in index}))
        entries.append(Entry(_function_name(d), base64.b64encode(pickle.dumps(args)).decode("ascii"),
                             str(args), calls, round(compiled[(d, args)][1], 3)))


@contextmanager
def touching() -> Iterator[set[tuple[str, str]]]:
    """Every kernel specialisation this process compiles or loads from numba's cache inside the block, as
    (function, argument types' text): what a task needs, whatever the cache holds. The set fills as the block runs.
    Kernels loaded whole from the cache do not load their callees; ``closure`` adds them from a manifest."""
    seen: set[tuple[str, str]] = set()

    def compile_seen(original: Callable[..., Any], self: Any, sig: Any) -> Any:
        args, _ = sigutils.normalize_signature(sig)
        if isinstance(getattr(self, "_cache", None), KernelCache):
            seen.add((_function_name(self), str(tuple(args))))
        return original(self, sig)

    with _hooked_compile(compile_seen):
        yield seen


def closure(entries: list[Entry], roots: set[int]) -> set[int]:
    """``roots`` and every entry they call, directly or not."""
    out = set(roots)
    for i in range(len(entries) - 1, -1, -1):  # callees come before their callers: one pass downwards
        if i in out:
            out.update(entries[i].calls)
    return out


def write_manifest(entries: list[Entry], path: Path = MANIFEST, first_step: dict[str, list[int]] | None = None) -> None:
    """Write ``entries`` as the manifest JSON (with the numba version the pickled types belong to), and
    ``first_step``: per steering method, the entries the first step of a scene of that method needs (``touching``
    the warm-up for it, with their callees)."""
    doc = {"format": "miran-jit-manifest", "numba": numba.__version__,
           "first_step": {m: sorted(v) for m, v in (first_step or {}).items()},
           "entries": [{"function": e.function, "signature": e.signature, "text": e.text, "calls": list(e.calls),
                        "cpu_s": e.cpu_s} for e in entries]}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def _manifest_doc(path: Path) -> dict[str, Any]:
    """The manifest's JSON; empty when the file is missing or was written for another numba version (its pickled
    types would not load)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != "miran-jit-manifest" or doc.get("numba") != numba.__version__:
        return {}
    return doc


def load_manifest(path: Path = MANIFEST) -> list[Entry]:
    """The manifest's entries; none when the file is missing or was written for another numba version."""
    return [Entry(e["function"], e["signature"], e["text"], tuple(e["calls"]), float(e["cpu_s"]))
            for e in _manifest_doc(path).get("entries", [])]


def load_first_step(path: Path = MANIFEST) -> dict[str, set[int]]:
    """Per steering method, the indices of the entries a first step of a scene of that method needs."""
    return {m: set(v) for m, v in _manifest_doc(path).get("first_step", {}).items()}


def _resolve(entry: Entry) -> tuple[Any, tuple[Any, ...]]:
    """The dispatcher and argument types of ``entry``; raises LookupError when the code no longer has them."""
    module, _, qualname = entry.function.partition(":")
    obj = kernel_at(module, qualname)
    try:
        args = pickle.loads(base64.b64decode(entry.signature))
    except Exception as exc:  # a type numba no longer has
        raise LookupError(f"{entry.function}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(getattr(obj, "_cache", None), KernelCache):
        raise LookupError(f"{entry.function}: not a kernel of core.jitcache.jit")
    return obj, args


def is_cached(entry: Entry) -> bool:
    """Whether numba's cache holds ``entry`` under the current sources (its index has the key); raises LookupError
    when the entry no longer resolves."""
    d, args = _resolve(entry)
    cache: KernelCache = d._cache
    return cache.is_cached(args, d.targetctx.codegen())


def _compile_unit(unit: list[Entry]) -> list[tuple[bool, str, float]]:
    """In a worker: ``_compile_one`` for each entry of ``unit``, in order (callees first), in this one process."""
    return [_compile_one(e) for e in unit]


def _compile_one(entry: Entry) -> tuple[bool, str, float]:
    """In a worker: compile ``entry`` (numba saves it in the cache); (done, why not, CPU seconds)."""
    t0 = time.process_time()
    try:
        d, args = _resolve(entry)
        d.compile(args)
    except Exception as exc:  # a stale entry: numba's typing errors, LookupError; the warm-up compiles instead
        return False, f"{entry.function}{entry.text}: {type(exc).__name__}: {str(exc)[:300]}", \
            time.process_time() - t0
    return True, "", time.process_time() - t0


def default_workers() -> int:
    """Worker processes for ``precompile``: the cores, at most 8 (each worker holds numba and LLVM, ~300 MB)."""
    return max(1, min(os.cpu_count() or 1, 8))


def critical_path_s(entries: list[Entry]) -> float:
    """The longest chain of recorded compile seconds from a kernel down its callees: the wall time no number of
    workers can go below."""
    rank = _ranks(entries)
    return max(rank, default=0.0)


def _ranks(entries: list[Entry]) -> list[float]:
    """Each entry's own seconds plus the longest chain of its callees' (entries come callees first)."""
    rank = [0.0] * len(entries)
    for i, e in enumerate(entries):
        rank[i] = e.cpu_s + max((rank[c] for c in e.calls if c < i), default=0.0)
    return rank


def _upward_ranks(entries: list[Entry]) -> list[float]:
    """Each entry's own seconds plus the longest chain of its callers' above it: start first what most delays the
    kernels waiting on it."""
    rank = [e.cpu_s for e in entries]
    for i in range(len(entries) - 1, -1, -1):
        for c in entries[i].calls:
            if c < i:
                rank[c] = max(rank[c], entries[c].cpu_s + rank[i])
    return rank


def in_one_process(entries: list[Entry]) -> set[int]:
    """The entries that must be compiled in one process: kernels compiled with ``parallel=True`` and every kernel
    that calls one, directly or not. A step kernel compiled in a worker around parallel callees that another worker
    had compiled (it loaded them from the cache) crashed when the studio ran it (the city's first start,
    2026-11-26); compiled in the same process as its parallel callees, it runs. ``precompile`` gives them to one
    worker as one task."""
    local: set[int] = set()
    for i, e in enumerate(entries):  # callees come first, so one pass follows the calls transitively
        try:
            d, _ = _resolve(e)
        except LookupError:
            continue
        if d.targetoptions.get("parallel") or any(c in local for c in e.calls):
            local.add(i)
    return local


def _lower_priority() -> None:
    """A pool worker's initialiser for a compile in the background: leave the cores to what the user does."""
    try:
        os.nice(10)
    except OSError:
        pass


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """End a pool's worker processes now, mid-compile (what numba had not written to its cache is lost), and wait
    for them to go."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)  # no task starts after this one
    for proc in procs:
        proc.kill()  # a worker may be deep in LLVM, or have a handler for SIGTERM of its own
    for proc in procs:
        proc.join(5.0)
    if manager is not None:
        manager.join(5.0)  # it finds the pool broken and ends what is left of it


def precompile(entries: list[Entry], workers: int | None = None,
               progress: Callable[[int, int], None] | None = None, only: set[int] | None = None,
               background: bool = False, stop: threading.Event | None = None) -> Report:
    """Compile the entries missing from numba's cache in ``workers`` processes (``default_workers()``), callees
    before callers and never two specialisations of one function at once; those ``in_one_process`` together, in
    one worker, as one task; ``progress(done, total)`` after each task. ``only``: just these entries and their
    callees. ``background``: the workers run at a lower priority. ``stop``: when set, the workers are ended and
    the call returns (the app closing while it compiles in the background)."""
    t0 = time.perf_counter()
    report = Report()
    todo: set[int] = set()
    wanted = closure(entries, only) if only is not None else None
    for i, e in enumerate(entries):
        if wanted is not None and i not in wanted:
            continue
        try:
            if is_cached(e):
                report.cached += 1
            else:
                todo.add(i)
        except LookupError as exc:
            report.skipped.append(str(exc))
    # One task per entry, but one task for all of in_one_process (a unit keyed by its first entry), so that a
    # parallel kernel and its callers are compiled in the same worker.
    group = in_one_process(entries) & todo
    report.grouped = len(group)
    first = min(group, default=-1)
    unit_of = {i: (first if i in group else i) for i in todo}
    members: dict[int, list[int]] = {}
    for i in sorted(todo):
        members.setdefault(unit_of[i], []).append(i)
    if not todo:
        return report
    workers = min(workers or default_workers(), len(members))
    report.workers = workers
    upward = _upward_ranks(entries)
    rank = {u: (sum(entries[i].cpu_s for i in m) if len(m) > 1 else upward[u]) for u, m in members.items()}
    waiting = {u: {unit_of[c] for i in m for c in entries[i].calls if c in todo} - {u} for u, m in members.items()}
    callers: dict[int, list[int]] = {u: [] for u in members}
    for u, w in waiting.items():
        for c in w:
            callers[c].append(u)
    ready = [(-rank[u], u) for u in members if not waiting[u]]
    heapq.heapify(ready)
    held: list[tuple[float, int]] = []
    running_fn: set[str] = set()
    done = 0
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_lower_priority if background else None) as pool:
        running: dict[cf.Future[list[tuple[bool, str, float]]], int] = {}

        def submit() -> None:
            while ready and len(running) < workers:
                r, u = heapq.heappop(ready)
                names = {entries[i].function for i in members[u]}
                if names & running_fn:
                    held.append((r, u))
                    continue
                running_fn.update(names)
                running[pool.submit(_compile_unit, [entries[i] for i in members[u]])] = u
            for h in held:
                heapq.heappush(ready, h)
            held.clear()

        submit()
        while running:
            finished, _ = cf.wait(running, timeout=None if stop is None else 0.25, return_when=cf.FIRST_COMPLETED)
            if stop is not None and stop.is_set():
                _stop_workers(pool)
                break
            for fut in finished:
                u = running.pop(fut)
                running_fn.difference_update(entries[i].function for i in members[u])
                for ok, why, cpu in fut.result():
                    report.worker_cpu_s += cpu
                    if ok:
                        report.compiled += 1
                    else:
                        report.skipped.append(why)
                done += len(members[u])
                for p in callers[u]:
                    waiting[p].discard(u)
                    if not waiting[p]:
                        heapq.heappush(ready, (-rank[p], p))
                if progress is not None:
                    progress(done, len(todo))
            submit()
    report.wall_s = time.perf_counter() - t0
    return report
