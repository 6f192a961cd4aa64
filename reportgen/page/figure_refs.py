"""Figure numbers in the narrative: ``{{ figure.<kind> }}`` is that figure's number as the
page shows it.

Figures are numbered in page order as the sections place them, after the narrative is rendered,
and which figures a round has depends on its data; a number typed into prose goes stale as soon
as a figure is added above it. So the narrative gets a mark per figure (a private-use character
pair around the figure's id, which no markdown or escaping touches) and the marks become
numbers once every section is built."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from markupsafe import Markup, escape

from reportgen.page.model import Figure, Section
from reportgen.text.bilingual import LANGS, Bi

OPEN, CLOSE = "\ue000", "\ue001"
_MARK = re.compile(f"{OPEN}([^{CLOSE}]*){CLOSE}")


def figure_marks(placed: Mapping[str, tuple[str, int]]) -> dict[str, Bi]:
    """``figure.<kind>`` → the mark of that figure (``placed``: kind → (id, height))."""
    return {f"figure.{kind}": Bi(*(f"{OPEN}{fig_id}{CLOSE}",) * len(LANGS))
            for kind, (fig_id, _) in placed.items()}


def figure_numbers(sections: Iterable[Section]) -> dict[str, Bi]:
    """Figure id → its number as the page shows it (the page.figure string: "Figure 6")."""
    return {b.id: b.number for s in sections for b in s.blocks if isinstance(b, Figure)}


def resolve_marks(sections: list[Section], titles: Mapping[str, Bi]) -> list[Section]:
    """The sections with each figure mark in their prose replaced by the figure's number; a
    figure the page does not show is named by its title (``titles``: id → title)."""
    numbers = figure_numbers(sections)

    def fill(text: Bi | None) -> Bi | None:
        if text is None or not any(OPEN in text.get(lang) for lang in LANGS):
            return text
        return Bi(*(_fill(text.get(lang), numbers, titles, lang) for lang in LANGS))

    return [dataclasses.replace(s, headline=fill(s.headline), prose=fill(s.prose))
            if s.prose is not None or s.headline is not None else s for s in sections]


def _fill(text: str, numbers: Mapping[str, Bi], titles: Mapping[str, Bi], lang: str) -> str:
    """``text`` with its marks filled; rendered prose (``Markup``) stays ``Markup``, with a
    number or a title escaped into it."""
    if isinstance(text, Markup):
        return Markup(_MARK.sub(lambda m: str(escape(_name(m[1], numbers, titles, lang))),
                                str(text)))
    return _MARK.sub(lambda m: _name(m[1], numbers, titles, lang), text)


def _name(fig_id: str, numbers: Mapping[str, Bi], titles: Mapping[str, Bi], lang: str) -> str:
    if fig_id in numbers:
        return numbers[fig_id].get(lang)
    title = titles.get(fig_id)
    return f"“{title.get(lang)}”" if title is not None else ""
