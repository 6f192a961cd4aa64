"""A folder where nothing can be placed: the error lists the JSON, JSON Lines and CSV files
first, each with what it looked like, then every other file counted by kind and folder
("24 Prometheus scrapes under raw-metrics/"); a vLLM-family file with latency statistics only
(vllm-ascend's serving JSON) is read for its latencies, its throughput unknown, and the
throughput sections say in one sentence why they are empty (issue 30, item 9)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reportgen.cli import main
from reportgen.load.looks import describe_csv, describe_json

CUT_DOWN = {"mean_ttft_ms": 20.0, "median_ttft_ms": 19.0, "p99_ttft_ms": 40.0,
            "median_itl_ms": 5.0, "median_tpot_ms": 5.1}  # vllm-ascend nightly: latency only


def _fails(root: Path) -> str:
    result = CliRunner().invoke(main, ["check", str(root)])
    assert result.exit_code == 2, result.output
    return result.output


def test_cut_down_vllm_file_says_what_it_has_and_lacks() -> None:
    text = describe_json(json.dumps(CUT_DOWN).encode())
    assert text.startswith("vLLM-like JSON without output_throughput, completed or duration")
    assert "median_ttft_ms" in text and "mean_ttft_ms" in text


def test_other_json_and_csv_descriptions() -> None:
    assert "benchmark_latency" in describe_json(
        json.dumps({"avg_latency": 1.0, "latencies": [1.0], "percentiles": {}}).encode())
    assert describe_json(b'{"gpu_name": "H100"}').startswith("JSON without 'duration'")
    assert describe_csv(b"step,loss,lr\n1,2,3\n").startswith("CSV with columns step, loss, lr")


def test_nothing_placed_lists_data_files_first_with_what_they_looked_like(
        tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    for name in ("A.md", "B.txt", "E.md", "F.txt", "G.md", "H.txt", "I.md", "J.txt", "K.md"):
        (root / name).write_text("notes\n")
    (root / "z-meta.json").write_text(json.dumps({"gpu_name": "H100"}))
    (root / "z-mine.csv").write_text("step,loss\n1,2\n")
    err = _fails(root)
    seen = err.split("files seen: ", 1)[1]
    entries = seen.split("; ")
    assert entries[0].startswith("z-meta.json: JSON without 'duration'")
    assert entries[1].startswith("z-mine.csv: CSV with columns step, loss")
    assert "(+3 more)" in err   # 11 files: the 2 data files and 6 others named


def test_a_folder_of_scrapes_and_logs_lists_every_file_by_kind(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "raw-metrics").mkdir(parents=True)
    (root / "logs").mkdir()
    for i in range(24):
        (root / "raw-metrics" / f"scrape_{i}.prom").write_text(
            "# TYPE vllm:num_requests_running gauge\n"
            f'vllm:num_requests_running{{model_name="m"}} {i}\n')
    (root / "README.md").write_text("# notes\n")
    err = _fails(root)
    seen = err.split("files seen: ", 1)[1]
    assert seen.startswith("24 Prometheus scrapes under raw-metrics/")
    assert "README.md: not a benchmark result" in seen


def test_a_latency_only_file_beside_real_runs_is_read_for_its_latencies(
        tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "c4.json").write_text(json.dumps({
        "max_concurrency": 4, "duration": 10.0, "completed": 8, "num_prompts": 8,
        "total_input_tokens": 800, "total_output_tokens": 400, "median_ttft_ms": 9.0}))
    (root / "ascend.json").write_text(json.dumps(CUT_DOWN | {"max_concurrency": 8}))
    result = CliRunner().invoke(main, ["tables", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    runs = {r["source"]: r for r in json.loads(result.stdout)["runs"]}
    assert runs["ascend.json"]["ttft_p50_ms"] == CUT_DOWN["median_ttft_ms"]
    # no duration, count or tokens: unknown, never 0
    assert runs["ascend.json"]["output_tok_s"] is None
    assert runs["ascend.json"]["completed"] is None


def test_a_round_of_latency_only_files_is_drawn_and_says_why_no_throughput(
        tmp_path: Path) -> None:
    from reportgen.build import assemble_report
    from tests.page_audit import _sections, _texts

    root = tmp_path / "ascend"
    root.mkdir()
    for c in (1, 4):
        (root / f"serving_c{c}.json").write_text(json.dumps(
            CUT_DOWN | {"max_concurrency": c, "median_ttft_ms": 19.0 * c}))
    built = assemble_report(root)
    texts = [(sid, t.en) for sid, s in _sections(built.page) for _, t in _texts(s)]
    why = [sid for sid, t in texts if t.startswith("No throughput here")]
    assert why and len(why) == len(set(why))          # one sentence per throughput section
    result = CliRunner().invoke(main, ["tables", str(root), "--format", "json"])
    got = sorted((r["concurrency"], r["ttft_p50_ms"]) for r in json.loads(result.stdout)["tiers"])
    assert got == [(1, 19.0), (4, 76.0)]
