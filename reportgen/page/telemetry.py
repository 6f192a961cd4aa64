"""Section `telemetry`: GPU board power, energy per output token, GPU utilisation and SM active
per tier, and from the engine's gauges running / waiting requests, peak KV usage and preemptions
(analyze/telemetry.py); the alignment assumptions, a sentence for every file that could not be
placed in time, and the timeline with tier bands."""

from __future__ import annotations

import math

from reportgen.analyze.values import tier_key
from reportgen.page.builder import Builder
from reportgen.page.cells import tcell, tier_cell, tier_row
from reportgen.page.model import Column, PageBlock, Para, Table
from reportgen.text.formatting import fmt, fmt_g

ASSUMPTIONS = ("telemetry.assume_clock", "telemetry.assume_valid", "telemetry.assume_util")
# optional columns: (frame column, ui key, format, scale), shown when any tier has a value
OPTIONAL = (("sm_active_pct", "col_sm", ".0pct", 0.01),
            ("mean_running", "col_running", ".1f", 1.0),
            ("mean_waiting", "col_waiting", ".1f", 1.0),
            ("peak_kv_usage", "col_kv", ".0pct", 1.0),
            ("preemptions", "col_preempt", ".0f", 1.0))


def _offset(minutes: float) -> str:
    sign = "-" if minutes < 0 else "+"
    whole = int(abs(minutes))
    return f"{sign}{whole // 60:02d}:{whole % 60:02d}"


def telemetry(b: Builder) -> list[PageBlock]:
    frame = b.d.a.telemetry
    notes = [Para(b.t(f"telemetry.note_{n.kind}", engine=b.d.label(n.engine), files=n.files),
                  "note") for n in b.d.a.telemetry_notes]
    if frame is None or frame.empty:
        return [Para(b.t("telemetry.none"), "note"), *notes]
    sources = set(frame["source"]) if "source" in frame.columns else set()
    out: list[PageBlock] = [*b.lead("telemetry.lead_dcgm" if "DCGM" in sources
                                    else "telemetry.lead")]
    out += [Para(b.t(key), "note") for key in ASSUMPTIONS]
    offset = b.d.a.telemetry_offset_min
    if "DCGM" in sources and offset is not None:
        out.append(Para(b.t("telemetry.assume_dcgm", offset=_offset(offset)), "note"))
    shown = [o for o in OPTIONAL if o[0] in frame.columns
             and frame[o[0]].map(lambda v: isinstance(v, float | int) and math.isfinite(v)).any()]
    if any(o[0] == "sm_active_pct" for o in shown):
        out.append(Para(b.t("telemetry.assume_sm"), "note"))
    if any(o[0] != "sm_active_pct" for o in shown):
        out.append(Para(b.t("telemetry.assume_engine"), "note"))
    out += notes
    cols = [Column(b.t("dist.col_engine")), Column(b.t("dist.col_tier"), num=True),
            Column(b.t("telemetry.col_runs"), num=True),
            Column(b.t("telemetry.col_samples"), num=True),
            Column(b.t("telemetry.col_power"), num=True),
            Column(b.t("telemetry.col_energy"), num=True),
            Column(b.t("telemetry.col_jtok"), num=True),
            Column(b.t("telemetry.col_util"), num=True),
            *[Column(b.t(f"telemetry.{key}"), num=True) for _, key, _, _ in shown],
            Column(b.t("telemetry.col_status"))]
    with_source = "DCGM" in sources
    if with_source:
        cols.insert(2, Column(b.t("telemetry.col_source")))
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
                 *[b.named_cell(f"{base}.{col}", fmt(r[col] * scale, spec))
                   for col, _, spec, scale in shown],
                 tcell(b.t(f"telemetry.status_{r['status']}"))]
        if with_source:
            cells.insert(2, tcell(str(r["source"] or "")))
        rows.append(tier_row(cells, excluded))
    out.append(Table(cols, rows, b.t("telemetry.table_caption")))
    out += b.figure("telemetry", b.t("telemetry.fig_caption"))
    if not any(o[0] == "peak_kv_usage" for o in shown):
        out.append(Para(b.t("telemetry.kv_note"), "note"))
    return out
