"""Figure 10: the telemetry timeline (power, KV usage on a second axis) with tier bands.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from reportgen.analyze.result import Analysis
from reportgen.figures.base import Fig, Scatter
from reportgen.figures.marks import colors, engine_labels, engine_order
from reportgen.text.i18n import UI

# ------------------------------------------------------------------- telemetry timeline (h21)

BAND_COLORS = ("rgba(37,99,235,0.08)", "rgba(234,88,12,0.08)")
MAX_POINTS = 500    # per configuration: every k-th sample beyond this (the table integrates all)


def telemetry_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Board power over local time per configuration (GPUs summed per sample instant), the
    engines' KV usage on a second axis where scraped over time, and each run's window
    [date − duration, date] as a band labelled with its tier."""
    import pandas as pd

    samples = analysis.telemetry_samples
    windows = analysis.telemetry_windows
    kv = analysis.telemetry_kv
    if analysis.telemetry.empty or ((samples is None or samples.empty)
                                    and (kv is None or kv.empty)):
        return None
    fig = Fig()
    labels = engine_labels(analysis)
    color = colors(analysis)
    for e in engine_order(analysis):
        mine = samples[samples["engine"] == e]
        if mine.empty:
            continue
        total = mine.groupby("timestamp", sort=True)["power_draw_w"].sum()
        step = max(1, -(-len(total) // MAX_POINTS))
        total = total.iloc[::step]
        # ms since 1970 of the naive local times: a date axis shows them as that wall clock
        when = pd.to_datetime(total.index).to_numpy("datetime64[ms]").astype(np.int64)
        fig.add_trace(Scatter(
            x=when.astype(np.float64), y=total.to_numpy(np.float32), mode="lines",
            name=labels[e].get(lang),
            line=dict(color=color[e], width=1.5),
            hovertemplate=f"{labels[e].get(lang)}<br>%{{x|%H:%M:%S}}<br>%{{y:.0f}} W"
                          "<extra></extra>"))
    for e in engine_order(analysis) if kv is not None and len(kv) else ():
        mine = kv[kv["engine"] == e].sort_values("timestamp", kind="stable")
        if mine.empty:
            continue
        step = max(1, -(-len(mine) // MAX_POINTS))
        mine = mine.iloc[::step]
        when = pd.to_datetime(mine["timestamp"]).to_numpy("datetime64[ms]").astype(np.int64)
        name = ui.raw("telemetry.fig_kv_name", lang, label=labels[e].get(lang))
        fig.add_trace(Scatter(
            x=when.astype(np.float64), y=mine["kv_usage"].to_numpy(np.float32), mode="lines",
            name=name, yaxis="y2", line=dict(color=color[e], width=1, dash="dot"),
            hovertemplate=f"{name}<br>%{{x|%H:%M:%S}}<br>%{{y:.0%}}<extra></extra>"))
    shapes, notes = [], []
    for i, w in enumerate(windows.itertuples(index=False)):
        start, end = cast(pd.Timestamp, w.start), cast(pd.Timestamp, w.end)
        shapes.append(dict(type="rect", xref="x", yref="y domain",
                           x0=start.isoformat(), x1=end.isoformat(), y0=0, y1=1,
                           line=dict(width=0), fillcolor=BAND_COLORS[i % 2], layer="below"))
        notes.append(dict(text=ui.raw("telemetry.fig_band", lang, c=f"{w.concurrency:g}"),
                          x=start.isoformat(), xref="x", xanchor="left", y=1,
                          yref="y domain", yanchor="bottom", showarrow=False,
                          font=dict(size=10)))
    fig.update_layout(height=420, uirevision="keep", shapes=shapes, annotations=notes,
                      xaxis=dict(type="date", title=dict(text=ui.raw("telemetry.fig_x", lang))),
                      yaxis=dict(title=dict(text=ui.raw("telemetry.fig_y", lang)),
                                 rangemode="tozero"),
                      margin=dict(t=40))
    if kv is not None and len(kv):
        fig.update_layout(yaxis2=dict(title=dict(text=ui.raw("telemetry.fig_kv", lang)),
                                      overlaying="y", side="right", range=[0, 1.02],
                                      dtick=0.25, tickformat=".0%", showgrid=False))
    return fig
