"""Correcting data after publication (issue 5): one tier of the sample round is corrected, and
the change shows up cell by cell in `reportgen diff` (report → round, round → round) and in the
"revisions" section of a report built with `--previous`.

The correction: vLLM's C=16 run is re-timed at exactly 80 s instead of 75.128 s, with the
summary's throughput keys rewritten to match (tokens and requests unchanged). Output
throughput is tokens / duration, so that cell goes from 51,200 / 75.128… to 51,200 / 80 = 640.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reportgen.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
NEW_DURATION_S = 80.0
SECTION = re.compile(r'<section id="revisions".*?</section>', re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def c16_file(root: Path) -> Path:
    (path,) = (root / "vllm" / "bench").glob("*-concurrency16-*.json")
    return path


def correct_c16(root: Path) -> dict[str, float]:
    """Re-time vLLM C=16 coherently; returns the original summary numbers."""
    path = c16_file(root)
    data = json.loads(path.read_text(encoding="utf-8"))
    original = {k: data[k] for k in ("duration", "total_output_tokens", "total_input_tokens",
                                     "completed")}
    data["duration"] = NEW_DURATION_S
    data["request_throughput"] = data["completed"] / NEW_DURATION_S
    data["output_throughput"] = data["total_output_tokens"] / NEW_DURATION_S
    data["total_token_throughput"] = (data["total_input_tokens"]
                                      + data["total_output_tokens"]) / NEW_DURATION_S
    path.write_text(json.dumps(data), encoding="utf-8")
    return original


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """old/round2-rtx4090 (as published), new/round2-rtx4090 (corrected), the old report."""
    base = tmp_path_factory.mktemp("corrections")
    old = base / "old" / SAMPLE.name
    new = base / "new" / SAMPLE.name
    shutil.copytree(SAMPLE, old)
    shutil.copytree(SAMPLE, new)
    original = correct_c16(new)
    report = base / "old-report.html"
    built = run("build", str(old), "-q", "-o", str(report))
    assert built.exit_code == 0, built.output
    return {"base": base, "old": old, "new": new, "report": report, "original": original}


def expected_cells(original: dict[str, float]) -> dict[str, tuple[float, float]]:
    """column → (old, new) for the C=16 tier cells that follow directly from the correction."""
    d0, d1 = original["duration"], NEW_DURATION_S
    out_tok, in_tok = original["total_output_tokens"], original["total_input_tokens"]
    return {
        "duration_s": (d0, d1),
        "output_tok_s": (out_tok / d0, out_tok / d1),
        "total_tok_s": ((in_tok + out_tok) / d0, (in_tok + out_tok) / d1),
    }


def g6(value: float) -> str:
    """How `reportgen diff` prints a number (6 significant digits)."""
    return f"{value:.6g}"


@pytest.mark.parametrize("old_source", ["report", "old"])
def test_diff_lists_the_corrected_cells(rounds: dict, old_source: str) -> None:
    old = str(rounds[old_source])
    changes = json.loads(run("diff", old, str(rounds["new"]), "--format", "json").stdout)
    tiers = [c for c in changes if c["table"] == "tiers"]
    assert {c["row"] for c in tiers} == {"vllm C=16"}  # no other tier moved
    by_column = {c["column"]: (c["old"], c["new"]) for c in tiers}
    for column, (a, b) in expected_cells(rounds["original"]).items():
        assert by_column[column] == pytest.approx((a, b), rel=1e-9), column

    text = run("diff", old, str(rounds["new"])).stdout
    row = next(line for line in text.splitlines()
               if "vllm C=16" in line and " output_tok_s " in line)
    a, b = expected_cells(rounds["original"])["output_tok_s"]
    assert (g6(a), g6(b)) == ("681.503", "640")
    assert re.search(rf"\b{re.escape(g6(a))}\s+{re.escape(g6(b))}$", row), row
    assert text.rstrip().endswith(f"{len(changes)} change(s)")
    # the headline values quoting that tier move too
    assert any(c["table"] == "values" and c["row"] == "tiers.vllm.c16.output_tok_s"
               for c in changes)


def test_diff_of_identical_data_is_empty(rounds: dict) -> None:
    assert run("diff", str(rounds["report"]), str(rounds["old"])).stdout.strip() == "no changes"
    # a copy in a folder of another name: file references are not changes either
    renamed = rounds["base"] / "renamed-copy"
    shutil.copytree(rounds["old"], renamed)
    assert run("diff", str(rounds["old"]), str(renamed)).stdout.strip() == "no changes"


def revisions_text(page: Path) -> str:
    found = SECTION.search(page.read_text(encoding="utf-8"))
    assert found, "no revisions section"
    return html.unescape(TAG.sub(" ", found.group(0)))


def test_build_with_previous_lists_the_revisions(rounds: dict) -> None:
    page = rounds["base"] / "new-report.html"
    result = run("build", str(rounds["new"]), "-q", "-o", str(page), "--previous",
                 str(rounds["report"]))
    assert result.exit_code == 0, result.output
    text = " ".join(revisions_text(page).split())
    changes = json.loads(run("diff", str(rounds["report"]), str(rounds["new"]), "--format",
                             "json").stdout)
    assert f"{len(changes)} figures changed" in text
    a, b = expected_cells(rounds["original"])["output_tok_s"]
    # the row: table, row, column, old, new (the page prints 6 significant digits too)
    assert f"tiers vllm C=16 output_tok_s {g6(a)} {g6(b)}" in text
    d0 = rounds["original"]["duration"]
    assert f"tiers vllm C=16 duration_s {g6(d0)} {g6(NEW_DURATION_S)}" in text


def test_build_with_previous_of_the_same_data_says_nothing_changed(rounds: dict) -> None:
    page = rounds["base"] / "same-report.html"
    result = run("build", str(rounds["old"]), "-q", "-o", str(page), "--previous",
                 str(rounds["report"]))
    assert result.exit_code == 0, result.output
    text = " ".join(revisions_text(page).split())
    assert "old-report.html, no figure changed." in text
    assert "output_tok_s" not in text
