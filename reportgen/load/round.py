"""``load_round(dir) -> LoadedRound``: every input file of a round, parsed and tagged by engine.

Errors name files relative to the round directory's parent (see ``reportgen.load.discover``).
Problems that still allow an honest report (a tier one engine lacks, an unpaired scrape, a
folder round.toml does not mention…) become ``Finding``s; contradictions (the same tier twice,
log_segments that do not add up to the log) are ``InputError``s.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import Finding, InputError
from reportgen.load.bench_json import (
    concat_requests,
    empty_requests,
    joined_summary_frame,
    load_bench_rows,
)
from reportgen.load.discover import RoundFiles, discover
from reportgen.load.engine_data import (
    Show,
    engine_findings,
    load_log,
    resolve_kv_bytes,
    sniff_log_kind,
)
from reportgen.load.fingerprint import parse_fingerprint
from reportgen.load.gaps import Gaps
from reportgen.load.manifest import Manifest
from reportgen.load.nvidia_smi import load_gpu_csv
from reportgen.load.prometheus import nonfinite_note, parse_prometheus
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.telemetry import load_telemetry

__all__ = ["EngineData", "LoadedRound", "load_round", "resolve_kv_bytes", "sniff_log_kind"]


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


def fixed_layout(root: Path, manifest: Manifest | None) -> bool:
    """Whether round.toml lists engines laid out as ``<dir>/bench/*.json`` (the layout the
    sample uses); any other folder is read by content (``reportgen.load.auto``)."""
    return manifest is not None and bool(manifest.engines) and (
        any(spec.dir_given for spec in manifest.engines)
        or any((root / spec.dir / "bench").is_dir() for spec in manifest.engines))


def load_round(round_dir: Path) -> LoadedRound:
    """Load a round directory (see docs/ARCHITECTURE.md, LoadedRound): the fixed layout when
    round.toml describes one, else every result found below the folder."""
    from reportgen.files.paths import display_paths
    from reportgen.load.auto import load_auto
    from reportgen.load.discover import read_manifest
    from reportgen.load.manifest import check_comparisons

    root = Path(round_dir)
    manifest = read_manifest(root)
    if not fixed_layout(root, manifest):
        auto = load_auto(root, display_paths(root), manifest)
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
            findings += engine_findings(b.findings, spec.id)
            # a summary-only file has no per-request parts: nothing to join (an empty frame
            # per file would cost more than reading it)
            # every record's columns, joined once for the round (a frame a file cost more
            # than its requests)
            requests += [(spec.id, part) for part in b.requests if part.size]
            itls += b.itls   # each record's gaps as they are: never joined into one array
        summaries.append(summary.assign(engine=spec.id))

        load_log(data, show, findings)
        tiers = sorted(c for c in summary["concurrency"] if math.isfinite(c))
        _check_segments(data, show, tiers, manifest)
        if ef.fingerprint is not None:
            data.fingerprint = parse_fingerprint(ef.fingerprint, name=show(ef.fingerprint))
        if ef.gpu_csv is not None:
            data.gpu = load_gpu_csv(ef.gpu_csv, name=show(ef.gpu_csv))
        data.telemetry = load_telemetry(ef.series, show, spec.id, findings)
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
    if requests:
        req = concat_requests([part for _, part in requests])
        req.insert(0, "engine", [e for e, part in requests for e in [e] * part.size])
    else:
        req = empty_requests().assign(engine=pd.Series(dtype=object))
        req.insert(0, "engine", req.pop("engine"))

    return LoadedRound(manifest=manifest, summary=summary, requests=req,
                       runs=_runs(summary, files),
                       itls=Gaps(itls), engines=engines, findings=findings)


def _runs(summary: pd.DataFrame, files: RoundFiles) -> pd.DataFrame:
    """The `runs` table of the fixed layout: one result per (engine, tier), one workload."""
    from reportgen.files.safe_read import printable
    from reportgen.load.auto import build_runs

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
    have = {str(engine): set(values) for engine, values in tiers}  # engine ids are str
    everywhere = set().union(*have.values()) if have else set()
    for engine, own in have.items():
        missing = sorted(everywhere - own)
        if missing and len(have) > 1:
            shown = ", ".join(f"C={c:g}" for c in missing)
            findings.append(Finding(bench_dirs[engine], f"no result for {shown} "
                                            "(other engines do); those tiers are compared "
                                            "without it", engine=engine))
