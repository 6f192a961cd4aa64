"""Section `distributions`: latency ECDFs per tier, the percentile table, and goodput at the
reader's SLO recomputed in the page (the SloPanel block; templates/static/slo.js)."""

from __future__ import annotations

import math
from typing import Any, cast

import pandas as pd
from markupsafe import Markup

from reportgen.analyze.goodput import tier_rates
from reportgen.analyze.values import tier_key
from reportgen.figures.base import plotly_text
from reportgen.page import slo_payload
from reportgen.page.builder import Builder
from reportgen.page.cells import tcell, tier_cell, tier_row, with_mark
from reportgen.page.model import Cell, Column, Figure, PageBlock, Para, SloPanel, Table
from reportgen.slo import METRICS as SLO_METRICS
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import fmt, fmt_g

METRICS = ("ttft", "tpot", "e2el", "itl")
PERCENTILES = ("p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms")
PERCENTILE_HEADS = ("p50", "p90", "p95", "p99", "p99.9")
FEW_MARK = " *"   # a percentile resting on fewer values than it needs (analyze.distributions)
# strings slo.js writes itself (both languages go into the data block)
JS_TEXT = ("best", "best_none", "at_least", "cap_none", "no_threshold", "undecided",
           "cap_undecided", "best_at_least", "every_tier", "on_par", "cannot_tell", "some_none",
           "tier_inf", "gpus_for", "gpus_at_most", "cost_hint", "cost_cheapest",
           "cost_cheapest_tie", "cost_cheapest_load", "cost_none", "cost_energy")
PANEL_TEXT = ("heading", "lead", "interval_note", "col_interval", "target", "tier_pick",
              "col_sent", "col_good", "col_attain", "col_goodput", "col_capacity",
              "col_between", "cap_caption", "tier_caption", "load", "col_gpus", "price",
              "cost_caption", "col_usd_out", "col_usd_total", "col_usd_good_out",
              "col_usd_good_total", "col_energy_good", *SLO_METRICS)


def _missing(b: Builder) -> list[PageBlock]:
    """Which configurations have no per-request values and why, each with its client's own
    flag or setting (the facts `tables --slo` states: goodput.missing_requests)."""
    frame = b.d.a.no_per_request
    if frame is None or frame.empty:
        return []
    return [Para(why, "note") for why in frame["why"] if isinstance(why, Bi)]


def distributions(b: Builder) -> list[PageBlock]:
    a = b.d.a
    if a.requests is None or a.requests.empty:
        return [Para(b.t("dist.none"), "note"), *_missing(b)]
    out: list[PageBlock] = [*b.lead("dist.lead"), Para(b.t("dist.chunk_note"), "note"),
                            *_missing(b)]
    synthetic = {(str(e), float(c)) for e, c, m in _rows(a.distributions)
                 if f"distributions.{e}.{tier_key(float(c))}.{m}" in b.d.synthetic}
    if synthetic:
        out.append(Para(b.t("dist.synthetic_note"), "note"))
    figure = b.figure("distributions", b.t("dist.fig_caption"))
    if figure:
        out.append(_panel(b, cast(Figure, figure[0]).id, synthetic))
        out += figure
    out.append(_percentile_table(b))
    return out


def _rows(frame: pd.DataFrame) -> list[tuple[str, float, str]]:
    if frame.empty:
        return []
    return list(frame[["engine", "concurrency", "metric"]].itertuples(index=False, name=None))


def _tier_label(b: Builder, c: float) -> Bi:
    return b.t("dist.tier_c", c=fmt_g(c))


def _percentile_table(b: Builder) -> Table:
    frame = b.d.a.distributions
    cols = [Column(b.t("dist.col_engine")), Column(b.t("dist.col_tier")),
            Column(b.t("dist.col_metric")), Column(b.t("dist.col_n"), num=True),
            *(Column(Bi.plain(h), num=True) for h in PERCENTILE_HEADS)]
    rows = []
    labels: dict[str, Cell] = {}     # a configuration's and a metric's cell, made once each
    metrics: dict[str, Cell] = {}
    for r in frame.to_dict("records"):
        e, c, metric = str(r["engine"]), float(r["concurrency"]), str(r["metric"])
        excluded = b.d.excluded(e, c)
        name = f"distributions.{e}.{tier_key(c)}.{metric}"
        if e not in labels:
            labels[e] = tcell(b.d.label(e))
        if metric not in metrics:
            metrics[metric] = tcell(b.t(f"dist.metric_{metric}"))
        cells = [labels[e], tier_cell(c, excluded), metrics[metric],
                 b.named_cell(name, fmt_g(r["count"]))]
        # a percentile that rests on fewer values than it needs carries * (the n is beside it)
        few = set(str(r.get("few_samples") or "").split(", "))
        # the * after the † (cells.with_mark): the same order as the tiers table
        cells += [with_mark(b.named_cell(name, fmt(r[p], ".2f")),
                            FEW_MARK if head in few else "")
                  for p, head in zip(PERCENTILES, PERCENTILE_HEADS, strict=True)]
        rows.append(tier_row(cells, excluded))
    caption = b.t("dist.table_caption")
    if any(str(r or "") for r in frame.get("few_samples", [])):
        note = b.t("dist.few_note")
        caption = Bi(*(Markup(caption.get(lang)) + Markup("" if lang == "zh" else " ")
                       + Markup(note.get(lang)) for lang in LANGS))
    return Table(cols, rows, caption, variant="wide")


def _panel(b: Builder, fig_id: str, synthetic: set[tuple[str, float]]) -> SloPanel:
    a = b.d.a
    present = set(a.requests["engine"].unique())
    engines = [e for e in b.d.order if e in present]
    pairs = a.requests[["engine", "concurrency"]]
    if not pairs["concurrency"].isna().any():  # the distinct pairs first: 300,000 rows hold few
        pairs = pairs.drop_duplicates()
    keys = list(dict.fromkeys(
        (str(e), float(c)) for e, c in pairs.itertuples(index=False, name=None)))
    keys.sort(key=lambda k: (engines.index(k[0]) if k[0] in engines else len(engines), k[1]))
    durations = {(str(e), float(c)): float(d) for e, c, d in a.tier_durations[
        ["engine", "concurrency", "duration_s"]].itertuples(index=False, name=None)}
    # what each tier carried (goodput.tier_rates): the load the reader types is met from it
    rates = {(str(e), float(c)): (float(r), float(t)) for e, c, r, t in tier_rates(
        a.tiers)[["engine", "concurrency", "req_s", "output_tok_s"]].itertuples(
            index=False, name=None)}
    # each tier's board energy where telemetry covers it (energy per good token in the page)
    energy = {(str(e), float(c)): float(j) for e, c, j in a.telemetry[
        ["engine", "concurrency", "energy_j"]].itertuples(index=False, name=None)} \
        if len(a.telemetry) and "energy_j" in a.telemetry.columns else {}
    tiers = []
    for e, c in keys:
        duration = durations.get((e, c), math.nan)
        req_s, tok_s = rates.get((e, c), (math.nan, math.nan))
        tiers.append({"engine": e, "c": c, "excluded": b.d.excluded(e, c),
                      "synthetic": (e, c) in synthetic, "duration_s": duration,
                      "req_s": req_s, "out_tok_s": tok_s,
                      "energy_j": energy.get((e, c), math.nan)})
    data = slo_payload.payload(a.requests, a.itl_gaps, a.slo, tiers,
                               budget=slo_payload.EXACT_BUDGET)
    data["fig"] = fig_id
    # the reader's $/GPU-hour (round.toml [cost], build --price); the page's box starts there
    cast(dict[str, Any], data["defaults"])["price"] = a.price_usd_per_gpu_h
    data["energy"] = any(math.isfinite(v) for v in energy.values())
    gpus = {str(e): int(g) for e, g in a.pareto[["engine", "gpus"]].itertuples(
        index=False, name=None)} if len(a.pareto) else {}
    data["engines"] = [{"id": e, "label": b.d.label(e).as_dict(), "gpus": gpus.get(e, 1),
                        "plabel": {lang: plotly_text(b.d.label(e).get(lang)) for lang in LANGS}}
                       for e in engines]
    data["text"] = {k: {lang: b.ui.raw(f"slo.{k}", lang) for lang in LANGS} for k in JS_TEXT}
    data["tier_names"] = {lang: b.ui.raw("dist.tier_c", lang, c="{c}") for lang in LANGS}
    source = a.slo.source if a.slo is not None else ""
    text = {k: b.t(f"slo.{k}") for k in PANEL_TEXT}
    text["source"] = b.t("slo.source", source=source) if source else b.t("slo.no_source")
    text |= {"col_engine": b.t("dist.col_engine"), "col_tier": b.t("dist.col_tier")}
    # exact answers, or the range the bins leave and why (the budget and the round's count)
    text["bins_note"] = b.t("slo.exact_note" if data["mode"] == "exact" else "slo.bins_note",
                            n=fmt_g(float(cast(int, data["values_n"]))),
                            budget=fmt_g(float(cast(int, data["budget"]))))
    picks = []
    for c in sorted({c for _, c in keys}):
        mark = "†" if any(k in synthetic for k in keys if k[1] == c) else ""
        label = _tier_label(b, c)
        picks.append((repr(c) if math.isfinite(c) else "inf",
                      Bi(label.zh + mark, label.en + mark)))
    return SloPanel(b.prefix + "slo", fig_id, text, picks, data)
