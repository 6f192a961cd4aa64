"""What the figures share: engine labels and colours, a tier's rows and marks (excluded ○,
synthetic †), the tier and log axes (an inf request rate drawn one step past the last tier).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analyze.result import Analysis
from reportgen.figures.base import INK, MUTED, PALETTE, Fig, Scatter, plotly_text
from reportgen.frames import rows_by_engine
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.i18n import UI


def engine_labels(analysis: Analysis) -> dict[str, Bi]:
    """engine id → its label, from the Analysis (the one owner of engine labels), escaped
    for Plotly (``plotly_text``)."""
    return {eid: Bi(*(plotly_text(label.get(lang)) for lang in LANGS))
            for eid, label in analysis.labels().items()}


def engine_order(analysis: Analysis) -> list[str]:
    return [str(e) for e in analysis.engines["id"]]


def colors(analysis: Analysis) -> dict[str, str]:
    return {e: PALETTE[i % len(PALETTE)] for i, e in enumerate(engine_order(analysis))}


def engine_rows(frame: pd.DataFrame, engine: str) -> pd.DataFrame:
    if frame is None or frame.empty or "engine" not in frame.columns:
        return pd.DataFrame()
    rows = frame[frame["engine"] == engine]
    return rows.sort_values("concurrency", kind="stable") if "concurrency" in rows else rows


def excluded_mask(rows: pd.DataFrame) -> np.ndarray:
    if "excluded" not in rows.columns:
        return np.zeros(len(rows), dtype=bool)
    column = rows["excluded"]
    if column.dtype == np.bool_:  # the usual case, without fillna/astype (many engines)
        return column.to_numpy(dtype=bool, copy=True)
    return column.fillna(False).astype(bool).to_numpy()


def float_column(rows: pd.DataFrame, name: str) -> np.ndarray:
    if name not in rows.columns:
        return np.full(len(rows), np.nan)
    column = rows[name]
    if column.dtype == np.float64:  # already numbers: to_numeric would return them unchanged
        return column.to_numpy(dtype=float, copy=True)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def marker_symbols(excluded: np.ndarray, base: str = "circle",
             synthetic: np.ndarray | None = None) -> list[str]:
    """Open markers for excluded tiers; a cross inside (`circle-x`) for points computed from
    declared-synthetic input."""
    synth = synthetic if synthetic is not None else np.zeros(len(excluded), dtype=bool)
    return [base + ("-x" if s else "") + ("-open" if x else "")
            for x, s in zip(excluded, synth, strict=True)]


def excluded_notes(excluded: np.ndarray, ui: UI, lang: str,
           synthetic: np.ndarray | None = None) -> list[list[str]]:
    note = ui.raw("fig.excluded_hover", lang)
    mark = ui.raw("fig_marks.synthetic_hover", lang)
    synth = synthetic if synthetic is not None else np.zeros(len(excluded), dtype=bool)
    return [[(note if x else "") + (mark if s else "")]
            for x, s in zip(excluded, synth, strict=True)]


def _synthetic(analysis: Analysis, frame: str, engine: str, conc: np.ndarray,
               *columns: str) -> np.ndarray:
    """Which points rest on declared-synthetic input (any of ``columns`` of ``frame``)."""
    synth = analysis.synthetic
    if not synth.names:
        return np.zeros(len(conc), dtype=bool)
    return np.array([any(synth.cell(frame, engine, c, col) for col in columns) for c in conc],
                    dtype=bool)


def _synthetic_legend(fig: Fig, ui: UI, lang: str) -> None:
    fig.add_trace(Scatter(
        x=[None], y=[None], mode="markers", name=ui.raw("fig_marks.synthetic_legend", lang),
        marker=dict(symbol="circle-x", size=9, color=MUTED, line=dict(width=1, color="#fff")),
        hoverinfo="skip", showlegend=True,
    ))


def tiers_axis(values: list[float], title: str, inf_at: float | None = None
                ) -> dict[str, Any]:
    ticks = sorted({float(v) for v in values if math.isfinite(v) and v > 0})
    return dict(type="log", title=dict(text=title), tickvals=ticks,
                ticktext=["∞" if v == inf_at else f"{v:g}" for v in ticks])


def log_axis(values: Any, title: str) -> dict[str, Any]:
    """A log axis labelled on the 1–2–5 sequence spanning the data (plotly's default log ticks
    crowd the minor digits)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr) & (arr > 0)]
    axis: dict[str, Any] = dict(type="log", title=dict(text=title))
    if not arr.size:
        return axis
    lo, hi = math.floor(math.log10(arr.min())), math.ceil(math.log10(arr.max()))
    ticks = [m * 10.0 ** e for e in range(lo, hi + 1) for m in (1, 2, 5)
             if arr.min() / 1.5 <= m * 10.0 ** e <= arr.max() * 1.5]
    if sum(arr.min() <= t <= arr.max() for t in ticks) < 2:
        # less than a 1–2–5 step of range: ticks on the data's own span (inside it, so the
        # autorange shows them), labelled to 4 significant digits
        span = sorted({float(t) for t in np.geomspace(arr.min(), arr.max(), 3)})
        axis.update(tickvals=span, ticktext=[f"{t:,.4g}" for t in span])
        return axis
    if ticks:
        axis.update(tickvals=ticks, ticktext=[f"{t:,.10g}" for t in ticks])
    return axis


def end_labels(analysis: Analysis, ui: UI, lang: str, tiers: np.ndarray, x: np.ndarray,
                y: np.ndarray) -> list[str]:
    """Point labels of a curve: its first and last tier only (labels of crowded saturated
    points overprint; hover has every tier), the last only when it lies apart from the first
    on the log–log plane; named as the axis names them."""
    rate = analysis.round.axis == "request_rate"
    inf_at = drawn_inf_at(analysis)

    def name(c: float) -> str:
        if rate:
            return ui.raw("fig.every.rate_point", lang, c="∞" if c == inf_at else f"{c:g}")
        return f"C={c:g}"
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    idx = np.flatnonzero(ok)
    out = [""] * len(tiers)
    if not idx.size:
        return out
    first, last = int(idx[0]), int(idx[-1])
    out[first] = name(float(tiers[first]))
    apart = max(abs(math.log10(x[last] / x[first])), abs(math.log10(y[last] / y[first])))
    if last != first and apart > 0.08:   # ≈ 20 %: far enough for two labels
        out[last] = name(float(tiers[last]))
    return out


def declutter(fig: Fig, xs: list[float], ys: list[float],
               points: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Across the curves of a log–log figure, drop a point label that would overprint one
    kept before it (several configurations starting at the same rate or concurrency): a
    label keeps clear of the others by a share of each axis's span; hover still names every
    point."""
    def span(values: list[float]) -> tuple[float, float]:
        finite = [math.log10(v) for v in values if math.isfinite(v) and v > 0]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        return lo, max(hi - lo, 1e-9)

    (x0, dx), (y0, dy) = span(xs), span(ys)
    kept: list[tuple[float, float]] = []
    for trace, (tx, ty) in zip(fig.data, points, strict=True):   # one (x, y) per trace
        text = trace.get("text")
        if not isinstance(text, list):
            continue
        out = list(text)
        for i, label in enumerate(text):
            if not label:
                continue
            x, y = float(tx[i]), float(ty[i])
            px, py = (math.log10(x) - x0) / dx, (math.log10(y) - y0) / dy
            if any(abs(px - kx) < 0.12 and abs(py - ky) < 0.06 for kx, ky in kept):
                out[i] = ""
            else:
                kept.append((px, py))
        trace["text"] = out


def _tier_rows(analysis: Analysis) -> Iterator[tuple[str, pd.DataFrame, np.ndarray]]:
    """(engine, its tier rows, excluded mask) in figure order, skipping engines with no tiers."""
    by_engine = rows_by_engine(analysis.tiers)
    for engine in engine_order(analysis):
        rows = by_engine.get(engine)
        if rows is not None and not rows.empty:
            yield engine, rows, excluded_mask(rows)


def excluded_legend(fig: Fig, ui: UI, lang: str) -> None:
    fig.add_trace(Scatter(
        x=[None], y=[None], mode="markers", name=ui.raw("fig.excluded_legend", lang),
        marker=dict(symbol="circle-open", size=9, color=MUTED, line=dict(width=2)),
        hoverinfo="skip", showlegend=True,
    ))


class Marks:
    """Whether a figure drew an excluded or a synthetic point: each adds its legend entry."""

    def __init__(self) -> None:
        self.excluded = False
        self.synthetic = False

    def note_excluded(self, mask: np.ndarray) -> None:
        self.excluded |= bool(mask.any())

    def note_synthetic(self, mask: np.ndarray) -> None:
        self.synthetic |= bool(mask.any())

    def tier_rows(self, analysis: Analysis) -> Iterator[tuple[str, pd.DataFrame, np.ndarray]]:
        """``_tier_rows``, noting the excluded tiers."""
        for engine, rows, excluded in _tier_rows(analysis):
            self.note_excluded(excluded)
            yield engine, rows, excluded

    def synthetic_points(self, analysis: Analysis, frame: str, engine: str, conc: np.ndarray,
                  *columns: str) -> np.ndarray:
        """``_synthetic``, noting the synthetic points."""
        mask = _synthetic(analysis, frame, engine, conc, *columns)
        self.note_synthetic(mask)
        return mask

    def legends(self, fig: Fig, ui: UI, lang: str) -> None:
        if self.excluded:
            excluded_legend(fig, ui, lang)
        if self.synthetic:
            _synthetic_legend(fig, ui, lang)


def _cross_color(fill: str) -> str:
    """A colour that stands out on ``fill`` (a ``#rrggbb``): white on dark fills, ink on light
    ones. The cross of a ``-x`` symbol is drawn in the marker's line colour, so on a filled
    marker it must not be the fill colour, or the † mark is invisible."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 160 else INK


def marker_line(color: str, excluded: np.ndarray,
                 synth: np.ndarray | None) -> dict[str, Any]:
    """The markers' outline: the curve's colour, except on filled synthetic points, whose
    cross (and rim) take a contrasting colour; open (excluded) markers keep the curve's
    colour, their cross is drawn on the background."""
    crossed = np.zeros(len(excluded), dtype=bool) if synth is None else \
        np.asarray(synth, dtype=bool) & ~np.asarray(excluded, dtype=bool)
    if not crossed.any():
        return dict(width=2, color=color)
    return dict(width=[1.5 if c else 2 for c in crossed],
                color=[_cross_color(color) if c else color for c in crossed])


def marker_size(size: int, excluded: np.ndarray, synth: np.ndarray | None) -> int | list[int]:
    """Filled synthetic points are drawn larger, so the fill shows around their cross."""
    if synth is None or not (np.asarray(synth, dtype=bool) & ~np.asarray(excluded,
                                                                          dtype=bool)).any():
        return size
    return [size + 4 if s and not x else size for x, s in zip(excluded, synth, strict=True)]


def tier_marker(color: str, excluded: np.ndarray, synth: np.ndarray) -> dict[str, Any]:
    """A curve's markers: open for excluded tiers, crossed for synthetic ones."""
    return dict(size=marker_size(9, excluded, synth), color=color,
                symbol=marker_symbols(excluded, synthetic=synth),
                line=marker_line(color, excluded, synth))


def base_layout(fig: Fig, ui: UI, kind: str, lang: str, height: int = 460) -> None:
    fig.update_layout(title=dict(text=ui.raw(f"fig.{kind}.title", lang)), height=height,
                      uirevision="keep")


def all_tiers(analysis: Analysis) -> list[float]:
    return [float(c) for c in analysis.tiers["concurrency"]] if len(analysis.tiers) else []


def custom_data(*columns: Any) -> list[list[Any]]:
    """customdata rows (one per point) of plain Python values; NaN → None for valid JSON."""
    def plain(v: Any) -> Any:
        if isinstance(v, str):
            return v
        f = float(v)
        return None if math.isnan(f) else f

    return [[plain(v) for v in row] for row in zip(*columns, strict=True)]


def _inf_at(tiers: pd.DataFrame) -> float | None:
    """Where an inf request rate is drawn: one step (×2) past the largest finite tier, so it
    stays the last point of a log axis (labelled ∞)."""
    if tiers.empty:
        return None
    x = pd.to_numeric(tiers["concurrency"], errors="coerce").to_numpy(dtype=float)
    if not np.isinf(x).any():
        return None
    finite = x[np.isfinite(x) & (x > 0)]
    return float(finite.max() * 2.0) if finite.size else 1.0


@dataclass(frozen=True)
class Drawn(Analysis):
    """The analysis as the figures draw it: an inf request rate moved to ``inf_at`` on the
    x axis (labelled ∞). A figure-only value, so it lives here, not in the analysis."""

    inf_at: float | None = None


def drawn_inf_at(analysis: Analysis) -> float | None:
    """Where the figures draw an inf request rate (None: the round has none)."""
    return analysis.inf_at if isinstance(analysis, Drawn) else None


def with_inf_drawn(analysis: Analysis) -> Analysis:
    at = _inf_at(analysis.tiers)
    if at is None:
        return analysis
    tiers = analysis.tiers.copy()
    tiers["concurrency"] = tiers["concurrency"].astype(float).replace(math.inf, at)
    fields = {f.name: getattr(analysis, f.name) for f in dataclasses.fields(Analysis)}
    return Drawn(**(fields | {"tiers": tiers}), inf_at=at)
