"""Built-in GPU table: peak memory bandwidth (GB/s, 1e9 B/s) and memory size.

Used only when round.toml leaves the value out; the report names this table as the source.
Figures are the vendors' published specifications; each row says where its figure comes from.

Memory is the marketed capacity: "80GB" HBM parts are entered as 80.0 and GDDR cards as their
marketed size (24 GB on an RTX 4090 is 24 GiB). The field keeps its historical name
``memory_gib``; every row's ``source`` says what the vendor prints.

How names are matched
---------------------
The name (a round.toml ``gpu`` value, an nvidia-smi ``name``, or a short name such as
``a100 80gb``, ``h200``, ``tpu v6e``, ``v6e-4``) is lower-cased, ``-`` and ``_`` become spaces
and runs of spaces collapse to one. The rows of ``GPUS`` (the ``[[gpu]]`` tables of
``reportgen/data/gpus.toml``, in file order) are then tried top to bottom and the first
pattern that matches (``re.search``) decides. Order is therefore part of the data:

* exclusions come first: a row whose bandwidth is ``None`` (left out in the TOML) recognises
  a part whose figures could not be verified (or a name that does not say which variant it
  is) and answers ``None`` rather than letting a broader pattern below hand out a sibling's
  figures;
* specific rows come before general ones: Max-Q before Workstation, NVL and PCIe before the
  plain H100 (SXM), A100 80GB PCIe before A100 80GB before plain A100 (40GB);
* ``\\b`` keeps GH200 away from H200 and GB200 away from B200.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from reportgen.files.resources import data_tables


@dataclass(frozen=True)
class GpuSpec:
    """One GPU's published peak memory bandwidth and memory size."""

    name: str  # canonical, e.g. "H100 SXM"
    bandwidth_gb_s: float  # peak DRAM/HBM bandwidth, 1e9 bytes per second
    memory_gib: float  # marketed capacity (GB for HBM parts); the source says which
    source: str  # vendor datasheet / page the figures come from


# (pattern, canonical name, GB/s or None, memory or None, source). A row with None figures
# is a deliberate "unknown": the lookup answers None and the source says why.
GpuRow = tuple[str, str, float | None, float | None, str]

if TYPE_CHECKING:
    GPUS: tuple[GpuRow, ...]  # the rows of data/gpus.toml in order, read on first use


@cache
def _rows() -> tuple[GpuRow, ...]:
    # Read on first lookup, not at import: most commands never need the table.
    doc = data_tables("gpus.toml", {"gpu": frozenset(
        {"pattern", "name", "bandwidth_gb_s", "memory_gib", "source"})})
    return tuple((row["pattern"], row["name"], _float(row.get("bandwidth_gb_s")),
                  _float(row.get("memory_gib")), row["source"]) for row in doc["gpu"])


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], GpuRow], ...]:
    return tuple((re.compile(row[0]), row) for row in _rows())


def __getattr__(name: str) -> tuple[GpuRow, ...]:
    # ``GPUS`` stays importable as a constant without parsing the TOML at import time.
    if name == "GPUS":
        return _rows()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _normalise(name: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", name.lower()).split())


def lookup_gpu_spec(name: str) -> GpuSpec | None:
    """Return the table's GpuSpec for a GPU name, or None when it is unknown or unverified."""
    text = _normalise(name)
    if not text:
        return None
    for pattern, (_, canonical, bandwidth, memory, source) in _compiled():
        if pattern.search(text):
            if bandwidth is None or memory is None:
                return None
            return GpuSpec(canonical, bandwidth, memory, source)
    return None


def names_gpu(name: str) -> bool:
    """Whether ``name`` names a GPU of the table (verified or not)."""
    text = _normalise(name)
    return bool(text) and any(pattern.search(text) for pattern, _ in _compiled())


def lookup_gpu(name: str) -> tuple[float, float] | None:
    """Return (bandwidth_gb_s, memory_gib) for a known GPU name, else None."""
    spec = lookup_gpu_spec(name)
    return (spec.bandwidth_gb_s, spec.memory_gib) if spec is not None else None
