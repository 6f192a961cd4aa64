"""``fingerprint.txt``: the verbatim ``nvidia-smi`` table taken during the run, plus free-form
``key: value`` lines the harness adds (engine version, command line, …).

Only the first GPU row of the table fills the scalar fields (``gpu_count`` says how many
there were); ``N/A`` becomes None. Every value carries its ``file:line`` in ``provenance``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.errors import InputError
from reportgen.files.safe_read import read_input

HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>\S+)\s+Driver Version:\s*(?P<driver>\S+)"
    r"(?:\s+CUDA Version:\s*(?P<cuda>\S+))?"
)
# "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |"
GPU_ROW = re.compile(
    r"^\|\s*(?P<index>\d+)\s+(?P<name>.+?)\s+(?:On|Off|N/A)\s*\|\s*[0-9A-Fa-f]+:[0-9A-Fa-f:.]+"
)
# "| 30%   73C    P2             350W /  450W |   19089MiB /  24564MiB |    100%      Default |"
STATS_ROW = re.compile(
    r"^\|\s*(?P<fan>N/A|\d+%)\s+(?P<temp>N/A|\d+C)\s+(?P<perf>P\d+|N/A)\s+"
    r"(?P<power>N/A|[\d.]+W)\s*/\s*(?P<cap>N/A|[\d.]+W)\s*\|\s*"
    r"(?P<used>N/A|\d+MiB)\s*/\s*(?P<total>N/A|\d+MiB)\s*\|\s*(?P<util>N/A|\d+%)"
)
# The key is words separated by spaces and the value is taken whole (stripped in Python):
# no two quantifiers compete for the same spaces, so a 60 KB line of blanks stays linear.
KEY_VALUE = re.compile(r"^\s*([A-Za-z_][\w.\-/()]*(?:[ ]+[\w.\-/()]+)*)[ \t]*[:=]\s+(.*)$"
                       )

KIND = "fingerprint"  # its size cap in reportgen.files.safe_read.CAPS
NOT_NUMBER = re.compile(r"[^\d.]")  # the unit of `73C`, `350W`, `19089MiB`


@dataclass
class Fingerprint:
    path: str
    driver_version: str | None = None
    cuda_version: str | None = None
    gpu_name: str | None = None
    memory_used_mib: float | None = None
    memory_total_mib: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    power_cap_w: float | None = None
    utilization_gpu_pct: float | None = None
    gpu_count: int = 0
    values: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)


def _num(token: str) -> float | None:
    """``73C`` / ``350W`` / ``19089MiB`` / ``100%`` → number; ``N/A`` → None."""
    if token == "N/A":
        return None
    return float(NOT_NUMBER.sub("", token))


def parse_fingerprint(path: Path, *, name: str | None = None) -> Fingerprint:
    """Read ``fingerprint.txt``. ``name`` is how the file is shown in errors and provenance."""
    shown = str(path) if name is None else name
    text = read_input(path, shown, KIND).decode("utf-8", errors="replace")

    fp = Fingerprint(path=shown)
    prov = fp.provenance
    expect_stats = False
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{shown}:{number}"
        stripped = line.strip()
        if not stripped:
            continue
        m = HEADER.search(line)
        if m:
            if fp.driver_version is None:
                fp.driver_version = m.group("driver")
                prov["driver_version"] = where
                cuda = m.group("cuda")
                fp.cuda_version = None if cuda in (None, "N/A") else cuda
                if fp.cuda_version:
                    prov["cuda_version"] = where
            continue
        if stripped[0] in "|+":  # inside the table: GPU rows, rules, process list
            m = GPU_ROW.match(stripped)
            if m:
                fp.gpu_count += 1
                expect_stats = fp.gpu_count == 1
                if expect_stats:
                    fp.gpu_name = m.group("name")
                    prov["gpu_name"] = where
                continue
            m = STATS_ROW.match(stripped)
            if m and expect_stats:
                expect_stats = False
                for attr, group in (("temperature_c", "temp"), ("power_w", "power"),
                                    ("power_cap_w", "cap"), ("memory_used_mib", "used"),
                                    ("memory_total_mib", "total"),
                                    ("utilization_gpu_pct", "util")):
                    value = _num(m.group(group))
                    setattr(fp, attr, value)
                    if value is not None:
                        prov[attr] = where
            continue
        m = KEY_VALUE.match(line)
        if m:
            key = m.group(1).strip()
            fp.values[key] = m.group(2).rstrip()  # a repeated key: the later line wins
            prov[f"values.{key}"] = where
    if fp.driver_version is None and fp.gpu_count == 0 and not fp.values:
        found = "the file is empty" if not text.strip() else "found neither"
        raise InputError(
            shown, f"expected verbatim nvidia-smi output and/or 'key: value' lines; {found}",
        )
    return fp
