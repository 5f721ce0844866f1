"""The optional format libraries: imported on first use, with a message naming the extra when one is missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from core.scene.problems import InputError, Problem

EXTRA = "import"
# Module -> the distribution pip installs it from.
PACKAGES = {"svgelements": "svgelements", "ezdxf": "ezdxf", "pyogrio": "pyogrio", "pyproj": "pyproj",
            "osmium": "osmium"}


def require(module: str, what: str) -> ModuleType:
    """Import an optional library, or raise InputError saying which format needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        pkg = PACKAGES.get(module.split(".")[0], module)
        raise InputError([Problem("", f"reading {what} needs the Python package {pkg!r}, which is not installed: "
                                      f"pip install 'miran-studio[{EXTRA}]'")]) from None


__all__ = ["EXTRA", "PACKAGES", "require"]
