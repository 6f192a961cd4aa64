"""Engines at the same per-user speed: the speed the reader types gives, per configuration,
the tok/s per GPU that analyze/pareto.py same_speed computes at that speed (the same rule in
slo.js), "not reached" where no tier is that fast."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pagekit import build

from benchmarks.slo_round import write_random_round
from reportgen.analyze.pareto import same_speed
from reportgen.pipeline import analyze_dir


def test_a_typed_speed_equals_the_analysis(open_page: Any, tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    write_random_round(root, requests=40, tiers=(1, 4, 16, 64))
    analysis = analyze_dir(root).analysis.first
    page, watch = open_page(build(root, tmp_path / "r.html"), "?lang=en")
    page.wait_for_selector(".speed input[data-speed]", state="attached")
    shown = page.evaluate("[...document.querySelectorAll('.speed tbody tr')]"
                          ".map(tr => tr.lastElementChild.textContent)")
    assert shown == ["", ""]                               # nothing typed: nothing claimed
    for speed in ("15", "22.5", "1000"):
        page.fill(".speed input[data-speed]", speed)
        got = page.evaluate("[...document.querySelectorAll('.speed tbody tr')]"
                            ".map(tr => JSON.parse(tr.lastElementChild.dataset.v))")
        want = same_speed(analysis.pareto, ["alpha", "beta"], speeds=(float(speed),))
        assert [g[0] for g in got] == list(want["status"]), speed
        for (status, value, ci), exact in zip(got, want["tok_s_per_gpu"], strict=True):
            assert ci is None                              # one run per tier: no interval
            if status == "not_reached":
                assert value is None
            else:
                assert value == pytest.approx(float(exact), rel=1e-12)
    assert {g[0] for g in got} == {"not_reached"}          # 1000 tok/s per user: none is
    assert "not reached" in page.inner_text(".speed tbody")
    watch.assert_clean()


def test_a_typed_speed_carries_the_repeats_interval(open_page: Any, tmp_path: Path) -> None:
    """Two runs per tier (a folder per repeat) that disagree: the typed speed's interval is
    the analysis's (pareto.same_speed_repeats over each repeat's own curve)."""
    import json

    import numpy as np

    from benchmarks.slo_round import record
    from reportgen.analyze.pareto import same_speed_repeats

    rng = np.random.default_rng(5)
    root = tmp_path / "rq"
    for engine, decode, slower in (("alpha", 0.4, 1.0), ("beta", 0.3, 1.5)):
        for run in (1, 2):
            folder = root / engine / f"run{run}"
            folder.mkdir(parents=True)
            for c in (1, 4, 16):
                scale = (1 + c / 4) * (0.8 if run == 1 else 1.2)     # the runs disagree
                ttft = rng.lognormal(np.log(0.2), 0.3, 30)
                rows = [(float(t), float(t + decode * scale), 11, "") for t in ttft]
                data = record(c, (10.0 + 2 * run + c) * slower, rows) | {
                    "date": f"20261201-12{run}{c % 10}00", "model_id": engine}
                (folder / f"c{c}.json").write_text(json.dumps(data), encoding="utf-8")
    analysis = analyze_dir(root).analysis.first
    assert len(analysis.speed_runs) == 12
    page, watch = open_page(build(root, tmp_path / "rq.html"), "?lang=en")
    page.wait_for_selector(".speed input[data-speed]", state="attached")
    assert "(" in page.inner_text(".speed tbody")          # the fixed speeds' intervals
    order = list(analysis.same_speed["engine"].drop_duplicates())
    for speed in ("12", "18"):
        page.fill(".speed input[data-speed]", speed)
        got = page.evaluate("[...document.querySelectorAll('.speed tbody tr')]"
                            ".map(tr => JSON.parse(tr.lastElementChild.dataset.v))")
        want = same_speed_repeats(same_speed(analysis.pareto, order, speeds=(float(speed),)),
                                  analysis.speed_runs)
        for (status, _, ci), (_, row) in zip(got, want.iterrows(), strict=True):
            assert status == row["status"]
            if np.isnan(row["tok_s_per_gpu_low"]):
                assert ci is None
            else:
                assert ci == pytest.approx([row["tok_s_per_gpu_low"],
                                            row["tok_s_per_gpu_high"]], rel=1e-12)
        assert any(g[2] is not None for g in got), speed
    watch.assert_clean()
