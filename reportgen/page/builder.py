"""What every section reads and the pieces they share: the data, UI text, figure blocks (numbered
in page order), marked cells, per-tier tables, the ‡ note, the † legend and the notes that say
which input would fill a section's empty cells."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
from markupsafe import Markup

from reportgen.analyze.result import Analysis
from reportgen.narrative import Prose
from reportgen.page.cells import EXCLUDED_MARK, marked, tier_cell, tier_row
from reportgen.page.data import Data, num
from reportgen.page.model import Cell, Column, Figure, Inputs, PageBlock, Para, Revisions, Table
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import fmt, fmt_g, fmt_latency_ms
from reportgen.text.i18n import UI

# tiers columns derived from a latency metric whose name does not say so (the others start
# with ttft_ / itl_ / tpot_)
COLUMN_METRICS: dict[str, tuple[str, ...]] = {
    "wait_ratio": ("tpot", "itl"), "wait_ratio_implied": ("itl", "tpot"),
    "itl_mean_over_p50": ("itl",), "per_slot_tok_s": ("itl", "tpot"),
    "roofline_attainment": ("itl", "tpot"), "step_p50_ms": ("itl", "tpot"),
}

# tiers column → the client's key that fills it, per section (see Builder.gaps)
SECTION_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "prefill": (("ttft_p50_ms", "median_ttft_ms"),),
    "waves": (("e2el_p50_ms", "median_e2el_ms"),),
    "stalls": (("itl_mean_ms", "mean_itl_ms"), ("tpot_mean_ms", "mean_tpot_ms")),
    "data": (("tpot_p50_ms", "median_tpot_ms"), ("e2el_p50_ms", "median_e2el_ms"),
             ("ttft_p99_ms", "p99_ttft_ms")),
}


# sections built on throughput: each says in one sentence why it has none
THROUGHPUT_SECTIONS = ("crossover", "waves", "data")


def fmt_cell(column: str, value: object, spec: str) -> str:
    """A cell's text: latency columns (``*_ms``) of 10 s or more in seconds."""
    return fmt_latency_ms(value, spec) if column.endswith("_ms") else fmt(value, spec)


class Builder:
    """One workload's page in the making: sections (reportgen.page.sections) read it and
    return blocks."""

    def __init__(self, analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
                 figures: Mapping[str, tuple[str, int]],
                 revisions: Revisions | None = None, inputs: Inputs | None = None,
                 prefix: str = "") -> None:
        self.d = Data(analysis)
        self.inputs = inputs or Inputs()
        self.prefix = prefix
        self.rate_axis = self.d.round.axis == "request_rate"
        self.revisions = revisions
        self.ui = ui
        self.narrative = narrative
        self.figures = dict(figures)   # kind → (id, height px) of the figures that exist
        self.figure_no = 0             # figures are numbered in page order
        self.excluded_shown = False    # the ‡ note is shown once, where the mark first appears
        self.section_id = ""

    # --- text and figures

    def t(self, key: str, **slots: Any) -> Bi:
        return self.ui.t(key, **slots)

    def figure(self, kind: str, caption: Bi | None = None) -> list[PageBlock]:
        if kind not in self.figures:
            return []
        fig_id, height = self.figures[kind]
        self.figure_no += 1
        return [Figure(fig_id, self.t("page.figure", n=str(self.figure_no)), caption, height)]

    def lead(self, key: str, **slots: Any) -> list[PageBlock]:
        """A section's built-in introduction — left out when the author's prose for the
        section says it already."""
        if self.section_id in self.narrative:
            return []
        return [Para(self.t(key, **slots))]

    def others(self, engine: str, value: Callable[[str], Any],
               render: Callable[[float], str]) -> Bi:
        """'vLLM 15.83 ms; SGLang …' for every engine but one that has the value, per
        language (a configuration without it is left out: no "— ms" in a sentence)."""
        parts = [(self.d.label(e), render(num(value(e)))) for e in self.d.order
                 if e != engine and math.isfinite(num(value(e)))]
        return Bi(*("; ".join(f"{lab.get(lang)} {txt}" for lab, txt in parts) for lang in LANGS))

    def step_from_tpot(self) -> list[str]:
        """The configurations whose decode step is their TPOT p50 (analyze/tiers.decode_step)."""
        out = []
        for e in self.d.order:
            facts = self.d.round.engine(e)
            if facts is not None and facts.step_basis == "tpot":
                out.append(e)
        return out

    def step_note(self) -> list[PageBlock]:
        """The sentence that says which configurations' decode step is their TPOT p50, and
        why; none when every step is the ITL p50 the tables name."""
        engines = self.step_from_tpot()
        if not engines:
            return []
        labels = [self.d.label(e) for e in engines]
        joined = Bi(*(", ".join(lab.get(lang) for lab in labels) for lang in LANGS))
        return [Para(self.t("stalls.step_note", engines=joined), "note")]

    def kv_slots(self) -> dict[str, str | Bi]:
        """tps / kvb / bw slots for the floor formula (tps, kvb: first engine's constants; bw:
        the bandwidth the numbers used, see ``bandwidth_text``)."""
        e = self.d.engine(self.d.order[0]) if self.d.order else {}
        return {
            "tps": fmt_g(self.d.round.kv_tokens_per_slot),
            "kvb": fmt_g(e.get("kv_bytes_per_token")),
            "bw": self.bandwidth_text(),
        }

    def bandwidth_text(self) -> str | Bi:
        """The bandwidth the roofline numbers used, in GB/s: ``4,800``, or ``2 × 4,800 = 9,600``
        for two tensor-parallel GPUs; per configuration when they differ."""
        parts: dict[str, str] = {}
        for e in self.d.order:
            eng = self.d.engine(e)
            bw = num(eng.get("bandwidth_gb_s"))
            if not math.isfinite(bw):
                continue
            gpus, per_gpu = num(eng.get("bandwidth_gpus")), num(eng.get("gpu_bandwidth_gb_s"))
            parts[e] = (f"{fmt_g(gpus)} × {fmt_g(per_gpu)} = {fmt_g(bw)}"
                        if gpus > 1 and math.isfinite(per_gpu) else fmt_g(bw))
        if not parts:
            return fmt_g(self.d.round.bandwidth_gb_s)
        if len(set(parts.values())) == 1:
            return next(iter(parts.values()))
        return Bi(*(" · ".join(f"{self.d.label(e).get(lang)} {text}"
                               for e, text in parts.items()) for lang in LANGS))

    # --- marked cells (the marks themselves: cells.marked)

    def value_cell(self, frame: str, engine: str, c: float, name: str, text: str,
                   excluded: bool = False, bad: bool = False) -> Cell:
        """A formatted value of a per-tier frame (tiers, prefill, graph_reuse), † when that
        value (``frame.engine.c<C>.name``) rests on declared-synthetic input."""
        return marked(text, excluded, self.d.synthetic.cell(frame, engine, c, name), bad)

    def named_cell(self, name: str, text: str) -> Cell:
        """A formatted value known by its full name (``memory.<id>.<column>``), † likewise."""
        return marked(text, False, name in self.d.synthetic)

    def cell(self, frame: str, engine: str, c: float, column: str, spec: str,
             value: object = None) -> Cell:
        """One engine's number at one tier, ‡ when the tier is excluded. ``value`` defaults to
        the tiers frame's ``column``; ``frame`` names the value family (tiers, prefill, …)."""
        if value is None:
            value = self.d.tier(engine, c).get(column, math.nan)
        return self.value_cell(frame, engine, c, column, fmt_cell(column, value, spec),
                               self.d.excluded(engine, c))

    def frame_cell(self, frame: str, engine: str, c: float, row: Mapping[str, Any],
                   column: str, spec: str, value_name: str = "", bad: bool = False) -> Cell:
        """A cell of a per-tier frame row: no ‡ (the row's tier cell carries it)."""
        return self.value_cell(frame, engine, c, value_name or column,
                               fmt_cell(column, row.get(column, math.nan), spec), bad=bad)

    def engine_tier_rows(self, engine: str, frame: pd.DataFrame | None = None
                         ) -> Iterable[tuple[float, bool, Mapping[str, Any]]]:
        """(tier, excluded, row) for each of an engine's rows of ``frame`` (default: tiers).
        Rows are plain dicts: iterrows built a Series per row, and reading one is slow."""
        for r in self.d.records(engine, frame):
            yield r["concurrency"], bool(r.get("excluded", False)), r

    def per_tier_table(self, columns: Sequence[tuple[str, str, str]], caption: Bi | None,
                       c_key: str, engines: Iterable[str] | None = None) -> Table | None:
        """One row per concurrency; for each (column key, tiers column, format) one column
        per engine. Excluded (engine, tier) cells get the ‡ mark."""
        engines = list(engines or self.d.order)
        concs = self.d.concurrencies()
        if not concs or not engines:
            return None
        cols = [Column(self.t(c_key))]
        for key, column, _ in columns:
            for e in engines:
                cols.append(Column(self.client_column(self.t(key, engine=self.d.label(e)),
                                                      column), num=True))
        rows = []
        for c in concs:
            cells = [tier_cell(c)]
            for _, column, spec in columns:
                cells += [self.cell("tiers", e, c, column, spec) for e in engines]
            rows.append(tier_row(cells, self.any_excluded(c, engines)))
        return Table(cols, rows, self.client_caption(caption, [c for _, c, _ in columns]))

    # --- clients that define a metric differently (reportgen/reference/clients.py)

    def client_metrics(self, column: str) -> tuple[str, ...]:
        """The metrics (ttft, itl, tpot) a tiers column rests on that this round's clients
        define differently; empty when the column is comparable across configurations."""
        differ = self.d.round.clients_differ
        if not differ:
            return ()
        rests_on = COLUMN_METRICS.get(column) or tuple(
            m for m in ("ttft", "itl", "tpot") if column.startswith(f"{m}_"))
        return tuple(m for m in rests_on if m in differ)

    def client_column(self, label: Bi, column: str) -> Bi:
        """A column heading, with § when its metric is not comparable across clients."""
        if not self.client_metrics(column):
            return label
        return Bi(*(label.get(lang) + " §" for lang in LANGS))  # Markup + str: escaped

    def client_caption(self, caption: Bi | None, columns: Iterable[str]) -> Bi | None:
        """The caption, followed by the § note when a column is marked."""
        metrics = list(dict.fromkeys(m for c in columns for m in self.client_metrics(c)))
        if not metrics:
            return caption
        note = self.t("clients.mark_note", metrics=" / ".join(m.upper() for m in metrics))
        if caption is None:
            return note
        return Bi(*(Markup(" ").join((caption.get(lang), note.get(lang))) for lang in LANGS))

    def any_excluded(self, c: float, engines: Iterable[str] | None = None) -> bool:
        return any(self.d.excluded(e, c) for e in (self.d.order if engines is None else engines))

    # --- notes

    def excluded_note(self) -> list[PageBlock]:
        excluded = self.d.round.excluded
        if not excluded or self.excluded_shown:
            return []
        self.excluded_shown = True
        listed = Bi(*("; ".join(
            f"{self.d.label(e).get(lang)} " + ", ".join(f"C={fmt_g(c)}" for c in cs)
            for e, cs in excluded.items()) for lang in LANGS))
        reason_bi = self.d.round.exclude_reason or self.ui.plain("page.excluded_no_reason")
        return [Para(self.t("page.excluded_note", tiers=listed, reason=reason_bi), "note")]

    def with_legend(self, block: PageBlock) -> PageBlock:
        """A table holding †-marked cells gets the † legend under it, and one holding ‡ (an
        excluded tier) the ‡ legend: every table explains the marks it uses."""
        if not isinstance(block, Table):
            return block
        cells = [cell for row in block.rows for cell in row.cells]
        notes = []
        if any("synthetic" in cell.cls for cell in cells):
            notes.append(self.t("provenance.table_legend"))
        if any(EXCLUDED_MARK in cell.text.en for cell in cells):
            notes.append(self.t("marks.excluded_legend"))
        if not notes:
            return block
        if block.note is not None:
            notes.insert(0, block.note)
        # zh sentences end in a full stop of their own: joined without a space
        note = notes[0] if len(notes) == 1 else Bi(*(
            Markup("" if lang == "zh" else " ").join(n.get(lang) for n in notes)
            for lang in LANGS))
        return dataclasses.replace(block, note=note)

    def with_hint(self, text: Bi) -> Bi:
        """``text`` followed by how the view's clients record a missing latency metric:
        each client's own setting (``inputs.hint_<client>``), vLLM's when no client is
        known or the UI has none for it."""
        ids = dict.fromkeys(f.client for f in self.d.round.engines
                            if f.id in self.d.order and f.client)
        keys = [k for k in (f"inputs.hint_{i.replace('-', '_')}" for i in ids)
                if k in self.ui] or ["inputs.hint_vllm"]
        hints = [self.t(k) for k in keys]
        return Bi(*(Markup(" ").join((text.get(lang), *(h.get(lang) for h in hints)))
                    for lang in LANGS))

    def gaps(self, sid: str) -> list[PageBlock]:
        """One sentence per missing input that leaves a section's cells empty, naming the key
        (and a file) that would fill them: a section never shows blanks without saying why."""
        d = self.d
        out: list[PageBlock] = []
        example = ""
        runs = self.inputs.runs
        if runs is not None and len(runs):
            example = str(runs["source"].iloc[0])
        if sid in THROUGHPUT_SECTIONS and len(d.tiers) and "output_tok_s" in d.tiers.columns \
                and d.tiers["output_tok_s"].isna().all() and d.tiers["duration_s"].isna().all():
            # latency-only files (no duration, counts or tokens): one sentence says why
            out.append(Para(self.t("inputs.latency_only", file=example or "—"), "note"))
        for column, key in SECTION_NEEDS.get(sid, ()):
            if column in d.tiers.columns and len(d.tiers) and d.tiers[column].isna().all():
                out.append(Para(self.with_hint(self.t(
                    "inputs.needs_metric", name=key, file=example or "—")), "note"))
        if (sid == "bytes" or (sid == "batching" and not self.rate_axis)) and len(d.tiers) \
                and d.tiers["floor_ms"].isna().all():
            keys = []
            if not math.isfinite(num(d.round.bandwidth_gb_s)):
                keys.append("hardware.gpu" if not d.round.gpu
                            else "hardware.bandwidth_gb_s")
            for e in d.order:
                eng = d.engine(e)
                if not math.isfinite(num(eng.get("weight_bytes_per_step"))):
                    keys.append(f"engines.{e}.weight_bytes_per_step")
                if not math.isfinite(num(eng.get("kv_bytes_per_token"))):
                    keys.append(f"engines.{e}.kv_bytes_per_token")
            keys = list(dict.fromkeys(keys))
            if len(keys) == 1:
                out.append(Para(self.t("inputs.needs_key", name=keys[0]), "note"))
            elif keys:   # the first key, and how many more (init writes them all)
                out.append(Para(self.t("inputs.needs_keys", name=keys[0], n=len(keys) - 1),
                                "note"))
        if sid == "memory" and (d.a.memory is None or not len(d.a.memory)):
            out.append(Para(self.t("inputs.needs_log"), "note"))
        return out

