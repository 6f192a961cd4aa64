"""docs/CONTRIBUTING.md names real files: every path it names in backquotes (`reportgen/…`,
`tests/…`, `templates/…`, `tools/…`, `docs/…`) exists, placeholders (`<client>`) aside, and
it has a recipe for each extension point."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "CONTRIBUTING.md"
PATH = re.compile(r"`((?:reportgen|tests|templates|tools|docs)/[\w./-]*\w)`")


def named_paths(text: str) -> list[str]:
    return sorted({p for p in PATH.findall(text) if "<" not in p})


def test_every_path_it_names_exists() -> None:
    paths = named_paths(DOC.read_text(encoding="utf-8"))
    assert len(paths) > 15   # the pattern reads the page
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/CONTRIBUTING.md names paths that do not exist: {missing}"


def test_a_recipe_per_extension_point() -> None:
    heads = re.findall(r"^## Add an? (.+)$", DOC.read_text(encoding="utf-8"), re.M)
    assert heads == ["reader", "figure", "tier metric", "table", "command"]


def test_the_path_check_can_fail() -> None:
    text = "see `reportgen/nowhere.py`, `tests/test_formats_<client>.py` and `docs/CLIENTS.md`"
    assert named_paths(text) == ["docs/CLIENTS.md", "reportgen/nowhere.py"]
    assert not (ROOT / "reportgen/nowhere.py").exists()
