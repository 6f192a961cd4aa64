"""Crossover: Figure 1 (where one configuration overtakes another), the Pareto view and the
head-to-head table."""

from __future__ import annotations

import math
from typing import Any, cast

import pandas as pd
from markupsafe import Markup

from reportgen.analyze.goodput import T975, Z95
from reportgen.frames import ByEngine
from reportgen.page import ranking
from reportgen.page.builder import Builder
from reportgen.page.cells import same, tier_cell, tier_row
from reportgen.page.data import num
from reportgen.page.model import Cell, Column, PageBlock, Para, Row, SpeedTable, Table
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import fmt, fmt_g


def crossover(b: Builder) -> list[PageBlock]:
    d = b.d
    if ranking.applies(b):   # one tier per configuration: a ranking, not curves
        return ranking.ranking_blocks(b)
    out: list[PageBlock] = []
    captions = []
    for _, row in b.d.a.crossovers.iterrows():
        ea, eb = str(row["engine_a"]), str(row["engine_b"])
        rlo, rhi = num(row["ratio_lower"]), num(row["ratio_upper"])
        if d.pair and (eb, ea) == d.pair:   # read the ratio the way the headline does
            ea, eb, rlo, rhi = eb, ea, 1 / rlo, 1 / rhi
        captions.append(b.t(
            "crossover.caption", a=d.label(ea), b=d.label(eb), lo=fmt_g(row["lower_tier"]),
            hi=fmt_g(row["upper_tier"]), rlo=fmt(rlo, ".3f"), rhi=fmt(rhi, ".3f"),
            c=fmt(row["concurrency"], ".1f")))
    if not captions and len(d.order) >= 2:
        captions.append(b.t("crossover.no_crossing"))
    caption = Bi(*(Markup(" ").join(c.get(lang) for c in captions) for lang in LANGS)) \
        if captions else None
    out += b.figure("throughput", caption)
    if len(d.order) > 2 and d.a.reference:  # not every pair: say which were compared
        out.append(Para(b.t("pareto.reference", ref=d.label(d.a.reference)), "note"))
    pareto = b.figure("pareto", b.t("pareto.caption"))
    out += pareto
    if pareto:
        out.append(same_speed_table(b))
    out += b.excluded_note()
    if d.pair:
        ea, eb = d.pair
        concs = d.concurrencies()
        cols = [Column(b.t("crossover.col_c"))]
        cols += [Column(b.t("crossover.col_tok", engine=d.label(e)), True) for e in d.order]
        cols.append(Column(b.t("crossover.col_ratio"), True))
        cols += [Column(b.t("crossover.col_itl", engine=d.label(e)), True) for e in d.order]
        cols += [Column(b.t("crossover.col_ttft", engine=d.label(e)), True)
                 for e in d.order]
        rows = []
        for c in concs:
            cells = [tier_cell(c)]

            def val(e: str, column: str, spec: str, c: float = c) -> Cell:
                return b.cell("tiers", e, c, column, spec)

            cells += [val(e, "output_tok_s", ".1f") for e in d.order]
            ta, tb = (num(d.tier(x, c).get("output_tok_s")) for x in (ea, eb))
            ratio = ta / tb if tb > 0 else math.nan
            cells.append(Cell(same(fmt(ratio, ".2x")), True,
                              "ratio up" if ratio > 1 else "ratio down" if ratio < 1 else ""))
            cells += [val(e, "itl_p50_ms", ".2f") for e in d.order]
            cells += [val(e, "ttft_p50_ms", ".0f") for e in d.order]
            rows.append(tier_row(cells, b.any_excluded(c)))
        out.append(Table(cols, rows, b.t("crossover.table_caption", num=d.label(ea),
                                         den=d.label(eb))))
    return out



def same_speed_table(b: Builder) -> SpeedTable:
    """Each configuration's tok/s per GPU at the same per-user speeds (analyze/pareto.py
    same_speed): a value, "≥ value" (the highest tier tested is still faster), or "not
    reached"; the last column at the speed the reader types (slo.js, the same rule)."""
    frame = b.d.a.same_speed
    points = b.d.a.pareto
    repeats = b.d.a.speed_runs
    speeds = list(dict.fromkeys(float(s) for s in frame["tok_s_per_user"]))
    cols = [Column(b.t("dist.col_engine"))]
    cols += [Column(b.t("pareto.speed_col", speed=fmt_g(s)), True) for s in speeds]
    cols.append(Column(b.t("pareto.speed_yours"), True))
    rows, curves = [], []
    # each frame split by engine once, its rows as dicts (a filter per engine and speed was
    # the page's costliest table at 64 configurations)
    first: dict[tuple[str, float], dict[str, Any]] = {}
    for r in cast(list[dict[str, Any]], frame.to_dict("records")):
        first.setdefault((str(r["engine"]), float(r["tok_s_per_user"])), r)
    own_points = ByEngine(points[~points["excluded"].astype(bool)])
    own_runs = ByEngine(repeats) if len(repeats) else None
    present = {str(e) for e in frame["engine"]}
    for engine in b.d.order:
        if engine not in present:
            continue
        cells = [Cell(b.d.label(engine))]
        for s in speeds:
            row = first[(engine, s)]
            cells.append(_speed_cell(b, num(row["tok_s_per_gpu"]), str(row["status"]),
                                     num(row.get("tok_s_per_gpu_low", math.nan)),
                                     num(row.get("tok_s_per_gpu_high", math.nan))))
        cells.append(Cell(Bi.plain(""), num=True))
        rows.append(Row(cells))
        own = own_points[engine]
        # each repeat's own curve (pareto.run_points): the typed speed's interval
        runs = own_runs[engine] if own_runs is not None else repeats
        curves.append({"engine": engine, "points": _points(own), "repeats": [
            _points(curve) for _, curve in runs.groupby("repeat", sort=True)] if len(runs)
            else []})
    data: dict[str, object] = {"curves": curves, "t975": list(T975), "z95": Z95, "text": {
        "not_reached": b.t("pareto.speed_not_reached").as_dict()}}
    return SpeedTable(b.prefix + "speed", b.t("pareto.speed_input"),
                      Table(cols, rows, b.t("pareto.speed_caption")), data)


def _points(frame: pd.DataFrame) -> list[list[float | None]]:
    return [[None if math.isinf(c) else c, u, g] for c, u, g in frame[
        ["concurrency", "tok_s_per_user", "tok_s_per_gpu"]].itertuples(index=False, name=None)]


def _speed_cell(b: Builder, value: float, status: str, low: float = math.nan,
                high: float = math.nan) -> Cell:
    if status == "not_reached" or not math.isfinite(value):
        return Cell(b.t("pareto.speed_not_reached"), num=True)
    text = fmt(value, ".1f")
    if math.isfinite(low) and math.isfinite(high):   # the repeats' interval
        text += f" ({fmt(low, '.1f')}–{fmt(high, '.1f')})"
    return Cell(Bi.plain(f"≥ {text}" if status == "at_least" else text), num=True)
