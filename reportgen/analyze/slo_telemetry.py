"""A round's SLO tables (goodput, capacity at the SLO) and its telemetry (the runs' windows, the
per-tier table, the timeline's samples).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from reportgen.analyze.goodput import (
    capacity_table,
    goodput_table,
    slo_values,
    tier_rates,
    with_replicas,
)
from reportgen.analyze.telemetry import (
    TELEMETRY_COLUMNS,
    combine,
    run_windows,
    telemetry_samples,
    tier_engine,
    tier_telemetry,
)
from reportgen.analyze.telemetry_inputs import TelemetryInputs, telemetry_inputs
from reportgen.load.manifest import Manifest
from reportgen.load.records import LoadedRound
from reportgen.slo import Slo, goodput_arguments


def round_telemetry(loaded: LoadedRound) -> tuple[pd.DataFrame, TelemetryInputs, pd.DataFrame,
                                              pd.DataFrame]:
    """The runs' windows, the telemetry inputs placed on them, the per-tier telemetry table and
    the timeline's samples."""
    manifest, engines = loaded.manifest, loaded.engines
    windows = run_windows(loaded.summary)
    inputs = telemetry_inputs(engines, manifest.utc_offset_min, windows,
                              manifest.path.parent)
    gpu_frames = {e: frame for e, (frame, _) in inputs.gpus.items()}
    parts = [combine(tier_telemetry(gpu_frames.get(spec.id), windows, spec.id,
                                    inputs.gpus[spec.id][1] if spec.id in inputs.gpus else ""),
                     tier_engine(inputs.series.get(spec.id), windows, spec.id))
             for spec in manifest.engines]
    telemetry = pd.concat([p for p in parts if len(p)], ignore_index=True) \
        if any(len(p) for p in parts) else pd.DataFrame(columns=list(TELEMETRY_COLUMNS))
    samples = telemetry_samples(gpu_frames, windows)
    return windows, inputs, telemetry, samples


def slo_tables(manifest: Manifest, summary: pd.DataFrame, per_request: pd.DataFrame,
                durations: pd.DataFrame, tiers: pd.DataFrame, gpus: Mapping[str, int],
                values: dict[str, Any]
                ) -> tuple[Slo | None, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """The SLO (round.toml's, else the results'), the goodput and capacity-at-SLO tables under
    it, and the values with the SLO's names added."""
    order = [e.id for e in manifest.engines]
    slo = manifest.slo or _slo_in_results(summary)
    if slo is not None and manifest.slo is None and manifest.slo_target is not None:
        slo = dataclasses.replace(slo, target=manifest.slo_target)
    goodput = pd.DataFrame()
    capacity_at_slo = pd.DataFrame()
    if slo is not None and len(per_request):
        goodput = goodput_table(per_request, durations, slo)
        excluded = [(e, float(c)) for e, cs in manifest.exclude_from_conclusions.items()
                    for c in cs]
        capacity_at_slo = with_replicas(capacity_table(goodput, slo.target, order, excluded),
                                        tier_rates(tiers), gpus)
        values = dict(sorted((values | slo_values(
            slo, goodput, capacity_at_slo,
            {e.id: e.label.en for e in manifest.engines})).items()))
    return slo, goodput, capacity_at_slo, values


def _slo_in_results(summary: pd.DataFrame) -> Slo | None:
    """A vLLM ``--goodput`` argument a result record carries (its ``--metadata goodput=…``
    pair: vLLM itself saves only the resulting ``request_goodput``), first record first."""
    if "metadata" not in summary.columns:
        return None
    for source, meta in zip(summary["source"], summary["metadata"], strict=True):
        if isinstance(meta, Mapping) and isinstance(meta.get("goodput"), str):
            found = goodput_arguments(meta["goodput"])
            if found is not None:
                return dataclasses.replace(found, source=f"{source} (goodput)")
    return None
