"""A tiny round with per-request arrays whose goodput, capacity and percentiles are worked out
by hand in tests/test_analyze_goodput.py (vLLM `--save-detailed` records, seconds)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.slo_round import record, write_round_toml

# (ttft s, latency s, output tokens, error) per request; itls are spread evenly over the
# decode time so that latency = ttft + sum(itls)
TIERS: dict[str, dict[int, tuple[float, list[tuple[float, float, int, str]]]]] = {
    "fast": {
        1: (10.0, [(0.2, 1.2, 11, ""), (0.5, 2.5, 5, ""), (0.6, 0.6, 1, ""),
                   (0.0, 0.0, 0, "boom")]),
        2: (5.0, [(0.1, 0.6, 6, ""), (0.3, 1.3, 11, "")]),
        4: (4.0, [(0.4, 0.9, 6, ""), (0.8, 1.8, 11, "")]),
    },
    "slow": {
        1: (8.0, [(0.3, 1.3, 11, ""), (0.4, 1.4, 11, "")]),
        2: (8.0, [(0.7, 1.7, 11, ""), (0.2, 1.2, 11, "")]),
    },
}


def write_round(root: Path, slo: str = "") -> Path:
    write_round_toml(root, "slo", 11, TIERS, slo)
    for engine, tiers in TIERS.items():
        bench = root / engine / "bench"
        bench.mkdir(parents=True)
        for c, (duration, rows) in tiers.items():
            (bench / f"c{c}.json").write_text(json.dumps(record(c, duration, rows)),
                                              encoding="utf-8")
    return root
