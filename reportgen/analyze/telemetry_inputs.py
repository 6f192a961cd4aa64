"""Each configuration's telemetry on the results' local clock: which GPU samples the tier table
integrates (DCGM when it can be aligned, else nvidia-smi), its engine gauges, and an
``AlignmentNote`` for every file that could not be placed (no UTC offset, no timestamps, no
sample near any run, no run end time in the results)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from reportgen.analyze.telemetry import (
    MARGIN_S,
    AlignmentNote,
    near_windows,
    run_span,
    utc_to_local,
)
from reportgen.files.paths import display_path
from reportgen.load.records import EngineData


@dataclass(frozen=True)
class TelemetryInputs:
    gpus: dict[str, tuple[pd.DataFrame, str]] = field(default_factory=dict)  # (samples, source)
    series: dict[str, pd.DataFrame] = field(default_factory=dict)            # engine gauges
    notes: tuple[AlignmentNote, ...] = ()

    def kv_samples(self, windows: pd.DataFrame, margin_s: float = MARGIN_S) -> pd.DataFrame:
        """engine, timestamp, kv_usage around each configuration's runs (the timeline)."""
        parts = []
        for engine, frame in self.series.items():
            span = run_span(windows, engine, margin_s)
            if span is None or frame["kv_usage"].isna().all():
                continue
            lo, hi = span
            keep = (frame["timestamp"] >= lo) & (frame["timestamp"] <= hi)
            parts.append(pd.DataFrame({"engine": engine, "timestamp": frame["timestamp"][keep],
                                       "kv_usage": frame["kv_usage"][keep]}))
        if not parts:
            return pd.DataFrame(columns=["engine", "timestamp", "kv_usage"])
        return pd.concat(parts, ignore_index=True)


def telemetry_inputs(engines: Mapping[str, EngineData], offset_min: float | None,
                     windows: pd.DataFrame, root: Path) -> TelemetryInputs:
    """``root``: the round folder (how a file is named in a note)."""
    gpus: dict[str, tuple[pd.DataFrame, str]] = {}
    series: dict[str, pd.DataFrame] = {}
    notes: list[AlignmentNote] = []
    for engine, data in engines.items():
        tele = data.telemetry
        files = ", ".join(tele.files) if tele is not None else ""
        if not (windows["engine"] == engine).any():
            # SGLang's JSONL and most clients record no run end time: nothing to align to
            have = [*(tele.files if tele is not None else ()),
                    *([display_path(data.files.gpu_csv, root)]
                      if data.files.gpu_csv is not None else [])]
            if have:
                notes.append(AlignmentNote(engine, "no_window", ", ".join(have)))
            continue
        if tele is not None and tele.untimed:
            notes.append(AlignmentNote(engine, "untimed", ", ".join(tele.untimed)))
        stamped = tele is not None and not (tele.dcgm.empty and tele.engine.empty)
        if stamped and offset_min is None:
            notes.append(AlignmentNote(engine, "no_offset", files))
        elif stamped and tele is not None:
            dcgm = _placed(tele.dcgm, offset_min or 0.0, windows, engine)
            if dcgm is not None:
                gpus[engine] = (dcgm, "DCGM")
            gauges = _placed(tele.engine, offset_min or 0.0, windows, engine)
            if gauges is not None:
                series[engine] = gauges
            if dcgm is None and gauges is None:
                notes.append(AlignmentNote(engine, "outside", files))
        if engine not in gpus and data.gpu is not None and len(data.gpu) \
                and "timestamp" in data.gpu.columns:
            if near_windows(data.gpu["timestamp"], windows, engine):
                gpus[engine] = (data.gpu, "nvidia-smi")
            else:
                csv = data.files.gpu_csv
                notes.append(AlignmentNote(engine, "outside", display_path(csv, root)
                                           if csv is not None else "gpu.csv"))
    return TelemetryInputs(gpus, series, tuple(notes))


def _placed(frame: pd.DataFrame, offset_min: float, windows: pd.DataFrame, engine: str
            ) -> pd.DataFrame | None:
    """UTC-stamped samples on the results' local clock, or None when there are none or none
    lies near ``engine``'s runs."""
    if not len(frame):
        return None
    local = frame.assign(timestamp=utc_to_local(frame["time_s"], offset_min))
    return local if near_windows(local["timestamp"], windows, engine) else None
