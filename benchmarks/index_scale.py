"""`reportgen index` at scale, on small generated rounds (benchmarks/tiny_rounds.py).

Each run is a fresh ``python -m reportgen index`` process; its wall time and the peak RSS of
the largest process of its tree (the parent or one builder process, ``RUSAGE_CHILDREN`` of a
wrapper) are recorded:

- ``small``: ``small`` rounds, first run (the memory reference);
- ``first``: ``count`` rounds into an empty site;
- ``unchanged``: the same again, nothing changed;
- ``one_changed``: one result file of one round edited;
- ``alone``: ``reportgen build`` of that round by itself (the reference for ``one_changed``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks import tiny_rounds

WRAPPER = """
import resource, subprocess, sys, time
began = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(time.perf_counter() - began, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, peak RSS MB of the largest process) of ``cmd`` run in a fresh wrapper."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], check=True, env=env,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]) / 1024


def measure(root: Path, count: int, small: int, jobs: int, env: dict[str, str],
            say: Any) -> dict[str, dict[str, float]]:
    rounds = tiny_rounds.generate(root / "rounds", max(count, small))
    index = [sys.executable, "-m", "reportgen", "index", "-q", "-j", str(jobs)]
    out: dict[str, dict[str, float]] = {}

    def run(name: str, folders: list[Path], site: Path) -> None:
        say(f"index: {name} ({len(folders)} rounds) …")
        wall, peak = timed([*index, *map(str, folders), "-o", str(site)], env)
        out[name] = {"wall_s": wall, "peak_mb": peak, "rounds": len(folders)}

    for site in ("site-small", "site"):
        shutil.rmtree(root / site, ignore_errors=True)
    run("small", rounds[:small], root / "site-small")
    run("first", rounds[:count], root / "site")
    run("unchanged", rounds[:count], root / "site")
    target = rounds[count // 2] / "vllm" / "bench" / "c4.json"
    data = json.loads(target.read_text())
    data["output_throughput"] *= 1.01
    target.write_text(json.dumps(data))
    run("one_changed", rounds[:count], root / "site")
    say("index: that round built alone …")
    wall, peak = timed([sys.executable, "-m", "reportgen", "build", str(target.parents[2]),
                        "-o", str(root / "alone.html")], env)
    out["alone"] = {"wall_s": wall, "peak_mb": peak, "rounds": 1}
    site_bytes = sum(p.stat().st_size for p in (root / "site").glob("*.html"))
    out["site"] = {"pages_mb": site_bytes / 1e6,
                   "index_mb": (root / "site" / "index.html").stat().st_size / 1e6}
    return out
