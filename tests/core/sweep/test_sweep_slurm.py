"""The guide's Slurm example (docs/guide/sweeps.md), run: its SLURMCluster builds a valid batch script, and its snippet
and the ``miran sweep --scheduler`` command it describes give the in-process tables. No Slurm here: a stand-in
``sbatch`` runs the submitted job script on this machine (in a session of its own) and ``scancel`` stops it, so the
workers are the ones the job script starts."""

from __future__ import annotations

import ast
import os
import re
import signal
import stat
import subprocess
import sys
from pathlib import Path

import dask_jobqueue as jobqueue  # the test extra installs it: a missing one is an error, not a skip
import pytest

import core.sweep as sweep
from core.cli.main import main
from core.cli.sweep import ADDRESS
from core.sweep.table import read_tables, same_tables

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[3]
# The guide's sizes, and what the test runs instead on a small machine (8 x 4 would start 32 worker processes).
GUIDE_SIZES = {"cores=8, processes=8": "cores=2, processes=2", "jobs=4": "jobs=1"}
RUN_TIMEOUT = 600

SBATCH = """#!/usr/bin/env bash
# stand-in sbatch: copies the job script (the caller deletes its file) and runs it here in a session of its own
id=$(( $(find "$FAKE_SLURM_DIR" -name '*.sh' | wc -l) + 1 ))
cp "${@: -1}" "$FAKE_SLURM_DIR/$id.sh" || exit 1
setsid bash "$FAKE_SLURM_DIR/$id.sh" > "$FAKE_SLURM_DIR/$id.log" 2>&1 < /dev/null &
echo $! > "$FAKE_SLURM_DIR/$id.pid"
echo "Submitted batch job $id"
"""
SCANCEL = """#!/usr/bin/env bash
# stand-in scancel: stops the job's process group
for id in "$@"; do kill -TERM -- "-$(cat "$FAKE_SLURM_DIR/$id.pid")" 2>/dev/null || true; done
"""


def guide_snippet() -> str:
    """The Python block of the guide's Slurm paragraph."""
    guide = (ROOT / "docs" / "guide" / "sweeps.md").read_text()
    part = guide[guide.index("**On a Slurm cluster**"):]
    return re.search(r"```python\n(.*?)```", part, re.S).group(1)


def small(snippet: str) -> str:
    """The snippet with the test's sizes; each size the guide shows must be there once, so that the test follows the
    docs."""
    for shown, used in GUIDE_SIZES.items():
        assert snippet.count(shown) == 1, f"the guide's Slurm example no longer says {shown!r}"
        snippet = snippet.replace(shown, used)
    return snippet


def cluster_call(snippet: str) -> str:
    """The source of the snippet's ``SLURMCluster(...)`` call."""
    for node in ast.walk(ast.parse(snippet)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "SLURMCluster":
            return ast.get_source_segment(snippet, node)
    raise AssertionError("no SLURMCluster(...) in the guide's Slurm example")


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    """A folder of stand-in Slurm commands first on PATH; the jobs' files go to the returned folder, and every job
    still running at the end is stopped."""
    bin_dir, jobs = tmp_path / "bin", tmp_path / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    for name, text in (("sbatch", SBATCH), ("scancel", SCANCEL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_DIR", str(jobs))
    yield jobs
    for pid_file in jobs.glob("*.pid"):
        try:
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def sigma_reference():
    """The guide's example sweep in this process."""
    return sweep.run(ROOT / "scenes" / "sigma.sweep.json")


def test_the_guide_slurm_cluster_writes_a_valid_batch_script():
    """The guide's configuration as shown (no submission): the #SBATCH lines and the worker command it says."""
    cluster = eval(cluster_call(guide_snippet()), {"SLURMCluster": jobqueue.SLURMCluster})
    try:
        script = cluster.job_script()
        address = cluster.scheduler_address
    finally:
        cluster.close()
    sbatch = re.findall(r"^#SBATCH (.+)$", script, re.M)
    assert sbatch == ["-J dask-worker", "-p normal", "-n 1", "--cpus-per-task=8", "--mem=15G", "-t 02:00:00"], script
    command = [line for line in script.splitlines() if "distributed.cli.dask_worker" in line]
    assert len(command) == 1 and command[0].startswith(sys.executable), script
    assert f" {address} " in command[0] and "--nworkers 8" in command[0] and "--nthreads 1" in command[0]
    # bash reads it
    subprocess.run(["bash", "-n"], input=script, text=True, check=True)
    # and miran sweep --scheduler takes such an address
    assert ADDRESS.match(address), address


def test_the_guide_slurm_snippet_runs_the_sweep_on_the_jobs_workers(tmp_path, fake_slurm, sigma_reference):
    """The guide's snippet as a script (2 processes, 1 job): the workers the job script starts run the sweep."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "scenes").symlink_to(ROOT / "scenes")
    (work / "slurm_example.py").write_text(small(guide_snippet()))
    r = subprocess.run([sys.executable, "slurm_example.py"], cwd=work, capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    assert r.returncode == 0, r.stderr + "".join(p.read_text() for p in fake_slurm.glob("*.log"))
    assert "#SBATCH -p normal" in r.stdout and "--nworkers 2" in r.stdout
    assert sorted(p.name for p in fake_slurm.glob("*.sh")) == ["1.sh"]
    assert same_tables(sigma_reference, read_tables(work / "sigma.parquet"))


def test_miran_sweep_takes_the_slurm_clusters_address(tmp_path, fake_slurm, sigma_reference):
    """The command the guide shows, given the address of the guide's cluster (2 processes, 1 job)."""
    import distributed

    snippet = small(guide_snippet())
    jobs = int(re.search(r"\.scale\(jobs=(\d+)\)", snippet).group(1))
    out = tmp_path / "sigma.parquet"
    with eval(cluster_call(snippet), {"SLURMCluster": jobqueue.SLURMCluster}) as cluster:
        cluster.scale(jobs=jobs)
        with distributed.Client(cluster) as client:
            client.wait_for_workers(2, timeout=RUN_TIMEOUT)
        assert main(["sweep", str(ROOT / "scenes" / "sigma.sweep.json"), "--scheduler", cluster.scheduler_address,
                     "--out", str(out)]) == 0
    assert same_tables(sigma_reference, read_tables(out))
