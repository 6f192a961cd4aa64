"""Bytes per step and batching: what the memory-bandwidth roofline predicts, and what was
measured."""

from __future__ import annotations

import math

from reportgen.page.builder import Builder
from reportgen.page.cells import ncell, tcell
from reportgen.page.data import num
from reportgen.page.model import Column, PageBlock, Para, Row, Table
from reportgen.text.formatting import fmt, fmt_g


def _known(value: object) -> bool:
    return math.isfinite(num(value))


def bytes_per_step(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = b.lead("bytes.lead")
    single = [e for e in d.order if _known(d.engine(e).get("itl_p50_c1_ms"))]
    if not single:
        return [*out, Para(b.t("every.bytes_no_single"), "note")] if len(d.tiers) else []
    out += b.step_note()
    # the ledger needs bytes: without weight bytes or bandwidth only the ITL column would
    # hold values (the headline card shows it); the gap note names the keys
    ledger = any(_known(d.v(f"engines.{e}.step_gb_c1")) for e in single)
    rows = []
    c1 = fmt_g(d.engine(single[0]).get("c1"))
    for e in d.order if ledger else ():
        eng = d.engine(e)
        rows.append(Row([
            tcell(d.label(e)),
            ncell(d.v(f"engines.{e}.weight_gb"), ".2f"),
            ncell(d.v(f"engines.{e}.kv_gb_c1"), ".2f"),
            ncell(d.v(f"engines.{e}.step_gb_c1"), ".2f"),
            ncell(eng.get("itl_p50_c1_ms"), ".2f"),
            ncell(eng.get("effective_gb_s_c1"), ".0f"),
            ncell(eng.get("mbu_c1"), ".0pct"),
        ]))
    if rows:
        keys = ("col_engine", "col_weights", "col_kv", "col_step",
                "col_step_ms" if b.step_from_tpot() else "col_itl", "col_gbs", "col_mbu")
        cols = [Column(b.t(f"bytes.{k}"), k != "col_engine") for k in keys]
        out.append(Table(cols, rows, b.t("bytes.ledger_caption", c=c1, **{
            k: v for k, v in b.kv_slots().items() if k in ("tps", "kvb")})))
    if d.pair and _known(d.v("step_ratio.measured")) and not _known(d.v("step_ratio.predicted")):
        ea, eb = d.pair
        out.append(Para(b.t("every.bytes_ratio_measured", slow=d.label(eb), fast=d.label(ea),
                            meas=fmt(d.v("step_ratio.measured"), ".2x"))))
    elif d.pair and _known(d.v("step_ratio.measured")):
        ea, eb = d.pair
        out.append(Para(b.t(
            "bytes.ratio", slow=d.label(eb), fast=d.label(ea),
            pred=fmt(d.v("step_ratio.predicted"), ".2x"),
            meas=fmt(d.v("step_ratio.measured"), ".2x"),
            att=fmt(d.v("step_ratio.attained"), "pct"), bw=b.kv_slots()["bw"])))
    return out


def batching(b: Builder) -> list[PageBlock]:
    if b.rate_axis:
        return [Para(b.t("inputs.needs_concurrency"), "note")]
    d = b.d
    slots = b.kv_slots()
    floor = len(d.tiers) > 0 and "floor_ms" in d.tiers and d.tiers["floor_ms"].map(_known).any()
    out: list[PageBlock] = b.lead("batching.lead")
    out += b.step_note()
    out += b.figure("itl", b.t("batching.fig_caption", **slots) if floor
                    else b.t("every.batching_fig_caption"))
    rows = []
    for e in d.order:
        eng = d.engine(e)
        if not eng:
            continue
        rows.append(Row([
            tcell(d.label(e)),
            ncell(eng.get("c1"), "d"), ncell(eng.get("cmax"), "d"),
            ncell(eng.get("itl_p50_c1_ms"), ".2f"), ncell(eng.get("itl_p50_cmax_ms"), ".2f"),
            ncell(eng.get("ms_per_slot"), ".3f"), ncell(eng.get("floor_ms_per_slot"), ".4f"),
            ncell(eng.get("slope_vs_floor"), ".1x"), ncell(eng.get("efficiency_cmax"), "pct"),
        ]))
    if rows:
        # a TPOT p50 stands in for some configurations' step: the headings say "step"
        step = "step" if b.step_from_tpot() else "itl"
        keys = ("col_engine", "col_lo", "col_hi", f"col_{step}_lo", f"col_{step}_hi",
                "col_slot", "col_floor_slot", "col_slope", "col_eff")
        cols = [Column(b.t(f"batching.{k}"), k != "col_engine") for k in keys]
        out.append(Table(cols, rows, b.t("batching.cost_caption", **slots) if floor
                         else b.t("every.batching_cost_caption")))
    table = b.per_tier_table([("roofline.col_attainment", "roofline_attainment", ".1pct")],
                                b.t("batching.attain_caption"), "crossover.col_c")
    if table is not None:
        out.append(table)
    return out

