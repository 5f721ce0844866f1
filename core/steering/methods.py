"""Steering method names and the small integer codes the kernels dispatch on (one code per agent)."""

from __future__ import annotations

from core.scene.model import METHODS

MIRAN = 0
DISC_MIRAN = 1
IRM = 2

CODES = {"miran": MIRAN, "disc-miran": DISC_MIRAN, "irm": IRM}
assert tuple(CODES) == METHODS


def method_code(name: str) -> int:
    """The kernel code of a steering method name; ValueError listing the valid names otherwise."""
    try:
        return CODES[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r} (valid: {', '.join(METHODS)})") from None


def method_name(code: int) -> str:
    """The name of a method code."""
    return METHODS[int(code)]
