"""The analysis result: the round's facts (analyze/round_facts.py), plain frames, a flat dict of
named figures, and the constants used."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reportgen.analyze.provenance import Synthetic
from reportgen.analyze.round_facts import RoundInfo
from reportgen.analyze.telemetry import AlignmentNote
from reportgen.analyze.values import Value
from reportgen.errors import Inferred
from reportgen.slo import Slo
from reportgen.text.bilingual import Bi


@dataclass(frozen=True)
class Constant:
    """One input constant the analysis used, with where it came from (shown in the report)."""

    name: str
    value: Value
    unit: str
    provenance: Bi


@dataclass(frozen=True)
class Analysis:
    """Everything the report shows, computed from the raw files (see docs/ARCHITECTURE.md).
    Frozen: the page, figures and tables read it; a variant is a ``dataclasses.replace``."""

    round: RoundInfo
    engines: pd.DataFrame
    tiers: pd.DataFrame
    crossovers: pd.DataFrame
    graph_reuse: pd.DataFrame
    memory: pd.DataFrame
    prefill: pd.DataFrame
    checks: pd.DataFrame
    # Flat, stable dotted names -> scalar (float, int, str, bool, Bi or None); narrative
    # placeholders and headline cards resolve against this dict.
    values: dict[str, Value] = field(default_factory=dict)
    constants: list[Constant] = field(default_factory=list)
    # the value names computed from inputs round.toml declares synthetic (marked † on the page)
    synthetic: Synthetic = field(default_factory=Synthetic)
    # tok/s per user vs tok/s per GPU per tier, with the Pareto frontier (analyze/pareto.py);
    # the page draws it for rounds of many configurations
    pareto: pd.DataFrame = field(default_factory=pd.DataFrame)
    # each configuration's tok/s per GPU at fixed per-user speeds (pareto.same_speed)
    same_speed: pd.DataFrame = field(default_factory=pd.DataFrame)
    # each run of a repeated tier as its own point (pareto.run_points): the intervals of
    # same_speed, and of the speed the reader types in the page
    speed_runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the configuration every other one is compared with (crossovers); "" with fewer than two
    reference: str = ""
    # per-request latencies of every tier with arrays (distributions.tier_requests) and each
    # tier's pooled ITL gaps (s); the page embeds them for the in-browser SLO view
    requests: pd.DataFrame = field(default_factory=pd.DataFrame)
    itl_gaps: dict[tuple[str, float], np.ndarray] = field(default_factory=dict)
    # engine, concurrency, duration_s: summed duration of the runs with per-request rows
    tier_durations: pd.DataFrame = field(default_factory=pd.DataFrame)
    # percentiles per tier and metric (distributions.distribution_table)
    distributions: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the objective (CLI, round.toml [slo], a --goodput argument in the results) or None;
    # goodput / capacity_at_slo are empty without one
    slo: Slo | None = None
    goodput: pd.DataFrame = field(default_factory=pd.DataFrame)
    capacity_at_slo: pd.DataFrame = field(default_factory=pd.DataFrame)
    # configurations with runs but no per-request value, their client and why, with the
    # client's own flag that records them (goodput.missing_requests)
    no_per_request: pd.DataFrame = field(default_factory=pd.DataFrame)
    # replicas and GPUs per configuration for a load given on the command line (`tables
    # --load`; goodput.load_table), empty otherwise
    load: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the reader's $/GPU-hour (round.toml [cost], `--price`; None: none given) and, with an SLO
    # and per-request rows, $ per 1M tokens per tier (goodput.cost_table)
    price_usd_per_gpu_h: float | None = None
    cost: pd.DataFrame = field(default_factory=pd.DataFrame)
    # nvidia-smi samples per tier: power, energy per output token (analyze/telemetry.py)
    telemetry: pd.DataFrame = field(default_factory=pd.DataFrame)
    # what the timeline figure draws: engine, timestamp, index, power_draw_w samples inside the
    # round's run windows (± a minute), and the windows (engine, concurrency, start, end)
    telemetry_samples: pd.DataFrame = field(default_factory=pd.DataFrame)
    telemetry_windows: pd.DataFrame = field(default_factory=pd.DataFrame)
    # what could not be aligned (analyze/telemetry.py AlignmentNote), round.toml's UTC offset
    # (minutes; None: not stated) and the engines' KV usage over time (engine, timestamp,
    # kv_usage) for the timeline
    telemetry_notes: tuple[AlignmentNote, ...] = ()
    telemetry_offset_min: float | None = None
    telemetry_kv: pd.DataFrame = field(default_factory=pd.DataFrame)

    def labels(self) -> dict[str, Bi]:
        """Engine id → its label (the engines table's ``label``; an empty language falls back
        to the other, then to the id). The one place figures and page read engine labels
        from."""
        out: dict[str, Bi] = {}
        if "id" not in self.engines.columns:
            return out
        given = self.engines["label"] if "label" in self.engines.columns else \
            [None] * len(self.engines)
        for eid, label in zip(self.engines["id"].astype(str), given, strict=True):
            zh = label.zh if isinstance(label, Bi) and label.zh else eid
            en = label.en if isinstance(label, Bi) and label.en else zh
            out[eid] = Bi(zh, en)
        return out


@dataclass
class RoundAnalysis:
    """A round's analysis: one ``Analysis`` per workload (runs of other lengths or datasets
    are never drawn on one curve), plus what describes the whole round — the runs used, the
    files skipped and why, and the settings inferred from the files."""

    parts: list[Analysis]
    runs: pd.DataFrame | None
    axis: str
    skipped: list[tuple[str, str]] = field(default_factory=list)
    inferred: list[Inferred] = field(default_factory=list)

    @property
    def first(self) -> Analysis:
        return self.parts[0]
