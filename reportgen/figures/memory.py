"""Figure 3: each configuration's memory split against the GPU's memory.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reportgen.analyze.result import Analysis
from reportgen.figures.base import INK, Bar, Fig, Scatter
from reportgen.figures.marks import Marks, base_layout, engine_labels, engine_order, float_column
from reportgen.text.i18n import UI

MEMORY_PARTS = (("weights_gib", "weights"), ("kv_pool_gib", "kv"), ("other_gib", "other"))
MEMORY_COLORS = {"weights": "#475569", "kv": "#60a5fa", "other": "#cbd5e1"}


def memory_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 3: weights / KV pool / other stacked per engine, GPU memory as a line, measured
    totals (nvidia-smi) as markers."""
    mem = analysis.memory
    if mem is None or mem.empty:
        return None
    labels = engine_labels(analysis)
    order = [e for e in engine_order(analysis) if e in set(mem["engine"])]
    if not order:
        return None
    mem = mem.set_index("engine").reindex(order)
    names = [labels[e].get(lang) for e in order]
    synth_names = analysis.synthetic.names
    mark = ui.raw("fig_marks.synthetic_hover", lang)

    def synth(column: str) -> np.ndarray:
        return np.array([f"memory.{e}.{column}" in synth_names for e in order], dtype=bool)

    fig = Fig()
    seen = Marks()
    for column, part in MEMORY_PARTS:
        if column not in mem.columns:
            continue
        y = pd.to_numeric(mem[column], errors="coerce").to_numpy(float)
        y = np.where(y >= 0, y, np.nan)   # an estimate above the measurement leaves no "other"
        marks = synth(column)
        seen.note_synthetic(marks)
        pattern = {"pattern": dict(shape=["x" if m else "" for m in marks])} if marks.any() \
            else {}
        fig.add_trace(Bar(
            x=names, y=y, customdata=[[mark if m else ""] for m in marks],
            name=ui.raw(f"fig.memory.{part}", lang),
            marker=dict(color=MEMORY_COLORS[part], **pattern),
            hovertemplate=ui.raw("fig.memory.hover", lang) + "%{customdata[0]}", width=0.5,
        ))
    if ("measured_total_gib" in mem.columns
            and np.isfinite(float_column(mem, "measured_total_gib")).any()):
        marks = synth("measured_total_gib")
        seen.note_synthetic(marks)
        fig.add_trace(Scatter(
            x=names, y=float_column(mem, "measured_total_gib"), mode="markers",
            name=ui.raw("fig.memory.measured", lang), customdata=[[mark if m else ""]
                                                                   for m in marks],
            marker=dict(symbol=["diamond-x" if m else "diamond" for m in marks], size=13,
                        color=INK, line=dict(width=1.5, color="#fff")),
            hovertemplate=ui.raw("fig.memory.hover_measured", lang) + "%{customdata[0]}",
        ))
    seen.legends(fig, ui, lang)
    gpu = analysis.round.memory_gib
    if math.isfinite(gpu):
        text = ui.raw("fig.memory.gpu", lang, gib=f"{gpu:g}")
        fig.add_hline(float(gpu), line=dict(color="#dc2626", width=2, dash="dot"), text=text,
                      font=dict(color="#dc2626", size=12))
    base_layout(fig, ui, "memory", lang)
    fig.update_layout(barmode="stack", legend=dict(traceorder="normal"),
                      yaxis=dict(title=dict(text=ui.raw("fig.memory.y", lang)), rangemode="tozero"))
    return fig
