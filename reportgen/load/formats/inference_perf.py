"""kubernetes-sigs inference-perf reports: one ``stage_N_lifecycle_metrics.json`` per load stage.

From the client's source (``inference_perf/reportgen/base.py``, ``summarize_requests``):
``load_summary`` holds ``requested_rate`` (req/s), ``achieved_rate`` and, for a concurrency
load, ``concurrency``, whose stage's ``requested_rate`` is only a placeholder (``main.py`` sets
a ``concurrent`` stage's rate to its ``num_requests``; ``config/loadgen/config.py``: "Set at
runtime for load generation") and is not read; ``successes.latency.{time_to_first_token,
time_per_output_token, inter_token_latency, request_latency,
normalized_time_per_output_token}`` are summaries (mean/median/pN/min/max) in **seconds**;
``successes.throughput`` holds tokens and requests per second over the stage (first send to
last response, ``benchmark_time_seconds`` in newer versions). ``inter_token_latency`` pools
every gap between output tokens of all requests (a chunk's tokens share its arrival time, so
gaps inside a chunk are 0); ``time_per_output_token`` is per request (last − first token time)
/ (output tokens − 1).

Not runs: ``summary_lifecycle_metrics.json`` (every stage at once: no ``requested_rate``),
``adapter_*`` and ``*_session_*`` breakdowns (requests counted in the stage files) and
``*_prometheus_metrics.json`` (the server's own metrics).

``per_request_lifecycle_metrics.json`` (``reportgen/base.py``, ``per_request: true``) lists the
requests of **every** stage (the preprocessing stage −1 left out) as ``{start_time, end_time,
request, response, info, error}``: it writes no stage id. Times are ``time.perf_counter()``
seconds (CLOCK_MONOTONIC, one base for all worker processes), and a stage ends only when its
last request has finished (``run_stage`` waits for ``finished_requests_counter``), so the
stages' requests follow one another in order of ``start_time``. The reader gives the requests
sorted by ``start_time`` as ``requests_of="stage_*"``: ``reportgen.load.client_files`` cuts them
into the stage runs of the folder, in stage order, by each stage's request count. Token times
are ``info.output_token_times`` (≤ 0.4), ``info.response_info.*`` (0.5),
``info.response_metrics.*`` (0.6+); TTFT is the first token time − ``start_time`` and needs
more than one token time, as in ``summarize_requests``.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun, NotRecomputable
from reportgen.load.formats.metric_keys import add_stats, count, decode_one, number

CLIENT = "inference-perf"
METRICS = {"time_to_first_token": "ttft", "time_per_output_token": "tpot",
           "inter_token_latency": "itl", "request_latency": "e2el",
           "normalized_time_per_output_token": "ntpot"}
UNITS = "seconds (inference-perf lifecycle report, successes.latency.*), ×1000"
STAGE_FILE = re.compile(r"stage_(\d+)_lifecycle_metrics\.json$")


# files beside the reports that are no run (0.7): what each is, as the listing says it
SIDE_FILES = {
    "config": "inference-perf configuration as it ran (config.yaml), not a run",
    "partial": "inference-perf per-stage report in the benchmark-report schema "
               "(inference-perf.partial.stage_N.yaml): the same stage as "
               "stage_N_lifecycle_metrics.json, which is read",
    "validation": "inference-perf's validation of its own reports (validation.json), not a run",
}


def _side_file(head: bytes) -> str | None:
    text = head.lstrip()
    if text[:1] == b"{":
        if b'"reports"' in head and b'_lifecycle_metrics.json"' in head \
                and b'"check"' in head:
            return "validation"
        return None
    if re.search(rb"(?m)^load:\s*$", head) and re.search(rb"(?m)^report:\s*$", head) \
            and b"request_lifecycle:" in head:
        return "config"
    if re.match(rb"version: \S+\s+run:\s", text) and b"uid: inference-perf-stage-" in head:
        return "partial"
    return None


def sniff(name: str, head: bytes) -> str | None:
    side = _side_file(head)
    if side is not None:
        return SIDE_FILES[side]
    text = head.lstrip()
    if text[:1] == b"[":
        # 0.7 can leave out request, response or info (per_request_fields), never the times
        if b'"start_time"' in head and b'"end_time"' in head and any(
                k in head for k in (b'"info"', b'"request"', b'"computed_metrics"')):
            return "inference-perf per-request lifecycle list"
        return None
    if text[:1] != b"{" or b'"load_summary"' not in head or b'"successes"' not in head:
        return None
    if b'"latency"' in head or b'"throughput"' in head:
        return "inference-perf lifecycle report"
    return "inference-perf Prometheus report (the server's metrics)"


def _not_run(why: str) -> list[ClientRun]:
    return [ClientRun({}, client=CLIENT, not_a_run=why)]


def read(raw: bytes, shown: str) -> list[ClientRun]:
    side = _side_file(raw[:65536])
    if side is not None:
        return _not_run(SIDE_FILES[side])
    data = decode_one(raw, shown)
    name = PurePosixPath(shown).name.lower()
    if isinstance(data, list):
        return [_requests(data, shown)]
    if not isinstance(data, dict):
        raise InputError(shown, "expected an inference-perf report (a JSON object)")
    load = data.get("load_summary")
    ok = data.get("successes")
    if not isinstance(load, dict) or not isinstance(ok, dict):
        raise InputError(shown, "expected 'load_summary' and 'successes' objects "
                                "(an inference-perf report)")
    if not isinstance(ok.get("latency"), dict) or not isinstance(ok.get("throughput"), dict):
        return _not_run("inference-perf Prometheus report (the server's own metrics per "
                        "stage), not a client run")
    if "session" in name:  # stage_N_session_lifecycle_metrics.json: the same requests again
        return _not_run("inference-perf per-session breakdown; its requests are counted in "
                        "the stage files")
    if name.startswith("adapter_"):
        return _not_run("inference-perf per-LoRA-adapter breakdown; its requests are counted "
                        "in the stage files")
    if "requested_rate" not in load and "concurrency" not in load:
        return _not_run("inference-perf summary of every stage together (no requested_rate); "
                        "the stage files are the runs")
    stage = STAGE_FILE.match(name)
    return [_stage(data, load, ok, shown, f"stage_{stage.group(1)}" if stage else "")]


def _stage(data: dict[str, Any], load: dict[str, Any], ok: dict[str, Any], shown: str,
           run_key: str) -> ClientRun:
    completed = count(ok.get("count"), shown, "successes.count")
    fail = data.get("failures")
    failed = count(fail.get("count", 0), shown, "failures.count") if isinstance(fail, dict) \
        else 0
    tput = ok["throughput"]
    rps = number(tput.get("requests_per_sec"))
    duration = number(data.get("benchmark_time_seconds"))
    how = "benchmark_time_seconds"
    if not duration > 0:  # older reports: requests_per_sec = successes.count / stage time
        duration = completed / rps if rps > 0 else math.nan
        how = "successes.count / throughput.requests_per_sec"
    if not duration > 0:
        return ClientRun({}, client=CLIENT, not_a_run="inference-perf stage with no completed "
                                                      "request: nothing was measured")
    record: dict[str, Any] = {
        "duration": duration, "completed": completed, "failed": failed,
        "num_prompts": completed + failed,
    }
    for key, field in (("total_input_tokens", "input_tokens_per_sec"),
                       ("total_output_tokens", "output_tokens_per_sec")):
        v = number(tput.get(field))
        if math.isfinite(v):  # the stage's token sum / its time, so × time is that sum
            record[key] = round(v * duration)
    for key, field in (("output_throughput", "output_tokens_per_sec"),
                       ("total_token_throughput", "total_tokens_per_sec"),
                       ("request_throughput", "requests_per_sec")):
        v = number(tput.get(field))
        if math.isfinite(v):
            record[key] = v
    conc = number(load.get("concurrency"))
    if conc >= 1 and conc == int(conc):
        record["max_concurrency"] = int(conc)
    # a concurrent stage's `requested_rate` is a placeholder: main.py sets the stage's rate to
    # its num_requests (every request queued within one second, the workers capped by
    # concurrency_level), so it is neither an axis value nor part of the run's identity
    rate = number(load.get("requested_rate"))
    if rate > 0 and "concurrency" not in load:
        record["request_rate"] = rate
    for field, metric in METRICS.items():
        stats = ok["latency"].get(field)
        if isinstance(stats, dict):
            add_stats(record, metric, stats, 1000.0)
    return ClientRun(record, client=CLIENT, key=run_key, units={
        "latency": UNITS, "duration_s": f"seconds ({how})",
        "itl": "pooled gaps between output tokens of all requests (0 inside a chunk)"},
        # reportgen/base.py compute_request_latency_metrics: ends at the last token, not at the
        # response's end as (latency - TTFT) does: not compared with that recomputation
        not_recomputable=(NotRecomputable("tpot", False, (
            "inference-perf time_per_output_token: per request (last token time - first "
            "token time) / (output tokens - 1)")),))


def _response(info: dict[str, Any]) -> dict[str, Any]:
    """The part of ``info`` holding output tokens and their times, in each version's place."""
    for key in ("response_metrics", "response_info"):  # 0.6+ / 0.5
        part = info.get(key)
        if isinstance(part, dict):
            return part
    return info  # ≤ 0.4: flat


def _times_of(start: float, cm: dict[str, Any]) -> list[float]:
    """Token times rebuilt from computed_metrics (TTFT and the gaps after it), from which
    the same TTFT and gaps follow; none when the request did not stream."""
    ttft = number(cm.get("time_to_first_token"))
    gaps = cm.get("inter_token_latencies")
    if not math.isfinite(ttft) or not isinstance(gaps, list) or not gaps:
        return []
    times = [start + ttft]
    for g in gaps:
        times.append(times[-1] + number(g))
    return times


def _requests(data: list[Any], shown: str) -> ClientRun:
    """Every request of the file, sorted by start_time, as per-request arrays (seconds)."""
    rows: list[tuple[float, float, dict[str, Any], Any, dict[str, Any]]] = []
    for i, r in enumerate(data):
        if not isinstance(r, dict):
            raise InputError(shown, f"request {i}: expected an object")
        start, end = number(r.get("start_time")), number(r.get("end_time"))
        if not (math.isfinite(start) and math.isfinite(end)):
            raise InputError(shown, f"request {i}: no numeric start_time / end_time")
        info, cm = r.get("info"), r.get("computed_metrics")
        rows.append((start, end, info if isinstance(info, dict) else {}, r.get("error"),
                     cm if isinstance(cm, dict) else {}))
    rows.sort(key=lambda row: row[0])
    ttfts, lats, ins, outs, itls, errors = [], [], [], [], [], []
    for start, end, info, error, cm in rows:
        if cm:  # 0.7 computed_metrics: the client's own per-request values (s)
            info = {"input_tokens": cm.get("input_tokens"),
                    "output_tokens": cm.get("output_tokens"),
                    "output_token_times": _times_of(start, cm)}
        resp = _response(info)
        times = [t for t in (number(x) for x in resp.get("output_token_times") or [])
                 if math.isfinite(t)]
        failed = error is not None
        if failed:
            err = error if isinstance(error, dict) else {}
            errors.append(f"{err.get('error_type') or 'error'}: {err.get('error_msg') or ''}"
                          .strip(" :"))
        else:
            errors.append("")
        # failed requests: 0 as vLLM writes them (their statistics are never taken)
        ttft = times[0] - start if len(times) > 1 else math.nan
        ttfts.append(0.0 if failed else ttft if ttft >= 0 else math.nan)
        lats.append(0.0 if failed else end - start if end >= start else math.nan)
        n_in = number(info.get("input_tokens"))  # 0.6+: a mirror of request_metrics.text
        ins.append(int(n_in) if n_in >= 0 else 0)
        n_out = number(resp.get("output_tokens"))
        outs.append(int(n_out) if n_out >= 0 and not failed else 0)
        itls.append([] if failed else [b - a for a, b in pairwise(times)])
    record: dict[str, Any] = {"ttfts": ttfts, "latencies": lats, "input_lens": ins,
                              "output_lens": outs, "itls": itls, "errors": errors}
    return ClientRun(record, client=CLIENT, requests_of="stage_*", units={
        "ttfts": "seconds (first output token time - start_time, perf_counter)",
        "latencies": "seconds (end_time - start_time)",
        "itls": "seconds, gaps between consecutive output token times (0 inside a chunk)"})
