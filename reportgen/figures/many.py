"""Line figures of many configurations: their curves merged into a few traces.

Beyond ``MANY_SERIES`` configurations a line figure drew one trace and one legend entry per
configuration (64 × 12 tiers: 64–128 traces, 300–470 ms to draw, a long task on every legend
click). The palette has seven colours, so the legend named no curve anyway. Here the traces
that differ only in their name and per-point values (one per configuration, of one colour
and style) become one trace each, their points separated by a NaN gap (plotly.js breaks a
line there); each point's hover names its configuration (``hovertext`` in the hover's
``<extra>`` box); one legend entry ("64 configurations") shows and hides them all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from reportgen.figures.base import MUTED, Fig, Scatter, plotly_node, trace_values

MANY_SERIES = 16   # the sample has 2 configurations, a sweep of 64 draws merged curves
GROUP = "configurations"

Path = tuple[str, ...]


def _per_point(trace: dict[str, Any], n: int) -> tuple[dict[str, Any], dict[Path, list[Any]]]:
    """The trace split into its shared properties (nested) and its per-point values (a list
    or a typed array of the trace's length ``n``, at any depth), by path."""
    points: dict[Path, list[Any]] = {}

    def walk(node: dict[str, Any], at: Path) -> dict[str, Any]:
        shared: dict[str, Any] = {}
        for key, value in node.items():
            path = (*at, key)
            if isinstance(value, dict) and "bdata" in value:
                got = trace_values(value)
                if got.size == n:
                    points[path] = got.tolist()
                    continue
            elif isinstance(value, list) and len(value) == n and n > 1:
                points[path] = list(value)
                continue
            shared[key] = walk(value, path) if isinstance(value, dict) else value
        return shared

    return walk(trace, ()), points


def _numeric(value: Any) -> bool:
    """A typed array, or a list of numbers and gaps (a category axis is never merged)."""
    if isinstance(value, dict):
        return "bdata" in value
    return isinstance(value, list) and all(
        v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in value)


def _signature(shared: dict[str, Any], paths: list[Path]) -> str:
    rest = {k: v for k, v in shared.items() if k not in ("name", "customdata")}
    return json.dumps([rest, sorted(paths)], sort_keys=True, default=str)


def _set(node: dict[str, Any], path: Path, value: Any) -> None:
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _merged(traces: list[tuple[dict[str, Any], dict[Path, list[Any]], str]]) -> dict[str, Any]:
    """One trace of several: per-point values concatenated with a gap point between two
    curves (NaN x and y; any other property repeats the curve's first value)."""
    shared = json.loads(json.dumps(traces[0][0]))
    names: list[str] = []
    columns: dict[Path, list[Any]] = {path: [] for path in traces[0][1]}
    for i, (_, points, name) in enumerate(traces):
        n = len(points[("x",)])
        gap = i < len(traces) - 1
        names += [name] * n + ([name] if gap else [])
        for path, values in points.items():
            filler = math.nan if path in (("x",), ("y",)) else values[0]
            columns[path] += values + ([filler] if gap else [])
    for path, values in columns.items():
        if path in (("x",), ("y",)):
            _set(shared, path, plotly_node({"v": np.asarray(values, dtype=float)})["v"])
        else:
            _set(shared, path, values)
    # the name in the hover's side box, as a trace's own name was (hovertext: only the
    # names go into the other language's patch, not the customdata they would join)
    shared["hovertext"] = names
    shared["hovertemplate"] = f"{shared.get('hovertemplate', '')}<extra>%{{hovertext}}</extra>"
    shared["name"] = traces[0][2]
    shared["legendgroup"] = GROUP
    shared["showlegend"] = False
    # plotly.py's key order: properties by name, ``type`` last
    return {**{key: shared[key] for key in sorted(shared) if key != "type"},
            "type": shared.get("type", "scatter")}


def _configuration(name: str, labels: list[str]) -> str:
    """The configuration a trace's name names (``vLLM BF16 measured`` → ``vLLM BF16``), else
    the name: the hover says which configuration, its template already says what."""
    return next((label for label in labels if label and label in name), name)


def merge_series(fig: Fig, label: str, labels: Iterable[str] = ()) -> None:
    """Merge ``fig``'s like traces (see the module) in place; ``label`` names the one legend
    entry that stands for them, ``labels`` are the configurations' labels (a point's hover
    names the one its trace's name holds). Traces with no hover template, no x, or a style of
    their own are kept as they are."""
    known = sorted(labels, key=len, reverse=True)   # "vLLM tp1 #10" before "vLLM tp1 #1"
    groups: dict[str, list[int]] = {}
    split: dict[int, tuple[dict[str, Any], dict[Path, list[Any]], str]] = {}
    for i, trace in enumerate(fig.data):
        if trace.get("type", "scatter") != "scatter" or "hovertemplate" not in trace \
                or "<extra>" in str(trace["hovertemplate"]) or trace.get("showlegend") is False:
            continue
        if not (_numeric(trace.get("x")) and _numeric(trace.get("y"))):
            continue
        n = len(trace_values(trace.get("x")))
        if n == 0 or len(trace_values(trace.get("y"))) != n:
            continue
        shared, points = _per_point(trace, n)
        if ("x",) not in points or ("y",) not in points or "customdata" in shared \
                or "hovertext" in shared or ("hovertext",) in points:
            continue
        split[i] = (shared, points, _configuration(str(trace.get("name", "")), known))
        groups.setdefault(_signature(shared, list(points)), []).append(i)
    merging = [ids for ids in groups.values() if len(ids) > 1]
    if not merging:
        return
    first = {ids[0]: ids for ids in merging}
    gone = {i for ids in merging for i in ids[1:]}
    out: list[dict[str, Any]] = []
    legend_added = False
    for i, trace in enumerate(fig.data):
        if i in gone:
            continue
        if i not in first:
            out.append(trace)
            continue
        if not legend_added:
            legend_added = True
            out.append(Scatter(x=[None], y=[None], mode="lines", name=label,
                               line=dict(color=MUTED, width=2.5), hoverinfo="skip",
                               legendgroup=GROUP, showlegend=True))
        out.append(_merged([split[j] for j in first[i]]))
    fig.data = out
