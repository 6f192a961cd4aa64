"""Line figures of many configurations: like curves merged into one trace (figures/many.py),
and the page's large tables folded with their rows packed (render.FoldedRows)."""

from __future__ import annotations

import base64
import gzip
import json
import math

from reportgen.figures.base import Fig, Scatter, trace_values
from reportgen.figures.many import GROUP, merge_series
from reportgen.page.model import Cell, Column, Row, Table
from reportgen.render import FOLD_CELLS, FoldedRows, row_lines, rows_label, table_rows
from reportgen.text.bilingual import Bi

HOVER = "C=%{x}<br>%{y} tok/s%{customdata[0]}"


def _curve(name: str, color: str, ys: list[float], note: str = "") -> dict[str, object]:
    return Scatter(x=[1.0, 2.0], y=ys, mode="lines+markers", name=name,
                   line=dict(color=color, width=2.5),
                   marker=dict(color=color, symbol=["circle", "circle-open"]),
                   customdata=[[note], [note]], hovertemplate=HOVER)


def test_curves_of_one_style_become_one_trace_with_gaps_and_names() -> None:
    fig = Fig()
    fig.add_trace(_curve("A measured", "#111111", [10.0, 20.0], "a"))
    fig.add_trace(_curve("B measured", "#111111", [30.0, 40.0], "b"))
    fig.add_trace(_curve("C measured", "#222222", [50.0, 60.0]))   # its own colour: kept
    merge_series(fig, "3 configurations", ["A", "B", "C"])
    legend, merged, alone = fig.data
    assert legend["name"] == "3 configurations" and legend["showlegend"] is True
    assert legend["legendgroup"] == GROUP and legend["x"] == [None]
    xs, ys = trace_values(merged["x"]), trace_values(merged["y"])
    assert list(xs[:2]) == [1.0, 2.0] and math.isnan(xs[2]) and list(xs[3:]) == [1.0, 2.0]
    assert list(ys[[0, 1, 3, 4]]) == [10.0, 20.0, 30.0, 40.0] and math.isnan(ys[2])
    assert merged["hovertext"] == ["A", "A", "A", "B", "B"]   # the configuration, not "measured"
    assert merged["customdata"] == [["a"], ["a"], ["a"], ["b"], ["b"]]
    assert merged["marker"]["symbol"] == ["circle", "circle-open", "circle", "circle",
                                          "circle-open"]
    assert merged["hovertemplate"] == HOVER + "<extra>%{hovertext}</extra>"
    assert merged["showlegend"] is False and merged["legendgroup"] == GROUP
    assert alone["name"] == "C measured" and "hovertext" not in alone
    assert list(merged)[-1] == "type"


def test_nothing_to_merge_leaves_the_figure_alone() -> None:
    fig = Fig()
    fig.add_trace(_curve("A", "#111111", [1.0, 2.0]))
    fig.add_trace(_curve("B", "#222222", [1.0, 2.0]))
    before = json.dumps(fig.to_dict())
    merge_series(fig, "2 configurations", ["A", "B"])
    assert json.dumps(fig.to_dict()) == before


def _table(rows: int, columns: int) -> Table:
    return Table([Column(Bi.plain(f"h{j}")) for j in range(columns)],
                 [Row([Cell(Bi("中", "en"), num=True) if j else Cell(Bi.plain(f"r{i}"))
                       for j in range(columns)], "has-excluded" if i == 1 else "")
                  for i in range(rows)])


def test_large_tables_fold_and_their_rows_unpack_to_the_same_markup() -> None:
    folded = FoldedRows()
    small, big = _table(FOLD_CELLS // 5, 5), _table(FOLD_CELLS // 5 + 1, 5)
    assert not folded.big(small) and folded.big(big)
    assert folded.add(big.rows) == 0
    tables = json.loads(gzip.decompress(base64.b64decode(folded.packed())))
    assert tables == [row_lines(big.rows)]
    assert "".join(tables[0]) == str(table_rows(big.rows))
    assert tables[0][1].startswith('\n<tr class="has-excluded"><td>r1</td><td class="num">'
                                   '<span data-l="zh" lang="zh-CN">中</span>')
    assert folded.packed() == folded.packed()   # deterministic bytes
    assert rows_label(Bi("共 {n} 行", "{n} rows"), 1234) == Bi("共 1,234 行", "1,234 rows")
