"""The report's Plotly figures, built from the Analysis once per language.

Figures are built directly as the plain dicts ``plotly.graph_objects.Figure.to_dict()`` returns
(numeric arrays as ``bdata``, keys in plotly's order), without plotly.py's per-property
validation, which cost a third of a sample build; tests/test_figures_plotly_schema.py runs every
figure through ``go.Figure`` instead, so an attribute typo still fails — in the suite. The layout
template is sent once for all figures; see ``figures_payload``. Ids are fixed by kind, so a figure
keeps its id whether or not another one is present:

    fig-1 output throughput vs concurrency (log–log, crossover marked)
    fig-2 measured ITL p50 vs roofline floor per engine
    fig-3 memory split per engine against GPU memory
    fig-4 wait ratio per tier
    fig-5 CUDA-graph reuse (both step bases) vs roofline attainment
    fig-6 latency–throughput: tok/s per user (1000 / TPOT p50) vs output tok/s
    fig-7 Pareto view (rounds of PARETO_MIN_CONFIGURATIONS or more): tok/s per user (1000 /
          TPOT p50, as fig-6) vs tok/s per GPU for every tier, the frontier drawn

Tiers excluded from conclusions are drawn with open markers and say so in the hover text and in
a legend entry. Every label comes from the UI string table; every number from the Analysis;
every string from the input (engine labels) passes ``plotly_text``, as Plotly renders markup.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from reportgen.analyze.checks import tier_label
from reportgen.analyze.compare import Baseline
from reportgen.analyze.ranking import is_single_point, ranking
from reportgen.analyze.result import Analysis
from reportgen.bidi import isolate
from reportgen.figure_margins import FIGURE_WIDTH_PX, fitted_margins, text_px
from reportgen.figure_set import BuiltFigure, FigureSet
from reportgen.formatting import fmt, fmt_latency_ms
from reportgen.frames import rows_by_engine
from reportgen.i18n import UI, figure_patches
from reportgen.text import LANGS, Bi

FONT = ('system-ui,-apple-system,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei",'
        '"Noto Sans CJK SC","WenQuanYi Micro Hei",sans-serif')
PALETTE = ("#2563eb", "#ea580c", "#059669", "#9333ea", "#dc2626", "#0891b2", "#ca8a04")
INK, MUTED, GRID = "#1f2937", "#6b7280", "#e5e7eb"

def template() -> dict[str, Any]:
    """The one layout template shared by all figures (sent once to the page), as
    ``go.layout.Template(...).to_plotly_json()`` gives it."""
    axis = dict(showgrid=True, gridcolor=GRID, zeroline=False, showline=True, linecolor="#9ca3af",
                ticks="outside", tickcolor="#9ca3af", ticklen=4, automargin=True,
                title=dict(font=dict(size=13, color=MUTED), standoff=10))
    return _node(dict(layout=dict(
        font=dict(family=FONT, size=12, color=INK),
        paper_bgcolor="#ffffff", plot_bgcolor="#ffffff", colorway=list(PALETTE),
        title=dict(x=0, xanchor="left", xref="container", y=1, yref="container", yanchor="top",
                   pad=dict(t=14, l=14), font=dict(size=15, color=INK)),
        xaxis=axis, yaxis=axis,
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.2, yanchor="top",
                    bgcolor="rgba(255,255,255,0)", font=dict(size=12)),
        margin=dict(l=64, r=28, t=52, b=56),
        hoverlabel=dict(font=dict(family=FONT, size=12), align="left"),
        hovermode="closest",
    )))


# ------------------------------------------------------------------- plotly's dict form
# plotly.py stores what a constructor (go.Scatter, go.layout.Annotation, …) receives in property
# name order, ``type`` last for traces; ``update_layout`` keeps call order but gives compound
# properties (dict values) their slot before plain ones; ``to_dict`` turns numpy arrays into
# typed-array specs. The helpers below reproduce that, so the page's bytes are the ones the
# go.Figure version produced.

_TYPED = {"float64": "f8", "float32": "f4", "int32": "i4", "int16": "i2", "int8": "i1",
          "uint32": "u4", "uint16": "u2", "uint8": "u1"}


def _plain(value: Any) -> Any:
    """A property value as ``to_dict`` shows it: arrays as {dtype, bdata}, numpy scalars and
    tuples as Python values and lists."""
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return []
        if value.dtype in (np.int64, np.uint64):   # plotly.js has no 64-bit integer arrays
            lo, hi = value.min(), value.max()
            kinds = (np.int8, np.int16, np.int32) if value.dtype == np.int64 else \
                (np.uint8, np.uint16, np.uint32)
            kind = next((k for k in kinds if np.iinfo(k).min <= lo and hi <= np.iinfo(k).max),
                        None)
            if kind is None:
                return value.tolist()
            value = value.astype(kind)
        code = _TYPED.get(str(value.dtype))
        if code is None:
            return value.tolist()
        raw = np.ascontiguousarray(value)   # a buffer; pandas-stubs' ndarray type says otherwise
        spec = {"dtype": code, "bdata": base64.b64encode(raw).decode()}  # type: ignore[arg-type]
        if value.ndim > 1:
            spec["shape"] = str(value.shape)[1:-1]
        return spec
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _node(props: Mapping[str, Any]) -> dict[str, Any]:
    """A constructed plotly object: properties in name order, nested objects likewise."""
    return {k: _node(v) if isinstance(v, Mapping) else _plain(v)
            for k, v in sorted(props.items()) if v is not None}


def _trace(kind: str, **props: Any) -> dict[str, Any]:
    return {**_node(props), "type": kind}


def Scatter(**props: Any) -> dict[str, Any]:  # named like go.Scatter
    return _trace("scatter", **props)


def Bar(**props: Any) -> dict[str, Any]:
    return _trace("bar", **props)


def _update(target: dict[str, Any], updates: Mapping[str, Any]) -> None:
    """``update_layout`` semantics: nested dicts merge; compound properties take their place
    in ``target`` first, in the order given, then plain ones are set."""
    for key, value in updates.items():
        if isinstance(value, Mapping) and not isinstance(target.get(key), dict):
            target[key] = {}
    for key, value in updates.items():
        if isinstance(value, Mapping):
            _update(target[key], value)
        elif value is not None:
            target[key] = _plain(value)


@dataclass
class Fig:
    """A figure under construction, as the dict ``go.Figure.to_dict()`` would give (no
    template: the page sends one shared template)."""

    data: list[dict[str, Any]] = field(default_factory=list)
    layout: dict[str, Any] = field(default_factory=dict)

    def add_trace(self, trace: dict[str, Any]) -> None:
        self.data.append(trace)

    def add_annotation(self, **props: Any) -> None:
        self.layout.setdefault("annotations", []).append(_node(props))

    def add_hline(self, y: float, line: Mapping[str, Any], text: str,
                  font: Mapping[str, Any]) -> None:
        """What ``go.Figure.add_hline(y, line=…, annotation=dict(text=…, font=…),
        annotation_position="top left")`` adds: a full-width line and its label above it."""
        self.layout.setdefault("shapes", []).append(_node(dict(
            type="line", x0=0, x1=1, xref="x domain", y0=y, y1=y, yref="y", line=line)))
        self.add_annotation(font=font, showarrow=False, text=text, x=0, xanchor="left",
                            xref="x domain", y=y, yanchor="bottom", yref="y")

    def update_layout(self, **updates: Any) -> None:
        _update(self.layout, updates)

    def to_dict(self) -> dict[str, Any]:
        return {"data": self.data, "layout": self.layout}


@dataclass(frozen=True)
class FigureSpec:
    id: str
    kind: str
    figure: Fig


# ------------------------------------------------------------------------------- helpers

# plotly.js draws every text (trace names, tick and category labels, annotations, hover text,
# legend) through svg_text_utils.convertToTspans: it splits the string on `<…>` tags, turns
# <a href>, <span style>, <b>, <br> … into SVG elements, and decodes entities (&lt; &gt; &amp;
# &#NN;) in the text between tags into plain text nodes. So an entity always shows as its
# character and never becomes markup. `$…$` would be typeset as TeX if MathJax were loaded.
# `%` too: a label pasted into a hovertemplate must not become a `%{y}` field that shows
# another value; plotly.js fills the fields first, then decodes `&#37;` to a plain `%`.
_PLOTLY_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;",
                                 "%": "&#37;"})


def plotly_text(text: str) -> str:
    """An input string (engine label, file name, round.toml text) made literal for Plotly.
    Every figure builder passes every string that comes from the input through here; the UI
    strings (which hold intended markup such as <br>) are not input. A text with bidi controls
    is isolated (``bidi.isolate``) so it cannot reorder the words around it."""
    return isolate(str(text)).translate(_PLOTLY_ESCAPES)


def engine_labels(analysis: Analysis) -> dict[str, Bi]:
    """engine id → its label, from the Analysis (the one owner of engine labels), escaped
    for Plotly (``plotly_text``)."""
    return {eid: Bi(*(plotly_text(label.get(lang)) for lang in LANGS))
            for eid, label in analysis.labels().items()}


def engine_order(analysis: Analysis) -> list[str]:
    return [str(e) for e in analysis.engines["id"]]


def colors(analysis: Analysis) -> dict[str, str]:
    return {e: PALETTE[i % len(PALETTE)] for i, e in enumerate(engine_order(analysis))}


def _rows(frame: pd.DataFrame, engine: str) -> pd.DataFrame:
    if frame is None or frame.empty or "engine" not in frame.columns:
        return pd.DataFrame()
    rows = frame[frame["engine"] == engine]
    return rows.sort_values("concurrency", kind="stable") if "concurrency" in rows else rows


def _excluded(rows: pd.DataFrame) -> np.ndarray:
    if "excluded" not in rows.columns:
        return np.zeros(len(rows), dtype=bool)
    column = rows["excluded"]
    if column.dtype == np.bool_:  # the usual case, without fillna/astype (many engines)
        return column.to_numpy(dtype=bool, copy=True)
    return column.fillna(False).astype(bool).to_numpy()


def _col(rows: pd.DataFrame, name: str) -> np.ndarray:
    if name not in rows.columns:
        return np.full(len(rows), np.nan)
    column = rows[name]
    if column.dtype == np.float64:  # already numbers: to_numeric would return them unchanged
        return column.to_numpy(dtype=float, copy=True)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _symbols(excluded: np.ndarray, base: str = "circle",
             synthetic: np.ndarray | None = None) -> list[str]:
    """Open markers for excluded tiers; a cross inside (`circle-x`) for points computed from
    declared-synthetic input."""
    synth = synthetic if synthetic is not None else np.zeros(len(excluded), dtype=bool)
    return [base + ("-x" if s else "") + ("-open" if x else "")
            for x, s in zip(excluded, synth, strict=True)]


def _notes(excluded: np.ndarray, ui: UI, lang: str,
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


def _tiers_axis(values: list[float], title: str, inf_at: float | None = None
                ) -> dict[str, Any]:
    ticks = sorted({float(v) for v in values if math.isfinite(v) and v > 0})
    return dict(type="log", title=dict(text=title), tickvals=ticks,
                ticktext=["∞" if v == inf_at else f"{v:g}" for v in ticks])


def _log_axis(values: Any, title: str) -> dict[str, Any]:
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


def _end_labels(analysis: Analysis, ui: UI, lang: str, tiers: np.ndarray, x: np.ndarray,
                y: np.ndarray) -> list[str]:
    """Point labels of a curve: its first and last tier only (labels of crowded saturated
    points overprint; hover has every tier), the last only when it lies apart from the first
    on the log–log plane; named as the axis names them."""
    rate = analysis.round.axis == "request_rate"
    inf_at = _drawn_inf_at(analysis)

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


def _declutter(fig: Fig, xs: list[float], ys: list[float],
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
            yield engine, rows, _excluded(rows)


def _excluded_legend(fig: Fig, ui: UI, lang: str) -> None:
    fig.add_trace(Scatter(
        x=[None], y=[None], mode="markers", name=ui.raw("fig.excluded_legend", lang),
        marker=dict(symbol="circle-open", size=9, color=MUTED, line=dict(width=2)),
        hoverinfo="skip", showlegend=True,
    ))


class _Marks:
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
            _excluded_legend(fig, ui, lang)
        if self.synthetic:
            _synthetic_legend(fig, ui, lang)


def _cross_color(fill: str) -> str:
    """A colour that stands out on ``fill`` (a ``#rrggbb``): white on dark fills, ink on light
    ones. The cross of a ``-x`` symbol is drawn in the marker's line colour, so on a filled
    marker it must not be the fill colour, or the † mark is invisible."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 160 else INK


def _marker_line(color: str, excluded: np.ndarray,
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


def _marker_size(size: int, excluded: np.ndarray, synth: np.ndarray | None) -> int | list[int]:
    """Filled synthetic points are drawn larger, so the fill shows around their cross."""
    if synth is None or not (np.asarray(synth, dtype=bool) & ~np.asarray(excluded,
                                                                          dtype=bool)).any():
        return size
    return [size + 4 if s and not x else size for x, s in zip(excluded, synth, strict=True)]


def _tier_marker(color: str, excluded: np.ndarray, synth: np.ndarray) -> dict[str, Any]:
    """A curve's markers: open for excluded tiers, crossed for synthetic ones."""
    return dict(size=_marker_size(9, excluded, synth), color=color,
                symbol=_symbols(excluded, synthetic=synth),
                line=_marker_line(color, excluded, synth))


def _base_layout(fig: Fig, ui: UI, kind: str, lang: str, height: int = 460) -> None:
    fig.update_layout(title=dict(text=ui.raw(f"fig.{kind}.title", lang)), height=height,
                      uirevision="keep")


def _all_tiers(analysis: Analysis) -> list[float]:
    return [float(c) for c in analysis.tiers["concurrency"]] if len(analysis.tiers) else []


# ------------------------------------------------------------------------------- figures

def throughput_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 1: output tok/s vs concurrency, log–log; crossovers marked and annotated."""
    if analysis.tiers.empty:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = _Marks()
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for engine, rows, excluded in seen.tier_rows(analysis):
        x, y = _col(rows, "concurrency"), _col(rows, "output_tok_s")
        synth = seen.synthetic_points(analysis, "tiers", engine, x, "output_tok_s")
        curves[engine] = (x, y, excluded)
        spread: dict[str, Any] = {}
        if "repeats" in rows.columns and (_col(rows, "repeats") > 1).any():
            # the min–max of repeated runs around their median
            spread["error_y"] = dict(type="data", symmetric=False, visible=True,
                                     array=_col(rows, "output_tok_s_max") - y,
                                     arrayminus=y - _col(rows, "output_tok_s_min"),
                                     color=color[engine], thickness=1.5, width=4)
        fig.add_trace(Scatter(
            x=x, y=y, mode="lines+markers", name=labels[engine].get(lang),
            line=dict(color=color[engine], width=2.5),
            marker=_tier_marker(color[engine], excluded, synth),
            customdata=_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.throughput.hover", lang), **spread,
        ))
    for _, cross in analysis.crossovers.iterrows():
        c = float(cross["concurrency"])
        a = str(cross["engine_a"])
        if a not in curves or not math.isfinite(c) or c <= 0:
            continue
        y_at = _loglog_at(curves[a], c, float(cross["lower_tier"]), float(cross["upper_tier"]))
        if not math.isfinite(y_at):
            continue
        name = ui.raw("fig.throughput.crossover", lang, c=f"{c:.1f}")
        fig.add_trace(Scatter(
            x=[c], y=[y_at], mode="markers", name=name,
            marker=dict(symbol="x-thin", size=16, color=INK, line=dict(width=3, color=INK)),
            hovertemplate=ui.raw("fig.throughput.crossover_hover", lang,
                                 c=f"{c:.1f}", lo=f"{float(cross['lower_tier']):g}",
                                 hi=f"{float(cross['upper_tier']):g}") + "<extra></extra>",
        ))
        fig.add_annotation(x=math.log10(c), y=math.log10(y_at), text=name, showarrow=True,
                           arrowhead=0, arrowwidth=1, arrowcolor=MUTED, ax=48, ay=46,
                           font=dict(size=12, color=INK), bgcolor="rgba(255,255,255,0.85)")
    seen.legends(fig, ui, lang)
    _base_layout(fig, ui, "throughput", lang)
    fig.update_layout(
        xaxis=_tiers_axis(_all_tiers(analysis), ui.raw("fig.throughput.x", lang),
                         _drawn_inf_at(analysis)),
        yaxis=_log_axis(analysis.tiers["output_tok_s"], ui.raw("fig.throughput.y", lang)),
    )
    return fig


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


def _tier_series(seen: _Marks, analysis: Analysis, column: str
                 ) -> Iterator[tuple[str, pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]]:
    """Each engine's tier rows with their x values (the axis) and which points of ``column``
    rest on declared-synthetic input."""
    for engine, rows, excluded in seen.tier_rows(analysis):
        x = _col(rows, "concurrency")
        yield engine, rows, excluded, x, seen.synthetic_points(analysis, "tiers", engine, x,
                                                               column)


def itl_floor_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 2: measured ITL p50 (solid) against each engine's roofline floor (dashed)."""
    if analysis.tiers.empty or "floor_ms" not in analysis.tiers.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = _Marks()
    # the decode step (analyze/tiers.decode_step: the ITL p50 unless it is no decode step)
    step = "step_p50_ms" if "step_p50_ms" in analysis.tiers.columns else "itl_p50_ms"
    for engine, rows, excluded, x, synth in _tier_series(seen, analysis, step):
        custom = _custom(_col(rows, "floor_ms"), _col(rows, "roofline_attainment"),
                         [n[0] for n in _notes(excluded, ui, lang, synth)])
        fig.add_trace(Scatter(
            x=x, y=_col(rows, step), mode="lines+markers",
            name=ui.raw("fig.itl.measured", lang, engine=labels[engine].get(lang)),
            line=dict(color=color[engine], width=2.5),
            marker=_tier_marker(color[engine], excluded, synth),
            customdata=custom, hovertemplate=ui.raw("fig.itl.hover_measured", lang),
        ))
        fig.add_trace(Scatter(
            x=x, y=_col(rows, "floor_ms"), mode="lines",
            name=ui.raw("fig.itl.floor", lang, engine=labels[engine].get(lang)),
            line=dict(color=color[engine], width=1.5, dash="dash"),
            hovertemplate=ui.raw("fig.itl.hover_floor", lang),
        ))
    seen.legends(fig, ui, lang)
    _base_layout(fig, ui, "itl", lang)
    fig.update_layout(
        xaxis=_tiers_axis(_all_tiers(analysis), ui.raw("fig.itl.x", lang),
                         _drawn_inf_at(analysis)),
        yaxis=dict(title=dict(text=ui.raw("fig.itl.y", lang)), rangemode="tozero"),
    )
    return fig


def _custom(*columns: Any) -> list[list[Any]]:
    """customdata rows (one per point) of plain Python values; NaN → None for valid JSON."""
    def plain(v: Any) -> Any:
        if isinstance(v, str):
            return v
        f = float(v)
        return None if math.isnan(f) else f

    return [[plain(v) for v in row] for row in zip(*columns, strict=True)]


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
    seen = _Marks()
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
    if "measured_total_gib" in mem.columns and np.isfinite(_col(mem, "measured_total_gib")).any():
        marks = synth("measured_total_gib")
        seen.note_synthetic(marks)
        fig.add_trace(Scatter(
            x=names, y=_col(mem, "measured_total_gib"), mode="markers",
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
    _base_layout(fig, ui, "memory", lang)
    fig.update_layout(barmode="stack", legend=dict(traceorder="normal"),
                      yaxis=dict(title=dict(text=ui.raw("fig.memory.y", lang)), rangemode="tozero"))
    return fig


# The E2EL-based wait ratio is drawn only where it tells a different story (5 points apart).
WAIT_BASES_APART = 0.05


def wait_figure(analysis: Analysis, ui: UI, lang: str) -> Fig | None:
    """Figure 4: wait ratio (mean TPOT / ITL p50 − 1) per tier and engine."""
    if analysis.tiers.empty or "wait_ratio" not in analysis.tiers.columns:
        return None
    labels, color = engine_labels(analysis), colors(analysis)
    fig = Fig()
    seen = _Marks()
    for engine, rows, excluded, x, synth in _tier_series(seen, analysis, "wait_ratio"):
        fig.add_trace(Scatter(
            x=x, y=_col(rows, "wait_ratio"), mode="lines+markers",
            name=labels[engine].get(lang), line=dict(color=color[engine], width=2.5),
            marker=_tier_marker(color[engine], excluded, synth),
            customdata=_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.wait.hover", lang),
        ))
        implied = _col(rows, "wait_ratio_implied") if "wait_ratio_implied" in rows else None
        gap = None if implied is None else np.abs(implied - _col(rows, "wait_ratio"))
        if gap is not None and np.isfinite(gap).any() and np.nanmax(gap) > WAIT_BASES_APART:
            synth = seen.synthetic_points(analysis, "tiers", engine, x, "wait_ratio_implied")
            fig.add_trace(Scatter(
                x=x, y=implied, mode="lines+markers",
                name=ui.raw("fig.wait.implied", lang, engine=labels[engine].get(lang)),
                line=dict(color=color[engine], width=2, dash="dash"),
                marker=dict(size=_marker_size(7, excluded, synth), color=color[engine],
                            symbol=_symbols(excluded, synthetic=synth),
                            line=_marker_line(color[engine], excluded, synth)),
                customdata=_notes(excluded, ui, lang, synth),
                hovertemplate=ui.raw("fig.wait.hover_implied", lang),
            ))
    seen.legends(fig, ui, lang)
    _base_layout(fig, ui, "wait", lang, height=420)
    fig.update_layout(
        xaxis=_tiers_axis(_all_tiers(analysis), ui.raw("fig.wait.x", lang),
                         _drawn_inf_at(analysis)),
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
    seen = _Marks()
    apart = False
    for engine in engine_order(analysis):
        rows = _rows(reuse, engine)
        if rows.empty:
            continue
        tiers = _rows(analysis.tiers, engine).set_index("concurrency")
        conc = _col(rows, "concurrency")
        excluded = np.array([bool(tiers["excluded"].get(c, False)) if "excluded" in tiers
                             else False for c in conc])
        seen.note_excluded(excluded)
        label = labels[engine].get(lang)
        series = (
            ("reuse", "published", "solid", "circle"),
            ("reuse_batched", "batched", "dot", "square"),
        )
        for column, key, dash, symbol in series:
            if column not in rows.columns or not np.isfinite(_col(rows, column)).any():
                continue
            synth = seen.synthetic_points(analysis, "graph_reuse", engine, conc, column)
            # the batch-aware basis counts steps, not requests, and may rest on reconstructed
            # token counts: its own panel, so it never reads as the published measure
            panel = dict(xaxis="x2", yaxis="y2") if column == "reuse_batched" else {}
            apart = apart or bool(panel)
            fig.add_trace(Scatter(
                **panel, x=conc, y=_col(rows, column), mode="lines+markers",
                name=ui.raw(f"fig.reuse.{key}", lang, engine=label),
                line=dict(color=color[engine], width=2, dash=dash),
                marker=dict(size=_marker_size(8, excluded, synth), color=color[engine],
                            symbol=_symbols(excluded, symbol, synth),
                            line=_marker_line(color[engine], excluded, synth)),
                customdata=_notes(excluded, ui, lang, synth),
                hovertemplate=ui.raw("fig.reuse.hover", lang),
            ))
        attainment = [float(tiers["roofline_attainment"].get(c, np.nan))
                      if "roofline_attainment" in tiers else np.nan for c in conc]
        synth = seen.synthetic_points(analysis, "tiers", engine, conc, "roofline_attainment")
        fig.add_trace(Scatter(
            x=conc, y=np.asarray(attainment, dtype=float), mode="lines+markers",
            name=ui.raw("fig.reuse.attainment", lang, engine=label),
            line=dict(color=INK, width=2), yaxis="y",
            marker=dict(size=_marker_size(8, excluded, synth), color=INK,
                        symbol=_symbols(excluded, "diamond", synth),
                        line=_marker_line(INK, excluded, synth)),
            customdata=_notes(excluded, ui, lang, synth),
            hovertemplate=ui.raw("fig.reuse.hover_attainment", lang),
        ))
    if not fig.data:
        return None
    seen.legends(fig, ui, lang)
    x_axis = _tiers_axis(_all_tiers(analysis), ui.raw("fig.reuse.x", lang),
                         _drawn_inf_at(analysis))
    if not apart:
        _base_layout(fig, ui, "reuse", lang)
        fig.update_layout(
            xaxis=x_axis,
            yaxis=dict(title=dict(text=ui.raw("fig.reuse.y", lang)), tickformat=".0%",
                       rangemode="tozero"),
        )
        return fig
    _base_layout(fig, ui, "reuse", lang, height=620)
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
    seen = _Marks()
    xs: list[float] = []
    ys: list[float] = []
    points: list[tuple[np.ndarray, np.ndarray]] = []
    for engine, rows, excluded in seen.tier_rows(analysis):
        tpot = _col(rows, "tpot_p50_ms")
        per_user = np.where(tpot > 0, 1000.0 / np.where(tpot > 0, tpot, np.nan), np.nan)
        conc = _col(rows, "concurrency")
        synth = seen.synthetic_points(analysis, "tiers", engine, conc, "tpot_p50_ms",
                                      "output_tok_s")
        notes = [n[0] for n in _notes(excluded, ui, lang, synth)]
        xs += list(_col(rows, "output_tok_s"))
        ys += list(per_user)
        points.append((_col(rows, "output_tok_s"), per_user))
        fig.add_trace(Scatter(
            x=_col(rows, "output_tok_s"), y=per_user, mode="lines+markers+text",
            name=labels[engine].get(lang), text=_end_labels(analysis, ui, lang, conc,
                                                                 _col(rows, "output_tok_s"),
                                                                 per_user),
            textposition="top right", textfont=dict(size=11, color=color[engine]),
            line=dict(color=color[engine], width=2.5),
            marker=_tier_marker(color[engine], excluded, synth),
            customdata=_custom(tpot, notes),
            hovertemplate=ui.raw("fig.tradeoff.hover", lang),
        ))
    _declutter(fig, xs, ys, points)
    seen.legends(fig, ui, lang)
    _base_layout(fig, ui, "tradeoff", lang)
    fig.update_layout(
        xaxis=_log_axis(xs, ui.raw("fig.tradeoff.x", lang)),
        yaxis=_log_axis(ys, ui.raw("fig.tradeoff.y", lang)),
    )
    return fig


# The Pareto view is drawn for a round of at least this many configurations (one has nothing
# to compare).
PARETO_MIN_CONFIGURATIONS = 2


def pareto_figure(analysis: Any, ui: UI, lang: str) -> Fig | None:
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
        x=_col(points, "tok_s_per_user"), y=_col(points, "tok_s_per_gpu"), mode="markers",
        name=ui.raw("fig.pareto.all", lang),
        marker=dict(size=7, color=MUTED, opacity=0.6, symbol=_symbols(excluded)),
        customdata=custom(points), hovertemplate=hover,
    ))
    front = points[points["frontier"]].sort_values("tok_s_per_user", kind="stable")
    fig.add_trace(Scatter(
        x=_col(front, "tok_s_per_user"), y=_col(front, "tok_s_per_gpu"), mode="lines+markers",
        name=ui.raw("fig.pareto.frontier", lang), line=dict(color=PALETTE[0], width=2.5),
        marker=dict(size=9, color=PALETTE[0]), customdata=custom(front), hovertemplate=hover,
    ))
    if excluded.any():
        _excluded_legend(fig, ui, lang)
    _base_layout(fig, ui, "pareto", lang)
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
    _base_layout(fig, ui, "ranking", lang, height=max(260, 60 + 34 * len(order)))
    fig.update_layout(**layout, margin=dict(l=160, r=40), bargap=0.3)
    return fig


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
    present = set(analysis.requests["engine"])
    engines = [e for e in engine_order(analysis) if e in present]
    for i in range(len(DIST_METRICS)):
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


BUILDERS: tuple[tuple[str, str, Callable[[Any, UI, str], Fig | None]], ...] = (
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


def _drawn_inf_at(analysis: Analysis) -> float | None:
    """Where the figures draw an inf request rate (None: the round has none)."""
    return analysis.inf_at if isinstance(analysis, Drawn) else None


def _with_inf_drawn(analysis: Analysis) -> Analysis:
    at = _inf_at(analysis.tiers)
    if at is None:
        return analysis
    tiers = analysis.tiers.copy()
    tiers["concurrency"] = tiers["concurrency"].astype(float).replace(math.inf, at)
    fields = {f.name: getattr(analysis, f.name) for f in dataclasses.fields(Analysis)}
    return Drawn(**(fields | {"tiers": tiers}), inf_at=at)


def _values(value: Any) -> np.ndarray:
    """A trace's x or y as floats (bdata decoded; a category counts as a value)."""
    if isinstance(value, Mapping) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])
                             ).astype(float)
    if isinstance(value, list | tuple | np.ndarray):
        return np.array([0.0 if isinstance(v, str) else np.nan if v is None else float(v)
                         for v in value], dtype=float)
    return np.array([], dtype=float)


def _has_points(trace: Mapping[str, Any]) -> bool:
    x, y = _values(trace.get("x")), _values(trace.get("y"))
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
FILLED_META = "filled-by-slo.js"   # on each such trace: empty here, data from the page's script


def build_figures(analysis: Analysis, ui: UI, lang: str,
                  baseline: Baseline | None = None) -> list[FigureSpec]:
    """All figures the data supports, in one language; with a baseline, its curves dashed."""
    analysis = _with_inf_drawn(analysis)
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
    fig.layout["margin"] = _node(fitted_margins(fig.to_dict(), base, _values, legend))


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


def add_baseline_curves(fig: Fig, kind: str, baseline: Baseline, analysis: Any, ui: UI,
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
            tpot = _col(rows, "tpot_p50_ms")
            y = np.where(tpot > 0, 1000.0 / np.where(tpot > 0, tpot, np.nan), np.nan)
        else:
            y = _col(rows, y_col)
        x = _col(rows, x_col)
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
                        symbol=_symbols(_excluded(rows), "diamond")),
            opacity=0.75,
            hovertemplate=ui.raw("fig.baseline.hover", lang, title=title, engine=name),
        ))
        first = False
