"""Each round understood as its author ran it (issue 30 items 1–4, issue 34 item 9): which runs
are one configuration's curve, what the workload is, what names say about hardware and layout,
who served an llmperf run, and configuration ids that do not move.

Rounds are made by arranging genuine client output (tests/data/clients/*, tests/data/llmperf)
into the layouts users save them in; no file's content is edited. Expected values are read
from the raw files here."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from reportgen.analyze.changes import diff_tables
from reportgen.load.formats import llmperf
from reportgen.load.placement import (
    _short_hashes,
    name_lengths,
    name_settings,
    run_folder,
)
from reportgen.load.round import load_round
from reportgen.load.workload_groups import workloads
from reportgen.sources.diff import tables_from_round
from tests.client_fixtures import CLIENTS
from tests.data_paths import SHARED_ROUNDS
from tests.test_formats_inferencex import AGENTIC
from tests.test_placement import frame

AIPERF_SWEEP = CLIENTS / "aiperf-0.13.0" / "concurrency-sweep"
AIPERF_OLD = CLIENTS / "aiperf-0.3.0"
IP_RATES = CLIENTS / "inference-perf-0.7.0" / "results"
IP_CONCURRENT = CLIENTS / "inference-perf-0.7.0-concurrent" / "results"
LLMPERF = Path(__file__).parent / "data" / "llmperf"


def _aiperf_concurrency(path: Path) -> int:
    """The run's concurrency as AIPerf 0.13 states it (input_config.phases)."""
    config = json.loads(path.read_bytes())["input_config"]
    phases = config["phases"]
    phases = phases if isinstance(phases, list) else list(phases.values())
    return int(next(p["concurrency"] for p in phases if p.get("concurrency")))


def _aiperf_runs() -> list[tuple[int, Path]]:
    files = sorted(AIPERF_SWEEP.glob("concurrency_*/profile_export_aiperf.json"))
    return sorted((_aiperf_concurrency(f), f) for f in files)


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dest)


# ------------------------------------------------------------------ one curve, any folder name


@pytest.mark.parametrize("name", [
    "r{c}", "users-{c}", "{c}", "2025-06-1{c}T10-30-00", "20250611-10{c}000",
])
def test_sibling_folders_that_differ_only_in_the_axis_value_are_one_curve(
        tmp_path: Path, name: str) -> None:
    runs = _aiperf_runs()
    assert len(runs) >= 3
    for c, f in runs:
        _copy(f, tmp_path / name.format(c=c) / f.name)
    loaded = load_round(tmp_path)
    assert len(loaded.manifest.engines) == 1
    assert sorted(loaded.runs["concurrency"]) == [c for c, _ in runs]
    assert set(loaded.runs["repeat"]) == {1}


def test_rate_folders_of_inference_perf_stages_are_one_curve(tmp_path: Path) -> None:
    rates = []
    for f in sorted(IP_RATES.glob("stage_*_lifecycle_metrics.json")):
        rate = json.loads(f.read_bytes())["load_summary"]["requested_rate"]
        rates.append(rate)
        _copy(f, tmp_path / f"r{rate:g}" / f.name)
    loaded = load_round(tmp_path)
    assert loaded.axis == "request_rate"
    assert len(loaded.manifest.engines) == 1
    assert sorted(loaded.runs["request_rate"]) == sorted(rates)


def test_numbers_that_name_a_configuration_or_another_point_stay_apart(tmp_path: Path) -> None:
    runs = _aiperf_runs()
    for c, f in runs:  # a layout's number is never a point, even equal to the run's
        _copy(f, tmp_path / "layouts" / f"tp{c}" / f.name)
    assert len(load_round(tmp_path / "layouts").manifest.engines) == len(runs)
    (c1, f1), (c2, f2) = runs[:2]  # the names' numbers are not the runs' values
    _copy(f1, tmp_path / "swapped" / f"r{c2}" / f1.name)
    _copy(f2, tmp_path / "swapped" / f"r{c1}" / f2.name)
    assert len(load_round(tmp_path / "swapped").manifest.engines) == 2


def test_two_engines_with_point_folders_stay_two(tmp_path: Path) -> None:
    for c, f in _aiperf_runs():
        _copy(f, tmp_path / "vllm" / f"r{c}" / f.name)
    for f in sorted(AIPERF_OLD.glob("*-concurrency*/profile_export_aiperf.json")):
        c = int(f.parent.name.rsplit("concurrency", 1)[1])
        _copy(f, tmp_path / "sglang" / f"r{c}" / f.name)
    loaded = load_round(tmp_path)
    assert sorted(e.id for e in loaded.manifest.engines) == ["sglang", "vllm"]


def test_an_inference_perf_concurrency_stage_rate_is_a_placeholder() -> None:
    loaded = load_round(IP_CONCURRENT.parent)
    stages = sorted(IP_CONCURRENT.glob("stage_*_lifecycle_metrics.json"))
    assert len(stages) >= 2
    expected = []
    for f in stages:
        load = json.loads(f.read_bytes())["load_summary"]
        assert "concurrency" in load and load["requested_rate"] > 0  # what the client wrote
        expected.append(load["concurrency"])
    assert loaded.axis == "concurrency"
    assert len(loaded.manifest.engines) == 1
    assert "req/s" not in loaded.manifest.engines[0].label.en
    assert sorted(loaded.runs["concurrency"]) == sorted(expected)
    assert loaded.runs["request_rate"].isna().all()


# ------------------------------------------------------------------ workloads


@pytest.mark.parametrize(("rel", "lengths"), [
    ("itkns-1024-otkns-512/c8.json", (1024, 512)),
    ("r/llama_isl1024_osl128_c4.json", (1024, 128)),
    ("in1024-out256/run.json", (1024, 256)),
    ("1024_128/c8.json", (1024, 128)),
    ("2026-08-20-ws/result.json", (math.nan, math.nan)),  # a date states no lengths
    ("20250611_1030/result.json", (math.nan, math.nan)),
    ("vllm/c8.json", (math.nan, math.nan)),
    ("output1.json", (math.nan, math.nan)),  # a file's number, not a length
    ("1_2/result.json", (math.nan, math.nan)),
])
def test_lengths_written_in_names(rel: str, lengths: tuple[float, float]) -> None:
    got = name_lengths(rel)
    assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(got, lengths,
                                                                             strict=True))


def test_lengths_in_a_folder_name_are_the_stated_workload(tmp_path: Path) -> None:
    stages = sorted(IP_RATES.glob("stage_*_lifecycle_metrics.json"))
    for f in stages:
        _copy(f, tmp_path / "itkns-32-otkns-16" / f.name)
    loaded = load_round(tmp_path)
    [w] = loaded.workloads
    assert (w.input_tokens, w.output_tokens, w.from_settings) == (32, 16, True)
    assert "≈" not in w.label("en")
    source = next(i.source for i in loaded.inferred if i.key == "workload.input_tokens")
    assert "itkns-32-otkns-16" in source


def test_lengths_that_vary_per_request_stay_one_workload() -> None:
    # 40 runs of 100 requests whose output lengths vary around 128: the runs' means spread
    # over 110 … 149, each close to its neighbours; a ±10 % window from the shortest run
    # cut them into four workloads
    rows = [{"source": f"c{i}.json", "completed": 100.0, "total_input_tokens": 51200.0,
             "total_output_tokens": 100.0 * (110 + i)} for i in range(40)]
    ids, specs = workloads(frame(*rows))
    assert len(specs) == 1 and ids.nunique() == 1
    # labelled with lengths one of its runs used
    assert specs[0].output_tokens in {110 + i for i in range(40)}


def test_two_length_clusters_stay_two_workloads() -> None:
    rows = [{"source": f"a{i}.json", "completed": 100.0, "total_input_tokens": 51200.0,
             "total_output_tokens": 100.0 * (120 + i)} for i in range(10)]
    rows += [{"source": f"b{i}.json", "completed": 100.0, "total_input_tokens": 51200.0,
              "total_output_tokens": 100.0 * (250 + i)} for i in range(10)]
    _, specs = workloads(frame(*rows))
    assert len(specs) == 2


def test_agentic_runs_are_two_curves_over_one_workload(tmp_path: Path) -> None:
    # InferenceX agentic summaries (the schema of utils/agentic): HiCache and no offload at
    # three concurrencies, each with its own measured output per request
    for offload in ("hicache", "none"):
        for conc, tps in ((4, 50.0), (8, 83.0), (16, 140.0)):
            d = json.loads(json.dumps(AGENTIC))
            d["conc"], d["offloading"] = conc, offload
            d["request_metrics"]["throughput"]["output"]["tokens_per_second"] = \
                tps * (1.25 if offload == "hicache" else 1.0)
            (tmp_path / f"agg_{offload}_c{conc}.json").write_text(json.dumps(d))
    loaded = load_round(tmp_path)
    assert sorted(e.label.en for e in loaded.manifest.engines) == ["hicache", "none"]
    [w] = loaded.workloads
    assert w.dataset == AGENTIC["scenario_type"]
    assert loaded.runs.groupby("engine")["concurrency"].apply(sorted).tolist() == [
        [4, 8, 16], [4, 8, 16]]
    # each run's measured output per request is its own, in the runs table and on the page
    assert loaded.runs["output_tokens_mean"].nunique() == 6
    from reportgen.build import render_dir

    html = render_dir(tmp_path, "en")
    assert "Out tok/req" in html
    for d in (json.loads(f.read_bytes()) for f in sorted(tmp_path.glob("agg_*.json"))):
        tput = d["request_metrics"]["throughput"]
        per_request = tput["output"]["tokens_per_second"] * tput["duration_seconds"] \
            / d["num_requests_successful"]
        assert f">{per_request:.0f}<" in html


def test_ratio_folders_name_workloads_not_configurations(tmp_path: Path) -> None:
    assert run_folder("results-2i-1o-h100/c8.json") == "results-h100"
    assert run_folder("results-6i-1o-h100/c8.json") == "results-h100"
    (_, f13), = _aiperf_runs()[:1]
    f03 = AIPERF_OLD / "stub-model-openai-chat-concurrency1" / "profile_export_aiperf.json"
    _copy(f13, tmp_path / "results-2i-1o-h100" / f13.name)
    _copy(f03, tmp_path / "results-6i-1o-h100" / f03.name)
    assert len(load_round(tmp_path).manifest.engines) == 1


# ------------------------------------------------------------------ hardware and layout


@pytest.mark.parametrize(("rel", "expected"), [
    ("2xH100/c8.json", {"gpu": "H100", "gpu_count": "2"}),
    ("bench-8xH100-tp8/c8.json", {"gpu": "H100", "gpu_count": "8", "tensor_parallel": "8"}),
    ("1xL40s/r.json", {"gpu": "L40s", "gpu_count": "1"}),
    ("4xRNGD/r.json", {"gpu": "RNGD", "gpu_count": "4"}),
    ("tp4_pp2/r.json", {"tensor_parallel": "4", "pipeline_parallel": "2"}),
    ("x/minimax_vllm_TEP8_isl1024_osl128_conc16.json", {"tensor_parallel": "8"}),
    ("g5.2xlarge/r.json", {}),  # an instance size, not a GPU
    ("1024x128/r.json", {}),
])
def test_hardware_and_layout_in_names(rel: str, expected: dict[str, str]) -> None:
    assert {k: v for k, v, _ in name_settings(rel)} == expected


def test_hardware_from_folder_names_is_inferred_with_its_source(tmp_path: Path) -> None:
    for c, f in _aiperf_runs():
        _copy(f, tmp_path / "2xH100_tp2" / f"c{c}" / f.name)
    for f in sorted(AIPERF_OLD.glob("*-concurrency*/profile_export_aiperf.json")):
        _copy(f, tmp_path / "4xRNGD" / f.parent.name / f.name)
    loaded = load_round(tmp_path)
    specs = {e.label.en: e for e in loaded.manifest.engines}
    h100, rngd = specs["2xH100_tp2"], specs["4xRNGD"]
    assert (h100.gpu, h100.gpu_count, h100.tensor_parallel, h100.gpus) == ("H100", 2, 2, 2)
    assert (rngd.gpu, rngd.gpu_count, rngd.gpus) == ("RNGD", 4, 4)
    found = {i.key: i.source for i in loaded.inferred}
    assert "name: 4xRNGD" in found[f"engines.{rngd.id}.gpu_count"]
    assert "name: tp2" in found[f"engines.{h100.id}.tensor_parallel"]
    # an unknown GPU is a count and a name, never specs from nowhere
    assert math.isnan(loaded.manifest.bandwidth_gb_s)


def test_init_writes_hardware_read_from_names(tmp_path: Path) -> None:
    from reportgen.init_toml import init_text

    for c, f in _aiperf_runs():
        _copy(f, tmp_path / "8xH100" / f"c{c}" / f.name)
    loaded = load_round(tmp_path)
    text = init_text(loaded).text
    assert 'gpu = "H100"' in text and "gpu_count = 8" in text
    assert "name: 8xH100" in text
    # a known GPU: its bandwidth from the GPU table, so floors and MBU can be drawn
    m = loaded.manifest
    assert (m.gpu, m.gpu_count) == ("H100", 8) and m.bandwidth_gb_s > 0
    assert [e.gpus for e in m.engines] == [8]  # per-GPU figures divide by 8


# ------------------------------------------------------------------ providers and labels


def test_an_llmperf_run_is_named_by_its_provider() -> None:
    path = LLMPERF / "lepton_70b_summary.json"
    raw = json.loads(path.read_bytes())
    [run] = llmperf.read(path.read_bytes(), path.name)
    assert run.record["provider"] == raw["framework"]  # llmperf --metadata, as saved
    assert run.settings["provider"][0] == raw["framework"]
    # without that key, the words of the file name no model or run name explains
    del raw["framework"]
    assert llmperf._provider(raw, "groq_70b_summary.json")[0] == "groq"
    assert llmperf._provider(raw, f"{raw['name']}.json")[0] == ""


def test_hashes_in_labels_are_cut_to_eight_characters() -> None:
    digest = "f4e2de70d66816a838a89eeeb621910adffb0dd0baba3976c96980970978018d"
    label = f"replicate · llama-2-13b-chat:{digest}"
    assert _short_hashes(label, [label]) == "replicate · llama-2-13b-chat:f4e2de70"
    twin = label[:-1] + "e"  # the same first 8: kept whole, so the two stay apart
    assert _short_hashes(label, [label, twin]) == label
    assert _short_hashes("llama-2-70b-chat", ["llama-2-70b-chat"]) == "llama-2-70b-chat"


@pytest.mark.shared
def test_the_llmperf_leaderboard_is_named_by_provider_and_model() -> None:
    root = SHARED_ROUNDS / "llmperf-leaderboard-hosted-apis"
    loaded = load_round(root)
    labels = {e.label.en for e in loaded.manifest.engines}
    assert len(labels) == len(loaded.manifest.engines)
    for f in sorted((root / "raw_data" / "summary").glob("*.json")):
        d = json.loads(f.read_bytes())
        model = d["model"].rstrip("/").split("/")[-1].split(":")[0]
        provider = d.get("framework") or f.stem.split("_")[0]
        assert any(label.startswith(f"{provider} · ") and model in label for label in labels)
    for label in labels:
        assert not any(len(w) > 8 and all(ch in "0123456789abcdef" for ch in w)
                       for w in label.replace(":", " ").split())


# ------------------------------------------------------------------ stable ids


def _two_engines(root: Path) -> None:
    for c, f in _aiperf_runs():
        _copy(f, root / "vllm" / f"c{c}" / f.name)
    for f in sorted(AIPERF_OLD.glob("*-concurrency*/profile_export_aiperf.json")):
        _copy(f, root / "sglang" / f.parent.name / f.name)


def test_a_json_that_is_no_run_never_renames_a_configuration(tmp_path: Path) -> None:
    _two_engines(tmp_path)
    before = [e.id for e in load_round(tmp_path).manifest.engines]
    # a status file that happens to carry `duration` and `completed`, and words
    (tmp_path / "status-task.json").write_text(json.dumps(
        {"status": "completed", "task": "bench", "duration": 12.0, "completed": 1}))
    (tmp_path / "vllm" / "status-task.json").write_text(json.dumps(
        {"status": "completed", "task": "bench"}))
    assert [e.id for e in load_round(tmp_path).manifest.engines] == before == [
        "sglang", "vllm"]


def test_diff_matches_configurations_renamed_with_their_folders(tmp_path: Path) -> None:
    _two_engines(tmp_path / "old")
    shutil.copytree(tmp_path / "old" / "vllm", tmp_path / "new" / "vllm-v0.9")
    shutil.copytree(tmp_path / "old" / "sglang", tmp_path / "new" / "sglang-0.4")
    changes = diff_tables(tables_from_round(tmp_path / "old"),
                          tables_from_round(tmp_path / "new"))
    kinds = pd.Series([c.kind for c in changes], dtype=object)
    assert not kinds.isin(["added", "removed"]).any()
    assert {c.engine for c in changes if c.table == "engines"} == {"vllm_v0-9", "sglang_0-4"}


def test_round_totals_count_every_workload(tmp_path: Path) -> None:
    from tests.factories import result_json

    sent = 0
    for i, (inp, out, n) in enumerate(((512, 128, 60), (2048, 512, 24))):
        for c in (1, 4):
            (tmp_path / f"w{i}-c{c}.json").write_text(json.dumps(result_json(
                100.0 * c + i, concurrency=c, n=n, in_tokens=inp, out_tokens=out)))
            sent += n
    tables = tables_from_round(tmp_path)
    assert len(tables["round"]["workloads"]) == 2
    assert tables["round"]["requests_total"] == sent == 168
    assert tables["round"]["completed_total"] == sent
