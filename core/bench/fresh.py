"""Figures measured in fresh processes of this interpreter: the same kernels run at different speeds in different
processes for a process's whole life (docs: Explanation, how performance is measured), so figures that compare
take one run per process and report the median."""

from __future__ import annotations

import json
import subprocess
import sys


def in_fresh_processes(child: str, payload, count: int, what: str) -> list:
    """Run ``child`` ("module:function", which reads ``payload`` as JSON from stdin and prints one JSON line last) in
    ``count`` fresh processes, one after the other; each process's parsed line. RuntimeError naming ``what`` and the
    process's last error line when one exits non-zero."""
    module, function = child.split(":")
    runs = []
    for _ in range(max(1, count)):
        out = subprocess.run([sys.executable, "-c", f"from {module} import {function}; {function}()"],
                             input=json.dumps(payload), capture_output=True, text=True, check=False)
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"a {what} process exited with status {out.returncode}: {tail}")
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return runs
