"""What describes a round beside its tables — title, hardware, workload, each configuration's
version and settings — as frozen records (``Analysis.round``). Every text that differs by
language is a ``Bi``; ``tables.py`` writes them as the tables JSON's ``round`` object, in
field order (so the order of the fields here is the order of the keys there)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from reportgen.text.bilingual import Bi


@dataclass(frozen=True)
class EngineFacts:
    """One configuration's version, build, dtype/quant, slots … (None when unknown), with
    ``sources``: fact → where it was read (a log or fingerprint line)."""

    id: str
    label: Bi | None = None
    kind: str | None = None
    version: str | None = None
    dtype: str | None = None
    bytes_per_param: int | None = None
    build: str | None = None
    commit: str | None = None
    quant: str | None = None
    model_file: str | None = None
    model: str | None = None
    tensor_parallel: int | None = None
    slots: int | None = None
    context: int | None = None
    prompt_cache: str | None = None      # "on", "off", or None when nothing says
    driver: str | None = None
    cuda: str | None = None
    gpu_name: str | None = None
    # how much the server logged (llama-server -lv): "the log gave no reason at level N"
    log_verbosity: int | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    client: str | None = None            # the client id that measured it (reportgen/clients)
    # what its decode step is (analyze/tiers.decode_step): "itl" (the pooled ITL p50) or
    # "tpot" (the per-request TPOT p50: its ITL counts gaps inside a chunk, or is under 1 ms)
    step_basis: str | None = None


@dataclass(frozen=True)
class WorkloadInfo:
    """One workload of the round (one ``Analysis`` each): its lengths or dataset."""

    id: str
    label: Bi
    dataset: str | None
    input_tokens: float
    output_tokens: float
    from_settings: bool


@dataclass(frozen=True)
class Related:
    """A link round.toml names to another report of the round ("" when it has no link)."""

    title: Bi
    href: str = ""


@dataclass(frozen=True)
class RoundInfo:
    """The round's facts for the set-up card, the headline and the tables JSON."""

    title: Bi | None = None
    subtitle: Bi | None = None
    series: Bi | None = None
    date: str = ""
    default_language: str = "zh"
    gpu: str = ""
    gpu_count: int = 1
    memory_gib: float = math.nan
    bandwidth_gb_s: float = math.nan
    bandwidth_source: Bi | None = None
    input_tokens: float = math.nan
    output_tokens: float = math.nan
    kv_tokens_per_slot: float = math.nan
    model: str = ""
    # one client name, or the names joined with · when configurations differ
    client: str | None = None
    client_names: Mapping[str, str] = field(default_factory=dict)   # configuration → name
    # metrics the clients define differently: not comparable across configurations
    clients_differ: tuple[str, ...] = ()
    concurrency: tuple[float, ...] = ()
    requests_total: int | None = None
    # the common count when every configuration ran the same number, else None
    requests_per_engine: int | None = None
    completed_total: int | None = None
    failed_total: int | None = None
    driver: str | None = None
    cuda: str | None = None
    engines: tuple[EngineFacts, ...] = ()
    primary_pair: tuple[str, str] | None = None
    axis: str = "concurrency"            # "concurrency" | "request_rate"
    # configuration → the tiers round.toml excludes from the conclusions
    excluded: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    exclude_reason: Bi | None = None
    default_language_given: bool = False
    related: tuple[Related, ...] = ()
    workload: WorkloadInfo | None = None   # None: a round analysed without its workloads

    def engine(self, engine: str) -> EngineFacts | None:
        """A configuration's facts, or None when the round has none for it."""
        return next((e for e in self.engines if e.id == engine), None)
