"""Orchestrator: LoadedRound → Analysis. The only analysis module that knows the load objects;
everything it calls takes plain frames and scalars."""

from __future__ import annotations

import dataclasses
import math
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analyze import checks as chk
from reportgen.analyze import tier_metrics
from reportgen.analyze.client_info import client_summary, configuration_clients
from reportgen.analyze.crossover import (
    comparison_pairs,
    crossover_table,
    primary_pair,
)
from reportgen.analyze.distributions import distribution_table, tier_gaps, tier_requests
from reportgen.analyze.findings import findings_values
from reportgen.analyze.goodput import (
    cheapest,
    cost_table,
    missing_requests,
    tier_durations,
)
from reportgen.analyze.graph_reuse import graph_reuse_table
from reportgen.analyze.memory import (
    GIB,
    kv_pool_gib,
    measured_used_mib,
    memory_row,
    memory_table,
)
from reportgen.analyze.named_values import named_values
from reportgen.analyze.pareto import pareto_points, run_points, same_speed, same_speed_repeats
from reportgen.analyze.prefill import (
    VLLM_PREFILL,
    llama_prefill,
    prefill_table,
    vllm_prefill,
)
from reportgen.analyze.provenance import synthetic_values, unmatched_globs
from reportgen.analyze.request_stats import fill_missing_stats, recompute_stats
from reportgen.analyze.result import Analysis, Constant, RoundAnalysis
from reportgen.analyze.roofline import (
    add_floor,
    engine_roofline,
    kv_tokens_per_slot,
)
from reportgen.analyze.round_facts import EngineFacts, Related, RoundInfo, WorkloadInfo
from reportgen.analyze.slo_telemetry import round_telemetry, slo_tables
from reportgen.analyze.summary_keys import key_checks, prefer_arrays
from reportgen.analyze.tiers import (
    REPEAT_COLUMNS,
    aggregate_repeats,
    decode_step,
    latency_shape,
    mark_excluded,
    tier_stats,
)
from reportgen.analyze.values import flatten_rows, scalar
from reportgen.analyze.waves import add_waves
from reportgen.frames import ByEngine
from reportgen.load.fingerprint import Fingerprint
from reportgen.load.llama_log import LlamaFacts
from reportgen.load.manifest import INFERRED, EngineSpec, Manifest
from reportgen.load.placement import Workload
from reportgen.load.prometheus import counter_delta
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.vllm_log import VllmLog
from reportgen.reference.clients import client as client_row
from reportgen.reference.clients import itl_is_step, tpot_ties_e2el
from reportgen.reference.gpus import lookup_gpu_spec
from reportgen.reference.model_bytes import DTYPE_BYTES, model_bytes
from reportgen.text.bilingual import Bi

__all__ = ["Analysis", "Constant", "RoundAnalysis", "analyze", "analyze_round"]

ENGINE_COLUMNS = (
    "id", "label", "bandwidth_gb_s", "kv_bytes_per_token", "weight_bytes_per_step",
    "step_bytes_c1", "effective_gb_s_c1", "mbu_c1", "ms_per_slot", "floor_ms_per_slot",
    "slope_vs_floor", "tokens_per_slot", "c1", "cmax", "itl_p50_c1_ms", "itl_p50_cmax_ms",
    "floor_ms_cmax", "efficiency_cmax", "bandwidth_gpus", "gpu_bandwidth_gb_s",
)
# what needs the number of requests in flight, so is left out of a request-rate sweep (the
# tier metrics' own: tier_metrics.concurrency_only)
ENGINE_CONCURRENCY_ONLY = ("ms_per_slot", "floor_ms_per_slot", "slope_vs_floor",
                           "floor_ms_cmax", "efficiency_cmax")
LLAMA_N_DECODE = "llamacpp:n_decode_total"
VLLM_PREEMPTIONS = "vllm:num_preemptions_total"
# what a configuration without that file reads: every fact None, no provenance
NO_LLAMA, NO_VLLM, NO_FP = LlamaFacts(), VllmLog(path=""), Fingerprint(path="")
QUANT = re.compile(r"(?<![A-Za-z0-9])(I?Q\d(?:_[A-Z0-9]+)*|BF16|F16|F32)(?![A-Za-z0-9])",
                   re.IGNORECASE)


# ----------------------------------------------------------------------------- small accessors

def _num(value: object) -> float:
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return out


def _where(obj: LlamaFacts | VllmLog | Fingerprint | None, field: str) -> str:
    """`file:line` a startup fact came from, or ''."""
    return "" if obj is None else str(obj.provenance.get(field, ""))


def _facts(data: EngineData | None) -> LlamaFacts | None:
    return data.llama_log.facts if data is not None and data.llama_log is not None else None


def _vlog(data: EngineData | None) -> VllmLog | None:
    return data.vllm_log if data is not None else None


def _fingerprint(data: EngineData | None) -> Fingerprint | None:
    return data.fingerprint if data is not None else None


def _timings(data: EngineData | None) -> pd.DataFrame | None:
    return data.llama_log.timings if data is not None and data.llama_log is not None else None


def _text(zh: str, en: str) -> Bi:
    return Bi(zh, en)


def _source(key: str, **params: Any) -> Bi:
    """Where a constant came from, in both languages ([sources] of the analysis strings)."""
    return chk.strings().bi(f"sources.{key}", **params)


# ----------------------------------------------------------------------------- engine constants

def _engine_params(manifest: Manifest, engines: Mapping[str, EngineData],
                   constants: list[Constant]) -> pd.DataFrame:
    """Per-engine bandwidth, KV bytes/token, weight bytes/step and tokens/slot, recording the
    provenance of each in `constants`."""
    tokens = kv_tokens_per_slot(manifest.input_tokens, manifest.output_tokens)
    rows = []
    for spec in manifest.engines:
        data = engines.get(spec.id)
        facts, vlog = _facts(data), _vlog(data)

        # the loader alone resolves KV bytes/token (round.toml, server log or model table);
        # unknown, its source names the key that would give it
        kv = float(data.kv_bytes_per_token) if data is not None else math.nan
        where = data.kv_bytes_per_token_source if data is not None and np.isfinite(kv) \
            else "round.toml [model].kv_bytes_per_token"
        kv_from = _text(where, where)

        weight = spec.weight_bytes_per_step
        source = spec.weight_bytes_source
        weight_from = _source("weight_round_toml_why", engine=spec.id, why=source) if source \
            else _source("weight_round_toml", engine=spec.id)
        if not np.isfinite(weight):
            mib = _num(facts.model_buffer_mib if facts is not None else None)
            gib = _num(vlog.weights_gib if vlog is not None else None)
            if np.isfinite(mib):
                weight = mib * 2**20
                where = _where(facts, "model_buffer_mib")
                weight_from = _source("weight_llama_log", where=where)
            elif np.isfinite(gib):
                ranks = (vlog.ranks if vlog is not None else None) or 1  # each logs its share
                weight = gib * GIB * ranks
                where = _where(vlog, "weights_gib")
                weight_from = _source("weight_vllm_log", where=where) if ranks == 1 \
                    else _source("weight_vllm_log_ranks", where=where, ranks=ranks)
            elif data is not None and (known := model_bytes(
                    data.model_name(manifest.model_name), *data.dtypes())) \
                    and np.isfinite(known.weight_bytes_per_step):
                weight = known.weight_bytes_per_step
                weight_from = _text(known.weight_source, known.weight_source)

        constants.append(Constant(f"{spec.id}.kv_bytes_per_token", scalar(kv), "B", kv_from))
        bandwidth = manifest.bandwidth_gb_s
        own_gpu = lookup_gpu_spec(spec.gpu) if spec.gpu else None
        if own_gpu is not None:  # this configuration ran on its own kind of GPU
            bandwidth = own_gpu.bandwidth_gb_s
            constants.append(Constant(
                f"{spec.id}.gpu_bandwidth_gb_s", bandwidth, "GB/s",
                _source("gpu_table_row", name=own_gpu.name, source=own_gpu.source)))
        tp = spec.tensor_parallel or 1
        per_gpu = bandwidth
        if tp > 1 and math.isfinite(bandwidth):
            # tensor-parallel ranks each read their shard of every weight in the same step,
            # so a step sees their bandwidth together; pipeline stages take turns instead
            bandwidth = bandwidth * tp
            constants.append(Constant(
                f"{spec.id}.bandwidth_gb_s", scalar(bandwidth), "GB/s",
                _source("tensor_parallel", tp=tp, per_gpu=per_gpu)))
        constants.append(Constant(f"{spec.id}.weight_bytes_per_step", scalar(weight), "B",
                                  weight_from))
        rows.append({"id": spec.id, "bandwidth_gb_s": bandwidth,
                     "bandwidth_gpus": float(tp if math.isfinite(bandwidth) else 1),
                     "gpu_bandwidth_gb_s": per_gpu, "kv_bytes_per_token": kv,
                     "weight_bytes_per_step": weight, "tokens_per_slot": tokens})
    return pd.DataFrame(rows).set_index("id")


# ----------------------------------------------------------------------------- engine facts

def _prompt_cache(args: Mapping[str, Any] | None) -> str | None:
    """'off' when llama-server ran with --cache-ram 0 (cache size 0), 'on' for a non-zero size,
    None when nothing says."""
    for key, value in (args or {}).items():
        name = str(key).lstrip("-").replace("_", "-")
        if name.startswith("cache-ram"):
            return "off" if _num(value) == 0 else "on"
    return None


def _arg(args: Mapping[str, Any] | None, *names: str) -> Any:
    wanted = {n.lstrip("-") for n in names}
    for key, value in (args or {}).items():
        if str(key).lstrip("-") in wanted:
            return value
    return None


def _launch_args(fingerprint: Fingerprint | None) -> dict[str, str]:
    """`launch_args:` line of fingerprint.txt → {flag: value} ('' for a bare switch)."""
    text = fingerprint.values.get("launch_args") if fingerprint is not None else None
    if not text:
        return {}
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()

    def is_flag(token: str) -> bool:
        return token.startswith("-") and not np.isfinite(_num(token))

    out: dict[str, str] = {}
    for i, token in enumerate(tokens):
        if is_flag(token):
            following = tokens[i + 1] if i + 1 < len(tokens) else ""
            out[token] = "" if is_flag(following) else following
    return out


def _read_from(manifest: Manifest, key: str) -> str:
    """Where the manifest's value for ``key`` was read: the file it was inferred from, else
    round.toml."""
    found = manifest.provenance(key)
    return found.detail if found is not None and found.kind == INFERRED else "round.toml"


def _engine_facts(spec: EngineSpec, data: EngineData | None, manifest: Manifest,
                  client: str | None) -> EngineFacts:
    """Version, build, dtype/quant, slots … for the setup card (None when unknown), with
    `sources`: field → where it was read (log/fingerprint line)."""
    # what a configuration lacks reads as an empty record: every fact None, no provenance
    vlog, fp, facts = _vlog(data) or NO_VLLM, _fingerprint(data) or NO_FP, _facts(data) or NO_LLAMA
    args = facts.args
    launch = _launch_args(fp)
    launch_line = _where(fp, "values.launch_args")
    sources: dict[str, str] = {}

    def pick(field: str, *candidates: tuple[Any, str]) -> Any:
        for value, where in candidates:
            if value is not None and value != "":
                if where:
                    sources[field] = where
                return value
        return None

    model_path = pick("model_file", (facts.model_path, _where(facts, "model_path")))
    model_file = Path(str(model_path)).name if model_path else None
    found = QUANT.search(model_file) if model_file else None
    if found and "model_file" in sources:
        sources["quant"] = sources["model_file"]
    slots = pick("slots", (facts.n_slots, _where(facts, "n_slots")),
                 (_arg(args, "n_parallel"), _where(facts, "args.n_parallel")),
                 (_arg(launch, "np", "parallel"), launch_line))
    context = pick("context", (facts.n_ctx, _where(facts, "n_ctx")),
                   (_arg(launch, "c", "ctx-size"), launch_line))
    cache = pick("prompt_cache", (_prompt_cache(args), _where(facts, "args.cache_ram_mib")),
                 (_prompt_cache(launch), launch_line))
    version = pick("version", (spec.version, _read_from(manifest, f"engines.{spec.id}.version")),
                   (vlog.version, _where(vlog, "version")),
                   (facts.build, _where(facts, "build")))
    # the fields in the order of the engine's object in the tables JSON (EngineFacts)
    dtype = pick("dtype", (vlog.dtype, _where(vlog, "dtype")))
    build = pick("build", (facts.build, _where(facts, "build")))
    commit = pick("commit", (facts.commit, _where(facts, "commit")))
    model = pick("model", (vlog.model, _where(vlog, "model")),
                 (spec.model, _read_from(manifest, f"engines.{spec.id}.model")))
    driver = pick("driver", (fp.driver_version, _where(fp, "driver_version")))
    cuda = pick("cuda", (fp.cuda_version, _where(fp, "cuda_version")))
    gpu_name = pick("gpu_name", (spec.gpu, _read_from(manifest, f"engines.{spec.id}.gpu")),
                    (fp.gpu_name, _where(fp, "gpu_name")))
    verbosity = _int_or_none(pick("log_verbosity", (
        _arg(args, "verbosity"), _where(facts, "args.verbosity"))))
    return EngineFacts(
        id=spec.id, label=spec.label, kind=spec.kind, version=version, dtype=dtype,
        bytes_per_param=_bytes_per_param(vlog.dtype), build=build, commit=commit,
        quant=found.group(1).upper() if found else None, model_file=model_file, model=model,
        tensor_parallel=spec.tensor_parallel,
        slots=None if slots is None else int(_num(slots)),
        context=None if context is None else int(_num(context)),
        prompt_cache=cache, driver=driver, cuda=cuda, gpu_name=gpu_name,
        log_verbosity=verbosity, sources=sources, client=client or None)


def _axis_value(value: object) -> float:
    """A tier as its column holds it: an integer column's stays an int (the JSON shows 8)."""
    return int(value) if isinstance(value, int | np.integer) else _num(value)


def _int_or_none(value: Any) -> int | None:
    number = _num(value)
    return int(number) if math.isfinite(number) else None


def _bytes_per_param(dtype: str | None) -> int | None:
    """Bytes per weight of an unquantized checkpoint from vLLM's --dtype (a whole number)."""
    found = DTYPE_BYTES.get(str(dtype).lower())
    return int(found) if found is not None else None


def _total(counts: pd.Series) -> int | None:
    """The sum of a count over the tiers; None when a tier's count is unknown (a client that
    states no request count): a partial sum would pass for the round's."""
    values = pd.to_numeric(counts, errors="coerce")
    return int(values.sum()) if len(values) and values.notna().all() else None


def _same(per_engine: pd.Series) -> int | None:
    """The common value when every engine ran the same number (the seed's "1 / 1332")."""
    distinct = set(per_engine.dropna())
    return int(distinct.pop()) if len(distinct) == 1 else None


def _joined(values: list[Any]) -> str | None:
    seen = [str(v) for v in dict.fromkeys(v for v in values if v)]
    return " / ".join(seen) if seen else None


# ----------------------------------------------------------------------------- stages

def _metrics(data: EngineData | None) -> dict[int, tuple[pd.DataFrame, pd.DataFrame]]:
    return dict(data.metrics) if data is not None else {}


def _counter_by_tier(data: EngineData | None, name: str) -> dict[int, float]:
    out = {}
    for conc, (before, after) in _metrics(data).items():
        delta = counter_delta(before, after, name)
        if np.isfinite(delta):
            out[conc] = delta
    return out


def _has_metric(data: EngineData | None, name: str) -> bool:
    return any((after["name"] == name).any() for _, after in _metrics(data).values())


def _graph_reuse(manifest: Manifest, engines: Mapping[str, EngineData], tiers: pd.DataFrame,
                 constants: list[Constant]
                 ) -> tuple[pd.DataFrame, dict[str, dict[str, Any]], list[chk.Check]]:
    frames, info = [], {}
    check_rows: list[chk.Check] = []
    for spec in manifest.engines:
        timings = _timings(engines.get(spec.id))
        if spec.log_segments is None or timings is None:
            continue
        seg = spec.log_segments
        own = tiers[tiers["engine"] == spec.id]
        frame = graph_reuse_table(
            timings, seg.warmup, seg.tiers, list(own["concurrency"]), manifest.output_tokens,
            _counter_by_tier(engines.get(spec.id), LLAMA_N_DECODE))
        joined = own.set_index("concurrency")
        frame.insert(0, "engine", spec.id)
        frame["itl_p50_ms"] = frame["concurrency"].map(joined["itl_p50_ms"])
        frame["roofline_attainment"] = frame["concurrency"].map(joined["roofline_attainment"])
        frame["excluded"] = frame["concurrency"].map(joined["excluded"]).fillna(False).astype(bool)
        frames.append(frame)
        info[spec.id] = {"warmup_blocks": seg.warmup, "blocks_in_log": len(timings),
                         "blocks_expected": seg.warmup + sum(seg.tiers)}
        check_rows += chk.segment_checks(spec.id, len(timings), seg.warmup, seg.tiers, frame, own)
        constants.append(Constant(
            f"{spec.id}.log_segments", f"{seg.warmup} + {list(seg.tiers)}", "blocks",
            _source("log_segments")))
    if not frames:
        return pd.DataFrame(columns=["engine", "concurrency"]), info, check_rows
    return pd.concat(frames, ignore_index=True), info, check_rows


def _prefill(manifest: Manifest, engines: Mapping[str, EngineData],
             tiers: pd.DataFrame) -> pd.DataFrame:
    server: dict[str, tuple[pd.DataFrame, str]] = {}
    by_engine = ByEngine(tiers)
    for spec in manifest.engines:
        data = engines.get(spec.id)
        timings = _timings(data)
        own = by_engine[spec.id]
        if spec.log_segments is not None and timings is not None:
            seg = spec.log_segments
            frame = llama_prefill(timings, seg.warmup, seg.tiers, list(own["concurrency"]))
            server[spec.id] = (frame, "llama-server prompt eval time (median per tier segment)")
        elif _has_metric(data, f"{VLLM_PREFILL}_count"):
            server[spec.id] = (vllm_prefill(_metrics(data)),
                               "vllm:request_prefill_time_seconds (Δsum / Δcount per tier)")
    return prefill_table(server, tiers, [e.id for e in manifest.engines])


def _memory(manifest: Manifest, engines: Mapping[str, EngineData], params: pd.DataFrame,
            constants: list[Constant]) -> pd.DataFrame:
    rows = []
    for spec in manifest.engines:
        data = engines.get(spec.id)
        vlog, fp, facts = _vlog(data) or NO_VLLM, _fingerprint(data) or NO_FP, _facts(data)
        sources: dict[str, str] = {}
        if vlog.weights_gib is not None:
            weights = _num(vlog.weights_gib)
            kv_gib = _num(vlog.kv_cache_gib)
            kv_tokens = _num(vlog.kv_cache_tokens)
            sources = {"weights": _where(vlog, "weights_gib"),
                       "kv_pool": _where(vlog, "kv_cache_gib"),
                       "kv_pool_tokens": _where(vlog, "kv_cache_tokens")}
        elif facts is not None and facts.model_buffer_mib is not None:
            weights = _num(facts.model_buffer_mib) / 1024.0
            kv_tokens = _num(facts.kv_cells)
            kv_gib = kv_pool_gib(kv_tokens, _num(params.loc[spec.id, "kv_bytes_per_token"]),
                                 _num(facts.kv_cache_mib))
            sources = {"weights": _where(facts, "model_buffer_mib"),
                       "kv_pool": f"kv_cells × kv_bytes_per_token ({_where(facts, 'kv_cells')})",
                       "kv_pool_tokens": _where(facts, "kv_cells")}
        else:
            continue
        used_mib, which = measured_used_mib(fp.memory_used_mib,
                                            data.gpu if data is not None else None)
        if which == "fingerprint":
            sources["measured"] = _where(fp, "memory_used_mib") or f"{spec.dir}/fingerprint.txt"
        elif which:
            sources["measured"] = f"{spec.dir}/gpu.csv (max memory.used)"
        gpu_gib = manifest.memory_gib
        sources["gpu_memory"] = "round.toml [hardware].memory_gib"
        rows.append(memory_row(spec.id, weights_gib=weights, kv_pool_gib=kv_gib,
                               kv_pool_tokens=kv_tokens, measured_total_gib=used_mib / 1024.0,
                               gpu_memory_gib=gpu_gib, sources=sources))
        for key, unit, value in (("weights", "GiB", weights), ("kv_pool", "GiB", kv_gib),
                                 ("kv_pool_tokens", "tokens", kv_tokens),
                                 ("measured", "MiB", used_mib)):
            if sources.get(key):
                constants.append(Constant(f"{spec.id}.memory.{key}", scalar(value), unit,
                                          _text(sources[key], sources[key])))
    return memory_table(rows)


def _temperatures(manifest: Manifest, engines: Mapping[str, EngineData]) -> dict[str, float]:
    out = {}
    for spec in manifest.engines:
        data = engines.get(spec.id)
        fp = _fingerprint(data)
        readings = [_num(fp.temperature_c if fp is not None else None)]
        gpu = data.gpu if data is not None else None
        if gpu is not None and "temperature_gpu_c" in gpu.columns:
            readings.append(_num(pd.to_numeric(gpu["temperature_gpu_c"], errors="coerce").max()))
        finite = [r for r in readings if np.isfinite(r)]
        out[spec.id] = max(finite) if finite else math.nan
    return out


# ----------------------------------------------------------------------------- values


# ----------------------------------------------------------------------------- entry point

def _tiers_with_arrays(summary: pd.DataFrame, recomputed: pd.DataFrame
                       ) -> set[tuple[str, float]]:
    """(configuration, tier) whose runs carry per-request arrays a TPOT was recomputed from
    (the identity E2EL = TTFT + (n − 1)·TPOT then holds per request by definition)."""
    if recomputed.empty or "tpot_mean_ms" not in recomputed.columns or summary.empty:
        return set()
    runs = recomputed[np.isfinite(recomputed["tpot_mean_ms"].to_numpy(float))]
    keys = summary[["source", "record", "engine", "concurrency"]].merge(
        runs[["source", "record"]], on=["source", "record"], how="inner")
    return {(str(e), float(c)) for e, c in zip(keys["engine"], keys["concurrency"],
                                               strict=True)}


def _own_requests(requests: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The requests of the summary's records: a round of several workloads is analysed one
    workload at a time, and what is computed per request for the others would be dropped by
    every join with the summary (1 M requests: a second pass over all of them)."""
    if requests.empty or summary.empty:
        return requests
    keys = ["source", "record"]
    mask = pd.MultiIndex.from_frame(requests[keys]).isin(
        pd.MultiIndex.from_frame(summary[keys].drop_duplicates()))
    return requests if mask.all() else requests[mask]


def analyze(loaded: LoadedRound, workload: WorkloadInfo | None = None) -> Analysis:

    """Compute every table and figure of the report from a LoadedRound (``workload``: which
    of the round's workloads it holds, when it was restricted to one)."""
    # a ratio over a zero or overflowing input is inf/NaN, shown as missing; numpy must not
    # print RuntimeWarnings about it (even under -q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _analyze(loaded, workload)


def _tier_table(summary: pd.DataFrame, order: list[str], clients: Mapping[str, str],
                params: pd.DataFrame, manifest: Manifest, on_rate_axis: bool
                ) -> tuple[pd.DataFrame, dict[str, str]]:
    """The tiers table (every column of ``tier_metrics``) and each configuration's decode-step
    basis: statistics per tier, the step, latency shape, floor, waves, exclusions."""
    tiers = tier_stats(summary, order)
    tiers, step_basis = decode_step(tiers, {e: itl_is_step(c) for e, c in clients.items()})
    tiers = latency_shape(tiers)
    tiers = add_floor(tiers, params)
    tiers = add_waves(tiers)
    tiers = mark_excluded(tiers, manifest.exclude_from_conclusions)
    if on_rate_axis:  # the floor, waves and slots count concurrent requests: no such axis here
        tiers[list(tier_metrics.concurrency_only())] = math.nan
    return tiers[[*tier_metrics.tier_columns(),
                  *(c for c in REPEAT_COLUMNS if c in tiers.columns)]], step_basis


def _analyze(loaded: LoadedRound, workload: WorkloadInfo | None) -> Analysis:
    manifest, engines = loaded.manifest, loaded.engines
    order = [e.id for e in manifest.engines]
    constants, bandwidth_from, tokens = _round_constants(manifest)
    mine = _own_requests(loaded.requests, loaded.summary)
    recomputed = recompute_stats(mine, loaded.itls)
    runs_summary = prefer_arrays(fill_missing_stats(loaded.summary, recomputed), recomputed)
    summary = aggregate_repeats(runs_summary)

    params = _engine_params(manifest, engines, constants)
    clients = configuration_clients(loaded.summary, order)
    axis = loaded.axis
    on_rate_axis = axis == "request_rate"
    tiers, step_basis = _tier_table(summary, order, clients, params, manifest, on_rate_axis)

    roof = engine_roofline(params, tiers, axis)
    if on_rate_axis:
        roof[list(ENGINE_CONCURRENCY_ONLY)] = math.nan
    labels = {e.id: e.label for e in manifest.engines}
    roof["label"] = pd.Series([labels[i] for i in roof["id"]], index=roof.index, dtype=object)
    engines_frame = roof[list(ENGINE_COLUMNS)]

    pairs = comparison_pairs(order, manifest.reference, manifest.compare)
    crossovers = crossover_table(tiers, pairs)
    pair = primary_pair(tiers, order, reference=manifest.reference)
    graph_reuse, reuse_info, segment_rows = _graph_reuse(manifest, engines, tiers, constants)
    prefill = _prefill(manifest, engines, tiers)
    memory = _memory(manifest, engines, params, constants)
    parity = chk.output_token_parity(
        tiers, order, math.nan if manifest.lengths_measured else manifest.output_tokens)
    temps = _temperatures(manifest, engines)
    checks = _checks(loaded, tiers, engines_frame, parity, temps, segment_rows, clients,
                     recomputed, step_basis)

    round_info = _round_info(loaded, tiers, clients, step_basis, bandwidth_from, tokens, pair,
                             workload)
    if manifest.exclude_from_conclusions:
        listed = "; ".join(f"{k}: {', '.join(f'C={c}' for c in v)}"
                           for k, v in manifest.exclude_from_conclusions.items())
        constants.append(Constant("exclude_from_conclusions", listed, "",
                                  _source("exclude_from_conclusions")))

    values = named_values(round_info, tiers, engines_frame, graph_reuse, reuse_info, prefill,
                     memory, parity, temps, checks, pair, manifest.output_tokens)
    # the numbers the generated Findings are written from (names findings.*)
    values = dict(sorted((values | findings_values(
        tiers, order, labels, checks, values, axis=axis, step_basis=step_basis)).items()))
    gpus = {spec.id: spec.gpus for spec in manifest.engines}
    pareto = pareto_points(tiers, gpus)
    speed_runs = run_points(runs_summary, gpus, [
        (e, float(c)) for e, cs in manifest.exclude_from_conclusions.items() for c in cs])
    speeds = same_speed_repeats(same_speed(pareto, order), speed_runs)
    per_request = tier_requests(mine, loaded.summary, order)
    gaps = tier_gaps(per_request, loaded.itls)
    distributions = distribution_table(per_request, gaps)
    durations = tier_durations(per_request, loaded.summary)
    no_per_request = missing_requests(loaded.summary, per_request, order,
                                      {e.id: e.label for e in manifest.engines})
    slo, goodput, capacity_at_slo, values = slo_tables(
        manifest, loaded.summary, per_request, durations, tiers, gpus, values)
    windows, inputs, telemetry, samples = round_telemetry(loaded)
    price = manifest.gpu_hour_usd
    cost = pd.DataFrame()
    if slo is not None and len(per_request) and price is not None:
        cost = cost_table(per_request, durations, slo, gpus, price, telemetry)
        values = dict(sorted((values | cheapest(cost, [
            (e, float(c)) for e, cs in manifest.exclude_from_conclusions.items()
            for c in cs])).items()))
    if len(telemetry):
        values = dict(sorted((values | flatten_rows(
            telemetry, "telemetry", "engine",
            ("mean_power_w", "energy_j", "energy_per_output_token_j", "gpu_util_pct",
             "sm_active_pct", "peak_kv_usage", "preemptions"))).items()))
    synthetic = synthetic_values(
        manifest.declared, manifest.path.parent, loaded.summary,
        {k: v.files for k, v in engines.items()}, tiers, prefill, graph_reuse, memory, values,
        distributions, goodput)
    return Analysis(round=round_info, engines=engines_frame, tiers=tiers, crossovers=crossovers,
                    graph_reuse=graph_reuse, memory=memory, prefill=prefill, checks=checks,
                    values=values, constants=constants, pareto=pareto, same_speed=speeds,
                    speed_runs=speed_runs,
                    reference=pairs[0][0] if pairs else "", synthetic=synthetic,
                    requests=per_request, itl_gaps=gaps, tier_durations=durations,
                    distributions=distributions, slo=slo,
                    goodput=goodput, capacity_at_slo=capacity_at_slo,
                    no_per_request=no_per_request, telemetry=telemetry,
                    price_usd_per_gpu_h=price, cost=cost,
                    telemetry_samples=samples,
                    telemetry_windows=windows[windows["engine"].isin(set(telemetry["engine"]))],
                    telemetry_notes=inputs.notes, telemetry_offset_min=manifest.utc_offset_min,
                    telemetry_kv=inputs.kv_samples(windows))


def _round_constants(manifest: Manifest) -> tuple[list[Constant], Bi, float]:
    """The round's constants (bandwidth and where it came from, KV tokens per slot), the
    bandwidth's source and the KV tokens per slot."""
    constants: list[Constant] = []
    # the manifest records where the bandwidth came from (round.toml or the GPU table)
    from_table = manifest.bandwidth_from_table
    bandwidth_from = (
        _source("bandwidth_unknown") if not math.isfinite(manifest.bandwidth_gb_s)
        else _source("bandwidth_gpu_table", gpu=manifest.gpu) if from_table
        else _source("bandwidth_round_toml"))
    constants.append(Constant("bandwidth_gb_s", manifest.bandwidth_gb_s, "GB/s", bandwidth_from))
    tokens = kv_tokens_per_slot(manifest.input_tokens, manifest.output_tokens)
    constants.append(Constant(
        "kv_tokens_per_slot", tokens, "tokens",
        _source("kv_tokens_per_slot", input=manifest.input_tokens,
                output=manifest.output_tokens)))
    return constants, bandwidth_from, tokens


def _checks(loaded: LoadedRound, tiers: pd.DataFrame, engines_frame: pd.DataFrame,
            parity: pd.DataFrame, temps: Mapping[str, float], segment_rows: list[chk.Check],
            clients: Mapping[str, str], recomputed: pd.DataFrame,
            step_basis: Mapping[str, str]) -> pd.DataFrame:
    """Every self-check of the round, as the checks frame."""
    manifest, engines, axis = loaded.manifest, loaded.engines, loaded.axis
    order = [e.id for e in manifest.engines]
    labels = {e.id: e.label for e in manifest.engines}
    reason = manifest.exclude_reason
    # configurations whose client defines TPOT otherwise than (E2EL − TTFT) ÷ (n − 1)
    untied = {e: client_row(c).name for e, c in clients.items()
              if c and not tpot_ties_e2el(c)}
    check_rows = [
        *chk.finding_checks(loaded.findings),
        *chk.failed_requests(tiers, order),
        *chk.monotonic_throughput(tiers, order),
        *chk.output_token_checks(parity),
        *chk.identity_checks(
            tiers, order, math.nan if manifest.lengths_measured else manifest.output_tokens,
            untied, _tiers_with_arrays(loaded.summary, recomputed)),
        *chk.tpot_skew_checks(tiers, order, untied),
        *chk.arrays_vs_summary(loaded.summary, recomputed),
        *chk.unknown_values(loaded.requests),
        *key_checks(loaded.summary, recomputed),
        *chk.excluded_tiers(tiers, reason),
        *segment_rows,
        *chk.temperature_check(temps),
        *chk.plausibility_checks(tiers, engines_frame, order, axis, step_basis),
        *chk.absurd_values(tiers, order), *chk.duplicate_labels(labels),
        *chk.unmatched_provenance(unmatched_globs(
            manifest.declared, manifest.path.parent, loaded.summary,
            {k: v.files for k, v in engines.items()})),
    ]
    for spec in manifest.engines:
        preempt = _counter_by_tier(engines.get(spec.id), VLLM_PREEMPTIONS)
        check_rows += chk.counter_increase_check(spec.id, "vllm.preemptions", preempt)
    checks = chk.checks_frame(check_rows, axis)
    return checks


def _round_info(loaded: LoadedRound, tiers: pd.DataFrame, clients: Mapping[str, str],
                step_basis: Mapping[str, str], bandwidth_from: Bi, tokens: float,
                pair: tuple[str, str] | None, workload: WorkloadInfo | None) -> RoundInfo:
    """``Analysis.round``: the round's facts as frozen records."""
    manifest, engines, axis = loaded.manifest, loaded.engines, loaded.axis
    reason = manifest.exclude_reason
    facts = tuple(dataclasses.replace(
        _engine_facts(spec, engines.get(spec.id), manifest, clients.get(spec.id)),
        step_basis=step_basis.get(spec.id)) for spec in manifest.engines)
    concurrency = tuple(_axis_value(c) for c in sorted(set(tiers["concurrency"])))
    named = client_summary(clients, manifest.client if manifest.line_of("round.client")
                           else None)
    requests_total = _total(tiers["requests"])  # None when a tier's count is unknown
    return RoundInfo(
        title=manifest.title, subtitle=manifest.subtitle, series=manifest.series,
        date=manifest.date, default_language=manifest.default_language, gpu=manifest.gpu,
        gpu_count=manifest.gpu_count, memory_gib=manifest.memory_gib,
        bandwidth_gb_s=manifest.bandwidth_gb_s, bandwidth_source=bandwidth_from,
        input_tokens=manifest.input_tokens, output_tokens=manifest.output_tokens,
        kv_tokens_per_slot=tokens, model=manifest.model_name,
        client=named.client, client_names=named.names, clients_differ=named.differ,
        concurrency=concurrency,
        requests_total=requests_total,
        requests_per_engine=_same(tiers.groupby("engine")["requests"].sum(min_count=1))
        if requests_total is not None else None,
        completed_total=_total(tiers["completed"]),
        failed_total=_total(tiers["failed"]),
        driver=_joined([f.driver for f in facts]), cuda=_joined([f.cuda for f in facts]),
        engines=facts, primary_pair=pair, axis=axis,
        excluded={k: tuple(v) for k, v in manifest.exclude_from_conclusions.items()},
        exclude_reason=reason, default_language_given=manifest.default_language_given,
        related=tuple(Related(r.title, r.href) for r in manifest.related),
        workload=workload)


# ----------------------------------------------------------------------------- whole round

def _workload_info(w: Workload) -> WorkloadInfo:
    return WorkloadInfo(id=w.id, label=w.title, dataset=w.dataset,
                        input_tokens=w.input_tokens, output_tokens=w.output_tokens,
                        from_settings=w.from_settings)


def _for_workload(loaded: LoadedRound, w: Workload) -> LoadedRound:
    """The round restricted to one workload, its lengths filling what round.toml leaves out."""
    summary = loaded.summary[loaded.summary["workload"] == w.id]
    present = list(dict.fromkeys(summary["engine"]))
    manifest = loaded.manifest
    specs = tuple(e for e in manifest.engines if e.id in present)
    keep_in = isinstance(manifest.input_tokens, int) and len(loaded.workloads) == 1
    # lengths drawn from a range: the KV estimate uses what was measured, parity is off
    inp, out = ((w.mean_input_tokens, w.mean_output_tokens) if w.lengths_vary
                else (w.input_tokens, w.output_tokens))
    axis = w.axis or loaded.axis   # a round sweeping both axes: this view's own
    return dataclasses.replace(
        loaded, summary=summary.reset_index(drop=True), axis=axis,
        engines={k: v for k, v in loaded.engines.items() if k in present},
        manifest=dataclasses.replace(
            manifest, engines=specs, axis=axis,
            input_tokens=manifest.input_tokens if keep_in else _whole(inp),
            output_tokens=manifest.output_tokens if keep_in else _whole(out),
            lengths_measured=not keep_in and (not w.from_settings or w.lengths_vary)))


def _whole(value: float) -> float:
    return int(value) if math.isfinite(value) and float(value).is_integer() else value


def analyze_round(loaded: LoadedRound) -> RoundAnalysis:
    """Analyse every workload of the round separately (see RoundAnalysis)."""
    if not loaded.workloads:
        parts = [analyze(loaded)]
    else:
        parts = [analyze(_for_workload(loaded, w), _workload_info(w)) for w in loaded.workloads]
    return RoundAnalysis(parts=parts, runs=loaded.runs, axis=loaded.axis,
                         skipped=list(loaded.skipped), inferred=list(loaded.inferred))
