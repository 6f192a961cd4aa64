"""``ScannedFile``: one file of a round folder and what the scan took it for (its own module,
so the scan and the helpers it calls, such as ``load/copies.py``, share it without a cycle)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ScannedFile:
    """One file of the round and what it was taken for."""

    path: Path
    shown: str        # path relative to the round folder's parent (how messages name it)
    rel: str          # path relative to the round folder (POSIX), the `source` in tables
    kind: str         # json | client | console | vllm_log | llama_log | fingerprint | gpu_csv |
    #                   metrics | script | failure | skipped | unreadable (a folder)
    reason: str = ""  # why a file was skipped (or what a failure file says, what a client
    #                   file is)
    client: str = ""  # kind client: the reader (reportgen.load.formats) that claimed it
