"""Shared output helpers for the commands: the output rule (core.scene.outputs), JSON printing and writing result
files without losing them."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterable, Sequence

from core.scene.atomic import destination_problem, keep_elsewhere, write_bytes_atomic
from core.scene.jsonio import dumps_readable
from core.scene.outputs import output_problems
from core.scene.problems import InputError, Problem

# The files each command reads and writes, as (argparse destination, the name the message gives it): (inputs,
# outputs). ``main`` checks them before the command runs (``check_command_files``): an output never names an input,
# two outputs never name one file, and each output can be written. Commands that derive more outputs (a sweep's
# character table, journal and paths folder; sweep-plot's default name) or read more inputs (a sweep's scenes)
# check those themselves with ``check_outputs`` before any work.
Files = tuple[tuple[str, str], ...]
COMMAND_FILES: dict[str, tuple[Files, Files]] = {
    "simulate": ((("scene", "SCENE"),), (("out", "--out"),)),
    "route": ((("scene", "SCENE"), ("queries", "--queries")), (("out", "--out"),)),
    "ecm": ((("scene", "SCENE"),), (("out", "--out"), ("png", "--png"))),
    "import": ((("file", "FILE"),), (("out", "--out"),)),
    "export": ((("paths", "PATHS"), ("scene", "--scene")), (("out", "--out"),)),
    "sweep": ((("spec", "SPEC"),), (("out", "--out"),)),
    "sweep-plot": ((("results", "RESULTS"),), (("out", "--out"),)),
}


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


def check_outputs(outputs: Sequence[tuple[str, Any]], inputs: Iterable[tuple[str, Any]] = (),
                  writable: bool = True) -> None:
    """Before any work: InputError naming each output (by its option or field) that names an input, names another
    output or (``writable``) cannot be written (core.scene.outputs.output_problems)."""
    problems = output_problems(outputs, inputs, writable)
    if problems:
        raise InputError([Problem(label, msg) for label, msg in problems])


def check_command_files(command: str, args: Any) -> None:
    """The output rule for one parsed command line (``COMMAND_FILES``), before the command runs: InputError when an
    output names an input or another output. Whether each output can be written is the command's own check, after
    its options (``check_destination``), so that a bad option is named first."""
    inputs, outputs = COMMAND_FILES.get(command, ((), ()))

    def given(files: Files) -> list[tuple[str, str]]:
        return [(label, v) for dest, label in files if isinstance(v := getattr(args, dest, None), str)]

    check_outputs(given(outputs), given(inputs), writable=False)


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
