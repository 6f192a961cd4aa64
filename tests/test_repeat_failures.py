"""Failures are never lost (issue 20, item 1): a generated round with three repeats per tier
where one repeat of the top tier has 2 failed requests. The failures must reach the setup card,
the runs table, the tier and `check`; counts are summed over repeats, never a median."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from reportgen.cli import main

TIERS = (1, 4, 16)
REPEATS = 3
PER_RUN = 8  # requests per run = 8 × C
FAILED_AT = (16, 2)  # (tier, repeat index 0-based) with failures
FAILED = 2
TAG = re.compile(r"<[^>]+>")
Runs = dict[tuple[int, int], dict[str, Any]]


def payload(conc: int, run: int, failed: int) -> dict[str, Any]:
    """A `vllm bench serve --save-result` JSON; runs differ in duration so none is a copy."""
    n = PER_RUN * conc
    done = n - failed
    duration = 10.0 + run + conc / 10
    metrics: dict[str, float] = {}
    for name, median in (("ttft", 100.0 + conc), ("tpot", 10.0), ("itl", 10.0),
                         ("e2el", 100.0 + conc + 99 * 10.0)):
        metrics |= {f"mean_{name}_ms": median, f"median_{name}_ms": median,
                    f"std_{name}_ms": 1.0, f"p99_{name}_ms": 1.5 * median}
    return {
        "date": "20250301-101500", "backend": "vllm", "label": None,
        "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": done, "failed": failed,
        "total_input_tokens": 1000 * done, "total_output_tokens": 100 * done,
        "request_throughput": done / duration, "output_throughput": 100 * done / duration,
        "total_token_throughput": 1100 * done / duration, **metrics,
    }


def write_round(root: Path) -> Runs:
    runs: Runs = {}
    for conc in TIERS:
        for run in range(REPEATS):
            failed = FAILED if (conc, run) == FAILED_AT else 0
            data = payload(conc, run, failed)
            runs[conc, run] = data
            path = root / "vllm" / f"c{conc}-run{run + 1}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data), encoding="utf-8")
    return runs


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Runs]:
    root = tmp_path_factory.mktemp("repeats") / "round"
    return root, write_round(root)


def cli(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result


def test_the_tier_sums_counts_over_every_repeat(generated: tuple[Path, Runs]) -> None:
    root, runs = generated
    data = json.loads(cli("tables", str(root), "--format", "json").output)
    by_c = {t["concurrency"]: t for t in data["tiers"]}
    for conc in TIERS:
        mine = [runs[conc, r] for r in range(REPEATS)]
        tier = by_c[conc]
        assert tier["repeats"] == REPEATS
        assert tier["requests"] == sum(r["num_prompts"] for r in mine)
        assert tier["completed"] == sum(r["completed"] for r in mine)
        assert tier["failed"] == sum(r["failed"] for r in mine)
        # a wave belongs to one run: 8 × C requests at C are 8 waves, not 24
        assert tier["waves"] == PER_RUN
    assert by_c[16]["failed"] == FAILED
    assert (by_c[16]["failed_min"], by_c[16]["failed_max"]) == (0, FAILED)
    # each run keeps its own counts in the runs table
    own = {(r["concurrency"], r["repeat"]): (r["completed"], r["failed"]) for r in data["runs"]}
    for (conc, run), raw in runs.items():
        assert own[conc, run + 1] == (raw["completed"], raw["failed"])
    # the setup totals count every run
    values = data["values"]
    assert values["setup.requests_total"] == sum(r["num_prompts"] for r in runs.values())
    assert values["setup.completed_total"] == sum(r["completed"] for r in runs.values())
    assert values["setup.failed_total"] == FAILED


def test_check_reports_the_failures_and_the_disagreeing_repeats(
        generated: tuple[Path, Runs]) -> None:
    root, runs = generated
    text = " ".join(cli("check", str(root)).output.split())
    sent = sum(runs[16, r]["num_prompts"] for r in range(REPEATS))
    assert f"C=16: {FAILED} of {sent} requests failed" in text
    assert (f"C=16: its {REPEATS} repeats disagree on failed requests (from 0 to {FAILED} "
            "per run)") in text
    assert "Every request completed." not in text


def test_the_page_shows_the_failures(generated: tuple[Path, Runs], tmp_path: Path) -> None:
    root, runs = generated
    out = tmp_path / "report.html"
    assert cli("build", str(root), "-o", str(out)).exit_code == 0
    page = out.read_text(encoding="utf-8")
    text = html.unescape(" ".join(TAG.sub(" ", page).split()))
    sent = sum(r["num_prompts"] for r in runs.values())
    setup = re.search(r'<section id="(?:w\d-)?setup".*?</section>', page, re.DOTALL)
    assert setup is not None
    setup_text = html.unescape(" ".join(TAG.sub(" ", setup.group(0)).split()))
    assert f"Failed requests {FAILED} / {sent:,}" in setup_text
    # the runs table keeps the failing run's own counts
    failing = runs[FAILED_AT]
    assert re.search(rf"c16-run3\.json \S+ 16 3 {failing['completed']} {FAILED} ", text), \
        "the failing run's row"
    tier_sent = sum(runs[16, r]["num_prompts"] for r in range(REPEATS))
    assert f"C=16: {FAILED} of {tier_sent} requests failed" in text
    assert f"C=16: its {REPEATS} repeats disagree on failed requests" in text
