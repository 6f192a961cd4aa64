"""Where the tests' real inputs are.

`tests/data/` holds verbatim copies of the small shared inputs whose licences allow it (each
folder names its source and licence in SOURCE.md), so a clone alone runs those tests. The rest
stays in the project's shared folder beside the repository, `../shared`: only tests marked
`shared` read it (tests/conftest.py skips them without it, and fails them when `CI` is set).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
REFERENCE = DATA / "round2-reference"              # the published Round 2 figures
SEED = DATA / "seed" / "000_e020b4688c98be5e.txt"  # the published Round 2 report (text)
REAL_ROUNDS = DATA / "real_rounds"
REAL_SAMPLES = DATA / "real_samples"

# REPORTGEN_SHARED points elsewhere (tests/test_shared_marker.py uses it to take it away)
SHARED = Path(os.environ.get("REPORTGEN_SHARED") or REPO.parent / "shared")
SHARED_ROUNDS = SHARED / "real_rounds"
SHARED_SAMPLES = SHARED / "real_samples"


def real_round_params() -> list[object]:
    """Every real round folder as a pytest parameter (id: the folder name): the vendored ones,
    then those only ``../shared`` has, marked ``shared`` (skipped in a clone alone)."""
    import pytest

    vendored = sorted(p for p in REAL_ROUNDS.iterdir() if p.is_dir())
    names = {p.name for p in vendored}
    out: list[object] = [pytest.param(p, id=p.name) for p in vendored]
    if SHARED_ROUNDS.is_dir():
        out += [pytest.param(p, id=p.name, marks=pytest.mark.shared)
                for p in sorted(SHARED_ROUNDS.iterdir()) if p.is_dir() and p.name not in names]
    return out
