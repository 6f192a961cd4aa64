"""NVIDIA AIPerf (ai-dynamo/aiperf): ``profile_export_aiperf.json`` / ``.csv``, the per-request
``profile_export.jsonl``, and the aggregates of several runs.

From the client's source (``common/models/export_models.py``, ``metrics/types/*.py``; the
schema has been the same from 0.3 to 0.13, ``schema_version`` 1.x): the summary holds one block
per metric, ``{"unit": "ms", "avg": …, "p50": …, "std": …}``, in the metric's display unit,
plus ``input_config`` (what the run was asked for: ``loadgen.concurrency`` /
``loadgen.request_rate`` up to 0.12, ``phases`` from 0.13), ``start_time`` and ``error_summary``.
The CSV has the same blocks with the unit in the row name and no settings; the artifact
folder's name (``<model>-openai-chat-concurrency4``, AIPerf's default) then gives the axis.

Definitions: ``inter_token_latency`` is per request (request latency − TTFT) / (output tokens −
1), the distribution over requests (vLLM's TPOT, so it goes to ``*_tpot_ms``);
``inter_chunk_latency`` is the gap between streamed chunks (vLLM's ITL). Percentiles are numpy's
linear ones. ``request_count`` counts the requests without an error, ``error_request_count`` the
others; ``output_token_throughput`` is their output tokens over ``benchmark_duration`` (first
request sent to last response received), as vLLM defines it.

``profile_export.jsonl`` holds each request's metrics (``{"value": …, "unit": …}``) and
``metadata.benchmark_phase``; warm-up requests are left out. It is read as the per-request part
of the summary in its folder (``requests_of``). ``profile_export_aiperf_sweep.json``,
``_aggregate.json`` (confidence over repeats), ``_collated.json`` and ``_timeslices.json``
summarise runs whose own files are read (so do their CSVs), ``run_config.json`` repeats a run's
settings and ``server_metrics_export.json`` holds the server's Prometheus metrics: they are
listed, never counted as runs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from typing import Any

from reportgen.errors import InputError
from reportgen.files.safe_read import InputStream
from reportgen.load.bench_json import decode_records
from reportgen.load.formats import ClientRun, NotRecomputable, aiperf_records
from reportgen.load.formats.metric_blocks import (
    COUNTS,
    TIME_UNITS,
    Block,
    blocks_from_csv,
    blocks_from_json,
    put_axis,
    summary_record,
)
from reportgen.load.formats.metric_keys import decode_one, member, number

CLIENT = "aiperf"
KEY = "profile_export"  # the summary and the per-request file of one run share their folder
LATENCIES = {"time_to_first_token": "ttft", "inter_token_latency": "tpot",
             "inter_chunk_latency": "itl", "request_latency": "e2el"}
WANTED = {*LATENCIES, *COUNTS}
DEFINITIONS = {
    "ttft": "first content response - request sent, per request",
    "tpot": "AIPerf inter_token_latency: per request (latency - TTFT) / (output tokens - 1); "
            "distribution over requests; numpy linear percentiles",
    "itl": "AIPerf inter_chunk_latency: gap between streamed chunks",
}
SUMMARY_MARKERS = (b'"aiperf_version"', b'"input_config"')
CSV_ROWS = (b"Time To First Token (", b"Request Latency (", b"Output Token Throughput")
AGGREGATE = re.compile(rb'"aggregation_type"\s*:\s*"(\w+)"')
CONFIDENCE_CSV = b"metric,mean,std,min,max,cv,se,ci_low,ci_high"
SWEEP_CSV = re.compile(rb"^(concurrency|request_rate)[^\n]*_mean,[^\n]*_cv\b")
NOT_RUNS = {  # what these files are, and why they are listed but never counted
    "confidence": "AIPerf confidence aggregate: statistics over repeated runs whose own "
                  "profile_export_aiperf.json files are read",
    "sweep": "AIPerf sweep aggregate: a summary of the sweep's runs, whose own "
             "profile_export_aiperf.json files are read",
    "config": "AIPerf run configuration: the settings of a run, which its "
              "profile_export_aiperf.json repeats",
}


def sniff(name: str, head: bytes) -> str | None:
    text = head.lstrip()
    base = name.rsplit("/", 1)[-1]
    if text[:1] == b"{":
        if b'"num_profile_runs"' in head and (m := AGGREGATE.search(head)):
            return f"AIPerf {m.group(1).decode()} aggregate (profile_export_aiperf_*.json)"
        if b'"sweep_id"' in head and b'"cfg"' in head and b'"benchmark_id"' in head:
            return "AIPerf run configuration (run_config.json)"
        if _server_metrics(head):
            return "AIPerf server metrics export (server_metrics_export.json)"
        if b'"timeslices"' in head[:4096] and b'"aiperf_version"' in head:
            return "AIPerf timeslices (profile_export_aiperf_timeslices.json)"
        if b'"metadata"' in head and b'"benchmark_phase"' in head and b'"metrics"' in head:
            return REQUESTS
        if all(m in head for m in SUMMARY_MARKERS) or (
                b'"input_config"' in head and b'"time_to_first_token"' in head
                and b'"endpoint"' in head and b'"loadgen"' in head):
            return "AIPerf summary (profile_export_aiperf.json)"
    elif text.startswith(CONFIDENCE_CSV):
        return "AIPerf confidence aggregate CSV (profile_export_aiperf_aggregate.csv)"
    elif SWEEP_CSV.match(text):
        return "AIPerf sweep aggregate CSV (profile_export_aiperf_sweep.csv)"
    elif text.startswith(b"Metric,") and any(m in head for m in CSV_ROWS) \
            and "genai_perf" not in base:
        return "AIPerf summary CSV (profile_export_aiperf.csv)"
    return None


HEAD = 1 << 20   # a per-request file is told by its first line, within its first MiB
REQUESTS = "AIPerf per-request records (profile_export.jsonl)"


def streams(what: str) -> bool:
    """Whether a file the sniff described so is worth streaming (``read_stream``): only the
    per-request records; any other file is read whole at once."""
    return what == REQUESTS



def read_stream(stream: InputStream, shown: str) -> list[ClientRun] | None:
    """``read`` of a per-request ``profile_export.jsonl`` streamed into columns
    (aiperf_records); None for any other file, or one the usual route must decide."""
    head = stream.read(HEAD)
    text = head.lstrip()
    if b"\n" not in text or _not_requests(head) or not _first_line_requests(text):
        return None
    record = aiperf_records.columns(stream, head)
    return None if record is None else [_requests_run(record)]


def _not_requests(raw: bytes) -> bool:
    """The files ``read`` tells apart before it looks at the first line."""
    text = raw.lstrip()
    head = raw[:65536]
    return (text.startswith(CONFIDENCE_CSV) or SWEEP_CSV.match(text) is not None
            or not text.startswith(b"{")
            or (b'"num_profile_runs"' in head and AGGREGATE.search(head) is not None)
            or (b'"sweep_id"' in head and b'"cfg"' in head and b'"benchmark_id"' in head)
            or _server_metrics(head))


def _first_line_requests(text: bytes) -> bool:
    first_line = text.split(b"\n", 1)[0]
    return b'"benchmark_phase"' in first_line and b'"metrics"' in first_line


def read(raw: bytes, shown: str) -> list[ClientRun]:
    text = raw.lstrip()
    if text.startswith(CONFIDENCE_CSV):
        return [ClientRun({}, client=CLIENT, not_a_run=NOT_RUNS["confidence"])]
    if SWEEP_CSV.match(text):
        return [ClientRun({}, client=CLIENT, not_a_run=NOT_RUNS["sweep"])]
    if not text.startswith(b"{"):
        return [_summary(blocks_from_csv(raw, shown, WANTED), {}, shown, csv=True)]
    head = raw[:65536]
    if b'"num_profile_runs"' in head and (m := AGGREGATE.search(head)):
        kind = m.group(1).decode()
        return [ClientRun({}, client=CLIENT, not_a_run=NOT_RUNS.get(kind, (
            f"AIPerf {kind} aggregate: a summary of runs whose own "
            "profile_export_aiperf.json files are read")))]
    if b'"sweep_id"' in head and b'"cfg"' in head and b'"benchmark_id"' in head:
        return [ClientRun({}, client=CLIENT, not_a_run=NOT_RUNS["config"])]
    if _server_metrics(raw[:65536]):
        return [ClientRun({}, client=CLIENT, not_a_run=(
            "AIPerf server metrics export: the server's Prometheus metrics during a run, "
            "not a run"))]
    if _first_line_requests(text):
        return [_requests(raw, shown)]
    data = decode_one(raw, shown)
    if not isinstance(data, dict):
        raise InputError(shown, "expected an AIPerf summary (a JSON object)")
    if isinstance(data.get("timeslices"), list):
        return [ClientRun({}, client=CLIENT, not_a_run=(
            "AIPerf timeslices: slices of a run whose profile_export_aiperf.json is read"))]
    return [_summary(blocks_from_json(data, WANTED), data, shown, csv=False)]


def _server_metrics(head: bytes) -> bool:
    """``server_metrics_export.json``: ``summary.endpoints_configured`` and ``metrics`` of
    Prometheus series, with the same ``aiperf_version``/``input_config`` as a summary."""
    if b'"request_latency"' in head or b'"time_to_first_token"' in head:
        return False  # a summary (its metric blocks come first) mentions endpoints too
    return b'"endpoints_configured"' in head or (b'"series"' in head
                                                 and b'"endpoint_url"' in head)


def _phases(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The profiling phases of a 0.13+ config (``phases`` as a list or a name → phase map),
    warm-up left out."""
    phases = config.get("phases")
    items = phases.values() if isinstance(phases, dict) else phases if isinstance(
        phases, list) else []
    names = list(phases) if isinstance(phases, dict) else [None] * len(items)
    return [p for p, n in zip(items, names, strict=True) if isinstance(p, dict)
            and "warmup" not in str(n or p.get("name") or "").lower()
            and not p.get("exclude_from_results")]


def _axis(config: dict[str, Any], shown: str, record: dict[str, Any],
          settings: dict[str, tuple[str, str]]) -> None:
    conc = number(member(config, "loadgen").get("concurrency"))
    rate = number(member(config, "loadgen").get("request_rate"))
    where = "input_config.loadgen"
    for phase in _phases(config):
        where = "input_config.phases"
        c, r = number(phase.get("concurrency")), number(phase.get("rate"))
        conc = c if math.isfinite(c) else conc
        rate = r if math.isfinite(r) else rate
        kind = phase.get("type")
        if isinstance(kind, str):
            settings["strategy"] = (kind, f"{shown}: {where}.type")
    put_axis(record, settings, shown, conc, rate, where)


def _summary(blocks: dict[str, Block], data: dict[str, Any], shown: str, *, csv: bool
             ) -> ClientRun:
    record, units = summary_record(blocks, LATENCIES, "AIPerf", shown)
    settings: dict[str, tuple[str, str]] = {}
    config = member(data, "input_config")
    _axis(config, shown, record, settings)
    names = member(config, "endpoint").get("model_names") or member(config, "models").get(
        "items")
    if isinstance(names, list) and names:
        first = names[0]
        model = first if isinstance(first, str) else member(first).get("name")  # 0.13
        if isinstance(model, str):
            record["model_id"] = model
    _lengths(config, record, settings, shown)
    start = data.get("start_time")
    if isinstance(start, str):
        with contextlib.suppress(ValueError):
            record["date"] = dt.datetime.fromisoformat(start).strftime("%Y%m%d-%H%M%S")
    version = data.get("aiperf_version")
    definitions = dict(DEFINITIONS)
    own: tuple[NotRecomputable, ...] = ()
    if isinstance(version, str):
        settings["client_version"] = (version, f"{shown}: aiperf_version")
        if _tdigest(version) and "inter_chunk_latency" in blocks:
            own = (NotRecomputable("itl", True, (
                f"estimates: AIPerf {version} keeps inter_chunk_latency in a t-digest sketch "
                "(metrics/list_metric_aggregation.py); its mean, count and sum are exact")),)
            definitions["itl"] += "; its percentiles are t-digest estimates (AIPerf 0.8 - 0.11)"
    if csv:
        units["source"] = "profile_export_aiperf.csv (no settings: axis from the folder name)"
    return ClientRun(record, client=CLIENT, units=units, settings=settings, key=KEY,
                     definitions=definitions, not_recomputable=own)


# AIPerf 0.8 - 0.11 aggregate a list-valued metric (inter_chunk_latency: each request's chunk
# gaps) in a t-digest sketch (TDigestListMetricAggregator): its percentiles are estimates
# that differ from the exact ones by a few per cent on a short run; 0.12 made exact storage
# the default again, and 0.7 and older kept every value
TDIGEST_FROM, TDIGEST_UNTIL = (0, 8), (0, 12)


def _tdigest(version: str) -> bool:
    m = re.match(r"(\d+)\.(\d+)", version.strip())
    return m is not None and TDIGEST_FROM <= (int(m[1]), int(m[2])) < TDIGEST_UNTIL


def _lengths(config: dict[str, Any], record: dict[str, Any],
             settings: dict[str, tuple[str, str]], shown: str) -> None:
    specs = [(member(config, "input", "prompt"), "input.prompt", "input_tokens",
              "output_tokens")]
    datasets = config.get("datasets")  # 0.13: datasets[i].prompts.isl / .osl
    if isinstance(datasets, list) and len(datasets) == 1:
        specs.append((member(datasets[0], "prompts"), "datasets[0].prompts", "isl", "osl"))
    for prompt, where, isl, osl in specs:
        for key, block in (("input_len", isl), ("output_len", osl)):
            spec = member(prompt, block)
            mean, sd = number(spec.get("mean")), number(spec.get("stddev"))
            if mean > 0 and (sd == 0 or math.isnan(sd)):
                record[key] = int(mean)
                settings[key] = (str(int(mean)), f"{shown}: input_config.{where}.{block}")


def _seconds(value: Any, ms_per_unit: float) -> float:
    """A per-request time in seconds; NaN (unknown) when missing, negative or not finite."""
    v = number(value)
    return v * ms_per_unit / 1000.0 if math.isfinite(v) and v >= 0 else math.nan


def _requests(raw: bytes, shown: str) -> ClientRun:
    ttfts, lats, ins, outs, itls, errors = [], [], [], [], [], []
    for data, line in decode_records(raw, shown):
        if not isinstance(data, dict):
            raise InputError(shown, "expected one AIPerf record object per line", line)
        meta = member(data, "metadata")
        if str(meta.get("benchmark_phase", "profiling")).lower() != "profiling":
            continue  # warm-up
        metrics = member(data, "metrics")
        err = data.get("error")
        failed = err is not None

        def value(tag: str, line: int = line, metrics: dict[str, Any] = metrics
                  ) -> tuple[Any, float]:
            m = metrics.get(tag)
            if not isinstance(m, dict):
                return None, math.nan
            unit = str(m.get("unit", "")).strip().lower()
            # ms per unit: a time is converted as value × ms ÷ 1000, so a value in ms is
            # divided by 1000 exactly as an SLO threshold is (value * 0.001 can differ from
            # value / 1000 in the last bit, and the inclusive rule then fails at the file's
            # own value)
            factor = TIME_UNITS.get(unit, math.nan) if unit in TIME_UNITS else 1.0
            if unit not in TIME_UNITS and tag not in ("input_sequence_length",
                                                      "output_sequence_length"):
                raise InputError(shown, f"{tag}: unit {m.get('unit')!r} is not a time unit",
                                 line)
            return m.get("value"), factor

        errors.append("" if not failed else str(member(err).get("message")
                                                 or member(err).get("type") or "error"))
        # a successful request's missing, negative or non-finite time is unknown (NaN),
        # never 0; a failed request's is never used (0, as vLLM writes it)
        ttft, f = value("time_to_first_token")
        ttfts.append(0.0 if failed else _seconds(ttft, f))
        lat, f = value("request_latency")
        lats.append(0.0 if failed else _seconds(lat, f))
        n_in, _ = value("input_sequence_length")
        n_out, _ = value("output_sequence_length")
        ins.append(int(number(n_in)) if math.isfinite(number(n_in)) and number(n_in) >= 0
                   else 0)
        outs.append(int(number(n_out)) if not failed and math.isfinite(number(n_out))
                    and number(n_out) >= 0 else 0)
        gaps, f = value("inter_chunk_latency")
        if isinstance(gaps, list) and not failed:
            itls.append([number(g) * f / 1000.0 for g in gaps
                         if math.isfinite(number(g)) and number(g) >= 0])
        else:
            itls.append([])
    return _requests_run({"ttfts": ttfts, "latencies": lats, "input_lens": ins,
                          "output_lens": outs, "itls": itls, "errors": errors})


def _requests_run(record: dict[str, Any]) -> ClientRun:
    if not record["errors"]:
        return ClientRun({}, client=CLIENT, not_a_run="AIPerf per-request file with no "
                                                      "profiling request (warm-up only)")
    return ClientRun(record, client=CLIENT, requests_of=KEY,
                     units={"per-request": "each record's metrics.<tag>.unit, to seconds"},
                     definitions={"itl": DEFINITIONS["itl"]})
