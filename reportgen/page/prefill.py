"""Prefill: server-side prefill against the client's TTFT, and TTFT per tier."""

from __future__ import annotations

import math

from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell, tier_cell, tier_row
from reportgen.page.data import num
from reportgen.page.model import Column, PageBlock, Para, Table
from reportgen.text.bilingual import Bi
from reportgen.text.formatting import MISSING


def prefill(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = b.lead("prefill.lead")
    pre = d.a.prefill
    rows = []
    if pre is not None and len(pre) and "server_prefill_ms" in pre.columns:
        for e in d.order:
            for c, excl, r in b.engine_tier_rows(e, pre):
                if not math.isfinite(num(r.get("server_prefill_ms"))):
                    continue
                rows.append(tier_row([
                    tcell(d.label(e)),
                    tier_cell(c, excl),
                    b.frame_cell("prefill", e, c, r, "server_prefill_ms", ".1f", "server_ms"),
                    b.frame_cell("prefill", e, c, r, "server_samples", "d"),
                    b.frame_cell("prefill", e, c, r, "ttft_p50_ms", ".1f"),
                    b.frame_cell("prefill", e, c, r, "client_overhead_ms", ".1f"),
                    tcell(prefill_source(b, r.get("source")), "source"),
                ], excl))
    if rows:
        keys = ("col_engine", "col_c", "col_server", "col_samples", "col_ttft",
                "col_overhead", "col_source")
        cols = [Column(b.t(f"prefill.{k}"), k not in ("col_engine", "col_source"))
                for k in keys]
        out.append(Table(cols, rows, b.t("prefill.caption")))
    else:
        out.append(Para(b.t("prefill.no_data"), "note"))
    table = b.per_tier_table(
        [("crossover.col_ttft", "ttft_p50_ms", ".0f"), ("ttft.col_p99",
                                                         "ttft_p99_ms", ".0f")],
        b.t("prefill.ttft_caption"), "crossover.col_c")
    if table is not None:
        out.append(table)
    return out


def prefill_source(b: Builder, source: object) -> Bi:
    """The server-side prefill source in the page's language (analyze names it in
    English, by the counter it read)."""
    text = str(source or "")
    for prefix, key in (("llama-server", "prefill_source.llama"),
                        ("vllm:", "prefill_source.vllm")):
        if text.startswith(prefix):
            return b.t(key)
    return same(text or MISSING)

