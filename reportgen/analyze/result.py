"""The analysis result: plain frames, a flat dict of named figures, and the constants used."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from reportgen.analyze.provenance import Synthetic
from reportgen.manifest import Text


@dataclass(frozen=True)
class Constant:
    """One input constant the analysis used, with where it came from (shown in the report)."""

    name: str
    value: Any
    unit: str
    provenance: Text


@dataclass
class Analysis:
    """Everything the report shows, computed from the raw files (see docs/ARCHITECTURE.md)."""

    round: dict[str, Any]
    engines: pd.DataFrame
    tiers: pd.DataFrame
    crossovers: pd.DataFrame
    graph_reuse: pd.DataFrame
    memory: pd.DataFrame
    prefill: pd.DataFrame
    checks: pd.DataFrame
    # Flat, stable dotted names -> scalar (float, int, str, bool or None); narrative placeholders
    # and headline cards resolve against this dict.
    values: dict[str, Any] = field(default_factory=dict)
    constants: list[Constant] = field(default_factory=list)
    # the value names computed from inputs round.toml declares synthetic (marked † on the page)
    synthetic: Synthetic = field(default_factory=Synthetic)
