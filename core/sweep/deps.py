"""The optional ``sweep`` extra: Dask, pandas, pyarrow, tqdm and matplotlib, imported on use with a clear message.

The engine and the app work without them; only core.sweep's orchestration, tables and plots need them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRA_HINT = "pip install 'miran-studio[sweep]'"


class MissingExtra(ImportError):
    """An optional package of the ``sweep`` extra is not installed; the message says how to install it."""


def require(module: str, what: str) -> ModuleType:
    """Import ``module`` or raise MissingExtra naming it, what needs it and the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".")[0]
        raise MissingExtra(f"{what} needs the optional package {top!r}, which is not installed ({e}); install the "
                           f"'sweep' extra: {EXTRA_HINT}") from None
