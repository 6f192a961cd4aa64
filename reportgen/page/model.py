"""The page model: plain dataclasses the template lays out (sections made of blocks)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from reportgen.analyze.changes import Diff
from reportgen.analyze.compare import Comparison, Missing
from reportgen.errors import Inferred  # the analysis carries them to the page
from reportgen.text.bilingual import Bi


@dataclass(frozen=True)
class Cell:
    """One table cell: text in both languages; ``num`` right-aligns it, ``cls`` marks it
    (excluded, synthetic, bad, ratio up/down, …)."""

    text: Bi
    num: bool = False
    cls: str = ""


@dataclass(frozen=True)
class Column:
    """A table column's heading; ``num`` for a column of numbers."""

    label: Bi
    num: bool = False


@dataclass(frozen=True)
class Row:
    """A table row; ``cls`` is ``has-excluded`` when a tier in it is excluded from
    conclusions (the page shades those rows)."""

    cells: list[Cell]
    cls: str = ""


@dataclass(frozen=True)
class Table:
    """A table block: columns, rows, an optional caption and the † legend under it."""

    columns: list[Column]
    rows: list[Row]
    caption: Bi | None = None
    variant: str = ""          # CSS variant: glossary, wide, checks, constants, revisions
    kind: str = "table"
    note: Bi | None = None     # the † legend, under a table holding marked cells


@dataclass(frozen=True)
class Card:
    """A headline card: label, the value in large print, a line below it; ``tone`` colours it."""

    label: Bi
    value: Bi
    sub: Bi
    tone: str = ""
    kind: str = "card"


@dataclass(frozen=True)
class Cards:
    """The headline cards of a section."""

    cards: list[Card]
    kind: str = "cards"


@dataclass(frozen=True)
class Para:
    """A paragraph of inline text; ``cls`` ``note`` for the smaller print."""

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
    blocks: list[PageBlock] = field(default_factory=list)
    anchor: str = ""  # the HTML id: `id`, prefixed per workload view when there are several


@dataclass(frozen=True)
class Revisions:
    """Changes against a previously published report (``build --previous``), grouped by input
    as ``reportgen diff`` groups them."""

    previous: str
    diff: Diff


@dataclass(frozen=True)
class View:
    """One workload's sections: a round with several workloads (runs of other lengths or
    datasets) shows one view at a time."""

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
    """A report built by `reportgen index`: links back to the index and to its siblings
    (``SeriesLink``, the current report marked)."""

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
class Fold:
    """Blocks folded away under a one-line summary (a ``<details>``): detail a reader opens
    when wanted, such as the settings inferred from the files."""

    summary: Bi
    blocks: list[Para | Table]
    kind: str = "fold"


@dataclass(frozen=True)
class SloPanel:
    """Goodput at the reader's SLO, recomputed in the page (templates/static/slo.js):
    threshold inputs, the tier picker of the distributions figure ``fig_id``, the tables
    slo.js fills, and ``data`` (reportgen/page/slo_payload.py, plus the strings slo.js
    writes: ``text`` {key: {zh, en}}, ``engines``)."""

    id: str
    fig_id: str
    text: dict[str, Bi]
    tiers: list[tuple[str, Bi]]   # (index in data["tiers"] of the figure's tier, label)
    data: dict[str, object]
    kind: str = "slo"


@dataclass(frozen=True)
class SpeedTable:
    """Engines at the same per-user speed: ``table`` (its last column empty, filled by
    templates/static/slo.js at the speed the reader types into the box labelled ``label``)
    and ``data``: each configuration's measured points (tier, per-user tok/s, tok/s per GPU,
    in its rows' order) and the strings slo.js writes."""

    id: str
    label: Bi
    table: Table
    data: dict[str, object]
    kind: str = "speed"


# what a section is made of (the template dispatches on each block's ``kind``)
PageBlock = (Para | Block | Heading | Facts | Cards | Figure | Table | Links | Fold | SloPanel
             | SpeedTable)


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

