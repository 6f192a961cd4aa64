"""Stalls: ITL median against mean per tier, and the wait ratio (Figure 4)."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.model import PageBlock, Para


def stalls(b: Builder) -> list[PageBlock]:
    out: list[PageBlock] = b.lead("stalls.lead")
    table = b.per_tier_table(
        [("stalls.col_p50", "itl_p50_ms", ".2f"), ("stalls.col_mean", "itl_mean_ms", ".2f"),
         ("stalls.col_ratio", "itl_mean_over_p50", ".2f")],
        b.t("stalls.itl_caption"), "stalls.col_c")
    if table is not None:
        out.append(table)
    out.append(Para(b.t("stalls.wait_lead")))
    out += b.step_note()
    out += b.figure("wait")
    columns = [("stalls.col_wait", "wait_ratio", ".1pct")]
    if "wait_ratio_implied" in b.d.a.tiers.columns:
        columns.append(("stalls.col_wait_implied", "wait_ratio_implied", ".1pct"))
    table = b.per_tier_table(columns, b.t("stalls.wait_caption"), "stalls.col_c")
    if table is not None:
        out.append(table)
        if len(columns) > 1:
            out.append(Para(b.t("stalls.implied_note"), "note"))
    return out

