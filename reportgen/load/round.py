"""``load_round(dir) -> LoadedRound``: every input file of a round, parsed and tagged by engine.

Errors name files relative to the round directory's parent (see ``reportgen.discover``).
Problems that still allow an honest report (a tier one engine lacks, an unpaired scrape, a
folder round.toml does not mention…) become ``Finding``s; contradictions (the same tier twice,
log_segments that do not add up to the log) are ``InputError``s.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.discover import RoundFiles, discover
from reportgen.errors import Finding, InputError
from reportgen.load.bench_json import (
    concat_file_itls,
    concat_requests,
    empty_itls,
    empty_requests,
    joined_summary_frame,
    load_bench_rows,
)
from reportgen.load.fingerprint import parse_fingerprint
from reportgen.load.llama_log import parse_llama_log
from reportgen.load.nvidia_smi import load_gpu_csv
from reportgen.load.prometheus import nonfinite_note, parse_prometheus
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.scan import LLAMA_MARKERS, VLLM_MARKERS
from reportgen.load.vllm_log import parse_vllm_log
from reportgen.manifest import Manifest
from reportgen.model_bytes import model_bytes
from reportgen.safe_read import open_regular, read_head

__all__ = ["EngineData", "LoadedRound", "load_round", "resolve_kv_bytes"]

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


def _engine_findings(items: list[Finding], engine: str) -> list[Finding]:
    return [dataclasses.replace(f, engine=engine) for f in items]


def _load_log(data: EngineData, show: Show, findings: list[Finding]) -> None:
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
        findings += _engine_findings(data.vllm_log.findings, data.spec.id)
        if not data.vllm_log.provenance:  # not one start-up fact: empty, cut, or not vLLM's
            findings.append(Finding(shown, "no vLLM start-up lines found (expected e.g. 'vLLM "
                                           "API server version', 'Model loading took'); engine "
                                           "facts and memory are left blank",
                                    engine=data.spec.id))
    else:
        data.llama_log = parse_llama_log(path, name=shown)
        findings += _engine_findings(data.llama_log.findings, data.spec.id)
        if len(data.llama_log.timings) == 0 and data.spec.log_segments is None:
            findings.append(Finding(shown, "no print_timing blocks found (expected 'slot "
                                           "print_timing: id … prompt eval time = …' lines); "
                                           "server-side prefill and graph reuse are left blank",
                                    engine=data.spec.id))


def _check_segments(data: EngineData, show: Show, tiers: list[float], manifest: Manifest
                    ) -> None:
    segments = data.spec.log_segments
    if segments is None:
        return
    if data.llama_log is None:
        where = data.files.server_log or data.files.dir
        raise InputError(show(where), f"round.toml gives log_segments for engine "
                                      f"'{data.spec.id}', but there is no llama-server log "
                                      "(server.log) to split")
    expected = segments.warmup + sum(segments.tiers)
    blocks = len(data.llama_log.timings)
    if blocks != expected:
        # what the parser tolerated (a block cut off at the end…) often explains the count
        notes = "".join(f"; line {f.line}: {f.message}" if f.line else f"; {f.message}"
                        for f in data.llama_log.findings[:2])
        raise InputError(
            data.llama_log.path,
            f"has {blocks} print_timing blocks, but log_segments in round.toml for engine "
            f"'{data.spec.id}' add up to {expected} (warmup {segments.warmup} + tiers "
            f"{sum(segments.tiers)}){notes}",
        )
    if len(segments.tiers) != len(tiers):
        # segment i belongs to the i-th tier: with a count missing or extra, every later
        # segment would be credited to the wrong tier
        line = manifest.line_of(f"engines.{data.spec.id}.log_segments")
        have = ", ".join(f"C={c:g}" for c in tiers)
        raise InputError(
            show(manifest.path), f"log_segments for engine '{data.spec.id}' lists "
            f"{len(segments.tiers)} tier counts, but its bench/ folder has {len(tiers)} tiers "
            f"({have}); give one block count per tier, in the order the tiers ran", line,
        )


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
    elif data.llama_log is not None and data.llama_log.facts.kv_bytes_per_token:
        facts = data.llama_log.facts
        data.kv_bytes_per_token = float(facts.kv_bytes_per_token)
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


def _check_tiers(engine: str, summary: pd.DataFrame, findings: list[Finding]) -> None:
    """Same concurrency twice for one engine → InputError naming both files."""
    seen: dict[float, tuple[str, int]] = {}
    for source, record, conc in summary[["source", "record", "concurrency"]].itertuples(
            index=False):
        if not math.isfinite(conc):
            findings.append(Finding(source, f"record {record} has no max_concurrency (a "
                                            "rate-limited run?); it has no place on the "
                                            "concurrency axis", engine=engine))
            continue
        if conc in seen:
            first, first_record = seen[conc]
            raise InputError(
                source, f"concurrency {conc:g} appears twice for engine '{engine}': {first} "
                f"(record {first_record}) and {source} (record {record}); keep one result per "
                "tier",
            )
        seen[conc] = (source, record)


def _concat_itls(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate long ITL frames keeping ``engine`` / ``source`` categorical (millions of
    rows: object strings would cost ~50 bytes each). Each part holds one file of one engine,
    so the category codes are built directly instead of re-encoding strings."""
    parts = [p for p in parts if len(p)]
    if not parts:
        out = empty_itls()
        out.insert(0, "engine", pd.Categorical([]))
        return out
    sizes = [len(p) for p in parts]
    columns: dict[str, object] = {}
    for name in ("engine", "source"):
        labels = [str(p[name].iloc[0]) for p in parts]
        categories = list(dict.fromkeys(labels))
        codes = np.repeat(np.asarray([categories.index(x) for x in labels], dtype=np.int32),
                          sizes)
        columns[name] = pd.Categorical.from_codes(codes, categories)
    for name in ("record", "request", "itl_s"):
        columns[name] = np.concatenate([p[name].to_numpy() for p in parts])
    return pd.DataFrame(columns)


def fixed_layout(root: Path, manifest: Manifest | None) -> bool:
    """Whether round.toml lists engines laid out as ``<dir>/bench/*.json`` (the layout the
    sample uses); any other folder is read by content (``reportgen.load.auto``)."""
    return manifest is not None and bool(manifest.engines) and (
        any(spec.dir_given for spec in manifest.engines)
        or any((root / spec.dir / "bench").is_dir() for spec in manifest.engines))


def load_round(round_dir: Path) -> LoadedRound:
    """Load a round directory (see docs/ARCHITECTURE.md, LoadedRound): the fixed layout when
    round.toml describes one, else every result found below the folder."""
    from reportgen.discover import display_path, read_manifest
    from reportgen.load.auto import load_auto
    from reportgen.manifest import check_comparisons

    root = Path(round_dir)
    manifest = read_manifest(root)
    if not fixed_layout(root, manifest):
        auto = load_auto(root, lambda p: display_path(p, root), manifest)
        check_comparisons(auto.manifest)  # configuration ids are known only now
        return auto
    files = discover(round_dir, manifest)
    manifest = files.manifest
    show = files.show
    findings = list(files.findings)
    engines: dict[str, EngineData] = {}
    summaries, requests, itls = [], [], []

    for spec in manifest.engines:
        ef = files.engines[spec.id]
        data = EngineData(spec=spec, files=ef)
        bench = [load_bench_rows(p, show(p)) for p in ef.bench]
        summary = joined_summary_frame([b.rows for b in bench])
        _check_tiers(spec.id, summary, findings)
        for b in bench:
            findings += _engine_findings(b.findings, spec.id)
            # a summary-only file has no per-request parts: nothing to join (an empty frame
            # per file would cost more than reading it)
            if b.requests and len(file_requests := concat_requests(b.requests)):
                requests.append(file_requests.assign(engine=spec.id))
            if b.itls and len(file_itls := concat_file_itls(b.itls)):
                itls.append(file_itls.assign(engine=spec.id))
        summaries.append(summary.assign(engine=spec.id))

        _load_log(data, show, findings)
        tiers = sorted(c for c in summary["concurrency"] if math.isfinite(c))
        _check_segments(data, show, tiers, manifest)
        if ef.fingerprint is not None:
            data.fingerprint = parse_fingerprint(ef.fingerprint, name=show(ef.fingerprint))
        if ef.gpu_csv is not None:
            data.gpu = load_gpu_csv(ef.gpu_csv, name=show(ef.gpu_csv))
        for conc, (before, after) in ef.metrics.items():
            data.metrics[conc] = (parse_prometheus(before, name=show(before)),
                                  parse_prometheus(after, name=show(after)))
            for path, frame in zip((before, after), data.metrics[conc], strict=True):
                if frame.empty:
                    findings.append(Finding(show(path), f"no samples in this scrape (empty "
                                                         f"file?); server metrics for C={conc} "
                                                         "are left blank", engine=spec.id))
                elif (note := nonfinite_note(frame)) is not None:
                    findings.append(Finding(show(path), note, engine=spec.id))
        resolve_kv_bytes(data, manifest)
        engines[spec.id] = data

    summary = pd.concat(summaries, ignore_index=True)
    summary.insert(0, "engine", summary.pop("engine"))
    _missing_tiers(summary, {e: show(d.files.dir / "bench") for e, d in engines.items()},
                   findings)
    req = pd.concat(requests, ignore_index=True) if requests else empty_requests().assign(
        engine=pd.Series(dtype=object))
    req.insert(0, "engine", req.pop("engine"))
    return LoadedRound(manifest=manifest, summary=summary, requests=req,
                       runs=_runs(summary, files),
                       itls=_concat_itls(itls), engines=engines, findings=findings)


def _runs(summary: pd.DataFrame, files: RoundFiles) -> pd.DataFrame:
    """The `runs` table of the fixed layout: one result per (engine, tier), one workload."""
    from reportgen.load.auto import build_runs
    from reportgen.safe_read import printable

    rel = {files.show(p): printable(p.relative_to(files.root).as_posix())
           for ef in files.engines.values() for p in ef.bench}
    counts = summary.groupby("source")["record"].transform("size")
    placed = summary[np.isfinite(summary["concurrency"])].assign(
        rel=lambda f: f["source"].map(rel), many=lambda f: counts[f.index] > 1,
        concurrency_note="", repeat=1, workload="", tier=lambda f: f["concurrency"])
    return build_runs(placed, "concurrency")


def _missing_tiers(summary: pd.DataFrame, bench_dirs: dict[str, str],
                   findings: list[Finding]) -> None:
    tiers = summary.dropna(subset=["concurrency"]).groupby("engine", sort=False)["concurrency"]
    have = {engine: set(values) for engine, values in tiers}
    everywhere = set().union(*have.values()) if have else set()
    for engine, own in have.items():
        missing = sorted(everywhere - own)
        if missing and len(have) > 1:
            shown = ", ".join(f"C={c:g}" for c in missing)
            findings.append(Finding(bench_dirs[engine], f"no result for {shown} "
                                            "(other engines do); those tiers are compared "
                                            "without it", engine=engine))
