"""A GuideLLM sweep (synchronous, throughput, then constant or Poisson rates) is one view on
the request-rate axis, every benchmark at its measured rate, marked as measured on the page;
a plain concurrent profile stays on the concurrency axis. Expected values are parsed here from
the files the real clients wrote (tests/data/clients/guidellm-*)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from page_audit import audit

from reportgen.build import assemble_report
from reportgen.page.inputs import MEASURED_MARK
from reportgen.page.model import Fold, Para, Table
from reportgen.pipeline import analyze_dir
from tests.client_fixtures import CLIENTS, FIXTURES

GUIDELLM = [f for f in FIXTURES if f.startswith("guidellm")]


def _measured(folder: str) -> list[float]:
    data = json.loads((CLIENTS / folder / "sweep" / "benchmarks.json").read_bytes())
    return [b["metrics"]["requests_per_second"]["successful"]["mean"]
            for b in data["benchmarks"]]


@pytest.mark.parametrize("folder", GUIDELLM)
def test_a_sweep_is_one_series_on_the_rate_axis(folder: str, tmp_path: Path) -> None:
    root = shutil.copytree(CLIENTS / folder / "sweep", tmp_path / "sweep")
    done = analyze_dir(root)
    [part] = done.analysis.parts
    assert part.round.axis == "request_rate"
    assert len(part.engines) == 1            # one configuration, not one per benchmark
    assert sorted(part.tiers["concurrency"]) == pytest.approx(sorted(_measured(folder)))
    runs = done.analysis.runs
    assert set(runs["concurrency_note"]) == {"measured_rate"}


def test_the_measured_rate_note_comes_from_the_typed_field(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``ClientRun.rate_measured`` decides the runs' note; the free text of ``units`` does not
    (issue 33: no hidden channel between a reader and the stages after it)."""
    import dataclasses

    from reportgen.load.formats import guidellm

    root = shutil.copytree(CLIENTS / "guidellm-0.8.1" / "sweep", tmp_path / "sweep")
    real = guidellm.read

    def notes(edit: dict[str, object]) -> set[str]:
        monkeypatch.setattr(guidellm, "read", lambda raw, shown: [
            dataclasses.replace(r, **edit) for r in real(raw, shown)])
        runs = analyze_dir(root).analysis.runs
        assert runs is not None
        return set(runs["concurrency_note"])

    assert notes({"units": {}}) == {"measured_rate"}          # no text: still measured
    assert "measured_rate" not in notes({"rate_measured": False})


@pytest.mark.parametrize("folder", GUIDELLM)
def test_a_sweep_and_a_concurrent_profile_are_two_views(folder: str) -> None:
    done = analyze_dir(CLIENTS / folder)
    parts = done.analysis.parts
    assert sorted(p.round.axis for p in parts) == ["concurrency", "request_rate"]
    for p in parts:
        assert len(p.engines) == 1 and len(p.tiers) >= 3
    runs = done.analysis.runs
    conc = runs[runs["axis"] == "concurrency"]
    assert set(conc["concurrency_note"]) == {""} and sorted(conc["concurrency"]) == [1, 2, 4]


def test_the_page_marks_measured_rates(tmp_path: Path) -> None:
    root = shutil.copytree(CLIENTS / "guidellm-0.8.1" / "sweep", tmp_path / "sweep")
    built = assemble_report(root)
    assert audit(built) == []
    blocks = [x for s in built.page.sections for b in s.blocks
              for x in (b.blocks if isinstance(b, Fold) else [b])]
    notes = [b for b in blocks if isinstance(b, Para) and b.text.en.startswith(MEASURED_MARK)]
    assert len(notes) == 1 and "measured request rate, not a target" in notes[0].text.en
    assert notes[0].text.zh.startswith(MEASURED_MARK)
    runs = next(b for b in blocks if isinstance(b, Table) and b.columns[0].label.en == "File"
                and b.columns[2].num)
    shown = [row.cells[2].text.en for row in runs.rows]
    assert len(shown) == 4 and all(x.endswith(MEASURED_MARK) for x in shown)
    values = sorted(float(x.rstrip(MEASURED_MARK)) for x in shown)
    assert values == pytest.approx(sorted(_measured("guidellm-0.8.1")), abs=0.006)
