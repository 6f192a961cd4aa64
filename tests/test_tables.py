"""tables: JSON schema/nulls/determinism, CSV sections, markdown."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen import schema
from reportgen.analyze.result import Analysis, Constant
from reportgen.analyze.round_facts import RoundInfo
from reportgen.tables import to_csv, to_json, to_json_dict, to_markdown
from reportgen.text.bilingual import Bi


def _analysis() -> Analysis:
    tiers = pd.DataFrame({"engine": ["a", "a"], "concurrency": [1, 2],
                          "requests": [40.0, np.nan], "output_tok_s": [61.9, np.nan],
                          "excluded": [False, True]})
    engines = pd.DataFrame({"id": ["a"], "label": [Bi("甲", "A")],
                            "mbu_c1": [0.89], "kv_bytes_per_token": [57344.0]})
    checks = pd.DataFrame({"id": ["x"], "status": ["warn"], "engine": [None],
                           "concurrency": [np.nan], "value": [np.inf],
                           "message": [Bi("中文 | 竖线", "a | pipe")]})
    empty = pd.DataFrame({"engine_a": pd.Series(dtype=str), "concurrency": pd.Series(dtype=float)})
    return Analysis(
        round=RoundInfo(title=Bi("标题", "Title"), concurrency=(1, 2),
                        memory_gib=np.float64(24.0)),
        engines=engines, tiers=tiers, crossovers=empty, graph_reuse=pd.DataFrame(),
        memory=pd.DataFrame({"engine": ["a"], "weights_gib": [4.36]}),
        prefill=pd.DataFrame({"engine": ["a"], "server_samples": [40.0]}), checks=checks,
        values={"z.last": 1.5, "a.first": np.nan, "m.label": Bi("甲", "A"),
                "n.count": np.int64(3)},
        constants=[Constant("bandwidth_gb_s", 1008.0, "GB/s", Bi("表", "table"))],
    )


def test_json_keys_nulls_pairs_and_ints() -> None:
    data = to_json_dict(_analysis())
    assert data["schema"] == "reportgen.tables/2"
    assert {"round", "engines", "tiers", "crossovers", "graph_reuse", "memory", "prefill",
            "checks", "values", "constants"} <= set(data)
    assert data["tiers"][0]["requests"] == 40 and isinstance(data["tiers"][0]["requests"], int)
    assert data["tiers"][1]["requests"] is None and data["tiers"][1]["output_tok_s"] is None
    assert data["tiers"][0]["output_tok_s"] == 61.9
    assert data["tiers"][1]["excluded"] is True
    assert data["engines"][0]["label"] == {"zh": "甲", "en": "A"}
    assert data["engines"][0]["kv_bytes_per_token"] == 57344
    check = data["checks"][0]
    assert check["message"] == {"zh": "中文 | 竖线", "en": "a | pipe"}
    assert check["engine"] is None and check["value"] is None  # inf is not JSON
    assert list(data["values"]) == ["a.first", "m.label", "n.count", "z.last"]
    assert data["values"]["a.first"] is None and data["values"]["n.count"] == 3
    assert data["values"]["m.label"] == {"zh": "甲", "en": "A"}   # a Bi, written as JSON
    assert data["constants"][0]["provenance"] == {"zh": "表", "en": "table"}
    assert data["crossovers"] == [] and data["round"]["memory_gib"] == 24.0


def test_json_text_is_deterministic_and_strict() -> None:
    text = to_json(_analysis())
    assert text == to_json(_analysis())
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text)["values"]["z.last"] == 1.5


def test_csv_sections_tiers_first_and_parseable() -> None:
    text = to_csv(_analysis())
    names = [line[2:] for line in text.splitlines() if line.startswith("# ")]
    # every table the schema declares, in its order; an optional one only when it has rows
    # (this analysis has none: no runs, no per-request data)
    assert names[0] == "tiers"
    assert names == [s.name for s in schema.specs() if not s.optional]
    assert "skipped" in names and "runs" not in names
    block = text.split("# tiers\n", 1)[1].split("\n\n", 1)[0]
    tiers = pd.read_csv(io.StringIO(block))
    assert list(tiers["concurrency"]) == [1, 2] and np.isnan(tiers["output_tok_s"].iloc[1])
    assert block.splitlines()[1].startswith("a,1,40,61.9,")  # counts without ".0"
    values = text.split("# values\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert values[0] == "key,value" and values[2] == "m.label,甲 / A"


def test_bilingual_columns_are_exported_as_pairs_even_when_empty() -> None:
    a = _analysis()
    text = to_csv(a)
    assert text.split("# engines\n", 1)[1].startswith("id,label_zh,label_en,mbu_c1,")
    assert "value,message_zh,message_en\n" in text.split("# checks\n", 1)[1]
    a = dataclasses.replace(a, checks=a.checks.iloc[:0])
    text = to_csv(a)
    assert text.split("# checks\n", 1)[1].startswith(
        "id,status,engine,concurrency,value,message_zh,message_en\n\n")


def test_markdown_tables() -> None:
    text = to_markdown(_analysis())
    assert text.startswith("# Title\n")
    assert "## tiers" in text and "| engine | concurrency |" in text
    assert "| a | 1 | 40 | 61.9 | no |" in text  # whole numbers without .0
    assert "## values: a\n\n| key | value |\n|---|---|\n| a.first | — |" in text
    assert "## values: n\n\n| key | value |\n|---|---|\n| n.count | 3 |" in text
    assert "a \\| pipe" in text  # a pipe in a cell cannot break the table
    assert "## crossovers\n\n(none)" in text


def test_crossover_ratios_are_named_for_their_direction() -> None:
    from reportgen.analyze.result import Analysis

    a = _analysis()
    crossovers = pd.DataFrame([{"engine_a": "a", "engine_b": "b", "concurrency": 8.25,
                                "lower_tier": 8.0, "upper_tier": 16.0, "ratio_lower": 0.99,
                                "ratio_upper": 1.24}])
    b = Analysis(**{**a.__dict__, "crossovers": crossovers})
    (row,) = to_json_dict(b)["crossovers"]
    assert (row["a_over_b_at_lower"], row["a_over_b_at_upper"]) == (0.99, 1.24)
    assert "ratio_upper" not in row
    assert "| a | b | 8.25 | 8 | 16 | 0.99 | 1.24 |" in to_markdown(b)
    assert "a_over_b_at_lower,a_over_b_at_upper" in to_csv(b)


def test_round_facts_are_written_in_field_order() -> None:
    from reportgen.analyze.round_facts import EngineFacts, WorkloadInfo
    from reportgen.tables import round_json

    info = RoundInfo(title=Bi("标题", "Title"), excluded={"a": (16,)}, engines=(
        EngineFacts(id="a", label=Bi("甲", "A"), slots=4, sources={"slots": "a.log:3"}),))
    out = round_json(info)
    assert list(out)[:4] == ["title", "subtitle", "series", "date"] and "workload" not in out
    assert out["title"] == {"zh": "标题", "en": "Title"} and out["excluded"] == {"a": [16]}
    engine = out["engines"][0]
    assert engine["label"] == {"zh": "甲", "en": "A"} and engine["slots"] == 4
    assert list(engine)[-3:] == ["sources", "client", "step_basis"]
    assert engine["sources"] == {"slots": "a.log:3"}
    short = WorkloadInfo("short", Bi("短", "short"), None, 128.0, 64.0, True)
    with_workload = round_json(dataclasses.replace(info, workload=short))
    assert list(with_workload)[-1] == "workload"
    assert with_workload["workload"]["label"] == {"zh": "短", "en": "short"}


def test_the_runs_table_states_an_unbounded_rate_as_inf() -> None:
    """A closed-loop run's request_rate is what its file states ("inf"), never null."""
    from reportgen.pipeline import tables_of

    folder = Path(__file__).parent / "data" / "inferencex"
    stated = {p.name: json.loads(p.read_text())["request_rate"]
              for p in sorted(folder.glob("*.json"))}
    assert set(stated.values()) == {"inf"}
    runs = tables_of(folder)["runs"]
    assert {r["source"]: r["request_rate"] for r in runs} == stated


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_tables_into_a_folder_is_refused_naming_the_tables(tmp_path: Path, fmt: str) -> None:
    from click.testing import CliRunner

    from reportgen.cli import main

    folder = Path(__file__).parent / "data" / "inferencex"
    out = tmp_path / "out"
    out.mkdir()
    result = CliRunner().invoke(main, ["tables", str(folder), "--format", fmt, "-o", str(out)])
    assert result.exit_code == 2
    assert "refused (the tables are only written to a regular file" in result.output
    assert "the report" not in result.output and list(out.iterdir()) == []
