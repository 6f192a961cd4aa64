"""What the page says about the round's files: settings inferred (under the setup card), the
runs behind this view's tiers and the files not read, with why (the data section)."""

from __future__ import annotations

import math
import re

import pandas as pd

from reportgen.analyze.summary_keys import TOLERANCE
from reportgen.files.paths import natural_key
from reportgen.frames import MEASURED_RATE
from reportgen.page.builder import Builder
from reportgen.page.cells import ncell, same, tcell
from reportgen.page.data import num
from reportgen.page.model import Cell, Column, Fold, Heading, PageBlock, Para, Row, Table
from reportgen.reference.clients import client as client_row
from reportgen.text.formatting import fmt, fmt_g
from reportgen.text.listing import shorten


def inferred_table(b: Builder) -> list[PageBlock]:
    rows = [Row([tcell(i.key), tcell(i.value), tcell(i.source),
                 tcell(b.t(f"inputs.status_{i.status}", value=i.stated))])
            for i in b.inputs.inferred]
    if not rows:
        return []
    cols = [Column(b.t(f"inputs.{k}"))
            for k in ("col_key", "col_value", "col_source", "col_status")]
    files = {f for f in (_source_file(i.source) for i in b.inputs.inferred) if f}
    conflicts = sum(i.status == "overridden" for i in b.inputs.inferred)
    summary = b.t("every.inferred_summary", n=fmt_g(len(rows)), files=fmt_g(len(files)),
                  conflicts=fmt_g(conflicts))
    # folded: a real round infers dozens of settings, and the first screen is for results
    return [Fold(summary, [Para(b.t("inputs.inferred_lead")), Table(cols, rows, None)])]


def _source_file(source: str) -> str:
    """The file a setting was read from ("run.json (model_id)", "x.log:12"), '' when it was
    derived from something else ("runs told apart by folder")."""
    head = source.split(" (")[0].strip()
    head = re.sub(r":\d+$", "", head)
    return head if "/" in head or re.search(r"\.(json|jsonl|log|txt|csv|toml|md)$", head) \
        else ""

def _own_differs(runs: pd.DataFrame) -> pd.Series:
    """Per run: the client's own output tok/s differs from the page's by more than the
    tolerance summary.keys warns at (False where the client states none)."""
    if "client_output_tok_s" not in runs.columns:
        return pd.Series(False, index=runs.index)
    own = pd.to_numeric(runs["client_output_tok_s"], errors="coerce").astype(float)
    page = pd.to_numeric(runs["output_tok_s"], errors="coerce").astype(float)
    off = (own / page.where(page > 0) - 1.0).abs()
    return (off > TOLERANCE).fillna(False).astype(bool)


def _own_notes(b: Builder, runs: pd.DataFrame, own: pd.Series) -> list[PageBlock]:
    """One line per client whose own figure differs: what time it divides by, what the page
    divides by, and its largest difference with both times."""
    out: list[PageBlock] = []
    differ = runs[own.to_numpy()]
    for client_id in dict.fromkeys(differ["client"].astype(str)):
        mine = differ[differ["client"].astype(str) == client_id]
        page = mine["output_tok_s"].astype(float)
        theirs = mine["client_output_tok_s"].astype(float)
        r = mine.iloc[int((theirs / page - 1.0).abs().to_numpy().argmax())]
        row = client_row(client_id)
        # the client's time: the same tokens over its own rate
        own_s = float(r["duration_s"]) * float(r["output_tok_s"]) / float(
            r["client_output_tok_s"]) if float(r["client_output_tok_s"]) > 0 else math.nan
        out.append(Para(b.t(
            "inputs.own_differs" if row.throughput is not None else "inputs.own_differs_plain",
            client=row.name or client_id, n=fmt_g(len(mine)), run=str(r["source"]),
            own=fmt(r["client_output_tok_s"], ".1f"), own_s=fmt(own_s, ".2f"),
            page=fmt(r["output_tok_s"], ".1f"), page_s=fmt(r["duration_s"], ".2f"),
            basis=row.throughput or ""), "note"))
    return out


MEASURED_MARK = "※"  # after a rate the client measured (see inputs.measured_rate)
LENGTH_COLUMNS = ("input_tokens_mean", "output_tokens_mean")


def _varying_lengths(runs: pd.DataFrame) -> bool:
    """Whether the runs' mean lengths per request differ (by a token or more)."""
    for column in LENGTH_COLUMNS:
        if column not in runs.columns:
            return False
    values = runs[list(LENGTH_COLUMNS)].astype(float).round()
    return bool((values.max() - values.min() >= 1).any())


def inputs_tables(b: Builder) -> list[PageBlock]:
    """The runs behind this view's tiers, and the files of the round that were not
    read (and why)."""
    out: list[PageBlock] = []
    runs = b.inputs.runs
    if runs is not None and len(runs):
        rows = []
        # natural order of the files: rate2 before rate16, c8 before c16 (tables keep path order)
        sources = runs["source"]
        runs = runs.iloc[sorted(range(len(runs)), key=lambda i: natural_key(
            str(sources.iloc[i])))]
        # each run's own mean lengths, where they differ from run to run (a dataset, a trace,
        # lengths drawn per request): one workload, with what each run actually sent
        lengths = _varying_lengths(runs)
        own = _own_differs(runs)
        for i, r in enumerate(runs.itertuples(index=False)):
            x = r.concurrency if not b.rate_axis else (
                r.request_rate if math.isfinite(num(r.request_rate)) else math.inf)
            # a measured rate is marked, never shown as if it had been the target
            mark = MEASURED_MARK if r.concurrency_note == MEASURED_RATE else ""
            cells = [
                tcell(str(r.source), "path"), tcell(b.d.label(str(r.engine))),
                Cell(same(fmt_g(x) + mark), True), ncell(r.repeat, "d"),
                ncell(r.completed, "d"), ncell(r.failed, "d"), ncell(r.duration_s, ".2f"),
                *([ncell(getattr(r, c), ".0f") for c in LENGTH_COLUMNS] if lengths else []),
                ncell(r.output_tok_s, ".1f")]
            if own.any():  # the client's own figure beside the page's (the note: why they differ)
                cells.append(ncell(runs["client_output_tok_s"].iloc[i], ".1f"))
            rows.append(Row([*cells, ncell(r.ttft_p50_ms, ".0f"), ncell(r.itl_p50_ms, ".2f")]))
        keys = (("inputs.col_run", False), ("inputs.col_config", False),
                ("data.col_c", True), ("inputs.col_repeat", True), ("data.col_completed", True),
                ("data.col_failed", True), ("data.col_duration", True),
                *((("inputs.col_in_mean", True), ("inputs.col_out_mean", True))
                  if lengths else ()),
                ("data.col_out", True), *((("inputs.col_own_out", True),) if own.any() else ()),
                ("data.col_ttft_p50", True), ("data.col_itl_p50", True))
        cols = [Column(b.t(k), num) for k, num in keys]
        out += [Heading(b.t("inputs.runs_title")),
                Para(b.t("inputs.runs_lead", n=fmt_g(len(runs)))),
                Table(cols, rows, None, variant="wide"), *_own_notes(b, runs, own)]
        if (runs["concurrency_note"] == "num_prompts").any():
            out.append(Para(b.t("inputs.effective_concurrency"), "note"))
        if (runs["concurrency_note"] == MEASURED_RATE).any():
            out.append(Para(b.t("inputs.measured_rate", mark=MEASURED_MARK), "note"))
    if b.inputs.skipped:
        short = shorten(b.inputs.skipped)
        rows = [Row([tcell(f), tcell(why)]) for f, why in short.shown]
        cols = [Column(b.t("inputs.col_file")), Column(b.t("inputs.col_reason"))]
        out += [Heading(b.t("inputs.skipped_title")),
                Para(b.t("inputs.skipped_lead", n=fmt_g(len(b.inputs.skipped)))),
                Table(cols, rows, None)]
        if short.more:
            out.append(Para(b.t("inputs.skipped_more", n=fmt_g(short.more),
                                reasons=short.reasons_text()), "note"))
    return out
