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
        for (status, value), exact in zip(got, want["tok_s_per_gpu"], strict=True):
            if status == "not_reached":
                assert value is None
            else:
                assert value == pytest.approx(float(exact), rel=1e-12)
    assert {g[0] for g in got} == {"not_reached"}          # 1000 tok/s per user: none is
    assert "not reached" in page.inner_text(".speed tbody")
    watch.assert_clean()
