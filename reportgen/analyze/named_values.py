"""The analysis's named values (the narrative's and the headline's `values`): per configuration,
per pair of configurations and per tier, from the frames the run has built.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analyze import checks as chk
from reportgen.analyze.crossover import (
    crossings,
    crossover_range,
    pair_ratios,
)
from reportgen.analyze.graph_reuse import theoretical_max_reuse
from reportgen.analyze.memory import (
    MEMORY_COLUMNS,
    kv_capacity_ratio,
)
from reportgen.analyze.prefill import (
    relative_gap,
)
from reportgen.analyze.roofline import (
    GB,
    engine_row,
    step_ratio,
)
from reportgen.analyze.round_facts import RoundInfo
from reportgen.analyze.values import Value, flatten_rows, numeric_columns, scalar, tier_key
from reportgen.frames import ByEngine
from reportgen.text.bilingual import Bi


def _pair_values(tiers: pd.DataFrame, engines: pd.DataFrame, prefill: pd.DataFrame,
                 memory: pd.DataFrame, pair: tuple[str, str] | None,
                 labels: Mapping[str, Bi | None]) -> dict[str, Value]:
    if pair is None:
        return {}
    a, b = pair
    out: dict[str, Value] = {"pair.a": a, "pair.b": b, "pair.a_label": labels.get(a),
                           "pair.b_label": labels.get(b)}
    ratios = pair_ratios(tiers, a, b)
    for _, r in ratios.iterrows():
        out[f"crossover.ratio.{tier_key(r['concurrency'])}"] = float(r["ratio"])
    hits = crossings(ratios["concurrency"], ratios["ratio"])
    out["crossover.count"] = len(hits)
    first = hits[0] if hits else {}
    for key in ("concurrency", "lower_tier", "upper_tier", "ratio_lower", "ratio_upper"):
        out[f"crossover.{key}"] = float(first.get(key, math.nan))
    if "output_tok_s_min" in tiers.columns:  # repeated runs: where the crossover may lie
        low, high = crossover_range(tiers, a, b)
        out["crossover.range_low"], out["crossover.range_high"] = low, high

    ea, eb = engine_row(engines, a), engine_row(engines, b)
    for key, value in step_ratio(engines, a, b).items():
        out[f"step_ratio.{key}"] = value
    out["batching.efficiency_ratio"] = float(eb["efficiency_cmax"] / ea["efficiency_cmax"])
    out["batching.slope_difference_ms"] = float(ea["ms_per_slot"] - eb["ms_per_slot"])
    floors = engines["floor_ms_per_slot"].to_numpy(float)
    same = bool(np.allclose(floors, floors[0], equal_nan=False))
    out["batching.floor_ms_per_slot"] = float(floors[0]) if same else math.nan
    gb = (engines["tokens_per_slot"] * engines["kv_bytes_per_token"] / GB).to_numpy(float)
    out["batching.floor_gb_per_slot"] = float(gb[0]) if np.allclose(gb, gb[0]) else math.nan

    # prefill: the lowest common usable tier where both servers reported a prefill time
    rows = prefill[~prefill["excluded"] & np.isfinite(prefill["server_prefill_ms"])]
    pa = rows[rows["engine"] == a].set_index("concurrency")
    pb = rows[rows["engine"] == b].set_index("concurrency")
    common = sorted(set(pa.index) & set(pb.index))
    conc = common[0] if common else math.nan
    out["prefill.concurrency"] = float(conc)
    if common:
        out["prefill.server_side_gap"] = relative_gap(pa.loc[conc, "server_prefill_ms"],
                                                      pb.loc[conc, "server_prefill_ms"])
        out["prefill.client_side_gap"] = relative_gap(pa.loc[conc, "ttft_p50_ms"],
                                                      pb.loc[conc, "ttft_p50_ms"])
    else:
        out["prefill.server_side_gap"] = out["prefill.client_side_gap"] = math.nan
    out["memory.kv_capacity_ratio"] = kv_capacity_ratio(memory, a, b)
    return out


def _ratio(num: float, den: float) -> float:
    """num / den, NaN when the denominator is zero or missing (a tier with no output)."""
    return float(num) / float(den) if den and math.isfinite(float(den)) else math.nan


def _first_drop_values(tiers: pd.DataFrame, order: list[str]) -> dict[str, Value]:
    """The first tier where an engine's output throughput falls below the previous tier."""
    out: dict[str, Value] = {}
    by_engine = ByEngine(tiers)
    for engine in order:
        own = by_engine[engine]
        drops, _ = chk.throughput_drops(own)
        if not drops:
            continue
        prev, cur = drops[0]
        later = own[own["concurrency"] > cur["concurrency"]]
        later = later.sort_values("concurrency")["output_tok_s"]
        base = f"throughput_drop.{engine}"
        out[f"{base}.concurrency"] = float(cur["concurrency"])
        out[f"{base}.previous_concurrency"] = float(prev["concurrency"])
        out[f"{base}.ratio_to_previous"] = _ratio(cur["output_tok_s"], prev["output_tok_s"])
        out[f"{base}.next_over_this"] = (
            _ratio(later.iloc[0], cur["output_tok_s"]) if len(later) else math.nan)
    return out


def named_values(info: RoundInfo, tiers: pd.DataFrame, engines: pd.DataFrame,
            graph_reuse: pd.DataFrame, reuse_info: Mapping[str, dict[str, Any]],
            prefill: pd.DataFrame,
            memory: pd.DataFrame, parity: pd.DataFrame, temps: Mapping[str, float],
            checks: pd.DataFrame, pair: tuple[str, str] | None,
            output_tokens: float) -> dict[str, Value]:
    v: dict[str, Value] = {}
    setup = {
        "gpu": info.gpu, "gpu_count": info.gpu_count, "memory_gib": info.memory_gib,
        "bandwidth_gb_s": info.bandwidth_gb_s, "input_tokens": info.input_tokens,
        "output_tokens": info.output_tokens, "kv_tokens_per_slot": info.kv_tokens_per_slot,
        "model": info.model, "client": info.client, "date": info.date, "driver": info.driver,
        "cuda": info.cuda, "requests_total": info.requests_total,
        "requests_per_engine": info.requests_per_engine,
        "completed_total": info.completed_total, "failed_total": info.failed_total}
    for key, value in setup.items():
        v[f"setup.{key}"] = scalar(value)
    v["setup.title"] = info.title
    v["setup.concurrency"] = " · ".join(str(c) for c in info.concurrency)
    v["setup.tier_count"] = len(info.concurrency)

    labels = {}
    for facts in info.engines:
        labels[facts.id] = facts.label
        for f in dataclasses.fields(facts):
            if f.name not in ("id", "sources"):
                v[f"engines.{facts.id}.{f.name}"] = scalar(getattr(facts, f.name))
    v |= flatten_rows(engines, "engines", "id", numeric_columns(engines), per_tier=False)
    for _, e in engines.iterrows():
        base = f"engines.{e['id']}"
        v[f"{base}.weight_gb"] = float(e["weight_bytes_per_step"] / GB)
        per_param = v.get(f"{base}.bytes_per_param")
        v[f"{base}.matmul_params"] = (float(e["weight_bytes_per_step"] / per_param)
                                      if per_param else math.nan)
        one = 1.0 if math.isfinite(float(e["c1"])) else math.nan   # one sequence's KV
        v[f"{base}.kv_gb_c1"] = float(one * e["tokens_per_slot"] * e["kv_bytes_per_token"] / GB)
        v[f"{base}.step_gb_c1"] = float(e["step_bytes_c1"] / GB)
        v[f"{base}.floor_gb_per_slot"] = float(e["tokens_per_slot"] * e["kv_bytes_per_token"] / GB)

    v |= flatten_rows(tiers, "tiers", "engine", numeric_columns(tiers, skip=("concurrency",)))
    # handover_frac: the hand-over between waves (a new request's TTFT p50) per wave
    waves = tiers.assign(gap=tiers["wave_gap"], e2el_p50_s=tiers["e2el_p50_ms"] / 1000.0,
                         handover_frac=tiers["ttft_p50_ms"] / 1000.0
                         / tiers["duration_per_wave_s"])
    v |= flatten_rows(waves, "waves", "engine", ("waves", "duration_per_wave_s", "e2el_p50_s",
                                                 "gap", "handover_frac"))
    v |= _pair_values(tiers, engines, prefill, memory, pair, labels)
    v |= _first_drop_values(tiers, list(engines["id"]))

    for engine, blocks in reuse_info.items():
        for key, value in blocks.items():
            v[f"graph_reuse.{engine}.{key}"] = value
        v[f"graph_reuse.{engine}.decode_steps_per_request"] = scalar(output_tokens)
        v[f"graph_reuse.{engine}.theoretical_max_reuse"] = theoretical_max_reuse(output_tokens)
    if len(graph_reuse):
        v |= flatten_rows(graph_reuse, "graph_reuse", "engine",
                          numeric_columns(graph_reuse, skip=("concurrency", "expected_lines")))

    renamed = prefill.rename(columns={"server_prefill_ms": "server_ms"})
    v |= flatten_rows(renamed, "prefill", "engine",
                      ("server_ms", "server_samples", "ttft_p50_ms", "client_overhead_ms"))
    v |= flatten_rows(memory, "memory", "engine", numeric_columns(memory), per_tier=False)
    for _, m in memory.iterrows():
        v[f"memory.{m['engine']}.measured_total_mib"] = float(m["measured_total_gib"] * 1024.0)
    # An engine whose server log is missing still has its memory names (NaN → "—" in prose),
    # so narrative written for the full round keeps building when an optional file is gone.
    for engine in engines["id"]:
        for column in [*MEMORY_NUMBERS, "measured_total_mib"]:
            v.setdefault(f"memory.{engine}.{column}", math.nan)
    v |= flatten_rows(parity, "output_tokens", "engine", numeric_columns(parity), per_tier=False)

    finite = [t for t in temps.values() if np.isfinite(t)]
    v["gpu.max_temperature_c"] = max(finite) if finite else math.nan
    for engine, t in temps.items():
        v[f"gpu.{engine}.max_temperature_c"] = t
    for status in ("pass", "warn", "fail"):
        v[f"checks.{status}"] = int((checks["status"] == status).sum())
    return dict(sorted(v.items()))


MEMORY_NUMBERS = tuple(c for c in MEMORY_COLUMNS if c != "engine" and not c.endswith("source"))
