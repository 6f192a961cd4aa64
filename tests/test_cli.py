"""The click commands, driven with CliRunner: exit codes, messages, files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
TABLE_KEYS = {"schema", "round", "engines", "tiers", "crossovers", "graph_reuse", "memory",
              "prefill", "checks"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "report.html"
    result = CliRunner().invoke(main, ["build", "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_build_defaults_to_the_sample(built: Path) -> None:
    html = built.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") or html.startswith("<!doctype html>")
    assert "RTX 4090" in html


def test_build_shows_progress_on_stderr(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0
    assert "load" in result.stderr and "wrote" in result.stdout


def test_tables_json_has_every_schema_key() -> None:
    result = CliRunner().invoke(main, ["tables", str(SAMPLE), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= TABLE_KEYS
    assert data["schema"] == "reportgen.tables/2"
    assert len(data["tiers"]) == 14


@pytest.mark.parametrize("fmt", ["csv", "markdown"])
def test_tables_other_formats(fmt: str) -> None:
    result = CliRunner().invoke(main, ["tables", str(SAMPLE), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert "llamacpp" in result.stdout


def test_check_prints_tiers_and_checks() -> None:
    result = CliRunner().invoke(main, ["check", str(SAMPLE)])
    # The sample round has warnings (C=32 dip, token shortfall) but no failed check.
    assert result.exit_code == 0, result.output
    assert "ITL p50" in result.stdout
    assert "443.7" in result.stdout  # llama.cpp C=32 output tok/s
    assert "throughput.monotonic" in result.stdout
    # the check's message, not just its id (wrapped to fit 100 columns)
    assert "below C=16 (548.0)" in " ".join(result.stdout.split())


def test_bad_round_exits_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "round"
    shutil.copytree(SAMPLE, bad)
    bench = sorted((bad / "vllm" / "bench").glob("*.json"))[0]
    bench.write_text('{"duration": ', encoding="utf-8")
    out = tmp_path / "report.html"
    out.write_text("previous report", encoding="utf-8")
    result = CliRunner().invoke(main, ["build", str(bad), "-q", "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    assert bench.name in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert out.read_text(encoding="utf-8") == "previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "round"]


def test_not_a_round_dir(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "not a round directory" in result.stderr


def test_diff_round_against_its_report(built: Path, tmp_path: Path) -> None:
    same = CliRunner().invoke(main, ["diff", str(built), str(SAMPLE)])
    assert same.exit_code == 0, same.output
    assert same.stdout.strip() == "no changes"


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and "reportgen" in result.stdout


def _bench(engine: str, concurrency: int) -> dict:
    (path,) = (SAMPLE / engine / "bench").glob(f"*-concurrency{concurrency}-*.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_values_show_numbers_as_the_page_does() -> None:
    """121.61 not 122, 8 not 8.00 (read from the raw bench file: duration, requests / C)."""
    raw = _bench("llamacpp", 64)
    for name, expected in (("tiers.llamacpp.c64.duration_s", f"{raw['duration']:.2f}"),
                           ("tiers.llamacpp.c64.waves", str(raw["completed"] // 64))):
        result = CliRunner().invoke(main, ["values", str(SAMPLE), name])
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[2] == f"{name}  {expected}"
    assert f"{raw['duration']:.2f}" == "121.61" and raw["completed"] // 64 == 8


def test_values_default_to_the_sample_and_take_a_lone_pattern() -> None:
    result = CliRunner().invoke(main, ["values", "crossover.*_tier"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2:] == ["crossover.lower_tier  8",
                                              "crossover.upper_tier  16"]


def test_values_with_no_match_exits_1() -> None:
    result = CliRunner().invoke(main, ["values", str(SAMPLE), "no-such-name"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "no value name matches 'no-such-name'\n"


def test_check_defaults_to_the_sample_and_ends_with_the_counts() -> None:
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    statuses = [line.split()[0] for line in lines if line[:5] in ("pass ", "warn ", "fail ")]
    warns = sum(1 for line in lines if line.startswith("  warn  ")) + statuses.count("warn")
    assert lines[-1] == (f"{statuses.count('pass')} pass · {warns} warn · "
                         f"{statuses.count('fail')} fail")
    assert max(len(line) for line in lines) <= 100


def test_tables_default_to_the_sample_markdown_reads_plainly() -> None:
    result = CliRunner().invoke(main, ["tables", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings))
    for section in text.split("\n## ")[1:]:  # one table per section
        rules = [line for line in section.splitlines() if line.startswith("|---")]
        assert len(rules) == 1 or section.splitlines()[2] == "(none)", section[:80]
    assert "## values: crossover" in text and "## values: tiers" in text
    assert "| a_over_b_at_lower | a_over_b_at_upper |" in text
    assert not re.search(r"\d\.0 \|", text.replace("| 13.0 |", ""))  # 13.0: a CUDA version
    assert not re.search(r"\de[-+]\d", text)
    raw = _bench("llamacpp", 64)
    assert f"| tiers.llamacpp.c64.duration_s | {raw['duration']:.2f} |" in text
