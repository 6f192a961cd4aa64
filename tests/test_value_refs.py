"""Named values by reference in a packed data block (files/value_refs.py): what ``compact``
leaves out, ``expand`` writes back exactly, or nothing is left out; a malformed reference is
refused; a large page's block is smaller for it and ``diff`` reads it back whole."""

from __future__ import annotations

import base64
import json
import lzma
import math
import re
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.files import value_refs
from reportgen.schema import JsonObject
from reportgen.sources.diff import tables_from_html


def _json(obj: object) -> object:
    """As the page writes it: NaN is null."""
    return json.loads(json.dumps(obj).replace("NaN", "null"))


def _tables() -> JsonObject:
    tiers: list[object] = [
        {"engine": "a", "concurrency": 1, "output_tok_s": 10.5, "requests": 16,
         "ttft_p50_ms": None},
        {"engine": "a", "concurrency": 0.5, "output_tok_s": 20.25, "requests": 8,
         "ttft_p50_ms": 3.0},
    ]
    values = {
        "crossover.concurrency": 4.0,
        "tiers.a.c0_5.output_tok_s": 20.25, "tiers.a.c0_5.requests": 8.0,
        "tiers.a.c0_5.ttft_p50_ms": 3.0,
        "tiers.a.c1.output_tok_s": 10.5, "tiers.a.c1.requests": 16.0,
        "tiers.a.c1.ttft_p50_ms": math.nan,
        "waves.a.c0_5.tok": 20.25, "waves.a.c1.tok": 10.5,
    }
    return {"schema": "reportgen.tables/2", "tiers": tiers, "values": values}


def test_compact_leaves_out_what_the_rows_give_back_and_expand_writes_it_back() -> None:
    tables = _tables()
    small = value_refs.compact(tables)
    assert small["values"] == {"crossover.concurrency": 4.0}
    groups = small[value_refs.REFS]
    assert {"table": "tiers", "prefix": "tiers", "by_workload": False,
            "columns": {"output_tok_s": ["output_tok_s", False],
                        "requests": ["requests", True],
                        "ttft_p50_ms": ["ttft_p50_ms", False]}} in groups  # type: ignore[operator]
    assert {"table": "tiers", "prefix": "waves", "by_workload": False,
            "columns": {"tok": ["output_tok_s", False]}} in groups  # type: ignore[operator]
    back = value_refs.expand(small)
    assert value_refs.REFS not in back
    assert list(back["values"]) == list(tables["values"])  # type: ignore[arg-type]
    assert _json(back) == _json(tables)


def test_a_value_that_differs_from_its_cell_stays_and_its_column_is_not_referenced() -> None:
    tables = _tables()
    values = tables["values"]
    assert isinstance(values, dict)
    values["tiers.a.c1.output_tok_s"] = 10.0       # not the row's 10.5
    values["tiers.a.c0_5.requests"] = 8            # an int where the others are floats
    small = value_refs.compact(tables)
    kept = small["values"]
    assert isinstance(kept, dict)
    assert kept["tiers.a.c1.output_tok_s"] == 10.0 and "tiers.a.c0_5.output_tok_s" in kept
    assert kept["tiers.a.c0_5.requests"] == 8 and "tiers.a.c1.requests" in kept
    assert _json(value_refs.expand(small)) == _json(tables)


def test_unsorted_values_are_left_as_they_are() -> None:
    tables = _tables()
    values = tables["values"]
    assert isinstance(values, dict)
    tables["values"] = dict(reversed(list(values.items())))
    assert value_refs.compact(tables) is tables


@pytest.mark.parametrize("refs", [
    "tiers", [1], [{"table": "tiers", "prefix": "a.b", "by_workload": False, "columns": {}}],
    [{"table": "nope", "prefix": "tiers", "by_workload": False, "columns": {}}],
    [{"table": "tiers", "prefix": "tiers", "by_workload": False, "columns": {"x": "y"}}],
    [{"table": "tiers", "prefix": "tiers", "by_workload": True, "columns": {}}],
])
def test_a_malformed_reference_is_refused(refs: object) -> None:
    tables = _tables()
    tables[value_refs.REFS] = refs  # type: ignore[assignment]
    with pytest.raises(ValueError, match=value_refs.REFS):
        value_refs.expand(tables)


def _block(html: str) -> dict[str, object]:
    body = re.search(r'id="report-data">(.*?)</script>', html, re.S)
    assert body is not None
    data: dict[str, object] = json.loads(lzma.decompress(base64.b64decode(body.group(1))))
    return data


def test_a_crafted_reference_in_a_page_is_an_input_error(tmp_path: Path) -> None:
    packed = base64.b64encode(lzma.compress(json.dumps(
        {"schema": "reportgen.tables/2", "values": {}, value_refs.REFS: "x"}).encode(),
        format=lzma.FORMAT_XZ)).decode()
    page = tmp_path / "report.html"
    page.write_text('<script type="application/x-xz" id="report-data">' + packed
                    + "</script>", encoding="utf-8")
    with pytest.raises(InputError, match="values_by_ref"):
        tables_from_html(page)


def test_a_packed_block_stores_its_tier_values_by_reference_and_diff_reads_them_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen.build import build_report
    from reportgen.files import datablock
    from reportgen.files.resources import sample_round_dir as sample_round
    from reportgen.pipeline import tables_of

    monkeypatch.setattr(datablock, "PACK_ABOVE", 0)    # the sample takes a large round's path
    page = build_report(sample_round(), tmp_path / "report.html", None)
    block = _block(page.read_text(encoding="utf-8"))
    stored = block["values"]
    assert isinstance(stored, dict) and value_refs.REFS in block
    whole = tables_from_html(page)
    assert _json(whole) == _json(tables_of(sample_round()))
    tiers = [k for k in whole["values"] if k.startswith("tiers.") and k.endswith(".output_tok_s")]
    assert len(tiers) == len(whole["tiers"]) > 0
    assert not any(k in stored for k in tiers) and len(stored) < len(whole["values"]) / 2
