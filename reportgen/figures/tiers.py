"""The per-tier line figures: output throughput (fig-1), ITL vs its roofline floor (fig-2), wait
ratio (fig-4), graph reuse vs attainment (fig-5), the latency–throughput trade-off (fig-6).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analyze.result import Analysis
from reportgen.figures.base import INK, MUTED, Fig, Scatter
from reportgen.figures.marks import (
    Marks,
    all_tiers,
    base_layout,
    colors,
    custom_data,
    declutter,
    drawn_inf_at,
    end_labels,
    engine_labels,
    engine_order,
    engine_rows,
    excluded_notes,
    float_column,
    log_axis,
    marker_line,
    marker_size,
    marker_symbols,
    tier_marker,
    tiers_axis,
)
from reportgen.text.i18n import UI

# ------------------------------------------------------------------------------- figures

def throughput_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 1: output tok/s vs concurrency, log–log; crossovers marked and annotated."""
    if analysis.tiers.empty:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = Marks()
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for engine, rows, excluded in seen.tier_rows(analysis):
        x, y = float_column(rows, "concurrency"), float_column(rows, "output_tok_s")
        synth = seen.synthetic_points(analysis, "tiers", engine, x, "output_tok_s")
        curves[engine] = (x, y, excluded)
        spread: dict[str, Any] = {}
        if "repeats" in rows.columns and (float_column(rows, "repeats") > 1).any():
            # the min–max of repeated runs around their median
            spread["error_y"] = dict(type="data", symmetric=False, visible=True,
                                     array=float_column(rows, "output_tok_s_max") - y,
                                     arrayminus=y - float_column(rows, "output_tok_s_min"),
                                     color=color[engine], thickness=1.5, width=4)
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers", name=labels[engine].get(lang),
            line=dict(color=color[engine], width=2.5),
            marker=tier_marker(color[engine], excluded, synth),
            customdata=excluded_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.throughput.hover", lang), **spread,
        ))
    _crossovers(fig, analysis, curves, ui, lang)
    seen.legends(fig, ui, lang)
    base_layout(fig, ui, "throughput", lang)
    fig.update_layout(
        xaxis=tiers_axis(all_tiers(analysis), ui.raw("fig.throughput.x", lang),
                         drawn_inf_at(analysis)),
        yaxis=log_axis(analysis.tiers["output_tok_s"], ui.raw("fig.throughput.y", lang)),
    )
    return fig


# beyond this many crossovers they share one trace and lose their labels (64 configurations
# against a reference: 43 crossings, 43 traces and overlapping labels); the hover tells each
MANY_CROSSOVERS = 8


def _crossovers(fig: Fig, analysis: Analysis,
                curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                ui: UI, lang: str) -> None:
    """Figure 1's crossover marks: an × at each crossing, labelled; many of them, one trace."""
    points = []
    for cross in analysis.crossovers.to_dict("records"):
        c = float(cross["concurrency"])
        a = str(cross["engine_a"])
        if a not in curves or not math.isfinite(c) or c <= 0:
            continue
        lo, hi = float(cross["lower_tier"]), float(cross["upper_tier"])
        y_at = _loglog_at(curves[a], c, lo, hi)
        if math.isfinite(y_at):
            points.append((c, y_at, ui.raw("fig.throughput.crossover_hover", lang,
                                            c=f"{c:.1f}", lo=f"{lo:g}", hi=f"{hi:g}")))
    marker = dict(symbol="x-thin", size=16, color=INK, line=dict(width=3, color=INK))
    if len(points) > MANY_CROSSOVERS:
        fig.add_trace(Scatter(
            x=np.array([p[0] for p in points]), y=np.array([p[1] for p in points]),
            mode="markers", name=ui.raw("fig.throughput.crossovers", lang, n=str(len(points))),
            marker=marker, customdata=[[p[2]] for p in points],
            hovertemplate="%{customdata[0]}<extra></extra>"))
        return
    for c, y_at, hover in points:
        name = ui.raw("fig.throughput.crossover", lang, c=f"{c:.1f}")
        fig.add_trace(Scatter(x=[c], y=[y_at], mode="markers", name=name, marker=marker,
                              hovertemplate=hover + "<extra></extra>"))
        fig.add_annotation(x=math.log10(c), y=math.log10(y_at), text=name, showarrow=True,
                           arrowhead=0, arrowwidth=1, arrowcolor=MUTED, ax=48, ay=46,
                           font=dict(size=12, color=INK), bgcolor="rgba(255,255,255,0.85)")


def _loglog_at(curve: tuple[np.ndarray, np.ndarray, np.ndarray], c: float, lo: float,
               hi: float) -> float:
    """Height of an engine's curve at concurrency c, on the straight log–log segment between
    its lower and upper tier (where the crossover was interpolated)."""
    x, y, _ = curve
    at = {float(cx): float(cy) for cx, cy in zip(x, y, strict=True)}
    if lo not in at or hi not in at or lo <= 0 or hi <= 0 or at[lo] <= 0 or at[hi] <= 0:
        return math.nan
    if hi == lo:
        return at[lo]
    t = (math.log(c) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return math.exp(math.log(at[lo]) + t * (math.log(at[hi]) - math.log(at[lo])))


def _tier_series(seen: Marks, analysis: Analysis, column: str
                 ) -> Iterator[tuple[str, pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]]:
    """Each engine's tier rows with their x values (the axis) and which points of ``column``
    rest on declared-synthetic input."""
    for engine, rows, excluded in seen.tier_rows(analysis):
        x = float_column(rows, "concurrency")
        yield engine, rows, excluded, x, seen.synthetic_points(analysis, "tiers", engine, x,
                                                               column)


def itl_floor_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 2: measured ITL p50 (solid) against each engine's roofline floor (dashed)."""
    if analysis.tiers.empty or "floor_ms" not in analysis.tiers.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = Marks()
    # the decode step (analyze/tiers.decode_step: the ITL p50 unless it is no decode step)
    step = "step_p50_ms" if "step_p50_ms" in analysis.tiers.columns else "itl_p50_ms"
    for engine, rows, excluded, x, synth in _tier_series(seen, analysis, step):
        custom = custom_data(float_column(rows, "floor_ms"),
                             float_column(rows, "roofline_attainment"),
                             [n[0] for n in excluded_notes(excluded, ui, lang, synth)])
        fig.add_trace(Scatter(
            x=x, y=float_column(rows, step), mode="lines+markers",
            name=ui.raw("fig.itl.measured", lang, engine=labels[engine].get(lang)),
            line=dict(color=color[engine], width=2.5),
            marker=tier_marker(color[engine], excluded, synth),
            customdata=custom, hovertemplate=ui.raw("fig.itl.hover_measured", lang),
        ))
        fig.add_trace(Scatter(
            x=x, y=float_column(rows, "floor_ms"), mode="lines",
            name=ui.raw("fig.itl.floor", lang, engine=labels[engine].get(lang)),
            line=dict(color=color[engine], width=1.5, dash="dash"),
            hovertemplate=ui.raw("fig.itl.hover_floor", lang),
        ))
    seen.legends(fig, ui, lang)
    base_layout(fig, ui, "itl", lang)
    fig.update_layout(
        xaxis=tiers_axis(all_tiers(analysis), ui.raw("fig.itl.x", lang),
                         drawn_inf_at(analysis)),
        yaxis=dict(title=dict(text=ui.raw("fig.itl.y", lang)), rangemode="tozero"),
    )
    return fig


# The E2EL-based wait ratio is drawn only where it tells a different story (5 points apart).
WAIT_BASES_APART = 0.05


def wait_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 4: wait ratio (mean TPOT / ITL p50 − 1) per tier and engine."""
    if analysis.tiers.empty or "wait_ratio" not in analysis.tiers.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = Marks()
    for engine, rows, excluded, x, synth in _tier_series(seen, analysis, "wait_ratio"):
        fig.add_trace(Scatter(
            x=x, y=float_column(rows, "wait_ratio"), mode="lines+markers",
            name=labels[engine].get(lang), line=dict(color=color[engine], width=2.5),
            marker=tier_marker(color[engine], excluded, synth),
            customdata=excluded_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.wait.hover", lang),
        ))
        implied = float_column(rows, "wait_ratio_implied") if "wait_ratio_implied" in rows else None
        gap = None if implied is None else np.abs(implied - float_column(rows, "wait_ratio"))
        if gap is not None and np.isfinite(gap).any() and np.nanmax(gap) > WAIT_BASES_APART:
            synth = seen.synthetic_points(analysis, "tiers", engine, x, "wait_ratio_implied")
            fig.add_trace(Scatter(
                x=x, y=implied, mode="lines+markers",
                name=ui.raw("fig.wait.implied", lang, engine=labels[engine].get(lang)),
                line=dict(color=color[engine], width=2, dash="dash"),
                marker=dict(size=marker_size(7, excluded, synth), color=color[engine],
                            symbol=marker_symbols(excluded, synthetic=synth),
                            line=marker_line(color[engine], excluded, synth)),
                customdata=excluded_notes(excluded, ui, lang, synth),
                hovertemplate=ui.raw("fig.wait.hover_implied", lang),
            ))
    seen.legends(fig, ui, lang)
    base_layout(fig, ui, "wait", lang, height=420)
    fig.update_layout(
        xaxis=tiers_axis(all_tiers(analysis), ui.raw("fig.wait.x", lang),
                         drawn_inf_at(analysis)),
        yaxis=dict(title=dict(text=ui.raw("fig.wait.y", lang)), tickformat=".0%"),
    )
    return fig


def reuse_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 5: CUDA-graph reuse on both step bases against roofline attainment, per tier."""
    reuse = analysis.graph_reuse
    if reuse is None or reuse.empty or "engine" not in reuse.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = Marks()
    apart = False
    for engine in engine_order(analysis):
        rows = engine_rows(reuse, engine)
        if rows.empty:
            continue
        tiers = engine_rows(analysis.tiers, engine).set_index("concurrency")
        conc = float_column(rows, "concurrency")
        excluded = np.array([bool(tiers["excluded"].get(c, False)) if "excluded" in tiers
                             else False for c in conc])
        seen.note_excluded(excluded)
        label = labels[engine].get(lang)
        series = (
            ("reuse", "published", "solid", "circle"),
            ("reuse_batched", "batched", "dot", "square"),
        )
        for column, key, dash, symbol in series:
            if column not in rows.columns or not np.isfinite(float_column(rows, column)).any():
                continue
            synth = seen.synthetic_points(analysis, "graph_reuse", engine, conc, column)
            # the batch-aware basis counts steps, not requests, and may rest on reconstructed
            # token counts: its own panel, so it never reads as the published measure
            panel = dict(xaxis="x2", yaxis="y2") if column == "reuse_batched" else {}
            apart = apart or bool(panel)
            fig.add_trace(Scatter(
                **panel, x=conc, y=float_column(rows, column), mode="lines+markers",
                name=ui.raw(f"fig.reuse.{key}", lang, engine=label),
                line=dict(color=color[engine], width=2, dash=dash),
                marker=dict(size=marker_size(8, excluded, synth), color=color[engine],
                            symbol=marker_symbols(excluded, symbol, synth),
                            line=marker_line(color[engine], excluded, synth)),
                customdata=excluded_notes(excluded, ui, lang, synth),
                hovertemplate=ui.raw("fig.reuse.hover", lang),
            ))
        attainment = [float(tiers["roofline_attainment"].get(c, np.nan))
                      if "roofline_attainment" in tiers else np.nan for c in conc]
        synth = seen.synthetic_points(analysis, "tiers", engine, conc, "roofline_attainment")
        fig.add_trace(Scatter(
            x=conc, y=np.asarray(attainment, dtype=float), mode="lines+markers",
            name=ui.raw("fig.reuse.attainment", lang, engine=label),
            line=dict(color=INK, width=2), yaxis="y",
            marker=dict(size=marker_size(8, excluded, synth), color=INK,
                        symbol=marker_symbols(excluded, "diamond", synth),
                        line=marker_line(INK, excluded, synth)),
            customdata=excluded_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.reuse.hover_attainment", lang),
        ))
    if not fig.data:
        return None
    seen.legends(fig, ui, lang)
    x_axis = tiers_axis(all_tiers(analysis), ui.raw("fig.reuse.x", lang),
                         drawn_inf_at(analysis))
    if not apart:
        base_layout(fig, ui, "reuse", lang)
        fig.update_layout(
            xaxis=x_axis,
            yaxis=dict(title=dict(text=ui.raw("fig.reuse.y", lang)), tickformat=".0%",
                       rangemode="tozero"),
        )
        return fig
    base_layout(fig, ui, "reuse", lang, height=620)
    fig.update_layout(
        xaxis={**x_axis, "anchor": "y", "title": dict(text="")},
        yaxis=dict(title=dict(text=ui.raw("fig.reuse.y_published", lang)), tickformat=".0%",
                   rangemode="tozero", domain=[0.45, 1.0]),
        xaxis2={**x_axis, "anchor": "y2", "matches": "x"},
        yaxis2=dict(title=dict(text=ui.raw("fig.reuse.y_batched", lang)), tickformat=".0%",
                    rangemode="tozero", domain=[0.0, 0.33], anchor="x2"),
    )
    return fig


def tradeoff_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 6: per-user speed (1000 / TPOT p50, tok/s) against machine output tok/s; one
    line per engine, each point labelled with its concurrency."""
    if analysis.tiers.empty or "tpot_p50_ms" not in analysis.tiers.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = Marks()
    xs: list[float] = []
    ys: list[float] = []
    points: list[tuple[np.ndarray, np.ndarray]] = []
    for engine, rows, excluded in seen.tier_rows(analysis):
        tpot = float_column(rows, "tpot_p50_ms")
        per_user = np.where(tpot > 0, 1000.0 / np.where(tpot > 0, tpot, np.nan), np.nan)
        conc = float_column(rows, "concurrency")
        synth = seen.synthetic_points(analysis, "tiers", engine, conc, "tpot_p50_ms",
                                      "output_tok_s")
        notes = [n[0] for n in excluded_notes(excluded, ui, lang, synth)]
        xs += list(float_column(rows, "output_tok_s"))
        ys += list(per_user)
        points.append((float_column(rows, "output_tok_s"), per_user))
        fig.add_trace(Scatter(
            x=float_column(rows, "output_tok_s"), y=per_user, mode="lines+markers+text",
            name=labels[engine].get(lang), text=end_labels(analysis, ui, lang, conc,
                                                                 float_column(rows, "output_tok_s"),
                                                                 per_user),
            textposition="top right", textfont=dict(size=11, color=color[engine]),
            line=dict(color=color[engine], width=2.5),
            marker=tier_marker(color[engine], excluded, synth),
            customdata=custom_data(tpot, notes),
            hovertemplate=ui.raw("fig.tradeoff.hover", lang),
        ))
    declutter(fig, xs, ys, points)
    seen.legends(fig, ui, lang)
    base_layout(fig, ui, "tradeoff", lang)
    fig.update_layout(
        xaxis=log_axis(xs, ui.raw("fig.tradeoff.x", lang)),
        yaxis=log_axis(ys, ui.raw("fig.tradeoff.y", lang)),
    )
    return fig
