"""`reportgen index` at scale, on small generated rounds (benchmarks/tiny_rounds.py).

Each run is a fresh ``python -m reportgen index`` process measured with its whole process tree
(benchmarks/proctree.py: the forkserver's builders included): wall time, CPU (user + system of
every process), the peak of the tree's summed RSS and the largest single process:

- ``small``: ``small`` rounds, first run (the memory reference);
- ``first``: ``count`` rounds into an empty site;
- ``unchanged``: the same again, nothing changed;
- ``one_changed``: one result file of one round edited;
- ``alone``: ``reportgen build`` of that round by itself (the reference for ``one_changed``);
- ``small_single``: the ``small`` rounds again with ``--self-contained`` (today's single-file
  reports), against ``small``'s shared scripts: the site's bytes (reports, index.html,
  ``_static/``; the cache and the dataset counted apart);
- ``trend``: the dataset's trend values read with DuckDB (``dataset.trend_values``), in process,
  as the index reads them (from the compacted files) and from the per-round files alone.
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

    def run(name: str, folders: list[Path], site: Path, *extra: str) -> None:
        say(f"index: {name} ({len(folders)} rounds) …")
        got = timed([*index, *extra, *map(str, folders), "-o", str(site)], env)
        out[name] = {**got, "rounds": len(folders), **site_bytes(site),
                     "index_mb": (site / "index.html").stat().st_size / 1e6}

    for site in ("site-small", "site-small-single", "site"):
        shutil.rmtree(root / site, ignore_errors=True)
    run("small", rounds[:small], root / "site-small")
    run("small_single", rounds[:small], root / "site-small-single", "--self-contained")
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
    out["site"] = {**site_bytes(root / "site"),
                   "index_mb": (root / "site" / "index.html").stat().st_size / 1e6}
    names = [r.name for r in rounds[:count]]
    if (root / "site" / "dataset" / "values").is_dir():
        import time

        from reportgen.dataset import trend_values
        from reportgen.index.page import METRICS

        took = {}   # the first call imports DuckDB, as the index's does
        for key, compacted in (("duckdb_s", True), ("per_round_s", False)):
            began = time.perf_counter()
            trend_values(root / "site" / "dataset", names, [m for m, _, _ in METRICS],
                         compacted=compacted)
            took[key] = time.perf_counter() - began
        out["trend"] = {**took, "rounds": len(names)}
    return out


def site_bytes(site: Path) -> dict[str, float]:
    """MB of what a reader opens (reports, index.html, _static/) and, apart, of the index's
    cache and the Parquet dataset."""
    def size(paths: Any) -> float:
        return sum(p.stat().st_size for p in paths if p.is_file()) / 1e6

    return {"pages_mb": size(site.glob("*.html")) + size((site / "_static").glob("*")),
            "cache_mb": size((site / ".reportgen-index").rglob("*")),
            "dataset_mb": size((site / "dataset").rglob("*"))}
