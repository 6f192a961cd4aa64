"""The plotly-dict library: figures as the plain dicts ``go.Figure.to_dict()`` returns (numeric
arrays as ``bdata``), the shared template, and ``plotly_text`` for every input string.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reportgen.text.bidi import isolate

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
    return plotly_node(dict(layout=dict(
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


def plotly_node(props: Mapping[str, Any]) -> dict[str, Any]:
    """A constructed plotly object: properties in name order, nested objects likewise."""
    return {k: plotly_node(v) if isinstance(v, Mapping) else _plain(v)
            for k, v in sorted(props.items()) if v is not None}


def _trace(kind: str, **props: Any) -> dict[str, Any]:
    return {**plotly_node(props), "type": kind}


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
        self.layout.setdefault("annotations", []).append(plotly_node(props))

    def add_hline(self, y: float, line: Mapping[str, Any], text: str,
                  font: Mapping[str, Any]) -> None:
        """What ``go.Figure.add_hline(y, line=…, annotation=dict(text=…, font=…),
        annotation_position="top left")`` adds: a full-width line and its label above it."""
        self.layout.setdefault("shapes", []).append(plotly_node(dict(
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


def trace_values(value: Any) -> np.ndarray:
    """A trace's x or y as floats (bdata decoded; a category counts as a value)."""
    if isinstance(value, Mapping) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])
                             ).astype(float)
    if isinstance(value, list | tuple | np.ndarray):
        return np.array([0.0 if isinstance(v, str) else np.nan if v is None else float(v)
                         for v in value], dtype=float)
    return np.array([], dtype=float)
