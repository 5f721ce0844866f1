"""CI's size or the full size of the corpora, fuzzing, soaks and interrupt trials (``MIRAN_TEST_FULL=1``)."""

from __future__ import annotations

import os


def full_size() -> bool:
    """Whether ``MIRAN_TEST_FULL`` asks for the full size."""
    return os.environ.get("MIRAN_TEST_FULL", "") not in ("", "0")


def size(ci: int, full: int, variable: str | None = None) -> int:
    """A count: ``variable`` from the environment when set, else ``full`` under MIRAN_TEST_FULL, else ``ci``."""
    value = os.environ.get(variable, "").strip() if variable else ""
    if value.isdigit():
        return int(value)
    return full if full_size() else ci
