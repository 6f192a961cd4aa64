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


def reading(value: float) -> str:
    """How `reportgen diff` and the revisions section print a changed number here: two
    decimals, trailing zeros dropped (old and new already differ at two decimals)."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def change(a: float, b: float) -> tuple[str, str]:
    return f"{b - a:+,.2f}".rstrip("0").rstrip("."), f"{(b - a) / a:+.1%}"


def c16_group(data: dict) -> dict:
    tiers = [g for g in data["groups"] if g["point"] is not None]
    assert [g["input"] for g in tiers] == ["vllm C=16"]  # no other tier moved
    return tiers[0]


@pytest.mark.parametrize("old_source", ["report", "old"])
def test_diff_lists_the_corrected_cells(rounds: dict, old_source: str) -> None:
    old = str(rounds[old_source])
    data = json.loads(run("diff", old, str(rounds["new"]), "--format", "json").stdout)
    group = c16_group(data)
    assert group["source"] == c16_file(rounds["new"]).relative_to(rounds["new"]).as_posix()
    by_name = {f["name"]: f for f in group["figures"]}
    for column, (a, b) in expected_cells(rounds["original"]).items():
        figure = by_name[f"tiers.{column}"]
        assert (figure["old"], figure["new"]) == pytest.approx((a, b), rel=1e-9), column
        assert figure["delta"] == pytest.approx(b - a, rel=1e-9)
        assert figure["relative"] == pytest.approx((b - a) / a, rel=1e-9)
        # the headline value quoting the cell is the same figure, not another row
        assert f"values:tiers.vllm.c16.{column}" in figure["places"]
    names = [f["name"] for g in data["groups"] for f in g["figures"]]
    assert len(names) == len(set((g["input"], f["name"]) for g in data["groups"]
                                 for f in g["figures"]))

    text = run("diff", old, str(rounds["new"])).stdout
    lines = text.splitlines()
    at = lines.index(f"vllm C=16  ({group['source']})")
    row = next(line for line in lines[at:] if line.startswith("  tiers.output_tok_s "))
    a, b = expected_cells(rounds["original"])["output_tok_s"]
    assert row.split() == ["tiers.output_tok_s", reading(a), reading(b), *change(a, b)]
    total = sum(len(g["figures"]) for g in data["groups"])
    # the new duration also moves C=16's telemetry window: its energy becomes measurable
    # (added), and its power and utilisation are read over the moved window (changed)
    changed, added = data["summary"]["changed"], data["summary"]["added"]
    assert changed + added == total and data["summary"]["removed"] == 0
    assert lines[-1] == (f"{changed} changed · {added} added · 0 removed, "
                         f"in {len(data['groups'])} inputs")
    assert max(map(len, lines)) <= 100


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
    data = json.loads(run("diff", str(rounds["report"]), str(rounds["new"]), "--format",
                          "json").stdout)
    changed, added = data["summary"]["changed"], data["summary"]["added"]
    assert (f"{changed} figures changed, {added} added, 0 removed, "
            f"in {len(data['groups'])} inputs" in text)
    a, b = expected_cells(rounds["original"])["output_tok_s"]
    delta, rel = change(a, b)
    # the group's first row names the input (the engine's label and the tier)
    assert f"vLLM BF16 C=16 {c16_group(data)['figures'][0]['name']} " in text
    assert f"tiers.output_tok_s {reading(a)} {reading(b)} {delta} ({rel})" in text
    d0 = rounds["original"]["duration"]
    assert f"tiers.duration_s {reading(d0)} {reading(NEW_DURATION_S)}" in text


def test_build_with_previous_of_the_same_data_says_nothing_changed(rounds: dict) -> None:
    page = rounds["base"] / "same-report.html"
    result = run("build", str(rounds["old"]), "-q", "-o", str(page), "--previous",
                 str(rounds["report"]))
    assert result.exit_code == 0, result.output
    text = " ".join(revisions_text(page).split())
    assert "old-report.html, no figure changed." in text
    assert "output_tok_s" not in text
