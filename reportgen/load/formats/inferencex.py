"""SemiAnalysis InferenceX (InferenceMAX) result files.

- **Decode-SLO results** (``experimental/token_position_decode_slo/*/results/*.json``, written
  by its ``benchmark_serving_random.py``): vLLM's ``--save-result`` keys (``duration``,
  ``completed``, ``output_throughput`` …) but ``median_ttft``, ``p99_ttft``, ``median_e2el``,
  ``median_tpot`` … **in seconds** with no ``_ms`` suffix: the script stores ``np.median`` of
  per-request seconds and prints them as "(s)". The file name states the layout and lengths
  (``…_tep8_isl1024_osl128_conc16.json``); placement reads those from names.
- **Agentic run summaries** (``agg_*.json``, ``utils/agentic/aggregation``): ``conc``, ``tp``,
  ``ep``, ``dp_attention``, ``num_requests_total/successful`` and ``request_metrics`` with
  ``latency.{ttft,e2el,itl,tpot}.{mean,p50,p75,p90,p95,std}`` in **seconds** (the aggregator
  divides AIPerf's ms by 1000) and ``throughput.{output.tokens_per_second, duration_seconds}``.
  Its ``itl`` and ``tpot`` are both AIPerf's per-request inter-token latency ((latency − TTFT)
  / (output tokens − 1)), i.e. a TPOT: only ``tpot`` is kept. An earlier schema kept the same
  statistics flat (``mean_ttft``, ``p50_ttft`` …, ``output_tput_tps``, ``duration_seconds``) at
  the top level or under ``request_metrics``; both are read. The workload is what the run
  replayed: ``scenario_type`` and the trace ``dataset`` names (``utils/agentic``'s
  ``build_agg`` copies AIPerf's ``metadata.dataset``), so each concurrency's measured lengths
  are its own, not a workload; ``offloading`` / ``kv_offloading`` / ``kv_offload_backend``
  (HiCache, LMCache, none) are part of the configuration, as the layout keys are.
"""

from __future__ import annotations

import math
import re
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun
from reportgen.load.formats.metric_keys import add_stats, count, decode_one, number

CLIENT = "inferencex"
SECONDS_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)$")
FLAT_STAT = re.compile(r"^(mean|std|p\d+)_(ttft|e2el|tpot)$")
LAYOUT_KEYS = ("tp", "ep", "dp_attention", "pp", "framework", "precision", "spec_decoding",
               "disagg", "hw", "offloading", "kv_offloading", "kv_offload_backend")
# what names the trace an agentic run replayed (`dataset`: AIPerf's metadata.dataset)
DATASET_NAME_KEYS = ("name", "dataset_name", "hf_dataset", "path", "trace")


def sniff(name: str, head: bytes) -> str | None:
    if head.lstrip()[:1] != b"{":
        return None
    if b'"duration"' in head and (b'"median_ttft":' in head or b'"p99_ttft":' in head):
        return "InferenceX decode-SLO result (vLLM keys, latencies in seconds)"
    if b'"scenario_type"' in head and b'"num_requests_successful"' in head:
        return "InferenceX agentic run summary (agg_*.json)"
    return None


def read(raw: bytes, shown: str) -> list[ClientRun]:
    data = decode_one(raw, shown)
    if not isinstance(data, dict):
        raise InputError(shown, "expected an InferenceX result (a JSON object)")
    if "duration" in data and "completed" in data:
        return [_decode_slo(data)]
    return [_agentic(data, shown)]


def _decode_slo(data: dict[str, Any]) -> ClientRun:
    record: dict[str, Any] = {}
    for key, value in data.items():
        m = SECONDS_KEY.match(key)
        if m is None:
            record[key] = value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            record[f"{m.group(1)}_{m.group(2)}_ms"] = value * 1000.0  # seconds by definition
    return ClientRun(record, client=CLIENT, units={
        "latency": "seconds (InferenceX benchmark_serving_random.py stores np.median of "
                   "per-request seconds in median_*/p99_*), ×1000"})


def _agentic(data: dict[str, Any], shown: str) -> ClientRun:
    metrics = data.get("request_metrics")
    metrics = metrics if isinstance(metrics, dict) else {}
    completed = count(data.get("num_requests_successful"), shown, "num_requests_successful")
    total = number(data.get("num_requests_total"))
    acct = data.get("request_accounting")
    errors = number(acct.get("records_error_dropped")) if isinstance(acct, dict) else math.nan
    failed = int(errors) if errors >= 0 else (int(total) - completed if total >= completed
                                              else 0)
    tput = metrics.get("throughput")
    flat = {**data, **{k: v for k, v in metrics.items() if not isinstance(v, dict)}}
    if isinstance(tput, dict):
        duration = number(tput.get("duration_seconds"))
        out = tput.get("output")
        out_tps = number(out.get("tokens_per_second")) if isinstance(out, dict) else math.nan
    else:
        duration = number(flat.get("duration_seconds"))
        out_tps = number(flat.get("output_tput_tps"))
    if not duration > 0:
        return ClientRun({}, client=CLIENT, not_a_run="InferenceX agentic summary without "
                                                      "a duration: no request completed")
    record: dict[str, Any] = {"duration": duration, "completed": completed, "failed": failed,
                              "num_prompts": completed + failed,
                              "request_throughput": completed / duration}
    if math.isfinite(out_tps):
        record["output_throughput"] = out_tps
        record["total_output_tokens"] = round(out_tps * duration)  # tokens / duration × duration
    conc = number(data.get("conc"))
    if conc >= 1 and conc == int(conc):
        record["max_concurrency"] = int(conc)
    latency = metrics.get("latency")
    if isinstance(latency, dict):
        for metric in ("ttft", "e2el", "tpot"):
            stats = latency.get(metric)
            if isinstance(stats, dict):
                add_stats(record, metric, stats, 1000.0)
    else:
        for key, value in flat.items():
            m = FLAT_STAT.match(key)
            if m:
                add_stats(record, m.group(2), {m.group(1): value}, 1000.0)
    if isinstance(data.get("model"), str) and data["model"]:
        record["model_id"] = data["model"]
    workload = _workload(data)
    if workload:  # the scenario and trace are the workload; each run's lengths are its own
        record["dataset_name"] = workload
    for key in LAYOUT_KEYS:  # as --metadata strings: a layout that differs is a configuration
        value = data.get(key)
        if isinstance(value, str | int | bool) and str(value) != "":
            record[key] = str(value).lower() if isinstance(value, bool) else str(value)
    settings = {name: (str(data[key]), f"{shown} ({key})")
                for key, name in (("tp", "tensor_parallel"), ("pp", "pipeline_parallel"),
                                  ("num_gpus", "gpu_count"))
                if isinstance(data.get(key), int) and not isinstance(data.get(key), bool)
                and data[key] >= 1}
    if isinstance(data.get("hw"), str) and data["hw"].strip():  # the runner's GPU (b200 …)
        settings["gpu"] = (data["hw"].strip(), f"{shown} (hw)")
    return ClientRun(record, client=CLIENT, settings=settings, units={
        "latency": "seconds (InferenceX agentic aggregation divides AIPerf's ms by 1000), ×1000",
        "tpot": "AIPerf per-request inter-token latency: (latency − TTFT) / (tokens − 1)"})


def _workload(data: dict[str, Any]) -> str:
    """The agentic run's workload as the file states it: its ``scenario_type`` and the name
    of the dataset (trace) it replayed, when ``dataset`` names one."""
    parts = [str(data["scenario_type"])] if isinstance(data.get("scenario_type"), str) \
        and data["scenario_type"] else []
    dataset = data.get("dataset")
    if isinstance(dataset, str) and dataset:
        parts.append(dataset)
    elif isinstance(dataset, dict):
        name = next((dataset[k] for k in DATASET_NAME_KEYS
                     if isinstance(dataset.get(k), str) and dataset[k]), None)
        if name:
            parts.append(str(name).rstrip("/").split("/")[-1])
    return " · ".join(parts)
