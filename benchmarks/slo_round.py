"""A round with per-request arrays and known answers, for the SLO budgets (benchmarks/run.py)
and tests: `vllm bench serve --save-detailed` records of two configurations, log-normal
latencies growing with the tier, a few failed and one-token requests, and some values exactly
at 500 ms TTFT / 50 ms TPOT. ``expected_good`` counts the good requests at given thresholds
straight from the generated rows (plain Python comparisons, vLLM's rules), independently of
reportgen."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

Rows = list[tuple[float, float, int, str]]   # (ttft s, latency s, output tokens, error)


def record(concurrency: int, duration: float, rows: Rows) -> dict[str, object]:
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


def expected_good(rows: Rows, ttft_ms: float, tpot_ms: float) -> int:
    """vLLM's goodput count: succeeded, TTFT ≤ and TPOT ≤ (0 for one token), in seconds."""
    good = 0
    for ttft, latency, n, error in rows:
        tpot = (latency - ttft) / (n - 1) if n > 1 else 0.0
        if not error and ttft <= ttft_ms / 1000 and tpot <= tpot_ms / 1000:
            good += 1
    return good


def write_random_round(root: Path, slo: str = "", requests: int = 200,
                       tiers: tuple[int, ...] = (1, 4, 16, 64), seed: int = 7,
                       detailed: bool = True) -> dict[tuple[str, int], tuple[float, Rows]]:
    """Write the round into ``root``; return each tier's (duration s, rows). ``detailed``
    False leaves the per-request arrays out (what the page would be without them)."""
    rng = np.random.default_rng(seed)
    written: dict[tuple[str, int], tuple[float, Rows]] = {}
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
            data = record(c, duration, rows)
            if not detailed:
                for key in ("input_lens", "output_lens", "ttfts", "latencies", "itls", "errors",
                            "generated_texts"):
                    del data[key]
            (bench / f"c{c}.json").write_text(json.dumps(data), encoding="utf-8")
            written[engine, c] = (duration, rows)
    return written


def per_request_values(record: dict[str, object]) -> int:
    """Numbers in a record's per-request arrays: ttfts, latencies, input/output lengths and
    every ITL gap (what a build reads, checks and bins per request)."""
    scalars = sum(len(record[k]) for k in ("ttfts", "latencies", "input_lens", "output_lens"))
    return scalars + sum(len(gaps) for gaps in record["itls"])


def write_values_round(root: Path, values: int = 10_000_000, tiers: tuple[int, ...] = (
        1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128), seed: int = 11) -> int:
    """2 configurations × ``tiers`` of `--save-detailed` records holding ``values``
    per-request numbers in all (the build budget of issue 21); returns the count written."""
    rng = np.random.default_rng(seed)
    engines = ("alpha", "beta")
    per_request = 4 + 32  # four scalars + ~32 ITL gaps (output lengths 1 … 64, mean 32.5 − 1)
    requests = max(1, values // (per_request * len(engines) * len(tiers)))
    text = "".join(f'\n[[engines]]\nid = "{e}"\nlabel = "{e}"\ndir = "{e}"\nkind = "vllm"\n'
                   for e in engines)
    (root / "round.toml").write_text(
        '[round]\ntitle = "10 M per-request values"\n\n[workload]\ninput_tokens = 8\n'
        'output_tokens = 64\n' + text + "\n[slo]\nttft_ms = 500\ntpot_ms = 50\n",
        encoding="utf-8")
    written = 0
    for engine in engines:
        bench = root / engine / "bench"
        bench.mkdir(parents=True)
        for c in tiers:
            ttft = rng.lognormal(np.log(0.2), 0.5, requests).round(6)
            n = rng.integers(1, 65, requests)
            tpot = rng.lognormal(np.log(0.03), 0.3, requests).round(6)
            latency = (ttft + tpot * np.maximum(n - 1, 0)).round(6)
            gaps = np.round(tpot, 6).tolist()
            rows = [(float(ttft[i]), float(latency[i]), int(n[i]), "") for i in range(requests)]
            data = record(c, float(latency.sum() / c + 1.0), rows)
            data["itls"] = [[gaps[i]] * (int(n[i]) - 1) for i in range(requests)]
            written += per_request_values(data)
            (bench / f"c{c}.json").write_text(json.dumps(data), encoding="utf-8")
    return written
