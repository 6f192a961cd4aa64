"""One bandwidth everywhere (issue 20, item 3): captions, formulas and prose show the bandwidth
the numbers used — with two tensor-parallel GPUs "2 × 1,008 = 2,016 GB/s", never the one-GPU
figure next to numbers computed from two."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from reportgen.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
TAG = re.compile(r"<[^>]+>")


def tp_round(tmp_path: Path, engines: tuple[str, ...]) -> Path:
    root = tmp_path / SAMPLE.name
    shutil.copytree(SAMPLE, root)
    shutil.rmtree(root / "narrative")
    toml = root / "round.toml"
    text = toml.read_text(encoding="utf-8")
    for engine in engines:
        text = text.replace(f'id = "{engine}"\n', f'id = "{engine}"\ntensor_parallel = 2\n')
    toml.write_text(text, encoding="utf-8")
    return root


def page_text(root: Path, tmp_path: Path) -> tuple[str, dict[str, object]]:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["build", str(root), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = html.unescape(" ".join(TAG.sub(" ", out.read_text(encoding="utf-8")).split()))
    data = json.loads(CliRunner().invoke(main, ["tables", str(root), "--format", "json"]).output)
    return text, data


def test_two_gpus_show_the_sum_the_numbers_used(tmp_path: Path) -> None:
    text, data = page_text(tp_round(tmp_path, ("vllm", "llamacpp")), tmp_path)
    for e in data["engines"]:
        assert (e["bandwidth_gpus"], e["gpu_bandwidth_gb_s"], e["bandwidth_gb_s"]) == \
            (2, 1008, 2016)
    assert "÷ 2 × 1,008 = 2,016 GB/s" in text                      # the floor formula
    assert "÷ the nominal 2 × 1,008 = 2,016 GB/s" in text          # the MBU sentence
    assert "÷ 1,008 GB/s" not in text


def test_configurations_on_different_bandwidths_are_named(tmp_path: Path) -> None:
    text, _ = page_text(tp_round(tmp_path, ("vllm",)), tmp_path)
    assert "vLLM BF16 2 × 1,008 = 2,016 · llama.cpp Q4_K_M 1,008 GB/s" in text
    assert "÷ 1,008 GB/s" not in text
