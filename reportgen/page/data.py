"""NaN-safe reads from an Analysis for the page: an engine's rows and tiers, its facts, named
values. Every frame is filtered once (the page reads the same rows hundreds of times)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import pandas as pd

from reportgen.analyze.provenance import Synthetic
from reportgen.analyze.result import Analysis
from reportgen.analyze.round_facts import EngineFacts, RoundInfo
from reportgen.analyze.values import Value
from reportgen.frames import rows_by_engine
from reportgen.text.bidi import has_bidi, isolate
from reportgen.text.bilingual import Bi


def num(value: object) -> float:
    """``value`` as a float; NaN for anything that is not a number."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


class Data:
    """Convenient, NaN-safe reads from an Analysis."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.round: RoundInfo = analysis.round
        self.values: Mapping[str, Value] = analysis.values
        self.tiers: pd.DataFrame = analysis.tiers
        self.engines: pd.DataFrame = analysis.engines
        self.synthetic: Synthetic = analysis.synthetic
        self.order: list[str] = [str(e) for e in self.engines["id"]] if len(self.engines) else []
        self.labels: dict[str, Bi] = analysis.labels()
        pair = self.round.primary_pair
        if pair is not None:
            self.pair: tuple[str, str] | None = pair
        elif len(self.order) >= 2:
            self.pair = (self.order[0], self.order[1])
        else:
            self.pair = None
        # The page reads the same few rows hundreds of times: filter each frame once.
        self._own: dict[str, pd.DataFrame] | None = None
        self._splits: dict[int, tuple[pd.DataFrame, dict[str, pd.DataFrame]]] = {}
        self._tiers_by_c: dict[str, dict[float, Mapping[str, Any]]] | None = None
        self._engine_rows: dict[Any, Mapping[str, Any]] | None = None
        self._concs: list[float] | None = None
        self._records: dict[int, dict[str, list[dict[str, Any]]]] = {}

    def label(self, engine: Any) -> Bi:
        label = self.labels.get(str(engine), Bi.plain(str(engine)))
        # a label inside a sentence must not reorder the rest of it
        return Bi(isolate(label.zh), isolate(label.en)) if has_bidi(label.zh + label.en) \
            else label

    def engine(self, engine: str) -> Mapping[str, Any]:
        if self._engine_rows is None:
            self._engine_rows = {}
            if "id" in self.engines.columns:
                for i, eid in enumerate(self.engines["id"]):
                    if eid not in self._engine_rows:   # the first row of an id wins
                        # the analysis names its columns with str
                        self._engine_rows[eid] = cast(dict[str, Any],
                                                      self.engines.iloc[i].to_dict())
        try:
            return self._engine_rows.get(engine, {})
        except TypeError:   # unhashable: matches no id
            return {}

    def engine_facts(self, engine: str) -> EngineFacts:
        """The configuration's facts; none known (every fact None) when the round has none."""
        return self.round.engine(engine) or EngineFacts(id=engine)

    def rows(self, engine: str, frame: pd.DataFrame | None = None) -> pd.DataFrame:
        """An engine's rows of ``frame`` (default: tiers) by concurrency. Read-only: the tiers
        rows are shared between callers."""
        if frame is None:
            if self._own is None:
                self._own = rows_by_engine(self.tiers)
            if engine not in self._own:  # no rows: the empty filtered frame, with its columns
                self._own[engine] = self._filter(self.tiers, engine)
            return self._own[engine]
        # Other frames (prefill, graph reuse) are split once too; the frame is kept with its
        # split so that its id cannot be reused by another frame while this Data lives.
        if id(frame) not in self._splits:
            self._splits[id(frame)] = (frame, rows_by_engine(frame))
        own = self._splits[id(frame)][1].get(engine)
        return self._filter(frame, engine) if own is None else own

    def records(self, engine: str, frame: pd.DataFrame | None = None) -> list[dict[str, Any]]:
        """``rows(engine, frame)`` as plain dicts (read-only, like ``rows``): the whole frame
        converted once, sorted by concurrency (stable) and split by engine as
        ``rows_by_engine`` splits it (a ``to_dict`` per table and configuration was the page
        stage's largest cost at 64 configurations, and one per configuration still cost a
        column look-up per column each)."""
        whole = self.tiers if frame is None else frame
        key = id(whole)
        if key not in self._records:
            self.rows(engine, frame)   # keeps a non-default frame alive: its id stays its own
            split: dict[str, list[dict[str, Any]]] = {}
            if not whole.empty and "engine" in whole.columns:
                ordered = whole.sort_values("concurrency", kind="stable") \
                    if "concurrency" in whole else whole
                for row in cast(list[dict[str, Any]], ordered.to_dict("records")):
                    split.setdefault(str(row["engine"]), []).append(row)
            self._records[key] = split
        got = self._records[key].get(engine)
        if got is None:   # no rows of its own: what rows() gives (an empty frame)
            got = cast(list[dict[str, Any]], self.rows(engine, frame).to_dict("records"))
        return got

    @staticmethod
    def _filter(frame: pd.DataFrame | None, engine: str) -> pd.DataFrame:
        if frame is None or frame.empty or "engine" not in frame.columns:
            return pd.DataFrame()
        own = frame[frame["engine"] == engine]
        return own.sort_values("concurrency", kind="stable") if "concurrency" in own else own

    def tier(self, engine: str, c: float) -> Mapping[str, Any]:
        """The engine's first row at concurrency ``c`` ({} when there is none)."""
        if self._tiers_by_c is None:
            self._tiers_by_c = self._index_tiers()
        if isinstance(c, str | bytes):
            return {}
        try:
            return self._tiers_by_c.get(engine, {}).get(num(c), {})
        except TypeError:   # unhashable: matches no engine
            return {}

    def _index_tiers(self) -> dict[str, dict[float, Mapping[str, Any]]]:
        """engine → concurrency → the first tiers row there, in the tiers frame's order (the
        order ``rows`` keeps among equal tiers). One to_dict for the whole frame: a row at a
        time cost ~0.1 ms each, a to_dict per engine ~4 ms."""
        index: dict[str, dict[float, Mapping[str, Any]]] = {}
        if self.tiers.empty or "engine" not in self.tiers.columns:
            return index
        # the analysis names its columns with str
        for row in cast(list[dict[str, Any]], self.tiers.to_dict("records")):
            key = num(row["concurrency"])
            own = index.setdefault(row["engine"], {})
            if not math.isnan(key) and key not in own:
                own[key] = row
        return index

    def concurrencies(self) -> list[float]:
        if self._concs is None:
            self._concs = [] if self.tiers.empty else \
                sorted({float(c) for c in self.tiers["concurrency"]})
        return list(self._concs)

    def excluded(self, engine: str, c: float) -> bool:
        return bool(self.tier(engine, c).get("excluded", False))

    def v(self, name: str) -> Value:
        return self.values.get(name, math.nan)
