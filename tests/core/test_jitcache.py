"""core.jitcache: the cache key covers the kernels and constants a kernel uses across files and nothing else,
NUMBA_CACHE_DIR is honoured and laid out by package path, versions coexist, a read-only shipped cache is used, and
processes that start together on an empty cache all get correct kernels.

Each check runs fresh interpreters on a small package written to a temporary directory, so it sees exactly what a
new process sees: numba's cache on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.jitcache import KEPT_VERSIONS

HELPER = """
from core.jitcache import jit

OFFSET = {offset}

@jit(inline=True, noalloc=True)
def bump(x):
    return x + OFFSET
"""

CALLER = """
from core.jitcache import jit
from pkgx.helper import bump
import pkgx.unrelated  # a pure-Python module imported beside the kernel: not part of its key

@jit
def twice(x):
    return 2 * bump(x)
"""

PROBE = """
import json, sys
import pkgx.caller as c
value = c.twice(1)
hits = sum(c.twice.stats.cache_hits.values())
misses = sum(c.twice.stats.cache_misses.values())
from core.jitcache import kernel_stamp
print(json.dumps({"value": int(value), "hits": hits, "misses": misses, "stamp": kernel_stamp(c.twice)}))
"""


def _package(tmp: Path, offset: int = 1) -> None:
    pkg = tmp / "pkgx"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(textwrap.dedent(HELPER.format(offset=offset)))
    (pkg / "caller.py").write_text(textwrap.dedent(CALLER))
    (pkg / "unrelated.py").write_text("X = 1\n\ndef message():\n    return 'a message'\n")


def _env(tmp: Path, cache: Path | None = None, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), str(Path(__file__).resolve().parents[2])])
    env["NUMBA_CACHE_DIR"] = str(cache or tmp / "cache")
    env.pop("MIRAN_SHIPPED_KERNELS", None)
    env.update(extra)
    return env


def _probe(tmp: Path, cache: Path | None = None, **extra: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], env=_env(tmp, cache, **extra), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_change_in_a_called_kernels_file_recompiles_the_caller(tmp_path):
    _package(tmp_path, offset=1)
    first = _probe(tmp_path)
    assert first["value"] == 4 and first["misses"] == 1 and first["hits"] == 0
    again = _probe(tmp_path)
    assert again["value"] == 4 and again["hits"] == 1 and again["misses"] == 0, "the cached code is reused"
    # numba's own per-file stamp would keep the inlined OFFSET = 1 here and answer 4.
    (tmp_path / "pkgx" / "helper.py").write_text(textwrap.dedent(HELPER.format(offset=5)))
    changed = _probe(tmp_path)
    assert changed["value"] == 12 and changed["misses"] == 1 and changed["stamp"] != first["stamp"]
    # A pure-Python module the kernel's file imports is not part of the key, nor are lines above the kernel.
    (tmp_path / "pkgx" / "unrelated.py").write_text("X = 2\n\ndef message():\n    return 'another message'\n")
    assert _probe(tmp_path)["hits"] == 1
    caller = tmp_path / "pkgx" / "caller.py"
    caller.write_text('"""A docstring added above."""\n\n\n' + caller.read_text())
    assert _probe(tmp_path)["hits"] == 1
    # The same bytes back give the same key: the entry written for them is valid again (content, not mtime).
    (tmp_path / "pkgx" / "helper.py").write_text(textwrap.dedent(HELPER.format(offset=1)))
    back = _probe(tmp_path)
    assert back["value"] == 4 and back["stamp"] == first["stamp"]


def test_the_cache_lives_in_numba_cache_dir_and_nothing_is_left_half_written(tmp_path):
    _package(tmp_path)
    _probe(tmp_path)
    cached = list((tmp_path / "cache").rglob("*"))
    assert any(p.suffix == ".nbc" for p in cached)
    # Laid out by the module's path in its package, not by the checkout's absolute path: checkouts share it.
    assert {p.parent.relative_to(tmp_path / "cache").as_posix() for p in cached if p.is_file()} == {"pkgx"}
    assert not list((tmp_path / "pkgx").rglob("*.nb[ic]")), "nothing cached beside the sources"
    assert not [p for p in cached if ".tmp." in p.name]


@pytest.mark.parametrize("n", [4])
def test_processes_starting_together_on_an_empty_cache_all_succeed(tmp_path, n):
    _package(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", PROBE], env=_env(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["value"] for r in results] == [4] * n
    assert len({r["stamp"] for r in results}) == 1
    assert not [p for p in (tmp_path / "cache").rglob("*") if ".tmp." in p.name]
    # Whatever order they wrote in, the index and data left behind are whole: a new process loads them.
    later = _probe(tmp_path)
    assert later["value"] == 4 and later["hits"] == 1 and later["misses"] == 0


def test_a_copy_of_the_package_elsewhere_loads_the_same_entries(tmp_path):
    _package(tmp_path / "a")
    shared = tmp_path / "cache"
    assert _probe(tmp_path / "a", shared)["misses"] == 1
    _package(tmp_path / "b")
    assert _probe(tmp_path / "b", shared)["hits"] == 1


def test_two_versions_stay_side_by_side_and_old_ones_are_pruned(tmp_path):
    _package(tmp_path, offset=1)
    _probe(tmp_path)
    _package(tmp_path, offset=2)
    _probe(tmp_path)
    _package(tmp_path, offset=1)
    back = _probe(tmp_path)
    assert back["hits"] == 1 and back["value"] == 4, "switching back to the first version compiles nothing"
    for offset in range(3, 3 + KEPT_VERSIONS + 2):
        _package(tmp_path, offset=offset)
        _probe(tmp_path)
    entries = list((tmp_path / "cache").rglob("caller.twice*.nbc"))
    assert len(entries) == KEPT_VERSIONS


def test_a_read_only_shipped_cache_is_used_and_left_untouched(tmp_path):
    _package(tmp_path)
    shipped = tmp_path / "shipped"
    assert _probe(tmp_path, shipped)["misses"] == 1
    before = sorted((p.name, p.stat().st_mtime_ns) for p in shipped.rglob("*") if p.is_file())
    for p in shipped.rglob("*"):
        p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        user = tmp_path / "user"
        got = _probe(tmp_path, user, MIRAN_SHIPPED_KERNELS=str(shipped))
        assert got["hits"] == 1 and got["misses"] == 0 and got["value"] == 4
        assert not [p for p in user.rglob("*") if p.is_file()], "nothing compiled into the user's cache"
        assert sorted((p.name, p.stat().st_mtime_ns) for p in shipped.rglob("*") if p.is_file()) == before
    finally:
        for p in shipped.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)


TWO_KINDS = """
import json, sys
import pkgx.caller as c
x = 1 if sys.argv[1] == "int" else 1.5
print(json.dumps({"value": float(c.twice(x))}))
"""


def test_two_specialisations_compiled_at_once_never_swap_their_code(tmp_path):
    # numba's numbered data files let two processes compiling two specialisations of one kernel write one's code
    # under the other's name; a call then ran the wrong machine code (a segmentation fault in the step kernels).
    _package(tmp_path)
    env = _env(tmp_path)
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", TWO_KINDS, kind], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for kind in ("int", "float", "int", "float")]
        for p in procs:
            out, err = p.communicate(timeout=600)
            assert p.returncode == 0, err
    for kind, want in (("int", 4.0), ("float", 5.0)):
        out = subprocess.run([sys.executable, "-c", TWO_KINDS, kind], env=env, capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.strip().splitlines()[-1])["value"] == want
