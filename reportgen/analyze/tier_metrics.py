"""The tier metrics, declared once: every number column of the ``tiers`` frame (one row per
configuration and tier).

One ``TierMetric`` line feeds every place that lists tier columns:
- the frame's columns and their order (``analyze/run.py``), and which ones a request-rate
  sweep leaves NaN;
- the provenance marks (``analyze/provenance.py``): a cell computed from a result-JSON key that
  round.toml declares synthetic gets its †, so ``inputs`` must name every key it reads;
- the tables export (``tables.py``): the column under its export name, counts as JSON integers;
- the page's full tiers table (``page/tiers.py``) and ``check``'s terminal table
  (``console.py``), when the metric names a heading there.

Consumers call the functions below when they run (never copy the tuples at import), so a
declaration added here is the whole of the wiring.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TierMetric:
    """One per-tier number."""

    column: str                  # the tiers frame's column, unit in its name (_ms, _s, _tok_s)
    inputs: tuple[str, ...]      # the result-JSON keys it is computed from (provenance)
    count: bool = False          # a whole number: written as a JSON integer
    spec: str = ""               # how a cell shows it (reportgen.text.formatting spec)
    label: str = ""              # heading id under [data] in ui.toml: a column of the page
    terminal: str = ""           # check's heading: a column of its terminal table
    concurrency_only: bool = False  # needs requests in flight: NaN on a request-rate sweep
    export: str = ""             # its name in the tables export, when not the column's

    @property
    def exported(self) -> str:
        return self.export or self.column


def _m(column: str, *inputs: str, count: bool = False, spec: str = "", label: str = "",
       terminal: str = "", concurrency_only: bool = False, export: str = "") -> TierMetric:
    return TierMetric(column, inputs, count, spec, label, terminal, concurrency_only, export)


# in frame order; a new metric goes at the end of TIER_METRICS
TIER_METRICS: tuple[TierMetric, ...] = (
    _m("requests", "num_prompts", count=True, spec="d", label="col_requests",
       terminal="requests"),
    _m("completed", "completed", count=True, spec="d", label="col_completed", terminal="done"),
    _m("failed", "completed", "num_prompts", count=True, spec="d", label="col_failed",
       terminal="failed"),
    _m("duration_s", "duration", spec=".2f", label="col_duration", terminal="dur s"),
    _m("total_input_tokens", "total_input_tokens", count=True),
    _m("total_output_tokens", "total_output_tokens", count=True),
    _m("output_tok_s", "total_output_tokens", "duration", spec=".1f", label="col_out",
       terminal="out tok/s"),
    _m("total_tok_s", "total_input_tokens", "total_output_tokens", "duration", spec=".0f",
       label="col_total"),
    _m("ttft_p50_ms", "median_ttft_ms", spec=".0f", label="col_ttft_p50", terminal="TTFT p50"),
    _m("ttft_p99_ms", "p99_ttft_ms", spec=".0f", label="col_ttft_p99"),
    _m("ttft_mean_ms", "mean_ttft_ms"),
    _m("itl_p50_ms", "median_itl_ms", spec=".2f", label="col_itl_p50", terminal="ITL p50"),
    _m("itl_mean_ms", "mean_itl_ms", spec=".2f", label="col_itl_mean"),
    _m("itl_p99_ms", "p99_itl_ms", spec=".1f", label="col_itl_p99", terminal="ITL p99"),
    _m("tpot_p50_ms", "median_tpot_ms", spec=".2f", label="col_tpot_p50"),
    _m("tpot_mean_ms", "mean_tpot_ms"),
    _m("e2el_p50_ms", "median_e2el_ms", spec=".0f", label="col_e2el_p50"),
    _m("e2el_mean_ms", "mean_e2el_ms"),
    _m("mean_output_tokens", "total_output_tokens", "completed", spec=".2f",
       label="col_mean_out"),
    _m("wait_ratio", "mean_tpot_ms", "median_itl_ms"),
    _m("tpot_implied_ms", "mean_e2el_ms", "mean_ttft_ms", "total_output_tokens", "completed"),
    _m("wait_ratio_implied", "mean_e2el_ms", "mean_ttft_ms", "total_output_tokens",
       "completed", "median_itl_ms"),
    _m("itl_mean_over_p50", "mean_itl_ms", "median_itl_ms"),
    _m("per_slot_tok_s", "median_itl_ms"),
    # the roofline floor rests on constants (round.toml, built-in tables), marked through them
    _m("floor_ms", concurrency_only=True),
    _m("roofline_attainment", "median_itl_ms", concurrency_only=True),
    _m("waves", "num_prompts", count=True, concurrency_only=True),
    _m("duration_per_wave_s", "duration", "num_prompts", concurrency_only=True),
    _m("wave_gap", "duration", "num_prompts", "median_e2el_ms", concurrency_only=True),
    # the decode step (analyze/tiers.decode_step): the ITL p50, or the TPOT p50 where the
    # client's ITL is no decode step; the wait ratio, per-slot rate and floor use it (their
    # inputs name the ITL's key: a step from TPOT is a client's, never a synthetic round's)
    _m("step_p50_ms", "median_itl_ms", "median_tpot_ms", spec=".2f"),
)
# the file's own throughput keys, as written (analyze/tiers.FILE_KEY_COLUMNS), kept so that a
# corrected key shows in diff; after the ``excluded`` flag in the frame
FILE_KEY_METRICS: tuple[TierMetric, ...] = (
    _m("file_output_tok_s", "output_throughput"),
    _m("file_request_req_s", "request_throughput"),
    _m("file_total_tok_s", "total_token_throughput"),
)


def declared() -> tuple[TierMetric, ...]:
    return (*TIER_METRICS, *FILE_KEY_METRICS)


def tier_columns() -> tuple[str, ...]:
    """The tiers frame's columns, in order: row keys, metrics, the excluded flag, file keys."""
    return ("engine", "concurrency", *(m.column for m in TIER_METRICS), "excluded",
            *(m.column for m in FILE_KEY_METRICS))


def inputs() -> dict[str, tuple[str, ...]]:
    """Column → the result-JSON keys it is computed from (the metrics computed from any)."""
    return {m.column: m.inputs for m in declared() if m.inputs}


def concurrency_only() -> tuple[str, ...]:
    return tuple(m.column for m in declared() if m.concurrency_only)


def counts() -> frozenset[str]:
    """Exported names of the count columns."""
    return frozenset(m.exported for m in declared() if m.count)


def exported_names() -> dict[str, str]:
    """Column → export name, for the metrics exported under another name."""
    return {m.column: m.exported for m in declared() if m.exported != m.column}


def on_page() -> tuple[TierMetric, ...]:
    """The columns of the page's full tiers table, in frame order."""
    return tuple(m for m in declared() if m.label)


def in_terminal() -> tuple[TierMetric, ...]:
    """The metric columns of ``check``'s terminal table, in frame order."""
    return tuple(m for m in declared() if m.terminal)
