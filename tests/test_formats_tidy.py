"""The documented tidy import (reportgen.load.formats.tidy) and `reportgen init --example-csv`:
one row per run, units from the column names, unknowns NaN, bad cells named by line."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.load.formats import tidy
from reportgen.load.round import load_round

CSV = b"""# my harness, 2 runs
configuration,workload,input_tokens,output_tokens,request_rate,output_tok_s,ttft_p50_ms,e2el_p99_s
a,chat,1024,128,2,100,20,1.5
a,chat,1024,128,inf,300,80,2.25
"""


def test_rows_become_runs_with_units_from_the_names() -> None:
    assert tidy.sniff("mine.csv", CSV) == "tidy CSV import (one row per run)"
    runs = tidy.read(CSV, "mine.csv")
    assert [r.line for r in runs] == [3, 4]
    a, b = (r.record for r in runs)
    assert a["label"] == "a" and a["request_rate"] == 2.0 and b["request_rate"] == "inf"
    assert a["output_throughput"] == 100.0
    assert a["median_ttft_ms"] == 20.0          # p50 is the median; already ms
    assert a["p99_e2el_ms"] == 1500.0           # seconds → ms, from the name
    assert a["input_len"] == 1024 and a["dataset_name"] == "chat"
    assert "duration" not in a and "completed" not in a  # not stated: unknown


def test_json_list_is_the_same_import() -> None:
    rows = [{"configuration": "x", "concurrency": 4, "output_tok_s": 50.5, "itl_p50_ms": 7}]
    raw = json.dumps(rows).encode()
    assert tidy.sniff("r.json", raw) == "tidy JSON import (one object per run)"
    [run] = tidy.read(raw, "r.json")
    assert run.record["max_concurrency"] == 4 and run.record["median_itl_ms"] == 7.0


@pytest.mark.parametrize(("text", "message"), [
    (b"configuration,concurrency,output_tok_s,ttft_p50\na,1,5,20\n", "the unit must be in"),
    (b"configuration,concurrency,output_tok_s\na,1,fast\n", "expected a number"),
    (b"configuration,concurrency,output_tok_s\na,1.5,5\n", "whole number"),
    (b"configuration,concurrency,request_rate,output_tok_s\na,,,5\n", "concurrency or "),
    (b"configuration,concurrency,output_tok_s\n,1,5\n", "configuration"),
    (b"configuration,concurrency,output_tok_s\na,1\n", "2 cells"),
])
def test_bad_cells_name_the_file_and_line(text: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        tidy.read(text, "mine.csv")
    assert err.value.path == "mine.csv"


def test_other_csvs_are_not_claimed() -> None:
    # an author's summary with its own column names (the a100 real folder's)
    head = b"profile,rate,req/s,out_tok/s,total_tok/s,TTFT_p50_ms\nshort,1,1,2,3,4\n"
    assert tidy.sniff("summary-gpu-a100.csv", head) is None
    assert tidy.sniff("gpu.csv", b"timestamp, name, utilization.gpu [%]\n") is None


def test_a_folder_with_a_tidy_csv_builds_with_unknowns_nan(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "mine.csv").write_bytes(CSV)
    loaded = load_round(root)
    s = loaded.summary
    assert list(s["client"]) == ["tidy", "tidy"]
    assert s["duration_s"].isna().all() and s["completed"].isna().all()
    assert [w.id for w in loaded.workloads] == ["chat-1024-128"]
    assert loaded.workloads[0].from_settings


def test_init_example_csv_writes_an_example_that_builds(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    result = CliRunner().invoke(main, ["init", "--example-csv", str(folder)])
    assert result.exit_code == 0, result.output
    path = folder / "runs.csv"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("#") and "EXAMPLE VALUES" in text
    again = CliRunner().invoke(main, ["init", "--example-csv", str(folder)])
    assert again.exit_code == 2 and "never overwrites" in again.output
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))
    out = CliRunner().invoke(main, ["tables", str(folder), "--format", "json"])
    assert out.exit_code == 0, out.output
    runs = json.loads(out.stdout)["runs"]
    assert len(runs) == len(rows)
    by_key = {(r["engine"], r["concurrency"]): r for r in runs}
    for row in rows:
        got = by_key[(row["configuration"], int(row["concurrency"]))]
        assert got["output_tok_s"] == pytest.approx(float(row["output_tok_s"]))
        assert got["ttft_p50_ms"] == pytest.approx(float(row["ttft_p50_ms"]))
        assert got["duration_s"] == pytest.approx(float(row["duration_s"]))
        assert got["failed"] == int(row["failed"])
    assert not any(math.isnan(r["output_tok_s"]) for r in runs)
    build = CliRunner().invoke(main, ["build", str(folder), "-o", str(tmp_path / "r.html")])
    assert build.exit_code == 0, build.output
