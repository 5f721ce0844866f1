"""Shared output helpers for the commands: JSON printing and writing result files without losing them."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from core.scene.atomic import destination_problem, keep_elsewhere, write_bytes_atomic
from core.scene.jsonio import dumps_readable
from core.scene.problems import InputError, Problem


def print_json(data: Any) -> None:
    """Print a JSON document on stdout."""
    json.dump(data, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")


def check_destination(path: str | None, option: str) -> None:
    """Before a run: InputError naming ``option`` when ``path`` cannot be written (nothing is left behind)."""
    if path is None:
        return
    msg = destination_problem(path)
    if msg:
        raise InputError([Problem(option, msg)])


def write_result(path: str | os.PathLike, option: str, data: bytes) -> None:
    """After a run: write the result atomically; when that fails, keep it in a named temporary file and raise an
    InputError naming ``option``, the reason and where the result is."""
    try:
        write_bytes_atomic(path, data)
    except OSError as e:
        kept = keep_elsewhere(path, data)
        where = f"; the result is kept in {kept}" if kept else "; the result could not be kept anywhere either"
        raise InputError([Problem(option, f"cannot write {path}: {e.strerror or e}{where}")]) from None


def json_bytes(data: Any, indent: int | None = 1) -> bytes:
    """A JSON document as the files are written (arrays of numbers on one line), UTF-8 with a final newline."""
    return (dumps_readable(data, indent) + "\n").encode("utf-8")
