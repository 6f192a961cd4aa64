"""The page as plain dataclasses: sections made of blocks (prose, cards, tables, figures).

This is the only place that decides what the page says. Every number comes from the Analysis
(its frames, ``values`` and ``round`` dict), formatted by ``reportgen.formatting`` so both
languages show identical digits; every fixed word comes from the UI string table. The template
only lays the blocks out.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from markupsafe import Markup, escape

from reportgen.analyze.provenance import Synthetic
from reportgen.analyze.result import Analysis
from reportgen.baseline import Comparison, Missing
from reportgen.baseline import Row as SinceRow
from reportgen.baseline import delta as since_delta
from reportgen.diff import Diff
from reportgen.formatting import (
    MISSING,
    change_texts,
    exact,
    fmt,
    fmt_g,
    is_missing,
    pct_signed,
    signed_change,
    signed_delta,
)
from reportgen.i18n import UI, Bi
from reportgen.manifest import Inferred
from reportgen.narrative import LANGS, SECTIONS, SYNTHETIC_MARK, Prose

# † belongs to values computed from declared-synthetic input; tiers excluded from conclusions
# take the second mark.
EXCLUDED_MARK = "‡"


# ----------------------------------------------------------------------------- page model

@dataclass(frozen=True)
class Cell:
    text: Bi
    num: bool = False
    cls: str = ""


@dataclass(frozen=True)
class Column:
    label: Bi
    num: bool = False


@dataclass(frozen=True)
class Row:
    cells: list[Cell]
    cls: str = ""


@dataclass(frozen=True)
class Table:
    columns: list[Column]
    rows: list[Row]
    caption: Bi | None = None
    variant: str = ""          # CSS variant: glossary, wide, checks, constants, revisions
    kind: str = "table"
    note: Bi | None = None     # the † legend, under a table holding marked cells


@dataclass(frozen=True)
class Card:
    label: Bi
    value: Bi
    sub: Bi
    tone: str = ""
    kind: str = "card"


@dataclass(frozen=True)
class Cards:
    cards: list[Card]
    kind: str = "cards"


@dataclass(frozen=True)
class Para:
    text: Bi
    cls: str = ""
    kind: str = "para"


@dataclass(frozen=True)
class Block:
    """Block-level HTML (rendered markdown) in both languages."""

    html: Bi
    cls: str = ""
    kind: str = "block"


@dataclass(frozen=True)
class Heading:
    text: Bi
    kind: str = "heading"


@dataclass(frozen=True)
class Facts:
    """The setup card: label → value pairs."""

    items: list[tuple[Bi, Bi]]
    kind: str = "facts"


@dataclass(frozen=True)
class Figure:
    id: str
    number: Bi
    caption: Bi | None = None
    height: int = 460
    kind: str = "figure"


@dataclass(frozen=True)
class Section:
    id: str
    number: int
    title: Bi
    headline: Bi | None
    prose: Bi | None
    prose_lang: dict[str, str]
    blocks: list[Any] = field(default_factory=list)
    anchor: str = ""  # the HTML id: `id`, prefixed per workload view when there are several


@dataclass(frozen=True)
class Revisions:
    """Changes against a previously published report, grouped by input (reportgen.diff)."""

    previous: str
    diff: Diff


@dataclass(frozen=True)
class View:
    """One workload's sections; a round with several workloads shows one view at a time."""

    id: str
    label: Bi
    sections: list[Section]


@dataclass(frozen=True)
class Inputs:
    """What the page says about the round's files: runs used (this workload's), files
    skipped, settings inferred, and how configurations were told apart."""

    runs: pd.DataFrame | None = None
    skipped: tuple[tuple[str, str], ...] = ()
    inferred: tuple[Inferred, ...] = ()
    workloads: int = 1
    since: Comparison | Missing | None = None   # the baseline round ("Since the previous round")


@dataclass(frozen=True)
class SeriesLink:
    href: str          # relative: works from file:// and any static host
    title: Bi
    current: bool = False


@dataclass(frozen=True)
class Series:
    """A report built by `reportgen index`: links back to the index and to its siblings."""

    index_href: str
    label: Bi
    links: list[SeriesLink]


@dataclass(frozen=True)
class Links:
    """Plain anchors to other reports (round.toml [[related]]; relative or https only)."""

    title: Bi
    items: list[tuple[Bi, str]]
    kind: str = "links"


@dataclass(frozen=True)
class Page:
    default_lang: str          # the round's stated opening language ('' when none is stated)
    title: Bi
    subtitle: Bi | None
    date: str
    sections: list[Section]
    chrome: dict[str, Bi]
    views: list[View] = field(default_factory=list)  # several workloads: one view each
    series: Series | None = None
    notice: Bi | None = None   # the provenance banner (reconstructed / synthetic input)
    fallback_lang: str = "zh"  # when neither the reader nor the round chooses


# ----------------------------------------------------------------------------- formatting

def same(text: str) -> Bi:
    return Bi.plain(text)


def ncell(value: Any, spec: str = "", cls: str = "") -> Cell:
    return Cell(same(fmt(value, spec)), num=True, cls=cls)


def tcell(text: Bi | str, cls: str = "") -> Cell:
    return Cell(text if isinstance(text, Bi) else same(str(text)), cls=cls)


# ----------------------------------------------------------------------------- data access

class Data:
    """Convenient, NaN-safe reads from an Analysis."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.round: Mapping[str, Any] = analysis.round or {}
        self.values: Mapping[str, Any] = analysis.values or {}
        self.tiers: pd.DataFrame = analysis.tiers
        self.engines: pd.DataFrame = analysis.engines
        self.synthetic: Synthetic = getattr(analysis, "synthetic", None) or Synthetic()
        self.order: list[str] = [str(e) for e in self.engines["id"]] if len(self.engines) else []
        self.labels: dict[str, Bi] = analysis.labels()
        pair = self.round.get("primary_pair")
        if pair and len(pair) == 2:
            self.pair: tuple[str, str] | None = (str(pair[0]), str(pair[1]))
        elif len(self.order) >= 2:
            self.pair = (self.order[0], self.order[1])
        else:
            self.pair = None
        # The page reads the same few rows hundreds of times: filter each frame once.
        self._own: dict[str, pd.DataFrame] = {}
        self._tiers_by_c: dict[str, dict[float, Mapping[str, Any]]] = {}
        self._engine_rows: dict[Any, Mapping[str, Any]] | None = None
        self._concs: list[float] | None = None

    def label(self, engine: Any) -> Bi:
        return self.labels.get(str(engine), same(str(engine)))

    def engine(self, engine: str) -> Mapping[str, Any]:
        if self._engine_rows is None:
            self._engine_rows = {}
            if "id" in self.engines.columns:
                for i, eid in enumerate(self.engines["id"]):
                    if eid not in self._engine_rows:   # the first row of an id wins
                        self._engine_rows[eid] = self.engines.iloc[i].to_dict()
        try:
            return self._engine_rows.get(engine, {})
        except TypeError:   # unhashable: matches no id
            return {}

    def engine_facts(self, engine: str) -> Mapping[str, Any]:
        for facts in self.round.get("engines", []) or []:
            if isinstance(facts, Mapping) and facts.get("id") == engine:
                return facts
        return {}

    def rows(self, engine: str, frame: pd.DataFrame | None = None) -> pd.DataFrame:
        """An engine's rows of ``frame`` (default: tiers) by concurrency. Read-only: the tiers
        rows are shared between callers."""
        if frame is None:
            if engine not in self._own:
                self._own[engine] = self._filter(self.tiers, engine)
            return self._own[engine]
        return self._filter(frame, engine)

    @staticmethod
    def _filter(frame: pd.DataFrame | None, engine: str) -> pd.DataFrame:
        if frame is None or frame.empty or "engine" not in frame.columns:
            return pd.DataFrame()
        own = frame[frame["engine"] == engine]
        return own.sort_values("concurrency", kind="stable") if "concurrency" in own else own

    def tier(self, engine: str, c: float) -> Mapping[str, Any]:
        """The engine's first row at concurrency ``c`` ({} when there is none)."""
        if engine not in self._tiers_by_c:
            own = self.rows(engine)
            index: dict[float, Mapping[str, Any]] = {}
            if len(own):
                for i, value in enumerate(own["concurrency"]):
                    key = _num(value)
                    if not math.isnan(key) and key not in index:
                        index[key] = own.iloc[i].to_dict()
            self._tiers_by_c[engine] = index
        if isinstance(c, str | bytes):
            return {}
        return self._tiers_by_c[engine].get(_num(c), {})

    def concurrencies(self) -> list[float]:
        if self._concs is None:
            self._concs = [] if self.tiers.empty else \
                sorted({float(c) for c in self.tiers["concurrency"]})
        return list(self._concs)

    def excluded(self, engine: str, c: float) -> bool:
        return bool(self.tier(engine, c).get("excluded", False))

    def v(self, name: str) -> Any:
        return self.values.get(name, math.nan)


def _num(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _ctext(c: Any, excluded: bool = False) -> str:
    text = fmt_g(c)
    return f"{text} {EXCLUDED_MARK}" if excluded else text


def marked(text: str, excluded: bool = False, synthetic: bool = False) -> Cell:
    """A number cell: † when computed from declared-synthetic input, ‡ when its tier is
    excluded from conclusions."""
    if synthetic and text != MISSING:
        text += SYNTHETIC_MARK
    if excluded:
        text = f"{text} {EXCLUDED_MARK}"
    cls = " ".join(c for c, on in (("excluded", excluded), ("synthetic", synthetic)) if on)
    return Cell(same(text), True, cls)


# ----------------------------------------------------------------------------- sections

# tiers column → the client's key that fills it, per section (see PageBuilder.gaps)
SECTION_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "prefill": (("ttft_p50_ms", "median_ttft_ms"),),
    "waves": (("e2el_p50_ms", "median_e2el_ms"),),
    "stalls": (("itl_mean_ms", "mean_itl_ms"), ("tpot_mean_ms", "mean_tpot_ms")),
    "data": (("tpot_p50_ms", "median_tpot_ms"), ("e2el_p50_ms", "median_e2el_ms"),
             ("ttft_p99_ms", "p99_ttft_ms")),
}


class PageBuilder:
    def __init__(self, analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
                 figures: Mapping[str, tuple[str, int]],
                 revisions: Revisions | None = None, inputs: Inputs | None = None,
                 prefix: str = "") -> None:
        self.d = Data(analysis)
        self.inputs = inputs or Inputs()
        self.prefix = prefix
        self.rate_axis = self.d.round.get("axis") == "request_rate"
        self.revisions = revisions
        self.ui = ui
        self.narrative = narrative
        self.figures = dict(figures)   # kind → (id, height px) of the figures that exist
        self.figure_no = 0             # figures are numbered in page order
        self.excluded_shown = False    # the ‡ note is shown once, where the mark first appears
        self.section_id = ""

    # --- small pieces

    def t(self, key: str, **slots: Any) -> Bi:
        return self.ui.t(key, **slots)

    def figure(self, kind: str, caption: Bi | None = None) -> list[Any]:
        if kind not in self.figures:
            return []
        fig_id, height = self.figures[kind]
        self.figure_no += 1
        return [Figure(fig_id, self.t("page.figure", n=str(self.figure_no)), caption, height)]

    def lead(self, key: str, **slots: Any) -> list[Any]:
        """A section's built-in introduction — left out when the author's prose for the
        section says it already."""
        if self.section_id in self.narrative:
            return []
        return [Para(self.t(key, **slots))]

    def frame_cell(self, frame: str, engine: str, c: Any, row: Mapping[str, Any], column: str,
                   spec: str, value_name: str = "") -> Cell:
        """A cell of a per-tier frame row: † by the value's name, no ‡ (the row's C cell
        carries it)."""
        return marked(fmt(row.get(column, math.nan), spec), False,
                      self.d.synthetic.cell(frame, engine, c, value_name or column))

    def cell(self, frame: str, engine: str, c: Any, column: str, spec: str,
             value: Any = None) -> Cell:
        """One engine's number at one tier, marked (see ``marked``). ``value`` defaults to the
        tiers frame's ``column``; ``frame`` names the value family (tiers, prefill, …)."""
        if value is None:
            value = self.d.tier(engine, c).get(column, math.nan)
        return marked(fmt(value, spec), self.d.excluded(engine, c),
                      self.d.synthetic.cell(frame, engine, c, column))

    def others(self, engine: str, render: Any) -> Bi:
        """'vLLM 15.83 ms; SGLang …' for every engine but one, per language."""
        parts = [(self.d.label(e), render(e)) for e in self.d.order if e != engine]
        return Bi(*("; ".join(f"{lab.get(lang)} {txt}" for lab, txt in parts) for lang in LANGS))

    def excluded_note(self) -> list[Any]:
        excluded = self.d.round.get("excluded") or {}
        if not excluded or self.excluded_shown:
            return []
        self.excluded_shown = True
        listed = Bi(*("; ".join(
            f"{self.d.label(e).get(lang)} " + ", ".join(f"C={fmt_g(c)}" for c in cs)
            for e, cs in excluded.items()) for lang in LANGS))
        reason = self.d.round.get("exclude_reason")
        reason_bi = Bi(reason["zh"], reason["en"]) if isinstance(reason, Mapping) else \
            Bi(*(self.ui.raw("page.excluded_no_reason", lang) for lang in LANGS))
        return [Para(self.t("page.excluded_note", tiers=listed, reason=reason_bi), "note")]

    def kv_slots(self) -> dict[str, str]:
        """tps / kvb / bw slots for the floor formula (first engine's constants)."""
        e = self.d.engine(self.d.order[0]) if self.d.order else {}
        return {
            "tps": fmt_g(self.d.round.get("kv_tokens_per_slot", e.get("tokens_per_slot"))),
            "kvb": fmt_g(e.get("kv_bytes_per_token")),
            "bw": fmt_g(self.d.round.get("bandwidth_gb_s", e.get("bandwidth_gb_s"))),
        }

    def per_tier_table(self, columns: Sequence[tuple[str, str, str]], caption: Bi | None,
                       c_key: str, engines: Iterable[str] | None = None) -> Table | None:
        """One row per concurrency; for each (column key, tiers column, format) one column
        per engine. Excluded (engine, tier) cells get the † mark."""
        engines = list(engines or self.d.order)
        concs = self.d.concurrencies()
        if not concs or not engines:
            return None
        cols = [Column(self.t(c_key))]
        for key, _, _ in columns:
            for e in engines:
                cols.append(Column(self.t(key, engine=self.d.label(e)), num=True))
        rows = []
        for c in concs:
            any_excl = any(self.d.excluded(e, c) for e in engines)
            cells = [Cell(same(fmt_g(c)), num=True)]
            for _, column, spec in columns:
                cells += [self.cell("tiers", e, c, column, spec) for e in engines]
            rows.append(Row(cells, "has-excluded" if any_excl else ""))
        return Table(cols, rows, caption)

    # --- sections

    def setup(self) -> list[Any]:
        r = self.d.round
        items: list[tuple[Bi, Bi]] = []
        if r.get("gpu"):
            gpu = str(r["gpu"])
            if _num(r.get("gpu_count", 1)) > 1:
                gpu = f"{fmt_g(r['gpu_count'])} × {gpu}"
            items.append((self.t("setup.gpu"), self.t(
                "setup.gpu_value", gpu=gpu, memory=fmt_g(r.get("memory_gib")),
                bandwidth=fmt_g(r.get("bandwidth_gb_s")))))
        if r.get("model"):
            items.append((self.t("setup.model"), same(str(r["model"]))))
        for engine in self.d.order:
            facts = self.d.engine_facts(engine)
            parts = [str(facts[k]) for k in ("version", "dtype", "quant") if facts.get(k)]
            if facts.get("gpu_name") and not r.get("gpu"):  # GPUs differ by configuration
                parts.append(str(facts["gpu_name"]))
            if facts.get("commit") and str(facts["commit"]) not in parts:
                parts.insert(1 if parts else 0, str(facts["commit"]))
            items.append((self.d.label(engine), same(" · ".join(dict.fromkeys(parts)) or MISSING)))
            settings: list[Bi] = []
            if facts.get("slots") is not None:
                settings.append(self.t("setup.slots", n=fmt_g(facts["slots"])))
            if facts.get("context") is not None:
                settings.append(self.t("setup.context", n=fmt_g(facts["context"])))
            if facts.get("prompt_cache") in ("off", "on"):
                settings.append(self.t(f"setup.cache_{facts['prompt_cache']}"))
            if settings:
                items.append((self.t("setup.engine_settings", engine=self.d.label(engine)),
                              Bi(*(" · ".join(s.get(lang) for s in settings) for lang in LANGS))))
        if r.get("input_tokens") is not None:
            items.append((self.t("setup.workload"), self.t(
                "setup.workload_value", input=fmt_g(r["input_tokens"]),
                output=fmt_g(r.get("output_tokens")))))
        concs = r.get("concurrency") or self.d.concurrencies()
        if concs:
            items.append((self.t("setup.tiers"), same(" · ".join(fmt_g(c) for c in concs))))
        if r.get("client"):
            items.append((self.t("setup.client"), same(str(r["client"]))))
        if r.get("requests_total") is not None:
            per, n = r.get("requests_per_engine"), len(self.d.order)
            if per is not None and n > 1:
                value = self.t("setup.failed_value_engines", failed=fmt_g(r.get("failed_total")),
                               total=fmt_g(r["requests_total"]), n=str(n), per=fmt_g(per))
            else:
                value = self.t("setup.failed_value", failed=fmt_g(r.get("failed_total")),
                               total=fmt_g(r["requests_total"]))
            items.append((self.t("setup.failed"), value))
        if r.get("driver") or r.get("cuda"):
            items.append((self.t("setup.driver"), self.t(
                "setup.driver_value", driver=str(r.get("driver") or MISSING),
                cuda=str(r.get("cuda") or MISSING))))
        if r.get("date"):
            items.append((self.t("setup.date"), same(str(r["date"]))))
        return [Facts(items), *self.inferred_table()]

    def inferred_table(self) -> list[Any]:
        rows = [Row([tcell(i.key), tcell(i.value), tcell(i.source),
                     tcell(self.t(f"inputs.status_{i.status}", value=i.stated))])
                for i in self.inputs.inferred]
        if not rows:
            return []
        cols = [Column(self.t(f"inputs.{k}"))
                for k in ("col_key", "col_value", "col_source", "col_status")]
        return [Heading(self.t("inputs.inferred_title")), Para(self.t("inputs.inferred_lead")),
                Table(cols, rows, None)]

    def inputs_tables(self) -> list[Any]:
        """The runs behind this view's tiers, and the files of the round that were not
        read (and why)."""
        out: list[Any] = []
        runs = self.inputs.runs
        if runs is not None and len(runs):
            rows = []
            for r in runs.itertuples(index=False):
                x = r.concurrency if not self.rate_axis else (
                    r.request_rate if math.isfinite(r.request_rate) else math.inf)
                rows.append(Row([
                    tcell(str(r.source), "path"), tcell(self.d.label(str(r.engine))),
                    Cell(same(fmt_g(x)), True), ncell(r.repeat, "d"),
                    ncell(r.completed, "d"), ncell(r.failed, "d"), ncell(r.duration_s, ".2f"),
                    ncell(r.output_tok_s, ".1f"), ncell(r.ttft_p50_ms, ".0f"),
                    ncell(r.itl_p50_ms, ".2f")]))
            keys = (("inputs.col_run", False), ("inputs.col_config", False),
                    ("data.col_c", True), ("inputs.col_repeat", True), ("data.col_completed", True),
                    ("data.col_failed", True), ("data.col_duration", True),
                    ("data.col_out", True), ("data.col_ttft_p50", True),
                    ("data.col_itl_p50", True))
            cols = [Column(self.t(k), num) for k, num in keys]
            out += [Heading(self.t("inputs.runs_title")),
                    Para(self.t("inputs.runs_lead", n=fmt_g(len(runs)))),
                    Table(cols, rows, None, variant="wide")]
            if (runs["concurrency_note"] == "num_prompts").any():
                out.append(Para(self.t("inputs.effective_concurrency"), "note"))
        if self.inputs.skipped:
            rows = [Row([tcell(f), tcell(why)]) for f, why in self.inputs.skipped]
            cols = [Column(self.t("inputs.col_file")), Column(self.t("inputs.col_reason"))]
            out += [Heading(self.t("inputs.skipped_title")),
                    Para(self.t("inputs.skipped_lead", n=fmt_g(len(rows)))),
                    Table(cols, rows, None)]
        return out

    def glossary(self) -> list[Any]:
        r = self.d.round
        out: list[Any] = [Para(self.t("glossary.lead", client=str(r.get("client") or MISSING)))]
        out.append(Heading(self.t("glossary.pipeline_title")))
        out_tokens = _num(r.get("output_tokens"))
        gaps = fmt_g(out_tokens - 1) if math.isfinite(out_tokens) else "n − 1"
        out.append(Block(self.ui.block("glossary.pipeline", input=fmt_g(r.get("input_tokens")),
                                       gaps=gaps), "diagram"))
        metrics = (
            ("ttft", "ttft_p50_ms", ".0f", "ms"), ("itl", "itl_p50_ms", ".2f", "ms"),
            ("itl_p99", "itl_p99_ms", ".1f", "ms"), ("tpot", "tpot_p50_ms", ".2f", "ms"),
            ("e2el", "e2el_p50_ms", ".0f", "ms"), ("output_tok_s", "output_tok_s", ".1f", "tok/s"),
            ("total_tok_s", "total_tok_s", ".0f", "tok/s"),
        )
        rows = []
        for key, column, spec, unit in metrics:
            ranges = []
            for e in self.d.order:
                own = self.d.rows(e)
                if own.empty or column not in own:
                    continue
                first, last = own.iloc[0][column], own.iloc[-1][column]
                ranges.append((self.d.label(e), f"{fmt(first, spec)}→{fmt(last, spec)} {unit}"))
            measured = Bi(*("; ".join(f"{lab.get(lang)} {txt}" for lab, txt in ranges)
                            for lang in LANGS))
            rows.append(Row([
                tcell(self.t(f"glossary.{key}.metric"), "metric"),
                tcell(self.t(f"glossary.{key}.name")),
                tcell(self.t(f"glossary.{key}.what"), "prose"),
                tcell(measured, "range"),
            ]))
        cols = [Column(self.t(f"glossary.col_{k}")) for k in ("metric", "name", "what", "range")]
        out.append(Table(cols, rows, self.t("glossary.table_caption"), variant="glossary"))
        out.append(Heading(self.t("glossary.confusions_title")))
        out.append(Block(self.ui.block("glossary.confusions")))
        return out

    def headline(self) -> list[Any]:
        d = self.d
        cards: list[Card] = []
        if d.pair:
            a, b = d.pair
            if _num(d.v("crossover.count")) > 0:
                low, high = _num(d.v("crossover.range_low")), _num(d.v("crossover.range_high"))
                value = self.t("headline.cross_value", c=fmt(d.v("crossover.concurrency"), ".1f"))
                if math.isfinite(low) and math.isfinite(high):
                    value = self.t("headline.cross_value_range",
                                   c=fmt(d.v("crossover.concurrency"), ".1f"),
                                   lo=fmt(low, ".1f"), hi=fmt(high, ".1f"))
                cards.append(Card(
                    self.t("headline.cross_label"), value,
                    self.t("headline.cross_sub", a=d.label(a), b=d.label(b),
                           lo=fmt_g(d.v("crossover.lower_tier")),
                           hi=fmt_g(d.v("crossover.upper_tier")),
                           rlo=fmt(d.v("crossover.ratio_lower"), ".3f"),
                           rhi=fmt(d.v("crossover.ratio_upper"), ".3f")), "accent"))
            elif not math.isnan(_num(d.v("crossover.count"))):
                cards.append(Card(self.t("headline.cross_none_label"),
                                  self.t("headline.cross_none_value"),
                                  self.t("headline.cross_none_sub"), "accent"))
        itl_c1 = {e: _num(d.engine(e).get("itl_p50_c1_ms")) for e in d.order}
        finite = {e: v for e, v in itl_c1.items() if math.isfinite(v)}
        if finite:
            focus = min(finite, key=lambda e: finite[e])
            e = d.engine(focus)
            sub_others = self.others(focus, lambda o: f"{fmt(itl_c1[o], '.2f')} ms")
            if d.pair and focus == d.pair[0] and math.isfinite(_num(d.v("step_ratio.measured"))):
                sub = self.t("headline.step_sub", others=sub_others,
                             pred=fmt(d.v("step_ratio.predicted"), ".2x"),
                             meas=fmt(d.v("step_ratio.measured"), ".2x"))
            else:
                sub = sub_others
            cards.append(Card(self.t("headline.step_label", engine=d.label(focus)),
                              self.t("headline.step_value", ms=fmt(e.get("itl_p50_c1_ms"), ".2f")),
                              sub))
            if math.isfinite(_num(e.get("efficiency_cmax"))):
                cards.append(Card(
                    self.t("headline.eff_label", c=fmt_g(e.get("cmax")), engine=d.label(focus)),
                    same(fmt(e.get("efficiency_cmax"), "pct")),
                    self.t("headline.eff_sub", others=self.others(
                        focus, lambda o: fmt(d.engine(o).get("efficiency_cmax"), "pct")))))
            if math.isfinite(_num(e.get("ms_per_slot"))):
                cards.append(Card(
                    self.t("headline.slot_label", engine=d.label(focus)),
                    self.t("headline.slot_value", ms=fmt(e.get("ms_per_slot"), ".2f")),
                    self.t("headline.slot_sub", others=self.others(
                        focus, lambda o: f"{fmt(d.engine(o).get('ms_per_slot'), '.2f')} ms"),
                        floor=fmt(e.get("floor_ms_per_slot")))))
        for engine in d.order:
            c = d.v(f"throughput_drop.{engine}.concurrency")
            if is_missing(c):
                continue
            prev = d.v(f"throughput_drop.{engine}.previous_concurrency")
            cards.append(Card(
                self.t("headline.anomaly_label", engine=d.label(engine), c=fmt_g(c)),
                self.t("headline.anomaly_value", tok=fmt(d.tier(engine, c).get("output_tok_s"),
                                                         ".1f")),
                self.t("headline.anomaly_sub" if d.excluded(engine, c)
                       else "headline.drop_sub", prev=fmt_g(prev),
                       prev_tok=fmt(d.tier(engine, prev).get("output_tok_s"), ".1f")),
                "warn"))
            break
        return [Cards(cards)] if cards else []

    def crossover(self) -> list[Any]:
        d = self.d
        out: list[Any] = []
        captions = []
        for _, row in self.d.a.crossovers.iterrows():
            a, b = str(row["engine_a"]), str(row["engine_b"])
            rlo, rhi = _num(row["ratio_lower"]), _num(row["ratio_upper"])
            if d.pair and (b, a) == d.pair:   # read the ratio the way the headline does
                a, b, rlo, rhi = b, a, 1 / rlo, 1 / rhi
            captions.append(self.t(
                "crossover.caption", a=d.label(a), b=d.label(b), lo=fmt_g(row["lower_tier"]),
                hi=fmt_g(row["upper_tier"]), rlo=fmt(rlo, ".3f"), rhi=fmt(rhi, ".3f"),
                c=fmt(row["concurrency"], ".1f")))
        if not captions and len(d.order) >= 2:
            captions.append(self.t("crossover.no_crossing"))
        caption = Bi(*(Markup(" ").join(c.get(lang) for c in captions) for lang in LANGS)) \
            if captions else None
        out += self.figure("throughput", caption)
        if len(d.order) > 2 and d.a.reference:  # not every pair: say which were compared
            out.append(Para(self.t("pareto.reference", ref=d.label(d.a.reference)), "note"))
        out += self.figure("pareto", self.t("pareto.caption"))
        out += self.excluded_note()
        if d.pair:
            a, b = d.pair
            concs = d.concurrencies()
            cols = [Column(self.t("crossover.col_c"))]
            cols += [Column(self.t("crossover.col_tok", engine=d.label(e)), True) for e in d.order]
            cols.append(Column(self.t("crossover.col_ratio"), True))
            cols += [Column(self.t("crossover.col_itl", engine=d.label(e)), True) for e in d.order]
            cols += [Column(self.t("crossover.col_ttft", engine=d.label(e)), True)
                     for e in d.order]
            rows = []
            for c in concs:
                excl = {e: d.excluded(e, c) for e in d.order}
                cells = [Cell(same(fmt_g(c)), True)]

                def val(e: str, column: str, spec: str, c: float = c) -> Cell:
                    return self.cell("tiers", e, c, column, spec)

                cells += [val(e, "output_tok_s", ".1f") for e in d.order]
                ta, tb = (_num(d.tier(x, c).get("output_tok_s")) for x in (a, b))
                ratio = ta / tb if tb > 0 else math.nan
                cells.append(Cell(same(fmt(ratio, ".2x")), True,
                                  "ratio up" if ratio > 1 else "ratio down" if ratio < 1 else ""))
                cells += [val(e, "itl_p50_ms", ".2f") for e in d.order]
                cells += [val(e, "ttft_p50_ms", ".0f") for e in d.order]
                rows.append(Row(cells, "has-excluded" if any(excl.values()) else ""))
            out.append(Table(cols, rows, self.t("crossover.table_caption", num=d.label(a),
                                                den=d.label(b))))
        return out

    def bytes_(self) -> list[Any]:
        d = self.d
        out: list[Any] = self.lead("bytes.lead")
        rows = []
        c1 = MISSING
        for e in d.order:
            eng = d.engine(e)
            c1 = fmt_g(eng.get("c1"))
            rows.append(Row([
                tcell(d.label(e)),
                ncell(d.v(f"engines.{e}.weight_gb"), ".2f"),
                ncell(d.v(f"engines.{e}.kv_gb_c1"), ".2f"),
                ncell(d.v(f"engines.{e}.step_gb_c1"), ".2f"),
                ncell(eng.get("itl_p50_c1_ms"), ".2f"),
                ncell(eng.get("effective_gb_s_c1"), ".0f"),
                ncell(eng.get("mbu_c1"), ".0pct"),
            ]))
        if rows:
            keys = ("col_engine", "col_weights", "col_kv", "col_step", "col_itl", "col_gbs",
                    "col_mbu")
            cols = [Column(self.t(f"bytes.{k}"), k != "col_engine") for k in keys]
            out.append(Table(cols, rows, self.t("bytes.ledger_caption", c=c1, **{
                k: v for k, v in self.kv_slots().items() if k in ("tps", "kvb")})))
        if d.pair and math.isfinite(_num(d.v("step_ratio.measured"))):
            a, b = d.pair
            out.append(Para(self.t(
                "bytes.ratio", slow=d.label(b), fast=d.label(a),
                pred=fmt(d.v("step_ratio.predicted"), ".2x"),
                meas=fmt(d.v("step_ratio.measured"), ".2x"),
                att=fmt(d.v("step_ratio.attained"), "pct"), bw=self.kv_slots()["bw"])))
        return out

    def prefill(self) -> list[Any]:
        d = self.d
        out: list[Any] = self.lead("prefill.lead")
        pre = d.a.prefill
        rows = []
        if pre is not None and len(pre) and "server_prefill_ms" in pre.columns:
            for e in d.order:
                for _, r in d.rows(e, pre).iterrows():
                    if not math.isfinite(_num(r.get("server_prefill_ms"))):
                        continue
                    excl = bool(r.get("excluded", False))
                    c = r["concurrency"]
                    rows.append(Row([
                        tcell(d.label(e)),
                        Cell(same(_ctext(c, excl)), True),
                        self.frame_cell("prefill", e, c, r, "server_prefill_ms", ".1f",
                                        "server_ms"),
                        self.frame_cell("prefill", e, c, r, "server_samples", "d"),
                        self.frame_cell("prefill", e, c, r, "ttft_p50_ms", ".1f"),
                        self.frame_cell("prefill", e, c, r, "client_overhead_ms", ".1f"),
                        tcell(self.prefill_source(r.get("source")), "source"),
                    ], "has-excluded" if excl else ""))
        if rows:
            keys = ("col_engine", "col_c", "col_server", "col_samples", "col_ttft",
                    "col_overhead", "col_source")
            cols = [Column(self.t(f"prefill.{k}"), k not in ("col_engine", "col_source"))
                    for k in keys]
            out.append(Table(cols, rows, self.t("prefill.caption")))
        else:
            out.append(Para(self.t("prefill.no_data"), "note"))
        table = self.per_tier_table(
            [("crossover.col_ttft", "ttft_p50_ms", ".0f"), ("ttft.col_p99",
                                                             "ttft_p99_ms", ".0f")],
            self.t("prefill.ttft_caption"), "crossover.col_c")
        if table is not None:
            out.append(table)
        return out

    def prefill_source(self, source: Any) -> Bi:
        """The server-side prefill source in the page's language (analyze names it in
        English, by the counter it read)."""
        text = str(source or "")
        for prefix, key in (("llama-server", "prefill_source.llama"),
                            ("vllm:", "prefill_source.vllm")):
            if text.startswith(prefix):
                return self.t(key)
        return same(text or MISSING)

    def batching(self) -> list[Any]:
        if self.rate_axis:
            return [Para(self.t("inputs.needs_concurrency"), "note")]
        d = self.d
        slots = self.kv_slots()
        out: list[Any] = self.lead("batching.lead")
        out += self.figure("itl", self.t("batching.fig_caption", **slots))
        rows = []
        for e in d.order:
            eng = d.engine(e)
            if not eng:
                continue
            rows.append(Row([
                tcell(d.label(e)),
                ncell(eng.get("c1"), "d"), ncell(eng.get("cmax"), "d"),
                ncell(eng.get("itl_p50_c1_ms"), ".2f"), ncell(eng.get("itl_p50_cmax_ms"), ".2f"),
                ncell(eng.get("ms_per_slot"), ".3f"), ncell(eng.get("floor_ms_per_slot"), ".4f"),
                ncell(eng.get("slope_vs_floor"), ".1x"), ncell(eng.get("efficiency_cmax"), "pct"),
            ]))
        if rows:
            keys = ("col_engine", "col_lo", "col_hi", "col_itl_lo", "col_itl_hi", "col_slot",
                    "col_floor_slot", "col_slope", "col_eff")
            cols = [Column(self.t(f"batching.{k}"), k != "col_engine") for k in keys]
            out.append(Table(cols, rows, self.t("batching.cost_caption", **slots)))
        table = self.per_tier_table([("roofline.col_attainment", "roofline_attainment", ".1pct")],
                                    self.t("batching.attain_caption"), "crossover.col_c")
        if table is not None:
            out.append(table)
        return out

    def waves(self) -> list[Any]:
        if self.rate_axis:
            return [Para(self.t("inputs.needs_concurrency"), "note")]
        d = self.d
        out: list[Any] = [*self.lead("waves.lead"), Para(self.t("waves.caveat"), "note")]
        rows = []
        for e in d.order:
            for _, r in d.rows(e).iterrows():
                excl = bool(r.get("excluded", False))
                c = r["concurrency"]
                gap = self.frame_cell("tiers", e, c, r, "wave_gap", "")
                rows.append(Row([
                    tcell(d.label(e)),
                    Cell(same(_ctext(c, excl)), True),
                    *(self.frame_cell("tiers", e, c, r, column, spec) for column, spec in (
                        ("requests", "d"), ("waves", "d"), ("duration_s", ".2f"),
                        ("duration_per_wave_s", ".2f"))),
                    marked(fmt(_num(r.get("e2el_p50_ms")) / 1000.0, ".2f"), False,
                           d.synthetic.cell("tiers", e, c, "e2el_p50_ms")),
                    marked(pct_signed(r.get("wave_gap")), False, "synthetic" in gap.cls),
                ], "has-excluded" if excl else ""))
        if rows:
            keys = ("col_engine", "col_c", "col_requests", "col_waves", "col_duration",
                    "col_per_wave", "col_e2el", "col_gap")
            cols = [Column(self.t(f"waves.{k}"), k != "col_engine") for k in keys]
            out.append(Table(cols, rows, self.t("waves.caption")))
        return out

    def stalls(self) -> list[Any]:
        out: list[Any] = self.lead("stalls.lead")
        table = self.per_tier_table(
            [("stalls.col_p50", "itl_p50_ms", ".2f"), ("stalls.col_mean", "itl_mean_ms", ".2f"),
             ("stalls.col_ratio", "itl_mean_over_p50", ".2f")],
            self.t("stalls.itl_caption"), "stalls.col_c")
        if table is not None:
            out.append(table)
        out.append(Para(self.t("stalls.wait_lead")))
        out += self.figure("wait")
        columns = [("stalls.col_wait", "wait_ratio", ".1pct")]
        if "wait_ratio_implied" in self.d.a.tiers.columns:
            columns.append(("stalls.col_wait_implied", "wait_ratio_implied", ".1pct"))
        table = self.per_tier_table(columns, self.t("stalls.wait_caption"), "stalls.col_c")
        if table is not None:
            out.append(table)
            if len(columns) > 1:
                out.append(Para(self.t("stalls.implied_note"), "note"))
        return out

    def anomalies(self) -> list[Any]:
        d = self.d
        out: list[Any] = []
        out.append(Heading(self.t("anomalies.findings_title")))
        findings = self.grouped_findings()
        if findings is not None:
            out += [findings, Para(self.t("findings.details"), "note")]
        else:
            out.append(Para(self.t("anomalies.no_findings"), "note"))
        out += self.excluded_note()
        out.append(Para(self.t("anomalies.lead")))
        concs = d.concurrencies()
        if concs:
            cols = [Column(self.t("anomalies.col_c"))]
            for key in ("col_slot", "col_bound", "col_measured"):
                cols += [Column(self.t(f"anomalies.{key}", engine=d.label(e)), True)
                         for e in d.order]
            rows = []
            for c in concs:
                cells = [Cell(same(fmt_g(c)), True)]
                excl = {e: d.excluded(e, c) for e in d.order}
                for kind in ("slot", "bound", "measured"):
                    for e in d.order:
                        per_slot = _num(d.tier(e, c).get("per_slot_tok_s"))
                        if kind == "measured":
                            cells.append(self.cell("tiers", e, c, "output_tok_s", ".1f"))
                        else:
                            cells.append(self.cell(
                                "tiers", e, c, "per_slot_tok_s", ".1f" if kind == "slot"
                                else ".0f", per_slot if kind == "slot" else per_slot * c))
                rows.append(Row(cells, "has-excluded" if any(excl.values()) else ""))
            out.append(Table(cols, rows, self.t("anomalies.slot_caption")))
        out += self.graph_reuse()
        return out

    def grouped_findings(self) -> Table | None:
        """Warn/fail checks, one row per (check, configuration) with its tiers listed; each
        tier's message is in the self-checks table."""
        checks = self.d.a.checks
        if checks is None or checks.empty:
            return None
        groups: dict[tuple[str, str, str], list[float]] = {}
        first: dict[tuple[str, str, str], Mapping[str, Any]] = {}
        for i in range(len(checks)):
            r = checks.iloc[i].to_dict()
            status = str(r.get("status"))
            if status not in ("warn", "fail"):
                continue
            engine = r.get("engine") if isinstance(r.get("engine"), str) else ""
            key = (status, str(r.get("id", "")), str(engine))
            first.setdefault(key, r)
            c = _num(r.get("concurrency"))
            groups.setdefault(key, [])
            if not math.isnan(c):
                groups[key].append(c)
        if not groups:
            return None
        rows = []
        for key in sorted(groups, key=lambda k: k[0] != "fail"):   # failures first
            status, cid, engine = key
            title_key = f"check_title.{cid}"
            title = self.t(title_key) if title_key in self.ui else self._message(first[key])
            tiers = ", ".join(fmt_g(c) for c in sorted(set(groups[key])))
            rows.append(Row([
                tcell(self.t(f"checks.{status}"), f"status {status}"),
                tcell(title, "prose"),
                tcell(self.d.label(engine) if engine else same(MISSING), "nowrap"),
                Cell(same(tiers or MISSING), True),
            ], f"check-{status}"))
        cols = [Column(self.t("checks.col_status")), Column(self.t("checks.col_check")),
                Column(self.t("checks.col_engine")), Column(self.t("findings.col_tiers"), True)]
        return Table(cols, rows, None, variant="checks")

    def graph_reuse(self) -> list[Any]:
        d = self.d
        reuse = d.a.graph_reuse
        if reuse is None or reuse.empty or "engine" not in reuse.columns:
            return []
        out: list[Any] = [Heading(self.t("anomalies.reuse_title")),
                          Para(self.t("anomalies.reuse_lead")),
                          Block(self.ui.block("anomalies.reuse_bases"))]
        for e in d.order:
            own = d.rows(e, reuse)
            if own.empty:
                continue
            rows = []
            sources = set()
            for _, r in own.iterrows():
                excl = bool(r.get("excluded", False))
                c = r["concurrency"]
                if r.get("decode_steps_batched_source"):
                    sources.add(str(r["decode_steps_batched_source"]))
                rows.append(Row([
                    Cell(same(_ctext(c, excl)), True),
                    *(self.frame_cell("graph_reuse", e, c, r, column, spec) for column, spec in (
                        ("print_timing_lines", "d"), ("decode_steps", "d"),
                        ("graphs_reused_delta", "d"), ("reuse", ".2pct"),
                        ("decode_steps_batched", "d"), ("reuse_batched", ".1pct"),
                        ("itl_p50_ms", ".2f"), ("roofline_attainment", ".1pct"))),
                ], "has-excluded" if excl else ""))
            keys = ("col_c", "col_lines", "col_steps", "col_delta", "col_reuse", "col_steps_b",
                    "col_reuse_b", "col_itl", "col_att")
            cols = [Column(self.t(f"anomalies.{k}"), True) for k in keys]
            ceiling = own["theoretical_max_reuse"].iloc[0] if "theoretical_max_reuse" in own \
                else math.nan
            out.append(Table(cols, rows, self.t("anomalies.reuse_caption", engine=d.label(e),
                                                max=fmt(ceiling, ".1pct"))))
            for source in sorted(sources & {"log", "metrics"}):
                out.append(Para(self.t(f"anomalies.steps_source_{source}"), "note"))
        out += self.figure("reuse")
        out.append(Para(self.t("anomalies.correlation"), "note"))
        return out

    def memory(self) -> list[Any]:
        d = self.d
        out: list[Any] = self.lead("memory.lead")
        out += self.figure("memory")
        mem = d.a.memory
        if mem is not None and len(mem):
            rows = []
            for e in d.order:
                own = mem[mem["engine"] == e]
                if own.empty:
                    continue
                r = own.iloc[0]

                def mcell(column: str, spec: str, r: Any = r, e: str = e) -> Cell:
                    return marked(fmt(r.get(column), spec), False,
                                  f"memory.{e}.{column}" in d.synthetic)

                rows.append(Row([
                    tcell(d.label(e)),
                    mcell("weights_gib", ".2f"), mcell("kv_pool_gib", ".2f"),
                    mcell("kv_pool_tokens", "d"), mcell("estimated_total_gib", ".2f"),
                    mcell("measured_total_gib", ".2f"), mcell("other_gib", ".2f"),
                    mcell("estimate_gap", ".1pct"),
                ]))
            keys = ("col_engine", "col_weights", "col_kv", "col_tokens", "col_estimate",
                    "col_measured", "col_other", "col_gap")
            cols = [Column(self.t(f"memory.{k}"), k != "col_engine") for k in keys]
            out.append(Table(cols, rows, self.t("memory.caption")))
            ratio = d.v("memory.kv_capacity_ratio")
            if d.pair and not is_missing(ratio):
                a, b = d.pair
                tok = mem.set_index("engine")["kv_pool_tokens"]
                out.append(Para(self.t("memory.capacity", a=d.label(a), b=d.label(b),
                                       ta=fmt(tok.get(a), "d"), tb=fmt(tok.get(b), "d"),
                                       ratio=fmt(ratio, ".2x"))))
        return out

    def data(self) -> list[Any]:
        d = self.d
        out: list[Any] = [Para(self.t("data.lead"))]
        spec = (("col_requests", "requests", "d"), ("col_completed", "completed", "d"),
                ("col_failed", "failed", "d"), ("col_duration", "duration_s", ".2f"),
                ("col_out", "output_tok_s", ".1f"), ("col_total", "total_tok_s", ".0f"),
                ("col_ttft_p50", "ttft_p50_ms", ".0f"), ("col_ttft_p99", "ttft_p99_ms", ".0f"),
                ("col_itl_p50", "itl_p50_ms", ".2f"), ("col_itl_mean", "itl_mean_ms", ".2f"),
                ("col_itl_p99", "itl_p99_ms", ".1f"), ("col_tpot_p50", "tpot_p50_ms", ".2f"),
                ("col_e2el_p50", "e2el_p50_ms", ".0f"), ("col_mean_out", "mean_output_tokens",
                                                         ".2f"))
        repeats = "repeats" in d.tiers.columns and bool((d.tiers["repeats"] > 1).any())
        rows = []
        for e in d.order:
            for _, r in d.rows(e).iterrows():
                excl = bool(r.get("excluded", False))
                c = r["concurrency"]
                cells = [tcell(d.label(e)), Cell(same(_ctext(c, excl)), True)]
                for _, column, fspec in spec:
                    cell = self.frame_cell("tiers", e, c, r, column, fspec)
                    if column == "failed" and _num(r.get(column)) > 0:
                        cell = Cell(cell.text, True, f"{cell.cls} bad".strip())
                    cells.append(cell)
                if repeats:
                    cells.append(Cell(same(
                        f"{fmt_g(r.get('repeats'))} ({fmt(r.get('output_tok_s_min'), '.1f')}–"
                        f"{fmt(r.get('output_tok_s_max'), '.1f')})"), True))
                rows.append(Row(cells, "has-excluded" if excl else ""))
        if rows:
            cols = [Column(self.t("data.col_engine")), Column(self.t("data.col_c"), True)]
            cols += [Column(self.t(f"data.{k}"), True) for k, _, _ in spec]
            if repeats:
                cols.append(Column(self.t("inputs.repeats_col"), True))
            out.append(Table(cols, rows, None, variant="wide"))
        out += self.figure("tradeoff", self.t("batching.tradeoff_caption"))
        out.append(Para(self.t("data.download"), "note"))
        return out + self.inputs_tables()

    def _message(self, r: Mapping[str, Any]) -> Bi:
        msg = r.get("message")
        if isinstance(msg, Mapping):
            return Bi(str(msg.get("zh", "")), str(msg.get("en", "")))
        return Bi(str(r.get("message_zh", "") or ""), str(r.get("message_en", "") or ""))

    def checks(self) -> list[Any]:
        d = self.d
        checks = d.a.checks
        out: list[Any] = [Para(self.t("checks.lead"))]
        if checks is None or checks.empty:
            return [*out, Para(self.t("checks.none"), "note")]
        counts = {s: int((checks["status"] == s).sum()) for s in ("pass", "warn", "fail")}
        out.append(Para(self.t("checks.summary", **{k: str(v) for k, v in counts.items()})))
        order = {"fail": 0, "warn": 1, "pass": 2}
        ranked = sorted(range(len(checks)), key=lambda i: order.get(checks.iloc[i]["status"], 3))
        rows = []
        for i in ranked:
            r = checks.iloc[i].to_dict()
            status = str(r.get("status"))
            engine = r.get("engine")
            has_engine = isinstance(engine, str) and engine != ""
            rows.append(Row([
                tcell(self.t(f"checks.{status}") if status in order else same(status),
                      f"status {status}"),
                tcell(str(r.get("id", "")), "mono"),
                tcell(d.label(engine) if has_engine else same(MISSING), "nowrap"),
                Cell(same(fmt_g(r.get("concurrency"))), True),
                tcell(self._message(r), "prose"),
            ], f"check-{status}"))
        keys = ("col_status", "col_check", "col_engine", "col_c", "col_message")
        cols = [Column(self.t(f"checks.{k}"), k == "col_c") for k in keys]
        out.append(Table(cols, rows, None, variant="checks"))
        return out

    def constants(self) -> list[Any]:
        consts = list(getattr(self.d.a, "constants", []) or [])
        if not consts:
            return []
        rows = []
        for c in consts:
            prov = c.provenance
            prov_bi = Bi(prov.zh, prov.en) if hasattr(prov, "zh") else same(str(prov))
            rows.append(Row([tcell(str(c.name), "mono"),
                             marked(_constant_value(c.value, str(c.unit or "")), False,
                                    _constant_value_name(str(c.name)) in self.d.synthetic),
                             tcell(str(c.unit or "")), tcell(prov_bi, "source")]))
        cols = [Column(self.t("constants.col_name")), Column(self.t("constants.col_value"), True),
                Column(self.t("constants.col_unit")), Column(self.t("constants.col_source"))]
        return [Para(self.t("constants.lead")), Table(cols, rows, None, variant="constants")]

    def related(self) -> list[Any]:
        """Links to the round's other reports: plain anchors (the page requests nothing)."""
        items = []
        for entry in self.d.round.get("related") or []:
            title = _bi_text(entry.get("title")) if isinstance(entry, Mapping) else None
            href = entry.get("href") if isinstance(entry, Mapping) else None
            if title is not None:
                items.append((title, href if isinstance(href, str) else ""))
        return [Links(self.t("related.title"), items)] if items else []

    def revisions_(self) -> list[Any]:
        """One row per changed figure, grouped by the input it belongs to (its label on the
        group's first row): old, new, and the change as delta and percent."""
        rev = self.revisions
        if rev is None:
            return []
        diff = rev.diff
        if not diff.groups:
            return [Para(self.t("revisions.none", previous=rev.previous))]
        rows = []
        for group in diff.groups:
            item = group.input
            workload = f"{item.workload} · " if item.workload else ""
            if item.engine:
                label = self.t("revisions.input", engine=self.d.label(item.engine),
                               point=diff.point_label(item.point), workload=workload)
            else:
                label = self.t("revisions.input_round", workload=workload)
            for i, f in enumerate(group.figures):
                old, new, delta, rel = change_texts(f.old, f.new, f.delta, f.relative)
                change = f"{delta} ({rel})" if delta and rel else delta or rel
                rows.append(Row([tcell(same("") if i else label, "nowrap"),
                                 tcell(f.name, "mono"),
                                 Cell(same(old), True), Cell(same(new), True),
                                 Cell(same(change), True)]))
        cols = [Column(self.t(f"revisions.col_{k}"), k in ("old", "new", "change"))
                for k in ("input", "figure", "old", "new", "change")]
        counts = {k: str(v) for k, v in diff.counts().items()}
        return [Para(self.t("revisions.lead", previous=rev.previous, inputs=str(len(diff.groups)),
                            **counts)),
                Table(cols, rows, None, variant="revisions")]

    def since_(self) -> list[Any]:
        """Since the previous round: what changed in the set-up, headline figures side by side
        with their deltas, and where the baseline's curves are drawn."""
        since = self.inputs.since
        if since is None:
            return []
        if isinstance(since, Missing):
            return [Para(self.t("since.missing", path=since.path), "note")]
        b = since.baseline
        when = Bi(*(self.ui.raw("since.dated", lang, date=b.date) if b.date else ""
                    for lang in LANGS))
        out: list[Any] = [Para(self.t("since.lead", title=b.title, date=when))]
        if b.as_published:
            out.append(Para(self.t("since.as_published", source=b.source or same("—")),
                            "note"))

        def label(row: SinceRow, group: str) -> Bi:
            """Plain text (the template escapes it): UI label, engine label, published note."""
            engine = since.labels.get(row.engine or "", same(row.engine or ""))
            return Bi(*(self.ui.raw(f"since.{group}.{row.key}", lang, engine=engine.get(lang))
                        for lang in LANGS))

        def shown(value: Any, spec: str = "") -> Bi:
            if isinstance(value, Mapping):
                return Bi(str(value.get("zh", "")), str(value.get("en", "")))
            if isinstance(value, str):
                return same(value)
            if isinstance(value, bool):
                return same(str(value).lower())
            return same(fmt(value, spec) if spec else fmt_g(value))

        def old(row: SinceRow) -> Bi:
            """The baseline's value; as published: at the precision printed, with its note."""
            spec = row.spec if not b.as_published or row.spec.endswith("pct") else ""
            text = shown(row.old, spec)
            if row.note is None:
                return text
            return Bi(f"{text.zh}（{row.note.zh}）", f"{text.en} ({row.note.en})")

        if since.setup:
            out.append(Heading(self.t("since.setup_heading")))
            cols = [Column(self.t("since.col_setting")), Column(self.t("since.col_baseline")),
                    Column(self.t("since.col_current"))]
            out.append(Table(cols, [Row([Cell(label(r, "setup")), Cell(old(r)),
                                         Cell(shown(r.new))]) for r in since.setup],
                             None, variant="since"))
        if since.unchanged:
            names = [label(r, "setup") for r in since.unchanged]
            out.append(Para(self.t("since.unchanged", names=Bi(
                *("; ".join(n.get(lang) for n in names) for lang in LANGS))), "note"))
        if since.figures:
            out.append(Heading(self.t("since.figures_heading")))
            cols = [Column(self.t("since.col_figure")), Column(self.t("since.col_baseline"), True),
                    Column(self.t("since.col_current"), True),
                    Column(self.t("since.col_delta"), True),
                    Column(self.t("since.col_change"), True)]
            rows = []
            for r in since.figures:
                d, change = since_delta(r)
                rows.append(Row([Cell(label(r, "figure")), Cell(old(r), True),
                                 Cell(shown(r.new, r.spec), True),
                                 Cell(same(signed_delta(d, r.spec)), True),
                                 Cell(same(signed_change(change)), True)]))
            out.append(Table(cols, rows, None, variant="since"))
        if b.tiers.empty:
            out.append(Para(self.t("since.no_curves"), "note"))
        else:
            out.append(Para(self.t("since.curves"), "note"))
        return out
    def with_legend(self, block: Any) -> Any:
        """A table holding †-marked cells gets the legend under it."""
        if isinstance(block, Table) and any(
                "synthetic" in cell.cls for row in block.rows for cell in row.cells):
            return dataclasses.replace(block, note=self.t("provenance.table_legend"))
        return block

    # --- what would fill the gaps

    def gaps(self, sid: str) -> list[Any]:
        """One sentence per missing input that leaves a section's cells empty, naming the key
        (and a file) that would fill them: a section never shows blanks without saying why."""
        d = self.d
        out: list[Any] = []
        example = ""
        runs = self.inputs.runs
        if runs is not None and len(runs):
            example = str(runs["source"].iloc[0])
        for column, key in SECTION_NEEDS.get(sid, ()):
            if column in d.tiers.columns and len(d.tiers) and d.tiers[column].isna().all():
                out.append(Para(self.t("inputs.needs_metric", name=key, file=example or "—"),
                                "note"))
        if sid in ("bytes", "batching") and not self.rate_axis and len(d.tiers) \
                and d.tiers["floor_ms"].isna().all():
            keys = []
            if not math.isfinite(_num(d.round.get("bandwidth_gb_s"))):
                keys.append("hardware.gpu" if not d.round.get("gpu")
                            else "hardware.bandwidth_gb_s")
            for e in d.order:
                eng = d.engine(e)
                if not math.isfinite(_num(eng.get("weight_bytes_per_step"))):
                    keys.append(f"engines.{e}.weight_bytes_per_step")
                if not math.isfinite(_num(eng.get("kv_bytes_per_token"))):
                    keys.append(f"engines.{e}.kv_bytes_per_token")
            if keys:
                out.append(Para(self.t("inputs.needs_key", name="`, `".join(
                    dict.fromkeys(keys))), "note"))
        if sid == "memory" and (d.a.memory is None or not len(d.a.memory)):
            out.append(Para(self.t("inputs.needs_log"), "note"))
        return out

    # --- assembly

    def sections(self) -> list[Section]:
        makers = {
            "setup": self.setup, "glossary": self.glossary, "headline": self.headline,
            "crossover": self.crossover, "bytes": self.bytes_, "prefill": self.prefill,
            "batching": self.batching, "waves": self.waves, "stalls": self.stalls,
            "anomalies": self.anomalies, "memory": self.memory, "data": self.data,
            "checks": self.checks, "constants": self.constants, "next": self.related,
            "baseline": self.since_,
        }
        out = []
        order = list(SECTIONS)
        if self.revisions is not None:
            makers["revisions"] = self.revisions_
            order.insert(order.index("headline") + 1, "revisions")
        for sid in order:
            self.section_id = sid
            blocks = [self.with_legend(b) for b in makers[sid]()]
            if blocks:
                blocks += self.gaps(sid)
            prose = self.narrative.get(sid)
            if sid == "baseline" and not isinstance(self.inputs.since, Comparison):
                prose = None    # its prose compares with a baseline this build does not have
            if not blocks and prose is None:
                continue
            headline = prose_bi(prose.title) if prose and any(prose.title.values()) else None
            out.append(Section(
                id=sid, number=len(out) + 1, title=self.t(f"section.{sid}.title"),
                headline=headline, prose=prose_bi(prose.body) if prose else None,
                prose_lang=dict(prose.source_lang) if prose else {lang: lang for lang in LANGS},
                blocks=blocks, anchor=self.prefix + sid))
        return out


def prose_bi(per_lang: Mapping[str, str]) -> Bi:
    return Bi(per_lang["zh"], per_lang["en"])


def _ul(items: Sequence[str]) -> str:
    return Markup("<ul>") + Markup("").join(
        Markup("<li>") + (item if isinstance(item, Markup) else escape(item)) + Markup("</li>")
        for item in items) + Markup("</ul>")


def _bi_text(value: Any) -> Bi | None:
    if isinstance(value, Mapping):
        return Bi(str(value.get("zh", value.get("en", ""))), str(value.get("en", value.get("zh",
                                                                                           ""))))
    if isinstance(value, str) and value:
        return same(value)
    return None


# one precision per unit: sizes in GiB/GB as the memory and byte tables show them; counts and
# bytes whole; anything else at six significant digits
_CONSTANT_SPEC = {"GiB": ".2f", "GB": ".2f"}
_MEMORY_CONSTANT = {"weights": "weights_gib", "kv_pool": "kv_pool_gib",
                    "kv_pool_tokens": "kv_pool_tokens", "measured": "measured_total_mib"}


def _constant_value(value: Any, unit: str) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and unit in _CONSTANT_SPEC:
        return fmt(value, _CONSTANT_SPEC[unit])
    return exact(value)


def _constant_value_name(name: str) -> str:
    """The `values` name a constant feeds (`vllm.memory.measured` → memory.vllm.…)."""
    engine, _, rest = name.partition(".memory.")
    return f"memory.{engine}.{_MEMORY_CONSTANT[rest]}" if rest in _MEMORY_CONSTANT else ""


def build_sections(analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
                   figures: Mapping[str, tuple[str, int]], revisions: Revisions | None = None,
                   inputs: Inputs | None = None, prefix: str = "") -> list[Section]:
    """One workload's sections (ids prefixed when the page holds several workloads)."""
    return PageBuilder(analysis, ui.for_axis(str(analysis.round.get("axis"))), narrative,
                       figures, revisions, inputs, prefix).sections()


def provenance_notice(analysis: Analysis, ui: UI) -> Bi | None:
    """The banner of a round whose files are declared reconstructed or synthetic: the
    author's note, then what is synthetic (the † mark) and what is reconstructed."""
    prov = analysis.synthetic.declared
    if not prov.stated:
        return None
    status = prov.status if prov.status != "measured" else (
        "synthetic" if any(f.status == "synthetic" for f in prov.files) else "reconstructed")
    parts = {lang: [Markup("<p><strong>") + ui.t(f"provenance.title_{status}").get(lang)
                    + Markup("</strong> ")
                    + (escape(prov.note.get(lang)) if prov.note else Markup(""))
                    + Markup("</p>")] for lang in LANGS}
    for kind in ("synthetic", "reconstructed"):
        entries = [f for f in prov.files if f.status == kind]
        whole = kind == "synthetic" and prov.status == "synthetic" and not prov.files
        if not entries and not whole:
            continue
        for lang in LANGS:
            items = [f.note.get(lang) if f.note else ", ".join(f.files) for f in entries]
            parts[lang].append(Markup("<p>") + ui.t(f"provenance.lead_{kind}").get(lang)
                               + Markup("</p>"))
            if items:
                parts[lang].append(_ul(items))
    return Bi(*(Markup("").join(parts[lang]) for lang in LANGS))


def build_page(analysis: Analysis, ui: UI, narrative: Mapping[str, Prose],
               figures: Mapping[str, tuple[str, int]], default_lang: str,
               chrome: Mapping[str, Bi], date: str, revisions: Revisions | None = None,
               inputs: Inputs | None = None, views: list[View] | None = None,
               series: Series | None = None, fallback_lang: str = "zh") -> Page:
    """Assemble the page. ``figures`` maps figure kind → (id, height) of the figures built;
    ``chrome`` holds footer/toggle texts prepared by the caller. With ``views`` (several
    workloads) the page shows those instead of one analysis's sections. ``default_lang`` is
    the round's stated opening language ('' when neither --lang nor round.toml states one)."""
    r = analysis.round or {}
    title = _bi_text(r.get("title")) or same("reportgen")
    notice = provenance_notice(analysis, ui)
    if views:
        return Page(default_lang=default_lang, title=title,
                    subtitle=_bi_text(r.get("subtitle")), date=date,
                    sections=views[0].sections, chrome=dict(chrome), views=views,
                    series=series, notice=notice, fallback_lang=fallback_lang)
    builder = PageBuilder(analysis, ui.for_axis(str(r.get("axis"))), narrative, figures,
                          revisions, inputs)
    return Page(default_lang=default_lang, title=title, subtitle=_bi_text(r.get("subtitle")),
                date=date, sections=builder.sections(), chrome=dict(chrome), series=series,
                notice=notice, fallback_lang=fallback_lang)
