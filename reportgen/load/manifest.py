"""Parse and validate ``round.toml`` into a plain, frozen ``Manifest``.

Every problem is an ``InputError`` naming the file, the TOML key and what was expected, so a
typo in the manifest never surfaces as a KeyError three stages later.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import math
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from reportgen.errors import Inferred, InputError
from reportgen.files.resources import templates_dir
from reportgen.files.safe_read import printable, read_input
from reportgen.slo import DEFAULT_TARGET, Slo
from reportgen.slo import METRICS as SLO_METRICS
from reportgen.text.bilingual import LANGS, Bi, load_strings

ENGINE_ID = re.compile(r"^[a-z0-9_-]+$")
ENGINE_KINDS = ("vllm", "llamacpp", "sglang", "other")

_KNOWN: dict[str, set[str]] = {
    "": {"round", "hardware", "workload", "model", "engines", "analysis", "baseline",
         "provenance", "related", "slo", "telemetry", "cost"},
    "round": {"title", "subtitle", "default_language", "date", "series", "client", "axis",
              "reference", "compare"},
    "hardware": {"gpu", "bandwidth_gb_s", "memory_gib", "count", "gpu_count"},
    "workload": {"input_tokens", "output_tokens", "dataset", "ignore_eos"},
    "model": {"name", "kv_bytes_per_token", "params"},
    "engines": {
        "id", "label", "dir", "kind", "weight_bytes_per_step", "weight_bytes_source",
        "log_segments", "kv_bytes_per_token", "version", "notes", "tensor_parallel",
        "pipeline_parallel", "data_parallel", "model", "gpu", "gpu_count",
    },
    "log_segments": {"warmup", "tiers"},
    "analysis": {"exclude_from_conclusions", "exclude_reason"},
    "baseline": {"round"},   # h14: the previous round to compare with
    "provenance": {"status", "note", "files"},
    "provenance.files": {"status", "files", "keys", "tiers", "note"},
    "related": {"title", "href"},
    "slo": {"ttft_ms", "tpot_ms", "e2el_ms", "target"},
    "telemetry": {"utc_offset"},
    "cost": {"gpu_hour_usd"},   # the reader's price of one GPU for an hour, US dollars
}
# [telemetry] utc_offset: the benchmark host's offset from UTC, "+08:00" / "-05:30" / "Z"
_UTC_OFFSET = re.compile(r"^(?:Z|UTC|([+-])(\d{2}):?(\d{2}))$")
PROVENANCE_STATUS = ("measured", "reconstructed", "synthetic")
# a related report's link: a relative path, or https (never javascript:, data:, file:, //host)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


ROUND_TOML, GPU_TABLE, MODEL_TABLE, INFERRED = "round.toml", "GPU table", "model table", "inferred"
COMMAND_LINE = "command line"   # a value the command line gives (``detail``: the option)


@dataclass(frozen=True)
class Provenance:
    """Where one manifest value came from: a line of round.toml, a built-in table (``detail``
    names the row), or a file it was inferred from (``detail``: file[:line] or how)."""

    kind: str  # ROUND_TOML | GPU_TABLE | MODEL_TABLE | INFERRED | COMMAND_LINE
    detail: str = ""
    file: str = ""           # round.toml as shown in messages
    line: int | None = None  # round.toml: the key's line (its table's when the key is implied)

    def __str__(self) -> str:
        if self.kind == ROUND_TOML:
            return f"{self.file or 'round.toml'}:{self.line}" if self.line else \
                self.file or "round.toml"
        if self.kind == INFERRED:
            return f"inferred from {self.detail}"
        if self.kind == COMMAND_LINE:
            return self.detail or self.kind
        return f"{self.kind} ({self.detail})" if self.detail else self.kind


@dataclass(frozen=True)
class LogSegments:
    """How many print_timing blocks belong to warm-up and to each tier, in log order."""

    warmup: int
    tiers: tuple[int, ...]


@dataclass(frozen=True)
class EngineSpec:
    id: str
    label: Bi
    dir: str
    kind: str | None = None
    weight_bytes_per_step: float = math.nan
    weight_bytes_source: Bi | None = None
    kv_bytes_per_token: float = math.nan
    log_segments: LogSegments | None = None
    version: str | None = None
    notes: Bi | None = None
    dir_given: bool = False  # round.toml names the folder: the fixed <dir>/bench layout
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    data_parallel: int | None = None
    model: str | None = None
    gpu: str | None = None  # when configurations ran on different GPUs
    gpu_count: int | None = None  # GPUs the configuration ran on (`8xH100`), when stated

    @property
    def gpus(self) -> int:
        """GPUs the configuration ran on: as stated, else TP × PP × DP (1 when none is known)."""
        if self.gpu_count is not None:
            return self.gpu_count
        return (self.tensor_parallel or 1) * (self.pipeline_parallel or 1) \
            * (self.data_parallel or 1)

    @property
    def gpus_per_replica(self) -> int | None:
        """GPUs that share one copy of the weights (TP × PP); None when neither is known."""
        if self.tensor_parallel is None and self.pipeline_parallel is None:
            return None
        return (self.tensor_parallel or 1) * (self.pipeline_parallel or 1)


@dataclass(frozen=True)
class InputProvenance:
    """Files of the round (globs relative to the round folder, `*` also crossing `/`) that
    are reconstructed or synthetic; ``keys`` and ``tiers`` narrow it to some of what the files
    hold (empty: all of it). See reportgen/analyze/provenance.py for the key names."""

    status: str                      # "reconstructed" | "synthetic"
    files: tuple[str, ...]
    keys: tuple[str, ...] = ()
    tiers: tuple[float, ...] = ()
    note: Bi | None = None


@dataclass(frozen=True)
class Declared:
    """What round.toml [provenance] declares reconstructed or synthetic (the round, or some
    of its files). Not to be confused with ``Provenance``: where one value came from."""

    status: str = "measured"         # the round as a whole
    note: Bi | None = None
    files: tuple[InputProvenance, ...] = ()

    @property
    def stated(self) -> bool:
        return self.status != "measured" or bool(self.files)


@dataclass(frozen=True)
class Related:
    """Another report of the same round or series, linked at the end of the page."""

    title: Bi
    href: str = ""   # "" when the report is named but has no link


@dataclass(frozen=True)
class Manifest:
    path: Path
    title: Bi
    default_language: str
    date: str
    gpu: str
    bandwidth_gb_s: float
    memory_gib: float
    input_tokens: float  # an int from round.toml; NaN when unknown
    output_tokens: float
    model_name: str
    kv_bytes_per_token: float
    engines: tuple[EngineSpec, ...]
    exclude_from_conclusions: dict[str, tuple[int, ...]] = field(default_factory=dict)
    exclude_reason: Bi | None = None
    subtitle: Bi | None = None
    series: Bi | None = None
    client: str = "vllm bench serve"
    gpu_count: int = 1
    gpu_count_given: bool = False
    axis: str | None = None  # "concurrency" | "request_rate"; None: decided from the data
    # lengths measured (mean tokens per request), not what the client asked for: good for the
    # KV estimate, meaningless for output-token parity
    lengths_measured: bool = False
    inferred: tuple[Inferred, ...] = ()  # settings read from the files, not round.toml
    # [baseline] round: the previous round (folder, report.html or baseline.toml folder) as
    # written, relative to round.toml's folder; "" when none
    baseline: str = ""
    # where round.toml states a value (its line) or which built-in table filled it, by dotted
    # key ("hardware.bandwidth_gb_s", "engines.<id>.version"); read through provenance()
    sources: dict[str, Provenance] = field(default_factory=dict)

    def provenance(self, key: str) -> Provenance | None:
        """Where the value of a round.toml key came from (None: nowhere, it is unknown). A
        value read from the files wins: round.toml did not state it."""
        for item in reversed(self.inferred):
            if item.key == key and item.status == "inferred":
                return Provenance(INFERRED, item.source)
        return self.sources.get(key)

    def line_of(self, key: str) -> int | None:
        """round.toml's line for a dotted key (``engines.<id>.log_segments``), if it states it."""
        found = self.sources.get(key)
        return found.line if found is not None and found.kind == ROUND_TOML else None

    @property
    def bandwidth_from_table(self) -> bool:
        """The GPU bandwidth was filled from the built-in GPU table, not stated."""
        found = self.sources.get("hardware.bandwidth_gb_s")
        return found is not None and found.kind == GPU_TABLE
    # crossover: every configuration against the reference (default: the first), plus the
    # pairs the reader asks for; never every pair (quadratic in the configuration count)
    reference: str | None = None
    compare: tuple[tuple[str, str], ...] = ()
    # [slo]: the reader's latency objective (None: round.toml states none)
    slo: Slo | None = None
    slo_target: float | None = None  # the command line's target for thresholds found elsewhere
    default_language_given: bool = False  # round.toml states it (else: the reader's browser)
    declared: Declared = field(default_factory=Declared)
    related: tuple[Related, ...] = ()
    # [telemetry] utc_offset in minutes: how the results' local times (vLLM's `date`) relate to
    # samples stamped in UTC (DCGM, Prometheus); None: round.toml does not say
    utc_offset_min: float | None = None
    # [cost] gpu_hour_usd ($ per GPU-hour, > 0) or `build --price`; None: no price given (its
    # provenance: provenance("cost.gpu_hour_usd"))
    gpu_hour_usd: float | None = None

    def engine(self, engine_id: str) -> EngineSpec:
        for spec in self.engines:
            if spec.id == engine_id:
                return spec
        raise KeyError(engine_id)

    def is_excluded(self, engine_id: str, concurrency: float) -> bool:
        return concurrency in self.exclude_from_conclusions.get(engine_id, ())


def default_title(root: Path) -> Bi:
    """The title of a round whose round.toml gives none: the folder's name."""
    return load_strings(templates_dir() / "i18n" / "analysis.toml").bi(
        "round.default_title", name=printable(root.resolve().name))  # need not be UTF-8


_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-\s\"]+?)\s*\]\]?")
_SEGMENT = re.compile(r"^([^\[\]]+)(?:\[(\d+)\])?$")
# Python 3.11's tomllib puts the position only in the message: "... (at line 3, column 8)"
TOML_POSITION = re.compile(r"^(.*?) \(at line (\d+), column (\d+)\)$")


def _clip(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


@functools.lru_cache(maxsize=4)
def _toml_layout(text: str) -> tuple[list[str], list[tuple[int, str]]]:
    """The lines of a TOML text and its table headers (line index, name), split once per
    text: ``locate`` runs for every key round.toml states (hundreds with many engines)."""
    lines = text.splitlines()
    headers = [(i, h.group(1).replace('"', "").replace(" ", ""))
               for i, line in enumerate(lines) if (h := _HEADER.match(line))]
    return lines, headers


def locate(text: str, where: str) -> int | None:
    """Best-effort 1-based line of a dotted key path such as ``hardware.bandwidth_gb_s`` or
    ``engines[1].log_segments.tiers`` in TOML source (tomllib gives no positions): the key's
    line inside its table, else the table header's line, else None."""
    parts = [p for p in where.split(".") if p]
    if not parts:
        return None
    m = _SEGMENT.match(parts[0])
    if m is None:
        return None
    name, index = m.group(1).strip(), int(m.group(2) or 0)
    lines, headers = _toml_layout(text)
    own = [i for i, h in headers if h == name]
    key_line = re.compile(r"^\s*\"?" + re.escape(parts[1] if len(parts) > 1 else name) + r"\"?\s*=")
    if index < len(own):
        start = own[index]
        end = next((i for i, _ in headers if i > start), len(lines))
        if len(parts) > 1:
            hit = next((i for i in range(start + 1, end) if key_line.match(lines[i])), None)
            if hit is not None:
                return hit + 1
        return start + 1
    # a top-level key (no table of that name): its own line, before the first header
    first = headers[0][0] if headers else len(lines)
    hit = next((i for i in range(first) if key_line.match(lines[i])), None)
    return None if hit is None else hit + 1


class _Reader:
    """Typed access to the parsed TOML with errors that name the key (and its line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = ""

    def error(self, message: str, where: str = "") -> InputError:
        return InputError(self.path, message, locate(self.source, where) if where else None)

    def fail(self, key: str, expected: str, got: Any = None) -> InputError:
        shown = "" if got is None else f", got {_clip(got)}"
        return self.error(f"[{key}]: expected {expected}{shown}", key)

    def table_list(self, raw: Any, key: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """An array of tables (``[[key]]``): (where, table) for each, every one a table whose
        keys are known."""
        if not isinstance(raw, list):
            raise self.fail(key, f"[[{key}]] tables", raw)
        for i, entry in enumerate(raw):
            where = f"{key}[{i}]"
            if not isinstance(entry, dict):
                raise self.fail(where, "a table", entry)
            self.check_keys(entry, key, where)
            yield where, entry

    def check_keys(self, table: dict[str, Any], kind: str, where: str) -> None:
        for key in table:
            if key not in _KNOWN[kind]:
                near = difflib.get_close_matches(key, sorted(_KNOWN[kind]), n=1)
                hint = f"; did you mean '{near[0]}'?" if near else ""
                place = where or "top level"
                raise self.error(f"unknown key '{_clip(key, 60)[1:-1]}' in [{place}]{hint}",
                                 f"{where}.{key}" if where else key)

    def table(self, data: dict[str, Any], key: str, required: bool = True) -> dict[str, Any]:
        value = data.get(key)
        if value is None:
            if required:
                raise InputError(self.path, f"missing table [{key}]")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, "a table", value)
        return value

    def string(self, data: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{where}.{key}", "a non-empty string", value)
        return value

    def number(
        self, data: dict[str, Any], key: str, where: str, *, required: bool = True,
        integer: bool = False, positive: bool = True,
    ) -> float:
        value = data.get(key)
        if value is None:
            if required:
                raise self.error(f"[{where}]: missing key '{key}'", where)
            return math.nan
        ok_type = isinstance(value, int) if integer else isinstance(value, int | float)
        if isinstance(value, bool) or not ok_type or not math.isfinite(value):
            kind = "an integer" if integer else "a number"
            raise self.fail(f"{where}.{key}", kind, value)
        if positive and value <= 0:
            raise self.fail(f"{where}.{key}", "a value > 0", value)
        if key in MAXIMA and value > MAXIMA[key]:
            raise self.fail(f"{where}.{key}", f"a value up to {MAXIMA[key]:,.0f}", value)
        return cast(float, value)

    def text(
        self, data: dict[str, Any], key: str, where: str, required: bool = True
    ) -> Bi | None:
        value = data.get(key)
        if value is None:
            if required:
                raise self.error(f"[{where}]: missing key '{key}'", where)
            return None
        if isinstance(value, str) and value.strip():
            return Bi(value, value)
        if isinstance(value, dict) and set(value) <= set(LANGS) and value:
            for lang in LANGS:
                if lang in value and not (isinstance(value[lang], str) and value[lang].strip()):
                    raise self.fail(f"{where}.{key}.{lang}", "a non-empty string", value[lang])
            return Bi.read(value)   # both checked non-empty strings above
        raise self.fail(f"{where}.{key}", 'a non-empty string or { zh = "...", en = "..." }',
                        value)


# No setting is an integer beyond this; a larger one (TOML allows any length) would overflow
# the first float conversion.
MAX_INTEGER = 10**15
# Far above any real value, far below what overflows arithmetic on it (1e308 GB/s would).
MAXIMA = {"bandwidth_gb_s": 1e6, "memory_gib": 1e6, "weight_bytes_per_step": 1e15,
          "kv_bytes_per_token": 1e9, "gpu_hour_usd": 1e6}


def _check_integers(r: _Reader, value: Any, where: str) -> None:
    """Every integer anywhere in round.toml within ±MAX_INTEGER (checked before any key is
    read, so no later float() or repr() meets a 400-digit number)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_integers(r, item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_integers(r, item, f"{where}[{i}]" if isinstance(item, dict) else where)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        digits = len(str(abs(value)))  # tomllib itself refuses more than 4,300
        raise r.error(f"[{where}]: expected a number up to {MAX_INTEGER:,}, got an integer of "
                      f"{digits:,} digits", where)


def _segments(r: _Reader, value: Any, where: str) -> LogSegments:
    if not isinstance(value, dict):
        raise r.fail(where, "a table { warmup = N, tiers = [...] }", value)
    r.check_keys(value, "log_segments", where)
    warmup = value.get("warmup", 0)
    tiers = value.get("tiers")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise r.fail(f"{where}.warmup", "an integer >= 0", warmup)
    if (
        not isinstance(tiers, list)
        or not tiers
        or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in tiers)
    ):
        raise r.fail(f"{where}.tiers", "a non-empty list of block counts > 0", tiers)
    return LogSegments(warmup, tuple(tiers))


_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


def folder_name(root: Path, directory: str) -> str:
    """``directory``, or the folder it names in the ``\\xNN`` form messages and ``init`` use
    for bytes that are not UTF-8 (no TOML string can hold them) when only that one exists."""
    if "\\x" not in directory or (root / directory).exists():
        return directory
    raw = _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), directory)
    try:
        return raw if (root / raw).exists() else directory
    except (OSError, ValueError):
        return directory


def _engine(r: _Reader, raw: Any, index: int, root: Path) -> EngineSpec:
    where = f"engines[{index}]"
    if not isinstance(raw, dict):
        raise r.fail(where, "a table", raw)
    r.check_keys(raw, "engines", where)
    engine_id = r.string(raw, "id", where)
    if not ENGINE_ID.match(engine_id):
        raise r.fail(f"{where}.id", "an id made of [a-z0-9_-]", engine_id)
    directory = folder_name(root, r.string(raw, "dir", where, default=engine_id))
    resolved = (root / directory).resolve()
    if root.resolve() not in resolved.parents:
        raise r.fail(f"{where}.dir", "a folder inside the round directory", directory)
    kind = raw.get("kind")
    if kind is not None and kind not in ENGINE_KINDS:
        raise r.fail(f"{where}.kind", f"one of {', '.join(ENGINE_KINDS)}", kind)
    segments = raw.get("log_segments")
    return EngineSpec(
        id=engine_id,
        label=r.text(raw, "label", where, required=False) or Bi(engine_id, engine_id),
        dir=directory,
        kind=kind,
        weight_bytes_per_step=r.number(raw, "weight_bytes_per_step", where, required=False),
        weight_bytes_source=r.text(raw, "weight_bytes_source", where, required=False),
        kv_bytes_per_token=r.number(raw, "kv_bytes_per_token", where, required=False),
        log_segments=None if segments is None else _segments(r, segments, f"{where}.log_segments"),
        version=None if raw.get("version") is None else r.string(raw, "version", where),
        notes=r.text(raw, "notes", where, required=False),
        dir_given="dir" in raw,
        tensor_parallel=_parallel(r, raw, "tensor_parallel", where),
        pipeline_parallel=_parallel(r, raw, "pipeline_parallel", where),
        data_parallel=_parallel(r, raw, "data_parallel", where),
        model=None if raw.get("model") is None else r.string(raw, "model", where),
        gpu=None if raw.get("gpu") is None else r.string(raw, "gpu", where),
        gpu_count=_parallel(r, raw, "gpu_count", where),
    )


def _exclusions(r: _Reader, raw: Any, engine_ids: set[str]) -> dict[str, tuple[int, ...]]:
    where = "analysis.exclude_from_conclusions"
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise r.fail(where, "a table { engine_id = [concurrency, ...] }", raw)
    out: dict[str, tuple[int, ...]] = {}
    for engine_id, tiers in raw.items():
        if engine_id not in engine_ids:
            raise r.fail(where, f"an engine id from [[engines]] ({', '.join(sorted(engine_ids))})",
                          engine_id)
        if not isinstance(tiers, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in tiers
        ):
            raise r.fail(f"{where}.{engine_id}", "a list of concurrency values", tiers)
        out[engine_id] = tuple(sorted(tiers))
    return out


def _comparisons(r: _Reader, rnd: dict[str, Any], ids: list[str]
                 ) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """[round].reference (an engine id) and [round].compare (pairs of engine ids). Checked
    against [[engines]] when round.toml lists them; otherwise against the configurations found
    (``check_comparisons``), since a folder in any layout names them only when loaded."""
    reference = rnd.get("reference")
    if reference is not None:
        reference = r.string(rnd, "reference", "round")
    raw = rnd.get("compare", [])
    pairs: list[tuple[str, str]] = []
    if not isinstance(raw, list):
        raise r.fail("round.compare", 'a list of pairs [["a", "b"], …]', raw)
    for pair in raw:
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(x, str) and x for x in pair) and pair[0] != pair[1]):
            raise r.fail("round.compare", 'pairs of two different engine ids [["a", "b"], …]',
                         pair)
        pairs.append((pair[0], pair[1]))
    if ids:
        for key, named in (("reference", [reference] if reference else []),
                           ("compare", [x for p in pairs for x in p])):
            unknown = next((x for x in named if x not in ids), None)
            if unknown is not None:
                listed = _clip(", ".join(ids))[1:-1]
                raise r.fail(f"round.{key}", f"an engine id from [[engines]] ({listed})", unknown)
    return reference, tuple(pairs)


def check_comparisons(manifest: Manifest) -> None:
    """The reference and compared configurations exist (a folder without [[engines]] learns
    its configuration ids only from the files)."""
    ids = [e.id for e in manifest.engines]
    named = [("reference", x) for x in ([manifest.reference] if manifest.reference else [])]
    named += [("compare", x) for pair in manifest.compare for x in pair]
    for key, name in named:
        if name not in ids:
            raise InputError(manifest.path, f"[round.{key}]: expected a configuration id "
                             f"({_clip(', '.join(ids))[1:-1]}), got {_clip(name)}")
def _declared(r: _Reader, raw: dict[str, Any]) -> Declared:
    if not raw:
        return Declared()
    r.check_keys(raw, "provenance", "provenance")
    status = raw.get("status", "measured")
    if status not in PROVENANCE_STATUS:
        raise r.fail("provenance.status", " or ".join(f'"{s}"' for s in PROVENANCE_STATUS),
                     status)
    files = []
    for where, entry in r.table_list(raw.get("files", []), "provenance.files"):
        kind = entry.get("status", "synthetic")
        if kind not in PROVENANCE_STATUS[1:]:
            raise r.fail(f"{where}.status", '"reconstructed" or "synthetic"', kind)
        globs = _strings(r, entry.get("files"), f"{where}.files", required=True)
        tiers = entry.get("tiers", [])
        if not isinstance(tiers, list) or not all(
                isinstance(t, int | float) and not isinstance(t, bool) and t > 0 for t in tiers):
            raise r.fail(f"{where}.tiers", "a list of tiers (numbers > 0)", tiers)
        files.append(InputProvenance(kind, globs, _strings(r, entry.get("keys"), f"{where}.keys"),
                                     tuple(float(t) for t in tiers),
                                     r.text(entry, "note", where, required=False)))
    return Declared(status, r.text(raw, "note", "provenance", required=False), tuple(files))


def _strings(r: _Reader, value: Any, where: str, required: bool = False) -> tuple[str, ...]:
    if value is None and not required:
        return ()
    if not isinstance(value, list) or (not value and required) or \
            not all(isinstance(v, str) and v.strip() for v in value):
        raise r.fail(where, "a non-empty list of strings" if required else "a list of strings",
                     value)
    return tuple(value)


def _related(r: _Reader, raw: Any) -> tuple[Related, ...]:
    if raw is None:
        return ()
    out = []
    for where, entry in r.table_list(raw, "related"):
        title = r.text(entry, "title", where)
        # no href: named, not linked (a report that is not published beside this one)
        href = r.string(entry, "href", where) if "href" in entry else ""
        if href.startswith(("//", "\\")) or any(ch.isspace() or ord(ch) < 32 for ch in href) \
                or (_SCHEME.match(href) and not href.lower().startswith("https://")):
            raise r.fail(f"{where}.href", "a relative link or an https:// address", href)
        assert title is not None
        out.append(Related(title, href))
    return tuple(out)


def _slo(r: _Reader, raw: dict[str, Any], shown: str) -> Slo | None:
    """[slo] ttft_ms / tpot_ms / e2el_ms (ms, > 0) and target (a share in (0, 1])."""
    if not raw:
        return None
    r.check_keys(raw, "slo", "slo")
    values = {m: r.number(raw, f"{m}_ms", "slo", required=False) for m in SLO_METRICS}
    if all(math.isnan(v) for v in values.values()):
        raise r.error("[slo]: name at least one of ttft_ms, tpot_ms, e2el_ms", "slo")
    target = r.number(raw, "target", "slo", required=False)
    if math.isnan(target):
        target = DEFAULT_TARGET
    elif target > 1:
        raise r.fail("slo.target", "a share in (0, 1], e.g. 0.99", target)
    return Slo(values["ttft"], values["tpot"], values["e2el"], float(target),
               f"{shown} [slo]")


def _int_or_nan(value: float) -> float:
    return int(value) if math.isfinite(value) else math.nan


def _parallel(r: _Reader, raw: dict[str, Any], key: str, where: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise r.fail(f"{where}.{key}", "an integer >= 1", value)
    return value


def _sources(r: _Reader, data: dict[str, Any], engines: tuple[EngineSpec, ...], shown: str
             ) -> dict[str, Provenance]:
    """The line of every key round.toml states (engines by id), found once at parse time."""
    out: dict[str, Provenance] = {}
    for table, values in data.items():
        if table == "engines":
            for index, (spec, raw) in enumerate(zip(engines, values, strict=True)):
                for key in raw:
                    out[f"engines.{spec.id}.{key}"] = Provenance(
                        ROUND_TOML, file=shown, line=locate(r.source, f"engines[{index}].{key}"))
        elif isinstance(values, dict):
            for key in values:
                out[f"{table}.{key}"] = Provenance(ROUND_TOML, file=shown,
                                                   line=locate(r.source, f"{table}.{key}"))
    return out


def _decode(r: _Reader, path: Path) -> dict[str, Any]:
    """round.toml's tables, every way it can fail one line naming the file (and line)."""
    raw_bytes = read_input(path, path, "round.toml",
                           missing="round.toml not found (every round directory needs one)")
    try:
        r.source = raw_bytes.decode("utf-8")
        data = tomllib.loads(r.source)
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 (byte {exc.start})",
                         raw_bytes.count(b"\n", 0, exc.start) + 1) from None
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's tomllib only puts the position in the message: "... (at line 3, column 8)"
        found = TOML_POSITION.search(str(exc))
        if found:
            msg = f"invalid TOML: {found[1]} (column {found[3]})"
            raise InputError(path, msg, int(found[2])) from None
        raise InputError(path, f"invalid TOML: {exc}") from None
    except ValueError:  # int() of a number longer than Python's 4,300-digit limit
        raise InputError(path, "invalid TOML: an integer of more than 4,300 digits") from None
    except RecursionError:
        raise InputError(path, "invalid TOML: arrays or tables nested too deeply") from None
    _check_integers(r, data, "")
    return data


def _gpu_figures(r: _Reader, hw: dict[str, Any], gpu: str, gpu_lookup: Any
                 ) -> tuple[float, float, dict[str, Provenance]]:
    """[hardware] bandwidth and memory, each left out filled from the GPU table (with that
    provenance) when the GPU is known there."""
    known = gpu_lookup(gpu) if gpu_lookup and gpu else None
    bandwidth = r.number(hw, "bandwidth_gb_s", "hardware", required=False)
    memory = r.number(hw, "memory_gib", "hardware", required=False)
    filled: dict[str, Provenance] = {}
    if known is not None:
        for key, value in (("bandwidth_gb_s", bandwidth), ("memory_gib", memory)):
            if math.isnan(value):
                filled[f"hardware.{key}"] = Provenance(GPU_TABLE, gpu)
        bandwidth = known[0] if math.isnan(bandwidth) else bandwidth
        memory = known[1] if math.isnan(memory) else memory
    return bandwidth, memory, filled


def _gpu_count(r: _Reader, hw: dict[str, Any], key: str) -> int:
    count = hw.get(key, 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise r.fail(f"hardware.{key}", "an integer >= 1", count)
    return count


def parse_manifest(path: Path, gpu_lookup: Any = None, *, name: str | None = None) -> Manifest:
    """Read ``round.toml`` (the only reader of that file). ``gpu_lookup(name) ->
    (bandwidth_gb_s, memory_gib) | None`` fills hardware values the manifest leaves out (the
    built-in GPU table). ``name``: how the file is shown in provenance (default: the path)."""
    r = _Reader(path)
    data = _decode(r, path)

    r.check_keys(data, "", "")
    # Every table is optional: what round.toml leaves out is inferred from the files
    rnd = r.table(data, "round", required=False)
    r.check_keys(rnd, "round", "round")
    hw = r.table(data, "hardware", required=False)
    r.check_keys(hw, "hardware", "hardware")
    wl = r.table(data, "workload", required=False)
    r.check_keys(wl, "workload", "workload")
    model = r.table(data, "model", required=False)
    r.check_keys(model, "model", "model")
    analysis = r.table(data, "analysis", required=False)
    r.check_keys(analysis, "analysis", "analysis")
    declared = _declared(r, r.table(data, "provenance", required=False))
    related = _related(r, data.get("related"))

    lang = rnd.get("default_language", "zh")
    if lang not in LANGS:
        raise r.fail("round.default_language", '"zh" or "en"', lang)
    date = rnd.get("date", "")
    if isinstance(date, dt.date | dt.datetime):
        date = str(date)  # TOML dates parse to datetime.date; keep ISO text
    elif not isinstance(date, str):
        raise r.fail("round.date", 'a date (2026-11-20) or a string', date)

    gpu = r.string(hw, "gpu", "hardware") if "gpu" in hw else ""
    bandwidth, memory, filled = _gpu_figures(r, hw, gpu, gpu_lookup)

    raw_engines = data.get("engines", [])
    if not isinstance(raw_engines, list):
        raise InputError(path, "expected [[engines]] tables")
    root = path.parent
    engines = tuple(_engine(r, raw, i, root) for i, raw in enumerate(raw_engines))
    ids = [e.id for e in engines]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise r.fail("engines", "unique engine ids", dupes[0])

    count_key = "gpu_count" if "gpu_count" in hw else "count"
    count = _gpu_count(r, hw, count_key)
    axis = rnd.get("axis")
    if axis is not None and axis not in ("concurrency", "request_rate"):
        raise r.fail("round.axis", '"concurrency" or "request_rate"', axis)
    base = r.table(data, "baseline", required=False)
    r.check_keys(base, "baseline", "baseline")
    baseline = r.string(base, "round", "baseline") if "round" in base else ""

    reference, compare = _comparisons(r, rnd, ids)
    slo = _slo(r, r.table(data, "slo", required=False), name or str(path))
    telemetry = r.table(data, "telemetry", required=False)
    r.check_keys(telemetry, "telemetry", "telemetry")
    cost = r.table(data, "cost", required=False)
    r.check_keys(cost, "cost", "cost")
    price = r.number(cost, "gpu_hour_usd", "cost", required=False)

    return Manifest(
        path=path,
        title=r.text(rnd, "title", "round", required=False) or default_title(root),
        subtitle=r.text(rnd, "subtitle", "round", required=False),
        series=r.text(rnd, "series", "round", required=False),
        default_language=lang,
        default_language_given="default_language" in rnd,
        declared=declared,
        related=related,
        date=date,
        client=r.string(rnd, "client", "round", default="vllm bench serve"),
        gpu=gpu,
        gpu_count=count,
        gpu_count_given=count_key in hw,
        axis=axis,
        bandwidth_gb_s=float(bandwidth),
        memory_gib=float(memory),
        input_tokens=_int_or_nan(r.number(wl, "input_tokens", "workload", integer=True,
                                          required=False)),
        output_tokens=_int_or_nan(r.number(wl, "output_tokens", "workload", integer=True,
                                           required=False)),
        model_name=r.string(model, "name", "model") if "name" in model else "",
        kv_bytes_per_token=r.number(model, "kv_bytes_per_token", "model", required=False),
        engines=engines,
        exclude_from_conclusions=_exclusions(r, analysis.get("exclude_from_conclusions"), set(ids)),
        exclude_reason=r.text(analysis, "exclude_reason", "analysis", required=False),
        baseline=baseline,
        sources=_sources(r, data, engines, name or str(path)) | filled,
        reference=reference,
        compare=compare,
        slo=slo,
        utc_offset_min=_utc_offset(r, telemetry),
        gpu_hour_usd=None if math.isnan(price) else float(price),
    )


def _utc_offset(r: _Reader, raw: dict[str, Any]) -> float | None:
    """[telemetry] utc_offset ("+08:00", "-0530", "Z") → minutes east of UTC."""
    if "utc_offset" not in raw:
        return None
    value = raw["utc_offset"]
    m = _UTC_OFFSET.match(value) if isinstance(value, str) else None
    if m is None or (m.group(1) and (int(m.group(2)) > 14 or int(m.group(3)) > 59)):
        raise r.fail("telemetry.utc_offset", 'an offset from UTC such as "+08:00" or "Z" '
                     "(the benchmark host's, as `date +%z` prints it)", value)
    if not m.group(1):
        return 0.0
    sign = -1 if m.group(1) == "-" else 1
    return float(sign * (int(m.group(2)) * 60 + int(m.group(3))))
