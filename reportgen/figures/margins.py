"""The margins a figure's labels need, set before plotly.js draws it, so it is drawn once.

plotly.js's automargin draws a figure, measures how far its tick labels, axis titles and legend
reach past the layout's margins and, when a margin has to grow, draws the whole figure again:
on the sample page every figure was drawn twice. Here the left and bottom margins are sized
from the labels' text (tick labels as plotly.js will write them, axis titles, legend entries),
measured with DejaVu Sans' advance widths, which are wider than the usual UI fonts', so the
margin is usually already wide enough and the first draw is the only one. automargin stays on:
a label wider than estimated (another font, a narrow screen that wraps the legend) still
grows its margin and is never clipped; that figure is drawn twice, as before.

The template's legend is horizontal, below the plot by a share of the plot's height (paper
y < 0, anchored at its top): the bottom margin that holds it follows from plotly.js's own
equation for a push at a paper position, with the figure's height and top margin.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import numpy as np

# DejaVu Sans advance widths in em (what headless Chromium on Linux draws system-ui with).
_NARROW = frozenset(".,:;!|'ijlIft ()[]")
_WIDTHS = {"%": 0.95, "-": 0.36, "/": 0.34, "m": 0.97, "w": 0.82, "W": 0.99, "M": 0.86,
           **dict.fromkeys("−+=×÷<>~±", 0.84)}
TICK_FONT_PX = 12     # template: font size 12
# measured in Chromium with the template (ticklen 4, title 13 px, standoff 10, automargin's
# 12 px pad): a y axis' push is its widest tick label plus Y_TITLED (Y_UNTITLED without a
# title); a bottom x axis pushes X_TITLED (X_UNTITLED), one more line per extra label line
Y_TITLED, Y_UNTITLED = 39.0, 19.0
X_TITLED, X_UNTITLED = 54.0, 34.0
LINE_PX = 15.0        # one more line of 12 px tick labels or of a title
LEGEND_ROW_PX, LEGEND_PAD_PX = 19.0, 11.0   # one row: 30 px high
PUSH_PAD_PX = 12.0    # automargin's pad around every push
DEFAULT_HEIGHT_PX = 450.0   # plotly.js's layout.height
LEGEND_ITEM_PX = 40.0  # a legend entry's symbol and gaps, besides its text
LEGEND_GAP_PX, LEGEND_GROUP_GAP_PX = 5.0, 10.0   # between entries; between rows of groups
FIGURE_WIDTH_PX = 1000.0  # a figure's width on a desktop page (legend rows are counted for it)
_TAG = re.compile(r"<[^>]*>")


def text_px(text: str, size: float = TICK_FONT_PX) -> float:
    """The width of one line of plotly text (markup dropped) at ``size`` px."""
    em = 0.0
    for ch in _TAG.sub("", text):
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            em += 1.0
        elif ch in _WIDTHS:
            em += _WIDTHS[ch]
        elif ch in _NARROW:
            em += 0.32
        elif ch.isdigit():
            em += 0.64
        elif ch.isupper():
            em += 0.74
        else:
            em += 0.62
    return em * size


def _lines(text: str) -> list[str]:
    return re.split(r"<br\s*/?>", text, flags=re.I) if text else [""]


def _number(v: float, decimals: int) -> str:
    """A tick value as plotly.js's default format writes it (SI suffix from 10^4)."""
    a = abs(v)
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e4, "k")):
        if a >= scale:
            s = f"{v / (scale if suffix != 'k' else 1e3):.{max(decimals - 3, 0)}f}"
            return s + suffix
    return f"{v:.{max(decimals, 0)}f}"


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = span / ticks
    p = 10 ** math.floor(math.log10(raw))
    return cast(float, next(m * p for m in (1, 2, 5, 10) if m * p >= raw))


def tick_labels(axis: Mapping[str, Any], values: np.ndarray) -> list[str] | None:
    """The tick labels plotly.js will write on ``axis`` for these data values (a range it
    sets wins), or None when they cannot be told here (dates, categories of numbers)."""
    if "ticktext" in axis:
        return [str(t) for t in axis["ticktext"]]
    kind = axis.get("type", "linear")
    if kind in ("date", "multicategory"):
        return None
    fmt = str(axis.get("tickformat", ""))
    rng = axis.get("range")
    finite = values[np.isfinite(values)]
    if rng is not None and len(rng) == 2 and kind != "log":
        lo, hi = float(rng[0]), float(rng[1])
    elif finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        if kind == "log":
            finite = finite[finite > 0]
            if not finite.size:
                return None
            lo, hi = float(finite.min()), float(finite.max())
            return [_number(10.0 ** e, 0) for e in
                    range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
        if axis.get("rangemode") == "tozero":
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        pad = (hi - lo) * 0.1 or abs(hi) * 0.1 or 1.0   # autorange's padding, at most
        lo, hi = lo - (pad if lo < 0 else 0.0), hi + pad
    else:
        return None
    step = _nice_step(hi - lo) if hi > lo else 1.0
    decimals = max(0, -math.floor(math.log10(step)))
    ends = (math.ceil(lo / step) * step, math.floor(hi / step) * step)
    pct = re.fullmatch(r"\.(\d)%", fmt)
    if pct:
        return [f"{v * 100:.{int(pct.group(1))}f}%" for v in ends]
    return [_number(v, decimals) for v in ends]


def _axis_values(data: Iterable[Mapping[str, Any]], ref: str, letter: str,
                 values: Callable[[Any], np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """The numbers and the category strings the traces on axis ``ref`` ('y', 'y2') plot."""
    nums: list[np.ndarray] = []
    cats: list[str] = []
    for t in data:
        if t.get(f"{letter}axis", letter) != ref:
            continue
        v = t.get(letter)
        if isinstance(v, list) and any(isinstance(c, str) for c in v):
            cats += [str(c) for c in v if isinstance(c, str)]
        else:
            nums.append(values(v))
    return (np.concatenate(nums) if nums else np.array([], dtype=float)), cats


def _axes(layout: Mapping[str, Any], letter: str) -> list[tuple[str, Mapping[str, Any]]]:
    keys = [k for k in layout if re.fullmatch(rf"{letter}axis\d*", k)] or [f"{letter}axis"]
    return [(k, layout.get(k) or {}) for k in keys]


def _at_edge(axis: Mapping[str, Any], layout: Mapping[str, Any], other: str) -> bool:
    """Whether an axis sits on the figure's left (y) or bottom (x) edge: its anchor's domain
    starts at 0 (or it is free at position 0) and it is on the default side."""
    if axis.get("side") in ("right", "top") or axis.get("overlaying"):
        return False
    anchor = str(axis.get("anchor", other))
    if anchor == "free":
        return float(axis.get("position", 0)) == 0.0
    dom = (layout.get(other + "axis" + anchor[1:]) or {}).get("domain", [0, 1])
    return float(dom[0]) == 0.0


def _title(axis: Mapping[str, Any]) -> str:
    title = axis.get("title")
    return str(title.get("text", "")) if isinstance(title, Mapping) else ""


def legend_height(layout: Mapping[str, Any], data: list[Mapping[str, Any]],
                  plot_width: float) -> float:
    """The height of the horizontal legend (0: no legend), laid out as plotly.js does: all
    entries in one row when they fit; else, ungrouped, in columns as wide as the widest entry;
    grouped (any legendgroup), each group a column of its entries, groups flowing in rows
    LEGEND_GROUP_GAP_PX apart."""
    entries = [t for t in data if t.get("showlegend") is not False and t.get("visible", True)]
    grouped = any(t.get("legendgroup") for t in data)
    shown = layout.get("showlegend")
    if shown is None:
        shown = bool(entries) and len(entries) > (0 if grouped else 1)
    if not shown or not entries:
        return 0.0
    widths = [LEGEND_ITEM_PX + max(text_px(line) for line in _lines(str(t.get("name", ""))))
              for t in entries]
    if grouped:
        groups: dict[str, list[float]] = {}
        for i, (t, w) in enumerate(zip(entries, widths, strict=True)):
            groups.setdefault(str(t.get("legendgroup") or f"\0{i}"), []).append(w)
        rows: list[int] = []
        used = 0.0
        for ws in groups.values():
            w = max(ws) + LEGEND_GAP_PX
            if not rows or (used and used + w > plot_width):
                rows.append(0)
                used = 0.0
            rows[-1] = max(rows[-1], len(ws))
            used += w
        return (LEGEND_PAD_PX + LEGEND_ROW_PX * sum(rows)
                + LEGEND_GROUP_GAP_PX * (len(rows) - 1))
    if sum(widths) + LEGEND_GAP_PX * (len(widths) - 1) < plot_width:
        return LEGEND_PAD_PX + LEGEND_ROW_PX
    per_row = max(1, int(plot_width // (max(widths) + LEGEND_GAP_PX)))
    return LEGEND_PAD_PX + LEGEND_ROW_PX * math.ceil(len(widths) / per_row)


def _legend_bottom(legend: Mapping[str, Any], legend_px: float, height: float, top: float
                   ) -> float | None:
    """The bottom margin that holds a legend ``legend_px`` high placed below the plot at paper
    y = −Y, anchored at its top: plotly.js pairs its push (size S at −Y) with the top margin
    T (at 1), so b = (S − Y·T + Y·H) / (1 + Y) for a figure H px high. None: placed otherwise
    (automargin alone sizes it)."""
    y = float(legend.get("y", 1.0))
    if (legend.get("orientation") != "h" or legend.get("yanchor") != "top" or y >= 0
            or legend.get("yref", "paper") != "paper"):
        return None
    size = legend_px + PUSH_PAD_PX
    return (size + y * top - y * height) / (1 - y)


def fitted_margins(fig: Mapping[str, Any], base: Mapping[str, float],
                   values: Callable[[Any], np.ndarray],
                   legend: Mapping[str, Any] | None = None) -> dict[str, int]:
    """``base`` (the template's margins under the figure's own) with the left and bottom
    grown to what the labels need; ``values`` decodes a trace's x or y to floats; ``legend``
    is the legend's placement (the template's under the figure's own)."""
    layout: Mapping[str, Any] = fig.get("layout", {})
    data: list[Mapping[str, Any]] = list(fig.get("data", []))
    margin = {k: float(v) for k, v in base.items()}
    left = margin.get("l", 0.0)
    for key, axis in _axes(layout, "y"):
        if not _at_edge(axis, layout, "x") or axis.get("visible") is False:
            continue
        nums, cats = _axis_values(data, "y" + key[5:], "y", values)
        labels = cats or tick_labels(axis, nums)
        if labels is None:
            continue
        title = _title(axis)
        extra = Y_TITLED + LINE_PX * (len(_lines(title)) - 1) if title else Y_UNTITLED
        widest = max((text_px(line) for lbl in labels for line in _lines(lbl)), default=0.0)
        left = max(left, widest + extra)
    bottom = 0.0
    for _key, axis in _axes(layout, "x"):
        if not _at_edge(axis, layout, "y") or axis.get("visible") is False:
            continue
        title = _title(axis)
        need = X_TITLED + LINE_PX * (len(_lines(title)) - 1) if title else X_UNTITLED
        if axis.get("type") == "date":
            need += LINE_PX        # plotly.js writes the day under the first time label
        labels = axis.get("ticktext")
        if labels:
            need += LINE_PX * (max(len(_lines(str(t))) for t in labels) - 1)
        bottom = max(bottom, need)
    legend_px = legend_height(layout, data, FIGURE_WIDTH_PX - left - margin.get("r", 0.0))
    if legend_px and legend is not None:
        height = float(layout.get("height", DEFAULT_HEIGHT_PX))
        held = _legend_bottom(legend, legend_px, height, margin.get("t", 0.0))
        bottom = max(bottom, held or 0.0)
    margin["l"] = left
    margin["b"] = max(margin.get("b", 0.0), bottom)
    return {k: math.ceil(v) for k, v in margin.items()}
