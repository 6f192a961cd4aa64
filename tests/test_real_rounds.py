"""The real result folders in tests/data/real_rounds (verbatim copies of public benchmark output,
no round.toml): every run the raw files hold must appear once in `reportgen tables`' `runs`
table with the raw numbers, placed in the right configuration, workload, tier and repeat; the
author's own files are listed as skipped; the page builds.

The raw files are parsed here, independently of reportgen (json / JSON Lines with bare
`Infinity`, as ../shared/tools/real_rounds_check.py does). The folders are read in place; a test
that has to change one works on a copy in tmp_path.
"""

from __future__ import annotations

import functools
import json
import math
import re
import shutil
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from data_paths import REAL_ROUNDS as ROUNDS
from data_paths import SHARED_SAMPLES

from reportgen.cli import main

RTX = "rtxpro6000-maxq-vs-ws-concurrency-repeats"
A100 = "a100-vs-tpu-request-rate-sweep"
SGLANG = "sglang-jsonl-h200-request-rate"
FOLDERS = (RTX, A100, SGLANG)
GPU_DIR = "vllm-bench-gpu/bench-results/20260427-104816-gemma4-gpu"
TPU_DIR = "vllm-bench-tpu/bench-results/20260426-222601-gemma4-tpu"

NOT_READ = "not a benchmark result, log or sample this tool reads"
NOT_RESULT_JSON = ("JSON without 'duration' and 'completed': not a benchmark result (an "
                   "author's summary or metadata file?)")
WARMUP = "warm-up run (the file name says so); not a measured run"
SAME_RUN = re.compile(r"^the same run as (\S+) \(same requests, duration and throughput\); "
                      r"that copy is used$")

# ------------------------------------------------------------------ the raw files, read here


@dataclass(frozen=True)
class RawRun:
    source: str              # path inside the round; `#L<n>` for a line of a many-run file
    output_tok_s: float      # total_output_tokens / duration
    concurrency: int | None  # max_concurrency
    rate: float | None       # request_rate (math.inf for "inf"); None when the file has none
    ttft_p50_ms: float | None
    itl_p50_ms: float | None
    record: dict[str, Any]


def _load(text: str) -> Any:
    return json.loads(text, parse_constant=float)  # bare Infinity / NaN as SGLang writes them


def _rate(value: object) -> float | None:
    if value is None:
        return None
    return math.inf if str(value).lower() in ("inf", "infinity") else float(value)  # type: ignore[arg-type]


def _raw(source: str, o: dict[str, Any]) -> RawRun:
    return RawRun(source, o["total_output_tokens"] / o["duration"], o.get("max_concurrency"),
                  _rate(o.get("request_rate")), o.get("median_ttft_ms"), o.get("median_itl_ms"),
                  o)


def _json_runs(root: Path, pattern: str) -> list[RawRun]:
    out = []
    for p in sorted(root.glob(pattern)):
        o = _load(p.read_text(encoding="utf-8"))
        assert isinstance(o, dict) and "output_throughput" in o, p
        out.append(_raw(p.relative_to(root).as_posix(), o))
    return out


def _jsonl_runs(root: Path, pattern: str) -> list[RawRun]:
    out = []
    for p in sorted(root.glob(pattern)):
        lines = [(i, line) for i, line in enumerate(
            p.read_text(encoding="utf-8").splitlines(), 1) if line.strip()]
        rel = p.relative_to(root).as_posix()
        for i, line in lines:
            # reportgen names a record of a many-run file `#L<line>`; a file holding one run
            # is named by its path alone (auto.run_source)
            out.append(_raw(f"{rel}#L{i}" if len(lines) > 1 else rel, _load(line)))
    return out


RAW = {
    RTX: lambda r: _json_runs(r, "results/**/random-*.json"),
    A100: lambda r: _json_runs(r, "**/result-*.json"),
    SGLANG: lambda r: _jsonl_runs(r, "*.jsonl"),
}


@functools.cache
def raw_runs(name: str) -> tuple[RawRun, ...]:
    return tuple(RAW[name](ROUNDS / name))


# ------------------------------------------------------------------ reportgen's answer


def run_tables(folder: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["tables", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@functools.cache
def tables(name: str) -> dict[str, Any]:
    return run_tables(ROUNDS / name)


def by_source(name: str) -> dict[str, dict[str, Any]]:
    return {r["source"]: r for r in tables(name)["runs"]}


def copy_round(name: str, tmp_path: Path) -> Path:
    """A writable copy of a real folder (the originals are read-only)."""
    root = tmp_path / name
    shutil.copytree(ROUNDS / name, root, copy_function=shutil.copyfile)
    for folder in (root, *(p for p in root.rglob("*") if p.is_dir())):
        folder.chmod(0o755)
    return root


def in_round(name: str, folder: str) -> str:
    """A `skipped` file as a path inside the round: duplicates are named by their shown path,
    which starts with the round folder's own name (see
    test_skipped_files_are_paths_inside_the_round)."""
    return name.removeprefix(f"{folder}/")


def skipped(name: str) -> dict[str, str]:
    entries = [(in_round(s["file"], name), s["reason"]) for s in tables(name)["skipped"]]
    files = [f for f, _ in entries]
    assert len(files) == len(set(files)), Counter(files).most_common(3)
    return dict(entries)


# ------------------------------------------------------------------ every run, once


@pytest.mark.parametrize(("name", "count"), [(RTX, 48), (A100, 42), (SGLANG, 21)])
def test_every_raw_run_appears_once_with_its_numbers(name: str, count: int) -> None:
    raw = raw_runs(name)
    runs = tables(name)["runs"]
    assert len(raw) == count
    assert len(runs) == count
    seen = Counter(r["source"] for r in runs)
    assert seen == Counter(x.source for x in raw)
    rows = by_source(name)
    for x in raw:
        row = rows[x.source]
        assert row["output_tok_s"] == pytest.approx(x.output_tok_s, rel=1e-9), x.source
        assert row["concurrency"] == x.concurrency, x.source
        if x.rate is None:
            assert row["request_rate"] is None, x.source
        elif math.isinf(x.rate):   # an unbounded rate is stated, never null (tables: "inf")
            assert row["request_rate"] == "inf", x.source
        else:
            assert row["request_rate"] == pytest.approx(x.rate, rel=1e-12), x.source
        for column, want in (("ttft_p50_ms", x.ttft_p50_ms), ("itl_p50_ms", x.itl_p50_ms)):
            assert want is not None
            assert row[column] == pytest.approx(want, rel=1e-9), (x.source, column)
        assert row["completed"] == x.record["completed"]
        assert row["duration_s"] == pytest.approx(x.record["duration"], rel=1e-12)


# ------------------------------------------------------------------ rtxpro: concurrency, repeats


RTX_NAME = re.compile(r"results/2026-08-20-(maxq|ws)/random-in(\d+)-out(\d+)-c(\d+)-run(\d)\.json$")


def test_rtxpro_configurations_workloads_tiers_and_repeats() -> None:
    data = tables(RTX)
    assert data["round"]["axis"] == "concurrency"
    assert [w["id"] for w in data["round"]["workloads"]] == ["1024-128", "256-1024"]
    cells: dict[tuple[str, str, int], list[int]] = {}
    for r in data["runs"]:
        m = RTX_NAME.match(r["source"])
        assert m is not None, r["source"]
        gpu, inp, outp, conc, run = m.groups()
        assert r["engine"] == gpu  # the two results folders are the two configurations
        assert r["workload"] == f"{inp}-{outp}"
        assert r["axis"] == "concurrency"
        assert r["concurrency"] == int(conc)
        assert r["concurrency_note"] == ""
        assert r["repeat"] == int(run)
        cells.setdefault((gpu, r["workload"], int(conc)), []).append(r["repeat"])
    assert len(cells) == 2 * 2 * 4
    assert all(sorted(v) == [1, 2, 3] for v in cells.values())
    assert {e["id"]: e["label"]["en"] for e in data["engines"]} == {"maxq": "maxq", "ws": "ws"}


def test_rtxpro_tiers_are_the_median_of_three_repeats() -> None:
    data = tables(RTX)
    values: dict[tuple[str, str, int], list[float]] = {}
    for x in raw_runs(RTX):
        gpu, inp, outp, conc, _ = RTX_NAME.match(x.source).groups()  # type: ignore[union-attr]
        values.setdefault((gpu, f"{inp}-{outp}", int(conc)), []).append(x.output_tok_s)
    tiers = {(t["engine"], t["workload"], t["concurrency"]): t for t in data["tiers"]}
    assert set(tiers) == set(values)
    for key, vals in values.items():
        assert len(vals) == 3
        t = tiers[key]
        assert t["repeats"] == 3, key
        assert t["output_tok_s"] == pytest.approx(statistics.median(vals), rel=1e-9), key
        assert t["output_tok_s_min"] == pytest.approx(min(vals), rel=1e-9), key
        assert t["output_tok_s_max"] == pytest.approx(max(vals), rel=1e-9), key


# ------------------------------------------------------------------ a100 / TPU: rate sweep


A100_NAME = re.compile(r"vllm-bench-(gpu|tpu)/bench-results/[^/]+/result-(short|medium|long)"
                       r"-rate(\d+|inf)\.json$")
PROFILE = {"short": "1024-256", "medium": "4096-512", "long": "8000-1000"}


def test_a100_configurations_workloads_and_rates() -> None:
    data = tables(A100)
    assert data["round"]["axis"] == "request_rate"
    assert sorted(w["id"] for w in data["round"]["workloads"]) == sorted(PROFILE.values())
    rates: dict[tuple[str, str], list[float | None]] = {}
    for r in data["runs"]:
        m = A100_NAME.match(r["source"])
        assert m is not None, r["source"]
        accel, profile, rate = m.groups()
        assert r["engine"] == accel
        assert r["workload"] == PROFILE[profile]
        assert r["axis"] == "request_rate"
        assert r["concurrency"] is None  # max_concurrency null, and no num_prompts fallback
        assert r["request_rate"] == ("inf" if rate == "inf" else float(rate))
        assert r["repeat"] == 1
        rates.setdefault((accel, profile), []).append(r["request_rate"])
    assert len(rates) == 6
    for got in rates.values():
        assert sorted(got, key=lambda v: math.inf if v == "inf" else v) == [
            1.0, 2.0, 4.0, 8.0, 16.0, 32.0, "inf"]
    assert {e["id"]: e["label"]["en"] for e in data["engines"]} == {"gpu": "gpu", "tpu": "tpu"}


def test_a100_console_logs_are_the_same_runs_as_the_json() -> None:
    skip = skipped(A100)
    logs = sorted(p.relative_to(ROUNDS / A100).as_posix()
                  for p in (ROUNDS / A100).glob("**/bench-short-rate*.log"))
    assert len(logs) == 14
    for log in logs:
        reason = skip[log]
        if log == f"{GPU_DIR}/bench-short-rate2.log":  # cut off before the result table
            assert reason == NOT_READ
            continue
        m = SAME_RUN.match(reason)
        assert m is not None, (log, reason)
        twin = log.replace("bench-short-rate", "result-short-rate").replace(".log", ".json")
        assert in_round(m.group(1), A100) == twin
    assert skip[f"{GPU_DIR}/warmup.log"] == WARMUP
    assert skip[f"{TPU_DIR}/warmup.log"] == WARMUP


def test_a100_console_log_stands_in_for_a_lost_json(tmp_path: Path) -> None:
    root = copy_round(A100, tmp_path)
    lost = f"{GPU_DIR}/result-short-rate1.json"
    raw = _load((root / lost).read_text(encoding="utf-8"))
    (root / lost).unlink()
    data = run_tables(root)
    rows = {r["source"]: r for r in data["runs"]}
    assert len(rows) == 42
    assert lost not in rows
    row = rows[f"{GPU_DIR}/bench-short-rate1.log"]
    # the console prints two decimals: Benchmark duration (s): 1007.01, tokens exact
    assert row["duration_s"] == 1007.01
    assert row["output_tok_s"] == pytest.approx(256000 / 1007.01, rel=1e-12)
    assert row["output_tok_s"] == pytest.approx(raw["output_throughput"], rel=1e-5)
    assert row["request_rate"] == 1.0
    assert row["ttft_p50_ms"] == 248.61
    assert row["itl_p50_ms"] == 28.02
    assert (row["engine"], row["repeat"]) == ("gpu", 1)
    assert f"{GPU_DIR}/bench-short-rate1.log" not in {
        in_round(s["file"], A100) for s in data["skipped"]}


def test_a100_console_log_stand_in_keeps_its_workload(tmp_path: Path) -> None:
    root = copy_round(A100, tmp_path)
    (root / GPU_DIR / "result-short-rate1.json").unlink()
    data = run_tables(root)
    rows = {r["source"]: r for r in data["runs"]}
    sibling = rows[f"{GPU_DIR}/result-short-rate2.json"]
    assert rows[f"{GPU_DIR}/bench-short-rate1.log"]["workload"] == sibling["workload"]
    assert len(data["round"]["workloads"]) == 3


# ------------------------------------------------------------------ SGLang JSONL


SGLANG_FILES = {
    "sglang_outputs_deepseek_dp_mla_output.jsonl": "deepseek_dp_mla",
    "sglang_outputs_llama_3_3_70b_offline_output.jsonl": "llama_3_3_70b_offline",
    "sglang_outputs_llama_3_3_70b_online_output.jsonl": "llama_3_3_70b_online",
    "sglang_outputs_llama_405b_online_output.jsonl": "llama_405b_online",
}


def test_sglang_one_configuration_per_file_sharegpt_its_own_workload() -> None:
    data = tables(SGLANG)
    rows = by_source(SGLANG)
    assert data["round"]["axis"] == "request_rate"
    assert {e["id"] for e in data["engines"]} == set(SGLANG_FILES.values())
    for x in raw_runs(SGLANG):
        row = rows[x.source]
        assert row["engine"] == SGLANG_FILES[x.source.split("#")[0]]
        o = x.record
        if o["dataset_name"] == "sharegpt":
            assert row["workload"] == "sharegpt"
        else:
            assert row["workload"] == (
                f"random-{o['random_input_len']}-{o['random_output_len']}")
    workloads = [w["id"] for w in data["round"]["workloads"]]
    # ordered by length (input + output), shortest first; a dataset without set lengths last
    lengths = [sum(int(n) for n in w.split("-")[1:]) for w in workloads[:-1]]
    assert lengths == sorted(lengths) and workloads[-1] == "sharegpt"
    assert sorted(workloads) == sorted(["random-1024-1024", "sharegpt", "random-4096-1024",
                                        "random-1-512", "random-1024-512", "random-4096-2048",
                                        "random-256-512"])
    assert sum(r["workload"] == "sharegpt" for r in data["runs"]) == 5


def test_sglang_identical_offline_runs_are_two_repeats_of_one_cell() -> None:
    rows = by_source(SGLANG)
    offline = "sglang_outputs_llama_3_3_70b_offline_output.jsonl"
    first, second = rows[f"{offline}#L4"], rows[f"{offline}#L5"]
    for row in (first, second):
        assert (row["engine"], row["workload"], row["request_rate"]) == (
            "llama_3_3_70b_offline", "random-4096-1024", "inf")
    assert (first["repeat"], second["repeat"]) == (1, 2)
    assert [r["source"] for r in rows.values() if r["repeat"] != 1] == [f"{offline}#L5"]
    (tier,) = [t for t in tables(SGLANG)["tiers"] if t.get("workload") == "random-4096-1024"]
    assert tier["repeats"] == 2
    assert tier["output_tok_s"] == pytest.approx(
        (first["output_tok_s"] + second["output_tok_s"]) / 2, rel=1e-9)


def test_sglang_rates_and_offline_runs() -> None:
    got = sorted((r["engine"], r["workload"],
                  math.inf if r["request_rate"] == "inf" else r["request_rate"])
                 for r in tables(SGLANG)["runs"] if r["engine"] != "llama_3_3_70b_offline")
    random = "random-1024-1024"
    assert got == sorted(
        [("deepseek_dp_mla", "random-1-512", math.inf)]
        + [("llama_3_3_70b_online", random, float(r)) for r in (1, 2, 4, 8, 16)]
        + [("llama_3_3_70b_online", "sharegpt", 4.0), ("llama_3_3_70b_online", "sharegpt", 8.0)]
        + [("llama_405b_online", random, float(r)) for r in (1, 2, 4, 8)]
        + [("llama_405b_online", "sharegpt", 4.0), ("llama_405b_online", "sharegpt", 8.0)])


def test_sglang_range_ratio_zero_is_no_output_token_shortfall() -> None:
    ratios = {x.record["random_range_ratio"] for x in raw_runs(SGLANG)
              if x.record["dataset_name"] == "random" and "deepseek" not in x.source}
    assert ratios == {0.0}
    warned = [c["message"]["en"] for c in tables(SGLANG)["checks"]
              if c["id"] == "output_tokens.parity" and c["status"] == "warn"]
    assert warned == []


# ------------------------------------------------------------------ the author's own files


SILENT_SCRIPT = ("a launch script, but with no literal setting this tool reads (a size behind a "
                 "shell variable is not guessed)")
AUTHOR_FILES: dict[str, dict[str, str]] = {
    RTX: {
        "LICENSE": NOT_READ, "README.md": NOT_READ, "SOURCE.md": NOT_READ,
        "recipes/bench.sh": NOT_READ, "recipes/serve.sh": NOT_READ,
        "results/COMPARE.md": NOT_READ,
        "results/2026-08-20-maxq/progress.log": NOT_READ,
        "results/2026-08-20-ws/progress.log": NOT_READ,
        "results/2026-08-20-ws/REPORT.md": NOT_READ,
        "results/2026-08-20-maxq/summary.json": NOT_RESULT_JSON,
        "results/2026-08-20-ws/summary.json": NOT_RESULT_JSON,
        "results/2026-08-20-maxq/meta.json": NOT_RESULT_JSON,
        "results/2026-08-20-maxq/download-meta.json": NOT_RESULT_JSON,
        "results/2026-08-20-ws/single-stream.json": NOT_RESULT_JSON,
    },
    A100: {
        "SOURCE.md": NOT_READ, "upstream_LICENSE": NOT_READ, "upstream_README.md": NOT_READ,
        "upstream_launch-gpu.sh": NOT_READ, "upstream_launch-tpu.sh": NOT_READ,
        "upstream_run-bench-docker.sh": NOT_READ,
        f"{GPU_DIR}/container-image.txt": NOT_READ, f"{TPU_DIR}/container-image.txt": NOT_READ,
        f"{GPU_DIR}/image-digest.txt": NOT_RESULT_JSON,
        f"{TPU_DIR}/image-digest.txt": NOT_RESULT_JSON,
        f"{GPU_DIR}/summary-gpu-a100.csv": NOT_READ,
        f"{GPU_DIR}/warmup.log": WARMUP, f"{TPU_DIR}/warmup.log": WARMUP,
        f"{GPU_DIR}/bench-short-rate2.log": NOT_READ,
        # read for settings, but their sizes are shell variables ("$TP"): said, not guessed
        "upstream_run-vllm-gpu-docker.sh": SILENT_SCRIPT,
        "upstream_run-vllm-tpu-docker.sh": SILENT_SCRIPT,
    },
    SGLANG: {"LICENSE": NOT_READ, "SOURCE.md": NOT_READ, "sglang_README.md": NOT_READ},
}
# launch scripts that gave settings: read, so neither a run nor skipped
SCRIPTS = {
    RTX: set(),
    A100: set(),
    SGLANG: {"sglang_experiments_llama_3_3_70b_sglang.sh",
             "sglang_experiments_llama_405b_sglang.sh"},
}


@pytest.mark.parametrize("name", FOLDERS)
def test_author_files_are_skipped_with_a_reason(name: str) -> None:
    skip = skipped(name)
    for rel, reason in AUTHOR_FILES[name].items():
        assert skip.get(rel) == reason, rel
    # the rest of `skipped` are copies of runs (the a100 console logs), nothing else
    rest = {f: r for f, r in skip.items() if f not in AUTHOR_FILES[name]}
    assert all(SAME_RUN.match(r) for r in rest.values()), rest
    assert len(rest) == {RTX: 0, A100: 13, SGLANG: 0}[name]


@pytest.mark.parametrize("name", FOLDERS)
def test_every_file_is_a_run_skipped_or_read(name: str) -> None:
    root = ROUNDS / name
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    runs = {r["source"].split("#")[0] for r in tables(name)["runs"]}
    skip = set(skipped(name))
    assert not runs & skip and not runs & SCRIPTS[name] and not skip & SCRIPTS[name]
    assert files == runs | skip | SCRIPTS[name]


def test_sglang_launch_scripts_give_the_tensor_parallel_size() -> None:
    inferred = {i["key"]: (i["value"], i["source"]) for i in tables(SGLANG)["inferred"]}
    script70 = f"{SGLANG}/sglang_experiments_llama_3_3_70b_sglang.sh:3"
    script405 = f"{SGLANG}/sglang_experiments_llama_405b_sglang.sh:6"
    assert inferred["engines.llama_3_3_70b_offline.tensor_parallel"] == ("4", script70)
    assert inferred["engines.llama_3_3_70b_online.tensor_parallel"] == ("4", script70)
    assert inferred["engines.llama_405b_online.tensor_parallel"] == ("8", script405)
    assert "engines.deepseek_dp_mla.tensor_parallel" not in inferred


def test_skipped_files_are_paths_inside_the_round() -> None:
    root = ROUNDS / A100
    bad = [s["file"] for s in tables(A100)["skipped"]
           if not (root / s["file"].split("#")[0]).is_file()]
    assert bad == []


# ------------------------------------------------------------------ provenance with no round.toml


def test_bandwidth_source_without_round_toml() -> None:
    """Only the maxq folder names its GPU (meta.json): that configuration gets the GPU table's
    bandwidth, credited to the table; the round as a whole states no GPU."""
    assert not (ROUNDS / RTX / "round.toml").exists()
    data = tables(RTX)
    assert data["round"]["gpu"] == "" and data["round"]["bandwidth_gb_s"] is None
    assert data["round"]["bandwidth_source"]["en"].startswith("unknown: set hardware.gpu")
    bandwidth = {e["id"]: e["bandwidth_gb_s"] for e in data["engines"]}
    assert bandwidth["maxq"] == 1792.0 and bandwidth["ws"] is None
    source = next(c for c in data["constants"] if c["name"] == "maxq.gpu_bandwidth_gb_s")
    assert source["provenance"]["en"].startswith("built-in GPU table")


def test_engine_version_source_without_round_toml() -> None:
    data = tables(RTX)
    inferred = {i["key"]: i["source"] for i in data["inferred"]}
    assert inferred["engines.maxq.version"].endswith("meta.json (vllm_version)")
    (maxq,) = [e for e in data["round"]["engines"] if e["id"] == "maxq"]
    assert maxq["version"] == "0.27.1"
    assert maxq["sources"]["version"] != "round.toml"


# ------------------------------------------------------------------ the page


VIEW = re.compile(r'<div class="[^"]*\bview\b[^"]*" data-view="([^"]+)"')


@pytest.mark.parametrize(("name", "workloads"), [(RTX, 2), (A100, 3), (SGLANG, 7)])
def test_build_writes_one_view_per_workload(name: str, workloads: int, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", str(ROUNDS / name), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>")
    views = VIEW.findall(html)
    assert len(views) == len(set(views)) == workloads
    assert len(tables(name)["round"]["workloads"]) == workloads


# ------------------------------------------------------------------ folders with nothing to plot


def _fails(folder: Path) -> str:
    result = CliRunner().invoke(main, ["tables", str(folder), "--format", "json"])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return result.stderr


def test_no_run_on_the_axis_exits_2_naming_the_file(tmp_path: Path) -> None:
    root = tmp_path / "rate-less"
    root.mkdir()
    (root / "res.json").write_text(json.dumps({
        "date": "20250101-120000", "backend": "vllm", "model_id": "m", "num_prompts": 10,
        "max_concurrency": None, "duration": 5.0, "completed": 10, "failed": 0,
        "total_input_tokens": 1000, "total_output_tokens": 500, "output_throughput": 100.0,
        "median_ttft_ms": 10.0}))
    (root / "round.toml").write_text('[round]\naxis = "concurrency"\n')
    assert _fails(root) == (
        "Error: rate-less: no run could be placed on the concurrency axis: res.json: "
        "no max_concurrency (a rate-limited run?): no place on the concurrency axis\n")
    (root / "round.toml").unlink()  # no axis given: neither a concurrency nor a rate
    assert _fails(root) == (
        "Error: rate-less: no run could be placed on the request_rate axis: res.json: "
        "no request_rate: no place on the rate axis\n")


def test_empty_folder_exits_2(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    assert _fails(root) == (
        "Error: empty: no benchmark result found in this folder or below it (expected vllm "
        "bench serve / benchmark_serving.py JSON, SGLang bench_serving JSONL, their console "
        "output, another client's files or a tidy CSV (see reportgen's docs/ROUNDS.md)); the "
        "folder is empty\n")


def test_folder_with_only_a_readme_exits_2(tmp_path: Path) -> None:
    root = tmp_path / "docs-only"
    root.mkdir()
    (root / "README.md").write_text("# results will go here\n")
    err = _fails(root)
    assert err.startswith("Error: docs-only: no benchmark result found in this folder")
    assert err.endswith(f"; files seen: README.md: {NOT_READ}\n")


def test_a_concurrency_sweep_at_two_rates_is_two_series(tmp_path: Path) -> None:
    """Runs at C=4 and C=8, each at 1 req/s and at inf: not repeats, but two series."""
    root = tmp_path / "split"
    (root / "res").mkdir(parents=True)
    for c in (4, 8):
        for rate in (1.0, "inf"):
            duration = 10.0 + c + (1.0 if rate == 1.0 else 0.0)
            (root / "res" / f"c{c}-r{rate}.json").write_text(json.dumps({
                "model_id": "m", "num_prompts": 32, "request_rate": rate,
                "max_concurrency": c, "duration": duration, "completed": 32, "failed": 0,
                "total_input_tokens": 3200, "total_output_tokens": 1600,
                "output_throughput": 1600 / duration, "median_ttft_ms": 10.0,
                "median_itl_ms": 5.0}))
    data = run_tables(root)
    series = sorted({(r["engine"], r["concurrency"], r["repeat"]) for r in data["runs"]})
    assert series == [("m-1-req-s", 4, 1), ("m-1-req-s", 8, 1),
                      ("m-inf-req-s", 4, 1), ("m-inf-req-s", 8, 1)]
    assert {t["output_tok_s"] for t in data["tiers"]} == {1600 / 15, 1600 / 19, 1600 / 14,
                                                          1600 / 18}


@pytest.mark.shared
def test_metadata_pairs_that_differ_name_the_configurations() -> None:
    """The May-2025 JSONL sample: nine runs, three `--metadata deployment=…` values, three
    rates. Each deployment is a configuration (not three repeats of one). No licence is stated
    for it, so it is read from ../shared."""
    path = SHARED_SAMPLES / "vllm-benchmark-serving-results-jsonl-2025-05"
    raw = [json.loads(line) for line in (path / "results.json").read_text().splitlines()
           if line.strip()]
    data = run_tables(path)
    got = {(r["engine"], r["request_rate"]): r["output_tok_s"] for r in data["runs"]}
    # an unbounded rate is the stated "inf" in every table, the runs included (never null)
    want = {(d["deployment"], "inf" if d["request_rate"] == "inf" else float(d["request_rate"])):
            d["total_output_tokens"] / d["duration"] for d in raw}
    assert got.keys() == want.keys() and len(got) == 9
    assert all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in want)
    assert {r["repeat"] for r in data["runs"]} == {1}
