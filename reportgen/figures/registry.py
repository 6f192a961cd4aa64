"""The figure registry (``BUILDERS``: id, kind, builder; adding a figure is one module and one
line here) and the build of every figure the data supports, per language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from reportgen.analyze.compare import Baseline
from reportgen.analyze.ranking import is_single_point
from reportgen.analyze.result import Analysis
from reportgen.figures.base import Fig, FigureSpec, plotly_node, template, trace_values
from reportgen.figures.built import BuiltFigure, FigureSet
from reportgen.figures.distributions import distributions_figure
from reportgen.figures.many import MANY_SERIES, merge_series
from reportgen.figures.margins import fitted_margins
from reportgen.figures.marks import engine_labels, with_inf_drawn
from reportgen.figures.memory import memory_figure
from reportgen.figures.overlays import add_baseline_curves
from reportgen.figures.ranking import pareto_figure, ranking_figure
from reportgen.figures.telemetry import telemetry_figure
from reportgen.figures.tiers import (
    itl_floor_figure,
    reuse_figure,
    throughput_figure,
    tradeoff_figure,
    wait_figure,
)
from reportgen.text.bilingual import LANGS
from reportgen.text.i18n import UI, figure_patches

BUILDERS: tuple[tuple[str, str, Callable[[Analysis, UI, str], Fig | None]], ...] = (
    ("fig-1", "throughput", throughput_figure),
    ("fig-2", "itl", itl_floor_figure),
    ("fig-3", "memory", memory_figure),
    ("fig-4", "wait", wait_figure),
    ("fig-5", "reuse", reuse_figure),
    ("fig-6", "tradeoff", tradeoff_figure),
    ("fig-7", "pareto", pareto_figure),
    ("fig-8", "ranking", ranking_figure),
    ("fig-9", "distributions", distributions_figure),
    ("fig-10", "telemetry", telemetry_figure),
)
# lines over a single x value say nothing: a one-tier comparison draws the ranking instead
LINE_KINDS = ("throughput", "itl", "wait", "reuse", "tradeoff")


def _has_points(trace: Mapping[str, Any]) -> bool:
    x, y = trace_values(trace.get("x")), trace_values(trace.get("y"))
    n = min(len(x), len(y))
    return bool(np.any(np.isfinite(x[:n]) & np.isfinite(y[:n])))


def _drawn(trace: Mapping[str, Any]) -> bool:
    """Whether a trace stays: it has a point, or it is a marker key of the legend (x=[None])
    or no legend entry at all."""
    if _has_points(trace) or trace.get("showlegend") is False:
        return True
    return trace.get("hoverinfo") == "skip" and trace.get("x") == [None]


# figures whose traces the page's script fills (slo.js draws the ECDFs from the embedded
# per-request data): empty here by design, never dropped as "no data"
FILLED_IN_PAGE = frozenset({"distributions"})


def build_figures(analysis: Analysis, ui: UI, lang: str,
                  baseline: Baseline | None = None) -> list[FigureSpec]:
    """All figures the data supports, in one language; with a baseline, its curves dashed."""
    analysis = with_inf_drawn(analysis)
    out = []
    single = is_single_point(analysis.tiers)
    for fig_id, kind, builder in BUILDERS:
        if single and kind in LINE_KINDS:
            continue
        fig = builder(analysis, ui, lang)
        if fig is not None and kind not in FILLED_IN_PAGE:
            fig.data = [t for t in fig.data if _drawn(t)]
            if not any(_has_points(t) for t in fig.data):
                continue   # no series has data: no empty axes, no legend of nothing
        if fig is not None:
            if kind in LINE_KINDS and len(analysis.engines) > MANY_SERIES:
                merge_series(fig, ui.raw("fig.many", lang, n=str(len(analysis.engines))),
                             [label.get(lang) for label in engine_labels(analysis).values()])
            if baseline is not None:
                add_baseline_curves(fig, kind, baseline, analysis, ui, lang)
            _fit_margins(fig)
            out.append(FigureSpec(fig_id, kind, fig))
    return out


def _fit_margins(fig: Fig) -> None:
    """Margins wide enough for the figure's labels, so plotly.js draws it once
    (figure_margins)."""
    layout = template()["layout"]
    base = dict(layout["margin"]) | dict(fig.layout.get("margin", {}))
    legend = dict(layout["legend"]) | dict(fig.layout.get("legend", {}))
    fig.layout["margin"] = plotly_node(fitted_margins(fig.to_dict(), base, trace_values, legend))


def figures_payload(analysis: Analysis, ui: UI, default_lang: str,
                    baseline: Baseline | None = None) -> FigureSet:
    """What the page's script needs: the shared template, and per figure the default-language
    figure plus the per-language patches; the trace types decide the plotly.js bundle."""
    by_lang = {lang: build_figures(analysis, ui, lang, baseline) for lang in LANGS}
    ids = [[s.id for s in by_lang[lang]] for lang in LANGS]
    if any(i != ids[0] for i in ids):
        raise ValueError("figures differ between languages")
    figs = []
    trace_types: set[str] = set()
    for i, spec in enumerate(by_lang[default_lang]):
        dicts = {lang: by_lang[lang][i].figure.to_dict() for lang in LANGS}
        trace_types |= {str(t.get("type", "scatter")) for t in dicts[default_lang]["data"]}
        height = int(dicts[default_lang]["layout"].get("height", 460))
        figs.append(BuiltFigure(id=spec.id, kind=spec.kind, height=height,
                                fig=dicts[default_lang], i18n=figure_patches(dicts)))
    return FigureSet(default_lang=default_lang, template=template(), figures=tuple(figs),
                     trace_types=frozenset(trace_types))
