"""NVIDIA GenAI-Perf (triton-inference-server/perf_analyzer ``genai-perf``):
``profile_export_genai_perf.json`` / ``.csv`` in ``artifacts/<model>-<service>-<endpoint>-
concurrencyN/`` (or ``-request_rateR``).

From the client's source (``export_data/json_exporter.py``, ``profile_data_parser/
llm_profile_data_parser.py``, ``metrics/statistics.py``): one block per metric with its unit
(``{"unit": "ms", "avg": …, "p50": …}``: the schema AIPerf later kept), plus ``input_config``,
the run's arguments: flat (``concurrency``, ``request_rate``, ``synthetic_input_tokens_mean``)
up to 0.0.13, nested from 0.0.14 on (``perf_analyzer.stimulus``, ``input.synthetic_tokens``).
The CSV has no settings; the artifact folder's name gives the axis.

``inter_token_latency`` is per request (latency − TTFT) / (output tokens − 1), over requests
(vLLM's TPOT); there is no per-chunk ITL in the summary. Percentiles are numpy's linear ones.
Throughputs divide by the time from the first request sent to the last response received.
"""

from __future__ import annotations

import math
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun
from reportgen.load.formats.metric_blocks import (
    COUNTS,
    blocks_from_csv,
    blocks_from_json,
    put_axis,
    summary_record,
)
from reportgen.load.formats.metric_keys import decode_one, member, number

CLIENT = "genai-perf"
LATENCIES = {"time_to_first_token": "ttft", "inter_token_latency": "tpot",
             "request_latency": "e2el"}
WANTED = {*LATENCIES, *COUNTS}
DEFINITIONS = {
    "ttft": "first response - request sent, per request",
    "tpot": "GenAI-Perf inter_token_latency: per request (latency - TTFT) / (output tokens - "
            "1); distribution over requests; numpy linear percentiles",
}
CSV_ROWS = (b"Time To First Token (", b"Request Latency (", b"Output Token Throughput")
# perf_analyzer's own export beside the summary: raw request/response timestamps (ns) and
# payloads, one "experiment" per stimulus; GenAI-Perf derives its summary from it
RAW_HEAD = b'{"experiments":[{"experiment":{"mode":'
RAW_WHY = ("perf_analyzer's raw timestamps (profile_export.json), from which GenAI-Perf "
           "computed the profile_export_genai_perf.json beside it: that summary is the run; "
           "the raw file's per-request timestamps are not read")


def sniff(name: str, head: bytes) -> str | None:
    text = head.lstrip()
    base = name.rsplit("/", 1)[-1]
    if _is_raw(head):
        return "perf_analyzer raw export (profile_export.json), not a run"
    if text[:1] == b"{" and b'"input_config"' in head and b'"aiperf_version"' not in head \
            and b'"request_latency"' in head and b'"unit"' in head:
        return "GenAI-Perf summary (profile_export_genai_perf.json)"
    if text.startswith(b"Metric,") and any(m in head for m in CSV_ROWS) \
            and "genai_perf" in base:
        return "GenAI-Perf summary CSV (profile_export_genai_perf.csv)"
    return None


def _is_raw(raw: bytes) -> bool:
    return b"".join(raw[:256].split()).startswith(RAW_HEAD)


def read(raw: bytes, shown: str) -> list[ClientRun]:
    if _is_raw(raw):
        return [ClientRun({}, client=CLIENT, not_a_run=RAW_WHY)]
    if raw.lstrip()[:1] == b"{":
        data = decode_one(raw, shown)
        if not isinstance(data, dict):
            raise InputError(shown, "expected a GenAI-Perf summary (a JSON object)")
        blocks = blocks_from_json(data, WANTED)
    else:
        data, blocks = {}, blocks_from_csv(raw, shown, WANTED)
    # GenAI-Perf wrote no request_count before 0.0.1x: such a run's throughputs and
    # latencies are read; its count of requests, duration and token totals are unknown
    record, units = summary_record(blocks, LATENCIES, "GenAI-Perf", shown, uncounted=True)
    config = member(data, "input_config")
    settings: dict[str, tuple[str, str]] = {}
    _axis(config, shown, record, settings)
    model = config.get("model_names") or config.get("model")
    if isinstance(model, list) and model and isinstance(model[0], str):
        record["model_id"] = model[0]
    elif isinstance(model, str):
        record["model_id"] = model
    _lengths(config, record, settings, shown)
    if not config:
        units["source"] = "profile_export_genai_perf.csv (no settings: axis from the folder)"
    return [ClientRun(record, client=CLIENT, units=units, settings=settings,
                      key="profile_export", definitions=dict(DEFINITIONS))]


def _axis(config: dict[str, Any], shown: str, record: dict[str, Any],
          settings: dict[str, tuple[str, str]]) -> None:
    pa = config.get("perf_analyzer")
    stimulus = pa.get("stimulus") if isinstance(pa, dict) else None
    where = "input_config.perf_analyzer.stimulus"
    if not isinstance(stimulus, dict):
        stimulus, where = config, "input_config"
    conc, rate = number(stimulus.get("concurrency")), number(stimulus.get("request_rate"))
    if conc >= 1 and conc == int(conc):
        rate = math.nan  # perf_analyzer runs a concurrency or a rate: the concurrency wins
    put_axis(record, settings, shown, conc, rate, where)


def _lengths(config: dict[str, Any], record: dict[str, Any],
             settings: dict[str, tuple[str, str]], shown: str) -> None:
    inp = member(config, "input")
    nested = {"input_len": (inp.get("synthetic_tokens"), "input.synthetic_tokens"),
              "output_len": (inp.get("output_tokens") or config.get("output_tokens"),
                             "input.output_tokens")}
    flat = {"input_len": "synthetic_input_tokens", "output_len": "output_tokens"}
    for key, (spec, where) in nested.items():
        if isinstance(spec, dict):
            mean, sd = number(spec.get("mean")), number(spec.get("stddev"))
        else:
            mean = number(config.get(f"{flat[key]}_mean"))
            sd = number(config.get(f"{flat[key]}_stddev"))
            where = f"{flat[key]}_mean"
        if mean > 0 and (sd == 0 or math.isnan(sd)):
            record[key] = int(mean)
            settings[key] = (str(int(mean)), f"{shown}: input_config.{where}")
