"""vLLM ``vllm bench serve`` / ``benchmark_serving.py`` ``--save-result`` files → tidy frames.

A file holds one JSON object, or one object per line (``--append-result`` and wrapper scripts
write JSON Lines, blank lines included). Summary ``*_ms`` values are milliseconds; the
``--save-detailed`` per-request arrays are seconds. Every key is optional except ``duration``
and ``completed``; see docs/ARCHITECTURE.md for the frame contracts.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from reportgen.errors import Finding, InputError
from reportgen.files.safe_read import SURROGATE_ESCAPE, read_input, whole_text
from reportgen.load.discover import list_bench_files
from reportgen.load.gaps import Gaps, Ragged, RecordGaps

orjson: ModuleType | None  # None: the stdlib decodes (a test sets it so)
try:  # orjson is a dependency (3× faster on big files); json stays as the fallback
    import orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    orjson = None

KIND = "bench"  # its size cap in reportgen.files.safe_read.CAPS

REQUIRED = ("duration", "completed")
STRINGS = {"date": "date", "backend": "backend", "model_id": "model_id", "label": "label"}
NUMBERS = {
    "num_prompts": "num_prompts",
    "completed": "completed",
    "failed": "failed",
    "duration": "duration_s",
    "total_input_tokens": "total_input_tokens",
    "total_output_tokens": "total_output_tokens",
    "request_throughput": "request_throughput_req_s",
    "request_goodput": "request_goodput_req_s",
    "request_goodput:": "request_goodput_req_s",  # old benchmark_serving.py typo
    "output_throughput": "output_throughput_tok_s",
    "total_token_throughput": "total_token_throughput_tok_s",
    "max_output_tokens_per_s": "peak_output_throughput_tok_s",
    "max_concurrent_requests": "max_concurrent_requests",
    "burstiness": "burstiness",
}
COUNTS = ("num_prompts", "completed", "failed", "total_input_tokens", "total_output_tokens")
NUMERIC_ARRAYS = {
    "input_lens": "input_tokens",
    "output_lens": "output_tokens",
    "ttfts": "ttft_s",
    "latencies": "latency_s",
    "start_times": "start_s",
    "queue_times": "queue_s",
}
ARRAYS = (*NUMERIC_ARRAYS, "itls", "errors", "generated_texts")
# the per-request times another client's reader may leave unknown (NaN)
UNKNOWN_OK = frozenset({"ttfts", "latencies"})
DETAIL_MARKERS = ("ttfts", "itls", "input_lens", "output_lens")  # only --save-detailed writes them
# Other clients' names for the same metric: SGLang's bench_serving writes `*_e2e_latency_ms`,
# early benchmark_serving.py `*_latency_ms`; both are vLLM's E2EL.
METRIC_ALIASES = {"e2e_latency": "e2el", "latency": "e2el"}
# Client settings some result formats carry (SGLang JSONL, a console log's Namespace line):
# what the run asked for, so a workload is named by its settings rather than guessed.
SETTINGS = {
    "dataset_name": "dataset",
    "random_input_len": "input_len_setting",
    "input_len": "input_len_setting",
    "random_output_len": "output_len_setting",
    "output_len": "output_len_setting",
    "sharegpt_output_len": "sharegpt_output_len_setting",
    "random_range_ratio": "range_ratio_setting",
}
KNOWN = {
    *STRINGS, *NUMBERS, *ARRAYS, "request_rate", "max_concurrency", "endpoint_type",
    "tokenizer_id", "server_info",
}
METRIC_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(.+)_ms$")

METRIC_ORDER = ("ttft", "tpot", "itl", "e2el")
STAT_ORDER = ("mean", "median", "std")

SUMMARY_BASE = (
    "source", "record", "date", "backend", "model_id", "label", "concurrency", "request_rate",
    "num_prompts", "completed", "failed", "duration_s", "total_input_tokens",
    "total_output_tokens", "request_throughput_req_s", "request_goodput_req_s",
    "output_throughput_tok_s", "total_token_throughput_tok_s", "peak_output_throughput_tok_s",
    "max_concurrent_requests", "burstiness", "dataset", "input_len_setting",
    "output_len_setting", "sharegpt_output_len_setting", "range_ratio_setting",
    "has_max_concurrency_key", "line",
)
REQUEST_COLUMNS = (
    "source", "record", "request", "input_tokens", "output_tokens", "ttft_s", "latency_s",
    "start_s", "queue_s", "itl_count", "itl_sum_s", "success", "error",
)
NON_WS = re.compile(rb"\S")
LONG_INTEGER = re.compile(rb"(?<![0-9.eE])[0-9]{21,}")  # longer than MAX_DIGITS
DECIMAL_TEXT = re.compile(r"\d+(?:\.\d+)?")  # a `--metadata input_len=1000` value
__all__ = ["BenchFile", "list_bench_files", "load_bench_file"]  # list_bench_files: discover.py


@dataclass
class BenchFile:
    """One result file: ``summary`` (one row per record), ``requests`` (one row a request)
    and ``itls`` (each record's gaps)."""

    path: str
    summary: pd.DataFrame
    requests: pd.DataFrame
    itls: Gaps
    findings: list[Finding] = field(default_factory=list)


# ---------------------------------------------------------------- JSON decoding


def _json_error(exc: json.JSONDecodeError) -> str:
    # "Unterminated string starting at" already ends in "at"
    where = f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
    cut = exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated")
    return f"not valid JSON ({where})" + ("; the file looks cut off" if cut else "")


MAX_DIGITS = 20  # an unsigned 64-bit integer; no count or measurement has more digits


class _Unreadable(ValueError):
    """JSON the stdlib parser cannot hold: nested too deep, or an integer of absurd length."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:  # int() of 4,300+ digits raises; float() of 400 overflows later
        raise _Unreadable(f"a number with {digits:,} digits (at most {MAX_DIGITS} are read); "
                          "not a count or a measurement")
    return int(text)


def _loads(data: bytes | memoryview) -> Any:
    """orjson when present; the stdlib decides (and words the error) when orjson refuses,
    e.g. for NaN/Infinity literals, which are then rejected by validation with a clear message.
    Nesting too deep for the stdlib parser, or an integer longer than MAX_DIGITS, raises
    _Unreadable."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        value = json.loads(bytes(data) if isinstance(data, memoryview) else data,
                           parse_int=_parse_int)
        # orjson refuses a lone surrogate escape; the stdlib keeps it in the string
        return whole_text(value) if SURROGATE_ESCAPE.search(data) else value
    except RecursionError:
        raise _Unreadable("nested too deeply (a result file is a flat object with lists of "
                          "numbers)") from None


def _unreadable(exc: _Unreadable, raw: bytes, name: str, line: int | None) -> InputError:
    """The error for _Unreadable, at the line of the first over-long number when that is it."""
    if "digits" in str(exc) and (m := LONG_INTEGER.search(raw)) is not None:
        line = raw.count(b"\n", 0, m.start()) + 1
    return InputError(name, str(exc), line)


def _records(raw: bytes, name: str) -> list[tuple[Any, int]]:
    """(decoded top-level value, 1-based line) for each record in the file."""
    first = NON_WS.search(raw)
    if first is None:
        raise InputError(name, "empty file; expected a vllm bench serve result (JSON object)")
    start = first.start()
    newline = raw.find(b"\n", start)
    more = newline != -1 and NON_WS.search(raw, newline) is not None
    line0 = raw.count(b"\n", 0, start) + 1
    if more:
        # JSON Lines if the first line is a complete value on its own; otherwise a
        # pretty-printed single object (whose first line is just "{").
        try:
            head = _loads(memoryview(raw)[start:newline])
        except (json.JSONDecodeError, UnicodeDecodeError, _Unreadable):
            head = None
        if head is not None:
            return _json_lines(raw, name, head, start, newline, line0)
    try:
        return [(_loads(raw), line0)]
    except _Unreadable as exc:
        raise _unreadable(exc, raw, name, line0) from None
    except UnicodeDecodeError as exc:
        raise InputError(name, f"not UTF-8 (byte {exc.start})",
                         raw.count(b"\n", 0, exc.start) + 1) from None
    except json.JSONDecodeError as exc:
        raise InputError(name, _json_error(exc), exc.lineno) from None


def _json_lines(
    raw: bytes, name: str, head: Any, start: int, newline: int, line0: int,
) -> list[tuple[Any, int]]:
    out = [(head, line0)]
    view = memoryview(raw)
    line = line0
    pos = newline + 1
    while pos < len(raw):
        line += 1
        end = raw.find(b"\n", pos)
        end = len(raw) if end == -1 else end
        if NON_WS.search(raw, pos, end) is not None:
            try:
                out.append((_loads(view[pos:end]), line))
            except _Unreadable as exc:
                raise InputError(name, str(exc), line) from None
            except UnicodeDecodeError as exc:
                raise InputError(name, f"not UTF-8 (byte {exc.start})", line) from None
            except json.JSONDecodeError as exc:
                raise InputError(name, _json_error(exc), line) from None
        pos = end + 1
    return out


# ---------------------------------------------------------------- validation helpers


class _Record:
    """Typed access to one decoded record; errors name the file and the key's line."""

    def __init__(self, data: dict[str, Any], name: str, raw: bytes, line: int, single: bool):
        self.data, self.name, self.raw, self.line, self.single = data, name, raw, line, single
        self.unknown = False   # NaN in a per-request time array means unknown (client readers)

    def where(self, key: str) -> int:
        """Line of ``"key"`` in a single (possibly pretty-printed) object; the record's line in
        JSON Lines. Only computed on the error path."""
        if not self.single:
            return self.line
        pos = self.raw.find(json.dumps(key).encode())
        return self.raw.count(b"\n", 0, pos) + 1 if pos >= 0 else self.line

    def fail(self, key: str, message: str) -> InputError:
        return InputError(self.name, f"key '{key}': {message}", self.where(key))

    def number(self, key: str, *, count: bool = False) -> float:
        value = self.data.get(key)
        if value is None:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, f"expected a number, got {value!r}")
        if not math.isfinite(value):
            raise self.fail(key, f"expected a finite number, got {value!r} (NaN/Infinity literal)")
        if count and (value < 0 or value != int(value)):
            raise self.fail(key, f"expected a whole number >= 0, got {value!r}")
        if value < 0 and key != "duration":  # never negative; duration has its own > 0 check
            raise self.fail(key, f"expected a number >= 0, got {value!r}")
        return float(value)

    def string(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {value!r}")
        return value

    def request_rate(self) -> float:
        value = self.data.get("request_rate")
        if value is None:
            return math.nan
        if isinstance(value, str):
            if value.strip().lower() in ("inf", "infinity"):
                return math.inf
            raise self.fail("request_rate", f"expected a number or \"inf\", got {value!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise self.fail("request_rate", f"expected a number or \"inf\", got {value!r}")
        if value <= 0:
            raise self.fail("request_rate", f"expected a rate > 0, got {value!r}")
        return float(value)

    def concurrency(self) -> float:
        value = self.data.get("max_concurrency")
        if value is None:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and value >= 1 and value == int(value)
        ):
            raise self.fail("max_concurrency",
                            f"expected a whole number >= 1 or null, got {value!r}")
        return float(value)

    def numeric_array(self, key: str) -> np.ndarray:
        value = self.data[key]
        if not isinstance(value, list | np.ndarray):  # a reader's column comes as an array
            raise self.fail(key, f"expected a list of numbers, got {type(value).__name__}")
        try:
            arr = np.asarray(value) if len(value) else np.empty(0, dtype=np.float64)
        except (ValueError, TypeError, OverflowError):  # ragged, e.g. [[], 1024]
            raise self.fail(key, "expected a flat list of numbers") from None
        # dtype inference instead of dtype=float: numpy would silently parse "1.5" or None
        if arr.ndim != 1 or arr.dtype.kind not in "iuf":
            raise self.fail(key, "expected a list of numbers (seconds / token counts)")
        arr = arr.astype(np.float64, copy=False)
        # a client reader's NaN in a time array: that request's value is unknown
        known = arr[~np.isnan(arr)] if self.unknown and key in UNKNOWN_OK else arr
        if not np.isfinite(known).all():
            raise self.fail(key, "contains NaN/Infinity; expected finite numbers")
        if key != "start_times" and known.size and known.min() < 0:
            i = int(np.nanargmin(arr))
            shown_value = value[i] if isinstance(value, list) else float(arr[i])
            raise self.fail(key, f"request {i}: expected a value >= 0, got {shown_value!r}")
        return arr

    def itls(self) -> tuple[np.ndarray, np.ndarray]:
        """(lengths per request, all samples concatenated) in seconds."""
        value = self.data["itls"]
        if isinstance(value, Ragged):  # a reader's columns: the same checks, on the array
            return self._ragged(value)
        if not isinstance(value, list):
            raise self.fail("itls", f"expected a list of lists, got {type(value).__name__}")
        fast = _flat_gaps(value)
        if fast is not None:
            lengths, flat = fast
            if not np.isfinite(flat).all():
                raise self.fail("itls", "contains NaN/Infinity; expected finite numbers")
            if flat.size and flat.min() < 0:
                raise self.fail("itls", f"expected gaps >= 0 s, got {float(flat.min())!r}")
            return lengths, flat
        parts = []
        for i, item in enumerate(value):
            if not isinstance(item, list):
                raise self.fail("itls", f"request {i}: expected a list of numbers, got {item!r:.40}"
                                )
            try:
                parts.append(np.asarray(item) if item else np.empty(0, dtype=np.float64))
            except (ValueError, TypeError, OverflowError):  # ragged, e.g. [0.1, [0.2]]
                raise self.fail("itls", f"request {i}: expected a flat list of numbers "
                                        "(seconds)") from None
        lengths = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
        for i, p in enumerate(parts):
            if p.ndim != 1 or p.dtype.kind not in "iuf":
                raise self.fail("itls", f"request {i}: expected a list of numbers (seconds)")
        flat = np.concatenate(parts).astype(np.float64, copy=False) if parts else np.empty(0)
        if not np.isfinite(flat).all():
            raise self.fail("itls", "contains NaN/Infinity; expected finite numbers")
        if flat.size and flat.min() < 0:
            raise self.fail("itls", f"expected gaps >= 0 s, got {float(flat.min())!r}")
        return lengths, flat

    def _ragged(self, value: Ragged) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(value.values, dtype=np.float64)
        if not np.isfinite(flat).all():
            raise self.fail("itls", "contains NaN/Infinity; expected finite numbers")
        if flat.size and flat.min() < 0:
            raise self.fail("itls", f"expected gaps >= 0 s, got {float(flat.min())!r}")
        return np.asarray(value.lengths, dtype=np.int64), flat

    def strings(self, key: str) -> list[str]:
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "expected a list of strings")
        return value


def _flat_gaps(value: list[Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """Every request's gaps as one array in one call, when that is what converting request by
    request gives (a float array; no 0, 1 or |x| ≥ 2⁶³, which a request of bools or of huge
    integers alone would have refused); else None, and each request is converted and
    checked on its own."""
    if not all(isinstance(item, list) for item in value):
        return None
    try:
        flat = np.asarray(list(itertools.chain.from_iterable(value)))
    except (ValueError, TypeError, OverflowError):  # a nested list: ragged
        return None
    if flat.ndim != 1 or flat.dtype != np.float64:
        return None
    with np.errstate(invalid="ignore"):
        if ((flat == 0) | (flat == 1) | (np.abs(flat) >= 2.0**63)).any():
            return None
    return np.fromiter(map(len, value), dtype=np.int64, count=len(value)), flat


# ---------------------------------------------------------------- frames



def _summary_row(rec: _Record, name: str, index: int) -> dict[str, Any]:
    data = rec.data
    for key in REQUIRED:
        if key not in data:
            raise InputError(
                name, f"missing key '{key}' (is this a vllm bench serve --save-result file?)",
                rec.line,
            )
    row: dict[str, Any] = {"source": name, "record": index}
    for key, column in STRINGS.items():
        row[column] = rec.string(key)
    row["concurrency"] = rec.concurrency()
    # 2024 clients had no --max-concurrency at all: absent differs from an explicit null
    row["has_max_concurrency_key"] = "max_concurrency" in data
    row["request_rate"] = rec.request_rate()
    for key, column in NUMBERS.items():
        value = data.get(key)
        if type(value) is float and 0 <= value < math.inf and key not in COUNTS:
            row[column] = value  # what rec.number gives it, without its checks
        elif key in data or column not in row:
            row[column] = rec.number(key, count=key in COUNTS)
    if data.get("duration") is None:
        raise rec.fail("duration", "expected a number of seconds, got null")
    if data.get("completed") is None:
        raise rec.fail("completed", "expected a number of requests, got null")
    if row["duration_s"] <= 0:
        raise rec.fail("duration", f"expected a duration > 0 s, got {data['duration']!r}")
    if row["completed"] > row["num_prompts"]:  # NaN compares False
        raise rec.fail(
            "completed",
            f"{data['completed']} completed requests exceed num_prompts = {data['num_prompts']}",
        )
    if "failed" not in data:  # old benchmark_serving.py did not write it
        row["failed"] = row["num_prompts"] - row["completed"]
    for key, column in SETTINGS.items():
        value = data.get(key)
        if column == "dataset":
            row[column] = value if isinstance(value, str) and value else None
        elif isinstance(value, str) and DECIMAL_TEXT.fullmatch(value.strip()):
            row[column] = float(value)  # a `--metadata input_len=1000` pair is a string
        elif isinstance(value, int | float) and not isinstance(value, bool) \
                and math.isfinite(value) and value >= 0:
            row[column] = float(value)
    metadata: dict[str, str] = {}  # `--metadata KEY=VALUE` pairs: the other string values
    for key, value in data.items():
        parsed = _metric_column(key) if isinstance(key, str) else None
        if parsed:
            column, canonical = parsed
            if canonical is not None and canonical in data:
                continue  # the file has the canonical key too: it wins
            # a finite float >= 0 as it is (NaN fails the comparison); anything else is
            # checked, so a string such as "NaN" is an error, never silently dropped
            row[column] = value if type(value) is float and 0 <= value < math.inf \
                else rec.number(key)
        elif isinstance(value, str) and key not in KNOWN:
            metadata[key] = value
    row["metadata"] = metadata
    row["server"] = _server_info(data.get("server_info"))
    client = rec.string("client")  # a number or a list here is an error, not "vllm"
    row["client"] = client if client else (
        "sglang" if any(k in data for k in SGLANG_ONLY) else "vllm")
    row["has_detail"] = any(k in data for k in DETAIL_MARKERS)
    return row


@functools.lru_cache(maxsize=4096)  # a round's files repeat a few dozen keys thousands of times
def _metric_column(key: str) -> tuple[str, str | None] | None:
    """(column, the canonical key that wins over it) for a ``<stat>_<metric>_ms`` key (the
    canonical key is None when ``key`` is canonical), None for any other key."""
    m = METRIC_KEY.match(key)
    if m is None:
        return None
    stat = m.group(1).replace(".", "_")
    metric = METRIC_ALIASES.get(m.group(2), m.group(2))
    return f"{metric}_{stat}_ms", (f"{stat}_{metric}_ms" if metric != m.group(2) else None)


# keys only SGLang's bench_serving writes: its length settings mean something else
SGLANG_ONLY = ("mean_e2e_latency_ms", "median_e2e_latency_ms", "total_output_tokens_retokenized",
               "accept_length", "server_info")
SERVER_INFO = {"model_path": "model", "tp_size": "tensor_parallel",
               "pp_size": "pipeline_parallel", "dp_size": "data_parallel", "version": "version"}


def _server_info(info: Any) -> dict[str, str] | None:
    """The few launch settings in SGLang's ``server_info`` (its /get_server_info answer)."""
    if isinstance(info, dict) and isinstance(info.get("decode"), list) and info["decode"]:
        info = info["decode"][0]  # PD disaggregation nests the decode servers' answers
    if not isinstance(info, dict):
        return None
    out = {name: str(info[key]) for key, name in SERVER_INFO.items()
           if isinstance(info.get(key), str | int) and not isinstance(info.get(key), bool)}
    return out or None


METRIC_COLUMN = re.compile(r"^(.*)_(mean|median|std|p\d+(?:_\d+)?)_ms$")


def _metric_sort_key(column: str) -> tuple[Any, ...]:
    """ttft, tpot, itl, e2el first, then other metrics by name; mean, median, std, then
    percentiles in numeric order."""
    m = METRIC_COLUMN.match(column)
    if m is None:  # not <metric>_<stat>_ms (no reader makes one): after every metric, by name
        return (len(METRIC_ORDER) + 1, column, 0, 0.0)
    metric, stat = m.groups()
    m_rank = METRIC_ORDER.index(metric) if metric in METRIC_ORDER else len(METRIC_ORDER)
    if stat in STAT_ORDER:
        return (m_rank, metric, STAT_ORDER.index(stat), 0.0)
    return (m_rank, metric, len(STAT_ORDER), float(stat[1:].replace("_", ".")))


def _summary_columns(rows: list[dict[str, Any]]) -> list[str]:
    keys: set[str] = set().union(*rows)  # each row's keys at C speed: rows share most
    metric_cols = sorted((c for c in keys if c.endswith("_ms") and c not in SUMMARY_BASE),
                         key=_metric_sort_key)
    return [*SUMMARY_BASE, *metric_cols, "metadata", "server", "client", "has_detail"]


def joined_summary_frame(files: list[list[dict[str, Any]]]) -> pd.DataFrame:
    """One summary frame for several files' rows, built at once (a frame per file costs more
    than reading the file). Its columns come in the order concatenating one frame per file
    would give: the first file's, then each new one as it appears (pages depend on it)."""
    columns = list(dict.fromkeys(c for rows in files for c in _summary_columns(rows)))
    return _summary_frame([r for rows in files for r in rows], columns)


def _summary_frame(rows: list[dict[str, Any]], columns: list[str] | None = None) -> pd.DataFrame:
    if columns is None:
        columns = _summary_columns(rows)
    text = {"source", "date", "backend", "model_id", "label", "metadata", "dataset", "server",
            "client"}
    # the rows' values by column at C speed (a key a row lacks is NaN), then each column's type
    base = pd.DataFrame.from_records(rows, columns=columns) if rows else None
    data: dict[str, Any] = {}
    for column in columns:
        values = base[column].to_numpy() if base is not None else np.empty(0, dtype=object)
        if column in text:
            data[column] = pd.Series(values, dtype=object)
        elif column == "record":
            data[column] = np.asarray(values, dtype=np.int64)
        elif column in ("has_detail", "has_max_concurrency_key"):
            data[column] = np.asarray(values, dtype=bool)
        else:
            data[column] = np.asarray(values, dtype=np.float64)
    return pd.DataFrame(data, columns=columns)


def empty_requests() -> pd.DataFrame:
    return _empty_requests().copy()  # a copy of a built frame: ~30× cheaper than building one


@functools.cache
def _empty_requests() -> pd.DataFrame:
    return pd.DataFrame({
        "source": pd.Series(dtype=object), "record": pd.Series(dtype=np.int64),
        "request": pd.Series(dtype=np.int64),
        **{c: pd.Series(dtype=np.float64) for c in REQUEST_COLUMNS[3:11]},
        "success": pd.Series(dtype="boolean"), "error": pd.Series(dtype=object),
    })


@dataclass
class RequestColumns:
    """One record's per-request table as columns: the records of a round become one frame at
    once (``concat_requests``), as a pandas frame per record costs more than a small file."""

    source: str
    record: int
    floats: dict[str, np.ndarray]   # REQUEST_COLUMNS[3:11], float64, one value a request
    errors: list[str] | None        # '' for a success; None: the file has no errors array

    @property
    def size(self) -> int:
        return len(self.floats["itl_count"])


def _detail_frames(
    rec: _Record, name: str, index: int, findings: list[Finding],
) -> tuple[RequestColumns | None, RecordGaps | None]:
    present = [k for k in ARRAYS if k in rec.data and rec.data[k] is not None]
    if not present:
        return None, None
    columns: dict[str, Any] = {}
    lengths: dict[str, int] = {}
    for key, column in NUMERIC_ARRAYS.items():
        if key in present:
            columns[column] = rec.numeric_array(key)
            lengths[key] = columns[column].size
    itl_lengths = flat = None
    if "itls" in present:
        itl_lengths, flat = rec.itls()
        lengths["itls"] = itl_lengths.size
    errors = rec.strings("errors") if "errors" in present else None
    if errors is not None:
        lengths["errors"] = len(errors)
    if "generated_texts" in present:
        value = rec.data["generated_texts"]
        if not isinstance(value, list):
            raise rec.fail("generated_texts", "expected a list of strings")
        lengths["generated_texts"] = len(value)
    sizes = set(lengths.values())
    if len(sizes) > 1:
        shown = ", ".join(f"{k}={n}" for k, n in lengths.items())
        common = max(sizes, key=list(lengths.values()).count)
        odd = next(k for k, n in lengths.items() if n != common)
        raise rec.fail(odd, f"per-request arrays differ in length: {lengths[odd]} entries here, "
                            f"{common} in the others ({shown})")
    n = sizes.pop()
    num_prompts = rec.data.get("num_prompts")
    if isinstance(num_prompts, int) and n != num_prompts:
        findings.append(Finding(
            name, f"record {index}: per-request arrays hold {n} requests, num_prompts = "
            f"{num_prompts}", rec.line,
        ))
    completed = rec.data.get("completed")
    if errors is not None and isinstance(completed, int) and errors.count("") != completed:
        findings.append(Finding(
            name, f"record {index}: completed = {completed}, but the errors array marks "
            f"{errors.count('')} requests as successful", rec.line,
        ))

    nan = np.full(n, np.nan)
    floats = {col: np.asarray(columns.get(col, nan), dtype=np.float64)
              for col in REQUEST_COLUMNS[3:9]}
    floats["itl_count"] = itl_lengths.astype(np.float64) if itl_lengths is not None else nan
    floats["itl_sum_s"] = nan
    requests = RequestColumns(name, index, floats, errors)
    itls = None
    if itl_lengths is not None and flat is not None:
        # the request of each gap lives only while this record is read (bincount sums in
        # order, as the page's figures always were)
        request_idx = np.repeat(np.arange(n, dtype=np.int32), itl_lengths)
        floats["itl_sum_s"] = np.asarray(  # weighted: already float64, no copy
            np.bincount(request_idx, weights=flat, minlength=n), dtype=np.float64)
        itls = RecordGaps(name, index, itl_lengths, flat)
    return requests, itls


def load_bench_file(path: Path, *, name: str | None = None) -> BenchFile:
    """Read one result file. ``name`` is how the file is shown in errors and in the ``source``
    column (default: the path as given)."""
    shown = str(path) if name is None else name
    raw = read_input(path, shown, KIND)
    return bench_from_records(decode_records(raw, shown), shown, raw)


def load_bench_rows(path: Path, name: str) -> BenchRows:
    """Read one result file into rows, for callers that join many files' summaries into one
    frame (``joined_summary_frame``); ``name`` as in ``load_bench_file``."""
    raw = read_input(path, name, KIND)
    return bench_rows(decode_records(raw, name), name, raw)


def decode_records(raw: bytes, name: str) -> list[tuple[Any, int]]:
    """The top-level JSON values of a result file (one object, JSON Lines, or a list of
    objects such as a sweep's summary), each with its 1-based line."""
    records = _records(raw, name)
    if len(records) == 1 and isinstance(records[0][0], list) and records[0][0] \
            and all(isinstance(x, dict) for x in records[0][0]):
        return [(x, records[0][1]) for x in records[0][0]]
    return records


@dataclass
class BenchRows:
    """One file's records before they become frames: many files' rows are joined into one
    summary frame at once (a frame per file would cost more than reading the file)."""

    rows: list[dict[str, Any]]
    requests: list[RequestColumns]
    itls: list[RecordGaps]
    findings: list[Finding]


def bench_rows(records: list[tuple[Any, int]], shown: str, raw: bytes = b"",
               single: bool | None = None, unknown: bool = False) -> BenchRows:
    """Summary rows (and per-request frames) from already decoded result records (a JSON
    file, or a console log parsed into the same keys). ``raw`` lets errors point at a key's
    line in a pretty-printed object. ``unknown``: the records come from another client's
    reader, which writes NaN for a per-request value its file lacks (missing, negative, not
    finite): unknown, never 0 (a vLLM file's NaN is still refused)."""
    if single is None:
        single = len(records) == 1 and bool(raw)
    out = BenchRows([], [], [], [])
    for index, (data, line) in enumerate(records):
        if not isinstance(data, dict):
            kind = "a JSON array (a *.pytorch.json side file?)" if isinstance(data, list) \
                else "null" if data is None else "true/false" if isinstance(data, bool) \
                else "a string" if isinstance(data, str) else "a number"
            raise InputError(shown, f"top level is {kind}; expected a JSON object", line)
        rec = _Record(data, shown, raw, line, single)
        rec.unknown = unknown
        row = _summary_row(rec, shown, index)
        row["line"] = line
        failed = data.get("failed")
        if (isinstance(failed, int) and isinstance(data.get("num_prompts"), int)
                and failed + data["completed"] != data["num_prompts"]):
            out.findings.append(Finding(
                shown, f"record {index}: completed {data['completed']} + failed {failed} "
                f"!= num_prompts {data['num_prompts']}", line,
            ))
        out.rows.append(row)
        req, itl = _detail_frames(rec, shown, index, out.findings)
        if req is not None:
            out.requests.append(req)
        if itl is not None:
            out.itls.append(itl)
    return out


def summary_frame(rows: list[dict[str, Any]], extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """The summary frame of any number of files' rows; ``extra`` columns (set by the caller
    on each row) follow the standard ones."""
    frame = _summary_frame(rows)
    for column in extra:
        frame[column] = [r.get(column) for r in rows]
    return frame


def bench_from_records(records: list[tuple[Any, int]], shown: str, raw: bytes = b"",
                       single: bool | None = None) -> BenchFile:
    """Frames of one file (see bench_rows)."""
    got = bench_rows(records, shown, raw, single)
    return BenchFile(
        path=shown,
        summary=_summary_frame(got.rows),
        requests=concat_requests(got.requests),
        itls=Gaps(got.itls),
        findings=got.findings,
    )


def concat_requests(parts: list[RequestColumns]) -> pd.DataFrame:
    """The per-request frame of any number of records (of one file or of a round)."""
    if not parts:
        return empty_requests()
    sizes = [p.size for p in parts]
    total = sum(sizes)
    if total == 0:
        return empty_requests()
    success = np.zeros(total, dtype=bool)
    unknown = np.zeros(total, dtype=bool)  # no errors array: success is NA
    error: list[str | None] = []
    at = 0
    for p, n in zip(parts, sizes, strict=True):
        if p.errors is None:
            unknown[at:at + n] = True
            error += [None] * n
        else:
            success[at:at + n] = [e == "" for e in p.errors]
            error += p.errors
        at += n
    return pd.DataFrame({
        "source": [s for p, n in zip(parts, sizes, strict=True) for s in [p.source] * n],
        "record": np.repeat(np.array([p.record for p in parts], dtype=np.int64), sizes),
        "request": np.concatenate([np.arange(n, dtype=np.int64) for n in sizes]),
        **{col: np.concatenate([p.floats[col] for p in parts]) for col in REQUEST_COLUMNS[3:11]},
        "success": pd.arrays.BooleanArray(success, unknown),
        "error": pd.Series(error, dtype=object),
    })
