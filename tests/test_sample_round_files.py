"""The bundled Round 2 raw files: rebuilt deterministically, and every published figure is
recoverable from them with plain arithmetic (json, str.split, re — not the reportgen loaders).

Reference figures come from tests/data/round2-reference; the raw files from
sample_runs/round2-rtx4090, written by tools/reconstruct_round2.py.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from data_paths import REFERENCE

REPO = Path(__file__).resolve().parents[1]
ROUND = REPO / "sample_runs" / "round2-rtx4090"
SCRIPT = REPO / "tools" / "reconstruct_round2.py"
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)
NEW_CLI_KEYS = [
    "date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
    "request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed",
    "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
    "output_throughput", "total_token_throughput", "max_output_tokens_per_s",
    "max_concurrent_requests",
    *(f"{s}_{m}_ms" for m in ("ttft", "tpot", "itl", "e2el")
      for s in ("mean", "median", "std", "p50", "p99")),
]
DETAIL_KEYS = ["input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
               "queue_times", "generated_texts", "errors"]


def fmt(value: float, like: str) -> str:
    """`value` printed with as many decimals as the published text `like`."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    return f"{value:.{decimals}f}"


@pytest.fixture(scope="module")
def published() -> dict:
    with (REFERENCE / "tiers.csv").open(newline="", encoding="utf-8") as f:
        tiers = {(r["engine"], int(r["concurrency"])): r for r in csv.DictReader(f)}
    with (REFERENCE / "graph_reuse.csv").open(newline="", encoding="utf-8") as f:
        reuse = {int(r["concurrency"]): r for r in csv.DictReader(f)}
    figures = tomllib.loads((REFERENCE / "published_figures.toml").read_text(encoding="utf-8"))
    return {"tiers": tiers, "reuse": reuse, "figures": figures}


@pytest.fixture(scope="module")
def bench() -> dict[tuple[str, int], tuple[str, dict]]:
    """(engine, C) -> (raw file text, parsed record)."""
    out = {}
    for engine in ("vllm", "llamacpp"):
        for path in sorted((ROUND / engine / "bench").glob("*.json")):
            text = path.read_text(encoding="utf-8")
            rec = json.loads(text)
            out[(engine, rec["max_concurrency"])] = (path.name, text, rec)
    return out


def test_reconstruction_is_byte_identical(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--reference", str(REFERENCE),
                           "--out", str(tmp_path)], capture_output=True, text=True, check=True)
    written = done.stdout.split()
    assert len(written) == 14 + 2 + 1 + 14 + 1 + 1  # bench, llama log+fp, vllm log, prom, csv, fp
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (ROUND / rel).read_bytes(), rel


def test_bench_files_are_new_cli_results(bench: dict) -> None:
    assert sorted(bench) == sorted((e, c) for e in ("vllm", "llamacpp") for c in CONCURRENCY)
    for (engine, conc), (name, text, rec) in bench.items():
        assert "\n" not in text  # json.dump: one line, no trailing newline
        detailed = engine == "vllm" and conc == 1
        keys = list(rec)
        assert keys == (NEW_CLI_KEYS[:19] + DETAIL_KEYS + NEW_CLI_KEYS[19:] if detailed
                        else NEW_CLI_KEYS), name
        assert name == (f"openai-infqps-concurrency{conc}-Qwen2.5-7B-Instruct-"
                        f"{rec['date']}.json")
        assert rec["request_rate"] == "inf" and rec["max_concurrency"] == conc
    dates = [bench[(e, c)][2]["date"] for e in ("vllm", "llamacpp") for c in CONCURRENCY]
    assert dates == sorted(dates) and len(set(dates)) == 14


def test_bench_files_reproduce_tiers_csv(bench: dict, published: dict) -> None:
    for (engine, conc), row in published["tiers"].items():
        rec = bench[(engine, conc)][2]
        duration = rec["duration"]
        assert rec["num_prompts"] == int(row["requests"])
        assert rec["completed"] == int(row["completed"])
        assert rec["total_input_tokens"] == 1024 * rec["completed"]
        got = {
            "duration_s": duration,
            "output_tok_s": rec["total_output_tokens"] / duration,
            "total_tok_s": (rec["total_input_tokens"] + rec["total_output_tokens"]) / duration,
            "ttft_p50_ms": rec["median_ttft_ms"],
            "ttft_p99_ms": rec["p99_ttft_ms"],
            "itl_p50_ms": rec["median_itl_ms"],
            "itl_mean_ms": rec["mean_itl_ms"],
            "itl_p99_ms": rec["p99_itl_ms"],
            "e2el_p50_ms": rec["median_e2el_ms"],
            "wait_ratio_pct": (rec["mean_tpot_ms"] / rec["median_itl_ms"] - 1) * 100,
        }
        for column, value in got.items():
            assert fmt(value, row[column]) == row[column], (engine, conc, column, value)


def test_bench_files_reproduce_published_figures(bench: dict, published: dict) -> None:
    f = published["figures"]
    vllm1, llama1 = bench[("vllm", 1)][2], bench[("llamacpp", 1)][2]
    assert f"{llama1['median_ttft_ms']:.1f}" == f"{f['prefill']['llamacpp_ttft_p50_ms']:.1f}"
    assert f"{vllm1['median_ttft_ms']:.1f}" == f"{f['prefill']['vllm_ttft_p50_ms']:.1f}"
    for key, want in f["tpot_range"].items():
        engine, conc = key.split("_")[0], int(key.split("_")[1][1:])
        assert f"{bench[(engine, conc)][2]['median_tpot_ms']:.2f}" == f"{want:.2f}", key
    for engine, conc in (("llamacpp", 32), ("llamacpp", 64), ("vllm", 32)):
        rec = bench[(engine, conc)][2]
        waves = math.ceil(rec["num_prompts"] / conc)
        e2el_s = rec["median_e2el_ms"] / 1000
        short = f"{engine}_c{conc}"
        assert f"{e2el_s:.2f}" == f"{f['waves'][f'{short}_e2el_p50_s']:.2f}"
        per_wave = f["waves"][f"{short}_duration_per_wave_s"]
        assert f"{rec['duration'] / waves:.2f}" == f"{per_wave:.2f}"
    llama = [bench[("llamacpp", c)][2] for c in CONCURRENCY]
    vllm = [bench[("vllm", c)][2] for c in CONCURRENCY]
    sc = f["self_checks"]
    assert sum(r["total_output_tokens"] for r in llama) == sc["llamacpp_output_tokens_total"]
    assert all(r["total_output_tokens"] == 256 * r["completed"] for r in vllm)
    assert f"{llama[0]['total_output_tokens'] / llama[0]['completed']:.2f}" == "255.95"
    assert f"{llama[5]['total_output_tokens'] / llama[5]['completed']:.2f}" == "250.00"
    assert all(250 <= r["total_output_tokens"] / r["completed"] <= 256 for r in llama)
    assert sum(r["failed"] for r in llama + vllm) == f["setup"]["failed_requests"] == 1
    assert bench[("llamacpp", 32)][2]["failed"] == 1
    assert sum(r["num_prompts"] for r in llama) == f["setup"]["total_requests"]


def test_cross_engine_figures(bench: dict, published: dict) -> None:
    """Published figures that combine tiers or engines: bandwidth, step ratio, crossover,
    client-side TTFT gap, wave gaps."""
    f = published["figures"]
    ba, cr = f["byte_accounting"], f["crossover"]
    kv = ba["kv_tokens_per_slot"] * ba["kv_bytes_per_token"]
    step_v = ba["vllm_matmul_params"] * ba["vllm_bytes_per_param"] + kv
    step_l = 4.68e9 + kv
    itl_v = bench[("vllm", 1)][2]["median_itl_ms"]
    itl_l = bench[("llamacpp", 1)][2]["median_itl_ms"]
    assert f"{step_v / itl_v / 1e6:.0f}" == str(ba["vllm_effective_gb_s"])
    assert f"{step_l / itl_l / 1e6:.0f}" == str(ba["llamacpp_effective_gb_s"])
    assert f"{itl_v / itl_l:.2f}" == f"{ba['measured_step_ratio']:.2f}"
    assert f"{itl_v / itl_l / (step_v / step_l) * 100:.0f}" == str(ba["prediction_attained_pct"])

    def ratio(conc: int) -> float:
        llama, vllm = bench[("llamacpp", conc)][2], bench[("vllm", conc)][2]
        return (llama["total_output_tokens"] / llama["duration"]
                / (vllm["total_output_tokens"] / vllm["duration"]))

    assert f"{ratio(8):.3f}" == f"{cr['ratio_at_c8']:.3f}"
    assert f"{ratio(16):.3f}" == f"{cr['ratio_at_c16']:.3f}"
    x = math.log(ratio(8)) / (math.log(ratio(8)) - math.log(ratio(16)))
    assert f"{8 * 2**x:.1f}" == str(cr["crossover_concurrency"])
    gap = 1 - bench[("llamacpp", 1)][2]["median_ttft_ms"] / bench[("vllm", 1)][2]["median_ttft_ms"]
    assert f"{gap * 100:.1f}" == str(f["prefill"]["client_side_gap_pct"])
    for conc in (32, 64):
        rec = bench[("llamacpp", conc)][2]
        per_wave = rec["duration"] / math.ceil(rec["num_prompts"] / conc)
        wave_gap = per_wave / (rec["median_e2el_ms"] / 1000) - 1
        assert f"{wave_gap * 100:.1f}" == str(f["waves"][f"llamacpp_c{conc}_gap_pct"])


def test_detailed_arrays_give_the_summary(bench: dict) -> None:
    """vLLM C=1 carries --save-detailed arrays (seconds); calculate_metrics on them must give
    every summary key of the file."""
    rec = bench[("vllm", 1)][2]
    n = rec["num_prompts"]
    assert all(len(rec[k]) == n for k in DETAIL_KEYS)
    assert all(len(row) == 255 for row in rec["itls"]) and set(rec["output_lens"]) == {256}
    assert set(rec["errors"]) == {""}
    ttft = np.array(rec["ttfts"])
    lat = np.array(rec["latencies"])
    tpot = (lat - ttft) / (np.array(rec["output_lens"]) - 1)
    itl = np.array([x for row in rec["itls"] for x in row])
    assert np.allclose(lat, ttft + np.array([sum(r) for r in rec["itls"]]), rtol=0, atol=1e-9)
    for metric, values in (("ttft", ttft), ("tpot", tpot), ("itl", itl), ("e2el", lat)):
        expect = {"mean": np.mean(values), "median": np.median(values), "std": np.std(values),
                  "p50": np.percentile(values, 50), "p99": np.percentile(values, 99)}
        for stat, value in expect.items():
            assert rec[f"{stat}_{metric}_ms"] == pytest.approx(value * 1000, rel=1e-12)
    starts = np.array(rec["start_times"])
    assert np.all(np.diff(starts) > lat[:-1])  # C=1: each request starts after the last ended
    end = starts[-1] + lat[-1]
    assert 0 < rec["duration"] - (end - starts[0]) < 0.01


BLOCK = re.compile(r"^(\d+)\.(\d\d)\.(\d{3})\.(\d{3}) I slot print_timing: id +(\d+) \| task (\d+)"
                   r" \| prompt eval time = +([\d.]+) ms / +(\d+) tokens")
GRAPHS = re.compile(r"print_timing: id +(\d+) \| task (\d+) \|    graphs reused = +(\d+)$")
EVAL = re.compile(r"print_timing: id +\d+ \| task \d+ \|        eval time = +[\d.]+ ms / +(\d+) ")


@pytest.fixture(scope="module")
def llama_log() -> list[str]:
    return (ROUND / "llamacpp" / "server.log").read_text(encoding="utf-8").splitlines()


def test_llama_log_blocks_and_graph_reuse(llama_log: list[str], published: dict) -> None:
    prompt_ms, graphs, evals = [], [], []
    for line in llama_log:
        if m := BLOCK.match(line):
            prompt_ms.append(float(m.group(7)))
            assert m.group(8) == "1024"
        elif m := GRAPHS.search(line):
            graphs.append(int(m.group(3)))
        elif m := EVAL.search(line):
            evals.append(int(m.group(1)))
    f = published["figures"]["graph_reuse"]
    assert len(prompt_ms) == len(graphs) == len(evals) == f["print_timing_lines_total"] == 1359
    assert graphs == sorted(graphs)  # cumulative counter
    counts = [f["warmup_print_timing_lines"],
              *(int(published["reuse"][c]["print_timing_lines"]) for c in CONCURRENCY)]
    ends = np.cumsum(counts) - 1  # index of the last block of each segment
    for k, conc in enumerate(CONCURRENCY):
        delta = graphs[ends[k + 1]] - graphs[ends[k]]
        assert delta == int(published["reuse"][conc]["graphs_reused_delta"]), conc
    c1 = prompt_ms[counts[0]:counts[0] + counts[1]]
    median = statistics.median(c1)
    want = published["figures"]["prefill"]["llamacpp_prompt_eval_median_ms"]
    assert f"{median:.1f}" == f"{want:.1f}" and len(c1) == 40
    assert all(250 <= n <= 256 for n in evals)


def test_llama_log_failure_and_startup(llama_log: list[str], published: dict) -> None:
    text = "\n".join(llama_log)
    errors = [line for line in llama_log if " E srv    send_error: task id = " in line]
    assert len(errors) == 1
    task = errors[0].split("task id = ")[1].split(",")[0]
    assert f"| task {task} | stop processing: n_tokens = 0, truncated = 0" in text
    assert f"| task {task} | prompt eval time" not in text
    setup = published["figures"]["setup"]
    assert re.search(rf"I build_info: b9\d\d\d-{setup['llamacpp_commit']}\n", text)
    assert f"n_slots = {setup['llamacpp_slots']}, n_ctx_slot = 4096" in text
    assert f"llama_context: n_ctx         = {setup['llamacpp_context']}\n" in text
    m = re.search(r"CUDA0 model buffer size = +([\d.]+) MiB", text)
    assert m and f"{float(m.group(1)) / 1024:.2f}" == "4.36"
    m = re.search(r"llama_kv_cache: size = +([\d.]+) MiB \( *(\d+) cells", text)
    assert m and float(m.group(1)) / 1024 == 14.0 and int(m.group(2)) == 262144
    stamps = [line.split(" ", 1)[0] for line in llama_log]
    seconds = [int(a) * 60 + int(b) + int(c) / 1e3 + int(d) / 1e6
               for a, b, c, d in (s.split(".") for s in stamps)]
    assert seconds == sorted(seconds)


def prom(path: Path) -> dict[str, float]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def test_vllm_prefill_scrape_and_monotonic_counters(published: dict) -> None:
    scrapes = [(prom(ROUND / "vllm" / "metrics" / f"c{c}-before.prom"),
                prom(ROUND / "vllm" / "metrics" / f"c{c}-after.prom")) for c in CONCURRENCY]
    labels = '{model_name="Qwen/Qwen2.5-7B-Instruct",engine="0"}'
    count_key = "vllm:request_prefill_time_seconds_count" + labels
    sum_key = "vllm:request_prefill_time_seconds_sum" + labels
    before, after = scrapes[0]
    count = after[count_key] - before[count_key]
    total = after[sum_key] - before[sum_key]
    want = published["figures"]["prefill"]["vllm_request_prefill_time_ms"]
    assert count == 40 and f"{total / count * 1000:.1f}" == f"{want:.1f}"
    cumulative = {name for b, a in scrapes for name in (*b, *a)
                  if re.search(r"_(total|count|sum|bucket)\{", name)}
    assert len(cumulative) > 200
    for name in cumulative:  # after of tier k <= before of tier k+1, and so on
        seq = [v for b, a in scrapes for v in (b[name], a[name])]
        assert seq == sorted(seq), name
    gen = "vllm:generation_tokens_total" + labels
    for conc, (b, a) in zip(CONCURRENCY, scrapes, strict=True):
        assert a[gen] - b[gen] == 256 * int(published["tiers"][("vllm", conc)]["completed"])


def test_fingerprints_and_gpu_csv(published: dict) -> None:
    f = published["figures"]
    for engine in ("vllm", "llamacpp"):
        text = (ROUND / engine / "fingerprint.txt").read_text(encoding="utf-8")
        assert f"Driver Version: {f['setup']['driver']}" in text
        assert f"CUDA Version: {f['setup']['cuda']}" in text
        assert "NVIDIA GeForce RTX 4090" in text and "/  24564MiB |" in text
    llama = (ROUND / "llamacpp" / "fingerprint.txt").read_text(encoding="utf-8")
    row = re.search(r"\| +\d+% +(\d+)C +P\d +\d+W / +\d+W \| +(\d+)MiB / +(\d+)MiB", llama)
    assert row and int(row.group(1)) == f["self_checks"]["max_gpu_temperature_c"]
    assert int(row.group(2)) == f["memory"]["llamacpp_nvidia_smi_mib"]
    assert "--cache-ram 0 --slot-prompt-similarity 0" in llama and "-np 64 -c 262144" in llama
    assert not (ROUND / "llamacpp" / "gpu.csv").exists()
    lines = (ROUND / "vllm" / "gpu.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("timestamp, index, name, utilization.gpu [%]")
    temps = [int(line.rsplit(", ", 1)[1]) for line in lines[1:]]
    assert max(temps) <= f["self_checks"]["max_gpu_temperature_c"]


def test_folder_stays_small() -> None:
    size = sum(p.stat().st_size for p in ROUND.rglob("*") if p.is_file())
    assert size < 2_100_000
