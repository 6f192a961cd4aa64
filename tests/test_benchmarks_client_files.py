"""The other-client folders benchmarks/run.py times (benchmarks/client_files.py), at a tiny
scale: every generated file is read and every run placed, so the timing measures real work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.client_files import FORMATS, make
from reportgen.load.round import load_round

RUNS_PER_FILE = {"inference-perf": 1.0, "llmperf": 0.5, "inferencex": 1.0, "tidy": 1.0}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_generated_files_all_load(name: str, tmp_path: Path) -> None:
    count = make(tmp_path / name, name, n=80)
    loaded = load_round(tmp_path / name)
    assert count == 80
    assert len(loaded.runs) == count * RUNS_PER_FILE[name]
    assert set(loaded.summary["client"]) == {name}
