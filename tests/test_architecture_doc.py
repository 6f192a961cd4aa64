"""docs/ARCHITECTURE.md describes the code as it is: its module tables list every module of
reportgen/ (``__init__.py`` aside), and every module they list exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
# the first cell of a table row naming a module: | `reportgen/x/y.py` | …
ROW = re.compile(r"^\| `(reportgen/[\w/]+\.py)` \|", re.MULTILINE)


def listed() -> set[str]:
    return set(ROW.findall(DOC.read_text(encoding="utf-8")))


def modules() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "reportgen").rglob("*.py")
            if p.name != "__init__.py"}


def test_every_module_is_in_the_architecture_tables() -> None:
    missing = sorted(modules() - listed())
    assert not missing, f"docs/ARCHITECTURE.md lists no row for {missing}"


def test_every_listed_module_exists() -> None:
    stale = sorted(listed() - modules())
    assert not stale, f"docs/ARCHITECTURE.md lists modules that do not exist: {stale}"


def test_the_row_pattern_reads_the_tables() -> None:
    # the tables hold well over half the modules; a reformatted table must not make the
    # tests above pass vacuously
    assert len(listed()) > 60
    assert "reportgen/page/builder.py" in listed()
