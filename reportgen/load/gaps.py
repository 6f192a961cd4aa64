"""Inter-token gaps (ITL) in columns: per record of a result file, one float64 array of every
request's gaps in request order and each request's count (issue 35).

A round of 64 configurations × 12 tiers holds ~39 M gaps. A long frame with a key per gap
(source, record, request: 8 bytes more per gap, and copies of it while frames are joined) cost
~69 bytes a gap and 2.76 GB at the peak; here a gap costs its 8 bytes and a request 8 more
(its count), and the records are never concatenated: every use works per record.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

Key = tuple[Hashable, ...]  # (source, record)


@dataclass(frozen=True)
class RecordGaps:
    """One record's gaps (s): request ``i``'s are the ``lengths[i]`` values after the first
    ``lengths[:i].sum()`` of ``values``."""

    source: str
    record: int
    lengths: np.ndarray   # int64, one count a request
    values: np.ndarray    # float64 seconds, every request's gaps one after another

    def mask(self, requests: np.ndarray) -> np.ndarray:
        """The values of the given request indexes (those the record has), as a bool mask."""
        keep = np.zeros(self.lengths.size, dtype=bool)
        inside = requests[(requests >= 0) & (requests < keep.size)]
        keep[inside] = True
        return np.repeat(keep, self.lengths)


class Gaps:
    """Every record's gaps, by (source, record); ``len`` is the number of gaps in all."""

    def __init__(self, parts: Iterable[RecordGaps] = ()) -> None:
        self.parts: dict[Key, RecordGaps] = {}
        for p in parts:
            if p.values.size:
                self.parts[(p.source, p.record)] = p

    def __len__(self) -> int:
        return sum(p.values.size for p in self.parts.values())

    def __iter__(self) -> Iterator[RecordGaps]:
        return iter(self.parts.values())

    @property
    def empty(self) -> bool:
        return not self.parts

    def get(self, key: Key) -> RecordGaps | None:
        return self.parts.get(key)

    def pooled(self, ok: pd.DataFrame) -> dict[Key, np.ndarray]:
        """The gaps of the requests ``ok`` (rows with ``source``, ``record``, ``request``),
        pooled per (source, record) in request order: vLLM pools every successful request's
        gaps of a run."""
        out: dict[Key, np.ndarray] = {}
        if not self.parts or ok.empty:
            return out
        every_request = ok["request"].to_numpy(np.int64)
        groups = cast("dict[Key, np.ndarray]",   # positions, no frame a record
                      ok.groupby(["source", "record"], sort=False).indices)

        for key, at in groups.items():
            part = self.parts.get(key)
            if part is not None:
                requests = every_request[at]
                # every request of the record (the usual case): its array as it is, no copy
                every = requests.size == part.lengths.size and bool(
                    (np.sort(requests) == np.arange(requests.size)).all())
                out[key] = part.values if every else part.values[part.mask(requests)]
        return out

    def frame(self) -> pd.DataFrame:
        """The long form, one row a gap (source, record, request, itl_s): for small rounds
        and tests only (it is what this class exists not to hold)."""
        parts = list(self.parts.values())
        return pd.DataFrame({
            "source": [p.source for p in parts for _ in range(p.values.size)],
            "record": np.concatenate([np.full(p.values.size, p.record, dtype=np.int64)
                                      for p in parts]) if parts else np.empty(0, np.int64),
            "request": np.concatenate([np.repeat(np.arange(p.lengths.size), p.lengths)
                                       for p in parts]) if parts else np.empty(0, np.int64),
            "itl_s": np.concatenate([p.values for p in parts]) if parts else np.empty(0),
        })


@dataclass(frozen=True)
class Ragged:
    """A reader's per-request lists of numbers (``itls``) as columns: each request's count and
    every value one after another, so a million requests' gaps never become Python lists."""

    lengths: np.ndarray   # int64, one count a request
    values: np.ndarray    # float64

    def __len__(self) -> int:
        return int(self.lengths.size)
