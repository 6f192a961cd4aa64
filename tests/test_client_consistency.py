"""Cross-client consistency: every client's files, written against tools/stub_server.py, give
back the stub's known timing model through reportgen's readers.

The stub (settings in each fixture's README): the first token ``ttft_ms`` after the request
arrived; each later token after ``gap_ms + gap_per_ms × (requests in flight − 1)``; exactly
``output_tokens`` one-word tokens. So, for a run with at most ``c`` requests in flight:

- **TTFT** is never below ``ttft_ms`` (every client starts its clock before sending and stops
  it after receiving), and its median is at most ``ttft_ms + OVERHEAD_MS`` (one stream:
  ``ttft_ms + OVERHEAD_C1_MS``): the clients are Python programs that shared two cores with
  the stub and with other jobs (load average above 10) while the fixtures were written, so
  sending, scheduling and parsing add time on the client's side, more with more streams.
- **The decode gap** (vLLM's TPOT: per request (latency − TTFT) / (tokens − 1), which AIPerf and
  GenAI-Perf call ITL and GuideLLM's ITL is; and the pooled ITL mean where a client gives it)
  lies between ``gap(1)`` and ``gap(c)``: the stub keeps an absolute schedule, so the client's
  timing noise only enters through the first and the last token, divided by 15 gaps
  (``GAP_SLACK_MS`` either side).
- **Output tokens** are exactly ``output_tokens`` per completed request, whatever the client
  counts with (the server's ``usage`` or a tokenizer of whitespace words). Input tokens are
  not checked: each client builds its own prompts and counts them its own way.
- **Output throughput** is at most ``c`` requests' tokens per fastest request time
  (``ttft + (tokens − 1) × gap(1)``), and, for a closed loop of ``c`` streams, at least a
  third of what ``c`` streams at ``gap(c)`` would give (the same client overhead, between one
  request and the next). It agrees with the file's own token count over its own time: at most
  tokens / duration, and for a closed loop no less than 85 % of it, because AIPerf 0.13 divides
  by its profiling phase's window (``observation_duration``), which opens before the first
  request is sent (at a request rate, up to one arrival gap before), while the duration it
  reports is first request to last response.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.client_fixtures import CLIENTS, FIXTURES, read_folder, stub_settings

OVERHEAD_MS = 300.0
OVERHEAD_C1_MS = 60.0
GAP_SLACK_MS = 1.5
THROUGHPUT_FLOOR = 1 / 3


@dataclass
class Model:
    ttft_ms: float
    gap_ms: float
    gap_per_ms: float
    out: int
    inp: int

    def gap(self, in_flight: float) -> float:
        return self.gap_ms + self.gap_per_ms * max(in_flight - 1, 0)

    def request_s(self, in_flight: float) -> float:
        return (self.ttft_ms + (self.out - 1) * self.gap(in_flight)) / 1000


def runs_of(folder: str) -> list[tuple[str, dict]]:
    out = []
    for claimed in read_folder(CLIENTS / folder):
        for run in claimed.runs:
            if not run.not_a_run and not run.requests_of:
                out.append((f"{folder}/{claimed.shown}", run.record))
    assert out, f"{folder}: no run read"
    return out


def model_of(folder: str) -> Model:
    s = stub_settings(CLIENTS / folder)
    return Model(s["ttft_ms"], s["gap_ms"], s["gap_per_ms"], s["output_tokens"],
                 s["input_tokens"])


@pytest.mark.parametrize("folder", FIXTURES)
def test_ttft_matches_the_stub(folder: str) -> None:
    m = model_of(folder)
    for where, rec in runs_of(folder):
        ttfts = {k: v for k, v in rec.items() if k.endswith("_ttft_ms") and k != "std_ttft_ms"}
        assert ttfts, where
        low = min(ttfts.values())
        assert low >= m.ttft_ms - 0.5, f"{where}: a TTFT of {low} ms beats the stub's {m.ttft_ms}"
        allowed = OVERHEAD_C1_MS if rec.get("max_concurrency") == 1 else OVERHEAD_MS
        assert rec["median_ttft_ms"] <= m.ttft_ms + allowed, where


def in_flight(rec: dict) -> int:
    """At most this many requests in flight: the concurrency limit (GuideLLM's throughput
    strategy states 512), never more than the run's requests."""
    return min(rec.get("max_concurrency") or rec["completed"], rec["completed"] + rec["failed"])


@pytest.mark.parametrize("folder", FIXTURES)
def test_decode_gap_matches_the_stub(folder: str) -> None:
    m = model_of(folder)
    for where, rec in runs_of(folder):
        c = in_flight(rec)
        lo, hi = m.gap(1) - GAP_SLACK_MS, m.gap(c) + GAP_SLACK_MS
        for key in ("mean_tpot_ms", "mean_itl_ms"):
            if key in rec:
                assert lo <= rec[key] <= hi, f"{where}: {key} {rec[key]:.2f} not in [{lo}, {hi}]"
        assert "mean_tpot_ms" in rec, where
        if c == 1:  # one stream: every gap is gap(1)
            assert rec["median_tpot_ms"] == pytest.approx(m.gap(1), abs=GAP_SLACK_MS), where


@pytest.mark.parametrize("folder", FIXTURES)
def test_tokens_and_throughput_match_the_stub(folder: str) -> None:
    m = model_of(folder)
    for where, rec in runs_of(folder):
        n = rec["completed"]
        assert rec["total_output_tokens"] == n * m.out, where
        own = rec["total_output_tokens"] / rec["duration"]
        # GuideLLM's own figure is the mean of a rate distribution over the requests' times
        # (tests/test_client_own_figures.py): the page's tokens ÷ duration is held to the stub
        tput = own if "guidellm" in folder else rec["output_throughput"]
        closed = rec.get("request_rate") in (None, "inf")
        assert (0.85 * own if closed else 0) <= tput <= own * 1.02, f"{where}: {tput} vs {own}"
        cap = in_flight(rec)
        assert tput <= cap * m.out / m.request_s(1) * 1.02, f"{where}: {tput} tok/s"
        c = rec.get("max_concurrency")
        if c is not None and c <= n and rec.get("request_rate") in (None, "inf"):  # closed loop
            floor = THROUGHPUT_FLOOR * c * m.out / m.request_s(c)
            assert tput >= floor, f"{where}: {tput:.1f} tok/s < {floor:.1f}"


def test_the_clients_agree_with_each_other() -> None:
    """At each concurrency, every client's mean decode gap is within the stub's own spread
    (gap(c) − gap(1)) plus the slack of each side."""
    by_c: dict[int, list[tuple[str, float]]] = {}
    for folder in FIXTURES:
        for where, rec in runs_of(folder):
            c = rec.get("max_concurrency")
            if c and rec.get("request_rate") in (None, "inf"):
                by_c.setdefault(c, []).append((where, rec["mean_tpot_ms"]))
    assert {1, 2, 4} <= set(by_c)
    m = model_of(FIXTURES[0])
    for c, values in by_c.items():
        clients = {w.split("/")[0].rsplit("-", 1)[0] for w, _ in values}
        assert len(clients) >= 2 or c not in (1, 2, 4), (c, values)
        spread = max(v for _, v in values) - min(v for _, v in values)
        assert spread <= m.gap(c) - m.gap(1) + 2 * GAP_SLACK_MS, (c, values)
