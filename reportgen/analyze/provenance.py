"""Which computed values rest on inputs round.toml declares synthetic ([provenance]).

An input is (file, key, tier): a file of the round (path relative to the round folder), one
thing read from it, and the tier it describes (None for facts of the whole run). Each frame
column lists the inputs it is computed from; a value is synthetic when any of its inputs
matches a ``[[provenance.files]]`` entry with status "synthetic" (file glob, and its ``keys`` and
``tiers`` when given), or the whole round is declared synthetic. The page marks those values
(†) in tables, figure points and narrative placeholders.

Keys, per kind of file:
- result JSON: the result's own keys — ``num_prompts``, ``completed``, ``duration``,
  ``total_output_tokens``, ``median_ttft_ms``, ``p99_ttft_ms``, ``mean_ttft_ms``,
  ``median_itl_ms``, ``mean_itl_ms``, ``p99_itl_ms``, ``median_tpot_ms``, ``mean_tpot_ms``,
  ``median_e2el_ms``, ``mean_e2el_ms``, … (the per-request arrays: ``ttfts``, ``itls``, …);
- llama-server log: ``prompt_eval`` (prefill timings), ``eval_tokens`` (tokens per request,
  the batch-aware step count), ``graphs_reused``, ``print_timing`` (the blocks themselves),
  ``memory`` (model buffer and KV cache lines);
- vLLM server log: ``memory``;
- Prometheus scrapes: the metric name (``vllm:request_prefill_time_seconds``);
- fingerprint.txt / gpu.csv: ``memory_used``, ``temperature``.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from reportgen.analyze import tier_metrics
from reportgen.analyze.values import tier_key
from reportgen.load.manifest import Declared, InputProvenance

if TYPE_CHECKING:
    from reportgen.load.discover import EngineFiles

Input = tuple[str, str, float | None]   # (file relative to the round folder, key, tier)

# waves.<id>.c<C>.<name> → tiers column
WAVE_VALUES = {"waves": "waves", "duration_per_wave_s": "duration_per_wave_s",
               "e2el_p50_s": "e2el_p50_ms", "gap": "wave_gap"}
# engines.<id>.<column> computed from ITL p50 at the lowest (c1) / highest (cmax) tier
ENGINE_ITL = {"itl_p50_c1_ms": ("c1",), "effective_gb_s_c1": ("c1",), "mbu_c1": ("c1",),
              "itl_p50_cmax_ms": ("cmax",), "efficiency_cmax": ("cmax",),
              "ms_per_slot": ("c1", "cmax"), "slope_vs_floor": ("c1", "cmax")}
GRAPH_REUSE_KEYS: dict[str, tuple[str, ...]] = {
    "print_timing_lines": ("print_timing",), "expected_lines": ("print_timing",),
    "decode_steps": ("print_timing",), "graphs_reused_delta": ("graphs_reused",),
    "reuse": ("graphs_reused", "print_timing"), "generated_tokens": ("eval_tokens",),
    "decode_steps_batched": ("eval_tokens",), "reuse_batched": ("graphs_reused", "eval_tokens"),
}
# per-request values (distributions, goodput at an SLO) → the per-request arrays they read
ARRAY_KEYS: dict[str, tuple[str, ...]] = {
    "ttft": ("ttfts", "errors"), "tpot": ("ttfts", "latencies", "output_lens", "itls", "errors"),
    "e2el": ("latencies", "ttfts", "itls", "errors"), "itl": ("itls", "errors"),
    "slo": ("ttfts", "latencies", "output_lens", "itls", "errors"),
}
LLAMA_N_DECODE = "llamacpp:n_decode_total"
VLLM_PREFILL = "vllm:request_prefill_time_seconds"


@dataclass(frozen=True)
class Synthetic:
    """The value names (``tiers.<id>.c<C>.<column>``, ``memory.<id>.<column>``, …) computed
    from declared-synthetic input, and the declaration that named them."""

    names: frozenset[str] = frozenset()
    declared: Declared = field(default_factory=Declared)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def cell(self, frame: str, engine: str, concurrency: Any, column: str) -> bool:
        """Is this cell of a per-tier frame (tiers, prefill, graph_reuse) synthetic?"""
        if not self.names:
            return False
        try:
            key = tier_key(float(concurrency))
        except (TypeError, ValueError):
            return False
        return f"{frame}.{engine}.{key}.{column}" in self.names


class _Matcher:
    def __init__(self, declared: Declared) -> None:
        self.everything = declared.status == "synthetic" and not declared.files
        self.entries: list[InputProvenance] = [
            e for e in declared.files if e.status == "synthetic"]

    def __call__(self, inputs: Iterable[Input]) -> bool:
        for path, key, tier in inputs:
            if self.everything:
                return True
            for e in self.entries:
                if not any(fnmatch.fnmatchcase(path, g) for g in e.files):
                    continue
                if e.keys and key not in e.keys:
                    continue
                if e.tiers and (tier is None or not any(math.isclose(tier, t) for t in e.tiers)):
                    continue
                return True
        return False


def _relative(shown: str, root_name: str) -> str:
    """A shown path (``round2-rtx4090/vllm/bench/x.json[:12]``) relative to the round folder."""
    text = str(shown)
    head, sep, rest = text.partition("/")
    if sep and head == root_name:
        text = rest
    path, colon, line = text.rpartition(":")
    return path if colon and line.isdigit() else text


def _path(p: Path | None, root: Path) -> str | None:
    if p is None:
        return None
    try:
        return Path(p).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(p).as_posix()


def synthetic_values(declared: Declared, root: Path, summary: pd.DataFrame,
                     engine_files: Mapping[str, EngineFiles], tiers: pd.DataFrame,
                     prefill: pd.DataFrame, graph_reuse: pd.DataFrame, memory: pd.DataFrame,
                     values: Mapping[str, Any],
                     distributions: pd.DataFrame | None = None,
                     goodput: pd.DataFrame | None = None) -> Synthetic:
    """Every value name whose inputs include a declared-synthetic one. Per-request tables add
    ``distributions.<id>.c<C>.<metric>`` and ``slo.<id>.c<C>.<column>``."""
    if not declared.stated:
        return Synthetic(declared=declared)
    match = _Matcher(declared)
    root_name = Path(root).resolve().name
    bench: dict[tuple[str, float], list[str]] = {}
    if len(summary) and {"engine", "concurrency", "source"} <= set(summary.columns):
        for e, c, src in summary[["engine", "concurrency", "source"]].itertuples(index=False):
            bench.setdefault((str(e), float(c)), []).append(_relative(src, root_name))
    names: set[str] = set()
    tier_keys = tier_metrics.inputs()   # tiers column → the result-JSON keys it is computed from

    def bench_inputs(engine: str, c: float, column: str) -> list[Input]:
        return [(f, k, c) for f in bench.get((engine, c), []) for k in tier_keys.get(column, ())]

    for engine, concurrency in tiers[["engine", "concurrency"]].itertuples(index=False):
        e, c = str(engine), float(concurrency)
        for column in tier_keys:
            if match(bench_inputs(e, c, column)):
                names.add(f"tiers.{e}.{tier_key(c)}.{column}")
        for name, column in WAVE_VALUES.items():
            if f"tiers.{e}.{tier_key(c)}.{column}" in names:
                names.add(f"waves.{e}.{tier_key(c)}.{name}")

    for e, files in engine_files.items():
        log = _path(files.server_log, root)
        metrics = files.metrics

        def server_prefill(c: float, e: str = e, log: str | None = log,
                           metrics: Mapping[Any, Any] = metrics) -> list[Input]:
            scraped = metrics.get(int(c)) if float(c).is_integer() else None
            out: list[Input] = [(log, "prompt_eval", c)] if log else []
            for p in scraped or ():
                out.append((_path(p, root) or "", VLLM_PREFILL, c))
            return out

        for row in _own(prefill, e):
            c = float(row["concurrency"])
            key = f"prefill.{e}.{tier_key(c)}"
            server = match(server_prefill(c))
            ttft = match(bench_inputs(e, c, "ttft_p50_ms"))
            if server:
                names |= {f"{key}.server_ms", f"{key}.server_samples"}
            if ttft:
                names.add(f"{key}.ttft_p50_ms")
            if server or ttft:
                names.add(f"{key}.client_overhead_ms")
        for row in _own(graph_reuse, e):
            c = float(row["concurrency"])
            key = f"graph_reuse.{e}.{tier_key(c)}"
            scraped = metrics.get(int(c)) if float(c).is_integer() else None
            for column, keys in GRAPH_REUSE_KEYS.items():
                inputs: list[Input] = [(log, k, c) for k in keys] if log else []
                if column in ("generated_tokens", "decode_steps_batched", "reuse_batched") and \
                        row.get("decode_steps_batched_source") == "metrics":
                    inputs = [(_path(p, root) or "", LLAMA_N_DECODE, c) for p in scraped or ()]
                if match(inputs):
                    names.add(f"{key}.{column}")
            for column in ("itl_p50_ms", "roofline_attainment"):
                if match(bench_inputs(e, c, column)):
                    names.add(f"{key}.{column}")
        names |= _memory_names(memory, e, log, match, root_name)
        temps = [(p, "temperature", None) for p in (
            _path(files.fingerprint, root), _path(files.gpu_csv, root)) if p]
        if match(temps):
            names |= {f"gpu.{e}.max_temperature_c", "gpu.max_temperature_c"}

    def arrays(e: str, c: float, metric: str) -> list[Input]:
        return [(f, k, c) for f in bench.get((e, c), []) for k in ARRAY_KEYS[metric]]

    if distributions is not None and len(distributions):
        for e, c, metric in distributions[["engine", "concurrency", "metric"]].itertuples(
                index=False):
            if match(arrays(str(e), float(c), str(metric))):
                names.add(f"distributions.{e}.{tier_key(float(c))}.{metric}")
    if goodput is not None and len(goodput):
        for e, c in goodput[["engine", "concurrency"]].itertuples(index=False):
            if match(arrays(str(e), float(c), "slo")):
                names |= {f"slo.{e}.{tier_key(float(c))}.{col}" for col in (
                    "requests_sent", "requests_good", "attainment", "goodput_rps")}
                names |= {f"capacity.{e}.load", "capacity.best_load"}
    names |= _derived(names, tiers, values)
    return Synthetic(frozenset(n for n in names if n in values or _is_cell(n)), declared)


def _memory_names(memory: pd.DataFrame, e: str, log: str | None, match: _Matcher,
                  root_name: str) -> set[str]:
    """The memory split's values of configuration ``e`` that rest on a synthetic input: the
    server log's split, the measured total (nvidia-smi), and what is derived from either."""
    names: set[str] = set()
    for row in _own(memory, e, per_tier=False):
        key = f"memory.{e}"
        logged = bool(log and match([(log, "memory", None)]))
        measured_at = row.get("measured_source")
        measured = isinstance(measured_at, str) and bool(measured_at) and match(
            [(_relative(measured_at.split(" (")[0], root_name), "memory_used", None)])
        if logged:
            names |= {f"{key}.{c}" for c in ("weights_gib", "kv_pool_gib", "kv_pool_tokens",
                                             "estimated_total_gib")}
        if measured:
            names |= {f"{key}.measured_total_gib", f"{key}.measured_total_mib"}
        if logged or measured:
            names |= {f"{key}.other_gib", f"{key}.estimate_gap"}
    return names


def _is_cell(name: str) -> bool:
    return name.split(".", 1)[0] in ("tiers", "prefill", "graph_reuse", "memory",
                                     "distributions", "slo")


def _own(frame: pd.DataFrame | None, engine: str, per_tier: bool = True
         ) -> list[dict[Hashable, Any]]:
    if frame is None or frame.empty or "engine" not in frame.columns:
        return []
    own = frame[frame["engine"] == engine]
    if per_tier and "concurrency" not in own.columns:
        return []
    return [own.iloc[i].to_dict() for i in range(len(own))]


def _derived(names: set[str], tiers: pd.DataFrame, values: Mapping[str, Any]) -> set[str]:
    """Values computed from other values: engine summaries, ratios, totals."""
    out: set[str] = set()
    engines = sorted({str(e) for e in tiers["engine"]}) if len(tiers) else []

    def tier(e: str, which: str, column: str) -> str:
        c = values.get(f"engines.{e}.{which}")
        if c is None:
            return ""
        try:
            return f"tiers.{e}.{tier_key(float(c))}.{column}"
        except (TypeError, ValueError):
            return ""

    def any_tier(e: str, column: str) -> bool:
        return any(n.startswith(f"tiers.{e}.") and n.endswith(f".{column}") for n in names)

    for e in engines:
        for column, which in ENGINE_ITL.items():
            if any(tier(e, w, "itl_p50_ms") in names for w in which):
                out.add(f"engines.{e}.{column}")
        if any_tier(e, "output_tok_s"):
            out |= {k for k in values if k.startswith(f"throughput_drop.{e}.")}
        if any_tier(e, "total_output_tokens") or any_tier(e, "completed"):
            out |= {k for k in values if k.startswith(f"output_tokens.{e}.")}
        if any_tier(e, "completed") or any_tier(e, "requests"):
            out |= {k for k in values if k.startswith("setup.") and (
                "requests" in k or "completed" in k or "failed" in k)}
    pair = [values.get("pair.a"), values.get("pair.b")]
    if any(isinstance(e, str) and any_tier(e, "output_tok_s") for e in pair):
        out |= {k for k in values if k.startswith("crossover.")}
    if any(f"engines.{e}.itl_p50_c1_ms" in out for e in pair if isinstance(e, str)):
        out |= {k for k in values if k.startswith("step_ratio.") and k != "step_ratio.predicted"}
    if any(f"engines.{e}.ms_per_slot" in out or f"engines.{e}.efficiency_cmax" in out
           for e in pair if isinstance(e, str)):
        out |= {"batching.efficiency_ratio", "batching.slope_difference_ms"}
    c = values.get("prefill.concurrency")
    if isinstance(c, int | float) and math.isfinite(c):
        key = tier_key(float(c))
        for side in pair:
            if f"prefill.{side}.{key}.server_ms" in names:
                out.add("prefill.server_side_gap")
            if f"prefill.{side}.{key}.ttft_p50_ms" in names:
                out.add("prefill.client_side_gap")
    if any(n.startswith("memory.") and n.endswith(".kv_pool_tokens") for n in names):
        out.add("memory.kv_capacity_ratio")
    return out


def unmatched_globs(declared: Declared, root: Path, summary: pd.DataFrame,
                    engine_files: Mapping[str, EngineFiles]) -> list[str]:
    """The ``[[provenance.files]]`` globs that match no input the round reads: a typo there
    would silently drop the marks the author asked for."""
    if not declared.files:
        return []
    root_name = Path(root).resolve().name
    inputs: set[str] = set()
    if len(summary) and "source" in summary.columns:
        inputs |= {_relative(str(src), root_name) for src in summary["source"]}
    for files in engine_files.values():
        for p in (*files.bench, files.server_log, files.fingerprint, files.gpu_csv,
                  *(q for pair in files.metrics.values() for q in pair)):
            if (shown := _path(p, root)) is not None:
                inputs.add(shown)
    globs = dict.fromkeys(g for e in declared.files for g in e.files)
    return [g for g in globs if not any(fnmatch.fnmatchcase(path, g) for path in inputs)]
