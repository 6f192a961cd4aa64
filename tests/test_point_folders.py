"""A folder per point of a sweep or per repeat is the configuration's, never a configuration of
its own (AIPerf and GenAI-Perf write `<model>-openai-chat-concurrency8/` per run; authors write
`c8/`, `conc-8/`, `run2/`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.load.placement import run_folder
from reportgen.load.round import load_round
from tests.client_fixtures import CLIENTS
from tests.factories import result_json


@pytest.mark.parametrize(("rel", "folder"), [
    ("m-openai-chat-concurrency8/profile_export_aiperf.json", "m-openai-chat"),
    ("a/m-openai-chat-request_rate4.0/x.json", "a/m-openai-chat"),
    ("c8/result.json", ""),
    ("vllm/conc-16/result.json", "vllm"),
    ("tp1-c8/result.json", "tp1"),
    ("sglang/rate_inf/run2/result.json", "sglang"),
    ("qps4/trial_1/r.json", ""),
    ("vllm-c8_run2/r.json", "vllm"),
    # a number that is not a point: a layout, a GPU count, a configuration's own name
    ("tp8/result.json", "tp8"),
    ("cfg3/result.json", "cfg3"),
    ("abc8/result.json", "abc8"),
    ("gpu-8/result.json", "gpu-8"),
])
def test_run_dir_cuts_only_point_folders(rel: str, folder: str) -> None:
    assert run_folder(rel) == folder


def _engines(root: Path) -> dict[str, str]:
    runs = load_round(root).runs
    return dict(zip(runs["source"], runs["engine"], strict=True))


@pytest.mark.parametrize("fixture", ["aiperf-0.3.0", "aiperf-0.8.0", "genai-perf-0.0.16"])
def test_a_real_clients_artifact_folders_are_one_configuration(fixture: str) -> None:
    engines = _engines(CLIENTS / fixture)
    # every run the client wrote (profile exports: one per artifact folder) is read
    artifacts = {p.parent for p in (CLIENTS / fixture).rglob("profile_export_*.json")}
    assert len(engines) == len(artifacts) >= 4
    assert len(set(engines.values())) == 1


def _write(path: Path, record: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))


def test_point_folders_under_two_configurations(tmp_path: Path) -> None:
    for i, engine in enumerate(("vllm", "sglang")):
        for c in (1, 2, 4):
            _write(tmp_path / engine / f"conc-{c}" / "result.json",
                   result_json(100.0 * c + i, concurrency=c, n=60 + i))
    engines = _engines(tmp_path)
    assert len(engines) == 6
    assert {e for s, e in engines.items() if s.startswith("vllm/")} == {"vllm"}
    assert {e for s, e in engines.items() if s.startswith("sglang/")} == {"sglang"}


def test_repeat_folders_are_repeats(tmp_path: Path) -> None:
    for r in (1, 2):
        for c in (1, 4):
            _write(tmp_path / f"run{r}" / f"c{c}.json",
                   result_json(100.0 * c + r, concurrency=c, n=60 + r))
    runs = load_round(tmp_path).runs
    assert runs["engine"].nunique() == 1
    # two repeats of each tier, numbered from 1
    assert sorted(zip(runs["concurrency"], runs["repeat"], strict=True)) == [
        (1.0, 1), (1.0, 2), (4.0, 1), (4.0, 2)]


def test_layout_folders_stay_configurations(tmp_path: Path) -> None:
    for i, layout in enumerate(("tp1-c8", "tp2-c8")):
        _write(tmp_path / layout / "result.json",
               result_json(100.0 + i, concurrency=8, n=60 + i))
    assert sorted(set(_engines(tmp_path).values())) == ["tp1", "tp2"]



def _sibling_round(root: Path, folders: dict[str, list[int]],
                   models: dict[str, str] | None = None) -> dict[str, str]:
    for k, (name, points) in enumerate(folders.items()):
        for j, c in enumerate(points):   # distinct figures: no run is a copy of another
            _write(root / name / f"result-{c}-{j}.json",
                   result_json(50.0 * c + k + j / 10, concurrency=c,
                               model=(models or {}).get(name, "org/M")))
    return _engines(root)


def test_arbitrary_sibling_folders_stating_one_configuration_are_its_points(
        tmp_path: Path) -> None:
    # low/ at C=4 and high/ at C=16: the files state one model, engine and workload
    engines = _sibling_round(tmp_path / "a", {"low": [4], "high": [16]})
    assert len(engines) == 2 and len(set(engines.values())) == 1
    engines = _sibling_round(tmp_path / "b", {"x/run-a": [1, 1], "x/run-b": [2],
                                              "x/run-c": [8]})
    assert len(engines) == 4 and len(set(engines.values())) == 1   # run-a: two repeats


@pytest.mark.parametrize(("folders", "models"), [
    ({"maxq": [1, 2], "ws": [1, 2]}, None),          # each spans the axis: two configurations
    ({"low": [4], "high": [16]}, {"low": "org/A", "high": "org/B"}),   # two models
    ({"h100": [4], "a100": [16]}, None),              # named for a GPU: files rarely state it
    ({"vllm": [4], "sglang": [16]}, None),            # named for an engine
    ({"low": [4], "high": [4]}, None),                # one point twice: not a curve
])
def test_sibling_folders_that_may_be_configurations_stay_apart(
        tmp_path: Path, folders: dict[str, list[int]], models: dict[str, str] | None) -> None:
    engines = _sibling_round(tmp_path, folders, models)
    assert len(set(engines.values())) == 2, engines
