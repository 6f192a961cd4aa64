"""A round whose configurations each ran one tier (a fixed-rate comparison): the question is
which configuration is best on what, and by how much. Figure 8 ranks every metric; the table
names the leader, the runner-up and the margin."""

from __future__ import annotations

import math

from reportgen.analyze.claims import Claim, compare, margin_of, noise, spread
from reportgen.analyze.ranking import RANKED, is_single_point, ranking
from reportgen.page.builder import Builder
from reportgen.page.cells import ncell, tcell
from reportgen.page.model import Card, Cell, Column, PageBlock, Para, Row, Table
from reportgen.text.bilingual import Bi
from reportgen.text.formatting import fmt, fmt_g, fmt_latency_ms

SPECS = {"output_tok_s": ".1f", "ttft_p50_ms": ".0f", "itl_p50_ms": ".2f",
         "e2el_p50_ms": ".0f", "failed": "d"}


def applies(b: Builder) -> bool:
    return is_single_point(b.d.tiers)


def _text(metric: str, value: float) -> str:
    spec = SPECS[metric]
    return fmt_latency_ms(value, spec) + ("" if value >= 10_000 else " ms") \
        if metric.endswith("_ms") else fmt(value, spec)


def margin(metric: str, best: float, second: float) -> float:
    """How much better the leader is than the runner-up, as a fraction of the runner-up."""
    return margin_of(best, second, RANKED[metric])


def claim(b: Builder, metric: str, first: str, second: str) -> Claim:
    """The leader against the runner-up on ``metric`` under ``analyze.claims``: the repeats'
    spread of output throughput where the round has repeats, else the stated threshold."""
    rows = {e: b.d.tiers[b.d.tiers["engine"] == e] for e in (first, second)}

    def value(e: str, column: str) -> float:
        own = rows[e]
        return float(own[column].iloc[0]) if column in own.columns and len(own) else math.nan

    spreads = [spread(value(e, metric), value(e, f"{metric}_min"), value(e, f"{metric}_max"),
                      value(e, "repeats")) for e in (first, second)]
    return compare(value(first, metric), value(second, metric),
                   higher_better=RANKED[metric], noise_frac=noise(*spreads))


def ranking_blocks(b: Builder) -> list[PageBlock]:
    d = b.d
    ranked = ranking(d.tiers)
    tiers = d.concurrencies()
    out: list[PageBlock] = [Para(b.t("every.rank_lead", n=fmt_g(len(d.order)), tier=" · ".join(
        b.t("every.rank_tier", t=fmt_g(t)).en for t in tiers)))]
    out += b.figure("ranking", b.t("every.rank_caption"))
    rows = []
    for metric in dict.fromkeys(ranked["metric"]):
        own = ranked[ranked["metric"] == metric]
        first = own.iloc[0]
        second = own.iloc[1] if len(own) > 1 else None
        cells: list[Cell] = [tcell(b.t(f"fig.every.rank_{metric}")),
                             tcell(d.label(first["engine"])),
                             Cell(Bi.plain(_text(metric, first["value"])), True)]
        if second is not None:
            c = claim(b, metric, str(first["engine"]), str(second["engine"]))
            cells += [tcell(d.label(second["engine"])),
                      Cell(Bi.plain(_text(metric, second["value"])), True),
                      ncell(c.margin, "pct") if c.leads else
                      tcell(b.t("every.rank_par", noise=fmt(c.noise, "pct")))]
        else:
            cells += [tcell(""), tcell(""), tcell("")]
        rows.append(Row(cells))
    if rows:
        cols = [Column(b.t(f"every.rank_col_{k}"), k in ("value", "next_value", "margin"))
                for k in ("metric", "best", "value", "next", "next_value", "margin")]
        out.append(Table(cols, rows, b.t("every.rank_table_caption")))
    return out


def leader_card(b: Builder) -> Card | None:
    """The headline of a one-tier comparison: who delivers the most output, by how much."""
    ranked = ranking(b.d.tiers)
    own = ranked[ranked["metric"] == "output_tok_s"]
    if len(own) < 2:
        return None
    first, second = own.iloc[0], own.iloc[1]
    c = claim(b, "output_tok_s", str(first["engine"]), str(second["engine"]))
    name, tok = b.d.label(first["engine"]), fmt(first["value"], ".1f")
    nxt, next_tok = b.d.label(second["engine"]), fmt(second["value"], ".1f")
    if not c.leads:   # a tie is not a lead (analyze.claims)
        return Card(b.t("every.rank_card_par_label"), name,
                    b.t("every.rank_card_par_sub", tok=tok, noise=fmt(c.noise, "pct"),
                        next=nxt, next_tok=next_tok), "accent")
    return Card(b.t("every.rank_card_label"), name,
                b.t("every.rank_card_sub", tok=tok, pct=fmt(c.margin, "pct"), next=nxt,
                    next_tok=next_tok), "accent")
