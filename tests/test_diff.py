"""diff: cells matched by row identity; values, rows added/removed; html and json sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.diff import Change, diff_tables, format_changes, load_tables
from reportgen.errors import InputError


def tables(**overrides):
    base = {
        "schema": "reportgen.tables/1",
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
    assert format_changes([], "text") == "no changes"


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
         "is not schema reportgen.tables/1"),
    ],
)
def test_bad_html(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.html"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_tables(path)


def test_formats() -> None:
    changes = [Change("tiers", "a C=2", "output_tok_s", 118.7, 120.0)]
    text = format_changes(changes, "text")
    assert "118.7" in text and "120" in text and "1 change(s)" in text
    assert format_changes(changes, "markdown").splitlines()[2] == (
        "| tiers | a C=2 | output_tok_s | 118.7 | 120 |")
    assert json.loads(format_changes(changes, "json"))[0]["new"] == 120.0
