"""Where packaged files live: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_PKG = Path(__file__).resolve().parents[1]   # the reportgen package (this file is in files/)


def _find(name: str) -> Path:
    # The wheel force-includes templates/ and the sample round inside the package;
    # an editable install or a plain checkout keeps them at the repository root.
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"reportgen resource not found: {name}")


def templates_dir() -> Path:
    return _find("templates")


def sample_round_dir() -> Path:
    return _find("sample_runs/round2-rtx4090")


def data_tables(name: str,
                allowed: Mapping[str, frozenset[str]]) -> dict[str, list[dict[str, Any]]]:
    """The arrays of tables in ``reportgen/data/<name>`` (built-in tables shipped as data).

    ``allowed`` names each array and the keys its rows may have: a misspelt key would
    otherwise read as a left-out field."""
    path = _PKG / "data" / name
    with path.open("rb") as f:
        doc = tomllib.load(f)
    if doc.keys() != allowed.keys():
        raise ValueError(f"{path}: expected arrays {sorted(allowed)}, found {sorted(doc)}")
    for array, rows in doc.items():
        for number, row in enumerate(rows, 1):
            unknown = row.keys() - allowed[array]
            if unknown:
                raise ValueError(f"{path}: [[{array}]] row {number}: unknown key(s) "
                                 f"{', '.join(sorted(unknown))}")
    return doc
