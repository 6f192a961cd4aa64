"""What a page must never show, whatever the round (issue 19, item 1): a missing value ("—",
"–", "nan", "None") inside a sentence, a card, a caption, a glossary range or a legend; a table
whose every value cell is missing; a legend entry for a series with no data.

``audit(assembled)`` lists every fault of a built page (both languages) as one line each."""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from reportgen.figures.distributions import FILLED_META
from reportgen.files.resources import templates_dir
from reportgen.page.model import (
    Block,
    Cards,
    Facts,
    Figure,
    Fold,
    Heading,
    Page,
    Para,
    Section,
    Table,
)
from reportgen.pipeline import Assembled
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.i18n import load_ui

EM = "—"
_WORDS = re.compile(r"(?<![\w.])(nan|NaN|None|inf)(?![\w.])")
_EN_ALONE = re.compile(r"(?<![\w.)])–(?![\w.(])")
_TAG = re.compile(r"<[^>]+>")
_SLOT = re.compile(r"\{[a-z_0-9]+\}")
MISSING_CELLS = {"", EM, f"{EM} ‡", "–", "nan", "None"}


def _allowed_dashes() -> set[str]:
    """The em dashes the page's own text uses as punctuation: each as the few characters
    around it in a ui.toml string (never across a slot, where a value would go)."""
    out: set[str] = set()
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    keys = ui.keys()
    for key in keys:
        for lang in LANGS:
            for piece in _SLOT.split(_plain(ui.raw(key, lang))):
                for m in re.finditer(EM, piece):
                    out.add(piece[max(0, m.start() - 3):m.end() + 3])
    return out


_ALLOWED: set[str] | None = None


def _plain(text: str) -> str:
    """Markdown marks dropped and spaces collapsed, so raw and rendered text compare."""
    return re.sub(r"\s+", " ", re.sub(r"[`*]", "", text))


def text_faults(text: str) -> list[str]:
    """The missing marks inside one piece of page text (tags stripped)."""
    global _ALLOWED
    if _ALLOWED is None:
        _ALLOWED = _allowed_dashes()
    plain = _plain(html.unescape(_TAG.sub(" ", text)))
    out = []
    for m in re.finditer(EM, plain):
        if not any(a in plain[max(0, m.start() - len(a)):m.end() + len(a)] for a in _ALLOWED):
            out.append(plain[max(0, m.start() - 40):m.end() + 40])
    out += [plain[max(0, m.start() - 40):m.end() + 40] for m in _EN_ALONE.finditer(plain)]
    out += [plain[max(0, m.start() - 40):m.end() + 40] for m in _WORDS.finditer(plain)]
    return out


def _blocks(blocks: list[Any]) -> Iterator[Any]:
    """Every block, folded ones included (their summary as a sentence)."""
    for block in blocks:
        if isinstance(block, Fold):
            yield Para(block.summary)
            yield from block.blocks
        else:
            yield block


def _texts(section: Section) -> Iterator[tuple[str, Bi]]:
    """(where, text) for every sentence-like piece of a section."""
    yield "title", section.title   # (the author's headline and prose are theirs to punctuate)
    for block in _blocks(section.blocks):
        if isinstance(block, Para):
            yield "sentence", block.text
        elif isinstance(block, Block):
            yield "block", block.html
        elif isinstance(block, Heading):
            yield "heading", block.text
        elif isinstance(block, Cards):
            for card in block.cards:
                yield "card", Bi(*(f"{card.label.get(lang)} | {card.value.get(lang)} | "
                                   f"{card.sub.get(lang)}" for lang in LANGS))
        elif isinstance(block, Figure) and block.caption is not None:
            yield "caption", block.caption
        elif isinstance(block, Facts):
            for label, value in block.items:
                yield "setup card", Bi(*(f"{label.get(lang)}: {value.get(lang)}"
                                         for lang in LANGS))
        elif isinstance(block, Table):
            for where, text in (("caption", block.caption), ("table note", block.note)):
                if text is not None:
                    yield where, text
            for row in block.rows:
                for cell in row.cells:
                    if cell.cls in ("range", "prose"):
                        yield f"table {cell.cls}", cell.text


def _sections(page: Page) -> Iterator[tuple[str, Section]]:
    if page.views:
        for view in page.views:
            for s in view.sections:
                yield f"{view.id}/{s.id}", s
    else:
        for s in page.sections:
            yield s.id, s


def table_faults(table: Table) -> list[str]:
    """A table none of whose value cells holds a value."""
    values = [c for row in table.rows for c in row.cells[1:]]
    if not table.rows or not values:
        return []
    if all(c.text.get(lang).strip() in MISSING_CELLS for c in values for lang in LANGS):
        return [f"{len(table.rows)} rows, every cell missing"]
    return []


def _array(value: Any) -> list[float]:
    if isinstance(value, dict) and "bdata" in value:
        return [float(v) for v in np.frombuffer(base64.b64decode(value["bdata"]),
                                                dtype=np.dtype(value["dtype"]))]
    if isinstance(value, list | tuple):
        out = []
        for v in value:
            try:
                out.append(float(v))
            except (TypeError, ValueError):
                out.append(0.0 if v not in (None, "") else math.nan)  # categories count
        return out
    return []


def figure_faults(fig: dict[str, Any]) -> list[str]:
    """Legend entries (both languages) for series without data, or naming a missing value;
    annotations with a missing value."""
    out = []
    data = fig["fig"]["data"]
    names: dict[str, list[str]] = {}
    for lang, patch in fig.get("i18n", {}).items():
        own = [str(t.get("name", "")) for t in data]
        for k, i in enumerate(patch.get("traces", [])):
            if "name" in patch["data"]:
                own[i] = str(patch["data"]["name"][k] or "")
        names[lang] = own
    for i, trace in enumerate(data):
        if trace.get("showlegend") is False or not trace.get("name"):
            continue
        if trace.get("hoverinfo") == "skip" and trace.get("x") == [None]:
            continue   # a key to the markers (open = excluded, ⊗ = synthetic), not a series
        if trace.get("meta") == FILLED_META:
            continue   # slo.js fills it from the embedded per-request data of its engine
        xs, ys = _array(trace.get("x")), _array(trace.get("y"))
        points = [1 for x, y in zip(xs, ys, strict=False) if math.isfinite(x) and
                  math.isfinite(y)]
        if not points:
            out.append(f"{fig['id']}: legend entry {trace['name']!r} has no data")
        for lang, own in names.items():
            out += [f"{fig['id']} legend ({lang}): {t}" for t in text_faults(own[i])]
    layouts = [fig["fig"]["layout"]]
    for ann in (a for lay in layouts for a in lay.get("annotations", []) or []):
        out += [f"{fig['id']} annotation: {t}" for t in text_faults(str(ann.get("text", "")))]
    return out


def audit(built: Assembled) -> list[str]:
    """Every fault of the page, one line each (empty: the page passes)."""
    out: list[str] = []
    for where, section in _sections(built.page):
        for kind, text in _texts(section):
            for lang in LANGS:
                out += [f"{where} {kind} ({lang}): …{t}…" for t in text_faults(text.get(lang))]
        for block in _blocks(section.blocks):
            if isinstance(block, Table):
                out += [f"{where} table: {t}" for t in table_faults(block)]
    for fig in (f.embedded() for f in built.figures.figures):
        out += figure_faults(fig)
    return out
