"""Small factories for the typed records the stages hand each other, so tests build the real
classes (a misspelt field is a TypeError here, not a silently missing value downstream)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.errors import Finding
from reportgen.load.bench_json import empty_requests
from reportgen.load.discover import EngineFiles
from reportgen.load.fingerprint import Fingerprint
from reportgen.load.gaps import Gaps
from reportgen.load.llama_log import LlamaFacts, LlamaLog
from reportgen.load.manifest import Manifest
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.round import resolve_kv_bytes
from reportgen.load.vllm_log import VllmLog


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
    return LoadedRound(manifest=manifest, summary=summary, requests=requests, itls=Gaps(),
                       engines=all_engines, findings=list(findings or []), **extra)


# ------------------------------------------------------- whole rounds of every shape (issue 19)

def result_json(tok_s: float, *, concurrency: int | None = None, rate: float | None = None,
                n: int = 64, in_tokens: int = 512, out_tokens: int = 128,
                latency_keys: bool = True, model: str = "org/Some-8B", ttft_ms: float = 50.0,
                itl_ms: float = 10.0) -> dict[str, Any]:
    """A `vllm bench serve --save-result` record with hand-checkable numbers: ``tok_s``
    output tokens per second; TTFT 50 ms, ITL 10 ms, E2EL = TTFT + 127 × ITL (1,320 ms) by
    default. Without ``latency_keys`` only throughput is stated (a client that saved no
    latencies)."""
    duration = n * out_tokens / tok_s
    record: dict[str, Any] = {
        "date": "20261201-101500", "backend": "vllm", "model_id": model, "num_prompts": n,
        "request_rate": "inf" if rate is None else rate, "max_concurrency": concurrency,
        "duration": duration, "completed": n, "failed": 0,
        "total_input_tokens": in_tokens * n, "total_output_tokens": out_tokens * n,
        "request_throughput": n / duration, "output_throughput": tok_s,
        "total_token_throughput": (in_tokens + out_tokens) * n / duration,
    }
    if latency_keys:
        for name, ms in (("ttft", ttft_ms), ("tpot", itl_ms), ("itl", itl_ms),
                         ("e2el", ttft_ms + (out_tokens - 1) * itl_ms)):
            record |= {f"mean_{name}_ms": ms, f"median_{name}_ms": ms,
                       f"std_{name}_ms": 1.0, f"p99_{name}_ms": 2 * ms}
    return record


def _write(path: Path, record: dict[str, Any]) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))


# configuration → its throughput curve: tok/s = top × x / (x + knee)
_CURVES = {"alpha": (2000.0, 4.0), "beta": (1500.0, 1.2), "gamma": (1900.0, 2.0),
           "delta": (1200.0, 0.5), "eps": (900.0, 8.0), "zeta": (2500.0, 16.0)}


def _n(config: str) -> int:
    """Requests per run, different per configuration (identical runs are one run copied)."""
    return 60 + 4 * list(_CURVES).index(config)


def _tok_s(config: str, x: float) -> float:
    top, knee = _CURVES[config]
    return top if x == float("inf") else round(top * x / (x + knee), 1)


def write_round(out: Path, shape: str) -> Path:
    """A round folder of one shape, no round.toml (the auto layout), in `vllm bench serve`
    result JSON: ``rate`` (two configurations swept over request rate 1 … 16 and inf),
    ``single_rate`` (six configurations at one rate), ``mixed`` (concurrency sweeps and a
    rate sweep of the same servers), ``bare`` (throughput only: no latencies, logs,
    bandwidth or per-request arrays)."""
    if shape == "rate":
        for cfg in ("alpha", "beta"):
            for r in (1, 2, 4, 8, 16, float("inf")):
                tag = "inf" if r == float("inf") else str(r)
                _write(out / cfg / f"result-rate{tag}.json",
                       result_json(_tok_s(cfg, r), rate=None if tag == "inf" else r,
                                   n=_n(cfg)))
    elif shape == "single_rate":
        for cfg in _CURVES:
            i = list(_CURVES).index(cfg)   # each its own latencies: a ranking to read
            _write(out / cfg / "result-rate4.json", result_json(
                _tok_s(cfg, 4), rate=4, n=_n(cfg), ttft_ms=80.0 - 5 * i, itl_ms=10.0 + i))
    elif shape == "mixed":
        for cfg in ("alpha", "beta"):
            for c in (1, 4, 16):
                _write(out / cfg / f"result-c{c}.json", result_json(_tok_s(cfg, c),
                                                                    concurrency=c, n=_n(cfg)))
            for r in (2, 8):
                _write(out / cfg / f"result-rate{r}.json", result_json(_tok_s(cfg, r), rate=r,
                                                                         n=_n(cfg)))
    elif shape == "bare":
        for cfg in ("alpha", "beta"):
            for c in (1, 4, 16):
                _write(out / cfg / f"result-c{c}.json",
                       result_json(_tok_s(cfg, c), concurrency=c, latency_keys=False,
                                   model="nobody/unknown-model", n=_n(cfg)))
    else:
        raise ValueError(shape)
    return out


ROUND_SHAPES = ("rate", "single_rate", "mixed", "bare")
