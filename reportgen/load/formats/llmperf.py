"""ray-project llmperf (``token_benchmark_ray.py``): ``<name>_summary.json`` and the same run's
requests in ``<name>_individual_responses.json``.

From the client's source: the summary is ``LLMPerfResults.to_dict()``, the run's settings
(``model``, ``mean_input_tokens``, ``num_concurrent_requests`` …) and ``results`` flattened with
``_`` (``results_ttft_s_quantiles_p50``); every latency is in **seconds** (the key says ``_s``).
``results_mean_output_throughput_token_per_s`` is the output tokens of the requests without an
error over the whole test's time, and ``results_num_completed_requests_per_min`` the completed
requests over that time, so the time is their ratio. ``inter_token_latency_s`` is, per request,
the sum of every gap between streamed chunks — the first token's wait included — divided by
the output tokens: end-to-end time per output token (``ntpot`` here), not the gap between
tokens. A request with an ``error_code`` failed; the statistics cover the others.
llmperf always runs a fixed number of concurrent requests (closed loop): no request rate.
"""

from __future__ import annotations

import math
import re
from pathlib import PurePosixPath
from typing import Any

from reportgen.errors import InputError
from reportgen.load.formats import ClientRun
from reportgen.load.formats.metric_keys import add_stats, count, decode_one, number, utc_stamp

CLIENT = "llmperf"
METRICS = {"ttft_s": "ttft", "end_to_end_latency_s": "e2el", "inter_token_latency_s": "ntpot"}
SUMMARY_MARKERS = (b'"results_ttft_s_', b'"results_mean_output_throughput_token_per_s"',
                   b'"results_num_completed_requests"')
REQUEST_MARKERS = (b'"ttft_s"', b'"end_to_end_latency_s"', b'"number_output_tokens"')
SUFFIX = re.compile(r"_(?:summary|individual_responses)$")
UNITS = "seconds (llmperf's keys end in _s), ×1000"


def sniff(name: str, head: bytes) -> str | None:
    text = head.lstrip()
    if text[:1] == b"{" and any(m in head for m in SUMMARY_MARKERS):
        return "ray llmperf summary (*_summary.json)"
    if text[:1] == b"[" and all(m in head for m in REQUEST_MARKERS):
        return "ray llmperf per-request list (*_individual_responses.json)"
    return None


def run_key(shown: str) -> str:
    """The name both files of one run share: the file name less llmperf's suffix."""
    return SUFFIX.sub("", PurePosixPath(shown).stem)


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """llmperf's own flatten_dict, for a summary saved without it."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}_{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(_flat(v, key))
        else:
            out[key] = v
    return out


def read(raw: bytes, shown: str) -> list[ClientRun]:
    data = decode_one(raw, shown)
    if isinstance(data, list):
        return [_requests(data, shown)]
    if not isinstance(data, dict):
        raise InputError(shown, "expected an llmperf summary (a JSON object)")
    return [_summary(_flat(data), shown)]


def _summary(d: dict[str, Any], shown: str) -> ClientRun:
    completed = count(d.get("results_num_completed_requests"), shown,
                      "results_num_completed_requests")
    failed = count(d.get("results_number_errors", 0), shown, "results_number_errors")
    started = number(d.get("results_num_requests_started"))
    per_min = number(d.get("results_num_completed_requests_per_min"))
    if not (completed > 0 and per_min > 0):
        return ClientRun({}, client=CLIENT, key=run_key(shown),
                         not_a_run="llmperf run with no completed request: nothing measured")
    duration = completed / per_min * 60.0
    record: dict[str, Any] = {
        "duration": duration, "completed": completed, "failed": failed,
        "num_prompts": int(started) if started >= completed else completed + failed,
    }
    out_tput = number(d.get("results_mean_output_throughput_token_per_s"))
    if math.isfinite(out_tput):
        record["output_throughput"] = out_tput
    record["request_throughput"] = completed / duration
    for key, field in (("total_input_tokens", "results_number_input_tokens_mean"),
                       ("total_output_tokens", "results_number_output_tokens_mean")):
        mean = number(d.get(field))  # over the completed requests, so × completed is the sum
        if math.isfinite(mean):
            record[key] = round(mean * completed)
    conc = number(d.get("num_concurrent_requests"))
    if conc >= 1 and conc == int(conc):
        record["max_concurrency"] = int(conc)
    for field, metric in METRICS.items():
        prefix = f"results_{field}_"
        stats = {k[len(prefix):].removeprefix("quantiles_"): v for k, v in d.items()
                 if k.startswith(prefix)}
        add_stats(record, metric, stats, 1000.0)
    for key, field in (("input_len", "mean_input_tokens"), ("output_len", "mean_output_tokens")):
        v = number(d.get(field))
        if v > 0:
            record[key] = v
    spread = [number(d.get(f"stddev_{w}_tokens")) for w in ("input", "output")]
    if all(math.isfinite(s) for s in spread):  # lengths drawn around the means, or exact
        record["random_range_ratio"] = 0.0 if max(spread) == 0 else 1.0
    if isinstance(d.get("model"), str):
        record["model_id"] = d["model"]
    provider, where = _provider(d, shown)
    if provider:  # a string key: placement reads it as a `--metadata` pair of the run
        record["provider"] = provider
    date = utc_stamp(d.get("timestamp"))
    if date is not None:
        record["date"] = date
    return ClientRun(record, client=CLIENT, key=run_key(shown), settings={
        "provider": (provider, where)} if provider else {}, units={
        "latency": UNITS, "duration_s": "results_num_completed_requests / "
                                        "results_num_completed_requests_per_min × 60",
        "ntpot": "inter_token_latency_s: per request, end-to-end time / output tokens"})


WORD = re.compile(r"[A-Za-z0-9]+")
PROVIDER_KEYS = ("provider", "framework")  # `--metadata provider=groq` (leaderboard: framework)


def _provider(d: dict[str, Any], shown: str) -> tuple[str, str]:
    """Who served the run, and where that was read: the summary's `--metadata` provider (the
    llmperf leaderboard writes it as ``framework``), else the words of the file name that
    neither the model id nor llmperf's own run name (``<model>_<in>_<out>``) explain
    (``groq_70b.json`` serving ``llama2-70b-4096`` → groq)."""
    for key in PROVIDER_KEYS:
        value = d.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip(), f"{shown} ({key})"
    known = {w.lower() for field in ("model", "name") if isinstance(d.get(field), str)
             for w in WORD.findall(d[field])}
    words = [w for w in WORD.findall(run_key(shown)) if w.lower() not in known
             and not any(ch.isdigit() for ch in w)]  # `70b`, `run2`: a size or a repeat
    return ("_".join(words), f"{shown} (file name)") if words else ("", "")


def _requests(items: list[Any], shown: str) -> ClientRun:
    rows = [x for x in items if isinstance(x, dict)]  # llmperf's last sweep may add stray keys
    if not rows:
        raise InputError(shown, "expected a list of llmperf request objects")
    ttfts, latencies, ins, outs, errors = [], [], [], [], []
    for r in rows:
        code = r.get("error_code")
        failed = code is not None
        errors.append(f"{code} {r.get('error_msg') or ''}".strip() if failed else "")
        ttft, lat = number(r.get("ttft_s")), number(r.get("end_to_end_latency_s"))
        # a successful request's missing (null), negative or non-finite time is unknown, never
        # 0; a failed request's is never used (0, as vLLM writes it)
        ttfts.append(0.0 if failed else ttft if math.isfinite(ttft) and ttft >= 0 else math.nan)
        latencies.append(0.0 if failed else lat if math.isfinite(lat) and lat >= 0
                         else math.nan)
        n_in, n_out = number(r.get("number_input_tokens")), number(r.get("number_output_tokens"))
        ins.append(int(n_in) if n_in >= 0 else 0)
        outs.append(0 if failed or not n_out >= 0 else int(n_out))
    record = {"ttfts": ttfts, "latencies": latencies, "input_lens": ins, "output_lens": outs,
              "errors": errors}
    return ClientRun(record, client=CLIENT, requests_of=run_key(shown),
                     units={"ttfts": "seconds (ttft_s)", "latencies": "seconds "
                                                                      "(end_to_end_latency_s)"})
