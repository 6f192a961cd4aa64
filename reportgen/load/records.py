"""The load stage's typed result: every input of a round, parsed and tagged by configuration
(``engine`` keeps its historical name: a configuration may be an engine, a GPU, a launch
setting or a quantisation)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from reportgen.errors import Finding, Inferred
from reportgen.load.discover import EngineFiles
from reportgen.load.fingerprint import Fingerprint
from reportgen.load.gaps import Gaps
from reportgen.load.llama_log import LlamaLog
from reportgen.load.manifest import EngineSpec, Manifest
from reportgen.load.placement import Workload
from reportgen.load.telemetry import Telemetry
from reportgen.load.vllm_log import VllmLog


@dataclass
class EngineData:
    spec: EngineSpec
    files: EngineFiles
    llama_log: LlamaLog | None = None
    vllm_log: VllmLog | None = None
    fingerprint: Fingerprint | None = None
    gpu: pd.DataFrame | None = None
    telemetry: Telemetry | None = None  # DCGM samples and engine gauges over time
    metrics: dict[int, tuple[pd.DataFrame, pd.DataFrame]] = field(default_factory=dict)
    kv_bytes_per_token: float = math.nan
    kv_bytes_per_token_source: str = ""

    def model_name(self, round_model: str = "") -> str | None:
        """The model this configuration served: what its server log loaded (a GGUF path names
        the quantisation), else round.toml's / the results' name, else the round's."""
        if self.llama_log is not None and self.llama_log.facts.model_path:
            return self.llama_log.facts.model_path
        if self.vllm_log is not None and self.vllm_log.model:
            return self.vllm_log.model
        return self.spec.model or round_model or None

    def dtypes(self) -> tuple[str | None, str | None]:
        """(weight dtype, KV-cache dtype) the server log states."""
        v = self.vllm_log
        return (v.dtype, v.kv_cache_dtype) if v is not None else (None, None)


@dataclass
class LoadedRound:
    manifest: Manifest
    summary: pd.DataFrame  # bench summary rows of every engine, ``engine`` first
    requests: pd.DataFrame
    itls: Gaps   # each record's ITL gaps (reportgen.load.gaps)
    engines: dict[str, EngineData]
    findings: list[Finding]
    # the sweep axis ("concurrency" or "request_rate"); the summary's ``concurrency`` column
    # holds each run's point on it (its ``tier``)
    axis: str = "concurrency"
    runs: pd.DataFrame | None = None           # one row per run used (the `runs` table)
    workloads: list[Workload] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why not read)
    inferred: list[Inferred] = field(default_factory=list)


