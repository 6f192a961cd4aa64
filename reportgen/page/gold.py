"""The page model as canonical JSON: the gold file that pins what the page says.

A refactor of the page stage must leave it unchanged (tests/test_page_gold.py);
``python tools/update_gold.py`` rewrites the gold files after an intended change (see
docs/ARCHITECTURE.md, "Gold files").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from collections.abc import Mapping, Set

import numpy as np
import pandas as pd


def _plain(value: object) -> object:
    """``value`` as JSON-able plain data: dataclasses by field (with their class name under
    ``_``), DataFrames as columns + rows, non-finite floats spelled out (JSON has no NaN)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {"_": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = _plain(getattr(value, f.name))
        return out
    if isinstance(value, pd.DataFrame):
        return {"columns": [str(c) for c in value.columns],
                "rows": [[_plain(v) for v in row] for row in value.itertuples(index=False)]}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Set):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, bool | int | str) or value is None:
        return value if not isinstance(value, str) else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dt.date | dt.datetime | pd.Timestamp):
        return value.isoformat()
    if value is pd.NA or value is pd.NaT:
        return repr(value)
    return f"<{type(value).__name__}> {value!r}"


def page_json(page: object) -> str:
    """Deterministic JSON of a ``Page`` (sorted keys, one value a line, NaN as "nan")."""
    return json.dumps(_plain(page), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
