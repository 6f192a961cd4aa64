"""The sample round's narrative: every prose section exists in both languages, every placeholder
resolves to a computed value, and no number in the prose is typed in by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reportgen.build import narrative_values
from reportgen.narrative import SECTIONS, load_narrative
from reportgen.text.formatting import is_missing

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
NARRATIVE = SAMPLE / "narrative"
# Sections whose content is computed in full; everything else carries prose.
COMPUTED_ONLY = {"constants", "findings"}   # findings: generated when no narrative


@pytest.fixture(scope="module")
def prose() -> dict:
    # the analysis values plus baseline.* / since.* (the sample compares with Round 1)
    return load_narrative(SAMPLE, narrative_values(SAMPLE))


def test_every_prose_section_is_written_in_both_languages(prose: dict) -> None:
    expected = set(SECTIONS) - COMPUTED_ONLY
    assert set(prose) == expected
    for section in expected:
        assert prose[section].source_lang == {"zh": "zh", "en": "en"}, section
        assert prose[section].title.zh and prose[section].title.en, section


def test_placeholders_resolve_to_values(prose: dict) -> None:
    values = narrative_values(SAMPLE)
    names = {m.strip().partition(":")[0].strip()
             for path in NARRATIVE.glob("*.md")
             for m in re.findall(r"\{\{(.*?)\}\}", path.read_text(encoding="utf-8"))}
    assert len(names) > 60
    missing = sorted(n for n in names if is_missing(values[n]))
    assert not missing, f"placeholders with no value in the sample round: {missing}"
    for section, p in prose.items():
        for lang in ("zh", "en"):
            assert "{{" not in p.body.get(lang) + p.title.get(lang), (section, lang)


def test_crossover_prose_carries_the_computed_figure(prose: dict) -> None:
    assert "8.3" in prose["crossover"].title.en
    assert "2.71" in prose["bytes"].title.zh


# Digits allowed outside placeholders: tier names (C=16), env values (=1), ordinals in lists,
# small counts spelled as digits in fixed phrases, and model/quant names.
_ALLOWED = re.compile(
    r"C=\d+(?:\s*(?:,|、|和|and)\s*\d+)*"      # tier names, also "C=16, 32 and 64"
    r"|C=\d+、\d+、\d+"
    r"|E2EL|Figure \d|图 \d|=1\b|\b[1-4]\.\s|Q4_K_M|Q4|BF16|Qwen2\.5-7B|4-bit|C=6|C=12"
    r"|\bp\d\d\b|1 Hz"
)


@pytest.mark.parametrize("path", sorted(NARRATIVE.glob("*.md")), ids=lambda p: p.name)
def test_no_hand_typed_numbers(path: Path) -> None:
    text = re.sub(r"\{\{.*?\}\}", "", path.read_text(encoding="utf-8"))
    text = _ALLOWED.sub("", text)
    stray = re.findall(r"\d[\d.,]*", text)
    assert not stray, f"{path.name}: numbers typed in by hand: {stray}"
