"""``{{ figure.<kind> }}`` in the narrative: the figure's number as the page shows it, never a
number typed into prose (a figure added above it would make that one wrong)."""

from __future__ import annotations

import shutil
from pathlib import Path

from markupsafe import Markup

from reportgen.build import assemble_report, narrative_values
from reportgen.files.resources import sample_round_dir
from reportgen.page.figure_refs import CLOSE, OPEN, figure_marks, resolve_marks
from reportgen.page.model import Figure, Section
from reportgen.text.bilingual import Bi


def _section(prose: Bi | None, *blocks: Figure) -> Section:
    return Section("s", 1, Bi("t", "t"), None, prose, {}, list(blocks))


def test_a_mark_becomes_the_number_the_figure_has_on_the_page() -> None:
    marks = figure_marks({"reuse": ("fig-5", 400), "memory": ("fig-3", 400)})
    assert set(marks) == {"figure.reuse", "figure.memory"}
    prose = Bi(Markup(f"<p>见{marks['figure.reuse'].zh}</p>"),
               Markup(f"<p>See {marks['figure.reuse'].en} &amp; {marks['figure.memory'].en}</p>"))
    placed = _section(None, Figure("fig-5", Bi("图 2", "Figure 2")))
    out = resolve_marks([_section(prose), placed], {"fig-3": Bi("内存<拆分>", "Memory <split>")})
    zh, en = out[0].prose.zh, out[0].prose.en   # type: ignore[union-attr]
    assert zh == "<p>见图 2</p>" and isinstance(zh, Markup)
    # a figure the page does not place is named by its title, escaped into the markup
    assert en == "<p>See Figure 2 &amp; “Memory &lt;split&gt;”</p>" and isinstance(en, Markup)
    assert out[1] is placed     # no prose: untouched


def test_the_sample_narrative_names_the_reuse_figure_by_its_number() -> None:
    built = assemble_report(sample_round_dir())
    figures = {b.id: b.number for s in built.page.sections for b in s.blocks
               if isinstance(b, Figure)}
    reuse = next(f.id for f in built.figures.figures if f.kind == "reuse")
    anomalies = next(s for s in built.page.sections if s.id == "anomalies")
    assert anomalies.prose is not None
    assert f"The table and {figures[reuse].en} also show" in anomalies.prose.en
    assert f"上表和{figures[reuse].zh} 还给出了" in anomalies.prose.zh
    assert OPEN not in built.html() and CLOSE not in built.html()


def test_values_lists_each_figure_with_its_number_on_the_page(tmp_path: Path) -> None:
    root = shutil.copytree(sample_round_dir(), tmp_path / "round")
    values = narrative_values(root)
    built = assemble_report(root)
    kinds = {f.id: f.kind for f in built.figures.figures}
    shown = {f"figure.{kinds[b.id]}": b.number for s in built.page.sections for b in s.blocks
             if isinstance(b, Figure)}
    assert {k: v for k, v in values.items() if k.startswith("figure.")} == shown
    assert len(shown) >= 8
