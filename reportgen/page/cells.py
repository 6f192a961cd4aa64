"""Cells and bits of text the sections are built from. ``marked`` is the one place a number
cell gets its marks: † when computed from declared-synthetic input, ‡ when its tier is
excluded from conclusions."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from markupsafe import Markup, escape

from reportgen.narrative import SYNTHETIC_MARK
from reportgen.page.model import Cell, Row, Table
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import MISSING, fmt, fmt_g

# † belongs to values computed from declared-synthetic input; tiers excluded from conclusions
# take the second mark.
EXCLUDED_MARK = "‡"


def same(text: str) -> Bi:
    return Bi.plain(text)


def ncell(value: object, spec: str = "", cls: str = "") -> Cell:
    return Cell(same(fmt(value, spec)), num=True, cls=cls)


def tcell(text: Bi | str, cls: str = "") -> Cell:
    return Cell(text if isinstance(text, Bi) else same(str(text)), cls=cls)


def marked(text: str, excluded: bool = False, synthetic: bool = False,
           bad: bool = False) -> Cell:
    """A number cell: † when computed from declared-synthetic input, ‡ when its tier is
    excluded from conclusions; ``bad`` flags a value that is wrong in itself (failures)."""
    if synthetic and text != MISSING:
        text += SYNTHETIC_MARK
    if excluded:
        text = f"{text} {EXCLUDED_MARK}"
    cls = " ".join(c for c, on in (("excluded", excluded), ("synthetic", synthetic),
                                   ("bad", bad)) if on)
    return Cell(same(text), True, cls)


def with_mark(cell: Cell, mark: str) -> Cell:
    """``cell`` with ``mark`` after its other marks: `108.95† *`, one order on every table."""
    if not mark:
        return cell   # the same text: no copy (15,000 cells of a 64-configuration table)
    return dataclasses.replace(cell, text=Bi(*(cell.text.get(lang) + mark
                                               for lang in LANGS)))


def tier_cell(c: object, excluded: bool = False) -> Cell:
    """A row's tier (concurrency or rate): ‡ when excluded; the class goes on the row
    (``tier_row``), not on the cell."""
    text = fmt_g(c)
    return Cell(same(f"{text} {EXCLUDED_MARK}" if excluded else text), True)


def tier_row(cells: list[Cell], excluded: bool) -> Row:
    """A table row of one tier; ``excluded``: the tier (of any engine in the row) is excluded
    from conclusions."""
    return Row(cells, "has-excluded" if excluded else "")


def all_missing(table: Table) -> bool:
    """A table whose every value cell (all but the first column) is missing ("—", ‡ or not)."""
    values = [cell.text for row in table.rows for cell in row.cells[1:]]
    return bool(values) and all(
        t.en.replace(EXCLUDED_MARK, "").strip() in ("", MISSING) and
        t.zh.replace(EXCLUDED_MARK, "").strip() in ("", MISSING) for t in values)


def per_lang_join(parts: Sequence[Bi], sep: str = "; ") -> Bi:
    """Bi pieces joined with ``sep``, per language."""
    return Bi(sep.join(p.zh for p in parts), sep.join(p.en for p in parts))


def html_list(items: Sequence[str]) -> Markup:
    """An escaped ``<ul>`` (Markup items are kept as they are)."""
    return Markup("<ul>") + Markup("").join(
        Markup("<li>") + (item if isinstance(item, Markup) else escape(item)) + Markup("</li>")
        for item in items) + Markup("</ul>")
