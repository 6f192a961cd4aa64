"""Section `telemetry`: GPU board power, energy per output token and GPU utilisation per tier
(analyze/telemetry.py), the alignment assumptions, and the power timeline with tier bands."""

from __future__ import annotations

from reportgen.analyze.values import tier_key
from reportgen.formatting import fmt, fmt_g
from reportgen.page.builder import Builder
from reportgen.page.cells import tcell, tier_cell, tier_row
from reportgen.page.model import Column, PageBlock, Para, Table

ASSUMPTIONS = ("telemetry.assume_clock", "telemetry.assume_valid", "telemetry.assume_util")


def telemetry(b: Builder) -> list[PageBlock]:
    frame = b.d.a.telemetry
    if frame is None or frame.empty:
        return [Para(b.t("telemetry.none"), "note")]
    out: list[PageBlock] = [*b.lead("telemetry.lead")]
    out += [Para(b.t(key), "note") for key in ASSUMPTIONS]
    cols = [Column(b.t("dist.col_engine")), Column(b.t("dist.col_tier"), num=True),
            Column(b.t("telemetry.col_runs"), num=True),
            Column(b.t("telemetry.col_samples"), num=True),
            Column(b.t("telemetry.col_power"), num=True),
            Column(b.t("telemetry.col_energy"), num=True),
            Column(b.t("telemetry.col_jtok"), num=True),
            Column(b.t("telemetry.col_util"), num=True), Column(b.t("telemetry.col_status"))]
    rows = []
    for r in frame.to_dict("records"):
        e, c = str(r["engine"]), float(r["concurrency"])
        excluded = b.d.excluded(e, c)
        base = f"telemetry.{e}.{tier_key(c)}"
        cells = [tcell(b.d.label(e)), tier_cell(c, excluded), tcell(fmt_g(r["runs"])),
                 tcell(fmt_g(r["samples"])),
                 b.named_cell(f"{base}.mean_power_w", fmt(r["mean_power_w"], ".0f")),
                 b.named_cell(f"{base}.energy_j", fmt(r["energy_j"] / 1000, ".1f")),
                 b.named_cell(f"{base}.energy_per_output_token_j",
                              fmt(r["energy_per_output_token_j"], ".3f")),
                 tcell(fmt(r["gpu_util_pct"] / 100, ".0pct")),
                 tcell(b.t(f"telemetry.status_{r['status']}"))]
        rows.append(tier_row(cells, excluded))
    out.append(Table(cols, rows, b.t("telemetry.table_caption")))
    out += b.figure("telemetry", b.t("telemetry.fig_caption"))
    out.append(Para(b.t("telemetry.kv_note"), "note"))
    return out
