"""The page is pinned by gold files (tools/update_gold.py): for each case, the page model as
JSON and the sha256 of the complete report bytes must be what tests/gold/ holds. A refactor
of the page stage changes neither; an intended change reruns `python tools/update_gold.py`
and commits the reviewed diff of tests/gold/."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools import update_gold

DIFF_LINES = 60


def first_diff_lines(gold: str, current: str, name: str) -> str:
    diff = difflib.unified_diff(gold.splitlines(), current.splitlines(), f"{name} (gold)",
                                f"{name} (current)", lineterm="", n=4)
    return "\n".join(line for _, line in zip(range(DIFF_LINES), diff, strict=False))


@pytest.mark.parametrize("case", list(update_gold.CASES))
def test_page_matches_gold(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    gold_file = update_gold.page_file(case)
    gold = gold_file.read_text(encoding="utf-8")
    page, sha = update_gold.outputs(case, tmp_path)
    if page != gold:
        pytest.fail(f"the page model of {case!r} differs from {gold_file.name} (rerun "
                    f"`python tools/update_gold.py` only for an intended change):\n"
                    + first_diff_lines(gold, page, gold_file.name), pytrace=False)
    assert sha == update_gold.read_shas()[case], (
        f"{case!r}: same page model, but the report bytes differ from the gold sha256 "
        "(render, template, figures or data block changed)")


def test_every_case_has_gold() -> None:
    assert sorted(update_gold.read_shas()) == sorted(update_gold.CASES)
    assert all(update_gold.page_file(c).is_file() for c in update_gold.CASES)
