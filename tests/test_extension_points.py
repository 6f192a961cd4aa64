"""The three recipes of docs/CONTRIBUTING.md, checked where they can go wrong silently:

- a reader is one module in reportgen/load/formats/ plus one line in its READERS;
- a figure is one builder in figures.BUILDERS, its strings under [fig.<kind>] in ui.toml, and
  one `b.figure("<kind>")` in a page section;
- a tier metric needs its provenance entry (analyze.provenance.TIER_KEYS), or the † mark of
  synthetic input silently drops off its cells.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from reportgen.analyze.provenance import TIER_KEYS
from reportgen.analyze.run import TIER_COLUMNS
from reportgen.figures import BUILDERS
from reportgen.load import formats

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "CONTRIBUTING.md"
# tiers columns that no result-JSON key feeds, each with why
NOT_FROM_RESULTS = {
    "engine": "the configuration: a row key",
    "concurrency": "the tier: a row key",
    "excluded": "round.toml [analysis] exclude_from_conclusions, a flag",
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
    columns = set(TIER_COLUMNS)
    assert set(TIER_KEYS) <= columns, set(TIER_KEYS) - columns
    assert columns - set(TIER_KEYS) == set(NOT_FROM_RESULTS), (
        "a tiers column with no provenance.TIER_KEYS entry (its † mark would be lost): "
        f"{sorted(columns - set(TIER_KEYS) - set(NOT_FROM_RESULTS))}")


def test_the_recipes_name_the_files_they_touch() -> None:
    text = DOC.read_text(encoding="utf-8")
    for heading in ("## Add a reader", "## Add a figure", "## Add a tier metric"):
        assert heading in text
    for path in re.findall(r"`((?:reportgen|templates|tests)/[\w/.]+\.(?:py|toml|md))`", text):
        assert (ROOT / path).exists(), f"CONTRIBUTING.md names {path}, which does not exist"
