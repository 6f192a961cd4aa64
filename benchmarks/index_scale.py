"""`reportgen index` at scale, on small generated rounds (benchmarks/tiny_rounds.py).

Each run is a fresh ``python -m reportgen index`` process measured with its whole process tree
(benchmarks/proctree.py: the forkserver's builders included): wall time, CPU (user + system of
every process), the peak of the tree's summed RSS and the largest single process:

- ``small``: ``small`` rounds, first run (the memory reference);
- ``first``: ``count`` rounds into an empty site;
- ``unchanged``: the same again, nothing changed;
- ``one_changed``: one result file of one round edited;
- ``alone``: ``reportgen build`` of that round by itself (the reference for ``one_changed``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from benchmarks import proctree, tiny_rounds


def timed(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    """``cmd``'s whole tree in a fresh measuring process: wall s, CPU s, peak tree RSS MB and
    the largest process's MB."""
    got = proctree.measured(cmd, env)
    return {"wall_s": got.wall_s, "cpu_s": got.cpu_s, "peak_mb": got.peak_tree_mb,
            "peak_process_mb": got.peak_process_mb, "processes": got.processes}


def measure(root: Path, count: int, small: int, jobs: int, env: dict[str, str],
            say: Any) -> dict[str, dict[str, float]]:
    rounds = tiny_rounds.generate(root / "rounds", max(count, small))
    index = [sys.executable, "-m", "reportgen", "index", "-q", "-j", str(jobs)]
    out: dict[str, dict[str, float]] = {}

    def run(name: str, folders: list[Path], site: Path) -> None:
        say(f"index: {name} ({len(folders)} rounds) …")
        got = timed([*index, *map(str, folders), "-o", str(site)], env)
        out[name] = {**got, "rounds": len(folders)}

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
    got = timed([sys.executable, "-m", "reportgen", "build", str(target.parents[2]),
                 "-o", str(root / "alone.html")], env)
    out["alone"] = {**got, "rounds": 1}
    site_bytes = sum(p.stat().st_size for p in (root / "site").glob("*.html"))
    out["site"] = {"pages_mb": site_bytes / 1e6,
                   "index_mb": (root / "site" / "index.html").stat().st_size / 1e6}
    return out
