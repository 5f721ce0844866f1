"""Test tiers, marked by what a test does (docs: Development, tests), in the test's own file:

- ``subprocess``: starts another process (a fresh interpreter, a ``miran`` command, a worker pool);
- ``cluster``: starts a Dask cluster (whose workers are processes too);
- ``cold_cache``: compiles kernels in a process whose numba cache starts empty;
- ``corpus``: runs a generated corpus of hostile inputs, one process a case;
- ``fuzz``: a hypothesis search over generated inputs;
- ``experiment``: reruns a paper's experiment;
- ``crowd``: steps crowds of thousands of characters, or long runs;
- ``soak``: a long scripted sequence of user actions in the app;
- ``heavy``: an exact reference computed over whole scenes in this process;
- ``perf``: times the engine or the event loop.

``slow`` is any of the kinds above but ``perf``; ``gui`` is everything under tests/app (a Qt application). After
each test, a check fails a test that started a process, a Dask cluster or a compilation on an empty cache without
the mark that says so: the marks stay true without a hand-kept list.

CI runs every tier; the everyday tier is ``-m "not slow and not gui and not perf"``. ``MIRAN_TEST_FULL=1`` runs the
fuzzing, the soak and the Ctrl+C trials at full size (tests/ci_size.py; docs: Development, tests).
"""

from __future__ import annotations

import multiprocessing.process
import os
import platform
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
pytest_plugins = ["pytester"]

# Kind -> what it means (pyproject.toml declares the same markers).
SLOW_KINDS = ("subprocess", "cluster", "cold_cache", "corpus", "fuzz", "experiment", "crowd", "soak", "heavy")
# The kinds that start processes of their own.
PROCESS_KINDS = {"subprocess", "cluster", "cold_cache", "corpus"}

_started: list[tuple[str, str]] = []  # (kind, what) of each process the running test started


def _numba_cache_is_empty(env: dict | None) -> bool:
    folder = (env or os.environ).get("NUMBA_CACHE_DIR")
    return bool(folder) and (not os.path.isdir(folder) or not any(Path(folder).rglob("*.nbc")))


# platform.processor() runs `uname -p` once a process and caches it: run it here, before the check is installed,
# so that a test which reads the machine's description does not count as starting a process.
platform.processor()
_popen_init = subprocess.Popen.__init__


# Quick tools a test may run to learn about the machine or the checkout (milliseconds, no interpreter, no kernels),
# and fontconfig's font list, which matplotlib runs once per machine to build its font cache.
QUICK_TOOLS = {"git", "uname", "nvidia-smi", "lscpu", "ldconfig", "fc-list"}


def _program(args) -> str:  # type: ignore[no-untyped-def]
    first = args if isinstance(args, (str, bytes, os.PathLike)) else (list(args) or [""])[0]
    return Path(os.fsdecode(first).split()[0] if isinstance(first, (str, bytes)) else os.fsdecode(first)).name


def _recording_popen_init(self, args, *a, **k):  # type: ignore[no-untyped-def]
    if _program(args) in QUICK_TOOLS:
        _popen_init(self, args, *a, **k)
        return
    env = k.get("env")
    _started.append(("cold_cache" if _numba_cache_is_empty(env) else "subprocess", str(args)[:120]))
    _popen_init(self, args, *a, **k)


_process_start = multiprocessing.process.BaseProcess.start


def _recording_process_start(self):  # type: ignore[no-untyped-def]
    target = getattr(self, "_target", None)
    module = getattr(target, "__module__", "") or ""
    _started.append(("cluster" if module.startswith("distributed") else "subprocess", f"{module}.{self.name}"))
    _process_start(self)


subprocess.Popen.__init__ = _recording_popen_init  # type: ignore[method-assign]
multiprocessing.process.BaseProcess.start = _recording_process_start  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """With several xdist workers (``-n``), compile the manifest's kernels once, in one process per core, before
    the workers start (as the studio does on a first start): otherwise every worker compiles the same kernels at the
    same time. A no-op with a filled cache."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(session.config.option, "numprocesses", None):
        return
    from app.sim.warmup import compile_in_parallel

    report = compile_in_parallel()
    if report is not None and report.compiled:
        print(f"\nkernels: {report.compiled} compiled in {report.workers} processes in {report.wall_s:.0f} s "
              f"({report.worker_cpu_s:.0f} s CPU), {report.grouped} of them the parallel step's, in one")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        rel = Path(str(item.path)).resolve().relative_to(HERE).as_posix()
        if rel.startswith("app/"):
            item.add_marker(pytest.mark.gui)
        if any(item.get_closest_marker(k) for k in SLOW_KINDS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _marked_by_what_it_does(request: pytest.FixtureRequest):
    """Fail a test that starts a process, a cluster or a cold compilation without the mark that says so."""
    _started.clear()
    yield
    marks = {m.name for m in request.node.iter_markers()}
    for kind, what in _started:
        if kind == "cluster" and "cluster" not in marks:
            pytest.fail(f"started a Dask cluster ({what}) but is not marked @pytest.mark.cluster", pytrace=False)
        if kind == "cold_cache" and "cold_cache" not in marks:
            pytest.fail(f"compiles on an empty numba cache ({what}) but is not marked @pytest.mark.cold_cache",
                        pytrace=False)
        if not marks & PROCESS_KINDS:
            pytest.fail(f"started a process ({what}) but is not marked @pytest.mark.subprocess (or cluster, "
                        "cold_cache, corpus)", pytrace=False)
