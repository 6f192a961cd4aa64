"""Built-in GPU table: peak memory bandwidth (GB/s, 1e9 B/s) and memory size (GiB).

Used only when round.toml leaves the value out; the report names this table as the source.
Figures are the vendors' published specifications.
"""

from __future__ import annotations

import re

# name pattern (matched case-insensitively against the manifest / nvidia-smi name) -> (GB/s, GiB)
GPUS: tuple[tuple[str, float, float], ...] = (
    (r"rtx\s*5090", 1792.0, 32.0),
    (r"rtx\s*4090", 1008.0, 24.0),
    (r"rtx\s*4080", 716.8, 16.0),
    (r"rtx\s*3090", 936.2, 24.0),
    (r"l40s", 864.0, 48.0),
    (r"\bl4\b", 300.0, 24.0),
    (r"\ba10\b", 600.0, 24.0),
    (r"a100.*80", 2039.0, 80.0),
    (r"a100", 1555.0, 40.0),
    (r"h100.*(pcie)", 2039.0, 80.0),
    (r"h100", 3350.0, 80.0),
    (r"h200", 4800.0, 141.0),
    (r"b200", 8000.0, 180.0),
)


def lookup_gpu(name: str) -> tuple[float, float] | None:
    """Return (bandwidth_gb_s, memory_gib) for a known GPU name, else None."""
    for pattern, bandwidth, memory in GPUS:
        if re.search(pattern, name, re.IGNORECASE):
            return bandwidth, memory
    return None
