"""A round folder in any layout → LoadedRound: results found by content anywhere below the
folder, each run placed by configuration, workload, axis point and repeat.

This is the path for folders as users have them (no ``<engine>/bench/`` layout, or no
round.toml at all). What round.toml says, when there is one, overrides what is inferred here;
every inferred value carries the file (and line) it came from.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from reportgen.errors import Finding, Inferred, InputError
from reportgen.files.safe_read import (
    SURROGATE_ESCAPE,
    check_encoding,
    read_head,
    read_input,
    whole_text,
)
from reportgen.frames import MEASURED_RATE
from reportgen.load.bench_json import (
    RequestColumns,
    bench_rows,
    concat_requests,
    decode_records,
    summary_frame,
)
from reportgen.load.configuration import (
    PLACEHOLDER,
    Setting,
    SideFiles,
    load_configuration,
    owner,
)
from reportgen.load.gaps import Gaps, RecordGaps
from reportgen.load.manifest import (
    GPU_TABLE,
    EngineSpec,
    Manifest,
    Provenance,
    default_title,
)
from reportgen.load.placement import (
    Configuration,
    Unplaced,
    Workload,
    run_name,
)
from reportgen.load.records import EngineData, LoadedRound
from reportgen.load.scanned import ScannedFile
from reportgen.text.bilingual import Bi

Show = Callable[[Path], str]
HARVEST_KEYS = {  # keys of an author's metadata JSON that name a setting of the run
    "gpu_name": "gpu", "gpu": "gpu", "gpu_model": "gpu", "accelerator": "gpu",
    "vllm_version": "version", "sglang_version": "version", "engine_version": "version",
    "tensor_parallel_size": "tensor_parallel", "tp_size": "tensor_parallel",
    "pipeline_parallel_size": "pipeline_parallel", "data_parallel_size": "data_parallel",
    "gpu_count": "gpu_count", "num_gpus": "gpu_count",
}
LAUNCH_TP = re.compile(r"(?:--tensor-parallel-size|--tp-size|--tp|-tp)[ =]+(\d+)\b")
LAUNCH_PP = re.compile(r"(?:--pipeline-parallel-size|--pp-size|-pp)[ =]+(\d+)\b")
LAUNCH_DP = re.compile(r"(?:--data-parallel-size|--dp-size|--dp|-dp)[ =]+(\d+)\b")
LAUNCH_MODEL = re.compile(r"(?:vllm serve|--model-path|--model)[ =]+[\"']?([\w./-]+)")
# a result file name in a script: a run of name characters, cut after its last `.json[l]`
# (two steps, so a 100 KB run without `.json` is read once, not once per start)
NAME_RUN = re.compile(r"[\w.=-]+")
RESULT_NAME = re.compile(r"\A.+\.jsonl?(?!\w)")
HEAD = 4 << 20  # how much of a metadata JSON or a script is read for settings
DATE_PREFIX = re.compile(r"^(\d{4})(\d{2})(\d{2})")  # a result's `20260427-104816` date


@dataclass
class ResultSet:
    """Every result record of the round, before placement."""

    summary: pd.DataFrame
    requests: list[RequestColumns] = field(default_factory=list)
    itls: list[RecordGaps] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    other_json: list[ScannedFile] = field(default_factory=list)  # read for settings


def _is_result(value: object) -> bool:
    return isinstance(value, dict) and "duration" in value and "completed" in value


LATENCY_ONLY = "__latency_only__"  # marks a record read for its latencies only
# a vLLM latency statistic key (``median_ttft_ms``): a record of such keys with no duration or
# counts (vllm-ascend's serving JSON) is read for its latencies, its throughput unknown
LATENCY_KEY = re.compile(r"^(?:mean|median|std|p\d+(?:\.\d+)?)_(?:ttft|tpot|itl|e2el)_ms$")
# what the common record requires and a latency-only record does not state: a stand-in while
# the record is checked, NaN after (never 0)
UNSTATED_COUNTS = {"duration": ("duration_s", 1.0), "completed": ("completed", 0)}


def _latency_only(value: object) -> bool:
    return isinstance(value, dict) and not _is_result(value) and \
        "duration" not in value and "completed" not in value and \
        any(isinstance(k, str) and LATENCY_KEY.match(k) for k in value)


def _result_records(raw: bytes, f: ScannedFile) -> list[tuple[Any, int]] | None:
    """The file's result records, or None when the JSON is something else (an author's
    summary, metadata). Invalid JSON that names result keys is an error: it was meant to be
    a result."""
    try:
        records = decode_records(raw, f.shown)
    except InputError:
        # a .json file that names result keys was meant to be a result: its error stands;
        # a log whose lines start with `[timestamp]` only looked like JSON
        if f.path.suffix.lower() in (".json", ".jsonl") and (
                b'"output_throughput"' in raw[:1 << 20] or b'"completed"' in raw[:1 << 20]):
            raise
        return None
    results = [(v, line) for v, line in records if _is_result(v)]
    if not results:
        # latency statistics with no duration or counts: the latencies are read, the
        # throughput is unknown (stand-ins cleared to NaN by read_results)
        partial = [({**{k: v for k, (_, v) in UNSTATED_COUNTS.items()}, **v, LATENCY_ONLY: 1},
                    line) for v, line in records if _latency_only(v)]
        return partial or None
    return records if len(results) == len(records) else results


def read_results(files: list[ScannedFile]) -> ResultSet:
    """Load every result and console file; a file that looks like a result but cannot be read
    is an InputError naming it."""
    from reportgen.load.bench_console import parse_console
    from reportgen.load.client_files import read_client_files
    from reportgen.load.looks import describe_json

    rows: list[dict[str, object]] = []
    out = ResultSet(summary=pd.DataFrame())
    clients = read_client_files(files)
    out.skipped += clients.skipped
    out.findings += clients.findings
    for f in files:
        if f.kind == "client" and f.rel in clients.rows:
            got = clients.rows[f.rel]
            n = clients.count[f.rel]
            lines = {row["line"] for row in got.rows}
            for row in got.rows:
                row.update(rel=f.rel, copy=0 if n == 1 else 1, many=n > 1, kind=f.kind)
                if n > 1 and len(lines) == 1:
                    row["line"] = math.nan
            rows += got.rows
            out.findings += got.findings
            out.requests += got.requests
            out.itls += got.itls
            continue
        if f.kind not in ("json", "console"):
            continue
        raw = read_input(f.path, f.shown, "bench" if f.kind == "json" else "console")
        if f.kind == "json":
            records = _result_records(raw, f)
            if records is None:
                out.skipped.append((f.rel, describe_json(raw)))
                out.other_json.append(f)
                continue
            got = bench_rows(records, f.shown, raw)
            copy = 0 if len(records) == 1 else 1
            for row, (record, _) in zip(got.rows, records, strict=True):
                if record.get(LATENCY_ONLY):  # the stand-ins: unknown, never 0
                    for column, _ in UNSTATED_COUNTS.values():
                        row[column] = math.nan
                    row["failed"] = math.nan
                    row["latency_only"] = True
        else:
            records = parse_console(raw, f.shown)
            if not records:
                continue
            got = bench_rows(records, f.shown, single=False)
            copy = 2
        listed = len(records) > 1 and len({line for _, line in records}) == 1
        for row in got.rows:
            row.update(rel=f.rel, copy=copy, many=len(records) > 1, kind=f.kind)
            if listed:  # entries of one JSON list share its line: named by position instead
                row["line"] = math.nan
        rows += got.rows
        out.findings += got.findings
        out.requests += got.requests
        out.itls += got.itls
    if rows:
        out.summary = summary_frame(rows, ("rel", "copy", "many", "kind", "units", "stated",
                                           "not_recomputable", "rate_measured", "latency_only"))
    return out


# ------------------------------------------------------------------ where side files belong


def homes(summary: pd.DataFrame) -> dict[str, str]:
    """Each configuration's home folder: the deepest folder holding all of its results."""
    out: dict[str, str] = {}
    for cid, rels in summary.groupby("engine", sort=False)["rel"]:
        parents = [r.split("/")[:-1] for r in rels]  # rel: a normalised POSIX path
        common: list[str] = []
        for level in zip(*parents, strict=False):
            if len(set(level)) != 1:
                break
            common.append(level[0])
        out[str(cid)] = "/".join(common)
    return out


# ------------------------------------------------------------------ settings in side files


def harvest_json(f: ScannedFile) -> list[tuple[str, str, str]]:
    """(setting, value, source) from an author's metadata JSON (``meta.json`` with
    ``gpu_name``, ``vllm_version`` …): files that are not results but describe them."""
    import json

    try:
        raw = check_encoding(read_head(f.path, f.shown, HEAD), f.shown)
        data = json.loads(raw)
        data = whole_text(data) if SURROGATE_ESCAPE.search(raw) else data
    except (ValueError, InputError, RecursionError):
        return []
    if not isinstance(data, dict):
        return []
    out = []
    for key, value in data.items():
        setting = HARVEST_KEYS.get(str(key).lower())
        if setting and isinstance(value, str | int) and not isinstance(value, bool) \
                and str(value).strip() and not PLACEHOLDER.match(str(value)):
            out.append((setting, str(value).strip(), f"{f.shown} ({key})"))
    return out


def harvest_script(f: ScannedFile, result_names: list[str]) -> tuple[list[str], list[tuple[
        str, str, str]]]:
    """Launch lines in a script or README: the result files it writes (by name) and the
    parallel sizes and model it starts the server with. Only literal numbers count: a size
    behind a shell variable is not guessed."""
    text = check_encoding(read_head(f.path, f.shown, HEAD), f.shown).decode("utf-8",
                                                                           errors="replace")
    mentioned = {m.group() for run in NAME_RUN.findall(text)
                 if (m := RESULT_NAME.match(run)) is not None}
    # a copied folder may prefix names (`outputs_x.jsonl` for the script's `x.jsonl`)
    writes = [name for name in result_names
              if name in mentioned or any(name.endswith(("_" + m, "-" + m, "/" + m))
                                          for m in mentioned)]
    found: list[tuple[str, str, str]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not any(m in line for m in ("serve", "launch_server", "llama-server")):
            continue
        for key, pattern in (("tensor_parallel", LAUNCH_TP), ("pipeline_parallel", LAUNCH_PP),
                             ("data_parallel", LAUNCH_DP), ("model", LAUNCH_MODEL)):
            m = pattern.search(line)
            if m and not PLACEHOLDER.match(m.group(1)):
                found.append((key, m.group(1), f"{f.shown}:{i}"))
    return writes, found


def replace_findings(findings: list[Finding], engine: str) -> list[Finding]:
    return [dataclasses.replace(f, engine=engine) for f in findings]


# ------------------------------------------------------------------ the whole round


def _date(summary: pd.DataFrame) -> tuple[str, str]:
    """The earliest result date (``20260427-104816`` → ``2026-04-27``) and its file."""
    best = ("", "")
    for value, source in zip(summary["date"], summary["source"], strict=True):
        m = DATE_PREFIX.match(str(value or ""))
        if m:
            iso = f"{m[1]}-{m[2]}-{m[3]}"
            if not best[0] or iso < best[0]:
                best = (iso, source)
    return best


def build_runs(placed: pd.DataFrame, axis: str | pd.Series) -> pd.DataFrame:
    """The `runs` table: one row per run used, in file order."""
    # file order (path, then line): how a reader finds a run again in the folder; the page
    # lists them in natural order (rate2 before rate16: reportgen.page.inputs)
    placed = placed.assign(_line=placed["line"].astype(float)).sort_values(
        ["rel", "_line"], kind="stable")

    def col(name: str) -> pd.Series:
        if name in placed.columns:
            return placed[name].astype(float)
        return pd.Series(math.nan, index=placed.index)

    rate = col("request_rate")
    completed = col("completed")
    duration = col("duration_s")
    out_tok = (col("total_output_tokens") / duration).where(duration > 0).fillna(
        col("output_throughput_tok_s"))
    total_tok = ((col("total_input_tokens") + col("total_output_tokens")) / duration).where(
        duration > 0).fillna(col("total_token_throughput_tok_s"))
    return pd.DataFrame({
        "source": [run_name(r, ln, m, k) for r, ln, m, k in zip(
            placed["rel"], placed["line"], placed["many"], placed["record"], strict=True)],
        "engine": placed["engine"].astype(str),
        "workload": placed["workload"].astype(str),
        "axis": axis,
        "concurrency": col("concurrency"),
        "concurrency_note": _axis_notes(placed),
        # an unbounded rate (requests sent as fast as slots free) stays inf: a stated value,
        # exported as "inf" (reportgen.tables), never a missing one
        "request_rate": rate,
        "repeat": placed["repeat"].astype(int),
        "completed": completed,
        "failed": col("failed"),
        # each run's own mean lengths per completed request: a dataset's or trace's runs
        # differ here, and are still one workload
        "input_tokens_mean": (col("total_input_tokens") / completed).where(completed > 0),
        "output_tokens_mean": (col("total_output_tokens") / completed).where(completed > 0),
        "duration_s": duration,
        "output_tok_s": out_tok,
        "total_tok_s": total_tok,
        "request_req_s": (completed / duration).where(duration > 0).fillna(
            col("request_throughput_req_s")),
        # the client's own figures as its file states them (NaN when it states none): the
        # page's runs table shows them beside its own where they differ
        "client": placed["client"].fillna("").astype(str) if "client" in placed.columns
        else "",
        "client_output_tok_s": col("output_throughput_tok_s"),
        "client_request_req_s": col("request_throughput_req_s"),
        "ttft_p50_ms": col("ttft_median_ms"),
        "itl_p50_ms": col("itl_median_ms"),
        "tpot_p50_ms": col("tpot_median_ms"),
        "e2el_p50_ms": col("e2el_median_ms"),
    }).reset_index(drop=True)


def _axis_notes(placed: pd.DataFrame) -> list[str]:
    """How each run's value on the axis was established, beyond the configured one: the
    effective concurrency (``num_prompts``) or a measured request rate (``measured_rate``:
    a GuideLLM sweep's benchmarks: ``ClientRun.rate_measured``)."""
    measured = (placed["rate_measured"].eq(True) if "rate_measured" in placed.columns
                else pd.Series(False, index=placed.index))
    return [MEASURED_RATE if m else str(n)
            for n, m in zip(placed["concurrency_note"], measured, strict=True)]


def _split_configs(configs: list[Configuration], present: list[str]
                   ) -> tuple[list[Configuration], dict[str, str]]:
    """Configurations after place() split one by the axis not swept (``id@value``), and the
    id each ``id@value`` becomes."""
    from reportgen.load.placement import ID_CHARS

    out: list[Configuration] = []
    renamed: dict[str, str] = {}
    # each id → the present ids that are it or start with "it@", in present order (a scan of
    # every present id per configuration is quadratic)
    under: dict[str, list[str]] = {}
    for e in present:
        for base in {e, *(e[:i] for i, ch in enumerate(e) if ch == "@")}:
            under.setdefault(base, []).append(e)
    for c in configs:
        for e in under.get(c.id, []):
            if e == c.id:
                out.append(c)
                continue
            suffix = e[len(c.id) + 1:]
            # the id keeps ASCII: `∞ req/s` is `inf-req-s` in it
            slug = suffix.replace("∞", "inf")
            out.append(Configuration(ID_CHARS.sub("-", f"{c.id}-{slug}".lower()).strip("-"),
                                     f"{c.label} · {suffix}", f"{c.basis}, {suffix}"))
            renamed[e] = out[-1].id
    return out, renamed


def _name_settings(rels: list[str]) -> list[tuple[str, str, str]]:
    """Settings every run of a configuration states in its folder or file name (``8xH100``,
    ``tp4_pp2``), with the name as their source; after what files state, so a file wins."""
    from reportgen.load.placement import name_settings

    per_run = [{k: (v, w) for k, v, w in name_settings(r)} for r in rels]
    if not per_run:
        return []
    out = []
    for key, (value, words) in per_run[0].items():
        if all(p.get(key, ("", ""))[0] == value for p in per_run):
            out.append((key, value, f"{rels[0]} (name: {words})"))
    return out


def compare_with(item: Inferred, given: Manifest) -> Inferred:
    """Whether round.toml confirmed or overrode an inferred value (``status``)."""
    parts = item.key.split(".")
    stated: object = None
    if parts[0] == "engines" and len(parts) == 3:
        spec = next((e for e in given.engines if e.id == parts[1]), None)
        attr = {"label": "label"}.get(parts[2], parts[2])
        stated = getattr(spec, attr, None) if spec is not None else None
        if isinstance(stated, Bi):
            stated = stated.en
    elif item.key == "hardware.gpu":
        stated = given.gpu or None
    elif item.key == "hardware.gpu_count":
        stated = given.gpu_count if given.gpu_count_given else None
    elif item.key in ("workload.input_tokens", "workload.output_tokens"):
        value = getattr(given, parts[1])
        stated = value if isinstance(value, int) else None
    elif item.key == "round.date":
        stated = given.date or None
    elif item.key == "round.axis":
        stated = given.axis
    if stated is None:
        return item
    same = str(stated) == item.value
    return dataclasses.replace(item, status="confirmed" if same else "overridden",
                               stated="" if same else str(stated))


# what the scan took a file for, as the no-results error counts them (singular, plural)
KIND_NAMES = {
    "metrics": ("Prometheus scrape", "Prometheus scrapes"),
    "series": ("telemetry series file", "telemetry series files"),
    "vllm_log": ("vLLM server log", "vLLM server logs"),
    "llama_log": ("llama-server log", "llama-server logs"),
    "fingerprint": ("fingerprint", "fingerprints"),
    "gpu_csv": ("nvidia-smi sample file", "nvidia-smi sample files"),
    "script": ("launch script", "launch scripts"),
    "failure": ("failure record", "failure records"),
    "console": ("console output with no result", "console outputs with no result"),
}


def _by_kind(files: list[ScannedFile]) -> list[str]:
    """"24 Prometheus scrapes under raw-metrics/": every recognised file that is no result,
    counted by kind and the folder that holds them all."""
    groups: dict[str, list[str]] = {}
    for f in files:
        if f.kind in KIND_NAMES:
            groups.setdefault(f.kind, []).append(f.rel)
    out = []
    for kind, rels in groups.items():
        one, many = KIND_NAMES[kind]
        parents = [PurePosixPath(r).parent.parts for r in rels]
        common: list[str] = []
        for level in zip(*parents, strict=False):
            if len(set(level)) != 1:
                break
            common.append(level[0])
        where = f" under {'/'.join(common)}/" if common else ""
        out.append(f"{len(rels)} {one if len(rels) == 1 else many}{where}")
    return out


def data_first_split(entries: list[tuple[str, str]]
                     ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(JSON / JSONL / CSV entries, the others), each in the order given."""
    from reportgen.load.looks import DATA_SUFFIXES
    data: list[tuple[str, str]] = []
    rest: list[tuple[str, str]] = []
    for e in entries:
        (data if PurePosixPath(e[0]).suffix.lower() in DATA_SUFFIXES else rest).append(e)
    return data, rest


def _no_results(root: str, skipped: list[tuple[str, str]], files: list[ScannedFile]
                ) -> InputError:
    """Nothing to place: every file seen, JSON/JSONL/CSV first, each with what it looked like
    (a CSV by its columns)."""
    from reportgen.load.looks import HEAD, data_first, describe_csv

    csvs = {f.rel: f for f in files if f.kind == "skipped" and f.rel.lower().endswith(".csv")
            and f.reason.startswith("not a benchmark result")}  # read, not a link out
    seen = data_first([(rel, describe_csv(read_head(csvs[rel].path, csvs[rel].shown, HEAD))
                        if rel in csvs else reason) for rel, reason in skipped])
    # results-like files (JSON, CSV) first, each with what it looked like; then every file
    # the scan recognised, counted by kind and folder; then the rest
    results_like, rest = data_first_split(seen)
    listed = [f"{rel}: {reason}" for rel, reason in results_like[:8]]
    listed += _by_kind(files)
    listed += [f"{rel}: {reason}" for rel, reason in rest[:max(8 - len(results_like), 2)]]
    shown = "; ".join(listed)
    left = len(results_like[:8]) + min(len(rest), max(8 - len(results_like), 2))
    more = f" (+{len(seen) - left} more)" if len(seen) > left else ""
    return InputError(root, "no benchmark result found in this folder or below it (expected "
                            "vllm bench serve / benchmark_serving.py JSON, SGLang bench_serving "
                            "JSONL, their console output, another client's files or a tidy CSV "
                            "(see reportgen's docs/ROUNDS.md))"
                      + (f"; files seen: {shown}{more}" if shown else "; the folder is empty"))


def load_auto(root: Path, show: Show, given: Manifest | None) -> LoadedRound:
    """Load a round folder in any layout (see the module docstring)."""
    from reportgen.load import engine_data as legacy
    from reportgen.load.placement import (
        configurations,
        dedupe,
        effective_concurrency,
        mixed_sweeps,
        place,
    )
    from reportgen.load.scan import scan_round
    from reportgen.load.workload_groups import workloads

    files = scan_round(root, show)
    results = read_results(files)
    skipped = [(f.rel, f.reason) for f in files if f.kind in ("skipped", "unreadable")] \
        + results.skipped
    summary = results.summary
    if summary.empty:
        raise _no_results(show(root), skipped, files)
    summary, duplicates = dedupe(summary)
    for d in duplicates:
        skipped.append((d.dropped, f"the same run as {d.kept} (same requests, duration and "
                                   "throughput); that copy is used"))
    summary = summary.reset_index(drop=True)
    wl, workload_specs = workloads(summary)
    summary["workload"] = wl
    cfg, configs = configurations(summary, wl)
    summary["engine"] = cfg
    axis_given = given.axis if given is not None else None
    sweeps = None if axis_given else mixed_sweeps(effective_concurrency(summary)[0],
                                                  summary["request_rate"].astype(float))
    if sweeps is None:
        axis, placed, unplaced = place(summary, axis_given)
        split_note = ""
    else:   # both axes swept: each sweep is its own view (a workload) on its own axis
        axis, placed, unplaced, workload_specs, split_note = _place_views(
            summary, sweeps, workload_specs)
    configs, renamed = _split_configs(configs, list(dict.fromkeys(placed["engine"])))
    placed = placed.assign(engine=placed["engine"].map(lambda e: renamed.get(e, e)))
    for u in unplaced:
        skipped.append((u.source, u.reason))
    if placed.empty:
        reasons = "; ".join(f"{u.source}: {u.reason}" for u in unplaced[:8])
        raise InputError(show(root), f"no run could be placed on the {axis} axis: {reasons}")
    findings = _run_findings(results, summary, files)
    inferred: list[Inferred] = []
    own = homes(placed)
    settings, round_settings = _harvested_settings(files, results, summary, own, skipped)
    # what names state, used after every file's statement (a file wins over a name)
    named = {str(config_id): _name_settings([str(r) for r in config_rels])
             for config_id, config_rels in placed.groupby("engine", sort=False)["rel"]}
    side = SideFiles.of(files, own)
    given_engines = {e.id: e for e in (given.engines if given else ())}
    engines: dict[str, EngineData] = {}
    specs: list[EngineSpec] = []
    # each configuration's rows, found once (a filter per configuration is quadratic)
    by_engine = {str(k): g for k, g in placed.groupby("engine", sort=False, observed=True)}
    for c in configs:
        if c.id not in by_engine:
            continue
        data, own_inferred = load_configuration(
            c, by_engine[c.id], root, show, given_engines.get(c.id), own.get(c.id, ""),
            settings.get(c.id, []), named.get(c.id, []), side, findings)
        engines[c.id] = data
        inferred += own_inferred
        specs.append(data.spec)
    inferred += _workload_inferred(workload_specs, round_settings)

    manifest = _manifest(root, given, tuple(specs), engines, placed, inferred, axis, split_note)
    if given is not None:
        manifest = dataclasses.replace(manifest, inferred=tuple(
            compare_with(i, given) for i in manifest.inferred))
    for data in engines.values():
        legacy.resolve_kv_bytes(data, manifest)
    req, itl = results.requests, results.itls
    summary_out = placed.assign(concurrency=placed["tier"])
    summary_out.insert(0, "engine", summary_out.pop("engine"))
    requests = concat_requests(req)
    engine_of = dict(zip(summary_out["source"], summary_out["engine"], strict=False))
    requests.insert(0, "engine", requests["source"].map(engine_of))
    itls = Gaps(itl)   # a record's configuration is its requests' (by source)
    return LoadedRound(
        manifest=manifest, summary=summary_out.reset_index(drop=True),
        requests=requests, itls=itls, engines=engines, findings=findings, axis=axis,
        runs=build_runs(placed, axis if sweeps is None else placed["_axis"]),
        workloads=[w for w in workload_specs if w.id in set(placed["workload"])],
        skipped=skipped, inferred=list(manifest.inferred))


def _run_findings(results: ResultSet, summary: pd.DataFrame, files: list[ScannedFile]
                  ) -> list[Finding]:
    """The readers' findings, runs saved twice with different figures, files that could not be
    read and failed runs' records."""
    from reportgen.load.copies import conflicting_runs

    findings = list(results.findings) + conflicting_runs(summary)
    for f in files:
        if f.kind == "unreadable":  # a configuration must not vanish with a clean check
            findings.append(Finding(f.shown, f.reason))
        if f.kind == "failure":
            findings.append(Finding(f.shown, "a failed run (the client saved a failure record); "
                                             "it has no results and is not plotted"))
    return findings


def _harvested_settings(files: list[ScannedFile], results: ResultSet, summary: pd.DataFrame,
                        own: dict[str, str], skipped: list[tuple[str, str]]
                        ) -> tuple[dict[str, list[Setting]], list[Setting]]:
    """Settings the side JSON files and launch scripts state: per configuration id, and for the
    whole round; a script with no literal setting is listed in ``skipped``."""
    names = [r.rsplit("/", 1)[-1] for r in summary["rel"]]  # rel: a normalised POSIX path
    settings: dict[str, list[Setting]] = {}
    round_settings: list[Setting] = []
    for f in files:
        found: list[Setting] = []
        targets: list[str] = []
        if f in results.other_json:
            found = harvest_json(f)
            cid = owner(f.rel, own)
            targets = [cid] if cid else []
        elif f.kind == "script":
            writes, found = harvest_script(f, sorted(set(names)))
            targets = sorted({c for r, c in zip(summary["rel"], summary["engine"], strict=True)
                              if PurePosixPath(r).name in writes})
        if not found:
            if f.kind == "script":
                skipped.append((f.rel, "a launch script, but with no literal setting this tool "
                                       "reads (a size behind a shell variable is not guessed)"))
            continue
        if targets:
            for cid in targets:
                settings.setdefault(cid, []).extend(found)
        else:
            round_settings.extend(found)
    return settings, round_settings


def _workload_inferred(workload_specs: list[Workload], round_settings: list[Setting]
                       ) -> list[Inferred]:
    """The one workload's lengths and dataset, and the settings stated for the whole round."""
    inferred: list[Inferred] = []
    if len(workload_specs) == 1:
        w = workload_specs[0]
        how = (f"{w.named_by} (lengths stated in its name)" if w.named_by
               else "the client's settings" if w.from_settings
               else "mean tokens per completed request")
        for key, tokens in (("input_tokens", w.input_tokens),
                            ("output_tokens", w.output_tokens)):
            if math.isfinite(tokens):
                inferred.append(Inferred(f"workload.{key}", f"{tokens:.0f}", how))
        if w.dataset:
            inferred.append(Inferred("workload.dataset", w.dataset, how))
    for key, value, source in round_settings:
        inferred.append(Inferred(key if "." in key else f"round.{key}", value, source))
    return inferred


def _place_views(summary: pd.DataFrame, sweeps: pd.Series, specs: list[Workload]
                 ) -> tuple[str, pd.DataFrame, list[Unplaced], list[Workload], str]:
    """A round sweeping both axes: each (workload, sweep) is a view of its own, placed on its
    own axis (``<workload>@c`` / ``<workload>@rate``). Returns the first view's axis, the
    placed runs (``_axis`` per run), the unplaced, the views as workloads and the sentence
    `check` and the inferred settings show about the split."""
    from reportgen.load.placement import place

    tag = {"concurrency": "c", "request_rate": "rate"}
    by_id = {w.id: w for w in specs}
    parts, unplaced, views = [], [], []
    for axis in ("concurrency", "request_rate"):
        own = summary[sweeps == axis]
        if own.empty:
            continue
        own = own.assign(workload=[f"{w}@{tag[axis]}" for w in own["workload"]])
        _, placed, lost = place(own, axis)
        parts.append(placed.assign(_axis=axis))
        unplaced += lost
        for wid in dict.fromkeys(own["workload"]):
            base = by_id[wid.rsplit("@", 1)[0]]
            views.append(dataclasses.replace(base, id=wid, axis=axis))
    placed = pd.concat(parts)
    n = {a: int((sweeps == a).sum()) for a in ("concurrency", "request_rate")}
    note = (f"both axes swept: {n['concurrency']} runs sweep max_concurrency, "
            f"{n['request_rate']} runs sweep request_rate; each sweep is its own view")
    return str(parts[0]["_axis"].iloc[0]), placed, unplaced, views, note


def _manifest(root: Path, given: Manifest | None, specs: tuple[EngineSpec, ...],
              engines: dict[str, EngineData], placed: pd.DataFrame, inferred: list[Inferred],
              axis: str, split: str = "") -> Manifest:
    """round.toml's values where it gives them, else what the files say (recorded in
    ``inferred``), else unknown (NaN / empty): the analyses that need it are left out."""
    from reportgen.reference.gpus import lookup_gpu

    # one GPU for the round when every configuration names the same one; else each keeps its
    # own (engines.<id>.gpu) and the round states none
    gpus = {cid: data.spec.gpu for cid, data in engines.items()}
    gpu, gpu_from, count = "", "", 1
    if gpus and all(gpus.values()) and len(set(gpus.values())) == 1:
        gpu = next(iter(gpus.values())) or ""
        gpu_from = next((i.source for i in inferred if i.key.endswith(".gpu")), "")
    else:
        harvested = [i for i in inferred if i.key == "round.gpu"]
        if harvested:
            gpu, gpu_from = harvested[0].value, harvested[0].source
    for data in engines.values():
        fp = data.fingerprint
        if fp is not None and fp.gpu_count:
            count = max(count, fp.gpu_count)
        elif data.gpu is not None and "index" in data.gpu.columns:
            count = max(count, int(data.gpu["index"].nunique()))
    count_from = "nvidia-smi (GPUs listed)"
    # every configuration names the same GPU count (`8xH100`): the round's, from that name
    stated = {data.spec.gpu_count for data in engines.values()}
    if count == 1 and len(stated) == 1 and None not in stated:
        count = next(iter(stated)) or 1
        count_from = next((i.source for i in inferred if i.key.endswith(".gpu_count")), "")
    if gpu:
        inferred.append(Inferred("hardware.gpu", gpu, gpu_from))
    if count > 1:
        inferred.append(Inferred("hardware.gpu_count", str(count), count_from))
    date, date_from = _date(placed)
    if date:
        inferred.append(Inferred("round.date", date, f"{date_from} (date)"))
    # one model for the round only when every configuration served it; otherwise each
    # configuration keeps its own and none is assumed for the others
    per_config = {i.key.split(".")[1]: i.value for i in inferred
                  if i.key.startswith("engines.") and i.key.endswith(".model")}
    model = next(iter(set(per_config.values()))) if (
        len(set(per_config.values())) == 1 and len(per_config) == len(specs)) else ""
    inferred.append(Inferred("round.axis", axis, split or
                             "the runs' max_concurrency / request_rate"))

    if given is not None:
        gpu = given.gpu or gpu
        known = lookup_gpu(gpu) if gpu else None
        bandwidth = given.bandwidth_gb_s if math.isfinite(given.bandwidth_gb_s) else (
            known[0] if known else math.nan)
        memory = given.memory_gib if math.isfinite(given.memory_gib) else (
            known[1] if known else math.nan)
        return dataclasses.replace(
            given, gpu=gpu, bandwidth_gb_s=bandwidth, memory_gib=memory, engines=specs,
            sources=given.sources | _from_gpu_table(gpu, known, given),
            date=given.date or date, model_name=given.model_name or model, axis=axis,
            gpu_count=given.gpu_count if given.gpu_count_given else count,
            inferred=tuple(inferred))
    known = lookup_gpu(gpu) if gpu else None
    return Manifest(
        path=root / "round.toml",
        title=default_title(root),
        default_language="en", date=date, gpu=gpu,
        bandwidth_gb_s=known[0] if known else math.nan,
        memory_gib=known[1] if known else math.nan, input_tokens=math.nan,
        output_tokens=math.nan, model_name=model, kv_bytes_per_token=math.nan, engines=specs,
        client="", gpu_count=count, axis=axis, inferred=tuple(inferred),
        sources=_from_gpu_table(gpu, known, None))


def _from_gpu_table(gpu: str, known: tuple[float, float] | None, given: Manifest | None
                    ) -> dict[str, Provenance]:
    """Provenance of the hardware values the built-in GPU table fills (round.toml's win)."""
    if known is None:
        return {}
    return {f"hardware.{key}": Provenance(GPU_TABLE, gpu)
            for key in ("bandwidth_gb_s", "memory_gib")
            if given is None or not math.isfinite(getattr(given, key))}
