"""A tiny round with per-request arrays whose goodput, capacity and percentiles are worked out
by hand in tests/test_analyze_goodput.py (vLLM `--save-detailed` records, seconds)."""

from __future__ import annotations

import json
from pathlib import Path

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


def record(concurrency: int, duration: float,
           rows: list[tuple[float, float, int, str]]) -> dict[str, object]:
    itls = [[(lat - ttft) / (n - 1)] * (n - 1) if n > 1 else [] for ttft, lat, n, _ in rows]
    ok = [r for r in rows if not r[3]]
    return {
        "date": "20261201-120000", "backend": "vllm", "model_id": "m", "num_prompts": len(rows),
        "max_concurrency": concurrency, "request_rate": "inf", "duration": duration,
        "completed": len(ok), "failed": len(rows) - len(ok), "total_input_tokens": 8 * len(ok),
        "total_output_tokens": sum(r[2] for r in ok),
        "input_lens": [8] * len(rows), "output_lens": [r[2] for r in rows],
        "ttfts": [r[0] for r in rows], "latencies": [r[1] for r in rows], "itls": itls,
        "errors": [r[3] for r in rows], "generated_texts": ["x"] * len(rows),
    }


def write_round(root: Path, slo: str = "") -> Path:
    engines = "".join(f'\n[[engines]]\nid = "{e}"\nlabel = "{e}"\ndir = "{e}"\nkind = "vllm"\n'
                      for e in TIERS)
    (root / "round.toml").write_text(
        '[round]\ntitle = "slo"\n\n[workload]\ninput_tokens = 8\noutput_tokens = 11\n'
        + engines + slo, encoding="utf-8")
    for engine, tiers in TIERS.items():
        bench = root / engine / "bench"
        bench.mkdir(parents=True)
        for c, (duration, rows) in tiers.items():
            (bench / f"c{c}.json").write_text(json.dumps(record(c, duration, rows)),
                                              encoding="utf-8")
    return root
