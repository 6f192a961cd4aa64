"""Figure 9: the latency distributions, ECDFs on four log x axes, traces filled by slo.js.
"""

from __future__ import annotations

import math
from typing import Any

from reportgen.analyze.result import Analysis
from reportgen.figures.base import MUTED, Fig, Scatter
from reportgen.figures.many import GROUP, MANY_SERIES
from reportgen.figures.marks import colors, engine_labels, engine_order
from reportgen.text.i18n import UI

# ----------------------------------------------------------------------------- distributions
# The latency-distribution figure: ECDFs of TTFT, per-request TPOT, E2EL and pooled ITL in a
# 2 × 2 grid of log x axes, one curve per configuration.
#
# The figure is sent with its traces empty: templates/static/slo.js fills them for the tier the
# reader picks, from the same log-binned per-request data it computes goodput from (so the
# page carries each value once), and moves the dashed threshold lines when an SLO input
# changes. The figure itself only fixes the layout, the labels in both languages and the
# threshold lines at the default SLO.

DIST_METRICS = ("ttft", "tpot", "e2el", "itl")
# (x domain, y domain) per metric, in DIST_METRICS order
DIST_DOMAINS = (((0.0, 0.46), (0.58, 1.0)), ((0.54, 1.0), (0.58, 1.0)),
           ((0.0, 0.46), (0.0, 0.42)), ((0.54, 1.0), (0.0, 0.42)))
DIST_HEIGHT = 640


def axis_names(i: int) -> tuple[str, str]:
    """('x', 'y') for the first subplot, ('x2', 'y2') … for the others."""
    n = "" if i == 0 else str(i + 1)
    return f"x{n}", f"y{n}"


def threshold_shapes(thresholds: dict[str, float]) -> list[dict[str, Any]]:
    """Dashed vertical lines at the thresholds given (ms); slo.js builds the same list."""
    shapes = []
    for i, metric in enumerate(DIST_METRICS[:3]):
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
    present = set(analysis.requests["engine"].unique())
    engines = [e for e in engine_order(analysis) if e in present]
    if len(engines) > MANY_SERIES:
        _merged_curves(fig, engines, color, ui, lang)
    for i in range(len(DIST_METRICS) if len(engines) <= MANY_SERIES else 0):
        x, y = axis_names(i)
        hover = ui.raw("dist.fig_hover", lang)
        for e in engines:
            fig.add_trace(Scatter(
                x=[], y=[], mode="lines", name=labels[e].get(lang), legendgroup=e, meta=FILLED_META,
                showlegend=i == 0, line=dict(color=color[e], width=2, shape="hv"),
                hovertemplate=f"{labels[e].get(lang)}<br>{hover}<extra></extra>",
                xaxis=x, yaxis=y))
    layout: dict[str, Any] = {}
    annotations = []
    for i, metric in enumerate(DIST_METRICS):
        (xd, yd) = DIST_DOMAINS[i]
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
    thresholds = {m: slo.threshold(m) for m in DIST_METRICS[:3]} if slo is not None else {}
    fig.update_layout(height=DIST_HEIGHT, uirevision="keep", annotations=annotations,
                      shapes=threshold_shapes(thresholds), hovermode="closest",
                      margin=dict(t=36), **layout)
    return fig
FILLED_META = "filled-by-slo.js"   # on each such trace: empty here, data from the page's script


def _merged_curves(fig: Fig, engines: list[str], color: dict[str, str], ui: UI,
                   lang: str) -> None:
    """Many configurations (figures/many.py): per panel, one trace per colour holding its
    configurations' curves, which slo.js fills one after the other with a gap between two
    and each point's hover naming its configuration; ``meta`` = [FILLED_META, panel,
    configuration ids…]. One legend entry stands for them all."""
    groups: dict[str, list[str]] = {}
    for e in engines:
        groups.setdefault(color[e], []).append(e)
    fig.add_trace(Scatter(x=[None], y=[None], mode="lines", hoverinfo="skip", showlegend=True,
                          name=ui.raw("fig.many", lang, n=str(len(engines))), legendgroup=GROUP,
                          line=dict(color=MUTED, width=2.5)))
    hover = ui.raw("dist.fig_hover", lang)
    for i in range(len(DIST_METRICS)):
        x, y = axis_names(i)
        for shade, ids in groups.items():
            fig.add_trace(Scatter(
                x=[], y=[], mode="lines", name=ids[0], legendgroup=GROUP,
                meta=[FILLED_META, i, *ids], showlegend=False,
                line=dict(color=shade, width=2, shape="hv"),
                hovertemplate=f"%{{hovertext}}<br>{hover}<extra></extra>", xaxis=x, yaxis=y))
