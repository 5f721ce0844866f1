"""``miran bench --baseline REF``: the same sections of an earlier commit and of this tree, timed in one run.

A change that must keep the speed (a refactor) is checked against the commit before it on the same machine at the
same time: the commit's files are exported with ``git archive`` into a temporary folder, and the two trees' sections
run in alternating subprocesses of this interpreter (base, this tree, base, ...), so that a neighbour's load falls
on both. The first round of each tree is a warm-up, untimed (it compiles or loads the numba kernels of that tree);
of the timed rounds the best value of each record is kept. A record of the base and the same record of this tree
give one ratio record, this tree's value over the base's: below 1 a time got shorter.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from collections.abc import Callable, Sequence
from pathlib import Path

from core.scene.problems import InputError, Problem

from .record import Record

SECTION = "baseline"
ROOT = Path(__file__).resolve().parents[2]
# Units whose smaller values are better (times, CPU-load); for the others (ratios, rates) larger is better.
LOWER_IS_BETTER = {"s", "ms", "us", "%", "fraction"}
# First calls time numba loading its cache or compiling, not the kernels: left out of the comparison.
SKIPPED_PREFIX = "jit first"
Side = Callable[[Path], list[dict]]


def export_tree(ref: str, dest: Path, repo: Path = ROOT) -> Path:
    """Write the files of commit ``ref`` of ``repo`` into ``dest`` (``git archive``); the folder written."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n"):
        raise InputError([Problem("--baseline", f"expected a git commit (a hash, branch or tag), got {ref!r}")])
    try:
        out = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref], capture_output=True,
                             check=False, timeout=300)
    except FileNotFoundError:
        raise InputError([Problem("--baseline", "needs git on the PATH")]) from None
    if out.returncode != 0:
        why = out.stderr.decode(errors="replace").strip().splitlines()
        raise InputError([Problem("--baseline", f"cannot export {ref!r} from {repo}: "
                                                f"{why[-1] if why else 'git archive failed'}")])
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(dest, filter="data")
    if not (dest / "core" / "cli" / "__main__.py").is_file():
        raise InputError([Problem("--baseline", f"{ref!r} has no core/cli/__main__.py: not a MIRAN Studio commit")])
    return dest


def bench_tree(tree: Path, sections: Sequence[str], quick: bool) -> list[dict]:
    """Run ``miran bench --json`` on the sections with ``tree``'s code, in a subprocess of this interpreter."""
    cmd = [sys.executable, "-m", "core.cli", "bench", "--json"] + [a for s in sections for a in ("--section", s)]
    if quick:
        cmd.append("--quick")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        tail = (out.stderr or "").strip().splitlines()[-3:]
        raise RuntimeError(f"bench in {tree} exited {out.returncode}: {' / '.join(tail)}")
    return json.loads(out.stdout)


def best(runs: list[list[dict]]) -> dict[tuple[str, str], dict]:
    """Per (section, name), the record of the best run: the smallest value for times, the largest for the rest."""
    kept: dict[tuple[str, str], dict] = {}
    for records in runs:
        for r in records:
            key = (r["section"], r["name"])
            old = kept.get(key)
            if old is None:
                kept[key] = r
                continue
            better = r["value"] < old["value"] if r["unit"] in LOWER_IS_BETTER else r["value"] > old["value"]
            if better:
                kept[key] = r
    return kept


def compare(base: dict[tuple[str, str], dict], head: dict[tuple[str, str], dict], ref: str,
            rounds: int) -> list[Record]:
    """One ratio record (this tree over base) per record both trees report with the same unit and a value > 0 (first
    calls left out)."""
    out = []
    for key, h in head.items():
        if key[1].startswith(SKIPPED_PREFIX):
            continue
        b = base.get(key)
        if b is None or b["unit"] != h["unit"] or not b["value"] > 0 or not h["value"] >= 0:
            continue
        ratio = h["value"] / b["value"]
        better = "lower" if h["unit"] in LOWER_IS_BETTER else "higher"
        out.append(Record(SECTION, f"{key[0]}: {key[1]}", ratio, "x",
                          f"this tree {h['value']:.4g} {h['unit']} / {ref} {b['value']:.4g} {b['unit']} "
                          f"({better} is better); best of {rounds} alternating rounds"))
    return out


def run_against(ref: str, sections: Sequence[str], quick: bool, rounds: int = 3,
                side: Side | None = None, repo: Path = ROOT) -> list[Record]:
    """Export ``ref``, warm both trees up, time ``rounds`` alternating rounds and return the ratio records."""
    import tempfile

    run = side if side is not None else (lambda tree: bench_tree(tree, sections, quick))
    with tempfile.TemporaryDirectory(prefix="miran-baseline-") as tmp:
        base_tree = export_tree(ref, Path(tmp), repo)
        run(base_tree)
        run(repo)
        base_runs, head_runs = [], []
        for _ in range(max(1, rounds)):
            base_runs.append(run(base_tree))
            head_runs.append(run(repo))
    return compare(best(base_runs), best(head_runs), ref, max(1, rounds))
