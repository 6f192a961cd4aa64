"""The previous round beside this one ("Since the previous round"): the records and the pure
comparison. ``Source`` is an opened baseline (a tables dict, or figures as published);
``from_tables`` turns a tables dict into a ``Baseline``; ``compare`` puts it beside this round's
values (set-up rows that differ, headline figures with deltas, the ``baseline.*`` / ``since.*``
narrative names). Opening files and rounds is reportgen.sources.baseline's job; this module
reads none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

import pandas as pd

from reportgen.text.bilingual import Bi

Scalar = float | int | str | bool | None
Value = Scalar | Bi   # Bi for bilingual text (read from the tables' {zh, en})

# Setup rows: (value name with {e} for each engine, UI key under [since.setup]).
SETUP: tuple[tuple[str, str], ...] = (
    ("setup.gpu", "gpu"), ("setup.gpu_count", "gpu_count"), ("setup.model", "model"),
    ("setup.input_tokens", "input_tokens"), ("setup.output_tokens", "output_tokens"),
    ("setup.client", "client"), ("setup.concurrency", "tiers"),
    ("setup.tier_count", "tier_count"), ("setup.requests_total", "requests"),
    ("setup.driver", "driver"), ("setup.cuda", "cuda"),
    ("engines.{e}.version", "version"), ("engines.{e}.commit", "commit"),
    ("engines.{e}.dtype", "dtype"), ("engines.{e}.quant", "quant"),
    ("engines.{e}.slots", "slots"), ("engines.{e}.context", "context"),
    ("engines.{e}.prompt_cache", "prompt_cache"),
)
# Headline figures: (value name, UI key under [since.figure], number format).
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("crossover.concurrency", "crossover", ".1f"),
    ("engines.{e}.itl_p50_c1_ms", "step", ".2f"),
    ("step_ratio.measured", "step_ratio", ".2x"),
    ("engines.{e}.efficiency_cmax", "efficiency", "pct"),
    ("batching.efficiency_ratio", "efficiency_ratio", ".1x"),
    ("engines.{e}.ms_per_slot", "ms_per_slot", ".3f"),
    ("setup.failed_total", "failed", "d"),
    # Published by some old rounds; reportgen has no raw input that measures it.
    ("engines.{e}.prompt_cache_hit_frac", "prompt_cache_hits", "pct"),
)
# tiers columns drawn as the baseline's dashed curves
CURVE_COLUMNS = ("engine", "concurrency", "output_tok_s", "itl_p50_ms", "wait_ratio",
                 "tpot_p50_ms", "excluded")


@dataclass(frozen=True)
class Baseline:
    title: Bi
    date: str
    as_published: bool
    source: Bi | None            # where "as published" values were printed
    values: dict[str, Value]     # only names of SETUP / FIGURES (engine ids filled in)
    notes: dict[str, Bi]         # per value name: what the published value covers
    labels: dict[str, Bi]        # engine id → label
    tiers: pd.DataFrame          # CURVE_COLUMNS; empty when only published figures exist


@dataclass(frozen=True)
class ComparisonRow:
    name: str                    # value name, e.g. "engines.llamacpp.efficiency_cmax"
    key: str                     # UI key
    engine: str | None
    old: Value
    new: Value
    spec: str = ""
    note: Bi | None = None


@dataclass(frozen=True)
class Comparison:
    baseline: Baseline
    setup: list[ComparisonRow]             # settings that differ (or that only the baseline states)
    unchanged: list[ComparisonRow]         # settings equal on both sides
    figures: list[ComparisonRow]
    labels: dict[str, Bi]        # engine labels, this round's first
    values: dict[str, Value] = field(default_factory=dict)  # baseline.* and since.* names


@dataclass(frozen=True)
class Missing:
    """round.toml names a baseline that is not there: the section says so."""

    path: str


@dataclass(frozen=True)
class Source:
    """An opened baseline: a tables dict (round folder or report) or published figures."""

    tables: Mapping[str, object] | None = None
    published: Baseline | None = None

    def for_workload(self, workload: str | None = None) -> Baseline:
        if self.published is not None:
            return self.published
        return from_tables(self.tables or {}, workload)


def _scalar(value: object) -> Value:
    """A compared value: a number, text, or bilingual text (this round's ``Bi``, or the
    ``{zh, en}`` of tables read back)."""
    if value is None or isinstance(value, bool | int | float | str | Bi):
        return value
    if isinstance(value, Mapping) and set(value) == {"zh", "en"} and \
            all(isinstance(v, str) for v in value.values()):
        return Bi.read(value)
    return None


def engine_ids(names: Mapping[str, object]) -> list[str]:
    return list(dict.fromkeys(k.split(".")[1] for k in names
                              if k.startswith("engines.") and k.count(".") >= 2))


def known_value(values: Mapping[str, object], engines: list[str]) -> dict[str, Value]:
    """The compared names a values dict holds (engine ids filled in)."""
    out: dict[str, Value] = {}
    for name in [n for n, _ in SETUP] + [n for n, _, _ in FIGURES]:
        for full in ([name.format(e=e) for e in engines] if "{e}" in name else [name]):
            if full in values:
                out[full] = _scalar(values[full])
    return out


def from_tables(tables: Mapping[str, object], workload: str | None = None) -> Baseline:
    """A baseline from a ``reportgen.tables`` dict (a report's data block or a round)."""
    info = tables.get("round")
    info = info if isinstance(info, Mapping) else {}
    values = tables.get("values")
    values = dict(values) if isinstance(values, Mapping) else {}
    rows = tables.get("tiers")
    tiers = pd.DataFrame(rows if isinstance(rows, list) else [])
    workloads = info.get("workloads")
    ids = [w["id"] for w in workloads if isinstance(w, Mapping) and isinstance(w.get("id"), str)] \
        if isinstance(workloads, list) else []
    if ids:   # several workloads: this one, else the first
        chosen = cast(str, workload if workload in ids else ids[0])
        values = {k[len(chosen) + 1:]: v for k, v in values.items()
                  if k.startswith(f"{chosen}/")}
        if "workload" in tiers.columns:
            tiers = tiers[tiers["workload"] == chosen]
    labels: dict[str, Bi] = {}
    engines_rows = tables.get("engines")
    for row in engines_rows if isinstance(engines_rows, list) else []:
        if isinstance(row, Mapping) and isinstance(row.get("id"), str):
            labels[row["id"]] = Bi.read(row.get("label"), row["id"])
    engines = list(labels) or engine_ids(values)
    curves = tiers.reindex(columns=list(CURVE_COLUMNS)) if len(tiers) else \
        pd.DataFrame(columns=list(CURVE_COLUMNS))
    for column in CURVE_COLUMNS[1:-1]:
        curves[column] = pd.to_numeric(curves[column], errors="coerce").astype(float)
    curves["excluded"] = curves["excluded"].fillna(False).astype(bool)
    return Baseline(
        title=Bi.read(info.get("title"), "—"), date=str(info.get("date") or ""),
        as_published=False, source=None, values=known_value(values, engines), notes={},
        labels=labels, tiers=curves.reset_index(drop=True))


def is_text(value: object) -> bool:
    if isinstance(value, str):
        return bool(value)
    return isinstance(value, dict) and set(value) == {"zh", "en"} and \
        all(isinstance(v, str) and v for v in value.values())


# ----------------------------------------------------------------------------- comparing

def _missing(value: Value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return math.nan
    return float(value)


def _equal(a: Value, b: Value) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def compare(baseline: Baseline, values: Mapping[str, object],
            labels: Mapping[str, Bi]) -> Comparison:
    """This round's ``values`` (and engine ``labels``, in page order) beside the baseline."""
    engines = list(labels) + [e for e in baseline.labels if e not in labels]
    all_labels = {e: labels.get(e) or baseline.labels[e] for e in engines}
    current = known_value(values, engines)
    setup: list[ComparisonRow] = []
    unchanged: list[ComparisonRow] = []
    for name, key in SETUP:
        for e in ([e for e in engines] if "{e}" in name else [None]):
            full = name.format(e=e)
            old, new = baseline.values.get(full), current.get(full)
            if _missing(old) and _missing(new):
                continue
            row = ComparisonRow(full, key, e, old, new, note=baseline.notes.get(full))
            if _missing(old) and baseline.as_published:
                continue            # the old report never said: not a difference
            (unchanged if _equal(old, new) else setup).append(row)
    figures: list[ComparisonRow] = []
    for name, key, spec in FIGURES:
        for e in ([e for e in engines] if "{e}" in name else [None]):
            full = name.format(e=e)
            old, new = baseline.values.get(full), current.get(full)
            if _missing(old) and (baseline.as_published or _missing(new)):
                continue
            figures.append(ComparisonRow(full, key, e, old, new, spec, baseline.notes.get(full)))
    return Comparison(baseline, setup, unchanged, figures, all_labels,
                      narrative_values(baseline, current, engines))


def delta(row: ComparisonRow) -> tuple[float, float]:
    """(new − old, new / old − 1); NaN where either side is not a number."""
    old, new = _number(row.old), _number(row.new)
    ratio = new / old - 1 if old not in (0.0,) and math.isfinite(old) else math.nan
    return new - old, ratio


def narrative_values(baseline: Baseline, current: Mapping[str, Value],
                     engines: list[str]) -> dict[str, Value]:
    """``baseline.<name>`` for every compared name (missing → NaN, so prose never breaks on a
    figure the old round did not publish), ``since.<name>.delta`` / ``.change`` for numbers,
    ``baseline.title`` and ``baseline.as_published``."""
    out: dict[str, Value] = {"baseline.title": baseline.title,
                             "baseline.as_published": baseline.as_published}
    numeric = {n for n, _, _ in FIGURES} | {"setup.tier_count", "setup.requests_total",
                                            "setup.gpu_count", "setup.input_tokens",
                                            "setup.output_tokens"}
    for name in [n for n, _ in SETUP] + [n for n, _, _ in FIGURES]:
        for e in (engines if "{e}" in name else [None]):
            full = name.format(e=e)
            old = baseline.values.get(full)
            out[f"baseline.{full}"] = math.nan if old is None else old
            if name in numeric:
                d, r = delta(ComparisonRow(full, "", e, old, current.get(full)))
                out[f"since.{full}.delta"] = d
                out[f"since.{full}.change"] = r
    return dict(sorted(out.items()))


def empty_values(engines: list[str]) -> dict[str, Value]:
    """The same names with nothing behind them: a round whose configured baseline is missing
    still loads its narrative (the section then shows only the note)."""
    empty = Baseline(Bi.plain("—"), "", False, None, {}, {}, {},
                     pd.DataFrame(columns=list(CURVE_COLUMNS)))
    return narrative_values(empty, {}, engines)
