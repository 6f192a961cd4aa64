"""Memory: Figure 3, the memory split per engine and the KV capacity ratio."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.cells import tcell
from reportgen.page.model import Column, PageBlock, Para, Row, Table
from reportgen.text.formatting import fmt, is_missing


def memory(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = b.lead("memory.lead")
    out += b.figure("memory")
    mem = d.a.memory
    if mem is not None and len(mem):
        rows = []
        for e in d.order:
            own = mem[mem["engine"] == e]
            if own.empty:
                continue
            r = own.iloc[0]
            rows.append(Row([tcell(d.label(e)), *(
                b.named_cell(f"memory.{e}.{column}", fmt(r.get(column), spec))
                for column, spec in (
                    ("weights_gib", ".2f"), ("kv_pool_gib", ".2f"), ("kv_pool_tokens", "d"),
                    ("estimated_total_gib", ".2f"), ("measured_total_gib", ".2f"),
                    ("other_gib", ".2f"), ("estimate_gap", ".1pct")))]))
        keys = ("col_engine", "col_weights", "col_kv", "col_tokens", "col_estimate",
                "col_measured", "col_other", "col_gap")
        cols = [Column(b.t(f"memory.{k}"), k != "col_engine") for k in keys]
        out.append(Table(cols, rows, b.t("memory.caption")))
        ratio = d.v("memory.kv_capacity_ratio")
        if d.pair and not is_missing(ratio):
            ea, eb = d.pair
            tok = mem.set_index("engine")["kv_pool_tokens"]
            out.append(Para(b.t("memory.capacity", a=d.label(ea), b=d.label(eb),
                                ta=fmt(tok.get(ea), "d"), tb=fmt(tok.get(eb), "d"),
                                ratio=fmt(ratio, ".2x"))))
    return out

