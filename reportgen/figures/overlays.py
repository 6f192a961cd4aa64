"""The baseline round's curves on this round's figures: dashed, one legend group.
"""

from __future__ import annotations

import numpy as np

from reportgen.analyze.compare import Baseline
from reportgen.analyze.result import Analysis
from reportgen.figures.base import PALETTE, Fig, Scatter, plotly_text
from reportgen.figures.marks import colors, excluded_mask, float_column, marker_symbols
from reportgen.text.i18n import UI

# ------------------------------------------------------------------ the baseline's curves (h14)

# figure kind → (x column, y column) of the baseline's tiers drawn on it; y "per_user" is
# 1000 / TPOT p50 as in Figure 6. Memory and graph reuse are per-round snapshots: no overlay.
BASELINE_CURVES: dict[str, tuple[str, str]] = {
    "throughput": ("concurrency", "output_tok_s"),
    "itl": ("concurrency", "itl_p50_ms"),
    "wait": ("concurrency", "wait_ratio"),
    "tradeoff": ("output_tok_s", "per_user"),
}
BASELINE_GROUP = "baseline"


def add_baseline_curves(fig: Fig, kind: str, baseline: Baseline, analysis: Analysis, ui: UI,
                        lang: str) -> None:
    """The baseline round's curves on a figure of this round: dashed, in the engine's colour,
    one legend group (a click on any of its entries hides or shows them all)."""
    if kind not in BASELINE_CURVES or baseline.tiers.empty:
        return
    x_col, y_col = BASELINE_CURVES[kind]
    color = colors(analysis)
    extra = [e for e in dict.fromkeys(baseline.tiers["engine"]) if e not in color]
    for i, e in enumerate(extra):
        color[e] = PALETTE[(len(color) + i) % len(PALETTE)]
    title = plotly_text(baseline.title.get(lang))
    first = True
    for engine in dict.fromkeys(baseline.tiers["engine"]):
        rows = baseline.tiers[baseline.tiers["engine"] == engine].sort_values(
            "concurrency", kind="stable")
        if y_col == "per_user":
            tpot = float_column(rows, "tpot_p50_ms")
            y = np.where(tpot > 0, 1000.0 / np.where(tpot > 0, tpot, np.nan), np.nan)
        else:
            y = float_column(rows, y_col)
        x = float_column(rows, x_col)
        if not (np.isfinite(x) & np.isfinite(y)).any():
            continue
        label = baseline.labels.get(str(engine))
        name = plotly_text(label.get(lang) if label else str(engine))
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers", name=ui.raw("fig.baseline.name", lang, engine=name),
            legendgroup=BASELINE_GROUP,
            legendgrouptitle=dict(text=ui.raw("fig.baseline.group", lang, title=title))
            if first else None,
            line=dict(color=color[str(engine)], width=1.5, dash="dash"),
            marker=dict(size=6, color=color[str(engine)],
                        symbol=marker_symbols(excluded_mask(rows), "diamond")),
            opacity=0.75,
            hovertemplate=ui.raw("fig.baseline.hover", lang, title=title, engine=name),
        ))
        first = False
