"""Calls of a shared kernel that reuse its machine code instead of linking a copy of it into the caller.

numba links the whole LLVM module of every kernel a kernel calls into the caller's module and runs the optimiser
and the code generator over the result again. Every layer of the step (phase, block, parallel loop, driver) so paid
again for everything below it: two lines that call the attraction phase's rest took 5.5 s to compile, where the
rest itself took 7.3 s. A kernel marked ``jit(shared=True)`` is compiled once: a call of it from another kernel is
compiled as a plain call of its symbol, which the JIT resolves to the code already loaded for it.

Which kernels are shared is the caller's policy (``is_shared``). A copy lets LLVM inline the callee and optimise it
with its caller, and a call passes every array of its structures field by field: sharing every kernel made a lone
walker's step 1.5 to 2 times slower. A callee too large for LLVM to inline gains nothing from its copies.

A cached caller needs its shared callees loaded first, under the same symbols. The symbols a kernel calls are
recorded while it is lowered (``calls_of``) and saved with its cache entry; loading the entry compiles or loads each
callee first and checks that its symbol is the recorded one (``load_calls``). A symbol carries a per-process serial
number, so a callee compiled afresh since has another one: the caller is then compiled again rather than loaded,
never left calling a symbol that does not exist.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from numba.core import base, imputils

# A call of one kernel from another: the callee's module, qualified name and argument types, by its symbol.
Calls = dict[str, tuple[str, str, tuple[Any, ...]]]


def calls_of(library: Any) -> Calls:
    """The kernels ``library``'s code calls by symbol, its own and those of the libraries linked into it (a parallel
    loop's body is one)."""
    found: Calls = {}
    todo, seen = [library], set()
    while todo:
        lib = todo.pop()
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        found.update(getattr(lib, "_kernel_calls", {}))
        todo.extend(getattr(lib, "_linking_libraries", ()))
    return found


def kernel_at(module: str, qualname: str) -> Any:
    """The object at ``module``:``qualname``; raises LookupError when the code no longer has it."""
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # an import error (any: the module's own code runs), a missing attribute
        raise LookupError(f"{module}:{qualname}: {type(exc).__name__}: {exc}") from exc
    return obj


def linked_size(library: Any) -> int:
    """The size of what linking ``library`` into a caller copies: the instructions of its module's LLVM IR (the
    indented lines of its text; symbol names, whose per-process serial numbers vary, do not count). The same for a
    library compiled here and one loaded from a cache, which keeps that module."""
    return str(library._get_module_for_linking()).count("\n  ")


def load_calls(calls: Mapping[str, tuple[str, str, tuple[Any, ...]]]) -> bool:
    """Compile or load every callee in ``calls`` in this process; whether each now has the recorded symbol (else a
    caller compiled against them must be compiled again)."""
    for symbol, (module, qualname, args) in sorted(calls.items()):
        try:
            d = kernel_at(module, qualname)
            d.compile(args)
        except Exception:  # a kernel renamed or retyped since: the caller is compiled afresh
            return False
        cres = d.overloads.get(tuple(args))
        if cres is None or cres.fndesc.mangled_name != symbol:
            return False
    return True


def separate_kernel_calls(is_shared: Callable[[Any, Sequence[Any]], bool]) -> None:
    """Compile calls of the dispatchers for which ``is_shared(dispatcher, libraries)`` holds as calls of their
    loaded code, not linked copies (module docstring); ``libraries`` are the compiled (or loaded) code of the
    specialisation called, and the question is asked once, when a kernel first compiles a call of it. Idempotent."""
    insert = base.BaseContext.insert_user_function
    if getattr(insert, "separates_calls", False):
        return

    def insert_user_function(self: Any, func: Any, fndesc: Any, libs: Any = ()) -> None:
        callee: Any = sys.modules.get(fndesc.modname)
        for part in fndesc.qualname.split("."):
            callee = getattr(callee, part, None)
        if callee is None:
            insert(self, func, fndesc, libs)
            return
        call = _call_decided_once(fndesc, tuple(libs), lambda: is_shared(callee, tuple(libs)))
        self._defns[func].append(call, call.signature)

    insert_user_function.separates_calls = True  # type: ignore[attr-defined]
    base.BaseContext.insert_user_function = insert_user_function  # type: ignore[method-assign]


def _call_decided_once(fndesc: Any, libs: tuple[Any, ...], shared: Callable[[], bool]) -> Any:
    """numba's lowering of a call of ``fndesc``: by symbol (``_recorded_call``) if ``shared()``, else a call of a
    linked copy of ``libs``, as numba lowers it. Decided when a caller first lowers a call, not when ``fndesc`` is
    registered: a process that loads its kernels from a cache lowers no call, and so measures no callee's size."""
    by_symbol = _recorded_call(fndesc)
    linked = imputils.user_function(fndesc, libs)
    chosen: list[Any] = []

    def call(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if not chosen:
            chosen.append(by_symbol if shared() else linked)
        if chosen[0] is linked:
            context.add_linking_libs(libs)  # what numba does for a call of ``linked``, which names its libraries
        return chosen[0](context, builder, sig, args)

    call.signature = linked.signature  # type: ignore[attr-defined]
    call.libs = ()  # type: ignore[attr-defined]  # linked by the call itself, when it is a copy
    return call


def _recorded_call(fndesc: Any) -> Any:
    """numba's lowering of a call of ``fndesc``, with no library to link, that records the call in the library being
    lowered."""
    lower = imputils.user_function(fndesc, ())
    entry = (fndesc.modname, fndesc.qualname, tuple(fndesc.argtypes))

    def call(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        library = context.active_code_library
        if "_kernel_calls" not in library.__dict__:
            library._kernel_calls = {}
        library._kernel_calls[fndesc.mangled_name] = entry
        return lower(context, builder, sig, args)

    call.signature = lower.signature  # type: ignore[attr-defined]
    call.libs = ()  # type: ignore[attr-defined]
    return call
