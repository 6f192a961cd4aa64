"""Wall time, CPU and peak RSS of a command's whole process tree (Linux).

``RUSAGE_CHILDREN`` counts only descendants that were waited for, all the way up. ``reportgen
index`` builds in a forkserver's children: the forkserver waits for its builders, but nobody
waits for the forkserver, so a plain ``subprocess.run`` + ``getrusage`` misses every builder
(the cold 1,000-round run read 2.5 s of CPU over 112 s of wall time). Here the measuring
process makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a descendant whose
parent exits is re-parented to it, and it waits for every one before reading its usage, so the
CPU is the tree's. Memory is sampled: the sum of the RSS of every live process of the tree,
read from /proc every ``INTERVAL_S`` — the peak of that sum is the tree's peak RSS (a spike
shorter than the interval can be missed); ``ru_maxrss`` still gives the largest single process.

Run as a script (``python benchmarks/proctree.py CMD …``) it prints one JSON line, so each
measurement starts in a fresh process whose own usage is not mixed in.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

INTERVAL_S = 0.02
PR_SET_CHILD_SUBREAPER = 36
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class TreeUsage:
    wall_s: float
    cpu_s: float          # user + system of every process of the tree, builders included
    peak_tree_mb: float   # the largest sampled sum of the tree's RSS
    peak_process_mb: float   # the largest single process (ru_maxrss)
    processes: int        # processes seen in the tree (sampled)


def _parents(proc: Path = Path("/proc")) -> dict[int, int]:
    """pid → parent pid of every process visible now."""
    out: dict[int, int] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:          # gone between the listing and the read
            continue
        # "pid (comm) state ppid …": comm may hold spaces or parentheses
        fields = stat[stat.rfind(")") + 2:].split()
        out[int(entry.name)] = int(fields[1])
    return out


def descendants(root: int, parents: dict[int, int]) -> set[int]:
    """``root`` and every process below it in ``parents`` (pid → parent pid)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    seen = {root}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _make_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _reap_all() -> None:
    """Wait for every remaining descendant (orphans re-parented to this subreaper)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def measure(cmd: list[str], env: dict[str, str] | None = None,
            sample: Callable[[int], int] = _rss_bytes) -> TreeUsage:
    """Run ``cmd`` to completion and measure its whole tree. Call it in a fresh process: the
    usage read is this process's children's (``python benchmarks/proctree.py`` does that)."""
    if not _make_subreaper():
        raise RuntimeError("PR_SET_CHILD_SUBREAPER is not available (Linux only)")
    began = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    me = os.getpid()
    peak = 0
    seen: set[int] = set()
    while child.poll() is None:
        tree = descendants(me, _parents()) - {me}
        seen |= tree
        peak = max(peak, sum(sample(pid) for pid in tree))
        time.sleep(INTERVAL_S)
    # orphans (a forkserver left behind by its parent) may still run: keep sampling them
    while True:
        tree = descendants(me, _parents()) - {me}
        live = {pid for pid in tree if Path(f"/proc/{pid}/statm").exists()
                and _state(pid) != "Z"}
        if not live:
            break
        seen |= live
        peak = max(peak, sum(sample(pid) for pid in live))
        time.sleep(INTERVAL_S)
    _reap_all()
    wall = time.perf_counter() - began
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return TreeUsage(wall, usage.ru_utime + usage.ru_stime, peak / 1e6,
                     usage.ru_maxrss * 1024 / 1e6, len(seen))


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "X"
    return stat[stat.rfind(")") + 2:].split()[0]


def measured(cmd: list[str], env: dict[str, str] | None = None) -> TreeUsage:
    """``measure`` in a fresh process (so nothing earlier is counted)."""
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), *cmd], check=True,
                         env=env, capture_output=True, text=True).stdout
    return TreeUsage(**json.loads(out.strip().splitlines()[-1]))


if __name__ == "__main__":
    print(json.dumps(asdict(measure(sys.argv[1:]))))
