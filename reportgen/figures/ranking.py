"""Figure 7 (the Pareto view) and Figure 8 (the one-tier ranking).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analyze.ranking import is_single_point, ranking
from reportgen.analyze.result import Analysis
from reportgen.figures.base import MUTED, PALETTE, Bar, Fig, Scatter, plotly_text
from reportgen.figures.margins import FIGURE_WIDTH_PX, text_px
from reportgen.figures.marks import (
    base_layout,
    colors,
    engine_labels,
    excluded_legend,
    float_column,
    marker_symbols,
)
from reportgen.text.formatting import fmt, fmt_latency_ms, tier_label
from reportgen.text.i18n import UI

# The Pareto view is drawn for a round of at least this many configurations (one has nothing
# to compare).
PARETO_MIN_CONFIGURATIONS = 2


def pareto_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 7: every tier as tok/s per user vs tok/s per GPU (grey), and the Pareto frontier
    through the best of them (analyze/pareto.py has the definitions)."""
    points = analysis.pareto
    if len(analysis.engines) < PARETO_MIN_CONFIGURATIONS or points is None or points.empty:
        return None
    labels = engine_labels(analysis)
    note = ui.raw("fig.excluded_hover", lang)
    axis = analysis.round.axis

    def custom(rows: pd.DataFrame) -> list[list[Any]]:
        return [[labels[e].get(lang) if e in labels else plotly_text(e),
                 tier_label(c, axis), gpus, note if excl else ""]
                for e, c, gpus, excl in zip(rows["engine"], rows["concurrency"], rows["gpus"],
                                            rows["excluded"], strict=True)]

    hover = ui.raw("fig.pareto.hover", lang)
    excluded = points["excluded"].to_numpy(dtype=bool)
    fig = Fig()
    fig.add_trace(Scatter(
        x=float_column(points, "tok_s_per_user"), y=float_column(points, "tok_s_per_gpu"),
        mode="markers",
        name=ui.raw("fig.pareto.all", lang),
        marker=dict(size=7, color=MUTED, opacity=0.6, symbol=marker_symbols(excluded)),
        customdata=custom(points), hovertemplate=hover,
    ))
    front = points[points["frontier"]].sort_values("tok_s_per_user", kind="stable")
    fig.add_trace(Scatter(
        x=float_column(front, "tok_s_per_user"), y=float_column(front, "tok_s_per_gpu"),
        mode="lines+markers",
        name=ui.raw("fig.pareto.frontier", lang), line=dict(color=PALETTE[0], width=2.5),
        marker=dict(size=9, color=PALETTE[0]), customdata=custom(front), hovertemplate=hover,
    ))
    if excluded.any():
        excluded_legend(fig, ui, lang)
    base_layout(fig, ui, "pareto", lang)
    fig.update_layout(
        xaxis=dict(title=dict(text=ui.raw("fig.pareto.x", lang)), rangemode="tozero"),
        yaxis=dict(title=dict(text=ui.raw("fig.pareto.y", lang)), rangemode="tozero"),
    )
    return fig


LABEL_CHARS = 28   # a configuration's name on a ranked axis, before its middle is elided


def short_labels(names: list[str], limit: int = LABEL_CHARS) -> list[str]:
    """Names shortened to ``limit`` characters by eliding their middle (the start and the end
    are where configurations differ: model, size, the hash or tier at the end); a longer
    limit where two would read the same."""
    for n in range(limit, max((len(x) for x in names), default=0) + 1):
        short = [x if len(x) <= n else x[:n - n // 3 - 1] + "…" + x[len(x) - n // 3:]
                 for x in names]
        if len(set(short)) == len(set(names)):
            return short
    return list(names)


def wrap_px(text: str, width_px: float) -> str:
    """``text`` broken into lines (``<br>``) no wider than ``width_px`` where it has spaces;
    CJK text, which has none, breaks between characters."""
    words = text.split(" ") if " " in text else list(text)
    joint = " " if " " in text else ""
    lines: list[str] = []
    for word in words:
        if lines and text_px(lines[-1] + joint + word) <= width_px:
            lines[-1] += joint + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def ranking_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 8, for a round whose configurations each ran one tier (analyze.ranking): one
    panel of horizontal bars per metric, configurations in the order of output throughput,
    the best bar of each panel in full colour, its value printed beside every bar."""
    if not is_single_point(analysis.tiers):
        return None
    ranked = ranking(analysis.tiers)
    if ranked.empty:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    metrics = list(dict.fromkeys(ranked["metric"]))
    lead = ranked[ranked["metric"] == metrics[0]]
    order = list(lead["engine"]) + [e for e in dict.fromkeys(ranked["engine"])
                                    if e not in set(lead["engine"])]
    raw = [analysis.labels()[e].get(lang) for e in order]
    short = short_labels(raw)   # shortened before escaping: no entity cut in two
    names = [plotly_text(n) for n in short]
    full = [labels[e].get(lang) for e in order]   # the full name in the hover
    fig = Fig()
    gap = 0.04
    width = (1.0 - gap * (len(metrics) - 1)) / len(metrics)
    # each panel's title wraps to the panel's width (19 long labels narrowed four one-line
    # titles into one overprinted string)
    left = max([*(text_px(n) for n in short), 120.0]) + 20.0
    panel_px = (FIGURE_WIDTH_PX - left - 40.0) * width
    layout: dict[str, Any] = {}
    for i, metric in enumerate(metrics):
        own = ranked[ranked["metric"] == metric].set_index("engine")
        values = [float(own["value"].get(e, math.nan)) for e in order]
        best = [e in own.index and int(own.loc[e, "rank"]) == 1 for e in order]
        spec = ".0f" if metric in ("failed", "ttft_p50_ms", "e2el_p50_ms") else \
            ".2f" if metric == "itl_p50_ms" else ".1f"
        suffix = "" if i == 0 else str(i + 1)
        fig.add_trace(Bar(
            x=np.array(values, dtype=float), y=names, orientation="h", name=ui.raw(
                f"fig.every.rank_{metric}", lang),
            marker=dict(color=[color[e] if b else MUTED for e, b in zip(order, best,
                                                                         strict=True)]),
            text=["" if not math.isfinite(v) else fmt_latency_ms(v, spec)
                  if metric.endswith("_ms") else fmt(v, spec) for v in values],
            textposition="outside", cliponaxis=False, showlegend=False,
            xaxis=f"x{suffix}", yaxis=f"y{suffix}", customdata=full,
            hovertemplate="%{customdata}: %{text}<extra></extra>",
        ))
        lo = i * (width + gap)
        layout[f"xaxis{suffix}"] = dict(domain=[lo, lo + width], anchor=f"y{suffix}",
                                        title=dict(text=wrap_px(ui.raw(
                                            f"fig.every.rank_{metric}", lang), panel_px)),
                                        showticklabels=False,
                                        # room for the value printed beside the longest bar
                                        range=[0, 1.35 * max((v for v in values
                                                              if math.isfinite(v)), default=1)])
        layout[f"yaxis{suffix}"] = dict(anchor=f"x{suffix}", autorange="reversed",
                                        showticklabels=i == 0, type="category")
    base_layout(fig, ui, "ranking", lang, height=max(260, 60 + 34 * len(order)))
    fig.update_layout(**layout, margin=dict(l=160, r=40), bargap=0.3)
    return fig
