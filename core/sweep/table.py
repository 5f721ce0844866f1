"""The sweep's tables (pandas) and their files: the run table at ``--out`` (Parquet or CSV), the character table
beside it (``results.characters.parquet``), and the journal the rows stream to as runs finish.

Run table, one row per run, in run order: ``run`` (index in the spec's order), ``run_id`` (the resume key),
``scene``, ``seed``, one column per parameter (named as in the spec, e.g. ``adult.sigma``), ``n_agents``,
``steps``, ``sim_time`` (s), and per metric: ``arrived``, ``lost``, ``arrival_rate``, ``recovery_share`` (the
share of the characters' steps that the progress guarantee walked, core.sim.progress) and ``stalled``
(characters that stalled at least once); ``mean_time`` (s, over the characters that arrived); ``mean_length``;
``mean_weighted_length``; ``mean_length.<terrain>``; ``min_clearance`` (the smallest over the characters);
``mean_speed``; ``cpu_time`` (s, the worker's CPU time for the whole task).

Character table, one row per character: ``run``, ``run_id``, ``agent``, ``profile``, ``status`` ('arrived',
'walking', 'lost'), ``lost_reason`` (why a lost one is lost, else empty), ``arrived``, ``recovered_steps`` and
``stalls`` (its recovery counter: steps the progress guarantee walked, recoveries started), ``time`` (arrival time
in s, NaN if it did not arrive), ``length``, ``weighted_length`` (sum over terrain types of weight x length),
``length.<terrain>``, ``min_clearance`` (minus the disc radius for disc MIRAN and IRM), ``mean_speed`` (length /
time walked).

Every column but ``cpu_time`` is deterministic: the same spec gives the same values whatever ran it.
"""

from __future__ import annotations

import csv
import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Iterable, NamedTuple, TextIO

from core.export.csvsafe import escape_frame, unescape_cell, unescape_frame
from core.scene.atomic import write_file_atomic
from core.scene.outputs import output_problems
from core.scene.problems import InputError, Problem

from .deps import require

FORMATS = (".parquet", ".csv")
# Columns read back from CSV as text whatever they hold ("0123" stays "0123", an empty reason stays "").
TEXT_COLUMNS = ("run_id", "scene", "agent", "profile", "status", "lost_reason", "method", "integrator", "planner")
# Columns that measure the machine, not the model: left out when tables are compared.
TIMING_COLUMNS = ("cpu_time",)


class SweepTables(NamedTuple):
    """A sweep's results: ``runs`` (one row per run) and ``characters`` (one row per character), pandas
    DataFrames in run order."""

    runs: Any
    characters: Any


def _pd():
    return require("pandas", "the sweep's tables")


def frames(results: Iterable[dict[str, Any]]) -> SweepTables:
    """The two tables of task results (``{"run": row, "characters": rows}``), sorted by run index."""
    pd = _pd()
    res = sorted(results, key=lambda r: r["run"]["run"])
    runs = pd.DataFrame.from_records([r["run"] for r in res])
    chars = pd.DataFrame.from_records([c for r in res for c in r["characters"]])
    return SweepTables(runs.reset_index(drop=True), chars.reset_index(drop=True))


def check_out_path(path: str | os.PathLike, name: str = "--out") -> Path:
    """The output path, checked: a .parquet or .csv file in an existing folder."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise InputError([Problem(name, f"{p.name}: the table is written as .parquet or .csv, by its extension")])
    if not p.parent.exists() and str(p.parent) not in ("", "."):
        raise InputError([Problem(name, f"no such folder: {p.parent}")])
    if p.suffix.lower() == ".parquet":
        require("pyarrow", "writing Parquet tables")
    return p


def check_outputs(out: str | os.PathLike, inputs: Iterable[tuple[str, Any]] = (), keep_paths: bool = False,
                  name: str = "--out") -> None:
    """Before any run: InputError naming each file the sweep writes (the run table ``out``, its character table and
    journal, the paths folder) that cannot be written, is a folder, or names an input (``inputs``: (label, path)
    pairs, the spec and its scenes)."""
    out = Path(out)
    outputs = [(name, out), ("the character table", characters_path(out)), ("the journal", journal_path(out))]
    problems = [Problem(label, msg) for label, msg in output_problems(outputs, list(inputs))]
    if keep_paths:
        d = paths_dir(out)
        if d.exists() and not d.is_dir():
            problems.append(Problem("--keep-paths", f"{d} exists and is not a folder"))
        clash = [label for label, p in inputs if p is not None and Path(p).resolve().is_relative_to(d.resolve())]
        if clash:
            problems.append(Problem("--keep-paths", f"the paths folder {d} holds the input {clash[0]}"))
    if problems:
        raise InputError(problems)


def characters_path(out: str | os.PathLike) -> Path:
    """Where the character table of the run table ``out`` goes: ``results.characters.parquet``."""
    p = Path(out)
    return p.with_name(f"{p.stem}.characters{p.suffix}")


def journal_path(out: str | os.PathLike) -> Path:
    """The journal of ``out``: one JSON line per finished run, kept until the tables are written."""
    p = Path(out)
    return p.with_name(f"{p.name}.journal")


def paths_dir(out: str | os.PathLike) -> Path:
    """Where ``--keep-paths`` writes one miran-paths file per run."""
    p = Path(out)
    return p.with_name(f"{p.stem}.paths")


def write_tables(out: str | os.PathLike, results: Iterable[dict[str, Any]]) -> SweepTables:
    """Write both tables atomically (temporary file + rename); returns them."""
    t = frames(results)
    out = Path(out)
    for df, path in ((t.runs, out), (t.characters, characters_path(out))):
        write_file_atomic(path, _writer(df, path.suffix.lower()))
    return t


def _writer(df: Any, suffix: str):
    """What writes ``df`` to a temporary path, in the format of ``suffix``."""
    def fill(tmp: str) -> None:
        if suffix == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            # text cells escaped against formulas and quoted (core.export.csvsafe); numbers as they are
            escape_frame(df).to_csv(tmp, index=False, quoting=csv.QUOTE_NONNUMERIC)
    return fill


def read_tables(out: str | os.PathLike) -> SweepTables:
    """Read the run table ``out`` and its character table (an empty one if that file is missing)."""
    pd = _pd()
    out = Path(out)

    def read(p: Path):
        if p.suffix.lower() == ".parquet":
            return pd.read_parquet(p)
        # pandas 3 reads floats back exactly by default; pandas 2 needs asking (and warns about it since 3)
        exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
        # keys and ids are text even when they are all digits ("0123..." would lose its zero as a number)
        return unescape_frame(pd.read_csv(p, dtype={c: str for c in TEXT_COLUMNS},
                                          **exact))

    def checked(p: Path):
        try:
            st = p.stat()
        except FileNotFoundError:
            raise InputError([Problem("", f"no such file: {p}")]) from None
        except OSError as e:
            raise InputError([Problem("", f"cannot read {p}: {e.strerror or e}")]) from None
        if not stat.S_ISREG(st.st_mode):
            raise InputError([Problem("", f"{p} is not a regular file")])
        try:
            return read(p)
        except Exception as e:  # a truncated or foreign file: pandas and pyarrow raise many kinds
            msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            raise InputError([Problem("", f"cannot read the table: {msg}")], str(p)) from None

    cp = characters_path(out)
    for p in (out, cp) if cp.exists() else (out,):
        sniff_table(p)
    runs = checked(out)
    chars = checked(cp) if cp.exists() else pd.DataFrame()
    if "lost_reason" in chars.columns:
        # CSV has no empty string apart from a missing value: a character that is not lost has no reason.
        chars["lost_reason"] = chars["lost_reason"].astype(object).where(chars["lost_reason"].notna(), "")
        chars["lost_reason"] = chars["lost_reason"].astype(str)
    return SweepTables(runs, chars)


# The columns without which a table is not a sweep's: --resume refuses it rather than guess.
RUN_KEYS = ("run", "run_id", "n_agents")
CHARACTER_KEYS = ("run", "run_id", "agent")


def sniff_table(p: Path) -> None:
    """Refuse a file that cannot be a table of its extension before pandas or pyarrow is even loaded (a second or
    two): a Parquet file starts and ends with ``PAR1``."""
    if p.suffix.lower() != ".parquet":
        return
    try:
        with open(p, "rb") as f:
            head = f.read(4)
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4))
            tail = f.read(4)
    except OSError:
        return  # the reader names it
    if size < 12 or head != b"PAR1" or tail != b"PAR1":
        raise InputError([Problem("", "cannot read the table: not a Parquet file (it does not start and end "
                                      "with PAR1)")], str(p))


def csv_header(p: str | os.PathLike) -> list[str] | None:
    """The column names of a CSV table (escapes removed), read with the csv module alone; None when there is no
    first line to read."""
    try:
        with open(p, encoding="utf-8", errors="replace", newline="") as f:
            first = f.readline(1 << 20)
    except OSError:
        return None
    if not first:
        return None
    try:
        return [unescape_cell(c) for c in next(csv.reader([first]))]
    except (csv.Error, StopIteration):
        return None


def results_from_tables(t: SweepTables, source: str = "") -> dict[str, dict[str, Any]]:
    """run_id -> task result rebuilt from tables read back (the rows --resume keeps). A run is kept only with all
    its character rows (``n_agents`` of them): one whose characters are missing runs again. InputError when a
    table lacks a sweep table's columns."""
    missing = [c for c in RUN_KEYS if c not in t.runs.columns]
    if missing:
        raise InputError([Problem("", f"not a sweep's run table: no column {', '.join(map(repr, missing))}")],
                         source)
    if len(t.characters.columns):
        missing = [c for c in CHARACTER_KEYS if c not in t.characters.columns]
        if missing:
            raise InputError([Problem("", f"not a sweep's character table: no column "
                                          f"{', '.join(map(repr, missing))}")], str(characters_path(source)))
    out: dict[str, dict[str, Any]] = {}
    for row in t.runs.to_dict("records"):
        out[str(row["run_id"])] = {"run": _plain(row), "characters": []}
    if len(t.characters):
        for row in t.characters.to_dict("records"):
            r = out.get(str(row["run_id"]))
            if r is not None:
                r["characters"].append(_plain(row))
    return {k: r for k, r in out.items() if _whole(r)}


def _whole(result: dict[str, Any]) -> bool:
    """Whether a result read back holds a well-formed run row with every one of its character rows."""
    n = result["run"].get("n_agents")
    return _is_count(result["run"].get("run")) and _is_count(n) and len(result["characters"]) == n


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _plain(row: dict) -> dict:
    out = {}
    for k, v in row.items():
        if hasattr(v, "item"):
            v = v.item()
        out[k] = v
    return out


class Journal:
    """Finished runs appended as JSON lines, each handed to the operating system as it is written (``append``),
    so that a killed sweep loses at most the line being written (a truncated last line is skipped on reading);
    ``sync`` forces them to the disk (fsync), which a crash of the whole machine needs: the sweep calls it once per
    Dask batch, so such a crash loses at most the batches since, which --resume runs again."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._f: TextIO | None = None

    def append(self, result: dict[str, Any]) -> None:
        """Write one finished run's line and flush it to the operating system (no fsync: see ``sync``)."""
        if self._f is None:
            self._f = open(self.path, "a", encoding="utf-8")
        self._f.write(json.dumps({"run": result["run"], "characters": result["characters"]}) + "\n")
        self._f.flush()

    def sync(self) -> None:
        """Force the lines written so far to the disk."""
        if self._f is not None:
            os.fsync(self._f.fileno())

    def read(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return out
        for line in lines:
            try:
                r = json.loads(line)
            except (json.JSONDecodeError, RecursionError, ValueError):
                continue
            if is_result(r):
                out.append(r)
        return out

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def is_result(r: Any) -> bool:
    """Whether a journal line holds one run's result: a run row with its index and key and a list of character
    rows of that run (a truncated, foreign or hand-edited line is not, and is run again)."""
    if not isinstance(r, dict) or not isinstance(r.get("run"), dict) or not isinstance(r.get("characters"), list):
        return False
    run = r["run"]
    if not isinstance(run.get("run_id"), str) or not _is_count(run.get("run")) or not _is_count(run.get("n_agents")):
        return False
    return len(r["characters"]) == run["n_agents"] and all(
        isinstance(c, dict) and c.get("run_id") == run["run_id"] for c in r["characters"])


def same_tables(a: SweepTables, b: SweepTables) -> bool:
    """Whether two sweeps' tables hold the same values, timing columns (``cpu_time``) left out; NaN equals NaN."""
    for x, y in ((a.runs, b.runs), (a.characters, b.characters)):
        x = x.drop(columns=[c for c in TIMING_COLUMNS if c in x.columns])
        y = y.drop(columns=[c for c in TIMING_COLUMNS if c in y.columns])
        if list(x.columns) != list(y.columns) or len(x) != len(y):
            return False
        for c in x.columns:
            for u, v in zip(x[c].tolist(), y[c].tolist()):
                if u != v and not (_isnan(u) and _isnan(v)):
                    return False
    return True


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)
