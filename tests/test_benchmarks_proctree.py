"""benchmarks/proctree.py: a command's whole process tree is measured, orphans included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import proctree

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")

# A grandchild that outlives its parent (as a forkserver's builder does: nobody up the chain
# waits for it): it holds 80 MB and burns about 0.5 s of CPU after its parent has exited.
BURN = ("import time\nb = bytearray(80_000_000)\nfor i in range(0, len(b), 4096): b[i] = 1\n"
        "t = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n")
ORPHANING = ("import os, subprocess, sys\n"
             f"subprocess.Popen([sys.executable, '-c', {BURN!r}])\nos._exit(0)\n")


def test_descendants_walks_the_tree_only() -> None:
    parents = {1: 0, 10: 1, 11: 10, 12: 10, 13: 11, 20: 1, 21: 20}
    assert proctree.descendants(10, parents) == {10, 11, 12, 13}
    assert proctree.descendants(21, parents) == {21}


def test_an_orphaned_grandchild_is_counted() -> None:
    got = proctree.measured([sys.executable, "-c", ORPHANING], dict(os.environ))
    assert got.cpu_s >= 0.45                 # the orphan's CPU, which RUSAGE_CHILDREN misses
    assert got.peak_tree_mb >= 80
    assert got.peak_process_mb >= 80
    assert got.processes >= 2
    assert got.wall_s >= 0.45                # it waited for the orphan


def test_a_failing_command_raises() -> None:
    with pytest.raises(subprocess.CalledProcessError):
        proctree.measured([sys.executable, "-c", "raise SystemExit(3)"], dict(os.environ))
