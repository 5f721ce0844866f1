"""The one jit decorator of the engine and its cache policy.

Every numba kernel in core is compiled with ``@jit`` (``nogil``, cached on disk), ``@jit(inline=True)`` for small
helpers numba inlines into their callers, and ``@jit(noalloc=True)`` for hot-path kernels that must not allocate.

The cache policy, in place of numba's per-file check:

- Key: numba stores, next to each cached function, a stamp of its source and reuses the machine code while the
  stamp matches. Its own stamp covers the function's file only, so a kernel inlining a helper from another file kept
  stale code after that helper changed. Here the stamp is a SHA-256 of the function's file and of every module of the
  same package it imports, transitively (their sources, so a change of a called kernel or of an imported constant
  invalidates the callers; a checkout that restores the same bytes reuses the cache). Nothing is deleted: a stale
  entry no longer matches and is overwritten when numba saves the new code.
- Place: ``NUMBA_CACHE_DIR`` when set (numba's own rule), else the ``__pycache__`` next to the source, else the user's
  cache directory.
- Concurrency: numba writes each index and data file to a uniquely named temporary beside it and renames it into
  place (``os.replace``, atomic on POSIX), and a reader that finds an index entry whose data file is not written yet
  compiles instead. Many processes starting together (a sweep's workers) therefore each see either a complete old
  file, a complete new one, or none; at worst two of them compile the same kernel.

The cache classes subclass numba's (``numba.core.caching``), which is why pyproject pins numba to the tested range.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, overload

import numba
from numba.core import caching

# A kernel as the type checker sees it: numba types its calls itself when it compiles them (often with star-args of
# the owners' array tuples, whose lengths a static checker cannot follow).
Kernel = Callable[..., Any]


@overload
def jit(fn: Callable[..., Any], /) -> Kernel: ...
@overload
def jit(*, inline: bool = False, noalloc: bool = False,
        parallel: bool = False) -> Callable[[Callable[..., Any]], Kernel]: ...


def jit(fn: Callable[..., Any] | None = None, /, *, inline: bool = False, noalloc: bool = False,
        parallel: bool = False) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Compile ``fn`` as a nogil numba kernel cached under the policy above; use as ``@jit`` or ``@jit(...)``.

    ``inline``: numba inlines the function into every jitted caller (``inline="always"``), for small helpers.
    ``noalloc``: compile without numba's reference-counting runtime (its private ``_nrt=False`` option, kept here
    only): the function cannot allocate arrays, so a hot-path kernel that starts allocating fails to compile
    instead of slowing down, and its calls carry no reference counting. ``parallel``: numba's ``parallel=True``,
    for the few kernels whose ``prange`` loops run blocks of work on several threads (slow to compile: keep them
    small)."""
    options: dict[str, Any] = {"nogil": True}
    if parallel:
        options["parallel"] = True
    if inline:
        options["inline"] = "always"
    if noalloc:
        options["_nrt"] = False

    def wrap(f: Callable[..., Any]) -> Kernel:
        dispatcher: Kernel = numba.njit(**options)(f)
        if not numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
            # What Dispatcher.enable_caching does, with this module's cache class.
            dispatcher._cache = _SourceTreeCache(f)  # type: ignore[attr-defined, no-untyped-call]
        return dispatcher

    return wrap if fn is None else wrap(fn)


@lru_cache(maxsize=None)
def source_stamp(module: str, path: str) -> str:
    """SHA-256 of ``path`` (the file of ``module``) and of the sources of the modules it imports, transitively, within
    the same top-level package: the key under which a kernel of that file is cached."""
    root = module.split(".", 1)[0]
    base = _package_base(root)
    if base is None:
        return _file_digest(path)
    h = hashlib.sha256()
    for f in sorted(_import_closure(root, str(base), module, str(Path(path).resolve()))):
        h.update(f"{Path(f).relative_to(base) if Path(f).is_relative_to(base) else f}:{_file_digest(f)}\n".encode())
    return h.hexdigest()


def _package_base(root: str) -> Path | None:
    """The directory holding the top-level package ``root`` (its parent), or None for a lone module."""
    mod = sys.modules.get(root)
    init = getattr(mod, "__file__", None)
    if not init or Path(init).name != "__init__.py":
        return None
    return Path(init).resolve().parent.parent


@lru_cache(maxsize=None)
def _file_digest(path: str) -> str:
    """SHA-256 of one file's bytes (read once per process: kernels are compiled against the sources loaded)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def _module_file(base: str, name: str) -> str | None:
    """The source file of module ``name`` under ``base``: ``a/b.py`` or ``a/b/__init__.py``, else None."""
    p = Path(base, *name.split("."))
    for f in (p.with_suffix(".py"), p / "__init__.py"):
        if f.is_file():
            return str(f)
    return None


@lru_cache(maxsize=None)
def _direct_imports(root: str, base: str, module: str, path: str) -> tuple[tuple[str, str], ...]:
    """(module, file) of every module of package ``root`` that the source at ``path`` imports."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    is_pkg = Path(path).name == "__init__.py"
    here = module if is_pkg else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = here.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{parent}.{node.module}" if node.module else parent
            else:
                target = node.module or ""
            names.append(target)
            names += [f"{target}.{a.name}" for a in node.names]  # a submodule imported by name
    out: list[tuple[str, str]] = []
    for name in names:
        if name.split(".", 1)[0] != root:
            continue
        f = _module_file(base, name)
        if f is not None:
            out.append((name, f))
    return tuple(out)


def _import_closure(root: str, base: str, module: str, path: str) -> set[str]:
    """The files of ``module`` and of every module of ``root`` it imports, transitively."""
    seen = {path}
    todo = [(module, path)]
    while todo:
        mod, f = todo.pop()
        for dep_mod, dep_file in _direct_imports(root, base, mod, f):
            if dep_file not in seen:
                seen.add(dep_file)
                todo.append((dep_mod, dep_file))
    return seen


class _ClosureStamp:
    """Locator mixin: the source stamp is ``source_stamp`` of the function's module instead of its file alone."""

    _py_file: str

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[call-arg]
        self._module = py_func.__module__

    def get_source_stamp(self) -> str:
        return source_stamp(self._module, self._py_file)


class _UserDirLocator(_ClosureStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``/<source dir's name and hash>/, when the variable is set."""


class _InTreeLocator(_ClosureStamp, caching.InTreeCacheLocator):
    """The ``__pycache__`` beside the source, when writable."""


class _UserWideLocator(_ClosureStamp, caching.UserWideCacheLocator):
    """The user's cache directory, for a read-only installation."""


class _SourceTreeImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_UserDirLocator, _InTreeLocator, _UserWideLocator]


class _SourceTreeCache(caching.FunctionCache):
    """numba's per-function cache (index + data files, atomic writes) with the locators above."""

    _impl_class = _SourceTreeImpl
