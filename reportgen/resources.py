"""Where packaged files live: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


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
