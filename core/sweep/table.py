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

import json
import math
import os
from pathlib import Path
from typing import Any, Iterable, NamedTuple, TextIO

from core.scene.problems import InputError, Problem

from .deps import require

FORMATS = (".parquet", ".csv")
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
        tmp = path.with_name(f".{path.name}.tmp")
        if path.suffix.lower() == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)
        os.replace(tmp, path)
    return t


def read_tables(out: str | os.PathLike) -> SweepTables:
    """Read the run table ``out`` and its character table (an empty one if that file is missing)."""
    pd = _pd()
    out = Path(out)

    def read(p: Path):
        if p.suffix.lower() == ".parquet":
            return pd.read_parquet(p)
        # pandas 3 reads floats back exactly by default; pandas 2 needs asking (and warns about it since 3)
        exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
        return pd.read_csv(p, **exact)

    try:
        runs = read(out)
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {out}")]) from None
    except Exception as e:  # a truncated or foreign file: pandas and pyarrow raise many kinds
        raise InputError([Problem("", f"cannot read the table: {e}")], str(out)) from None
    cp = characters_path(out)
    chars = read(cp) if cp.exists() else pd.DataFrame()
    if "lost_reason" in chars.columns:
        # CSV has no empty string apart from a missing value: a character that is not lost has no reason.
        chars["lost_reason"] = chars["lost_reason"].fillna("").astype(str)
    return SweepTables(runs, chars)


def results_from_tables(t: SweepTables) -> dict[str, dict[str, Any]]:
    """run_id -> task result rebuilt from tables read back (the rows --resume keeps)."""
    out: dict[str, dict[str, Any]] = {}
    for row in t.runs.to_dict("records"):
        out[str(row["run_id"])] = {"run": _plain(row), "characters": []}
    if len(t.characters):
        for row in t.characters.to_dict("records"):
            r = out.get(str(row["run_id"]))
            if r is not None:
                r["characters"].append(_plain(row))
    return out


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
            except json.JSONDecodeError:
                continue
            if isinstance(r, dict) and "run" in r and "characters" in r:
                out.append(r)
        return out

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


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
