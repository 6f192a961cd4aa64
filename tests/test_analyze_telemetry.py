"""GPU telemetry per tier: trapezoids over each run's window, the validity rules, and the
sample round's vLLM tiers against a computation this test makes from the raw files."""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from reportgen.analyze.telemetry import window_energy
from reportgen.pipeline import analyze_dir

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"


def test_trapezoids_with_interpolated_edges() -> None:
    t = np.array([0.0, 1.0, 2.0, 3.0])
    p = np.array([100.0, 100.0, 200.0, 200.0])
    # edges interpolated: 100 W at 0.5 s, 200 W at 2.5 s → 50 + 150 + 100 J
    assert window_energy(t, p, 0.5, 2.5) == (pytest.approx(300.0), 2, "ok")


def test_not_measured_rather_than_guessed() -> None:
    t = np.array([0.0, 1.0, 2.0])
    p = np.array([100.0, 100.0, 100.0])
    energy, _, status = window_energy(t, p, -1.0, 2.0)
    assert math.isnan(energy) and status == "not_bracketed"
    # a 5 s hole in an 8 s window: more than 3 s (and 5 % of 8 s)
    energy, _, status = window_energy(np.array([0.0, 5.0, 10.0]), np.full(3, 50.0), 1.0, 9.0)
    assert math.isnan(energy) and status == "gap"


def _own_energy(samples: list[tuple[float, float]], start: float, end: float) -> float:
    """Trapezoids written out by hand over the samples and the interpolated window edges."""
    def at(x: float) -> float:
        for (t0, p0), (t1, p1) in itertools.pairwise(samples):
            if t0 <= x <= t1:
                return p0 + (p1 - p0) * (x - t0) / (t1 - t0)
        raise AssertionError("window not covered")
    points = [(start, at(start))] + [s for s in samples if start < s[0] < end] + [(end, at(end))]
    return sum((p0 + p1) / 2 * (t1 - t0)
               for (t0, p0), (t1, p1) in itertools.pairwise(points))


def test_sample_energy_per_token_from_the_raw_files() -> None:
    with (SAMPLE / "vllm" / "gpu.csv").open() as f:
        rows = list(csv.reader(f))[1:]
    epoch = dt.datetime(2026, 1, 1)
    samples = [((dt.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f") - epoch)
                .total_seconds(), float(r[7].strip().split()[0])) for r in rows]
    bench = next((SAMPLE / "vllm" / "bench").glob("*concurrency1-*.json"))
    record = json.loads(bench.read_text())
    end = (dt.datetime.strptime(record["date"], "%Y%m%d-%H%M%S") - epoch).total_seconds()
    start = end - record["duration"]
    energy = _own_energy(samples, start, end)
    tele = analyze_dir(SAMPLE).analysis.first.telemetry
    row = tele[(tele["engine"] == "vllm") & (tele["concurrency"] == 1)].iloc[0]
    assert row["status"] == "ok"
    assert row["energy_j"] == pytest.approx(energy, rel=1e-9)
    assert row["mean_power_w"] == pytest.approx(energy / record["duration"], rel=1e-9)
    assert row["energy_per_output_token_j"] == pytest.approx(
        energy / record["total_output_tokens"], rel=1e-9)
    # llama.cpp has no gpu.csv in the sample: no telemetry rows for it
    assert set(tele["engine"]) == {"vllm"}
