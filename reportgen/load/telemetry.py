"""One configuration's telemetry files (``<engine>/telemetry/*`` in the fixed layout, files the
scan took for time series elsewhere) → ``Telemetry``: DCGM GPU samples and engine gauges, both
on the UTC epoch clock, plus what could not be placed in time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from reportgen.errors import Finding
from reportgen.load.dcgm import SAMPLE_COLUMNS, dcgm_samples
from reportgen.load.engine_series import SERIES_COLUMNS, engine_series
from reportgen.load.series import load_series


@dataclass(frozen=True)
class Telemetry:
    dcgm: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=list(SAMPLE_COLUMNS)))       # load/dcgm.py SAMPLE_COLUMNS, time_s = UTC epoch
    engine: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=list(SERIES_COLUMNS)))       # load/engine_series.py SERIES_COLUMNS
    files: tuple[str, ...] = ()               # every file read, as shown
    untimed: tuple[str, ...] = ()             # files whose samples carry no timestamp

    @property
    def empty(self) -> bool:
        return self.dcgm.empty and self.engine.empty and not self.untimed


def load_telemetry(paths: Sequence[Path], show: Callable[[Path], str], engine: str,
                   findings: list[Finding]) -> Telemetry | None:
    """Every file read; one holding no DCGM field or engine gauge is a finding, not an error.
    None when ``paths`` is empty."""
    if not paths:
        return None
    dcgm, gauges, shown, untimed = [], [], [], []
    for path in paths:
        got = load_series(path, name=show(path))
        shown.append(got.shown)
        gpu, eng = dcgm_samples(got.frame), engine_series(got.frame)
        if got.untimed:
            untimed.append(got.shown)
        if gpu.empty and eng.empty:
            if not got.untimed:
                findings.append(Finding(got.shown, "no DCGM field or engine gauge this tool "
                                        "reads (see docs/telemetry.md); not used",
                                        engine=engine))
            continue
        if len(gpu):
            dcgm.append(gpu)
        if len(eng):
            gauges.append(eng)
    out = Telemetry(files=tuple(shown), untimed=tuple(untimed))
    if dcgm:
        out = Telemetry(pd.concat(dcgm, ignore_index=True).sort_values(
            ["time_s", "index"], kind="stable").reset_index(drop=True), out.engine,
            out.files, out.untimed)
    if gauges:
        out = Telemetry(out.dcgm, pd.concat(gauges, ignore_index=True).sort_values(
            "time_s", kind="stable").reset_index(drop=True), out.files, out.untimed)
    return out
