"""The one jit decorator of the engine and its kernel cache.

Every numba kernel in core is compiled with ``@jit`` (``nogil``, cached on disk), ``@jit(inline=True)`` for the few
tiny helpers numba inlines into their callers, and ``@jit(noalloc=True)`` for hot-path kernels that must not
allocate.

The cache, in place of numba's per-file one:

- **Key.** A kernel's stamp is a SHA-256 of what numba freezes into its machine code: the function's bytecode,
  constants and options, and for every global name it uses, that global's value: a kernel's own stamp (so the
  whole call tree is covered), a constant's value, a named tuple's fields, the attributes a module is read for.
  A pure-Python module imported beside a kernel is not part of it, so editing a message or the simulation's Python
  driver recompiles nothing, while editing a called kernel or a constant recompiles every kernel above it. Line
  numbers are not part of it either: inserting lines above a kernel keeps its entry.
- **Files.** One data file per specialisation, named by the kernel, its stamp and a hash of its argument types and
  machine, with no index file that concurrent writers could mix up. With the stamp in the name, the entries of a
  kernel's last few versions stay usable (switching branches back and forth compiles nothing the second time);
  older ones are removed when a newer version is written.
- **Place.** ``NUMBA_CACHE_DIR`` when set, laid out by the module's path inside its package (not by the checkout's
  absolute path), so every checkout, worktree, installed copy and sweep worker sharing that folder shares the
  entries. Else the ``__pycache__`` beside the source, else the user's cache folder (a read-only install; the
  frozen app always uses the user's folder, never its own).
- **Shipped kernels.** Read-only caches listed in ``MIRAN_SHIPPED_KERNELS`` (folders, ``os.pathsep``-separated),
  and the frozen app's ``kernels/`` folder, are searched after the writable cache: a packaged app starts with
  kernels compiled when it was built, and compiles into the user's cache only what is not shipped.
- **Concurrency.** Each data file is written to a uniquely named temporary and renamed into place (atomic on
  POSIX). Many processes starting together (a sweep's workers) each see a complete file or none, and one that finds
  none compiles.

The cache classes subclass numba's (``numba.core.caching``), which is why pyproject pins numba to the tested range.

One change to numba's compiler, for compile time only (``share_inline_copies``): numba's IR inliner copies a
callee's blocks one ``copy.deepcopy`` each, and every block's variables reach the callee's whole scope, so each
inlining copied that scope once per block; the blocks of one inlining now share one copy of it, as the callee's own
blocks do. The IR and so the machine code are the same (the inliner's own check is that the copied blocks have one
scope); a cold compile of every kernel took 268 s of CPU against 302 s (2026-11-29, one process).

Two more, for compile time too, that leave the IR the same (``core.jitfaster``): numba's flags hash and compare
without building a dict of their options each time, and its error messages for failed typing attempts are
highlighted without setting up the console each time.

One for loading (``core.jitload``): an entry saves the names its code defines, so that loading it records them
without walking its LLVM module, and the module it keeps for linking into later compiles is parsed only when one
asks for it.

Another (``core.jitlink``): a kernel marked ``jit(shared=True)``, and any kernel too large for LLVM to inline
(``SHARED_ABOVE_INSTRUCTIONS``), is called by its callers as its own compiled code, not linked into each of them as
a copy. An entry saves the kernels its code calls so, and loading it loads them first; the layout of an entry and
that size are part of its key (``ENTRY_LAYOUT``).
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import os
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, overload

import numba
import numpy as np
from numba.core import caching
from numba.core import inline_closurecall
from numba.core.dispatcher import Dispatcher
from numba.core.extending import _Intrinsic

from core import jitfaster, jitlink, jitload, jitref


class _OneMemoCopy:
    """``copy`` as numba's inliner sees it while it inlines one callee: ``deepcopy`` shares one memo, so the blocks
    copied for that inlining share one copy of the callee's scope."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}

    def deepcopy(self, x: Any, memo: dict[int, Any] | None = None) -> Any:
        return copy.deepcopy(x, self.memo if memo is None else memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def share_inline_copies() -> None:
    """Make numba's IR inliner copy one callee's blocks with one memo (module docstring); idempotent."""
    worker: Any = inline_closurecall.InlineWorker
    inline_ir = worker.inline_ir
    if getattr(inline_ir, "shares_copies", False):
        return
    module: Any = inline_closurecall

    def shared(self: Any, *args: Any, **kwargs: Any) -> Any:
        outer = module.copy
        module.copy = _OneMemoCopy()
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            module.copy = outer

    shared.shares_copies = True  # type: ignore[attr-defined]
    worker.inline_ir = shared


share_inline_copies()
jitfaster.compare_flags_faster()
jitfaster.markup_without_console()
jitfaster.collect_less_while_compiling()
jitload.load_lazily()

# A kernel whose linked module (its code and the copies linked into it) has more instructions than this is called
# by symbol from every kernel compiled after it, as a ``shared`` kernel is (core.jitlink): LLVM does not inline that
# much code into a caller (its inlining threshold is a few hundred instructions), so a copy only had every caller,
# and every caller's caller, optimise and emit it again. A kernel under it keeps its copies, which LLVM may inline.
SHARED_ABOVE_INSTRUCTIONS = 1500


def _called_by_symbol(d: Any, libraries: Sequence[Any]) -> bool:
    """Whether calls of ``d`` compile as calls of its loaded code: marked ``shared``, or one of this package's
    kernels (numba's own helpers are always linked) too large to inline."""
    if getattr(d, "shared_code", False) is True:
        return True
    if not isinstance(getattr(d, "_cache", None), KernelCache) or d.targetoptions.get("inline"):
        return False
    return sum(jitlink.linked_size(lib) for lib in libraries) > SHARED_ABOVE_INSTRUCTIONS


jitlink.separate_kernel_calls(_called_by_symbol)

# A kernel as the type checker sees it: numba types its calls itself when it compiles them (often with star-args of
# the owners' array tuples, whose lengths a static checker cannot follow).
Kernel = Callable[..., Any]

# How many versions (stamps) of one kernel stay in a cache folder (the newest by modification time).
KEPT_VERSIONS = 4
# Characters of the stamp in a file name: 64 bits, enough to tell a kernel's versions apart.
STAMP_CHARS = 16
# The layout of a cache entry, part of its key: entries of another layout are never read.
ENTRY_LAYOUT = f"calls-2, symbols, by symbol above {SHARED_ABOVE_INSTRUCTIONS}"
# The environment variable naming read-only caches searched after the writable one.
SHIPPED_ENV = "MIRAN_SHIPPED_KERNELS"


@overload
def jit(fn: Callable[..., Any], /) -> Kernel: ...
@overload
def jit(*, inline: bool = False, noalloc: bool = False, parallel: bool = False,
        shared: bool = False) -> Callable[[Callable[..., Any]], Kernel]: ...


def jit(fn: Callable[..., Any] | None = None, /, *, inline: bool = False, noalloc: bool = False,
        parallel: bool = False, shared: bool = False) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Compile ``fn`` as a nogil numba kernel cached under the policy above; use as ``@jit`` or ``@jit(...)``.

    ``inline``: numba inlines the function into every jitted caller (``inline="always"``), which type-infers and
    lowers it again in each caller: only for helpers of a few lines. ``noalloc``: compile without numba's
    reference-counting runtime (its private ``_nrt=False`` option, kept here only): the function cannot allocate
    arrays, so a hot-path kernel that starts allocating fails to compile instead of slowing down, and its calls
    carry no reference counting. ``parallel``: numba's ``parallel=True``, for the few kernels whose ``prange``
    loops run blocks of work on several threads (slow to compile: keep them small). ``shared``: compiled once, and
    every kernel that calls it calls that code instead of a copy (core.jitlink), and it keeps numba's reference
    counting whichever kernel first calls it. A kernel too large to inline is called so without the mark
    (``SHARED_ABOVE_INSTRUCTIONS``); the mark is for one that allocates and is called from kernels that cannot, or
    one to share whatever its size. Never for one called per agent (the copy lets LLVM inline it, and a call passes
    every array of its structures field by field)."""
    if shared and inline:
        raise ValueError("a kernel is inlined into its callers or shared by them, not both")
    options: dict[str, Any] = {"nogil": True}
    if parallel:
        options["parallel"] = True
    if inline:
        options["inline"] = "always"
    if noalloc:
        options["_nrt"] = False
    elif shared:
        # numba compiles a kernel first called from a noalloc kernel without reference counting too, unless told:
        # a shared kernel is compiled once, for every caller, so it keeps what it needs to allocate.
        options["_nrt"] = True

    def wrap(f: Callable[..., Any]) -> Kernel:
        kernel_options = dict(options)
        if any(f.__globals__.get(name) is jitref.by_ref for name in _names(f.__code__)):
            # A tuple passed by reference (core.jitref) must outlive the call that reads it: numba frees a variable
            # after its last use, which is the ``by_ref``, unless its lifetime is extended to the end of its block.
            kernel_options["_dbg_extend_lifetimes"] = True
        dispatcher: Kernel = numba.njit(**kernel_options)(f)
        if not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
            # What Dispatcher.enable_caching does, with this module's cache class.
            cache = KernelCache(f)
            cache.dispatcher = dispatcher
            dispatcher._cache = cache  # type: ignore[attr-defined]
        dispatcher.shared_code = shared  # type: ignore[attr-defined]
        if not inline:
            _compile_for_plain_types(dispatcher)
        return dispatcher

    return wrap if fn is None else wrap(fn)


def _compile_for_plain_types(dispatcher: Any) -> None:
    """Make a jitted caller's arguments compile ``dispatcher`` for the plain types a call from Python gives: a
    constant (``f(x, 0)`` passes ``Literal[int](0)``) and a narrower signed integer (an ``int32`` read from a
    triangle array) as ``int64``. Numba would otherwise compile each as a specialisation of its own beside the
    ``int64`` one; widening keeps every value, so the kernel computes the same."""
    literal_template = dispatcher.get_call_template
    nbt: Any = numba.types

    def plain(a: Any) -> Any:
        a = nbt.unliteral(a)
        if isinstance(a, nbt.Integer) and a.signed and a.bitwidth < 64:
            return nbt.int64
        return a

    def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        return literal_template(tuple(plain(a) for a in args), {k: plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template


# ----------------------------------------------------------------------------------------------------------------
# The stamp


_stamps: dict[Any, str] = {}


def kernel_stamp(dispatcher: Any) -> str:
    """The SHA-256 (hex) under which ``dispatcher`` (a kernel of ``jit``) is cached: its code, its options and,
    transitively, the kernels and values it uses (module docstring, "Key"). Computed once per process."""
    return _stamp(dispatcher, ())


def _stamp(d: Any, chain: tuple[Any, ...]) -> str:
    done = _stamps.get(d)
    if done is None:
        h = hashlib.sha256()
        _Stamper(h, (*chain, d)).dispatcher(d)
        done = _stamps[d] = h.hexdigest()
    return done


class _Stamper:
    """Feeds what one kernel's machine code depends on into a hash."""

    def __init__(self, h: Any, chain: tuple[Any, ...]) -> None:
        self.h = h
        self.chain = chain  # the kernels being stamped, callers first: a recursive call is named, not followed
        self.modules: set[str] = set()

    def put(self, *parts: object) -> None:
        for p in parts:
            self.h.update(f"{p}\x1f".encode("utf-8", "backslashreplace"))

    def dispatcher(self, d: Any) -> None:
        f = d.py_func
        self.put("kernel", f.__module__, f.__qualname__, sorted((k, repr(v)) for k, v in d.targetoptions.items()),
                 "shared" if getattr(d, "shared_code", False) else "copied")
        self.code(f.__code__, f.__doc__)
        self.put("defaults", constant_text(f.__defaults__))
        names = _names(f.__code__)
        for name in sorted(names):
            if name in f.__globals__:
                self.put("global", name)
                self.value(f.__globals__[name], names)
            elif hasattr(builtins, name):
                self.put("builtin", name)
        for cell_name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            self.put("cell", cell_name)
            self.value(cell.cell_contents, names)

    def code(self, c: types.CodeType, doc: str | None = None) -> None:
        """A code object and the ones nested in it; ``doc``, the function's docstring, is left out (its first
        constant): rewording a docstring recompiles nothing."""
        self.put("code", c.co_argcount, c.co_kwonlyargcount, c.co_flags, c.co_names, c.co_varnames, c.co_freevars,
                 c.co_cellvars)
        self.h.update(c.co_code)
        for i, k in enumerate(c.co_consts):
            if i == 0 and doc is not None and k is doc:
                self.put("docstring")
            elif isinstance(k, types.CodeType):
                self.code(k)
            else:
                self.put(constant_text(k))

    def value(self, v: Any, names: frozenset[str]) -> None:
        """A global's value as the code that names it sees it."""
        if isinstance(v, Dispatcher):
            if v in self.chain:
                self.put("recursive", v.py_func.__module__, v.py_func.__qualname__)
            else:
                self.put("calls", _stamp(v, self.chain))
        elif isinstance(v, _Intrinsic):
            # An intrinsic (core.jitref) writes the kernel's code itself: its definition is part of the stamp.
            self.put("intrinsic", v._defn.__module__, v._defn.__qualname__)
            self.code(v._defn.__code__, v._defn.__doc__)
        elif isinstance(v, types.ModuleType):
            self.put("module", v.__name__)
            if _followed(v.__name__) and v.__name__ not in self.modules:
                self.modules.add(v.__name__)
                for name in sorted(names):
                    if name in vars(v):
                        self.put("attribute", name)
                        self.value(vars(v)[name], names)
        elif isinstance(v, type):
            self.put("class", v.__module__, v.__qualname__)
            fields = getattr(v, "_fields", None)
            if isinstance(fields, tuple):
                self.put("fields", fields, constant_text(tuple(getattr(v, "_field_defaults", {}).items())))
        elif isinstance(v, np.ndarray):
            self.put("array", v.dtype.str, v.dtype.descr, v.shape)
            self.h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, types.FunctionType | types.BuiltinFunctionType):
            # Plain functions cannot be called from nopython code (no overloads here): their name is what counts.
            self.put("function", getattr(v, "__module__", ""), getattr(v, "__qualname__", v.__name__))
        else:
            text = constant_text(v)
            if " at 0x" in text:
                text = f"{type(v).__module__}.{type(v).__qualname__}"
            self.put("value", text)


def constant_text(v: object) -> str:
    """A text for a constant that is the same in every process (sets sorted, no addresses)."""
    if isinstance(v, frozenset | set):
        return "{" + ",".join(sorted(constant_text(x) for x in v)) + "}"
    if isinstance(v, tuple):
        return "(" + ",".join(constant_text(x) for x in v) + ")"
    return f"{type(v).__name__}:{v!r}"


def _names(code: types.CodeType) -> frozenset[str]:
    """Every global or attribute name the code (and the code nested in it) reads."""
    out = set(code.co_names)
    for k in code.co_consts:
        if isinstance(k, types.CodeType):
            out |= _names(k)
    return frozenset(out)


def _followed(module: str) -> bool:
    """Is ``module`` one whose attributes are followed (anything but numba, numpy, llvmlite and the standard
    library)? Those change only with their version, which the cache files record (numba), or change no compiled
    code (numba compiles numpy's functions from its own implementations)."""
    top = module.split(".", 1)[0]
    return top not in {"numba", "numpy", "llvmlite"} and top not in sys.stdlib_module_names


# ----------------------------------------------------------------------------------------------------------------
# Where the entries live


def package_relative_dir(py_file: str, module: str) -> str | None:
    """The folder of ``py_file`` relative to the folder holding its top-level package (``core/sim`` for
    ``core.sim.kernels``), or None when the module is not inside a package."""
    depth = module.count(".")
    if Path(py_file).name == "__init__.py":
        depth += 1
    folder = Path(py_file).resolve().parent
    parts = folder.parts[len(folder.parts) - depth:] if depth else ()
    if depth == 0 or len(parts) != depth:
        return None
    return "/".join(parts)


class _RelativeLayout:
    """Locator mixin: entries under ``<root>/<package-relative folder>``, whatever the checkout's absolute path."""

    _py_file: str
    _lineno: int

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[call-arg]
        self._module = py_func.__module__

    def sub_path(self) -> str:
        rel = package_relative_dir(self._py_file, self._module)
        return rel if rel is not None else caching._CacheLocator.get_suitable_cache_subpath(self._py_file)  # type: ignore[no-untyped-call]

    def get_disambiguator(self) -> str:
        return ""  # the stamp goes into the file name instead (KernelCache)

    def get_source_stamp(self) -> str:
        return ""  # filled in lazily by _StampedIndex: the callees are not defined yet at decoration time


class _UserDirLocator(_RelativeLayout, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``/<package-relative folder>/, when the variable is set."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(numba.config.CACHE_DIR, self.sub_path())  # type: ignore[attr-defined]


class _InTreeLocator(_RelativeLayout, caching.InTreeCacheLocator):
    """The ``__pycache__`` beside the source, when writable (never in the frozen app: its files are its own)."""

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> Any:
        if getattr(sys, "frozen", False):
            return None
        return super().from_function(py_func, py_file)  # type: ignore[no-untyped-call]


class _UserWideLocator(_RelativeLayout, caching.UserWideCacheLocator):
    """The user's cache folder (``~/.cache/miran-studio/kernels``), for a read-only or frozen installation."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(user_cache_root(), self.sub_path())


def user_cache_root() -> str:
    """The writable cache of a read-only or frozen install: ``$XDG_CACHE_HOME/miran-studio/kernels``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "miran-studio", "kernels")


def shipped_roots() -> list[str]:
    """The read-only caches searched after the writable one: ``MIRAN_SHIPPED_KERNELS`` and, in the frozen app, the
    ``kernels`` folder it was built with."""
    roots = [p for p in os.environ.get(SHIPPED_ENV, "").split(os.pathsep) if p]
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        roots.append(os.path.join(bundle, "kernels"))
    return roots


class _EntryFiles(caching.IndexDataCacheFile):
    """One data file per compiled specialisation, named ``<module>.<qualname>.pyXY-<stamp>.<key>.nbc`` where key
    hashes the argument types, the machine and numba's version. No index file: numba's numbered data files,
    chosen from an index each process read earlier, let two processes compiling two specialisations of one kernel
    at once write one's code under the other's name (a crash when called); a name derived from the key cannot.
    The stamp is computed on first use (when every callee is defined), and several versions of a kernel coexist."""

    def __init__(self, cache_path: str, name: str, stamp: Callable[[], str]) -> None:
        self._cache_path = cache_path
        self._name = name
        self._stamp_of = stamp
        self._base = ""

    def _prefix(self) -> str:
        if not self._base:
            self._base = f"{self._name}-{self._stamp_of()[:STAMP_CHARS]}"
        return self._base

    def entry_path(self, key: Any) -> str:
        """The data file of ``key`` (argument types, machine)."""
        text = "|".join([*(repr(k) for k in key), numba.__version__])
        digest = hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:STAMP_CHARS]
        return os.path.join(self._cache_path, f"{self._prefix()}.{digest}.nbc")

    def holds(self, key: Any) -> bool:
        """Whether the entry of ``key`` is on disk."""
        return os.path.isfile(self.entry_path(key))

    def load(self, key: Any) -> Any:
        """The entry of ``key``; None when there is none, or when it cannot be read (a truncated or foreign file):
        the kernel is then compiled and the entry written anew."""
        try:
            return self._load_data(self.entry_path(key))  # type: ignore[no-untyped-call]
        except Exception:  # OSError, and whatever unpickling a damaged file raises
            return None

    def save(self, key: Any, data: Any) -> None:
        self._save_data(self.entry_path(key), data)  # type: ignore[no-untyped-call]
        self._prune()

    def flush(self) -> None:
        return None

    def _data_path(self, name: str) -> str:
        return name  # entry_path gives whole paths

    def _prune(self) -> None:
        """Remove the entries of all but the newest ``KEPT_VERSIONS`` versions (stamps) of this kernel."""
        try:
            names = os.listdir(self._cache_path)
        except OSError:
            return
        prefix = f"{self._name}-"
        versions: dict[str, list[str]] = {}
        for n in names:
            rest = n[len(prefix):] if n.startswith(prefix) else ""
            if rest.endswith(".nbc") and len(rest) == 2 * STAMP_CHARS + 5 and rest[STAMP_CHARS] == ".":
                versions.setdefault(rest[:STAMP_CHARS], []).append(n)

        def newest(stamp: str) -> float:
            times = []
            for n in versions[stamp]:
                try:
                    times.append(os.stat(os.path.join(self._cache_path, n)).st_mtime)
                except OSError:
                    pass
            return max(times, default=0.0)

        for stamp in sorted(versions, key=newest, reverse=True)[KEPT_VERSIONS:]:
            for n in versions[stamp]:
                try:
                    os.unlink(os.path.join(self._cache_path, n))
                except OSError:
                    pass


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    """numba's compile-result cache, with the kernels an entry calls saved beside it and loaded before it."""

    _locator_classes = [_UserDirLocator, _InTreeLocator, _UserWideLocator]

    def reduce(self, cres: Any) -> Any:
        reduced = super().reduce(cres)  # type: ignore[no-untyped-call]
        return reduced, jitlink.calls_of(cres.library), (cres.library.name, jitload.defined_symbols(cres.library))

    def rebuild(self, target_context: Any, payload: Any) -> Any:
        """The cached compile result, its callees loaded first; None where one of them now has another symbol."""
        reduced, calls, (name, symbols) = payload
        if not jitlink.load_calls(calls):
            return None
        with jitload.loading_with(name, symbols):
            cres = super().rebuild(target_context, reduced)  # type: ignore[no-untyped-call]
        cres.library._kernel_calls = dict(calls)
        return cres


class KernelCache(caching.FunctionCache):
    """numba's per-function cache (atomic writes) with the stamp, entry files, layout and shipped caches
    described in the module docstring."""

    _impl_class = _KernelCacheImpl

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self._name = repr(py_func)
        self._py_func = py_func
        self._impl = self._impl_class(py_func)  # type: ignore[no-untyped-call]
        self._cache_path = self._impl.locator.get_cache_path()
        self.dispatcher: Any = None  # set by ``jit`` once numba has wrapped the function
        name = _file_name(py_func)
        locator = self._impl.locator
        self._cache_file = _EntryFiles(self._cache_path, name, self.stamp)
        self._shipped = [_EntryFiles(os.path.join(root, locator.sub_path()), name, self.stamp)
                         for root in shipped_roots()]
        self.enable()  # type: ignore[no-untyped-call]

    def stamp(self) -> str:
        """This kernel's stamp (``kernel_stamp``)."""
        return kernel_stamp(self.dispatcher)

    def cache_files(self) -> Iterable[_EntryFiles]:
        """The writable cache's entries first, then the shipped ones'."""
        return (self._cache_file, *self._shipped)

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        for f in self.cache_files():
            data = f.load(key)
            if data is not None:
                cres = self._impl.rebuild(target_context, data)
                if cres is not None:
                    return cres
        return None

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        # numba's key without the closure hash (the stamp covers the cells): the signature and the machine, and the
        # layout of an entry (its callees saved beside it).
        return sig, codegen.magic_tuple(), ENTRY_LAYOUT

    def is_cached(self, sig: Any, codegen: Any) -> bool:
        """Whether the writable or a shipped cache holds ``sig`` under the current stamp."""
        key = self._index_key(sig, codegen)
        return any(f.holds(key) for f in self.cache_files())


def _file_name(py_func: Callable[..., Any]) -> str:
    """``<module file stem>.<qualname>.pyXY`` (no line number: an edit above the kernel keeps its entries)."""
    stem = os.path.splitext(os.path.basename(py_func.__code__.co_filename))[0]
    qual = py_func.__qualname__.replace("<", "").replace(">", "")
    return f"{stem}.{qual}.py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"

