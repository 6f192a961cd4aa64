"""Benchmark client *console output* → records shaped like a ``--save-result`` JSON.

Some users only kept the terminal output of ``vllm bench serve`` (``vllm/benchmarks/serve.py``),
the older ``benchmarks/benchmark_serving.py`` or SGLang's ``python -m sglang.bench_serving``.
All three print a ``====== Serving Benchmark Result ======`` table with ``"{:<40} {:<10}"``
rows; vLLM prints the argparse ``Namespace(...)`` first, SGLang ``benchmark_args=Namespace(...)``
(and, in newer versions, the plain ``Namespace(...)`` again once the model is known).
Each table becomes one record keyed like vLLM's result JSON, so ``bench_json`` can load it as a
JSON Lines record. Formats were written from these sources (docs: notes/raw-formats.md 1.9, 2):

* vLLM ``vllm/benchmarks/serve.py`` @ def9ce85 (late 2025) and @ 009e6d4a (2026): ``Failed
  requests``, ``Maximum request concurrency`` (only when set), ``Request rate configured (RPS)``
  (finite rate only), ``Peak ...`` rows, probe / speculative-decoding / diffusion sections;
  before the table, unpadded ``Traffic request rate: inf``, ``Burstiness factor: 1.0 (...)`` and
  ``Maximum request concurrency: None`` lines.
* vLLM ``benchmarks/benchmark_serving.py`` @ 0049e29c and @ 8668d7c0: no failed/peak rows,
  ``Total Token throughput (tok/s):`` with a capital T.
* SGLang ``python/sglang/bench_serving.py`` @ 0033168f (mid-2025), @ 50a61368 (2024) and the
  newer split ``python/sglang/benchmark/metrics.py`` @ 6e48df33: ``Backend:``, ``Traffic request
  rate:`` (``inf`` / ``4.0`` / ``trace``), ``Max request concurrency:`` (``not set``),
  ``... E2E Latency (ms):`` (→ ``e2el``), ``P95 ITL``, ``Max ITL``, ``Concurrency:`` (average
  in flight, kept as SGLang's ``concurrency``, *not* ``max_concurrent_requests``).

Only printed values (and Namespace settings) are returned, never a default: a key is absent when
the client did not print it. Numbers are ``int`` when the printed text is integral, else
``float`` (``Peak concurrent requests: 100.00`` → ``100.0``); ``request_rate`` is a float or
``"inf"``. ``std_*`` values are never printed, so they never appear.

Lines are split on ``"\\n"`` only; tqdm redraws its bar with ``"\\r"`` on one physical line that
can be megabytes long, so each line is read as the text after its last ``"\\r"`` (after dropping
a CRLF's ``"\\r"``). Every step is a linear scan: no regular expression runs over a whole line
of unknown length.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from reportgen.errors import InputError

__all__ = ["looks_like_console", "parse_console"]

HEADER_TEXT = "Serving Benchmark Result"
_HEADER_BYTES = HEADER_TEXT.encode()
_HEADER_LOOKBACK = 200  # bytes before the title searched for the "=== " that opens its line

# Table rows whose value is a number, by printed label (without the colon) → result-JSON key.
NUMBER_ROWS: dict[str, str] = {
    "Successful requests": "completed",
    "Failed requests": "failed",
    "Benchmark duration (s)": "duration",
    "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens",
    "Request throughput (req/s)": "request_throughput",
    "Request goodput (req/s)": "request_goodput",
    "Output token throughput (tok/s)": "output_throughput",
    "Peak output token throughput (tok/s)": "max_output_tokens_per_s",
    "Peak concurrent requests": "max_concurrent_requests",
    "Total token throughput (tok/s)": "total_token_throughput",
    "Total Token throughput (tok/s)": "total_token_throughput",  # benchmark_serving.py
    "Total throughput (tok/s)": "total_token_throughput",  # SGLang 2024-25: same formula
    "RTFx (Inverse Real-Time Factor)": "rtfx",
    "Input throughput (inputs/s)": "input_sequence_throughput",  # vLLM pooling runs
    # vLLM --probe-request-rate
    "Probe requests completed": "probe_completed",
    "Probe requests failed": "probe_failed",
    # vLLM speculative decoding section (server Prometheus deltas)
    "Acceptance rate (%)": "spec_decode_acceptance_rate",
    "Acceptance length": "spec_decode_acceptance_length",
    "Drafts": "spec_decode_num_drafts",
    "Draft tokens": "spec_decode_draft_tokens",
    "Accepted tokens": "spec_decode_accepted_tokens",
    # vLLM diffusion decoding section
    "Committed throughput (tok/s)": "diffusion_committed_throughput",
    "Denoising steps per canvas": "diffusion_steps_per_canvas",
    "Committed per denoising step": "diffusion_committed_per_step",
    "Committed tokens": "diffusion_committed_tokens",
    "Denoising steps": "diffusion_denoising_steps",
    "Canvas positions evaluated": "diffusion_canvas_positions",
    # SGLang-only rows, under the names SGLang's own JSONL uses
    "Total generated tokens (retokenized)": "total_output_tokens_retokenized",
    "Total input text tokens": "total_input_text_tokens",
    "Total input vision tokens": "total_input_vision_tokens",
    "Input token throughput (tok/s)": "input_throughput",
    "Concurrency": "concurrency",
    "Accept length": "accept_length",
}
RATE_ROW = "Traffic request rate"  # SGLang in the table; vLLM above it, unpadded
CONFIGURED_RATE_ROW = "Request rate configured (RPS)"  # vLLM, rounded to 2 decimals
CONCURRENCY_ROWS = ("Maximum request concurrency", "Max request concurrency")
BACKEND_ROW = "Backend"
SGLANG_ROWS = frozenset({
    BACKEND_ROW, RATE_ROW, "Max request concurrency", "Total generated tokens (retokenized)",
    "Input token throughput (tok/s)", "Concurrency",
})
# Printed words that mean "no value" where a number is otherwise expected.
NO_CONCURRENCY = frozenset({"None", "not set"})
NO_RATE = frozenset({"trace", "N/A"})  # SGLang trace replay: no configured rate

# "Mean TTFT (ms)", "P99.9 ITL (ms)", "Median E2E Latency (ms)", "Max ITL (ms)": a short label,
# already cut at its colon, so this never runs over a long line.
METRIC_ROW = re.compile(r"^(Mean|Median|Max|P(\d+(?:\.\d+)?)) (.+) \(ms\)$")
METRIC_NAMES = {
    "TTFT": "ttft",
    "TPOT": "tpot",
    "ITL": "itl",
    "E2EL": "e2el",
    "E2E Latency": "e2el",  # SGLang
    "Client Queue Time": "client_queue_time",
    "E2EL incl. Client Queue": "e2el_including_client_queue",
}
PROBE_METRIC = "probe E2EL"  # vLLM: "Median probe E2EL (ms)" → probe_median_e2el_ms
NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|nan)$")
INTEGER = re.compile(r"^[+-]?\d{1,20}$")  # longer: a float (inf past 308 digits, then refused)

# Namespace attributes carried into the record: argparse name → record key.
NAMESPACE_KEYS = {
    "backend": "backend",
    "label": "label",
    "model": "model_id",
    "num_prompts": "num_prompts",
    "burstiness": "burstiness",
    "ramp_up_strategy": "ramp_up_strategy",
    "ramp_up_start_rps": "ramp_up_start_rps",
    "ramp_up_end_rps": "ramp_up_end_rps",
    "dataset_name": "dataset_name",
    "random_input_len": "random_input_len",
    "random_output_len": "random_output_len",
    "random_range_ratio": "random_range_ratio",
    "sharegpt_output_len": "sharegpt_output_len",
    # vLLM ≥ late 2025: --input-len/--output-len override the dataset-specific lengths *after*
    # the Namespace is printed, so when set they, not random_*_len, are what the run used.
    "input_len": "input_len",
    "output_len": "output_len",
    "tokenizer": "tokenizer",
    "seed": "seed",
    # vLLM prints the Namespace before forcing ignore_eos=True for random datasets on
    # OpenAI-compatible backends (serve.py@009e6d4a), so False here may not be what was sent.
    "ignore_eos": "ignore_eos",
}


class _Unparsed:
    """A Namespace value that is not a Python literal (``<function ... at 0x...>``)."""


UNPARSED = _Unparsed()


def looks_like_console(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) holds a ``=== Serving Benchmark Result ===``
    header line, so a directory scan can route the file here rather than call it unknown.

    The title must be preceded on its line by ``=`` characters, so a JSON file or README that
    merely mentions the phrase is not taken for console output."""
    start = 0
    while True:
        i = head.find(_HEADER_BYTES, start)
        if i < 0:
            return False
        start = i + 1
        lo = max(0, i - _HEADER_LOOKBACK)
        j = max(head.rfind(b"\n", lo, i), head.rfind(b"\r", lo, i))
        if j < 0 and lo > 0:
            continue  # no line start within reach: not a short "===== " prefix
        if _is_rule_prefix(head[j + 1:i].decode("ascii", errors="replace")):
            return True


def parse_console(raw: bytes, name: str) -> list[tuple[dict[str, object], int]]:
    """One ``(record, line)`` per result table in the file, in file order; ``line`` is the
    1-based line of the table's ``=== Serving Benchmark Result ===`` header.

    The most recent ``Namespace(...)`` line before a table supplies its settings (SGLang's
    ``--multi`` prints one Namespace for several tables); printed values win over it, except
    ``Request rate configured (RPS)``, which is rounded to 2 decimals. Raises ``InputError``
    when a table lacks ``Successful requests`` / ``Benchmark duration`` or prints a value that
    is not a number where one is expected; a file without any table gives ``[]``."""
    text = raw.decode("utf-8", errors="replace")
    out: list[tuple[dict[str, object], int]] = []
    namespace: dict[str, object] = {}
    run: dict[str, object] = {}  # lines printed between the previous table and this one
    block: _Block | None = None
    for number, physical in enumerate(text.split("\n"), start=1):
        line = _visible(physical)
        if block is not None:
            if _is_header(line):  # a new table before this one's closing rule
                out.append(block.finish(name, namespace, run))
                run = {}
                block = _Block(number)
            elif _is_closing_rule(line):
                out.append(block.finish(name, namespace, run))
                run, block = {}, None
            else:
                block.add(line, number, name)
            continue
        if _is_header(line):
            block = _Block(number)
        elif (args := _namespace_line(line)) is not None:
            namespace, run = args, {}
        else:
            _run_line(line, run)
    if block is not None:  # file ends inside a table (no closing rule): keep what was printed
        out.append(block.finish(name, namespace, run))
    return out


# ---------------------------------------------------------------- lines


def _visible(physical: str) -> str:
    """What a terminal shows for one physical line: the text after its last carriage return
    (tqdm redraws), with a CRLF line end's ``\\r`` removed first; surrounding blanks stripped."""
    s = physical.rstrip("\r")
    cr = s.rfind("\r")
    return (s[cr + 1:] if cr >= 0 else s).strip()


def _is_rule_prefix(prefix: str) -> bool:
    """``prefix`` is what precedes the title on a header line: ``=`` characters and a space."""
    rule = prefix.strip(" ")
    return bool(rule) and rule.count("=") == len(rule) and prefix.endswith(" ")


def _is_header(line: str) -> bool:
    i = line.find(HEADER_TEXT)
    return i > 0 and _is_rule_prefix(line[:i])


def _is_closing_rule(line: str) -> bool:
    """``print("=" * 50)`` ends a table (both clients)."""
    return len(line) >= 20 and line.count("=") == len(line)


def _row(line: str) -> tuple[str, str] | None:
    """``("Benchmark duration (s)", "2.38")`` for a ``label: value`` line, else None."""
    label, colon, value = line.partition(":")
    if not colon:
        return None
    return label.strip(), value.strip()


# ---------------------------------------------------------------- values


def _number(text: str) -> int | float | None:
    """The printed number as int when integral in the text, else float; None if not a number.
    Short tokens only (callers pass one printed value)."""
    if not NUMBER.match(text):
        return None
    return int(text) if INTEGER.match(text) else float(text)


def _rate(value: object) -> float | str | None:
    """A request rate as the result JSON writes it: a float, or ``"inf"``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return "inf" if value == float("inf") else float(value)


def _run_line(line: str, run: dict[str, object]) -> None:
    """Lines vLLM prints before the table (``benchmark()`` and ``main_async``): they describe
    the run about to be measured. Unreadable values are skipped: these are not the table."""
    if line.startswith("First model name: "):  # --model omitted: vLLM asked the server
        _, sep, model_id = line.partition(", first model id: ")
        if sep and model_id:
            run["model_id"] = model_id
        return
    row = _row(line)
    if row is None:
        return
    label, value = row
    if label == RATE_ROW:
        rate = _rate(_number(value))
        if rate is not None:
            run["request_rate"] = rate
    elif label == "Burstiness factor":  # "1.0 (Poisson process)"
        burst = _number(value.split(" ", 1)[0])
        if burst is not None:
            run["burstiness"] = float(burst)
    elif label in CONCURRENCY_ROWS:
        if value in NO_CONCURRENCY:
            run["max_concurrency"] = None
        elif isinstance(cap := _number(value), int):
            run["max_concurrency"] = cap


@dataclass
class _Block:
    """One result table being read; ``finish`` turns it into a record."""

    header_line: int
    values: dict[str, object] = field(default_factory=dict)
    configured_rate: float | str | None = None   # "inf" as the JSON writes it
    sglang: bool = False

    def add(self, line: str, number: int, name: str) -> None:
        row = _row(line)
        if row is None:
            return  # section rules ("----Time to First Token----"), blank lines
        label, value = row
        if label in SGLANG_ROWS:
            self.sglang = True
        if label == BACKEND_ROW:
            if value:
                self.values["backend"] = value
        elif label == RATE_ROW:
            if value not in NO_RATE:
                self.values["request_rate"] = _rate(self._number(label, value, number, name))
        elif label == CONFIGURED_RATE_ROW:
            self.configured_rate = _rate(self._number(label, value, number, name))
        elif label in CONCURRENCY_ROWS:
            if value in NO_CONCURRENCY:
                self.values["max_concurrency"] = None
            else:
                cap = self._number(label, value, number, name)
                if not isinstance(cap, int):
                    raise InputError(name, f"'{label}:' expected a whole number or None, got "
                                           f"{value!r}", number)
                self.values["max_concurrency"] = cap
        elif label in NUMBER_ROWS:
            self.values[NUMBER_ROWS[label]] = self._number(label, value, number, name)
        elif (key := _metric_key(label)) is not None:
            self.values[key] = self._number(label, value, number, name)
        # other rows (a newer client's additions, "Position 0:") are not guessed at

    @staticmethod
    def _number(label: str, value: str, number: int, name: str) -> int | float:
        parsed = _number(value)
        if parsed is None:
            raise InputError(name, f"'{label}:' expected a number, got {value[:60]!r}", number)
        return parsed

    def finish(
        self, name: str, namespace: dict[str, object], run: dict[str, object],
    ) -> tuple[dict[str, object], int]:
        for key, label in (("completed", "Successful requests"),
                           ("duration", "Benchmark duration (s)")):
            if key not in self.values:
                raise InputError(
                    name, f"'{HEADER_TEXT}' table without a '{label}:' line (expected the "
                          "table vllm bench serve / sglang.bench_serving print)",
                    self.header_line,
                )
        record: dict[str, object] = {"client": "sglang" if self.sglang else "vllm"}
        record.update(namespace)
        record.update(run)
        if self.configured_rate is not None and "request_rate" not in record:
            record["request_rate"] = self.configured_rate
        record.update(self.values)
        return record, self.header_line


def _metric_key(label: str) -> str | None:
    """Result-JSON key of a latency row: ``P99.9 TTFT (ms)`` → ``p99.9_ttft_ms``,
    ``Mean E2E Latency (ms)`` → ``mean_e2el_ms``, ``Max ITL (ms)`` → ``max_itl_ms``."""
    m = METRIC_ROW.match(label)
    if m is None:
        return None
    stat = f"p{m.group(2)}" if m.group(2) else m.group(1).lower()
    if m.group(3) == PROBE_METRIC:
        return f"probe_{stat}_e2el_ms"
    metric = METRIC_NAMES.get(m.group(3))
    return None if metric is None else f"{stat}_{metric}_ms"


# ---------------------------------------------------------------- Namespace(...)


def _namespace_line(line: str) -> dict[str, object] | None:
    """Settings from ``Namespace(...)`` / ``benchmark_args=Namespace(...)``, or None when the
    line is not one. A cut-off line (no closing parenthesis) gives ``{}``: settings are
    optional, so an unreadable Namespace counts as absent rather than as an error."""
    i = line.find("Namespace(")
    if i < 0:
        return None
    prefix = line[:i]
    if prefix and not (prefix.endswith("=") and prefix[:-1].isidentifier()):
        return None
    pairs = parse_namespace(line[i:])
    if pairs is None:
        return {}
    record: dict[str, object] = {}
    for arg, key in NAMESPACE_KEYS.items():
        value = pairs.get(arg)
        # None means "not set": the client used its own default, which is not guessed here;
        # UNPARSED and containers are not a setting this record carries either
        if isinstance(value, str | int | float):
            record[key] = float(value) if key == "burstiness" and not isinstance(
                value, bool) else value
    if "max_concurrency" in pairs:  # None is meaningful here: no cap (the JSON writes null)
        cap = pairs["max_concurrency"]
        if cap is None or (isinstance(cap, int) and not isinstance(cap, bool)):
            record["max_concurrency"] = cap
    rate = _rate(pairs.get("request_rate"))
    if rate is not None:
        record["request_rate"] = rate
    return record


def parse_namespace(text: str) -> dict[str, object] | None:
    """``Namespace(a=1, b='x, y', c={(1, 2): 0.5}, f=<function g at 0x1>)`` → dict, without
    evaluating code: the body is split on top-level commas (quotes, brackets and ``<...>``
    reprs respected) and each value goes through ``ast.literal_eval``; ``inf``/``nan`` become
    floats, anything else that is not a literal maps to ``UNPARSED``. None when ``text`` does
    not start with ``Namespace(`` or its parenthesis never closes."""
    if not text.startswith("Namespace("):
        return None
    body_start = len("Namespace(")
    pieces: list[str] = []
    depth = 0
    quote = ""
    start = body_start
    i = body_start
    n = len(text)
    end = -1
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            if depth == 0:
                if c == ")":
                    end = i
                    break
            else:
                depth -= 1
        elif c == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
        i += 1
    if end < 0:
        return None
    pieces.append(text[start:end])
    pairs: dict[str, object] = {}
    for piece in pieces:
        key, eq, value = piece.partition("=")
        key = key.strip()
        if eq and key.isidentifier():
            pairs[key] = _literal(value.strip())
    return pairs


def _literal(text: str) -> object:
    if text in ("inf", "-inf", "nan"):  # repr of float("inf"): not a Python literal
        return float(text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return UNPARSED
    if isinstance(value, int) and len(str(abs(value))) > 20:  # no setting has such a number
        return UNPARSED
    return value
