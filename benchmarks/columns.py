"""Issue 35 item 1, per-request data in columns: three generated rounds, each timed through
its whole process tree (benchmarks/proctree.py: wall, CPU, peak RSS), in a fresh process.

- 64 configurations × 12 tiers × 400 requests with ``--save-detailed`` arrays, ~39 M ITL gaps
  (benchmarks/detailed_round.py): ``reportgen build`` ≤ 10 s, peak RSS ≤ 1 GB;
- 1 M AIPerf 0.13 per-request records, ~2.9 GB of JSON Lines (benchmarks/aiperf_big.py):
  ``reportgen tables`` ≤ 15 s, peak RSS ≤ 1 GB;
- 100,000 GuideLLM requests (benchmarks/guidellm_big.py): ``reportgen build`` no slower than
  before the change (``GUIDELLM_BEFORE_S``, measured on this VM).

The rounds are generated once under benchmarks/_generated/columns/ (git-ignored) and reused
while their parameters match (the generation is not timed).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import aiperf_big, detailed_round, guidellm_big, proctree

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "_generated" / "columns"
# `reportgen build` of the 100,000-request GuideLLM round before issue 35 (2026-12-06, this
# 2-core VM, load average 2): wall s, the least of 3 runs (CPU 1.70 s, peak 517 MB)
GUIDELLM_BEFORE_S = 1.92
SCALES = {  # (configs, tiers, requests a file), AIPerf records, GuideLLM requests
    "full": ((64, 12, 400), 1_000_000, 100_000),
    "quick": ((8, 4, 200), 50_000, 10_000),
}


def _ensure(name: str, params: dict[str, Any], make: Callable[[Path], Any],
            say: Callable[[str], None]) -> Path:
    """``_generated/columns/<name>``, generated again when its parameters changed."""
    root = GENERATED / name
    stamp = root / ".params.json"
    if stamp.exists() and json.loads(stamp.read_text()) == params:
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    say(f"columns: generating {name} {params} …")
    began = time.perf_counter()
    make(root)
    say(f"columns: {name} generated in {time.perf_counter() - began:.0f} s")
    stamp.write_text(json.dumps(params))
    return root


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(HERE / "_generated" / "pycache")
    env["PYTHONPATH"] = str(HERE.parent)   # this checkout's reportgen, not an installed one
    return env


def timed(args: list[str], repeats: int = 1) -> dict[str, float]:
    """``python -m reportgen ARGS`` through its whole tree; the run of least wall time of
    ``repeats`` (after one unmeasured warm-up when there are several: the generated files are
    in the page cache already, having just been written or read)."""
    cmd = [sys.executable, "-m", "reportgen", *args]
    if repeats > 1:
        proctree.measured(cmd, _env())
    runs = [proctree.measured(cmd, _env()) for _ in range(repeats)]
    best = min(runs, key=lambda u: u.wall_s)
    return {"wall_s": best.wall_s, "cpu_s": best.cpu_s, "peak_mb": best.peak_tree_mb,
            "peak_process_mb": best.peak_process_mb}


def measure(mode: str, work: Path, say: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """The three rows: name → measured figures (see the module doc)."""
    (configs, tiers, requests), records, guide = SCALES[mode]
    out: dict[str, dict[str, Any]] = {}

    def detailed(root: Path) -> None:
        _, values = detailed_round.make(root, configs, tiers, requests)
        (root / ".itl_values").write_text(str(values))

    root = _ensure(f"detailed-{mode}", {"configs": configs, "tiers": tiers,
                                        "requests": requests, "v": 2}, detailed, say)
    say("columns: build of the detailed round …")
    out["detailed"] = timed(["build", str(root), "-o", str(work / "detailed.html")])
    out["detailed"]["requests"] = configs * tiers * requests
    out["detailed"]["itl_values"] = float((root / ".itl_values").read_text())

    root = _ensure(f"aiperf-{mode}", {"records": records, "v": 1},
                   lambda r: aiperf_big.make(r, records), say)
    say("columns: tables of the AIPerf records …")
    out["aiperf"] = timed(["tables", str(root), "-o", str(work / "aiperf.json")])
    out["aiperf"]["records"] = records
    out["aiperf"]["jsonl_gb"] = sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e9
    root = _ensure(f"guidellm-{mode}", {"requests": guide, "v": 1},
                   lambda r: guidellm_big.make(r, guide), say)
    say("columns: build of the GuideLLM round …")
    out["guidellm"] = timed(["build", str(root), "-o", str(work / "guidellm.html")], 3)
    out["guidellm"]["requests"] = guide
    return out
