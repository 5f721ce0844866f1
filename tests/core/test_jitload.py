"""core.jitload: a kernel loaded from the cache records the symbols numba's own loading records, and keeps for
linking the module numba would have parsed, parsed only when a compile asks for it.

As test_jitlink, each check runs fresh interpreters on a small package in a temporary directory: a first process
compiles and writes the entries, a second loads them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kernel_probe import kernel_package, run_probe

pytestmark = pytest.mark.cold_cache

KERNELS = """
from core.jitcache import jit

@jit
def total(a):
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i] * (i + 1)
    return t

@jit
def twice_total(a):
    return 2.0 * total(a)

@jit
def later(a):
    return total(a) + 1.0
"""

PROBE = """
import json, sys
import numpy as np
import pkgl.kernels as k
from core import jitload
a = np.arange(5.0)
# Called from Python, ``total`` is loaded from its own entry (a caller's entry holds a linked copy of it).
value = k.twice_total(a) + k.total(a)
later = k.later(a) if sys.argv[1] == "later" else None
lib = next(iter(k.total.overloads.values())).library
lazy = "_linking_bitcode" in lib.__dict__
engine = lib._codegen._engine
mod = lib._get_module_for_linking()
own = {g.name for group in (mod.functions, mod.global_variables) for g in group if not g.is_declaration}
print(json.dumps({
    "value": value, "later": later, "lazy_before": lazy, "lazy_after": "_linking_bitcode" in lib.__dict__,
    "linking": [line for line in str(mod).splitlines()
                if not line.startswith(("; ModuleID", "; Function Attrs", "attributes #"))],
    "defined": sorted(own), "recorded": all(engine.is_symbol_defined(n) for n in own),
    "names": list(jitload.defined_symbols(lib)),
    "hits": sum(k.total.stats.cache_hits.values()) + sum(k.twice_total.stats.cache_hits.values()),
    "later_misses": sum(k.later.stats.cache_misses.values()),
}))
"""


def _probe(tmp: Path, mode: str) -> dict:
    return run_probe(tmp, PROBE, mode)


def test_a_loaded_kernel_records_numbas_symbols_and_parses_its_linking_module_when_asked(tmp_path):
    kernel_package(tmp_path, "pkgl", textwrap.dedent(KERNELS))
    cold = _probe(tmp_path, "plain")
    assert cold["value"] == 120.0 and cold["hits"] == 0 and not cold["lazy_before"]

    warm = _probe(tmp_path, "plain")
    assert warm["value"] == 120.0 and warm["hits"] == 2
    # Loaded: the module for linking is still bytes until asked for, then the module the cold process kept (but for
    # its name and the attributes of declared intrinsics, which its bitcode does not carry as they were).
    assert warm["lazy_before"] and not warm["lazy_after"]
    assert warm["linking"] == cold["linking"]
    # The names the entry saved are those numba records from that module, and the engine holds them.
    assert warm["names"] == warm["defined"] == cold["defined"] and warm["recorded"]

    # A kernel compiled after its callee was loaded links the callee's module, parsed then.
    later = _probe(tmp_path, "later")
    assert later["later"] == 41.0 and later["later_misses"] == 1


def test_load_lazily_replaces_numbas_loading_once():
    from numba.core import codegen

    from core import jitcache, jitload  # noqa: F401  (jitcache installs it)

    lib = codegen.CPUCodeLibrary
    assert lib._get_module_for_linking is jitload._get_module_for_linking
    assert lib.__dict__["_unserialize"].__func__ is jitload._unserialize
    own = dict(jitload._numba_own)
    jitload.load_lazily()
    assert jitload._numba_own == own and "_load_defined_symbols" in own["unserialize"].__code__.co_names
