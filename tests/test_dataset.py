"""The series as a Parquet dataset: reportgen/dataset.py, `index`'s dataset/, `tables --format
parquet`, and the index's trend read back through DuckDB."""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from reportgen import dataset
from reportgen.cli import main

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SAMPLE = REPO / "sample_runs" / "round2-rtx4090"

from benchmarks import tiny_rounds  # noqa: E402


def test_column_types_are_fixed_by_rule() -> None:
    rows = [{"a": 1, "b": "x", "c": None, "d": True, "e": 2},
            {"a": 2.5, "b": None, "c": None, "d": False, "e": "two"},
            {"a": None, "f": [1, 2]}]
    cols = dataset.columns(rows)
    assert list(cols) == ["a", "b", "d", "e", "f"]              # c: no value, left out
    assert cols["a"] == ("float64", [1.0, 2.5, None])           # missing stays null, never 0
    assert cols["b"] == ("string", ["x", None, None])
    assert cols["d"] == ("bool", [True, False, None])
    assert cols["e"] == ("string", ["2", "two", None])          # mixed kinds: string
    assert cols["f"] == ("string", [None, None, "[1, 2]"])      # nested: JSON text
    assert dataset.columns([{"x": float("nan")}]) == {}


def test_values_split_by_workload() -> None:
    tables = {"round": {"workloads": [{"id": "short"}, {"id": "long"}]},
              "values": {"short/crossover.count": 2, "long/crossover.count": 0,
                         "setup.gpu": "A100", "x.y": None}}
    rows = dataset.table_rows(tables)["values"]
    assert rows == [
        {"workload": "short", "workload_index": 0, "name": "crossover.count", "value": 2.0,
         "text": None},
        {"workload": "long", "workload_index": 1, "name": "crossover.count", "value": 0.0,
         "text": None},
        {"workload": None, "workload_index": None, "name": "setup.gpu", "value": None,
         "text": "A100"},
        {"workload": None, "workload_index": None, "name": "x.y", "value": None, "text": None}]


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def sample_tables() -> dict[str, Any]:
    result = cli("tables", str(SAMPLE))
    assert result.exit_code == 0
    return dict(json.loads(result.output))


def test_tables_format_parquet_writes_one_rounds_tables(tmp_path: Path,
                                                        sample_tables: dict[str, Any]) -> None:
    out = tmp_path / "ds"
    result = cli("tables", str(SAMPLE), "--format", "parquet", "-o", str(out))
    assert result.exit_code == 0, result.output
    name = SAMPLE.name
    tiers = pq.read_table(out / "tiers" / f"{name}.parquet").to_pylist()
    assert len(tiers) == len(sample_tables["tiers"])
    for got, want in zip(tiers, sample_tables["tiers"], strict=True):
        assert got["round"] == name
        assert got["engine"] == want["engine"]
        for key, value in want.items():
            if isinstance(value, float) and not isinstance(value, bool):
                assert got[key] == value, key
    runs = pq.read_table(out / "runs" / f"{name}.parquet")
    assert runs.num_rows == len(sample_tables["runs"])
    assert runs.schema.field("output_tok_s").type == "double"
    values = {r["name"]: r for r in pq.read_table(out / "values" / f"{name}.parquet")
              .to_pylist()}
    for key, value in sample_tables["values"].items():
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and not math.isnan(value):
            assert values[key]["value"] == float(value), key
    info = pq.read_table(out / "round" / f"{name}.parquet").to_pylist()[0]
    assert info["title_en"] == sample_tables["round"]["title"]["en"]
    assert (out / "goodput" / f"{name}.parquet").exists() == bool(sample_tables.get("goodput"))
    # deterministic bytes
    again = tmp_path / "again"
    assert cli("tables", str(SAMPLE), "--format", "parquet", "-o", str(again)).exit_code == 0
    for path in out.rglob("*.parquet"):
        assert (again / path.relative_to(out)).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("args, says", [
    ([], "needs -o DIR"),
    (["-o", str(SAMPLE / "ds")], "inside the round folder"),
])
def test_tables_format_parquet_errors(args: list[str], says: str) -> None:
    result = cli("tables", str(SAMPLE), "--format", "parquet", *args)
    assert result.exit_code == 2
    assert says in result.output and result.output.startswith("Error: ")
    assert len(result.output.strip().splitlines()) == 1
    assert not (SAMPLE / "ds").exists()


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return tiny_rounds.generate(tmp_path_factory.mktemp("ds") / "rounds", 3)


def index(rounds: list[Path], out: Path) -> str:
    result = cli("index", *map(str, rounds), "-o", str(out), "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_index_writes_the_dataset_and_duckdb_reads_it(rounds: list[Path],
                                                      tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert dataset.SKIPPED not in index(rounds, site)
    ds = site / "dataset"
    for table in ("round", "runs", "tiers", "values"):
        assert sorted(p.name for p in (ds / table).iterdir()) == \
            [f"{r.name}.parquet" for r in rounds]
    con = duckdb.connect()
    counts = dict(con.execute(
        "SELECT round, count(*) FROM read_parquet(?, union_by_name = true) GROUP BY round",
        [str(ds / "tiers" / "*.parquet")]).fetchall())
    for r in rounds:
        cached = json.loads((site / ".reportgen-index" / "tables" / f"{r.name}.json")
                            .read_text(encoding="utf-8"))
        assert counts[r.name] == len(cached["tiers"])
    # a round no longer given loses its files; a deleted dataset is written again
    shutil.rmtree(ds / "values")
    index(rounds[:2], site)
    assert sorted(p.name for p in (ds / "values").iterdir()) == \
        [f"{r.name}.parquet" for r in rounds[:2]]
    assert not (ds / "tiers" / f"{rounds[2].name}.parquet").exists()


def test_the_trend_read_through_duckdb_is_the_cards_trend(
        rounds: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen.index import update as ix

    calls: list[int] = []
    real = ix._trend_from_dataset
    monkeypatch.setattr(ix, "_trend_from_dataset",
                        lambda e, d: calls.append(len(e)) or real(e, d))
    index(rounds, tmp_path / "duck")
    assert calls == [len(rounds)]
    monkeypatch.setattr(dataset, "duckdb_available", lambda: False)
    index(rounds, tmp_path / "plain")
    assert calls == [len(rounds)]
    assert (tmp_path / "duck" / "index.html").read_bytes() == \
        (tmp_path / "plain" / "index.html").read_bytes()
    # the points really come from the dataset: a changed value moves the trend
    got = dataset.trend_values(tmp_path / "duck" / "dataset", [r.name for r in rounds],
                               ["setup.tier_count", "engines.{e}.itl_p50_c1_ms"])
    for r in rounds:
        cached = json.loads((tmp_path / "duck" / ".reportgen-index" / "tables" /
                             f"{r.name}.json").read_text(encoding="utf-8"))["values"]
        assert got[r.name]["setup.tier_count"] == cached["setup.tier_count"]
        step = {k: v for k, v in cached.items()
                if k.startswith("engines.") and k.endswith(".itl_p50_c1_ms") and v is not None}
        assert step and all(got[r.name][k] == v for k, v in step.items())


def test_the_trend_reads_the_files_in_batches(rounds: list[Path], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A query per TREND_BATCH files (DuckDB holds a query's file metadata to its end): the
    same points as one query over every file."""
    index(rounds, tmp_path / "site")
    ds, names = tmp_path / "site" / "dataset", [r.name for r in rounds]
    whole = dataset.trend_values(ds, names, ["setup.tier_count", "engines.{e}.itl_p50_c1_ms"])
    assert len(whole) == len(rounds) >= 2
    monkeypatch.setattr(dataset, "TREND_BATCH", 1)
    assert dataset.trend_values(
        ds, names, ["setup.tier_count", "engines.{e}.itl_p50_c1_ms"]) == whole


def test_without_pyarrow_index_says_what_it_skipped(rounds: list[Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "available", lambda: False)
    out = index(rounds[:1], tmp_path / "site")
    assert out.strip().splitlines()[-1] == dataset.SKIPPED
    assert not (tmp_path / "site" / "dataset").exists()
    result = cli("tables", str(SAMPLE), "--format", "parquet", "-o", str(tmp_path / "t"))
    assert result.exit_code == 2 and "reportgen[dataset]" in result.output


def test_tables_format_parquet_with_an_slo_writes_goodput(tmp_path: Path) -> None:
    slo = ["--slo", "ttft_ms=500,tpot_ms=50"]
    want = json.loads(cli("tables", str(SAMPLE), *slo).stdout)["goodput"]
    assert want
    result = cli("tables", str(SAMPLE), *slo, "--format", "parquet", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    got = pq.read_table(tmp_path / "goodput" / f"{SAMPLE.name}.parquet").to_pylist()
    assert len(got) == len(want)
    for row, expected in zip(got, want, strict=True):
        for key, value in expected.items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                assert row.get(key) is None, key
            elif isinstance(value, int | float) and not isinstance(value, bool):
                assert row[key] == float(value), key
            elif isinstance(value, str):
                assert row[key] == value, key


def test_trend_values_leave_out_what_duckdb_cannot_read(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    dataset.write_round(ds, "r1", {"values": {"setup.tier_count": 3}})
    dataset.write_round(ds, "r[2]", {"values": {"setup.tier_count": 4}})
    assert dataset.trend_values(ds, ["r1", "r[2]", "gone"], ["setup.tier_count"]) == \
        {"r1": {"setup.tier_count": 3.0}}
    (ds / "values" / "r1.parquet").write_bytes(b"not parquet")
    assert dataset.trend_values(ds, ["r1"], ["setup.tier_count"]) == {}
