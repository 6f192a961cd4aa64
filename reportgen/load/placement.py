"""Where each run of a folder with no fixed layout belongs: which configuration, which
workload, which point of the sweep axis, which repeat — and which copies are the same run.

Pure functions over the run-level summary frame (one row per result record; the columns of
``reportgen.load.bench_json`` plus ``rel`` — the file's path inside the round — and ``copy``,
the rank of the copy's format: 0 a one-run JSON file, 1 a record of a many-run file, 2 console
output). Nothing here reads a file.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, cast

import numpy as np
import pandas as pd

from reportgen.files.paths import natural_key  # re-exported: placement.natural_key
from reportgen.files.resources import templates_dir
from reportgen.text.bilingual import Bi, load_strings
from reportgen.text.formatting import tier_label

AXES = ("concurrency", "request_rate")
LENGTH_TOLERANCE = 0.10  # a gap wider than this between measured mean lengths parts workloads
TOKEN = re.compile(r"[A-Za-z0-9]+")
SWEEP_DIR = re.compile(r"^(.*?)-?BENCH-.*$")
# the end of a folder name that names a point of a sweep or a repeat, not a configuration:
# AIPerf's and GenAI-Perf's `<model>-openai-chat-concurrency8` / `…-request_rate4.0`, and
# authors' `c8`, `conc-8`, `rate_2`, `qps4`, `run2`, `rep-3`, `trial_1` (`tp1-c8` → `tp1`)
POINT_DIR = re.compile(
    r"(?:^|[-_ ])(?:max[-_]?concurrency|concurrency|conc|c|request[-_]?rate|rate|qps|rps|"
    r"run|rep|repeat|trial|iter|iteration)[-_=]?(?:[0-9]+(?:\.[0-9]+)?|inf)$", re.IGNORECASE)
NUMBERISH = re.compile(r"(?:inf|infinity)$", re.IGNORECASE)  # `rateinf` names an axis point
# a date or time a folder is named by (`2025-06-11`, `20250611-103000`, `2026-08-20-ws`'s
# date, a 10-digit Unix time): when a run was made names no configuration
STAMP = re.compile(
    r"(?:^|(?<=[-_ ]))(?:(?:19|20)[0-9]{2}[-_]?[01][0-9][-_]?[0-3][0-9]"
    r"(?:[T_ -]?[0-2][0-9][-:_.]?[0-5][0-9](?:[-:_.]?[0-5][0-9](?:\.[0-9]+)?)?Z?)?"
    r"|1[0-9]{9})(?:$|[-_ ]+)")
# a folder name holding one number (`r2`, `users-16`, `qps_0.5`): with its siblings it may
# name the points of a sweep (see point_siblings)
NUMBER = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,12})?")
# the parts of such a template that name a configuration, never a point: a parallel layout
# (`tp{}`), a GPU count (`{}xH100`, `{}gpu`), a node count
NAMES_CONFIG = re.compile(r"^(?:t|d)?ep[-_=]?$|^(?:tp|dp|pp|cp)[-_=]?$|^x[a-z]|gpu|node",
                          re.IGNORECASE)
ID_CHARS = re.compile(r"[^a-z0-9_-]+")
# a content hash or version digest in a name (`:f4e2de70d668…`, 64 hex): shown as 8 characters
# (a run of hex digits holding both a digit and a letter: `_cut_hashes` tests that)
HASH = re.compile(r"(?<![0-9a-z])([0-9a-f]{8})[0-9a-f]+(?![0-9a-z])", re.IGNORECASE)
NAME_SPLIT = re.compile(r"[-\s]+")
# a parallel layout written in a folder or file name: tp8, ep8, dp2, pp2, tep8, dep8, tp4_pp2
LAYOUT = re.compile(r"(?<![a-z0-9])((?:t|d)?ep|tp|dp|pp|cp)[-=]?([0-9]{1,4})(?![0-9])",
                    re.IGNORECASE)
# GPUs written in a name: `2xH100`, `8×B200`, `1xL40s`, `4xRNGD` (a count, then a GPU name that
# holds a digit or is upper case: `g5.2xlarge` names an instance size, not a GPU)
NAME_GPUS = re.compile(r"(?<![A-Za-z0-9.])([0-9]{1,3})[x×]_?([A-Za-z][A-Za-z0-9]*)(?![A-Za-z0-9])")
# a layout's sizes as engine settings: TEP is tensor parallel with experts spread over the same
# GPUs, DEP data-parallel attention with experts spread (InferenceX's names)
LAYOUT_SETTING = {"tp": "tensor_parallel", "tep": "tensor_parallel", "pp": "pipeline_parallel",
                  "dp": "data_parallel", "dep": "data_parallel"}
# input/output lengths stated in a name: isl1024_osl128, isl-8192 / osl-1024,
# itkns-1024-otkns-512, in1024-out256, input_len=2048 (the words other than isl/osl need two
# digits: `output1.json` names a file, not a length)
NAME_ISL = re.compile(r"(?<![a-z0-9])(?:isl[-=_]?([0-9]{1,7})|(?:in|input|input[-_]?len|"
                      r"itkns?|itoks?|itokens)[-=_]?([0-9]{2,7}))(?![0-9])", re.IGNORECASE)
NAME_OSL = re.compile(r"(?<![a-z0-9])(?:osl[-=_]?([0-9]{1,7})|(?:out|output|output[-_]?len|"
                      r"otkns?|otoks?|otokens)[-=_]?([0-9]{2,7}))(?![0-9])", re.IGNORECASE)
# a whole folder name or file stem that is a length pair and nothing else: `1024_128`
NAME_PAIR = re.compile(r"([0-9]{2,7})[_x]([0-9]{2,7})")
# a folder grouping workloads by their input:output ratio (`results-2i-1o-…`): the ratio
# names a workload, never a configuration
RATIO = re.compile(r"(?:^|(?<=[-_ ]))[0-9]{1,7}(?:\.[0-9]{1,7})?i[-_]?[0-9]{1,7}(?:\.[0-9]{1,7})?o"
                   r"(?:$|[-_ ]+)",
                   re.IGNORECASE)
# datasets a client generates from stated lengths (no fixed set of prompts): their runs are
# grouped by lengths; any other named dataset or trace is the workload itself
SYNTHETIC = re.compile(r"^(?:random|synthetic|generated|prefix[-_]repetition)", re.IGNORECASE)


@dataclass(frozen=True)
class Duplicate:
    """A run saved twice: ``dropped`` repeats ``kept``, which is the copy used."""

    dropped: str
    kept: str


@dataclass(frozen=True)
class Unplaced:
    """A run that has no value on the round's axis."""

    source: str
    reason: str


@dataclass(frozen=True)
class Configuration:
    id: str
    label: str
    basis: str  # what separates it from the others: folder, file, model, label, file name


@dataclass(frozen=True)
class Workload:
    id: str
    dataset: str | None
    input_tokens: float   # nominal (the client's setting) or the measured mean; NaN unknown
    output_tokens: float
    from_settings: bool   # lengths read from the client's own settings, not inferred
    # the client drew each request's lengths from a range (random_range_ratio): the settings
    # are maxima, so no request count × length is "what was requested"
    lengths_vary: bool = False
    # per completed request, median over the runs (derived, so not part of equality)
    mean_input_tokens: float = field(default=math.nan, compare=False)
    mean_output_tokens: float = field(default=math.nan, compare=False)
    # the name the files give it (`result-short-rate1.json` → short), when they agree
    name: str | None = field(default=None, compare=False)
    # a round that sweeps both axes: this view's own axis (see mixed_sweeps)
    axis: str | None = field(default=None, compare=False)
    # the file or folder name the lengths were read from, when no file states them
    named_by: str | None = field(default=None, compare=False)

    @property
    def title(self) -> Bi:
        """`short · in ≈1,024 / out ≈256`, `random · in 1,024 / out 128` (in both languages,
        from [workload] of the analysis strings); ≈ marks lengths measured rather than set."""
        t = load_strings(templates_dir() / "i18n" / "analysis.toml")
        if math.isfinite(self.input_tokens):
            text = t.bi("workload.lengths", approx="" if self.from_settings else "≈",
                        input=self.input_tokens, output=self.output_tokens)
            if self.dataset:
                text = t.bi("workload.named", name=self.dataset, text=text)
        else:
            text = Bi.plain(self.dataset) if self.dataset else t.bi("workload.lengths_vary")
            if math.isfinite(self.output_tokens):
                text = t.bi("workload.output_only", name=text, output=self.output_tokens)
        if self.name:
            text = t.bi("workload.named", name=self.name, text=text)
        return t.bi(f"workload.sweep.{self.axis}", text=text) if self.axis else text

    def label(self, lang: str) -> str:
        return self.title.get(lang)


# what a console prints of a run (two decimals): two repeats never agree on all of it
EXACT_COLUMNS = ("completed", "total_input_tokens", "total_output_tokens")  # counts
DEDUPE_COLUMNS = ("completed", "total_input_tokens", "total_output_tokens", "duration_s",
                  "output_throughput_tok_s", "ttft_median_ms", "itl_median_ms",
                  "ttft_mean_ms", "e2el_median_ms")


def run_name(rel: str, line: float, many: bool, record: int = 0) -> str:
    """How a run is named everywhere: its file inside the round, ``#L<n>`` for one line of a
    JSON Lines file, ``#<k>`` for the k-th entry of a JSON list (a sweep's summary.json)."""
    if not many:
        return str(rel)
    return f"{rel}#L{int(line)}" if math.isfinite(line) else f"{rel}#{int(record) + 1}"


def _fmt(value: float) -> str:
    return f"{value:.2f}" if math.isfinite(value) else "nan"


DURATION_SLOT_S = 0.01  # twice the printed half unit: a copy is in its run's slot or the next


def dedupe(summary: pd.DataFrame) -> tuple[pd.DataFrame, list[Duplicate]]:
    """Drop the second copy of a run saved twice (a result JSON and its console log, a sweep's
    run file and its summary). Two records are the same run when requests, tokens, duration,
    throughput and latency agree within the precision a console prints (half a unit of two
    decimals, ``copies.same_run``; a figure only one of them states is not compared); the copy kept
    is the one with the most detail: a one-run file, then a record of a many-run file, then
    console output."""
    if summary.empty:
        return summary, []
    from reportgen.load.copies import PRINTED_HALF_UNIT, comparable, same_run

    exact = [c for c in EXACT_COLUMNS if c in summary.columns]
    columns = [c for c in DEDUPE_COLUMNS if c in summary.columns and c not in exact]
    order = summary.sort_values(["copy", "source", "record"], kind="stable")
    # labels of the loader's RangeIndex (one row per record); columns are the names above
    figures = cast(dict[int, dict[str, Any]], order[exact + columns].to_dict("index"))
    # candidates share the request count and a 0.01 s slot of the duration (a printed
    # duration is within 0.005 s of the saved one, so a neighbouring slot is looked at too)
    kept_rows: dict[tuple[str, int], list[tuple[int, str, str, str]]] = {}
    # the same, by date within a slot: a run with a date is compared only with kept runs of
    # that date or of none (thousands of dated runs of one size would compare pairwise)
    dated: dict[tuple[str, int, str], list[tuple[int, str, str, str]]] = {}
    rank: dict[int, int] = {}  # kept row → the order it was kept in
    keep: list[int] = []
    dups: list[Duplicate] = []
    for idx, source, line, many, date, model, record in zip(
            order.index, order["rel"], order["line"], order["many"],
            order["date"], order["model_id"], order["record"], strict=True):
        fig = figures[idx]
        done = fig.get("completed")
        dur = fig.get("duration_s")
        if not comparable(fig):  # never a copy (of a kept run, nor a kept run's)
            keep.append(idx)
            continue
        dur = float(cast(float, dur))  # comparable: a finite number
        slot = math.floor(dur / DURATION_SLOT_S)
        # the slots a copy's duration can be in: within the printed half unit (and the
        # relative slack ``copies.agree`` allows), one or two slots
        tol = PRINTED_HALF_UNIT + 2e-9 * max(abs(dur), 1.0)
        near_slots = range(math.floor((dur - tol) / DURATION_SLOT_S),
                           math.floor((dur + tol) / DURATION_SLOT_S) + 1)
        key = _fmt(float(done)) if isinstance(done, int | float) else "nan"
        # two copies of one run never disagree on a date or model both of them state
        same = next((kept for near in near_slots
                     for kept in _candidates(kept_rows, dated, rank, (key, near), date)
                     if _compatible(kept[2], date) and _compatible(kept[3], model)
                     and same_run(figures[kept[0]], fig, columns, exact)), None)
        if same is None:
            entry = (idx, str(source), date, model)
            rank[idx] = len(rank)
            kept_rows.setdefault((key, slot), []).append(entry)
            dated.setdefault((key, slot, _date_key(date)), []).append(entry)
            keep.append(idx)
        else:
            dups.append(Duplicate(run_name(source, line, many, record), same[1]))
    return summary.loc[sorted(keep)], dups


def _date_key(date: object) -> str:
    return date if isinstance(date, str) else ""


def _candidates(kept_rows: dict[tuple[str, int], list[tuple[int, str, str, str]]],
                dated: dict[tuple[str, int, str], list[tuple[int, str, str, str]]],
                rank: dict[int, int], bucket: tuple[str, int], date: object
                ) -> list[tuple[int, str, str, str]]:
    """The kept runs of ``bucket`` a run of ``date`` may copy, in the order they were kept:
    with a date, those of the same date or of none; without one, all of them."""
    day = _date_key(date)
    if not day:
        return kept_rows.get(bucket, [])
    same, undated = dated.get((*bucket, day), []), dated.get((*bucket, ""), [])
    if not undated:
        return same
    return sorted(same + undated, key=lambda kept: rank[kept[0]]) if same else undated


def _compatible(a: object, b: object) -> bool:
    return not (isinstance(a, str) and a and isinstance(b, str) and b) or a == b


# ------------------------------------------------------------------ configurations


@functools.lru_cache(maxsize=1 << 16)  # asked per run by several steps; a file has many runs
def run_folder(rel: str) -> str:
    """The folder that holds a run, less the parts that name a point of the sweep: in
    ``vllm bench sweep serve`` output the SERVE part names the configuration and the BENCH part
    the point; a folder per point or per repeat (``POINT_DIR``: AIPerf's
    ``…-concurrency8``, ``c8``, ``run2``) is the configuration's, with its point cut."""
    parts = []
    for part in PurePosixPath(rel).parent.parts:
        m = SWEEP_DIR.match(part)
        if m:
            if m.group(1):
                parts.append(m.group(1))
            break
        while (cut := POINT_DIR.sub("", part)) != part:  # `c8_run2` → `c8` → ''
            part = cut
        part = STAMP.sub("", part).strip("-_ ")  # `2026-08-20-ws` → `ws`
        part = RATIO.sub("", part).strip("-_ ")  # `results-2i-1o-h100` → `results-h100`
        if part:
            parts.append(part)
    return "/".join(parts)


@functools.lru_cache(maxsize=1 << 16)
def layout(rel: str) -> str:
    """The parallel layout a run's folder and file names state (``tp4_pp2`` → ``tp4-pp2``;
    ``…_tep8_isl1024…`` → ``tep8``), '' when they state none. Two layouts are two
    configurations, never repeats of one another."""
    found = [f"{m.group(1).lower()}{int(m.group(2))}"
             for m in LAYOUT.finditer(run_folder(rel) + "/" + PurePosixPath(rel).name)]
    return "-".join(dict.fromkeys(found))


@functools.lru_cache(maxsize=1 << 16)
def name_settings(rel: str) -> tuple[tuple[str, str, str], ...]:
    """Settings a run's folder and file names state, as (key, value, the words read):
    ``8xH100`` → gpu H100 and gpu_count 8; ``tp4_pp2`` → tensor_parallel 4 and
    pipeline_parallel 2; ``TEP8`` → tensor_parallel 8. A GPU the name gives but no table
    knows (``4xRNGD``) is kept as named, with its count."""
    text = STAMP.sub("-", run_folder(rel) + "/" + PurePosixPath(rel).name)
    out: list[tuple[str, str, str]] = []
    gpus = {(int(m.group(1)), m.group(2)) for m in NAME_GPUS.finditer(text)
            if any(ch.isdigit() for ch in m.group(2)) or
            (m.group(2).isupper() and len(m.group(2)) >= 3)}
    if len(gpus) == 1:
        (count, gpu), = gpus
        if count >= 1:
            out += [("gpu", gpu, f"{count}x{gpu}"), ("gpu_count", str(count), f"{count}x{gpu}")]
    sizes: dict[str, set[int]] = {}
    words: dict[str, str] = {}
    for m in LAYOUT.finditer(text):
        key = LAYOUT_SETTING.get(m.group(1).lower())
        if key and int(m.group(2)) >= 1:
            sizes.setdefault(key, set()).add(int(m.group(2)))
            words[key] = m.group(0)
    out += [(k, str(next(iter(v))), words[k]) for k, v in sizes.items() if len(v) == 1]
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def name_lengths(rel: str) -> tuple[float, float]:
    """(input, output) lengths a run's file or folder name states (``isl1024_osl128``), NaN
    where it states none."""
    path = PurePosixPath(rel)
    text = STAMP.sub("-", path.as_posix())  # `…-2025-06-11-…` states no lengths
    found = [next((a or b for a, b in reversed(pattern.findall(text))), None)
             for pattern in (NAME_ISL, NAME_OSL)]
    if found[0] is None and found[1] is None:
        for part in reversed([*path.parent.parts, path.name.split(".")[0]]):
            m = NAME_PAIR.fullmatch(part)
            if m:
                found = [m.group(1), m.group(2)]
                break
    return tuple(float(x) if x is not None else math.nan for x in found)  # type: ignore[return-value]


@functools.lru_cache(maxsize=1 << 16)
def name_tokens(rel: str) -> tuple[str, ...]:
    """Words of a file name that carry no digits (``result-short-rate1`` → result, short)."""
    stem = PurePosixPath(rel).name.split(".")[0]
    return tuple(t.lower() for t in TOKEN.findall(stem)
                 if not any(ch.isdigit() for ch in t) and not NUMBERISH.search(t))


def _words(name: str) -> list[str]:
    """A name cut at `-`, `_` and spaces; a `key=value` part stays whole
    (`SERVE--max_num_seqs=32` → SERVE, max_num_seqs=32)."""
    out: list[str] = []
    for chunk in NAME_SPLIT.split(name):
        if not chunk:
            continue
        out += [chunk] if "=" in chunk else [w for w in chunk.split("_") if w]
    return out


def _strip_common(names: Sequence[str]) -> list[str]:
    """Drop the leading and trailing words every name shares (``vllm-bench-gpu`` /
    ``vllm-bench-tpu`` → ``gpu`` / ``tpu``), unless that would leave a name empty."""
    if len(names) < 2:
        return list(names)
    words = [_words(n) for n in names]
    head = 0
    while all(len(w) > head + 1 for w in words) and len({w[head] for w in words}) == 1:
        head += 1
    tail = 0
    while all(len(w) > head + tail + 1 for w in words) and len({w[-1 - tail] for w in words}) == 1:
        tail += 1
    return ["_".join(w[head: len(w) - tail]) or n for w, n in zip(words, names, strict=True)]


def _folder_names(folders: list[str]) -> dict[str, str]:
    """Short names for folders: the first path level that tells them all apart, less the words
    they share (``vllm/bench`` / ``llamacpp/bench`` → ``vllm`` / ``llamacpp``;
    ``vllm-bench-gpu/…`` / ``vllm-bench-tpu/…`` → ``gpu`` / ``tpu``)."""
    parts = [PurePosixPath(f).parts for f in folders]
    depth = max((len(p) for p in parts), default=0)
    for level in range(depth):
        names = [p[level] if level < len(p) else "" for p in parts]
        if len(set(names)) == len(names) and all(names):
            return dict(zip(folders, _strip_common(names), strict=True))
    return dict(zip(folders, folders, strict=True))


# `--metadata` keys that describe the client or the workload, not the configuration
METADATA_NOT_CONFIG = {"input_len", "output_len", "dataset_name", "dataset", "client",
                       "tokenizer", "seed", "ramp_up_strategy", "num_prompts", "request_rate",
                       "max_concurrency", "concurrency", "rate", "run", "repeat", "trial",
                       "requests_note"}


def _metadata_keys(summary: pd.DataFrame) -> list[tuple[str, ...]]:
    """Per run, the `--metadata KEY=VALUE` pairs whose values differ between runs (a
    `deployment=base` / `deployment=no-features` pair names two configurations)."""
    if "metadata" not in summary.columns:
        return [()] * len(summary)
    rows = [m if isinstance(m, dict) else {} for m in summary["metadata"]]
    keys = sorted({k for m in rows for k in m} - METADATA_NOT_CONFIG)
    varying = [k for k in keys if len({str(m.get(k)) for m in rows}) > 1]
    return [tuple(f"{k}={m.get(k, '')}" for k in varying) for m in rows]


def point_siblings(folders: Sequence[str], concurrency: Sequence[float],
                   rate: Sequence[float]) -> list[str]:
    """Run folders less a last part that names a point of the sweep, whatever it is called:
    sibling folders whose names differ only in one number (`r2/`, `r4/`; `users-8/`,
    `users-16/`) where every run of each folder is at that number on the axis (its
    max_concurrency, else its request rate) are points of one curve, not configurations.
    A number that names a layout or a GPU count (`tp{}`, `{}xH100`) never does."""
    runs: dict[str, list[int]] = {}
    for i, f in enumerate(folders):
        runs.setdefault(f, []).append(i)
    # (parent, prefix, suffix) → {folder: number}
    families: dict[tuple[str, str, str], dict[str, float]] = {}
    for f in runs:
        parent, _, name = f.rpartition("/")
        numbers = list(NUMBER.finditer(name))
        if len(numbers) != 1:
            continue
        m = numbers[0]
        prefix, suffix = name[:m.start()], name[m.end():]
        if any(ch.isdigit() for ch in prefix + suffix) or NAMES_CONFIG.search(prefix) \
                or NAMES_CONFIG.search(suffix):
            continue
        families.setdefault((parent, prefix, suffix), {})[f] = float(m.group())
    out = list(folders)
    for (parent, _, _), members in families.items():
        if len(members) < 2:
            continue
        for values in (concurrency, rate):
            if all(all(float(values[i]) == n for i in runs[f]) for f, n in members.items()):
                for f in members:
                    for i in runs[f]:
                        out[i] = parent
                break
    return out


# what a run's file states about its configuration: sibling folders whose runs agree on all of
# it may be points of one curve (stated_siblings); the workload is compared beside them
STATED_COLUMNS = ("model_id", "backend", "client", "label", "dataset", "input_len_setting",
                  "output_len_setting", "range_ratio_setting", "burstiness", "server")
# words of a folder name that name an engine or a variant (a file that does not state its engine
# may still sit in a folder named for it): such folders are never merged as points
CONFIG_WORDS = frozenset({"vllm", "sglang", "trtllm", "tensorrt", "tgi", "llamacpp", "llama",
                          "lmdeploy", "mlc", "ollama", "exllama", "aphrodite", "dynamo",
                          "triton", "mistralrs", "deepspeed", "mii", "openai", "baseline",
                          "tuned", "default"})


def _fact(value: object) -> str:
    if isinstance(value, dict):
        return repr(sorted((str(k), str(v)) for k, v in value.items()))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _names_config(leaf: str) -> bool:
    """Whether a folder's name states something of a configuration: a layout, a GPU (count or
    name), an engine, a config word (`tp`, `node`, `gpu`)."""
    from reportgen.reference.gpus import names_gpu

    words = [w.lower() for w in _words(leaf)]
    return bool(NAMES_CONFIG.search(leaf.lower()) or name_settings(f"{leaf}/x")
                or layout(f"{leaf}/x") or names_gpu(leaf)
                or any(w in CONFIG_WORDS or names_gpu(w) for w in words))


def stated_siblings(folders: Sequence[str], summary: pd.DataFrame,
                    workload: Sequence[object]) -> list[str]:
    """Run folders less a last part that names a point, whatever it is called (`low/`,
    `high/`, `run-a/`): sibling folders — every folder of one parent that holds runs, none
    with a run in the parent itself — where each folder's runs sit at one value of the axis,
    each folder at its own value, and every run states the same configuration (model, engine,
    client, workload, settings, metadata: ``STATED_COLUMNS``) are points of one curve. Names
    with a digit are left to point_siblings (a number it did not take names something else). Two
    configurations that each span the axis (a folder per GPU, every concurrency in each) never
    qualify; nor do folders whose names state a configuration (``_names_config``), as files
    rarely state the hardware. A stated model is required."""
    # each column read once as a list, each run's facts only where a parent qualifies by
    # its names (a per-cell .iloc over every run cost 3 s on 6,000 runs)
    columns = [summary[c].tolist() for c in STATED_COLUMNS if c in summary.columns]
    columns.append(list(workload))
    if "metadata" in summary.columns:
        columns.append(summary["metadata"].tolist())
    models = summary["model_id"].tolist() if "model_id" in summary.columns else None

    def facts(i: int) -> tuple[str, ...]:
        return tuple(_fact(column[i]) for column in columns)

    runs: dict[str, list[int]] = {}
    for i, f in enumerate(folders):
        runs.setdefault(f, []).append(i)
    by_parent: dict[str, list[str]] = {}
    for f in runs:
        if f:
            by_parent.setdefault(f.rpartition("/")[0], []).append(f)
    out = list(folders)
    axes = [summary[c].astype(float).tolist() for c in ("concurrency", "request_rate")]
    for parent, members in by_parent.items():
        if len(members) < 2 or parent in runs:
            continue
        # a number in a name that point_siblings did not take as the point names something
        # else (`r4/` holding C=2: four replicas?): only names without digits are compared here
        leaves = [f.rpartition("/")[2] for f in members]
        if any(any(ch.isdigit() for ch in leaf) or _names_config(leaf) for leaf in leaves):
            continue
        every = [i for f in members for i in runs[f]]
        if models is None or not _fact(models[every[0]]) or len({facts(i) for i in every}) != 1:
            continue
        for values in axes:
            points = [{values[i] for i in runs[f]} for f in members]
            if all(len(p) == 1 and all(math.isfinite(v) for v in p) for p in points) \
                    and len({next(iter(p)) for p in points}) == len(members):
                for i in every:
                    out[i] = parent
                break
    return out


def _partition(keys: Sequence[tuple[object, ...]]) -> list[int]:
    seen: dict[tuple[object, ...], int] = {}
    return [seen.setdefault(k, len(seen)) for k in keys]


def _fill_unstated(values: list[str | None], folder: list[str]) -> list[str | None]:
    """A run that does not state a value (a console log prints no model id) takes the one
    value its folder's other runs state, so an unstated field never splits a configuration."""
    stated: dict[str, set[str]] = {}
    for value, home in zip(values, folder, strict=True):
        if value is not None:
            stated.setdefault(home, set()).add(value)
    return [v if v is not None or len(stated.get(home, ())) != 1 else next(iter(stated[home]))
            for v, home in zip(values, folder, strict=True)]


def configurations(summary: pd.DataFrame, workload: pd.Series
                   ) -> tuple[pd.Series, list[Configuration]]:
    """Assign each run a configuration from whatever separates the runs: the explicit
    ``--label``, the folder (a sweep's SERVE part), the many-run file it sits in, the served
    model, or words of its file name that are not explained by its workload. Labels keep only
    the parts that differ."""
    if summary.empty:
        return pd.Series([], dtype=object), []
    # a record with no value on either axis is never placed (place() lists it as such): it
    # must not take part in naming the others, so adding a file that is no run (a status
    # JSON with `duration` and `completed`) never renames a configuration
    on_axis = summary["concurrency"].notna() | summary["request_rate"].notna()
    if on_axis.any() and not on_axis.all():
        placed_ids, placed_configs = configurations(summary[on_axis], workload[on_axis])
        return placed_ids.reindex(summary.index, fill_value=placed_configs[0].id), \
            placed_configs
    n = len(summary)
    rels = list(summary["rel"])
    label = [x if isinstance(x, str) and x else None for x in summary["label"]]
    folder = point_siblings([run_folder(r) for r in rels],
                            list(summary["concurrency"].astype(float)),
                            list(summary["request_rate"].astype(float)))
    folder = stated_siblings(folder, summary, list(workload))
    many_file = [r.rsplit("/", 1)[-1].split(".")[0] if m else None  # rel: a POSIX path
                 for r, m in zip(rels, summary["many"], strict=True)]
    model = _fill_unstated([x if isinstance(x, str) and x else None
                            for x in summary["model_id"]], folder)
    tokens = [name_tokens(r) for r in rels]
    common = set.intersection(*(set(t) for t in tokens)) if tokens else set()
    words = [tuple(t for t in ts if t not in common) for ts in tokens]
    # file-name words separate configurations only where two runs of one folder and file
    # would otherwise fall into the same cell (`vllm-c8.json` / `sglang-c8.json`); words that
    # restate the workload (short / medium / long) or the kind of copy (result / bench log)
    # separate nothing
    cells: dict[tuple[object, ...], set[tuple[str, ...]]] = {}
    for key in zip(folder, many_file, workload, summary["concurrency"].astype(str),
                   summary["request_rate"].astype(str), words, strict=True):
        cells.setdefault(key[:5], set()).add(key[5])
    if all(len(ws) <= 1 for ws in cells.values()):
        words = [()] * n
    meta = _metadata_keys(summary)
    layouts = [layout(r) or None for r in rels]
    # per run: a name, the words of a file name or metadata pairs, or None (not stated)
    candidates: dict[str, Sequence[str | tuple[str, ...] | None]] = {
        "label": label, "metadata": meta, "folder": folder, "layout": layouts,
        "file": many_file, "model": model, "file name": words}
    full = _partition(list(zip(*candidates.values(), strict=True)))
    chosen: list[str] = []
    for name, values in candidates.items():
        if len(set(values)) > 1:
            chosen.append(name)
            if _partition(list(zip(*(candidates[c] for c in chosen), strict=True))) == full:
                break
    groups = sorted(set(full))
    first_row = {g: full.index(g) for g in groups}
    # a file's words that every configuration's file shares (`sglang_outputs_…_output`) say
    # nothing about which configuration it is
    stems = _strip_common([PurePosixPath(rels[first_row[g]]).name.split(".")[0]
                           for g in groups])
    rows = [first_row[g] for g in groups]
    texts = {name: _shown(name, [candidates[name][i] for i in rows], stems) for name in chosen}
    full_models = [("-".join(v) if isinstance(v, tuple) else (v or "")).rstrip("/")
                   for v in (model[i] for i in rows)]
    configs: list[Configuration] = []
    ids: set[str] = set()
    labels: list[str] = []
    for i, g in enumerate(groups):
        parts = [texts[name][i] for name in chosen if texts[name][i]]
        if chosen and not parts:  # separated by being the one file without that trait
            parts = [stems[i]]
        labels.append(" · ".join(parts) if parts
                      else (model[first_row[g]] or "run").split("/")[-1])
    if "model" in texts:  # two labels alike but for the models' owners: the whole model ids
        seen = Counter(labels)
        for i in range(len(groups)):
            if seen[labels[i]] > 1:
                labels[i] = " · ".join(full_models[i] if name == "model" else texts[name][i]
                                       for name in chosen if texts[name][i])
    for i in range(len(groups)):
        text = _short_hashes(labels[i], labels)
        base = ID_CHARS.sub("-", text.lower()).strip("-") or "config"
        cid, k = base, 2
        while cid in ids:
            cid, k = f"{base}-{k}", k + 1
        ids.add(cid)
        configs.append(Configuration(cid, text, ", ".join(chosen) or "single"))
    assigned = pd.Series([configs[groups.index(g)].id for g in full], index=summary.index,
                         dtype=object)
    return assigned, configs


def _shown(name: str, raw: Sequence[str | tuple[str, ...] | None], stems: list[str]
           ) -> list[str]:
    """How one chosen trait reads in the configurations' labels (one per configuration)."""
    shown = ["-".join(v) if isinstance(v, tuple) else (v or "") for v in raw]
    if name == "model":  # the last path part (whole where labels would collide: the caller)
        return [s.rstrip("/").split("/")[-1] for s in shown]
    if name == "metadata":   # raw, as the KEY=VALUE tuples: the value alone when one key
        pairs = [v if isinstance(v, tuple) else () for v in raw]
        return [" ".join(v.split("=", 1)[1] if len(pairs[0]) == 1 else v for v in values)
                for values in pairs]
    if name == "file":
        return [stem if s else "" for s, stem in zip(shown, stems, strict=True)]
    if name == "folder":
        names = _folder_names(list(dict.fromkeys(s for s in shown if s)))
        return [names.get(s, "") for s in shown]
    if name == "layout":
        return [s.upper() for s in shown]
    return shown


def _short_hashes(label: str, labels: Sequence[str]) -> str:
    """A label with each hash cut to its first 8 characters, unless that would make it the
    same as another configuration's label (then the hashes stay whole)."""
    short = _cut_hashes(label)
    if short == label:
        return label
    return label if any(_cut_hashes(o) == short for o in labels if o != label) else short


def _cut_hashes(text: str) -> str:
    def cut(m: re.Match[str]) -> str:
        word = m.group(0)
        mixed = any(ch.isdigit() for ch in word) and any(ch.isalpha() for ch in word)
        return m.group(1) if mixed else word

    return HASH.sub(cut, text)


# ------------------------------------------------------------------ the sweep axis


def effective_concurrency(summary: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """(concurrency, note) per run: the configured ``max_concurrency``; for a 2024 client that
    had no such option and sent every request at once (rate inf), ``num_prompts``."""
    conc = summary["concurrency"].astype(float).copy()
    note = pd.Series([""] * len(summary), index=summary.index, dtype=object)
    old = (~summary["has_max_concurrency_key"].astype(bool)) & conc.isna() & \
        np.isinf(summary["request_rate"].astype(float)) & (summary["num_prompts"] > 0)
    conc[old] = summary.loc[old, "num_prompts"].astype(float)
    note[old] = "num_prompts"
    return conc, note


def mixed_sweeps(concurrency: pd.Series, rate: pd.Series) -> pd.Series | None:
    """Each run's own sweep when a round holds both a concurrency sweep (runs with a
    max_concurrency) and a rate sweep (a finite request rate, no max_concurrency), None when
    it holds one kind: put on one axis, the other kind's runs would each become a one-point
    series. The two become separate views, each on its own axis."""
    # a concurrency sweep at a fixed finite rate stays one (split_by_other_axis): a rate
    # sweep's runs set no max_concurrency
    by_rate = rate.notna() & np.isfinite(rate.astype(float)) & concurrency.isna()
    by_conc = concurrency.notna()
    if not by_rate.any() or not by_conc.any():
        return None
    if concurrency[by_conc].nunique() < 2 and rate[by_rate].nunique() < 2:
        return None   # one point each: nothing is swept
    out = pd.Series("", index=concurrency.index, dtype=object)
    out[by_conc] = "concurrency"
    out[by_rate] = "request_rate"
    return out


def choose_axis(concurrency: pd.Series, rate: pd.Series) -> str:
    """The round's sweep axis from the data: concurrency when every run has one and it varies
    at least as much as the rate; request rate when only rates vary."""
    conc_known = concurrency.notna()
    n_conc = concurrency[conc_known].nunique()
    n_rate = rate[rate.notna()].nunique()
    if conc_known.all() and (n_conc > 1 or n_rate <= 1):
        return "concurrency"
    if n_rate > 1 or not conc_known.any():
        return "request_rate"
    return "concurrency"


def place(summary: pd.DataFrame, axis: str | None = None
          ) -> tuple[str, pd.DataFrame, list[Unplaced]]:
    """Give each run its point on the axis (``tier``) and its repeat number within its
    (configuration, workload, tier) cell; runs without a value on the axis are returned as
    unplaced, with the reason."""
    conc, note = effective_concurrency(summary)
    rate = summary["request_rate"].astype(float)
    axis = axis or choose_axis(conc, rate)
    out = summary.assign(concurrency=conc, concurrency_note=note)
    tier = conc if axis == "concurrency" else rate
    ok = tier.notna()
    unplaced = [
        Unplaced(run_name(s, ln, m, r),
                 "no max_concurrency (a rate-limited run?): no place on the concurrency axis"
                 if axis == "concurrency" else "no request_rate: no place on the rate axis")
        for s, ln, m, r in zip(out.loc[~ok, "rel"], out.loc[~ok, "line"], out.loc[~ok, "many"],
                               out.loc[~ok, "record"], strict=True)
    ]
    out = out[ok].assign(tier=tier[ok])
    out = split_by_other_axis(out, axis)
    out = out.assign(_order=pd.Series([natural_key(r) for r in out["rel"]], index=out.index,
                                      dtype=object)).sort_values(
        ["engine", "workload", "tier", "_order", "line"], kind="stable").drop(columns="_order")
    out["repeat"] = out.groupby(["engine", "workload", "tier"], sort=False).cumcount() + 1
    return axis, out, unplaced


def other_axis_label(axis: str, value: float) -> str:
    """How a run's value on the axis not swept is named (`C=16`, `4 req/s`, `∞ req/s`)."""
    return tier_label(value, "request_rate" if axis == "concurrency" else "concurrency")


def split_by_other_axis(placed: pd.DataFrame, axis: str) -> pd.DataFrame:
    """Runs of one configuration that differ on the axis not swept (a concurrency sweep at
    two request rates) are two series, not repeats: each gets its own configuration,
    ``<id>@<value>``, so they are drawn and compared apart."""
    other = placed["request_rate"] if axis == "concurrency" else placed["concurrency"]
    other = other.astype(float)
    engine = placed["engine"].astype(str).copy()
    for key, idx in placed.groupby(["engine", "workload"], sort=False).groups.items():
        cid = cast(tuple[str, str], key)[0]  # a two-column groupby's keys are pairs
        values = other.loc[idx]
        if values.nunique(dropna=False) <= 1:
            continue
        for i in idx:
            v = other.loc[i]
            engine.loc[i] = f"{cid}@{'none' if math.isnan(v) else other_axis_label(axis, v)}"
    return placed.assign(engine=engine)
