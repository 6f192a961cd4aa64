"""What both round layouts (the fixed `<dir>/bench` one in load/round.py and any other in
load/auto.py) do the same way for one engine: read its server log (after telling vLLM from
llama-server), work out its KV bytes per token, and join many ITL frames into one."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

from reportgen.errors import Finding, InputError
from reportgen.files.safe_read import open_regular, read_head
from reportgen.load.llama_log import parse_llama_log
from reportgen.load.manifest import Manifest
from reportgen.load.records import EngineData
from reportgen.load.scan import LLAMA_MARKERS, VLLM_MARKERS
from reportgen.load.vllm_log import parse_vllm_log
from reportgen.reference.model_bytes import model_bytes

Show = Callable[[Path], str]
SNIFF_BYTES = 4 << 20

def sniff_log_kind(path: Path, shown: str | None = None) -> str | None:
    """"vllm" or "llamacpp" from marker strings in the first (and, if needed, last) 4 MiB."""
    with open_regular(path, str(path) if shown is None else shown) as f:
        head = f.read(SNIFF_BYTES)
        f.seek(0, 2)
        size = f.tell()
        tail = b""
        if size > SNIFF_BYTES:
            f.seek(max(size - SNIFF_BYTES, SNIFF_BYTES))
            tail = f.read()
    for text in (head, tail):
        vllm = sum(m in text for m in VLLM_MARKERS)
        llama = sum(m in text for m in LLAMA_MARKERS)
        if vllm != llama:
            return "vllm" if vllm > llama else "llamacpp"
    return None


def _scores(path: Path, shown: str) -> tuple[int, int]:
    head = read_head(path, shown, SNIFF_BYTES)
    return sum(m in head for m in VLLM_MARKERS), sum(m in head for m in LLAMA_MARKERS)


def engine_findings(items: list[Finding], engine: str) -> list[Finding]:
    return [dataclasses.replace(f, engine=engine) for f in items]


def load_log(data: EngineData, show: Show, findings: list[Finding]) -> None:
    path = data.files.server_log
    if path is None:
        return
    kind = data.spec.kind
    shown = show(path)
    if kind is None:
        kind = sniff_log_kind(path, shown)
        if kind is None:
            findings.append(Finding(shown, "cannot tell whether this is a vLLM or a llama-server "
                                           "log (set kind in round.toml); not read",
                                    engine=data.spec.id))
            return
    elif kind in ("vllm", "llamacpp"):
        vllm, llama = _scores(path, shown)
        declared, other = (vllm, llama) if kind == "vllm" else (llama, vllm)
        if declared == 0 and other >= 2:
            looks = "llama-server" if kind == "vllm" else "vLLM"
            raise InputError(shown, f"looks like a {looks} log, but round.toml says kind = "
                                    f"\"{kind}\" for engine '{data.spec.id}'")
    else:
        findings.append(Finding(shown, f"no parser for server logs of kind '{kind}'; not read",
                                engine=data.spec.id))
        return
    if kind == "vllm":
        data.vllm_log = parse_vllm_log(path, name=shown)
        findings += engine_findings(data.vllm_log.findings, data.spec.id)
        if not data.vllm_log.provenance:  # not one start-up fact: empty, cut, or not vLLM's
            findings.append(Finding(shown, "no vLLM start-up lines found (expected e.g. 'vLLM "
                                           "API server version', 'Model loading took'); engine "
                                           "facts and memory are left blank",
                                    engine=data.spec.id))
    else:
        data.llama_log = parse_llama_log(path, name=shown)
        findings += engine_findings(data.llama_log.findings, data.spec.id)
        if len(data.llama_log.timings) == 0 and data.spec.log_segments is None:
            findings.append(Finding(shown, "no print_timing blocks found (expected 'slot "
                                           "print_timing: id … prompt eval time = …' lines); "
                                           "server-side prefill and graph reuse are left blank",
                                    engine=data.spec.id))


def resolve_kv_bytes(data: EngineData, manifest: Manifest) -> None:
    """Set ``data.kv_bytes_per_token`` and its source: the engine's own round.toml value, else
    the model's, else derived from the server log, else the built-in model table. The one place
    this figure is worked out (both layouts call it; analyze only reads it)."""
    spec = data.spec
    if math.isfinite(spec.kv_bytes_per_token):
        data.kv_bytes_per_token = spec.kv_bytes_per_token
        data.kv_bytes_per_token_source = f"round.toml [[engines]] {spec.id}.kv_bytes_per_token"
    elif math.isfinite(manifest.kv_bytes_per_token):
        data.kv_bytes_per_token = manifest.kv_bytes_per_token
        data.kv_bytes_per_token_source = "round.toml [model].kv_bytes_per_token"
    elif data.llama_log is not None and (kv := data.llama_log.facts.kv_bytes_per_token):
        facts = data.llama_log.facts
        data.kv_bytes_per_token = float(kv)
        data.kv_bytes_per_token_source = facts.provenance["kv_bytes_per_token"]
    elif (v := data.vllm_log) is not None and v.kv_cache_gib and v.kv_cache_tokens:
        ranks = v.ranks or 1  # each rank holds its share of the heads for every token
        data.kv_bytes_per_token = v.kv_cache_gib * 2**30 * ranks / v.kv_cache_tokens
        data.kv_bytes_per_token_source = (
            f"{v.provenance['kv_cache_gib']} / {v.provenance['kv_cache_tokens']} "
            f"({v.kv_cache_gib} GiB × {ranks} GPU / {v.kv_cache_tokens:,} tokens; GiB printed "
            "with 2 decimals)"
        )
    elif (known := model_bytes(data.model_name(manifest.model_name), *data.dtypes())):
        data.kv_bytes_per_token = known.kv_bytes_per_token
        data.kv_bytes_per_token_source = known.kv_source
