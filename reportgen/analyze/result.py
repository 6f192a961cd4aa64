"""The analysis result: plain frames, a flat dict of named figures, and the constants used."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

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
    # tok/s per user vs tok/s per GPU per tier, with the Pareto frontier (analyze/pareto.py);
    # the page draws it for rounds of many configurations
    pareto: pd.DataFrame = field(default_factory=pd.DataFrame)
    # the configuration every other one is compared with (crossovers); "" with fewer than two
    reference: str = ""
