"""Anomalies and self-checks: grouped findings, the per-slot rate table, every check."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell, tier_cell, tier_row
from reportgen.page.data import num
from reportgen.page.graph_reuse import graph_reuse
from reportgen.page.model import Cell, Column, Heading, PageBlock, Para, Row, Table
from reportgen.text.bilingual import Bi
from reportgen.text.formatting import MISSING, fmt_g


def anomalies(b: Builder) -> list[PageBlock]:
    d = b.d
    out: list[PageBlock] = []
    out.append(Heading(b.t("anomalies.findings_title")))
    findings = grouped_findings(b)
    if findings is not None:
        out += [findings, Para(b.t("findings.details"), "note")]
    else:
        out.append(Para(b.t("anomalies.no_findings"), "note"))
    out += b.excluded_note()
    # per-slot × slots ("all busy") counts requests in flight: a concurrency axis only
    concs = [] if b.rate_axis else d.concurrencies()
    if concs:
        out.append(Para(b.t("anomalies.lead")))
        cols = [Column(b.t("anomalies.col_c"))]
        for key in ("col_slot", "col_bound", "col_measured"):
            cols += [Column(b.t(f"anomalies.{key}", engine=d.label(e)), True)
                     for e in d.order]
        rows = []
        for c in concs:
            cells = [tier_cell(c)]
            for kind in ("slot", "bound", "measured"):
                for e in d.order:
                    per_slot = num(d.tier(e, c).get("per_slot_tok_s"))
                    if kind == "measured":
                        cells.append(b.cell("tiers", e, c, "output_tok_s", ".1f"))
                    else:
                        cells.append(b.cell(
                            "tiers", e, c, "per_slot_tok_s", ".1f" if kind == "slot"
                            else ".0f", per_slot if kind == "slot" else per_slot * c))
            rows.append(tier_row(cells, b.any_excluded(c)))
        out.append(Table(cols, rows, b.t("anomalies.slot_caption")))
    out += graph_reuse(b)
    return out


def grouped_findings(b: Builder) -> Table | None:
    """Warn/fail checks, one row per (check, configuration) with its tiers listed; each
    tier's message is in the self-checks table."""
    checks = b.d.a.checks
    if checks is None or checks.empty:
        return None
    groups: dict[tuple[str, str, str], list[float]] = {}
    first: dict[tuple[str, str, str], Mapping[Hashable, Any]] = {}
    for r in checks.to_dict("records"):   # one conversion, not a Series per row
        status = str(r.get("status"))
        if status not in ("warn", "fail"):
            continue
        engine = r.get("engine") if isinstance(r.get("engine"), str) else ""
        key = (status, str(r.get("id", "")), str(engine))
        first.setdefault(key, r)
        c = num(r.get("concurrency"))
        groups.setdefault(key, [])
        if not math.isnan(c):
            groups[key].append(c)
    if not groups:
        return None
    rows = []
    for key in sorted(groups, key=lambda k: k[0] != "fail"):   # failures first
        status, cid, engine = key
        title_key = f"check_title.{cid}"
        title = b.t(title_key) if title_key in b.ui else check_message(first[key])
        tiers = ", ".join(fmt_g(c) for c in sorted(set(groups[key])))
        rows.append(Row([
            tcell(b.t(f"checks.{status}"), f"status {status}"),
            tcell(title, "prose"),
            tcell(b.d.label(engine) if engine else same(MISSING), "nowrap"),
            Cell(same(tiers or MISSING), True),
        ], f"check-{status}"))
    cols = [Column(b.t("checks.col_status")), Column(b.t("checks.col_check")),
            Column(b.t("checks.col_engine")), Column(b.t("findings.col_tiers"), True)]
    return Table(cols, rows, None, variant="checks")


def check_message(r: Mapping[Hashable, Any]) -> Bi:
    """A row of the checks table's message."""
    msg = r.get("message")
    return msg if isinstance(msg, Bi) else same("")


def checks(b: Builder) -> list[PageBlock]:
    d = b.d
    checks = d.a.checks
    out: list[PageBlock] = [Para(b.t("checks.lead"))]
    if checks is None or checks.empty:
        return [*out, Para(b.t("checks.none"), "note")]
    counts = {s: int((checks["status"] == s).sum()) for s in ("pass", "warn", "fail")}
    out.append(Para(b.t("checks.summary", **{k: str(v) for k, v in counts.items()})))
    order = {"fail": 0, "warn": 1, "pass": 2}
    records = checks.to_dict("records")   # one conversion, not a Series per row
    ranked = sorted(range(len(checks)),
                    key=lambda i: order.get(str(records[i].get("status")), 3))
    rows = []
    for i in ranked:
        r = records[i]
        status = str(r.get("status"))
        engine = r.get("engine")
        has_engine = isinstance(engine, str) and engine != ""
        rows.append(Row([
            tcell(b.t(f"checks.{status}") if status in order else same(status),
                  f"status {status}"),
            tcell(str(r.get("id", "")), "mono"),
            tcell(d.label(engine) if has_engine else same(MISSING), "nowrap"),
            Cell(same(fmt_g(r.get("concurrency"))), True),
            tcell(check_message(r), "prose"),
        ], f"check-{status}"))
    keys = ("col_status", "col_check", "col_engine", "col_c", "col_message")
    cols = [Column(b.t(f"checks.{k}"), k == "col_c") for k in keys]
    out.append(Table(cols, rows, None, variant="checks"))
    return out

