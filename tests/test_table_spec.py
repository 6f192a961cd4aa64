"""Every table declared once (reportgen/schema.py ``TABLE_SPECS``): a table added there reaches
the export (JSON, CSV, markdown) and ``diff``; a changed cell in any declared table is listed by
``reportgen diff`` in every format, whichever form OLD and NEW take (a tables JSON, a report's
data block)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from reportgen import schema
from reportgen.analyze.changes import diff_tables
from reportgen.analyze.result import RoundAnalysis
from reportgen.cli import main
from reportgen.files import embedded
from reportgen.files.resources import sample_round_dir
from reportgen.pipeline import analyze_dir
from reportgen.slo import CLI_SOURCE, parse_slo
from reportgen.sources.diff import load_tables
from reportgen.tables import to_csv, to_json_dict, to_markdown


@pytest.fixture(scope="module")
def sample() -> RoundAnalysis:
    """The bundled round with an objective and a load: every optional table has rows."""
    slo = parse_slo("ttft_ms=500,tpot_ms=50", source=CLI_SOURCE)  # as `--slo` gives it
    return analyze_dir(sample_round_dir(), slo=slo, load=(10.0, "req/s"),
                       price=2.5).analysis


@pytest.fixture(scope="module")
def data(sample: RoundAnalysis) -> dict[str, Any]:
    """The sample's data block, with a row in the tables the sample leaves empty."""
    out = to_json_dict(sample)
    out["skipped"] = out["skipped"] or [{"file": "notes/readme.txt", "reason": "not read"}]
    out["inferred"] = out["inferred"] or [{"key": "round.gpu", "value": "RTX 4090",
                                           "source": "fingerprint.txt"}]
    return out


def _edited(value: Any) -> Any:
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1 if math.isfinite(value) else 1.5
    if isinstance(value, dict):
        return {k: f"{v} (corrected)" for k, v in value.items()}
    if value is None:
        return 1.5
    return f"{value} (corrected)"


def _one_cell(table: str, rows: list[dict[str, Any]]) -> tuple[int, str]:
    """(row, column) of the first cell that is no key of its row."""
    keys = {*schema.row_keys()[table], "workload"}
    for i, row in enumerate(rows):
        for column in row:
            if column not in keys:
                return i, column
    raise AssertionError(f"{table} has no cell outside its keys")


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _report(path: Path, data: dict[str, Any]) -> Path:
    """A page holding ``data`` in its data block, as a built report does."""
    block = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    path.write_text(f'<!doctype html><html><body><script type="application/json" '
                    f'id="report-data">{block}</script></body></html>', encoding="utf-8")
    return path


def test_the_sample_carries_every_declared_table(data: dict[str, Any]) -> None:
    """The data block (what a report embeds and a round folder gives ``diff``) holds every
    declared table, in the JSON's order; so does a ``tables`` JSON read back."""
    names = schema.json_order()
    assert [k for k in data if k in names] == list(names)
    for name in schema.row_keys():
        assert data[name], f"the sample has no {name} rows: the test below cannot see it"


@pytest.mark.parametrize("table", [s.name for s in schema.TABLE_SPECS])
def test_a_changed_cell_in_every_table_is_heard(table: str, data: dict[str, Any],
                                                tmp_path: Path) -> None:
    old = copy.deepcopy(data)
    new = copy.deepcopy(data)
    if table == "values":
        name = next(k for k, v in sorted(new["values"].items()) if isinstance(v, int | float)
                    and not isinstance(v, bool))
        new["values"][name] = _edited(new["values"][name])
        figure, place = name, f"values:{name}"
    else:
        i, column = _one_cell(table, new[table])
        new[table][i] = {**new[table][i], column: _edited(new[table][i][column])}
        figure = f"{table}.{column}"
        place = f"{table}["
    assert [c.table for c in diff_tables(old, new)] == [table]

    runner = CliRunner()
    pairs = [(_write(tmp_path / "old.json", old), _write(tmp_path / "new.json", new)),
             (_report(tmp_path / "old.html", old), _report(tmp_path / "new.html", new))]
    for a, b in pairs:
        for fmt in ("text", "markdown", "json"):
            result = runner.invoke(main, ["diff", str(a), str(b), "--format", fmt])
            assert result.exit_code == 0, result.output
            if fmt == "json":
                summary = json.loads(result.stdout)
                assert summary["summary"]["changed"] == 1, (a.suffix, summary)
                (group,) = summary["groups"]
                (found,) = group["figures"]
                assert found["places"][0].startswith(place), found
            else:
                assert "1 changed · 0 added · 0 removed" in result.stdout, (a.suffix, fmt)
                assert figure.split(".")[0] in result.stdout, (a.suffix, fmt, result.stdout)


def test_the_same_tables_are_no_change(data: dict[str, Any], tmp_path: Path) -> None:
    old = _write(tmp_path / "old.json", data)
    new = _report(tmp_path / "new.html", data)
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "no changes"


EXTRA = schema.TableSpec("extra", ("engine", "concurrency"), numbers=("concurrency",),
                         optional=True, counts=frozenset({"concurrency", "samples"}))


@pytest.fixture
def with_extra(monkeypatch: pytest.MonkeyPatch, sample: RoundAnalysis) -> RoundAnalysis:
    """A table declared by one more line in the registry, its rows on each workload."""
    monkeypatch.setattr(schema, "TABLE_SPECS", [*schema.TABLE_SPECS, EXTRA])
    part = sample.parts[0]
    engine = str(part.tiers["engine"].iloc[0])
    frame = pd.DataFrame({"engine": [engine], "concurrency": [4.0], "samples": [12.0],
                          "energy_j": [0.25]})
    ra = copy.copy(sample)
    ra.parts = [copy.copy(part)]
    object.__setattr__(ra.parts[0], "extra", frame)
    return ra


def test_a_declared_table_reaches_the_export(with_extra: RoundAnalysis) -> None:
    data = to_json_dict(with_extra, axis_columns=True)
    assert list(data)[-2:] == ["extra", "slo"]  # after the last declared table
    engine = data["extra"][0]["engine"]
    assert json.dumps(data["extra"]) == json.dumps(
        [{"engine": engine, "concurrency": 4, "samples": 12, "energy_j": 0.25}])  # counts whole
    assert f"# extra\nengine,concurrency,samples,energy_j\n{engine},4,12,0.25\n" in \
        to_csv(with_extra)
    assert f"## extra\n\n| engine | concurrency | samples | energy_j |\n|---|---|---|---|\n" \
           f"| {engine} | 4 | 12 | 0.25 |" in to_markdown(with_extra)


def test_a_declared_table_reaches_diff(with_extra: RoundAnalysis, tmp_path: Path) -> None:
    old = to_json_dict(with_extra, axis_columns=True)
    new = copy.deepcopy(old)
    new["extra"][0]["energy_j"] = 0.5
    old_path, new_path = _write(tmp_path / "old.json", old), _write(tmp_path / "new.json", new)
    assert load_tables(new_path)["extra"][0]["energy_j"] == 0.5  # the checked reader keeps it
    engine = old["extra"][0]["engine"]
    result = CliRunner().invoke(main, ["diff", str(old_path), str(new_path), "--format",
                                       "json"])
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["groups"]
    assert group["input"] == f"{engine} C=4"
    assert [(f["name"], f["old"], f["new"], f["places"]) for f in group["figures"]] == [
        ("extra.energy_j", 0.25, 0.5, [f"extra[{engine} C=4].energy_j"])]


def test_a_malformed_optional_table_is_dropped_a_required_one_refused(
        data: dict[str, Any], tmp_path: Path) -> None:
    broken = copy.deepcopy(data)
    broken["goodput"] = [{"engine": 5, "concurrency": 1}, *broken["goodput"]]
    assert len(load_tables(_write(tmp_path / "a.json", broken))["goodput"]) == \
        len(data["goodput"])
    broken = copy.deepcopy(data)
    broken["tiers"] = [{"engine": 5, "concurrency": 1}]
    result = CliRunner().invoke(main, ["diff", str(_write(tmp_path / "b.json", broken)),
                                       str(_write(tmp_path / "c.json", data))])
    assert result.exit_code == 2
    assert "tiers row 1: engine is 5, expected text" in result.output


def test_rows_of_one_identity_are_told_apart_by_order() -> None:
    old = {"constants": [{"name": "bw", "value": 1.0}, {"name": "bw", "value": 2.0}]}
    new = {"constants": [{"name": "bw", "value": 1.0}, {"name": "bw", "value": 3.0}]}
    (change,) = diff_tables(old, new)
    assert (change.table, change.row, change.old, change.new) == ("constants", "bw #2", 2.0, 3.0)


def test_a_long_list_cut_on_a_page_is_compared_where_both_list_it() -> None:
    full = {"skipped": [{"file": f"f{i}.txt", "reason": "r"} for i in range(5)]}
    cut = {"skipped": full["skipped"][:2], "skipped_not_listed": 3}
    assert diff_tables(cut, full) == []
    cut["skipped"] = [full["skipped"][0], {"file": "f1.txt", "reason": "other"}]
    assert [(c.row, c.new) for c in diff_tables(cut, full)] == [("f1.txt", "r")]


def test_a_round_folder_is_read_with_the_objective_and_load_given(sample: RoundAnalysis,
                                                                  tmp_path: Path) -> None:
    """A report built with ``--slo`` / ``--load`` against its round folder: the folder is
    analysed under the same objective and load, so its goodput tables are compared (a
    corrected cell is heard), not listed as removed."""
    data = to_json_dict(sample)
    assert diff_tables(data, load_tables(sample_round_dir(), data)) == []
    new = copy.deepcopy(data)
    new["goodput"][0]["requests_good"] += 1
    result = CliRunner().invoke(main, ["diff", str(sample_round_dir()),
                                       str(_write(tmp_path / "new.json", new)), "--format",
                                       "json"])
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["groups"]
    assert [f["places"][0].split("[")[0] for f in group["figures"]] == ["goodput"]


def test_a_rate_sweep_tier_is_joined_back_in_every_per_workload_table() -> None:
    exported = {"distributions": [{"engine": "a", "concurrency": None, "request_rate": 2.0},
                                  {"engine": "a", "concurrency": None, "request_rate": "inf"}],
                "runs": [{"engine": "a", "concurrency": None, "request_rate": 2.0}]}
    joined = embedded.joined_axis(exported)
    assert joined["distributions"] == [{"engine": "a", "concurrency": 2.0},
                                       {"engine": "a", "concurrency": None}]
    assert joined["runs"] == exported["runs"]  # the runs hold both columns of their own
