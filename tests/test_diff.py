"""diff: cells matched by row identity; values, rows added/removed; html and json sources;
figures grouped by input; crafted reports refused in one line; the data block found in linear
time."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.analyze.changes import Change, as_json, diff_tables, group_changes
from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.sources.diff import checked, find_data_block, load_tables


def tables(**overrides):
    base = {
        "schema": "reportgen.tables/2",
        "values": {"crossover": {"concurrency": 8.25}, "n": 3},
        "tiers": [
            {"engine": "a", "concurrency": 1, "output_tok_s": 61.9, "excluded": False},
            {"engine": "a", "concurrency": 2, "output_tok_s": 118.7, "excluded": False},
        ],
        "checks": [{"id": "failed", "engine": "a", "concurrency": 2, "status": "warn",
                    "message": {"zh": "失败 1", "en": "1 failed"}}],
    }
    base.update(overrides)
    return base


def test_identical_has_no_changes() -> None:
    assert diff_tables(tables(), tables()) == []
    assert group_changes([], tables()).groups == ()


def test_changed_cell_added_row_and_value() -> None:
    new = tables()
    new["tiers"] = [dict(new["tiers"][0]), dict(new["tiers"][1], output_tok_s=120.0)]
    new["tiers"].insert(0, {"engine": "a", "concurrency": 4, "output_tok_s": 225.1,
                            "excluded": False})
    new["values"] = {"crossover": {"concurrency": 8.3}, "n": 3}
    changes = diff_tables(tables(), new)
    assert Change("values", "crossover.concurrency", "", 8.25, 8.3) in changes
    assert Change("tiers", "a C=2", "output_tok_s", 118.7, 120.0) in changes
    added = [c for c in changes if c.row == "a C=4"]
    assert {c.column for c in added} == {"excluded", "output_tok_s"}
    assert all(c.kind == "added" for c in added)
    assert len(changes) == 4


def test_float_noise_is_not_a_change_but_nan_to_number_is() -> None:
    new = tables()
    new["tiers"][0]["output_tok_s"] = 61.9 * (1 + 1e-12)
    assert diff_tables(tables(), new) == []
    new["tiers"][0]["output_tok_s"] = None
    assert [c.kind for c in diff_tables(tables(), new)] == ["removed"]


def test_message_compared_in_english() -> None:
    new = tables()
    new["checks"][0]["message"] = {"zh": "失败 2", "en": "2 failed"}
    (change,) = diff_tables(tables(), new)
    assert (change.old, change.new) == ("1 failed", "2 failed")


def test_load_from_html_and_json(tmp_path: Path) -> None:
    payload = json.dumps({"tables": tables()}).replace("<", "\\u003c")
    html = tmp_path / "r.html"
    html.write_text(f'<html><script type="application/json" id="report-data">{payload}'
                    "</script></html>", encoding="utf-8")
    assert load_tables(html)["tiers"][0]["output_tok_s"] == 61.9
    js = tmp_path / "t.json"
    js.write_text(json.dumps(tables()), encoding="utf-8")
    assert load_tables(js)["values"]["n"] == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("<html>nothing</html>", "no report-data JSON found"),
        ('<script type="application/json" id="report-data">{oops</script>', "damaged"),
        ('<script type="application/json" id="report-data">{"schema": "x"}</script>',
         "is not schema reportgen.tables/2"),
    ],
)
def test_bad_html(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.html"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_tables(path)


def _changed() -> dict:
    """tables() with a C=2 correction: the tier's throughput moves, and with it its value
    under ``values``, the crossover, and a check's message."""
    new = tables()
    new["tiers"] = [dict(new["tiers"][0]), dict(new["tiers"][1], output_tok_s=120.0)]
    new["values"] = {"crossover": {"concurrency": 8.3}, "n": 3,
                     "tiers": {"a": {"c2": {"output_tok_s": 120.0}}}}
    new["checks"] = [dict(new["checks"][0], message={"zh": "失败 2", "en": "2 failed"})]
    new["runs"] = [{"engine": "a", "concurrency": 2, "source": "a/bench/c2.json"}]
    return new


def _old() -> dict:
    old = tables()
    old["values"]["tiers"] = {"a": {"c2": {"output_tok_s": 118.7}}}
    # the same run on both sides (the runs table is compared too): only its source is read
    old["runs"] = [{"engine": "a", "concurrency": 2, "source": "a/bench/c2.json"}]
    return old


def test_a_figure_in_two_places_is_one_row_under_its_input() -> None:
    old, new = _old(), _changed()
    diff = group_changes(diff_tables(old, new), new, old)
    assert [diff.input_label(g.input) for g in diff.groups] == ["round", "a C=2"]
    (round_fig,) = diff.groups[0].figures
    assert (round_fig.name, round_fig.old, round_fig.new) == ("crossover.concurrency", 8.25, 8.3)
    tier = diff.groups[1]
    assert tier.input.source == "a/bench/c2.json"
    assert [(f.name, f.old, f.new) for f in tier.figures] == [
        ("tiers.output_tok_s", 118.7, 120.0), ("checks.failed.message", "1 failed", "2 failed")]
    assert tier.figures[0].places == ("tiers[a C=2].output_tok_s",
                                      "values:tiers.a.c2.output_tok_s")
    assert tier.figures[0].delta == pytest.approx(1.3)
    assert tier.figures[0].relative == pytest.approx(1.3 / 118.7)
    assert diff.counts() == {"changed": 3, "added": 0, "removed": 0}


def test_json_form() -> None:
    old, new = _old(), _changed()
    data = as_json(group_changes(diff_tables(old, new), new, old))
    assert data["summary"] == {"changed": 3, "added": 0, "removed": 0, "inputs": 2}
    first = data["groups"][1]
    assert {k: first[k] for k in ("input", "engine", "point", "source")} == {
        "input": "a C=2", "engine": "a", "point": 2.0, "source": "a/bench/c2.json"}
    assert first["figures"][1] == {
        "name": "checks.failed.message", "kind": "changed", "old": "1 failed",
        "new": "2 failed", "delta": None, "relative": None,
        "places": ["checks[failed a C=2].message"], "noise": None, "within_noise": None}


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_cli_diff_text_json_and_markdown(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.json", _old())
    new = _write(tmp_path / "new.json", _changed())
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 0, result.output
    head = ["  figure                      old       new  delta  change",
            "  ---------------------  --------  --------  -----  ------"]
    assert result.stdout.splitlines() == [
        "round", *head,
        "  crossover.concurrency      8.25       8.3  +0.05   +0.6%",
        "",
        "a C=2  (a/bench/c2.json)", *head,
        "  tiers.output_tok_s        118.7       120   +1.3   +1.1%",
        "  checks.failed.message  1 failed  2 failed",
        "",
        "3 changed · 0 added · 0 removed, in 2 inputs",
    ]
    js = CliRunner().invoke(main, ["diff", str(old), str(new), "--format", "json"])
    assert json.loads(js.stdout)["summary"]["changed"] == 3
    md = CliRunner().invoke(main, ["diff", str(old), str(new), "--format", "markdown"])
    assert md.stdout.splitlines()[3] == (
        "| a C=2 | tiers.output_tok_s | 118.7 | 120 | +1.3 | +1.1% |")
    same = CliRunner().invoke(main, ["diff", str(old), str(old)])
    assert same.stdout == "no changes\n"


def test_schema_1_is_read_under_the_new_names(tmp_path: Path) -> None:
    row = {"engine_a": "a", "engine_b": "b", "lower_tier": 8, "ratio_lower": 0.99,
           "ratio_upper": 1.24}
    old = tables(crossovers=[row], schema="reportgen.tables/1")
    loaded = load_tables(_write(tmp_path / "v1.json", old))
    assert loaded["crossovers"] == [{"engine_a": "a", "engine_b": "b", "lower_tier": 8,
                                     "a_over_b_at_lower": 0.99, "a_over_b_at_upper": 1.24}]
    new = tables(crossovers=[{k: v for k, v in loaded["crossovers"][0].items()}])
    assert diff_tables(loaded, new) == []


def _html(tmp_path: Path, payload: str) -> Path:
    path = tmp_path / "crafted.html"
    path.write_text(f'<html><script type="application/json" id="report-data">{payload}'
                    "</script></html>", encoding="utf-8")
    return path


HUGE = "9" * 400


@pytest.mark.parametrize(("payload", "message"), [
    (json.dumps(tables(tiers=[{"engine": "a", "concurrency": "x"}])),
     'report-data: tiers row 1: concurrency is "x", expected a number'),
    ("[1]", "report-data is not a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "report-data JSON is nested too deeply"),
    (json.dumps(tables(values=[1])), "report-data: values is not an object"),
    (json.dumps(tables(tiers={"a": 1})), "report-data: tiers is not a list of rows"),
    (json.dumps(tables(tiers=[1])), "report-data: tiers row 1 is not an object"),
    (json.dumps(tables()).replace("61.9", HUGE).replace('"concurrency": 1', f'"concurrency": '
                                                                            f'{HUGE}'),
     "report-data: tiers row 1: concurrency is too large"),
    (json.dumps(tables()).replace("61.9", "9" * 5000), "report-data JSON: Exceeds the limit"),
    (json.dumps(tables()).replace("61.9", "NaN"), "report-data JSON: NaN is not a JSON number"),
    ('{"schema": "reportgen.tables/2", "values": ' + '{"a": ' * 40 + "1" + "}" * 41,
     "report-data is nested more than 32 levels deep"),
])
def test_crafted_report_is_one_line_exit_2(tmp_path: Path, payload: str, message: str) -> None:
    path = _html(tmp_path, payload)
    for args in (["diff", str(path), str(path)],
                 ["build", "-q", "-o", str(tmp_path / "out.html"), "--previous", str(path)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(f"Error: {path}: {message}"), result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "out.html").exists()


@pytest.mark.parametrize("extra", [{"runs": 5}, {"round": [1]}, {"runs": [1, {"source": 2}]},
                                   {"values": {"tiers": {"a": {"c1": [[[1]]]}}}}])
def test_odd_but_harmless_blocks_are_ignored(tmp_path: Path, extra: dict) -> None:
    old = _write(tmp_path / "old.json", tables())
    new = _write(tmp_path / "new.json", tables(**extra))
    for fmt in ("text", "json", "markdown"):
        result = CliRunner().invoke(main, ["diff", str(old), str(new), "--format", fmt])
        assert result.exit_code == 0, result.output


def test_integers_beyond_float_range_are_refused(tmp_path: Path) -> None:
    """Issue 24: an integer no float can hold is refused by the checked reader (every later
    float() of it would crash), with exit 2 and one line."""
    big = 10**400
    old = _write(tmp_path / "old.json", tables(values={"n": big}))
    new = _write(tmp_path / "new.json", tables(values={"n": 1}))
    result = CliRunner().invoke(main, ["diff", str(old), str(new), "--format", "json"])
    assert result.exit_code == 2, result.output
    assert result.stderr == (f'Error: {old}: tables JSON: values["n"] is too large (beyond '
                             "float range)\n")
    near = _write(tmp_path / "near.json", tables(values={"n": 10**300}))
    assert CliRunner().invoke(main, ["diff", str(near), str(near)]).stdout == "no changes\n"


@pytest.mark.parametrize("crafted", [
    b"<script" * 220_000,                                  # no tag ever ends
    b"<script" * 220_000 + b">",                           # one tag spanning everything
    b'<script id="report-data"' * 90_000,                  # the id, never closed
    b'<p id="report-data">' * 80_000,                      # the id outside script tags
    b"<script>" * 200_000,                                 # script bodies never closed
    b"<script></script" * 100_000,
])
def test_data_block_search_is_linear(crafted: bytes) -> None:
    assert len(crafted) >= 1_500_000
    start = time.perf_counter()
    assert find_data_block(crafted) is None
    assert time.perf_counter() - start < 0.5


def test_data_block_is_found_among_other_scripts() -> None:
    raw = (b'<SCRIPT src="x"></SCRIPT><script>var a = "<script id=\\"report-data\\">";'
           b'</script><script type="application/json" ID="report-data">{"a": 1}</script>')
    assert find_data_block(raw) == b'{"a": 1}'


def test_size_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen.files.safe_read import CAPS, Cap

    monkeypatch.setitem(CAPS, "report", Cap(1000, "a report.html"))
    path = _html(tmp_path, json.dumps(tables()) + " " * 1000)
    with pytest.raises(InputError, match="too large"):
        load_tables(path)


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_tables(fifo)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=12)
ROWS = st.lists(st.dictionaries(
    st.sampled_from(["engine", "concurrency", "id", "workload", "output_tok_s", "message",
                     "lower_tier", "engine_a", "source"]), JSONISH, max_size=5), max_size=3)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(old=st.dictionaries(st.sampled_from(["tiers", "checks", "engines", "crossovers", "runs",
                                            "values", "round"]), ROWS | JSONISH, max_size=4),
       new=st.dictionaries(st.sampled_from(["tiers", "checks", "values", "runs"]),
                           ROWS | JSONISH, max_size=3))
def test_any_tables_dict_gives_a_diff_or_one_input_error(old: dict, new: dict) -> None:
    """Crafted reports: whatever the blocks hold, diff renders or refuses with InputError."""
    from reportgen.console import diff_markdown, diff_text

    try:
        a = checked(Path("old.html"), {"schema": "reportgen.tables/2", **old}, "report-data")
        b = checked(Path("new.html"), {"schema": "reportgen.tables/2", **new}, "report-data")
    except InputError:
        return
    diff = group_changes(diff_tables(a, b), b, a)
    diff_text(diff), diff_markdown(diff)
    json.dumps(as_json(diff), allow_nan=False)
