"""Loading a cached kernel without the work that only a later compile needs.

numba loads a cached kernel's machine code and, beside it, parses the kernel's LLVM bitcode (kept to link it into
kernels compiled later) and walks every function and global of that module to record the symbols it defines: one
call into LLVM per name and per attribute. A warm start compiles nothing; on a one-run sweep of the city the two took
about 0.7 s of its 3.4 s. Here:

- the names an entry defines are saved in the entry when it is written (``defined_symbols``) and recorded from it
  when it is loaded (``loading_with``), as numba records them;
- the bitcode is kept as bytes and parsed when a compile first asks for the module (``_get_module_for_linking``).

An entry written without the names (numba's own caches) is loaded as numba loads it. Both replacements are for the
numba that pyproject pins, and each checks that the code it replaces is the one it was written against.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import llvmlite.binding as ll
from numba.core import codegen

_Library: Any = codegen.CPUCodeLibrary
_local = threading.local()
# numba's own functions that were replaced, for the tests that compare the replacements with them.
_numba_own: dict[str, Any] = {}


def defined_symbols(library: Any) -> tuple[str, ...]:
    """The names ``library`` defines, as numba records them when it loads the library from a cache: the functions
    and globals with a body in its module for linking."""
    mod = library._get_module_for_linking()
    return tuple(sorted({g.name for group in (mod.functions, mod.global_variables) for g in group
                         if not g.is_declaration}))


@contextmanager
def loading_with(name: str, symbols: tuple[str, ...]) -> Iterator[None]:
    """While numba loads the library ``name`` in this thread, take ``symbols`` as the names it defines."""
    _local.pending = (name, symbols)
    try:
        yield
    finally:
        _local.pending = None


def _unserialize(cls: Any, codegen_: Any, state: Any) -> Any:
    name, kind, data = state
    pending = getattr(_local, "pending", None)
    if kind != "object" or pending is None or pending[0] != name:
        return _numba_own["unserialize"](codegen_, state)
    _local.pending = None
    object_code, linking_bitcode = data
    self = codegen_.create_library(name)
    assert isinstance(self, cls)
    self.enable_object_caching()
    self._set_compiled_object(object_code)
    self._linking_bitcode = linking_bitcode
    self._finalize_final_module()
    codegen_._engine._defined_symbols.update(pending[1])
    return self


def _get_module_for_linking(self: Any) -> Any:
    bitcode = self.__dict__.pop("_linking_bitcode", None)
    if bitcode is not None:
        self._shared_module = ll.parse_bitcode(bitcode)
    return _numba_own["linking"](self)


def load_lazily() -> None:
    """Install the loading above in numba's code library; idempotent."""
    if _Library._get_module_for_linking is _get_module_for_linking:
        return
    unserialize = _Library.__dict__["_unserialize"].__func__
    linking = _Library._get_module_for_linking
    if (unserialize.__code__.co_names != (
            "create_library", "isinstance", "ll", "parse_bitcode", "_final_module", "_finalize_final_module",
            "enable_object_caching", "_set_compiled_object", "_shared_module", "_codegen", "_engine",
            "_load_defined_symbols", "ValueError")
            or "_shared_module" not in linking.__code__.co_names):
        return  # not the numba this was written against: keep its own
    _numba_own.update(unserialize=_Library._unserialize, linking=linking)
    _Library._unserialize = classmethod(_unserialize)
    _Library._get_module_for_linking = _get_module_for_linking
