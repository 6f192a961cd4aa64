"""Flatten analysis frames into the dotted `values` dict (names documented in ARCHITECTURE.md).

Values are plain Python scalars: float (NaN when missing), int, bool, str, or a ``Bi`` for
bilingual text (the tables JSON writes it as {zh, en}). Per-tier keys use `c<C>` (e.g.
`tiers.llamacpp.c32.output_tok_s`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from reportgen.schema import tier_key
from reportgen.text.bilingual import Bi

__all__ = ["Value", "flatten_rows", "numeric_columns", "scalar", "tier_key"]

# One named figure (narrative placeholders, headline cards, the tables' ``values``): a number
# (NaN when missing), a count, a flag, a text (None when unknown) or a bilingual text.
Value = float | int | str | bool | Bi | None


def scalar(value: object) -> Value:
    """numpy / pandas scalars → Python; missing → NaN (None stays None for text); anything
    else as its text."""
    if type(value) is float or type(value) is str:  # most values: what the chain returns
        return value
    if value is None or isinstance(value, Bi):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, str):
        return value
    if pd.isna(value):  # type: ignore[call-overload]   # NaT, pd.NA: any missing scalar
        return float("nan")
    return str(value)


def flatten_rows(frame: pd.DataFrame, prefix: str, group: str | None, columns: Iterable[str],
                 per_tier: bool = True) -> dict[str, Value]:
    """`prefix[.<group value>][.c<C>].<column>` for every row and column. Columns are read
    whole (``tolist`` gives Python scalars, as a row of mixed dtypes does), not row by row:
    a round of many configurations has tens of thousands of these."""
    out: dict[str, Value] = {}
    columns = [c for c in columns if c in frame.columns]
    groups = frame[group].tolist() if group is not None else None
    tiers = frame["concurrency"].tolist() if per_tier else None
    values = [frame[c].tolist() for c in columns]
    for i in range(len(frame)):
        parts = [prefix]
        if groups is not None:
            parts.append(str(groups[i]))
        if tiers is not None:
            parts.append(tier_key(tiers[i]))
        base = ".".join(parts)
        for column, vals in zip(columns, values, strict=True):
            out[f"{base}.{column}"] = scalar(vals[i])
    return out


def numeric_columns(frame: pd.DataFrame, skip: Iterable[str] = ()) -> list[str]:
    skip = set(skip)
    return [c for c in frame.columns if c not in skip
            and (pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]))]
