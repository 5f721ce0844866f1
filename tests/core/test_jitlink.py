"""core.jitlink: a kernel calls a shared kernel's loaded code instead of a linked copy of it (and still links a copy
of any other), a cached caller loads its callees first, and a callee compiled afresh since (another symbol) makes
the caller compile again rather than call a symbol that does not exist.

Each check runs fresh interpreters on a small package in a temporary directory, as test_jitcache does: what a new
process finds in numba's cache on disk is the point."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kernel_probe import kernel_package, run_probe

pytestmark = pytest.mark.cold_cache

KERNELS = """
import numpy as np
from numba import prange
from core.jitcache import jit

@jit(shared=True)
def weigh(a, s):
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i] * s
    return t

@jit
def total(a):
    return a.sum()

@jit
def weigh_plus_one(a):
    return weigh(a, 2.0) + 1.0 + 0.0 * total(a)

@jit(shared=True)
def ones_total(n):
    return np.ones(n).sum()

@jit(noalloc=True)
def ones_twice(n):
    return 2.0 * ones_total(n)

@jit(parallel=True)
def weigh_each(a, out):
    for j in prange(out.shape[0]):
        out[j] = weigh(a, float(j))
"""

PROBE = """
import json, sys
import numpy as np
import pkgj.kernels as k
from core.jitlink import calls_of
a = np.arange(5.0)
out = np.zeros(4)
first = sys.argv[1]
# A kernel that cannot allocate calls a shared one that does, compiled first from it: the shared kernel keeps its
# reference counting (numba would otherwise compile it without, as its caller is).
twice = k.ones_twice(4)
if first == "parallel":
    k.weigh_each(a, out)
    plus = k.weigh_plus_one(a)
else:
    plus = k.weigh_plus_one(a)
    k.weigh_each(a, out)
def stats(d):
    return {"hits": sum(d.stats.cache_hits.values()), "misses": sum(d.stats.cache_misses.values())}
weigh = next(iter(k.weigh.overloads.values())).fndesc.mangled_name
# Only compiled (not loaded: its copy is inside its caller's cached code) in a process that compiles its caller.
total = next((c.fndesc.mangled_name for c in k.total.overloads.values()), "")
plus_lib = next(iter(k.weigh_plus_one.overloads.values())).library
each_lib = next(iter(k.weigh_each.overloads.values())).library
print(json.dumps({
    "plus": plus, "each": out.tolist(), "twice": twice,
    "weigh": stats(k.weigh), "weigh_plus_one": stats(k.weigh_plus_one), "weigh_each": stats(k.weigh_each),
    "plus_calls": sorted(calls_of(plus_lib)), "each_calls": sorted(calls_of(each_lib)),
    "weigh_symbol": weigh, "total_symbol": total,
    "plus_ir": plus_lib.get_llvm_str() if stats(k.weigh_plus_one)["misses"] else "",
}))
"""


def _probe(tmp: Path, first: str) -> dict:
    return run_probe(tmp, PROBE, first)


def test_callers_call_the_callees_loaded_code_and_load_it_first_from_the_cache(tmp_path):
    kernel_package(tmp_path, "pkgj", textwrap.dedent(KERNELS))
    expected = {"plus": 21.0, "each": [0.0, 10.0, 20.0, 30.0], "twice": 8.0}

    cold = _probe(tmp_path, "plain")
    assert {k: cold[k] for k in expected} == expected
    symbol = cold["weigh_symbol"]
    # The caller's module declares the callee and holds no copy of its body; both callers record the call, the
    # parallel one through the body of its parallel loop (a library linked into it).
    assert f"declare i32 @{symbol}(" in cold["plus_ir"] and f"define linkonce_odr i32 @{symbol}(" not in cold["plus_ir"]
    # A kernel not marked shared is linked as numba links it: a copy LLVM may inline.
    assert f"declare i32 @{cold['total_symbol']}(" not in cold["plus_ir"]
    assert cold["plus_calls"] == [symbol] and cold["each_calls"] == [symbol]

    # A fresh process that asks for a caller first loads the callee from the cache before it, under the same symbol.
    for first in ("plain", "parallel"):
        warm = _probe(tmp_path, first)
        assert {k: warm[k] for k in expected} == expected
        assert warm["weigh_symbol"] == symbol
        for name in ("weigh", "weigh_plus_one", "weigh_each"):
            assert warm[name] == {"hits": 1, "misses": 0}, (first, name, warm[name])

    # The callee's entry gone: it is compiled afresh under another symbol (numba numbers a process's functions in
    # the order it compiles them, and the cold run compiled the caller first), and both callers are compiled again
    # against it: loaded, they would call a symbol that no longer exists.
    for entry in (tmp_path / "cache").rglob("kernels.weigh.py*.nbc"):
        entry.unlink()
    again = _probe(tmp_path, "parallel")
    assert {k: again[k] for k in expected} == expected
    assert again["weigh"]["misses"] == 1 and again["weigh_symbol"] != symbol
    assert again["weigh_plus_one"]["misses"] == 1 and again["weigh_each"]["misses"] == 1

    # Damaged entries (truncated files) are compiled again and written anew, not a crash.
    for entry in (tmp_path / "cache").rglob("kernels.weigh*.nbc"):
        entry.write_bytes(entry.read_bytes()[:100])
    damaged = _probe(tmp_path, "plain")
    assert {k: damaged[k] for k in expected} == expected
    assert damaged["weigh"]["misses"] == 1 and damaged["weigh_plus_one"]["misses"] == 1
    assert _probe(tmp_path, "plain")["weigh_plus_one"] == {"hits": 1, "misses": 0}


# A kernel with no ``shared`` mark whose code is far over the size above which it is called by symbol (about ten
# instructions a line, none of which LLVM can fold away), and a small one.
SIZED = "\n".join([
    "from core.jitcache import jit",
    "@jit",
    "def big(a, k):",
    "    n = a.shape[0]",
    "    t = 0.0",
    *[f"    t = t * {1 + i / 1e4} + a[(k + {i}) % n]" for i in range(400)],
    "    return t",
    "@jit",
    "def small(a):",
    "    return a[0] + 1.0",
    "@jit",
    "def caller(a):",
    "    return big(a, 3) + small(a)",
])

SIZED_PROBE = """
import json
import numpy as np
import pkgs.kernels as k
from core.jitlink import calls_of, linked_size
a = np.arange(1.0, 8.0)
value = k.caller(a)
lib = lambda d: next(iter(d.overloads.values())).library
misses = sum(k.caller.stats.cache_misses.values())
print(json.dumps({
    "value": value, "expected": k.big.py_func(a, 3) + k.small.py_func(a), "misses": misses,
    "big_size": linked_size(lib(k.big)), "calls": sorted(calls_of(lib(k.caller))),
    "big_symbol": next(iter(k.big.overloads.values())).fndesc.mangled_name,
    "small_size": linked_size(lib(k.small)) if k.small.overloads else -1,
    "small_symbol": next((c.fndesc.mangled_name for c in k.small.overloads.values()), ""),
    "ir": lib(k.caller).get_llvm_str() if misses else "",
}))
"""


def test_a_kernel_too_large_to_inline_is_called_by_symbol_and_measured_alike_when_loaded(tmp_path):
    from core.jitcache import SHARED_ABOVE_INSTRUCTIONS

    kernel_package(tmp_path, "pkgs", SIZED + "\n")

    def probe() -> dict:
        return run_probe(tmp_path, SIZED_PROBE)

    cold = probe()
    assert cold["value"] == pytest.approx(cold["expected"], rel=1e-12)
    assert cold["big_size"] > SHARED_ABOVE_INSTRUCTIONS > cold["small_size"] > 0
    symbol = cold["big_symbol"]
    assert cold["calls"] == [symbol]
    assert f"declare i32 @{symbol}(" in cold["ir"] and f"define linkonce_odr i32 @{symbol}(" not in cold["ir"]
    # The small kernel is a linked copy, not a call of its symbol.
    assert f"declare i32 @{cold['small_symbol']}(" not in cold["ir"]

    # Loaded from the cache, the large kernel measures the same, so a caller compiled then calls it the same way.
    warm = probe()
    assert warm["misses"] == 0 and warm["value"] == cold["value"]
    assert warm["big_size"] == cold["big_size"] and warm["calls"] == [symbol]
