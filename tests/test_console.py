"""console: terminal views on tiny inputs, asserted line by line (100 columns at most)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reportgen.analyze.changes import ChangedFigure, Diff, Group, Input
from reportgen.analyze.result import Analysis
from reportgen.analyze.round_facts import RoundInfo
from reportgen.console import (
    checks_text,
    diff_markdown,
    diff_text,
    matching_names,
    status_counts,
    summary_line,
    table_text,
    tiers_text,
    values_text,
)
from reportgen.text.bilingual import Bi

LONG = ("C=16: mean TPOT 34.28 ms, but mean E2EL and TTFT imply 26.27 ms (+30.5%): a few "
        "requests that stopped early lift the mean, or a statistic is off; this tier's wait "
        "ratio uses mean TPOT, so read it as an upper bound.")


def _analysis(axis: str = "concurrency") -> Analysis:
    tiers = pd.DataFrame({"engine": ["a", "a"], "concurrency": [1.0, 1024.0],
                          "requests": [40.0, 1024.0], "output_tok_s": [61.86, 1387.84],
                          "excluded": [False, True]})
    checks = pd.DataFrame({
        "id": ["requests.failed", "tpot.mean_skew", "gpu.temperature"],
        "status": ["pass", "warn", "fail"], "engine": ["a", "a", np.nan],
        "concurrency": [np.nan, 16.0, np.nan], "value": [0.0, 0.3, 90.0],
        "message": [Bi("好", "Every request completed."), Bi("长", LONG), Bi("热", "Hot.")]})
    empty = pd.DataFrame()
    return Analysis(round=RoundInfo(axis=axis), engines=empty, tiers=tiers, crossovers=empty,
                    graph_reuse=empty, memory=empty, prefill=empty, checks=checks)


def test_tiers_text_numbers_as_on_the_page() -> None:
    assert tiers_text(_analysis()).splitlines() == [
        "engine      C  requests  out tok/s  excl",
        "------  -----  --------  ---------  ----",
        "a           1        40       61.9",
        "a       1,024     1,024    1,387.8  yes",
    ]
    assert tiers_text(_analysis("request_rate")).splitlines()[0] == \
        "engine  req/s  requests  out tok/s  excl"


def test_checks_text_wraps_messages_within_100_columns() -> None:
    lines = checks_text(_analysis()).splitlines()
    assert lines == [
        "status  check            where   message",
        "------  ---------------  ------  " + "-" * 67,
        "pass    requests.failed  a       Every request completed.",
        "warn    tpot.mean_skew   a C=16  C=16: mean TPOT 34.28 ms, but mean E2EL and TTFT imply "
        "26.27 ms",
        "                                 (+30.5%): a few requests that stopped early lift the "
        "mean, or a",
        "                                 statistic is off; this tier's wait ratio uses mean TPOT, "
        "so read it",
        "                                 as an upper bound.",
        "fail    gpu.temperature          Hot.",
    ]
    assert max(map(len, lines)) <= 100


def test_summary_line() -> None:
    counts = status_counts(["pass", "warn", "warn", "fail", "pass", "pass"])
    assert summary_line(counts) == "3 pass · 2 warn · 1 fail"
    assert summary_line(status_counts([])) == "0 pass · 0 warn · 0 fail"


def test_table_text_rule_is_as_wide_as_its_column() -> None:
    text = table_text([["x" * 300]], ["message"], wrap=0)
    assert max(len(line) for line in text.splitlines()) == 100


def test_values_text_and_matching() -> None:
    values = {"crossover.lower_tier": 8.0, "crossover.upper_tier": 16.0,
              "tiers.b.c64.duration_s": 121.61290137955864, "pair.a_label": Bi("甲", "A"),
              "tiers.b.c64.excluded": False, "x.missing": np.nan}
    names = matching_names(values, "crossover.*")
    assert names == ["crossover.lower_tier", "crossover.upper_tier"]
    assert matching_names(values, "c64") == ["tiers.b.c64.duration_s", "tiers.b.c64.excluded"]
    assert matching_names(values, "nothing*") == []
    assert values_text(values, sorted(values), "zh").splitlines() == [
        "name                    value",
        "----------------------  ------",
        "crossover.lower_tier    8",
        "crossover.upper_tier    16",
        "pair.a_label            甲",
        "tiers.b.c64.duration_s  121.61",
        "tiers.b.c64.excluded    no",
        "x.missing               —",
    ]


def _diff() -> Diff:
    return Diff("concurrency", (
        Group(Input(), (ChangedFigure("crossover.concurrency", 8.25, 8.3,
                                      ("values:crossover.x",)),)),
        Group(Input("", "vllm", 8.0, "vllm/bench/c8.json"), (
            ChangedFigure("tiers.output_tok_s", 411.39, 403.33, ("tiers[vllm C=8].output_tok_s",)),
            ChangedFigure("tiers.failed", 0, None, ("tiers[vllm C=8].failed",)),
            ChangedFigure("checks.requests.failed.message", "Every request completed.",
                   "1 of 120 requests failed; throughput counts completed requests only.",
                   ("checks[requests.failed vllm C=8].message",)),
        )),
    ))


def test_diff_text_groups_rows_by_input_with_a_summary() -> None:
    lines = diff_text(_diff()).splitlines()
    header = ["  figure                                       old               new  delta  change",
              "  ------------------------------  ----------------  ----------------  -----  ------"]
    assert lines == [
        "round", *header,
        "  crossover.concurrency                       8.25               8.3  +0.05   +0.6%",
        "",
        "vllm C=8  (vllm/bench/c8.json)", *header,
        "  tiers.output_tok_s                        411.39            403.33  -8.06   -2.0%",
        "  tiers.failed                                   0                 —",
        "  checks.requests.failed.message  Every request c…  1 of 120 reques…",
        "      old: Every request completed.",
        "      new: 1 of 120 requests failed; throughput counts completed requests only.",
        "",
        "3 changed · 0 added · 1 removed, in 2 inputs",
    ]
    assert max(map(len, lines)) <= 100
    assert diff_text(Diff("concurrency", ())) == "no changes"


def test_diff_markdown() -> None:
    lines = diff_markdown(_diff()).splitlines()
    assert lines[:3] == [
        "| input | figure | old | new | delta | change |",
        "|---|---|---|---|---|---|",
        "| round | crossover.concurrency | 8.25 | 8.3 | +0.05 | +0.6% |",
    ]
    assert lines[-1] == "3 changed · 0 added · 1 removed, in 2 inputs"


def test_tiers_text_leaves_out_columns_no_file_reported() -> None:
    a = _analysis()
    a.tiers["failed"] = np.nan
    a.tiers["engine"] = "a_configuration_with_a_long_name"
    lines = tiers_text(a, width=70).splitlines()
    assert lines == [
        "engine                                C  requests  out tok/s  excl",
        "--------------------------------  -----  --------  ---------  ----",
        "a_configuration_with_a_long_name      1        40       61.9",
        "a_configuration_with_a_long_name  1,024     1,024    1,387.8  yes",
        "not in these files: failed",
    ]


def test_a_table_too_wide_to_wrap_in_puts_the_text_below() -> None:
    rows = [["round/vllm/bench/" + "x" * 80 + ".log", "the same run as another file"]]
    # the 101-character name itself wraps at 100 columns (issue 31: check fits 100 columns)
    assert table_text(rows, ["file", "why"], wrap=1).splitlines() == [
        "file",
        "    why",
        "-" * 100,
        rows[0][0][:100],
        "    " + rows[0][0][100:],
        "    the same run as another file",
    ]
