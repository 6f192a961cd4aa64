"""Every client's own figure reconciled (issue 30, item 6): where a client's own output tok/s
differs from the page's by more than 0.5 %, the runs table shows it beside the page's with the
reason in one line, ``check`` warns once per client and metric, and ``tables`` carries both."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from reportgen.analyze.summary_keys import key_checks
from reportgen.build import assemble_report
from reportgen.load.formats import guidellm
from reportgen.pipeline import tables_of
from tests.page_audit import _sections, _texts

CLIENTS = Path(__file__).parent / "data" / "clients"
AIPERF = CLIENTS / "aiperf-0.13.0" / "concurrency-sweep"


def _row(source: str, own: float, client: str = "aiperf") -> dict[str, object]:
    return {"source": source, "record": 0, "engine": "e", "concurrency": 1.0, "client": client,
            "duration_s": 10.0, "completed": 20.0, "total_output_tokens": 1000.0,
            "output_throughput_tok_s": own}


def test_one_warning_per_client_and_key_naming_the_worst_run() -> None:
    summary = pd.DataFrame([_row("a.json", 97.0), _row("b.json", 90.0), _row("c.json", 100.0),
                            _row("d.json", 120.0, client="vllm")])
    rows = key_checks(summary, pd.DataFrame())
    by = {r.params["client"]: r for r in rows}
    aiperf = by["NVIDIA AIPerf"]
    assert aiperf.message == "counts_client" and aiperf.params["n"] == 2
    assert aiperf.params["runs"] == 3 and aiperf.params["where"] == "b.json"  # 90 vs 100
    assert aiperf.params["off"] == pytest.approx(-0.1)
    # one run of another client: the warning names that file as before
    assert by["vllm bench serve"].message == "counts" and by["vllm bench serve"].engine == "e"


def test_guidellm_reader_keeps_its_own_throughput() -> None:
    path = CLIENTS / "guidellm-0.4.0" / "sweep" / "benchmarks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    runs = [r for r in guidellm.read(path.read_bytes(), "benchmarks.json") if not r.not_a_run]
    for run, bench in zip(runs, data["benchmarks"], strict=True):
        own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
        assert run.record["output_throughput"] == own
        rps = bench["metrics"]["requests_per_second"]["successful"]["mean"]
        assert run.record["request_throughput"] == rps


def test_the_runs_table_and_tables_carry_aiperf_own_figure_with_the_reason() -> None:
    own = {}
    for p in sorted(AIPERF.glob("concurrency_*/profile_export_aiperf.json")):
        data = json.loads(p.read_text(encoding="utf-8"))
        own[p.parent.name] = data["output_token_throughput"]["avg"]
    tables = tables_of(AIPERF)
    runs = pd.DataFrame(tables["runs"])
    for folder, value in own.items():
        row = runs[runs["source"].str.contains(f"{folder}/")]
        assert row["client_output_tok_s"].iloc[0] == pytest.approx(value)
        assert row["output_tok_s"].iloc[0] != pytest.approx(value, rel=0.005)
    worst = max(own, key=lambda k: abs(own[k] / float(
        runs[runs["source"].str.contains(f"{k}/")]["output_tok_s"].iloc[0]) - 1))
    texts = [t.en for _, s in _sections(assemble_report(AIPERF).page) for _, t in _texts(s)]
    [note] = [t for t in texts if "own output tok/s differs" in t]
    assert f"{worst}/profile_export_aiperf.json: NVIDIA AIPerf {own[worst]:.1f} tok/s" in note
    assert "observation_duration" in note


def test_one_run_of_a_client_with_its_own_time_is_its_definition_not_an_edit() -> None:
    # AIPerf 0.13 divides by its profiling window: one run off by 10 % is that, not an edit
    [row] = key_checks(pd.DataFrame([_row("a.json", 90.0)]), pd.DataFrame())
    assert (row.message, row.engine) == ("counts_client_one", "e")
    # vLLM divides by the page's duration: the same difference is an edited key
    [row] = key_checks(pd.DataFrame([_row("a.json", 90.0, client="vllm")]), pd.DataFrame())
    assert row.message == "counts"
    # unknown client: the edited-key wording too
    [row] = key_checks(pd.DataFrame([_row("a.json", 90.0, client="")]), pd.DataFrame())
    assert row.message == "counts"
