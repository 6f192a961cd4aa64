"""The latency-distribution figure: ECDFs of TTFT, per-request TPOT, E2EL and pooled ITL in a
2 × 2 grid of log x axes, one curve per configuration.

The figure is sent with its traces empty: templates/static/slo.js fills them for the tier the
reader picks, from the same log-binned per-request data it computes goodput from (so the
page carries each value once), and moves the dashed threshold lines when an SLO input
changes. The figure itself only fixes the layout, the labels in both languages and the
threshold lines at the default SLO.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from reportgen.analyze.result import Analysis
from reportgen.figures import Fig, Scatter, colors, engine_labels, engine_order
from reportgen.i18n import UI

METRICS = ("ttft", "tpot", "e2el", "itl")
# (x domain, y domain) per metric, in METRICS order
DOMAINS = (((0.0, 0.46), (0.58, 1.0)), ((0.54, 1.0), (0.58, 1.0)),
           ((0.0, 0.46), (0.0, 0.42)), ((0.54, 1.0), (0.0, 0.42)))
HEIGHT = 640


def axis_names(i: int) -> tuple[str, str]:
    """('x', 'y') for the first subplot, ('x2', 'y2') … for the others."""
    n = "" if i == 0 else str(i + 1)
    return f"x{n}", f"y{n}"


def threshold_shapes(thresholds: dict[str, float]) -> list[dict[str, Any]]:
    """Dashed vertical lines at the thresholds given (ms); slo.js builds the same list."""
    shapes = []
    for i, metric in enumerate(METRICS[:3]):
        value = thresholds.get(metric, math.nan)
        if value is None or not math.isfinite(value):
            continue
        x, y = axis_names(i)
        shapes.append(dict(type="line", xref=x, yref=f"{y} domain", x0=value, x1=value,
                           y0=0, y1=1, line=dict(color="#dc2626", width=1.5, dash="dash")))
    return shapes


def distributions_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    if analysis.requests is None or analysis.requests.empty:
        return None
    fig = Fig()
    labels = engine_labels(analysis)
    color = colors(analysis)
    present = set(analysis.requests["engine"])
    engines = [e for e in engine_order(analysis) if e in present]
    for i in range(len(METRICS)):
        x, y = axis_names(i)
        hover = ui.raw("dist.fig_hover", lang)
        for e in engines:
            fig.add_trace(Scatter(
                x=[], y=[], mode="lines", name=labels[e][lang], legendgroup=e,
                showlegend=i == 0, line=dict(color=color[e], width=2, shape="hv"),
                hovertemplate=f"{labels[e][lang]}<br>{hover}<extra></extra>",
                xaxis=x, yaxis=y))
    layout: dict[str, Any] = {}
    annotations = []
    for i, metric in enumerate(METRICS):
        (xd, yd) = DOMAINS[i]
        n = "" if i == 0 else str(i + 1)
        ytitle = ui.raw("dist.fig_itl_y" if metric == "itl" else "dist.fig_y", lang)
        layout[f"xaxis{n}"] = dict(type="log", domain=list(xd), anchor=f"y{n}",
                                   title=dict(text="ms"))
        layout[f"yaxis{n}"] = dict(domain=list(yd), anchor=f"x{n}", range=[0, 1.02],
                                   tickformat=".0%", title=dict(text=ytitle))
        annotations.append(dict(text=f"<b>{ui.raw(f'dist.metric_{metric}', lang)}</b>",
                                x=xd[0], xref="paper", xanchor="left", y=yd[1],
                                yref="paper", yanchor="bottom", showarrow=False))
    slo = analysis.slo
    thresholds = {m: slo.threshold(m) for m in METRICS[:3]} if slo is not None else {}
    fig.update_layout(height=HEIGHT, uirevision="keep", annotations=annotations,
                      shapes=threshold_shapes(thresholds), hovermode="closest",
                      margin=dict(t=36), **layout)
    return fig


# ------------------------------------------------------------------- telemetry timeline (h21)

BAND_COLORS = ("rgba(37,99,235,0.08)", "rgba(234,88,12,0.08)")
MAX_POINTS = 500    # per configuration: every k-th sample beyond this (the table integrates all)


def telemetry_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Board power over local time per configuration (GPUs summed per sample instant), and
    each run's window [date − duration, date] as a band labelled with its tier."""
    import pandas as pd

    samples = analysis.telemetry_samples
    windows = analysis.telemetry_windows
    if samples is None or samples.empty or analysis.telemetry.empty:
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
            name=labels[e][lang],
            line=dict(color=color[e], width=1.5),
            hovertemplate=f"{labels[e][lang]}<br>%{{x|%H:%M:%S}}<br>%{{y:.0f}} W<extra></extra>"))
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
    return fig
