"""GuideLLM (vllm-project/guidellm) ``benchmarks.json`` / ``benchmarks.yaml``, versions 0.3 to 0.8.

One file is a ``GenerativeBenchmarksReport``: ``benchmarks`` is a list, one entry per scheduling
strategy that ran (``synchronous``, ``throughput``, ``concurrent`` with ``streams``, ``constant``
or ``poisson`` at ``rate`` …; a sweep is several of them). Each entry becomes one run, its axis
value from its strategy: in 0.3 under ``args.strategy``, from 0.4 on under ``config.strategy``;
the benchmarks of a ``sweep`` profile all go on the rate axis at their measured rate, as
GuideLLM draws them (``_sweep_axis``).

Metrics come from the ``successful`` part of each ``StatusDistributionSummary`` (client source:
``objects/statistics.py`` in 0.3, ``schemas/statistics.py`` later). Their units are in the
field names of the schema (``time_to_first_token_ms``, ``inter_token_latency_ms``,
``time_per_output_token_ms`` in ms; ``request_latency`` in seconds). Requests ``errored`` and
``incomplete`` (cancelled at the end of a benchmark) count as failed. The run's time is the
benchmark's ``end_time - start_time`` (its measured window), so output throughput is the
successful requests' output tokens over that time, as vLLM defines it.

GuideLLM's ITL is per request (last token − first token) / (output tokens − 1): vLLM's TPOT, so
it goes to ``*_tpot_ms``; its distribution is weighted by output tokens − 1, so its mean is also
the mean gap between consecutive tokens over all requests, vLLM's mean ITL. Its statistics are
also the ITL columns (``*_itl_ms``), as GuideLLM prints them as its ITL, under GuideLLM's own
definition (every gap given its request's mean gap: the percentiles leave out the variation
within a request, so it is never taken for a decode step: reportgen/clients.toml).
GuideLLM's TPOT is (last token − request start) / output tokens from 0.4 on, which includes
the first token's wait (``ntpot``, as llmperf's); 0.3's (last − first) / output tokens matches
no other client's and is left out.
Percentiles are nearest-rank on the weighted distribution. See docs/CLIENTS.md.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, cast

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun, NotRecomputable
from reportgen.load.formats.json_fields import Fields, decode_fields
from reportgen.load.formats.metric_keys import (
    count,
    decode_one,
    load_yaml,
    member,
    number,
    utc_stamp,
    whole,
)

CLIENT = "guidellm"
# GuideLLM's percentile field names: p001 is the 0.1th, p01 the 1st, p999 the 99.9th
PERCENTILES = {"p001": "p0.1", "p01": "p1", "p05": "p5", "p10": "p10", "p25": "p25",
               "p50": "p50", "p75": "p75", "p90": "p90", "p95": "p95", "p99": "p99",
               "p999": "p99.9"}
# GuideLLM metric → (common metric, factor to ms); time_per_output_token_ms only from 0.4 on
METRICS = {"time_to_first_token_ms": ("ttft", 1.0), "inter_token_latency_ms": ("tpot", 1.0),
           "time_per_output_token_ms": ("ntpot", 1.0), "request_latency": ("e2el", 1000.0)}
JSON_MARKERS = (b'"generative_benchmark"', b'"guidellm_version"')
# PyYAML sorts keys, so ``type_`` and ``metadata`` may come after the first 64 KiB: any of
# these GuideLLM metric names at the start of a line will do
YAML_MARKERS = (re.compile(rb"(?m)^\s*-?\s*type_: generative_benchmark\s*$"),
                re.compile(rb"(?m)^\s*guidellm_version: "),
                re.compile(rb"(?m)^\s+(time_to_first_token_ms|inter_token_latency_ms|"
                           rb"request_totals):\s*$"))
REQUEST_KEYS = ("time_to_first_token_ms", "request_latency", "prompt_tokens", "output_tokens")
DATA_LENGTHS = re.compile(r"\b(prompt_tokens|output_tokens)\s*[=:]\s*(\d+)")
DEFINITIONS = {
    "ttft": "first token - request start, per request",
    "tpot": "GuideLLM inter_token_latency: per request (last token - first token) / (output "
            "tokens - 1); distribution weighted by output tokens - 1; nearest-rank percentiles",
    "itl": "GuideLLM inter_token_latency: every gap between tokens given its request's mean "
           "gap (weighted by output tokens - 1); its mean is the mean gap over all requests",
    "ntpot": "GuideLLM time_per_output_token (0.4+): per request (last token - request start) "
             "/ output tokens",
}

# not numpy's linear percentiles of unweighted values: never compared with them
OWN_STATISTICS = (
    NotRecomputable("*", True, "GuideLLM Percentiles.from_pdf: the first value whose "
                               "cumulative probability reaches p (inverted CDF)"),
    NotRecomputable("tpot", False, "GuideLLM inter_token_latency: weighted by output tokens "
                                   "- 1"),
    NotRecomputable("itl", False, "GuideLLM inter_token_latency: each gap its request's mean "
                                  "gap, weighted by output tokens - 1"),
)


def sniff(name: str, head: bytes) -> str | None:
    text = head.lstrip()
    if text[:1] == b"{" and b'"benchmarks"' in head and any(m in head for m in JSON_MARKERS):
        return "GuideLLM benchmarks.json"
    if text[:1] not in (b"{", b"[") and re.search(rb"(?m)^benchmarks:", head) \
            and any(m.search(head) for m in YAML_MARKERS):
        return "GuideLLM benchmarks.yaml"
    return None


# what read() uses of a distribution: its `successful` part's summary (not its pdf, mean_ci
# or percentile_cis, which are most of its bytes)
DIST_KEYS: Fields = {key: None for key in ("count", "mean", "median", "std_dev", "percentiles",
                                           "total_sum")}
# what read() uses of a benchmarks.json: the rest (some 30 other distributions, the
# scheduler's state, each request's text and timings) is skipped, not decoded (json_fields)
USED: Fields = {
    "metadata": None,
    "benchmarks": [{
        **{key: None for key in ("type_", "config", "args", "worker", "request_loader",
                                 "request_totals", "start_time", "end_time", "duration")},
        # requests_per_second: a sweep's measured rates (read once the sweep view is merged)
        "metrics": {"request_totals": None,
                    **{key: {"successful": DIST_KEYS} for key in (
                        "prompt_token_count", "output_token_count", "requests_per_second",
                        "output_tokens_per_second", *METRICS)}},
        "requests": {"successful": [{key: None for key in REQUEST_KEYS}]},
    }],
}


def _decode(raw: bytes, shown: str) -> Any:
    if raw.lstrip()[:1] == b"{":
        used = decode_fields(raw, USED)
        return used if used is not None else decode_one(raw, shown)
    return load_yaml(raw, shown)


def read(raw: bytes, shown: str) -> list[ClientRun]:
    data = _decode(raw, shown)
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise InputError(shown, "GuideLLM benchmarks file, schema not supported: expected an "
                                "object with a 'benchmarks' list")
    meta = member(data, "metadata")
    version = str(meta.get("guidellm_version") or "")
    runs = []
    # where benchmark i starts, for its line (GuideLLM writes JSON on one line: all at line 1)
    pos, line, lines = 0, 1, b"\n" in raw.rstrip()
    for i, bench in enumerate(data["benchmarks"]):
        found = raw.find(b"generative_benchmark", pos) if lines else -1
        if found >= 0:
            line += raw.count(b"\n", pos, found)
            pos = found + 1
        if not isinstance(bench, dict) or not isinstance(bench.get("metrics"), dict):
            raise InputError(shown, f"benchmark {i}: GuideLLM schema not supported (no "
                                    "'metrics' object)", line)
        runs.append(_benchmark(bench, i, version, shown, line))
    return runs


def _successful(metrics: dict[str, Any], name: str) -> dict[str, Any] | None:
    dist = metrics.get(name)
    part = dist.get("successful") if isinstance(dist, dict) else None
    # an empty distribution is written as zeros (0.3): nothing was measured
    if not isinstance(part, dict) or not number(part.get("count")) > 0:
        return None
    return part


def _stats(part: dict[str, Any], to_ms: float, metric: str, record: dict[str, Any]) -> None:
    top, percentiles = _columns(metric)
    pct = part.get("percentiles")
    for source, pairs in ((part, top), (pct if isinstance(pct, dict) else {}, percentiles)):
        for name, column in pairs:
            v = source.get(name)
            if type(v) is not float:  # a float is nearly every value: as it is, no call
                v = number(v)
            if v - v == 0:  # finite (NaN and ±inf give NaN)
                record[column] = v * to_ms


@functools.cache
def _columns(metric: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(statistic, column) pairs of ``metric``: mean/median/std, then the percentiles (the
    median is written from ``median``, never from ``p50``)."""
    top = tuple((stat, f"{key}_{metric}_ms")
                for stat, key in (("mean", "mean"), ("median", "median"), ("std_dev", "std")))
    return top, tuple((name, f"{shown}_{metric}_ms") for name, shown in PERCENTILES.items()
                      if name != "p50")


def _strategy(bench: dict[str, Any]) -> dict[str, Any]:
    for holder in ("config", "args"):  # 0.4+ / 0.3
        h = bench.get(holder)
        if isinstance(h, dict) and isinstance(h.get("strategy"), dict):
            return cast(dict[str, Any], h["strategy"])
    return {}


def _profile(bench: dict[str, Any]) -> str:
    """The profile that scheduled the benchmark: ``config.profile.kind`` (0.8),
    ``config.profile.type_`` (0.4 – 0.7), ``args.profile.type_`` (0.3)."""
    for holder in ("config", "args"):
        h = bench.get(holder)
        prof = h.get("profile") if isinstance(h, dict) else None
        if isinstance(prof, dict):
            return str(prof.get("kind") or prof.get("type_") or "")
    return ""


def _sweep_axis(bench: dict[str, Any], strategy: dict[str, Any], ok: int, duration: float,
                shown: str, i: int, record: dict[str, Any], units: dict[str, str]
                ) -> tuple[str, bool]:
    """A benchmark of a ``sweep`` profile goes on the request-rate axis at its **measured**
    rate, as GuideLLM itself draws a sweep (``benchmark/outputs/html.py``: x = the successful
    requests per second; ``plot.py`` the same), whatever its strategy. A sweep runs
    synchronous, then throughput, then constant or Poisson rates spaced between those two
    measured rates, the last one equal to throughput's (``profiles/sweep.py``): at target
    rates, synchronous and throughput would have no place and the last two benchmarks would
    land on one point. Returns the strategy and whether the rate is measured
    (``ClientRun.rate_measured``); ``units["request_rate"]`` names where, with the target
    where there was one. The sweep's ``max_concurrency`` (512 by default) is a cap, not a
    swept value: it is left out."""
    kind = str(strategy.get("type_") or "")
    target = number(strategy.get("rate"))
    if kind == "poisson":
        record["burstiness"] = 1.0
    part = _successful(bench["metrics"], "requests_per_second")
    measured = number(part.get("mean")) if part is not None else math.nan
    where = f"benchmarks[{i}] metrics.requests_per_second.successful.mean"
    if not measured > 0 and ok > 0 and duration > 0:
        measured, where = ok / duration, f"benchmarks[{i}] successful requests / duration"
    if measured > 0:
        record["request_rate"] = measured
        aim = f", target {target:g} req/s" if target > 0 else ", no target rate"
        units["request_rate"] = (f"measured: the {kind} benchmark of a GuideLLM sweep{aim} "
                                 f"({shown}: {where})")
    return kind, measured > 0


def _axis(strategy: dict[str, Any], record: dict[str, Any]) -> str:
    kind = str(strategy.get("type_") or "")
    cap = number(strategy.get("max_concurrency"))
    if kind == "synchronous":
        record["max_concurrency"] = 1
    elif kind == "concurrent":
        streams = number(strategy.get("streams"))
        if streams >= 1:
            record["max_concurrency"] = int(streams)
    elif kind == "throughput":
        record["request_rate"] = "inf"
    elif kind in ("constant", "poisson", "async"):
        rate = number(strategy.get("rate"))
        if rate > 0:
            record["request_rate"] = rate
        if kind == "poisson":
            record["burstiness"] = 1.0  # vLLM's name for Poisson arrivals
    if kind != "concurrent" and cap >= 1 and kind != "synchronous":
        record["max_concurrency"] = int(cap)
    return kind


def _totals(bench: dict[str, Any], shown: str, i: int) -> tuple[int, int, int]:
    metrics = bench["metrics"]
    totals = metrics.get("request_totals") or bench.get("request_totals")
    if not isinstance(totals, dict):
        raise InputError(shown, f"benchmark {i}: GuideLLM schema not supported (no "
                                "request_totals)")
    ok = count(totals.get("successful"), shown, f"benchmark {i} request_totals.successful")
    bad = count(totals.get("errored", 0), shown, f"benchmark {i} request_totals.errored")
    cut = count(totals.get("incomplete", 0), shown, f"benchmark {i} request_totals.incomplete")
    return ok, bad, cut


def _benchmark(bench: dict[str, Any], i: int, version: str, shown: str, line: int
               ) -> ClientRun:
    metrics = bench["metrics"]
    ok, errored, incomplete = _totals(bench, shown, i)
    start, end = number(bench.get("start_time")), number(bench.get("end_time"))
    duration = number(bench.get("duration"))
    if not duration > 0:
        duration = end - start
    record: dict[str, Any] = {"completed": ok, "failed": errored + incomplete,
                              "num_prompts": ok + errored + incomplete}
    units = {"latency": "GuideLLM schema: *_ms fields in ms, request_latency in s",
             "duration": "end_time - start_time of the benchmark (s)",
             "output_throughput": "output_token_count.successful.total_sum / duration"}
    rate_measured = False
    if _profile(bench) == "sweep":  # one sweep, one view: every benchmark on the rate axis
        kind, rate_measured = _sweep_axis(bench, _strategy(bench), ok, duration, shown, i,
                                          record, units)
        # the configuration's strategy: the same for every benchmark of the sweep
        settings = {"strategy": ("sweep", f"{shown}: benchmarks[{i}] profile")}
    else:
        kind = _axis(_strategy(bench), record)
        settings = {"strategy": (kind, f"{shown}: benchmarks[{i}] strategy.type_")}
    if not duration > 0:
        return ClientRun(record, line, CLIENT, settings=settings,
                         not_a_run=f"GuideLLM benchmark {i} ({kind}) has no measured time")
    record["duration"] = duration
    for name, key in (("prompt_token_count", "total_input_tokens"),
                      ("output_token_count", "total_output_tokens")):
        part = _successful(metrics, name)
        total = whole(part.get("total_sum")) if part is not None else None
        if total is not None:  # a missing or impossible sum is unknown, not an error
            record[key] = total
    # GuideLLM's own figures, as its console prints them (the mean of its per-second rate
    # distributions): the page computes its own from tokens ÷ duration and shows these beside
    # it where they differ (a file without them: the computed value, nothing to reconcile)
    own_out = _successful(metrics, "output_tokens_per_second")
    own_rps = _successful(metrics, "requests_per_second")
    if own_out is not None and number(own_out.get("mean")) >= 0:
        record["output_throughput"] = number(own_out.get("mean"))
        units["output_throughput"] = "output_tokens_per_second.successful.mean (GuideLLM's own)"
    elif "total_output_tokens" in record:
        record["output_throughput"] = record["total_output_tokens"] / duration
    if "total_input_tokens" in record and "total_output_tokens" in record:
        record["total_token_throughput"] = (
            record["total_input_tokens"] + record["total_output_tokens"]) / duration
    record["request_throughput"] = number(own_rps.get("mean")) \
        if own_rps is not None and number(own_rps.get("mean")) >= 0 else ok / duration
    old = "args" in bench and "config" not in bench  # 0.3
    for name, (metric, to_ms) in METRICS.items():
        part = _successful(metrics, name)
        if part is not None and not (old and metric == "ntpot"):
            _stats(part, to_ms, metric, record)
    # GuideLLM's inter_token_latency is a distribution over every gap between tokens, each
    # gap given its request's mean gap (weighted by output tokens - 1): its mean is the
    # pooled mean gap; its percentiles are the client's ITL as GuideLLM prints it, shown in
    # the ITL columns under its own definition (clients.toml), never as a decode step
    for key in [k for k in record if k.endswith("_tpot_ms")]:
        record[key.removesuffix("_tpot_ms") + "_itl_ms"] = record[key]
    date = utc_stamp(start)
    if date is not None:
        record["date"] = date
    model = _model(bench)
    if model:
        record["model_id"] = model
    for key, value in _lengths(bench).items():
        record[key] = value
        settings[key] = (str(value), f"{shown}: benchmarks[{i}] data spec")
    _requests(bench, ok, record)
    if version:
        settings["client_version"] = (version, f"{shown}: metadata.guidellm_version")
    definitions = {k: v for k, v in DEFINITIONS.items() if not (old and k == "ntpot")}
    return ClientRun(record, line, CLIENT, units=units, settings=settings,
                     not_recomputable=OWN_STATISTICS, rate_measured=rate_measured,
                     definitions=definitions)


def _model(bench: dict[str, Any]) -> str:
    worker = bench.get("worker")
    if isinstance(worker, dict) and isinstance(worker.get("backend_model"), str):
        return str(worker["backend_model"])  # 0.3
    config = bench.get("config")
    backend = config.get("backend") if isinstance(config, dict) else None
    if isinstance(backend, dict):
        for key in ("model", "backend_model"):
            if isinstance(backend.get(key), str):
                return cast(str, backend[key])
    return ""


def _lengths(bench: dict[str, Any]) -> dict[str, int]:
    """input_len/output_len from a synthetic data spec (``prompt_tokens=256,output_tokens=128``)
    when it fixes them (no ``*_stdev``/``*_min``/``*_max`` that would spread them)."""
    spec: Any = None
    loader = bench.get("request_loader")
    if isinstance(loader, dict):
        spec = loader.get("data")  # 0.3
    config = bench.get("config")
    if spec is None and isinstance(config, dict) and isinstance(config.get("requests"), dict):
        spec = config["requests"].get("data")
    text = str(spec) if spec is not None else ""
    if re.search(r"(prompt|output)_tokens_(stdev|min|max)\s*[=:]\s*[1-9]", text):
        return {}
    names = {"prompt_tokens": "input_len", "output_tokens": "output_len"}
    return {names[k]: int(v) for k, v in DATA_LENGTHS.findall(text)}


def _requests(bench: dict[str, Any], ok: int, record: dict[str, Any]) -> None:
    """Per-request arrays when the file keeps every successful request (GuideLLM samples
    requests when asked: a sample is not the run's distribution), followed by one failed entry
    per errored or incomplete request (sent, never good: goodput counts them). A successful
    request's missing, negative or non-finite time is unknown (NaN), never 0."""
    reqs = bench.get("requests")
    good = reqs.get("successful") if isinstance(reqs, dict) else None
    if isinstance(good, list) and good and len(good) != ok:
        # a sample, or warm-up / cool-down requests kept in the list (0.5): said on the page
        # and by `tables --slo` (analyze/goodput.py missing_requests), never used
        record["requests_note"] = f"{len(good)}/{ok}"
    if not isinstance(good, list) or len(good) != ok or not good:
        return
    ttfts, lats, ins, outs = [], [], [], []
    for r in good:
        if not isinstance(r, dict):
            return
        ttft, lat, n_in, n_out = (number(r.get(key)) for key in REQUEST_KEYS)
        if not all(math.isfinite(v) and v >= 0 for v in (n_in, n_out)):
            return
        ttfts.append(ttft / 1000.0 if math.isfinite(ttft) and ttft >= 0 else math.nan)
        lats.append(lat if math.isfinite(lat) and lat >= 0 else math.nan)
        ins.append(int(n_in))
        outs.append(int(n_out))
    errors = [""] * len(good)
    failed = int(record.get("failed", 0) or 0)
    for status in ("errored", "incomplete"):  # what each failed request was, where it is kept
        kept = reqs.get(status) if isinstance(reqs, dict) else None
        errors += [status] * (len(kept) if isinstance(kept, list) else 0)
    # the counted failures the file does not list (a sampled list): sent, status unknown
    errors += ["errored or incomplete"] * max(failed - (len(errors) - len(good)), 0)
    errors = errors[:len(good) + failed]
    extra = len(errors) - len(good)
    record.update(ttfts=[*ttfts, *[0.0] * extra], latencies=[*lats, *[0.0] * extra],
                  input_lens=[*ins, *[0] * extra], output_lens=[*outs, *[0] * extra],
                  errors=errors)
