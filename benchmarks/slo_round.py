"""A round with per-request arrays and known answers, for the SLO budgets (benchmarks/run.py)
and tests: `vllm bench serve --save-detailed` records of two configurations, log-normal
latencies growing with the tier, a few failed and one-token requests, and some values exactly
at 500 ms TTFT / 50 ms TPOT. ``expected_good`` counts the good requests at given thresholds
straight from the generated rows (plain Python comparisons, vLLM's rules), independently of
reportgen."""

from __future__ import annotations

import json
from collections.abc import Iterable
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


def write_round_toml(root: Path, title: str, output_tokens: int, engines: Iterable[str],
                     tail: str = "", label: str = "{e}") -> None:
    """``root/round.toml``: the round ``title``, 8 input and ``output_tokens`` output tokens,
    one vLLM configuration per engine id in its own folder (``label`` formats its label from
    ``e``, its id), then ``tail`` ([slo], [telemetry] …)."""
    text = "".join(f'\n[[engines]]\nid = "{e}"\nlabel = "{label.format(e=e)}"\ndir = "{e}"\n'
                   'kind = "vllm"\n' for e in engines)
    (root / "round.toml").write_text(
        f'[round]\ntitle = "{title}"\n\n[workload]\ninput_tokens = 8\n'
        f'output_tokens = {output_tokens}\n' + text + tail, encoding="utf-8")


def write_random_round(root: Path, slo: str = "", requests: int = 200,
                       tiers: tuple[int, ...] = (1, 4, 16, 64), seed: int = 7,
                       detailed: bool = True) -> dict[tuple[str, int], tuple[float, Rows]]:
    """Write the round into ``root``; return each tier's (duration s, rows). ``detailed``
    False leaves the per-request arrays out (what the page would be without them)."""
    rng = np.random.default_rng(seed)
    written: dict[tuple[str, int], tuple[float, Rows]] = {}
    engines = {"alpha": 1.0, "beta": 1.6}
    write_round_toml(root, "random slo", 64, engines, slo, label="{e} <b>&</b>")
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
    write_round_toml(root, "10 M per-request values", 64, engines,
                     "\n[slo]\nttft_ms = 500\ntpot_ms = 50\n")
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


# ---------------------------------------------------------------- telemetry with known answers

TELEMETRY_END = {1: "20261201-120010", 2: "20261201-120110"}   # vLLM `date`: the run's end, local
TELEMETRY_OFFSET_H = 8                                          # the host is at UTC+08:00
TELEMETRY_DURATION_S = 10.0
TELEMETRY_TOKENS = 1000
GPU_W = 150.0          # per GPU, two GPUs: 300 W in all → 3,000 J per 10 s tier → 3 J/tok
SM_ACTIVE = 0.6
KV_PEAK = {1: 0.40, 2: 0.87}
PREEMPTED = {1: 0, 2: 3}


def _epoch(local: str, offset_s: float = 0.0) -> float:
    """A local naive ``YYYYmmdd-HHMMSS`` on a UTC+08:00 host → seconds since the epoch."""
    import datetime as dt

    when = dt.datetime.strptime(local, "%Y%m%d-%H%M%S").replace(
        tzinfo=dt.timezone(dt.timedelta(hours=TELEMETRY_OFFSET_H)))
    return when.timestamp() + offset_s


def telemetry_samples() -> list[tuple[str, dict[str, str], float, float]]:
    """(metric, labels, epoch s, value): DCGM at 1 Hz on two GPUs and vLLM gauges at 1 Hz,
    from 5 s before each tier to 5 s after. Inside tier C the KV usage climbs to KV_PEAK[C]
    at its middle, the preemption counter rises by PREEMPTED[C], running = C."""
    out: list[tuple[str, dict[str, str], float, float]] = []
    energy = {0: 5.0e9, 1: 7.0e9}   # mJ since boot
    preemptions = 10.0
    model = {"model_name": "m", "engine": "0"}
    for c, end in TELEMETRY_END.items():
        t_end = _epoch(end)
        t_start = t_end - TELEMETRY_DURATION_S
        for k in range(-5, 16):
            t = t_start + k
            inside = 0 <= k <= TELEMETRY_DURATION_S
            for gpu in (0, 1):
                labels = {"gpu": str(gpu), "UUID": f"GPU-{gpu}", "Hostname": "h"}
                out += [("DCGM_FI_DEV_POWER_USAGE", labels, t, GPU_W if inside else 60.0),
                        ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", labels, t, energy[gpu]),
                        ("DCGM_FI_PROF_SM_ACTIVE", labels, t, SM_ACTIVE if inside else 0.0),
                        ("DCGM_FI_DEV_GPU_UTIL", labels, t, 90.0 if inside else 0.0),
                        ("DCGM_FI_DEV_FB_USED", labels, t, 20000.0),
                        ("DCGM_FI_DEV_MEMORY_TEMP", labels, t, 9223372036854775794.0)]
            # the counter integrates the power of the second that follows (exact at 1 Hz for
            # a step at the window's edges)
            for gpu in (0, 1):
                energy[gpu] += (GPU_W if 0 <= k < TELEMETRY_DURATION_S else 60.0) * 1000
            kv = KV_PEAK[c] * (1 - abs(k - 5) / 10) if inside else 0.0
            if k == 3 and PREEMPTED[c]:
                preemptions += PREEMPTED[c]
            out += [("vllm:num_requests_running", model, t, float(c) if inside else 0.0),
                    ("vllm:num_requests_waiting", model, t, 0.0),
                    ("vllm:kv_cache_usage_perc", model, t, round(kv, 6)),
                    ("vllm:num_preemptions_total", model, t, preemptions)]
    return out


def write_telemetry_round(root: Path, form: str = "text", offset: str | None = "+08:00"
                          ) -> None:
    """One vLLM configuration, tiers C=1 and C=2 (10 s, 1,000 output tokens each), with
    ``alpha/telemetry/series.prom`` (``form`` "text": Prometheus text with ms timestamps),
    ``series.json`` ("json": a list of query_range answers) or ``series.prom`` with no
    timestamps ("untimed"). ``offset`` is round.toml's [telemetry] utc_offset (None: absent)."""
    tail = f'\n[telemetry]\nutc_offset = "{offset}"\n' if offset is not None else ""
    write_round_toml(root, "telemetry", 100, ["alpha"], tail)
    bench = root / "alpha" / "bench"
    bench.mkdir(parents=True)
    for c, end in TELEMETRY_END.items():
        rows = [(0.1, 1.0, 100, "")] * 10
        data = record(c, TELEMETRY_DURATION_S, rows)
        data["date"] = end
        (bench / f"c{c}.json").write_text(json.dumps(data), encoding="utf-8")
    folder = root / "alpha" / "telemetry"
    folder.mkdir()
    samples = telemetry_samples()
    if form == "json":
        series: dict[tuple[str, str], dict[str, object]] = {}
        for name, labels, t, value in samples:
            key = (name, json.dumps(labels, sort_keys=True))
            entry = series.setdefault(key, {"metric": {"__name__": name, **labels},
                                            "values": []})
            cast_values = entry["values"]
            assert isinstance(cast_values, list)
            cast_values.append([round(t, 3), repr(value)])
        names = sorted({n for n, _ in series})
        answers = [{"status": "success", "data": {"resultType": "matrix", "result": [
            s for (n, _), s in series.items() if n == name]}} for name in names]
        (folder / "series.json").write_text(json.dumps(answers), encoding="utf-8")
        return
    lines = []
    for name, labels, t, value in samples:
        text = ",".join(f'{k}="{v}"' for k, v in labels.items())
        stamp = f" {round(t * 1000)}" if form == "text" else ""
        lines.append(f"{name}{{{text}}} {value!r}{stamp}")
    (folder / "series.prom").write_text("\n".join(lines) + "\n", encoding="utf-8")
