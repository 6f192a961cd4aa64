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


def write_random_round(root: Path, slo: str = "", requests: int = 200,
                       tiers: tuple[int, ...] = (1, 4, 16, 64), seed: int = 7) -> Path:
    """Two configurations with log-normal latencies growing with the tier, a few failed and
    one-token requests, and some values exactly at 500 ms TTFT / 50 ms TPOT (the thresholds
    the browser test uses): its answers come from `tables --slo`, not from this file."""
    import numpy as np

    rng = np.random.default_rng(seed)
    engines = {"alpha": 1.0, "beta": 1.6}
    text = "".join(f'\n[[engines]]\nid = "{e}"\nlabel = "{e} <b>&</b>"\ndir = "{e}"\n'
                   'kind = "vllm"\n' for e in engines)
    (root / "round.toml").write_text(
        '[round]\ntitle = "random slo"\n\n[workload]\ninput_tokens = 8\noutput_tokens = 64\n'
        + text + slo, encoding="utf-8")
    for engine, scale in engines.items():
        bench = root / engine / "bench"
        bench.mkdir(parents=True)
        for c in tiers:
            load = scale * (1 + c / 16)
            ttft = rng.lognormal(np.log(0.2 * load), 0.5, requests)
            n = rng.integers(1, 65, requests)
            tpot = rng.lognormal(np.log(0.03 * load), 0.3, requests)
            ttft[:3] = 0.5                      # exactly at the TTFT threshold
            n[3], tpot[3] = 11, 0.05           # TPOT exactly at its threshold
            latency = ttft + tpot * np.maximum(n - 1, 0)
            errors = np.where(rng.random(requests) < 0.02, "timeout", "")
            rows = [(float(ttft[i]), float(latency[i]), int(n[i]), str(errors[i]))
                    if not errors[i] else (0.0, 0.0, 0, str(errors[i])) for i in range(requests)]
            duration = float(latency.sum() / c + 1.0)
            (bench / f"c{c}.json").write_text(json.dumps(record(c, duration, rows)),
                                              encoding="utf-8")
    return root
