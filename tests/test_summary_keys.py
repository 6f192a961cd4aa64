"""Corrections are heard (issue 20, item 5): a result file's own summary key that disagrees by
more than 0.5 % with what reportgen computes is a warning naming the file, the key, both values
and the value the page uses; `diff` shows the edit of the key even though the value the page
uses does not move."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from reportgen.analyze.summary_keys import TOLERANCE, key_checks, prefer_arrays
from reportgen.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"


def row(**values: float) -> dict[str, object]:
    base: dict[str, object] = {"source": "r/x.json", "record": 0, "engine": "e",
                               "concurrency": 4.0, "duration_s": 10.0, "completed": 20.0,
                               "total_input_tokens": 1000.0, "total_output_tokens": 4000.0,
                               "output_throughput_tok_s": 400.0, "request_throughput_req_s": 2.0,
                               "total_token_throughput_tok_s": 500.0}
    return base | values


def test_a_key_within_tolerance_is_rounding() -> None:
    summary = pd.DataFrame([row(output_throughput_tok_s=400.0 * (1 + TOLERANCE * 0.9))])
    assert key_checks(summary, pd.DataFrame()) == []


def test_an_edited_key_is_a_warning_with_both_values() -> None:
    summary = pd.DataFrame([row(output_throughput_tok_s=412.0)])
    (c,) = key_checks(summary, pd.DataFrame())
    assert (c.id, c.status, c.message) == ("summary.keys", "warn", "counts")
    assert c.params["field"] == "output_throughput" and c.params["where"] == "r/x.json"
    assert (c.params["file"], c.params["computed"]) == (412.0, 400.0)
    assert c.value == pytest.approx(0.03)


def test_a_median_beyond_tolerance_gives_way_to_the_arrays() -> None:
    summary = pd.DataFrame([row(ttft_median_ms=110.0, itl_median_ms=10.02)])
    recomputed = pd.DataFrame([{"source": "r/x.json", "record": 0, "ttft_median_ms": 100.0,
                                "itl_median_ms": 10.0}])
    (c,) = key_checks(summary, recomputed)
    assert (c.message, c.params["field"], c.params["file"], c.params["computed"]) == (
        "arrays", "median_ttft_ms", 110.0, 100.0)
    used = prefer_arrays(summary, recomputed)
    # 10 % off: the arrays win; 0.2 % off: the file's key stays
    assert used.loc[0, "ttft_median_ms"] == 100.0 and used.loc[0, "itl_median_ms"] == 10.02
    # no array value: the file's key stays
    kept = prefer_arrays(summary, recomputed.assign(ttft_median_ms=np.nan))
    assert kept.loc[0, "ttft_median_ms"] == 110.0


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result


def test_an_edited_output_throughput_is_heard_in_check_and_diff(tmp_path: Path) -> None:
    old, new = tmp_path / "old" / SAMPLE.name, tmp_path / "new" / SAMPLE.name
    shutil.copytree(SAMPLE, old)
    shutil.copytree(SAMPLE, new)
    (path,) = (new / "vllm" / "bench").glob("*-concurrency16-*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    computed = data["total_output_tokens"] / data["duration"]
    edited = round(data["output_throughput"] * 1.035, 1)
    data["output_throughput"] = edited
    path.write_text(json.dumps(data), encoding="utf-8")

    shown = f"{SAMPLE.name}/vllm/bench/{path.name}"
    tables = json.loads(run("tables", str(new), "--format", "json").output)
    (message,) = [c["message"]["en"] for c in tables["checks"] if c["id"] == "summary.keys"]
    assert message.startswith(
        f"{shown}: the file's output_throughput is {edited:,.2f}, but its counts and "
        f"duration give {computed:,.2f} (+3.")
    assert f"the page uses {computed:,.2f}: throughput is always computed" in message
    text = " ".join(run("check", str(new)).output.split())  # the terminal wraps the path
    assert f"output_throughput is {edited:,.2f}, but its counts and duration give" in text
    before = re.search(r"(\d+) warn", run("check", str(old)).output)
    after = re.search(r"(\d+) warn", text)
    assert before and after and int(after[1]) == int(before[1]) + 1

    out = run("diff", str(old), str(new), "--format", "json")
    assert out.exit_code == 0, out.output
    figures = [f for g in json.loads(out.output)["groups"] for f in g["figures"]]
    key_rows = [f for f in figures if f["name"] == "tiers.file_output_tok_s"]
    assert len(key_rows) == 1
    assert key_rows[0]["new"] == edited
    assert key_rows[0]["old"] == pytest.approx(edited / 1.035, abs=0.06)
    # the value the page uses did not move
    assert not [f for f in figures if f["name"] == "tiers.output_tok_s"]
