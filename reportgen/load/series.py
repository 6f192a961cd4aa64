"""Telemetry time series (DCGM exporter, engine ``/metrics``) → one tidy frame
``name, labels, time_s, value`` (``time_s``: seconds since the epoch, UTC; NaN for a sample saved
with no timestamp), in the two forms such series are really kept:

- **Prometheus text exposition with sample timestamps** (ms since the epoch after the value),
  one or more scrapes appended to one file: what Prometheus' ``/federate`` endpoint and
  ``promtool tsdb dump`` print. Scrapes appended by ``curl … >> file`` carry no timestamps: they
  are read, but cannot be placed in time (``SeriesFile.untimed``), and the page says so.
- **Prometheus HTTP API JSON**: the answer of ``/api/v1/query_range`` (``resultType``
  ``matrix``: ``values: [[t, "v"], …]``) or ``/api/v1/query`` (``vector``: ``value: [t, "v"]``),
  or a JSON list of such answers (one per query).

The split into GPU samples (``load/dcgm.py``) and engine gauges (``load/engine_series.py``) is by
metric name, so one file may hold both.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from reportgen.errors import InputError
from reportgen.files.safe_read import SURROGATE_ESCAPE, read_input, whole_text
from reportgen.load.prometheus import canonical_labels, parse_prometheus

KIND = "series"  # its size cap in reportgen.files.safe_read.CAPS
COLUMNS = ("name", "labels", "time_s", "value")
JSON_SNIFF = (b'"resultType"', b'"result"')
# `name{labels} value timestamp_ms`: a 10+ digit epoch in ms (no real counter prints so)
STAMPED_LINE = re.compile(rb"^[a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?[ \t]+\S+[ \t]+-?\d{10,}$")


@dataclass(frozen=True)
class SeriesFile:
    """One file's samples: ``frame`` has COLUMNS; ``untimed`` counts samples with no timestamp
    (a scrape appended without one cannot be aligned to a run)."""
    shown: str
    frame: pd.DataFrame
    untimed: int


def looks_like_query_json(head: bytes) -> bool:
    """A Prometheus API answer: JSON naming a ``resultType`` and its ``result``."""
    return head.lstrip()[:1] in (b"{", b"[") and all(m in head for m in JSON_SNIFF)


def looks_timestamped(head: bytes) -> bool:
    """Prometheus text whose first sample line ends in a millisecond epoch timestamp."""
    for line in head.splitlines():
        line = line.strip()
        if line and not line.startswith(b"#"):
            return STAMPED_LINE.match(line) is not None
    return False


def load_series(path: Path, *, name: str | None = None) -> SeriesFile:
    """Read either form (decided by the first byte: ``{`` or ``[`` is JSON)."""
    shown = str(path) if name is None else name
    data = read_input(path, shown, KIND)
    if data.lstrip()[:1] in (b"{", b"["):
        frame = _from_json(data, shown)
    else:
        frame = parse_prometheus(path, name=shown, kind=KIND, with_time=True)
        frame = frame[list(COLUMNS)]
    if frame.empty:
        raise InputError(shown, "no samples (expected Prometheus text with timestamps or a "
                                "Prometheus query_range JSON answer)")
    untimed = int(np.isnan(frame["time_s"].to_numpy(float)).sum())
    return SeriesFile(shown, frame, untimed)


def _from_json(data: bytes, shown: str) -> pd.DataFrame:
    try:
        doc = json.loads(data)
        if SURROGATE_ESCAPE.search(data):   # a lone surrogate in a label: U+FFFD
            doc = whole_text(doc)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(shown, f"not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(shown, "JSON nested too deeply to be a Prometheus answer") from None
    answers = doc if isinstance(doc, list) else [doc]
    names: list[str] = []
    labels: list[str] = []
    times: list[float] = []
    values: list[float] = []
    for i, answer in enumerate(answers):
        where = f"answer {i + 1}: " if isinstance(doc, list) else ""
        body = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(body, dict) or body.get("resultType") not in ("matrix", "vector") \
                or not isinstance(body.get("result"), list):
            raise InputError(shown, f"{where}expected a Prometheus API answer "
                                    '{"data": {"resultType": "matrix" or "vector", "result": '
                                    "[…]}}")
        for series in body["result"]:
            metric = series.get("metric") if isinstance(series, dict) else None
            if not isinstance(metric, dict) or not isinstance(metric.get("__name__"), str):
                raise InputError(shown, f"{where}a series without metric.__name__ (a query "
                                        "that computed a new series names no metric)")
            pairs = series.get("values") if "values" in series else [series.get("value")]
            own = {str(k): str(v) for k, v in metric.items() if k != "__name__"}
            text = canonical_labels(own)
            for pair in cast(list[object], pairs if isinstance(pairs, list) else [None]):
                t, v = _pair(pair, shown, metric["__name__"], where)
                names.append(metric["__name__"])
                labels.append(text)
                times.append(t)
                values.append(v)
    return pd.DataFrame({"name": pd.Series(names, dtype=object),
                         "labels": pd.Series(labels, dtype=object),
                         "time_s": np.asarray(times, dtype=np.float64),
                         "value": np.asarray(values, dtype=np.float64)})


def _pair(pair: object, shown: str, metric: str, where: str) -> tuple[float, float]:
    """``[1733270400.5, "300.2"]`` → (seconds, value); the API quotes values ("NaN", "+Inf")."""
    if isinstance(pair, list) and len(pair) == 2:
        t, v = pair
        try:
            if isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t) \
                    and isinstance(v, str):
                return float(t), float(v)
        except ValueError:
            pass
    raise InputError(shown, f"{where}{metric}: expected [time, \"value\"] pairs, got "
                            f"{str(pair)[:60]!r}")


def label(labels: str, key: str) -> str | None:
    """The value of one label in a canonical ``k="v",…`` text (no escapes in GPU ids)."""
    marker = f'{key}="'
    at = labels.find(marker)
    if at < 0 or (at > 0 and labels[at - 1] != ","):
        return None
    start = at + len(marker)
    return labels[start:labels.find('"', start)]
