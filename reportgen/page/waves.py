"""Waves: a tier's requests in waves of the concurrency, duration per wave against E2EL."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.cells import tcell, tier_cell, tier_row
from reportgen.page.data import num
from reportgen.page.model import Column, PageBlock, Para, Table
from reportgen.text.formatting import fmt, pct_signed


def waves(b: Builder) -> list[PageBlock]:
    if b.rate_axis:
        return [Para(b.t("inputs.needs_concurrency"), "note")]
    d = b.d
    out: list[PageBlock] = [*b.lead("waves.lead"), Para(b.t("waves.caveat"), "note")]
    rows = []
    for e in d.order:
        for c, excl, r in b.engine_tier_rows(e):
            rows.append(tier_row([
                tcell(d.label(e)),
                tier_cell(c, excl),
                *(b.frame_cell("tiers", e, c, r, column, spec) for column, spec in (
                    ("requests", "d"), ("waves", "d"), ("duration_s", ".2f"),
                    ("duration_per_wave_s", ".2f"))),
                b.value_cell("tiers", e, c, "e2el_p50_ms",
                             fmt(num(r.get("e2el_p50_ms")) / 1000.0, ".2f")),
                b.value_cell("tiers", e, c, "wave_gap", pct_signed(r.get("wave_gap"))),
            ], excl))
    if rows:
        keys = ("col_engine", "col_c", "col_requests", "col_waves", "col_duration",
                "col_per_wave", "col_e2el", "col_gap")
        cols = [Column(b.t(f"waves.{k}"), k != "col_engine") for k in keys]
        out.append(Table(cols, rows, b.t("waves.caption")))
    return out

