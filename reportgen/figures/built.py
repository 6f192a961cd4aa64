"""A page's figures once built: ``FigureSet`` (what ``figures.registry.figures_payload`` returns and
the pipeline embeds) of ``BuiltFigure`` records. The page model reads which figures exist
(``placed``); the report's ``report-figs`` script block is ``payload()``."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltFigure:
    """One figure: its id (``fig-1``, ``w2-fig-1`` on a page of several workloads), its kind
    (``throughput`` …), its height in px, the plotly figure dict in the page's default language
    and the per-language patches (``i18n.figure_patches``)."""

    id: str
    kind: str
    height: int
    fig: Mapping[str, object]
    i18n: Mapping[str, object]

    def embedded(self) -> dict[str, object]:
        """What the page's script reads of it (kind and height serve the page model only)."""
        return {"id": self.id, "fig": self.fig, "i18n": self.i18n}


@dataclass(frozen=True)
class FigureSet:
    """The figures of a page (or of one workload's view), in page order, with the layout
    template sent once for all of them and the trace types that choose the plotly.js bundle."""

    default_lang: str
    template: Mapping[str, object]
    figures: tuple[BuiltFigure, ...] = ()
    # every trace type drawn by a figure built, placed on the page or not
    trace_types: frozenset[str] = frozenset()

    def prefixed(self, prefix: str) -> FigureSet:
        """The same figures with ids ``prefix + id`` (one view of a page of several)."""
        return dataclasses.replace(self, figures=tuple(
            dataclasses.replace(f, id=prefix + f.id) for f in self.figures))

    def placed(self) -> dict[str, tuple[str, int]]:
        """Figure kind → (id, height): what the page model places."""
        return {f.kind: (f.id, f.height) for f in self.figures}

    def only(self, ids: Collection[str]) -> FigureSet:
        """The figures whose ids are in ``ids`` (a section that does not apply has none)."""
        return dataclasses.replace(self, figures=tuple(f for f in self.figures if f.id in ids))

    @staticmethod
    def joined(sets: Iterable[FigureSet], default_lang: str) -> FigureSet:
        """Several views' figures as one page's (the template of the last, as every view's is
        the same)."""
        parts = list(sets)
        return FigureSet(
            default_lang=default_lang, template=parts[-1].template if parts else {},
            figures=tuple(f for s in parts for f in s.figures),
            trace_types=frozenset(t for s in parts for t in s.trace_types))

    def payload(self) -> dict[str, object]:
        """The ``report-figs`` block: ``defaultLang``, ``template``, ``figs``."""
        return {"defaultLang": self.default_lang, "template": self.template,
                "figs": [f.embedded() for f in self.figures]}
