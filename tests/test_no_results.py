"""A folder where nothing can be placed: the error lists the JSON, JSON Lines and CSV files
first, each with what it looked like, and cut-down vLLM-family files are listed with the keys
they have, never dropped silently (reportgen.load.looks)."""

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
    for name in ("A.md", "B.txt", "C.log", "D.sh", "E.md", "F.txt", "G.md", "H.txt"):
        (root / name).write_text("notes\n")
    (root / "z-ascend.json").write_text(json.dumps(CUT_DOWN))
    (root / "z-meta.json").write_text(json.dumps({"gpu_name": "H100"}))
    (root / "z-mine.csv").write_text("step,loss\n1,2\n")
    err = _fails(root)
    seen = err.split("files seen: ", 1)[1]
    entries = seen.split("; ")
    assert entries[0].startswith("z-ascend.json: vLLM-like JSON without output_throughput")
    assert entries[1].startswith("z-meta.json: JSON without 'duration'")
    assert entries[2].startswith("z-mine.csv: CSV with columns step, loss")
    assert "(+3 more)" in err


def test_a_cut_down_file_beside_real_runs_is_listed_not_dropped(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "c4.json").write_text(json.dumps({
        "max_concurrency": 4, "duration": 10.0, "completed": 8, "num_prompts": 8,
        "total_input_tokens": 800, "total_output_tokens": 400, "median_ttft_ms": 9.0}))
    (root / "ascend.json").write_text(json.dumps(CUT_DOWN))
    result = CliRunner().invoke(main, ["tables", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    skipped = {s["file"]: s["reason"] for s in json.loads(result.stdout)["skipped"]}
    assert "median_ttft_ms" in skipped["ascend.json"]
