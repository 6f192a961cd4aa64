"""Small factories for the typed records the stages hand each other, so tests build the real
classes (a misspelt field is a TypeError here, not a silently missing value downstream)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.discover import EngineFiles
from reportgen.errors import Finding
from reportgen.load.bench_json import empty_itls, empty_requests
from reportgen.load.fingerprint import Fingerprint
from reportgen.load.llama_log import LlamaFacts, LlamaLog
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.round import resolve_kv_bytes
from reportgen.load.vllm_log import VllmLog
from reportgen.manifest import Manifest


def llama_log(timings: pd.DataFrame | None = None, **facts: Any) -> LlamaLog:
    """A parsed llama-server log: its print_timing frame and start-up facts."""
    return LlamaLog(path="server.log", timings=timings if timings is not None else pd.DataFrame(),
                    facts=LlamaFacts(**facts), rejected=pd.DataFrame(), restarts=[])


def vllm_log(**facts: Any) -> VllmLog:
    return VllmLog(path="server.log", **facts)


def fingerprint(**facts: Any) -> Fingerprint:
    return Fingerprint(path="fingerprint.txt", **facts)


def engine_data(manifest: Manifest, engine: str, **parts: Any) -> EngineData:
    """One configuration's loaded files; KV bytes per token resolved as the loader does."""
    spec = manifest.engine(engine)
    data = EngineData(spec=spec, files=EngineFiles(id=engine, dir=Path(spec.dir), bench=()),
                      **parts)
    resolve_kv_bytes(data, manifest)
    return data


def loaded_round(manifest: Manifest, summary: pd.DataFrame,
                 engines: dict[str, EngineData] | None = None,
                 findings: list[Finding] | None = None, **extra: Any) -> LoadedRound:
    """A LoadedRound with every manifest engine present (bare when not given)."""
    given = engines or {}
    all_engines = {spec.id: given.get(spec.id) or engine_data(manifest, spec.id)
                   for spec in manifest.engines}
    requests = empty_requests().assign(engine=pd.Series(dtype=object))
    return LoadedRound(manifest=manifest, summary=summary, requests=requests, itls=empty_itls(),
                       engines=all_engines, findings=list(findings or []), **extra)
