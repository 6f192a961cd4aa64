"""A page for every round (issue 19, item 1): on every folder of ../shared/real_rounds that
loads, and on generated rounds of each shape, no missing value ("—", "–", "nan", "None") sits
inside a sentence, card, caption, glossary range or legend, in either language; no table has
no value in any cell; no legend entry stands for a series without data.

A folder reportgen refuses today (a client without a reader yet) must be refused cleanly; once
its reader lands, its page is audited like the others without a change here."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import real_round_params
from factories import ROUND_SHAPES, write_round
from page_audit import audit, figure_faults, table_faults, text_faults

from reportgen.build import assemble_report
from reportgen.errors import InputError
from reportgen.page.model import Card, Figure, Para, Row, Section, Table
from reportgen.text.bilingual import Bi

FOLDERS = real_round_params()   # vendored, then ../shared only (marked `shared`)


@pytest.mark.parametrize("folder", FOLDERS)
def test_real_round_page_shows_no_missing_value(folder: Path) -> None:
    try:
        built = assemble_report(folder)
    except InputError as e:   # no reader for this client yet: refused with a reason
        assert str(e).strip()
        return
    assert audit(built) == []


@pytest.mark.parametrize("shape", ROUND_SHAPES)
def test_generated_round_page_shows_no_missing_value(shape: str, tmp_path: Path) -> None:
    built = assemble_report(write_round(tmp_path / shape, shape))
    assert audit(built) == []


def test_there_are_real_folders_to_audit() -> None:
    assert len(FOLDERS) >= 3


# ------------------------------------------------------------- the audit itself can fail


def test_audit_finds_a_missing_value_in_a_sentence() -> None:
    assert text_faults("Bytes predict —, measured 1.72×")
    assert text_faults("gpu —→— ms")
    assert text_faults("measured by the same client (—)")
    assert text_faults("MBU is nan here") and text_faults("label None")
    assert text_faults("a rate – of")
    # punctuation the page's own strings use, and ranges, are not missing values
    assert not text_faults("Throughput is not 1 / TPOT. Raising concurrency makes TPOT worse "
                           "and throughput better — that trade is what a sweep measures.")
    assert not text_faults("C ≈ 4.2 (range 3.1–5.0 across repeats), log–log")


def test_audit_finds_an_all_missing_table_and_an_empty_legend_entry() -> None:
    from reportgen.page.model import Cell

    dash = Cell(Bi.plain("—"), True)
    table = Table([], [Row([Cell(Bi.plain("1")), dash, dash]), Row([Cell(Bi.plain("2")), dash,
                                                                    dash])])
    assert table_faults(table)
    assert not table_faults(Table([], [Row([Cell(Bi.plain("1")), Cell(Bi.plain("3.5"))])]))
    fig = {"id": "fig-2", "fig": {"data": [
        {"type": "scatter", "name": "ws floor", "x": [1, 2], "y": [None, None]},
        {"type": "scatter", "name": "ws", "x": [1, 2], "y": [3.0, 4.0]}], "layout": {}},
        "i18n": {}}
    assert figure_faults(fig) == ["fig-2: legend entry 'ws floor' has no data"]


def test_audit_reads_cards_captions_and_both_languages() -> None:
    from page_audit import _texts

    section = Section("headline", 1, Bi.plain("Headline"), None, None, {}, [
        Para(Bi("好", "fine")), Figure("fig-1", Bi.plain("Figure 1"), Bi("地板 — GB/s", "ok")),
    ])
    found = [(kind, text) for kind, text in _texts(section) if text_faults(text.zh)
             or text_faults(text.en)]
    assert [k for k, _ in found] == ["caption"]
    card = Card(Bi.plain("Step"), Bi.plain("16 ms"), Bi.plain("Bytes predict —"))
    section = Section("headline", 1, Bi.plain("H"), None, None, {}, [])
    from reportgen.page.model import Cards
    section.blocks.append(Cards([card]))
    assert any(text_faults(t.en) for _, t in _texts(section))


def test_a_rate_sweep_speaks_of_rates(tmp_path: Path) -> None:
    """Item 2: no per-slot "all busy" bound, point labels "1 req/s" (the ends only), checks
    that say "rate step"."""
    from reportgen.pipeline import analyze_dir

    folder = write_round(tmp_path / "rate", "rate")
    built = assemble_report(folder)
    labels = [t for f in built.figures.figures if f.id.endswith("fig-6")
              for tr in f.fig["data"] for t in tr.get("text") or []]
    assert "1 req/s" in labels and not any(t.startswith("C=") for t in labels)
    assert labels.count("") >= 4   # the middle tiers are left to hover
    text = " ".join(b.text.en for s in built.page.sections for b in s.blocks
                    if isinstance(b, Para))
    assert "slot" not in text
    checks = analyze_dir(folder).analysis.parts[0].checks
    assert "Output throughput rises with every rate step." in {m.en for m in checks["message"]}


def test_a_mixed_sweep_becomes_two_views_each_on_its_own_axis(tmp_path: Path) -> None:
    """Item 5: concurrency sweeps and a rate sweep of the same servers are two views, never
    one-point series."""
    from reportgen.pipeline import analyze_dir

    done = analyze_dir(write_round(tmp_path / "mixed", "mixed"))
    parts = done.analysis.parts
    assert [p.round.axis for p in parts] == ["concurrency", "request_rate"]
    for p in parts:
        assert sorted(p.engines["id"]) == ["alpha", "beta"]   # not one per tier
        points = p.tiers.groupby("engine")["concurrency"].nunique()
        assert (points >= 2).all()
    axis = next(i for i in done.analysis.inferred if i.key == "round.axis")
    assert "each sweep is its own view" in axis.source
    assert set(done.analysis.runs["axis"]) == {"concurrency", "request_rate"}
