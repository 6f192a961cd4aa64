"""The three recipes of docs/CONTRIBUTING.md, checked where they can go wrong silently:

- a reader is one module in reportgen/load/formats/ plus one line in its READERS;
- a figure is one builder plus one line in figures.registry.BUILDERS, its strings under
  [fig.<kind>] in ui.toml, and one `b.figure("<kind>")` in a page section;
- a tier metric is one declaration in analyze/tier_metrics.py, which the frame, the provenance
  marks, the tables export, the page's tiers table and check's terminal table all read: a
  metric declared here reaches every one of them with no other edit.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from reportgen.analyze import run, tier_metrics
from reportgen.analyze.tier_metrics import TierMetric
from reportgen.console import tiers_text
from reportgen.figures.registry import BUILDERS
from reportgen.files.resources import templates_dir
from reportgen.load import formats
from reportgen.load.round import load_round
from reportgen.page.assemble import build_sections
from reportgen.page.model import Table
from reportgen.tables import to_json_dict
from reportgen.text.i18n import load_ui
from tests.page_fixture import make_analysis

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "CONTRIBUTING.md"
SAMPLE = ROOT / "sample_runs" / "round2-rtx4090"
# tier metrics that no result-JSON key feeds, each with why
NOT_FROM_RESULTS = {
    "floor_ms": "the roofline floor: round.toml / built-in tables, marked through constants",
}


def test_every_reader_module_is_registered_once() -> None:
    # a reader is a module that defines sniff(); the others (metric_keys …) are shared helpers
    modules = sorted(p.stem for p in (ROOT / "reportgen" / "load" / "formats").glob("*.py")
                     if p.name != "__init__.py" and "\ndef sniff(" in p.read_text())
    registered = [m.__name__.rsplit(".", 1)[1] for m in formats.READERS]
    assert sorted(registered) == modules and len(set(registered)) == len(registered)
    for reader in formats.READERS:
        assert isinstance(reader.CLIENT, str) and reader.CLIENT
        assert callable(reader.sniff) and callable(reader.read)
        # the optional streaming pair (the package docstring): both or neither
        assert hasattr(reader, "streams") == hasattr(reader, "read_stream"), reader.CLIENT


def test_every_figure_has_its_strings_and_a_place_on_the_page() -> None:
    ui = tomllib.loads((ROOT / "templates" / "i18n" / "ui.toml").read_text(encoding="utf-8"))
    sections = "\n".join(p.read_text(encoding="utf-8")
                         for p in (ROOT / "reportgen" / "page").glob("*.py"))
    ids = [fig_id for fig_id, _, _ in BUILDERS]
    assert ids == [f"fig-{i}" for i in range(1, len(BUILDERS) + 1)]
    for _, kind, builder in BUILDERS:
        assert {"zh", "en"} <= set(ui["fig"][kind]["title"]), kind
        assert re.search(rf'\bb\.figure\("{kind}"', sections), f"no page section places {kind}"
        assert callable(builder)


def test_every_tier_metric_has_its_provenance_inputs() -> None:
    no_inputs = {m.column for m in tier_metrics.declared() if not m.inputs}
    assert no_inputs == set(NOT_FROM_RESULTS), (
        "a tier metric with no result-JSON inputs (its † mark would be lost): "
        f"{sorted(no_inputs - set(NOT_FROM_RESULTS))}")
    columns = [m.column for m in tier_metrics.declared()]
    assert len(set(columns)) == len(columns)
    assert tier_metrics.tier_columns()[:2] == ("engine", "concurrency")


def test_every_tier_metric_heading_has_its_strings_and_format() -> None:
    ui = tomllib.loads((ROOT / "templates" / "i18n" / "ui.toml").read_text(encoding="utf-8"))
    for m in tier_metrics.declared():
        if m.label:
            assert {"zh", "en"} <= set(ui["data"][m.label]), m.label
        if m.label or m.terminal:
            assert m.spec, f"{m.column} is shown without a format"


# a metric a contributor might add: TTFT p50 in seconds, computed from the result's median TTFT
# (the sample declares llama.cpp's C=8 TPOT synthetic, not its TTFT: so the test takes TPOT)
NEW = TierMetric("tpot_p50_s", ("median_tpot_ms",), spec=".4f", label="col_tpot_p50",
                 terminal="TPOT s")


@pytest.fixture(scope="module")
def with_new_metric():  # type: ignore[no-untyped-def]
    """The sample analysed with NEW declared and computed (the recipe's steps 1 and 2)."""
    patch = pytest.MonkeyPatch()
    computed = run.add_waves
    patch.setattr(run, "add_waves", lambda tiers: computed(tiers).assign(
        tpot_p50_s=tiers["tpot_p50_ms"] / 1000))
    patch.setattr(tier_metrics, "TIER_METRICS", (*tier_metrics.TIER_METRICS, NEW))
    try:
        yield run.analyze_round(load_round(SAMPLE))
    finally:
        patch.undo()


def test_a_declared_tier_metric_reaches_the_frame_and_the_tables(with_new_metric) -> None:  # type: ignore[no-untyped-def]
    ra = with_new_metric
    tiers = ra.first.tiers
    assert "tpot_p50_s" in tiers.columns
    # placed before the excluded flag, where the recipe says a new metric goes
    columns = list(tiers.columns)
    assert columns.index("tpot_p50_s") == columns.index("excluded") - 1
    rows = to_json_dict(ra)["tiers"]
    assert all("tpot_p50_s" in r for r in rows)
    for r in rows:
        expected = r["tpot_p50_ms"] / 1000 if r["tpot_p50_ms"] is not None else None
        assert r["tpot_p50_s"] == pytest.approx(expected) if expected is not None \
            else r["tpot_p50_s"] is None


def test_a_declared_tier_metric_carries_its_provenance_mark(with_new_metric) -> None:  # type: ignore[no-untyped-def]
    synthetic = with_new_metric.first.synthetic
    # the same inputs as tpot_p50_ms, so the same cells are synthetic: llama.cpp at C=8 is,
    # C=1 is not (test_provenance pins those for tpot_p50_ms)
    assert "tiers.llamacpp.c8.tpot_p50_s" in synthetic
    assert "tiers.llamacpp.c1.tpot_p50_s" not in synthetic
    marked = {n.rsplit(".", 1)[0] for n in synthetic.names
              if n.startswith("tiers.") and n.endswith(".tpot_p50_s")}
    assert marked == {n.rsplit(".", 1)[0] for n in synthetic.names
                      if n.startswith("tiers.") and n.endswith(".tpot_p50_ms")}


def test_a_declared_tier_metric_shows_on_the_page_and_in_check(with_new_metric) -> None:  # type: ignore[no-untyped-def]
    analysis = with_new_metric.first
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    data = next(s for s in build_sections(analysis, ui, {}, {}) if s.id == "data")
    table = next(b for b in data.blocks if isinstance(b, Table) and b.variant == "wide")
    headings = [c.label.en for c in table.columns]
    # the metric's column is the last (engine and tier first), under the heading it borrowed
    at = len(tier_metrics.on_page()) + 1
    assert len(headings) == at + 1 and headings[at] == "TPOT p50"
    assert headings.count("TPOT p50") == 2
    tiers = analysis.tiers
    for row, (_, r) in zip(table.rows, tiers.iterrows(), strict=True):
        cell = row.cells[at]
        shown = f"{r['tpot_p50_s']:.4f}"
        assert cell.text.en.startswith(shown) or pd.isna(r["tpot_p50_s"])
        name = f"tiers.{r['engine']}.c{r['concurrency']:g}.tpot_p50_s"
        assert ("synthetic" in cell.cls) == (name in analysis.synthetic), name
    assert any("synthetic" in row.cells[at].cls for row in table.rows)
    assert "TPOT s" in tiers_text(analysis)


def test_the_recipes_name_the_files_they_touch() -> None:
    text = DOC.read_text(encoding="utf-8")
    for heading in ("## Add a reader", "## Add a figure", "## Add a tier metric",
                    "## Add a table"):
        assert heading in text
    for path in re.findall(r"`((?:reportgen|templates|tests)/[\w/.]+\.(?:py|toml|md))`", text):
        assert (ROOT / path).exists(), f"CONTRIBUTING.md names {path}, which does not exist"


def test_a_metric_exported_under_another_name_or_as_a_count(
        monkeypatch: pytest.MonkeyPatch) -> None:
    declared = tuple(dataclasses.replace(m, export="output_tokens_per_s", count=True)
                     if m.column == "output_tok_s" else m for m in tier_metrics.TIER_METRICS)
    monkeypatch.setattr(tier_metrics, "TIER_METRICS", declared)
    analysis = make_analysis()
    [row, *_] = to_json_dict(analysis)["tiers"]
    assert "output_tok_s" not in row
    expected = analysis.tiers["output_tok_s"].iloc[0]
    assert row["output_tokens_per_s"] == (int(expected) if float(expected).is_integer()
                                          else expected)
    # the analysis keeps its own column name (page, values, provenance read that)
    assert "output_tok_s" in analysis.tiers.columns

