"""Bad-input catalogue (issue 5): what a harness can hand the tool, and what the tool does.

Every case copies the sample round, breaks one thing and runs ``reportgen build ROUND -q -o
out/report.html`` over a previous report. Two outcomes are allowed:

- ``error``: exit 2; stderr is ``Error: <file>[:<line>]: <what was wrong / expected>`` (the
  file as the tool shows it, relative to the round's parent); no traceback anywhere; the previous
  report byte-identical and no temporary file left next to it; ``reportgen check`` fails the
  same way (except for narrative files, which only ``build`` reads).
- ``warn``: an honest report is still possible: exit 0, the problem is listed by ``reportgen
  check`` with its status (``warn``, or ``fail`` for a tier whose figures are meaningless), and
  the same text is shown on the built page (outside its scripts).

The ``reason`` column says why a case gets its outcome.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from reportgen.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
PREVIOUS = b"previous report\n"
SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL | re.IGNORECASE)


def bench_name(engine: str, concurrency: int) -> str:
    (path,) = (SAMPLE / engine / "bench").glob(f"*-concurrency{concurrency}-*.json")
    return path.name


V1, V8 = bench_name("vllm", 1), bench_name("vllm", 8)
L8 = bench_name("llamacpp", 8)


# ------------------------------------------------------------------ mutation helpers

def bench(root: Path, engine: str, concurrency: int) -> Path:
    return root / engine / "bench" / bench_name(engine, concurrency)


def edit_json(path: Path, **changes: object) -> None:
    """Set keys (``...`` deletes one) and write the object back on one line."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is ...:
            del data[key]
        else:
            data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")


def edit_arrays(path: Path, change: Callable[[str, list], list]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in data.items():
        if isinstance(value, list):
            data[key] = change(key, value)
    path.write_text(json.dumps(data), encoding="utf-8")


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def replace_bytes(path: Path, old: bytes, new: bytes) -> None:
    raw = path.read_bytes()
    assert old in raw
    path.write_bytes(raw.replace(old, new, 1))


def drop_narrative(root: Path) -> None:
    """For data-only cases: the sample prose quotes exact tiers (tested separately below)."""
    shutil.rmtree(root / "narrative")


def drop_log_segments(root: Path) -> None:
    replace(root / "round.toml",
            "log_segments = { warmup = 31, tiers = [40, 59, 79, 120, 200, 318, 512] }\n", "")


def truncate(path: Path, keep: float) -> None:
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * keep)])


def llama_log_without_blocks(root: Path) -> None:
    log = root / "llamacpp" / "server.log"
    raw = log.read_bytes()
    first = raw.find(b"print_timing")
    log.write_bytes(raw[: raw.rfind(b"\n", 0, first) + 1])


def cut_mid_block(root: Path) -> None:
    log = root / "llamacpp" / "server.log"
    raw = log.read_bytes()
    log.write_bytes(raw[: raw.rfind(b"total time") - 3])  # the last block loses its total line


def pretty_with_bad_duration(root: Path) -> None:
    path = bench(root, "vllm", 8)
    text = json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=1)
    text = re.sub(r'"duration": [0-9.]+', '"duration": ,', text)
    path.write_text(text, encoding="utf-8")


def jsonl_broken_second_line(root: Path) -> None:
    path = bench(root, "vllm", 8)
    path.write_text(path.read_text(encoding="utf-8").strip() + '\n{"duration": 1.0, "compl\n',
                    encoding="utf-8")


def all_failed(root: Path) -> None:
    edit_json(bench(root, "vllm", 8), completed=0, failed=120, total_output_tokens=0,
              output_throughput=0.0, request_throughput=0.0, total_token_throughput=0.0)


def short_arrays(root: Path) -> None:
    """Every per-request array loses its last request: consistent, but 39 ≠ num_prompts 40."""
    edit_arrays(bench(root, "vllm", 1), lambda _key, value: value[:-1])


def no_common_tier(root: Path) -> None:
    drop_narrative(root)
    for path in (root / "vllm" / "bench").iterdir():
        if path.name != V1:
            path.unlink()
    edit_json(root / "vllm" / "bench" / V1, max_concurrency=3)


def symlink_loop(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to(path.name)


def append_bytes(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def insert_line(path: Path, after: int, data: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    lines.insert(after, data)
    path.write_bytes(b"\n".join(lines))


def narrative(root: Path, name: str, text: str) -> None:
    (root / "narrative" / name).write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ the catalogue

@dataclass(frozen=True)
class Case:
    id: str
    mutate: Callable[[Path], None]
    outcome: str  # "error" | "warn"
    where: str  # error: the file as shown (after "round/"); warn: unused ("")
    line: int | None
    text: str  # a piece of the message that says what was wrong / expected
    reason: str
    status: str = "warn"  # warn cases: the check status that flags it
    check_exit: int = 0  # warn cases: `reportgen check` exits 1 when some check fails


E, W = "error", "warn"
VB8, VB1 = f"vllm/bench/{V8}", f"vllm/bench/{V1}"
TOML = "round.toml"

CASES = [
    # --- bench JSON: syntax
    Case("json-truncated", lambda r: truncate(bench(r, "vllm", 8), 0.6), E, VB8, 1,
         "not valid JSON (Unterminated string starting at column 773); the file looks cut off",
         "a cut-off result has no summary to trust"),
    Case("json-invalid-token",
         lambda r: replace(bench(r, "vllm", 8), '"burstiness": 1.0', '"burstiness": 1.0.0'),
         E, VB8, 1, "not valid JSON (Expecting ',' delimiter at column",
         "the file is not the JSON vllm bench wrote"),
    Case("json-pretty-invalid-line", pretty_with_bad_duration, E, VB8, 12,
         "not valid JSON (Expecting value at column 14)",
         "pretty-printed files must point at the broken line, not line 1"),
    Case("jsonl-broken-line", jsonl_broken_second_line, E, VB8, 2, "not valid JSON",
         "a JSON Lines record that does not parse may be the tier the report needs"),
    Case("json-top-level-list", lambda r: bench(r, "vllm", 8).write_text("[1, 2]\n"), E, VB8, 1,
         "top level is a JSON array", "a list is not a result object"),
    Case("json-top-level-number", lambda r: bench(r, "vllm", 8).write_text("42"), E, VB8, 1,
         "top level is a number; expected a JSON object", "a number is not a result object"),
    Case("json-empty-file", lambda r: bench(r, "vllm", 8).write_bytes(b""), E, VB8, None,
         "empty file", "an interrupted run leaves an empty result: no tier to show"),
    Case("json-not-utf8", lambda r: replace_bytes(bench(r, "vllm", 8), b'"openai"', b'"\xff"'),
         E, VB8, 1, "not UTF-8", "JSON must be UTF-8; guessing an encoding could alter text"),
    # --- bench JSON: summary keys and values
    Case("missing-duration", lambda r: edit_json(bench(r, "vllm", 8), duration=...), E, VB8, 1,
         "missing key 'duration'", "every throughput figure divides by the duration"),
    Case("missing-completed", lambda r: edit_json(bench(r, "vllm", 8), completed=...), E, VB8,
         1, "missing key 'completed'", "no request count: nothing per request can be computed"),
    Case("zero-duration", lambda r: edit_json(bench(r, "vllm", 8), duration=0), E, VB8, 1,
         "expected a duration > 0 s, got 0", "a zero duration makes every rate infinite"),
    Case("negative-duration", lambda r: edit_json(bench(r, "vllm", 8), duration=-74.6), E, VB8,
         1, "expected a duration > 0 s, got -74.6", "a negative duration is impossible"),
    Case("nan-literal", lambda r: edit_json(bench(r, "vllm", 8), median_itl_ms=float("nan")), E,
         VB8, 1, "key 'median_itl_ms': expected a finite number",
         "NaN is not a measurement; the ITL table would show a number that was never measured"),
    Case("infinity-literal",
         lambda r: edit_json(bench(r, "vllm", 8), output_throughput=float("inf")), E, VB8, 1,
         "key 'output_throughput': expected a finite number", "an infinite throughput is a bug"),
    Case("negative-output-tokens",
         lambda r: edit_json(bench(r, "vllm", 8), total_output_tokens=-5), E, VB8, 1,
         "key 'total_output_tokens': expected a whole number >= 0, got -5",
         "a token count cannot be negative"),
    Case("negative-latency-stat", lambda r: edit_json(bench(r, "vllm", 8), median_itl_ms=-3.0),
         E, VB8, 1, "key 'median_itl_ms': expected a number >= 0, got -3.0",
         "a negative latency is impossible; it would be plotted as is"),
    Case("completed-exceeds-prompts",
         lambda r: edit_json(bench(r, "vllm", 8), completed=999), E, VB8, 1,
         "999 completed requests exceed num_prompts = 120", "the counts contradict each other"),
    Case("zero-output-tokens",
         lambda r: edit_json(bench(r, "vllm", 8), total_output_tokens=0, output_throughput=0.0),
         W, "", None, "30,720 (9.01%) short of the 340,992 requested",
         "shown as 0 tok/s, flagged by the token shortfall (and a failed E2EL identity, as "
         "the latencies still imply tokens)", check_exit=1),
    Case("all-requests-failed", all_failed, W, "", None,
         "C=8: no request completed; its statistics are meaningless",
         "the tier stays in the tables, flagged as a failed check; other tiers are unaffected",
         status="fail", check_exit=1),
    Case("completed-plus-failed-mismatch",
         lambda r: edit_json(bench(r, "vllm", 8), failed=5), W, "", None,
         "record 0: completed 120 + failed 5 != num_prompts 120",
         "the summary is usable; only the failure count is doubtful"),
    Case("concurrency-key-missing",
         lambda r: (drop_narrative(r), edit_json(bench(r, "vllm", 8), max_concurrency=...)), W,
         "", None, "record 0 has no max_concurrency",
         "a record without C cannot be placed on the axis; the other tiers still can"),
    # --- bench JSON: per-request arrays
    Case("array-length-differs",
         lambda r: edit_arrays(bench(r, "vllm", 1),
                               lambda k, v: v[:-1] if k == "ttfts" else v), E, VB1, 1,
         "key 'ttfts': per-request arrays differ in length: 39 entries here, 40 in the others",
         "requests cannot be lined up across arrays"),
    Case("array-negative-output-len",
         lambda r: edit_arrays(bench(r, "vllm", 1),
                               lambda k, v: [-5, *v[1:]] if k == "output_lens" else v), E, VB1,
         1, "key 'output_lens': request 0: expected a value >= 0, got -5",
         "a negative token count would enter the recomputed statistics"),
    Case("arrays-shorter-than-num-prompts", short_arrays, W, "", None,
         "record 0: per-request arrays hold 39 requests, num_prompts = 40",
         "the arrays agree with each other: the missing request is flagged, and the summary "
         "statistics that no longer match them fail their check", check_exit=1),
    Case("completed-contradicts-arrays",
         lambda r: edit_json(bench(r, "vllm", 1), completed=39, failed=1), W, "", None,
         "record 0: completed = 39, but the errors array marks 40 requests as successful",
         "the tier is shown as the summary says, with the contradiction flagged"),
    # --- tiers across files and engines
    Case("duplicate-tier",
         lambda r: shutil.copy(bench(r, "vllm", 8), r / "vllm" / "bench" / "zz-copy.json"), E,
         "vllm/bench/zz-copy.json", None, "concurrency 8 appears twice for engine 'vllm'",
         "two results for one tier: the tool cannot pick one"),
    Case("tier-missing-for-one-engine",
         lambda r: (drop_narrative(r), bench(r, "vllm", 8).unlink()), W, "", None,
         "round/vllm/bench: no result for C=8 (other engines do)",
         "the tier is compared without that engine, and the page says so"),
    Case("tier-missing-but-prose-quotes-it", lambda r: bench(r, "vllm", 8).unlink(), E,
         "narrative/crossover.en.md", 3,
         "'tiers.vllm.c8.output_tok_s' has no value in this round's data: there is no C=8 result",
         "prose quoting a figure the data no longer has must be updated, not printed as '—'"),
    Case("engines-without-common-tier", no_common_tier, W, "", None,
         "round/vllm/bench: no result for C=1, C=2, C=4, C=8, C=16, C=32, C=64",
         "each engine's own figures stay valid; there is just no head-to-head"),
    Case("log-segments-tier-count",
         lambda r: bench(r, "llamacpp", 8).unlink(), E, TOML, 42,
         "log_segments for engine 'llamacpp' lists 7 tier counts, but its bench/ folder has 6",
         "segments would be credited to the wrong tiers"),
    # --- round layout
    Case("unknown-engine-dir",
         lambda r: shutil.copytree(r / "vllm" / "bench", r / "sglang" / "bench"), W, "", None,
         "round/sglang: folder is not an engine listed in round.toml; ignored",
         "an extra folder changes nothing shown, but may be a forgotten engine"),
    Case("engine-dir-missing", lambda r: shutil.rmtree(r / "vllm"), E, "vllm", None,
         "folder for engine 'vllm' not found", "an engine round.toml lists has no data"),
    Case("no-bench-files",
         lambda r: [p.unlink() for p in (r / "vllm" / "bench").iterdir()], E, "vllm/bench",
         None, "no *.json result files for engine 'vllm'", "an engine without results"),
    Case("bench-symlink-loop",
         lambda r: symlink_loop(r / "vllm" / "bench" / "loop.json"), E, "vllm/bench/loop.json",
         None, "cannot read: Too many levels of symbolic links",
         "a result file that cannot be read must not be skipped silently"),
    Case("server-log-symlink-loop", lambda r: symlink_loop(r / "vllm" / "server.log"), E,
         "vllm/server.log", None, "cannot read: Too many levels of symbolic links",
         "a log that cannot be read must not look like a missing log"),
    # --- round.toml
    Case("toml-syntax-error", lambda r: replace(r / TOML, 'gpu = "RTX 4090"', 'gpu = "RTX 4090'),
         E, TOML, 13, "invalid TOML", "the manifest cannot be read at all"),
    Case("toml-wrong-type",
         lambda r: replace(r / TOML, "bandwidth_gb_s = 1008", 'bandwidth_gb_s = "fast"'), E, TOML,
         14, "[hardware.bandwidth_gb_s]: expected a number, got 'fast'",
         "every roofline figure uses the bandwidth"),
    Case("toml-unknown-key",
         lambda r: replace(r / TOML, "bandwidth_gb_s = 1008", "bandwith_gb_s = 1008"), E, TOML,
         14, "unknown key 'bandwith_gb_s' in [hardware]; did you mean 'bandwidth_gb_s'?",
         "a typo would silently fall back to the built-in GPU table"),
    Case("toml-nan", lambda r: replace(r / TOML, "memory_gib = 24", "memory_gib = nan"), E, TOML,
         15, "[hardware.memory_gib]: expected a number, got nan", "TOML allows nan; we do not"),
    Case("toml-log-segments-type",
         lambda r: replace(r / TOML, "warmup = 31", 'warmup = "31"'), E, TOML, 42,
         "[engines[1].log_segments.warmup]: expected an integer >= 0, got '31'",
         "a string count cannot split the log"),
    Case("toml-exclude-unknown-engine",
         lambda r: replace(r / TOML, "{ llamacpp = [32] }", "{ llama = [32] }"), E, TOML, 45,
         "got 'llama'", "excluding a tier of an engine that does not exist hides nothing"),
    Case("toml-not-utf8", lambda r: replace_bytes(r / TOML, b'client = "', b'client = "\xff'),
         E, TOML, 10, "not UTF-8",
         "TOML must be UTF-8"),
    # --- narrative
    Case("narrative-unknown-section", lambda r: narrative(r, "summary.en.md", "Hello.\n"), E,
         "narrative/summary.en.md", None, "section one of setup, glossary",
         "prose for a section the page does not have would silently vanish"),
    Case("narrative-unknown-placeholder",
         lambda r: narrative(r, "next.en.md", "# Next\n\nC≈{{ crossover.concurency }}\n"), E,
         "narrative/next.en.md", 3, "did you mean 'crossover.concurrency'?",
         "a misspelt name has no value to print"),
    Case("narrative-bad-format-spec",
         lambda r: narrative(r, "next.en.md", "# Next\n\n{{ crossover.concurrency:.2q }}\n"), E,
         "narrative/next.en.md", 3, "unknown format '.2q'", "the number cannot be formatted"),
    Case("narrative-number-format-on-text",
         lambda r: narrative(r, "next.en.md", "{{ setup.gpu:pct }}\n"), E,
         "narrative/next.en.md", 1, "format 'pct' needs a number, the value is text",
         "text cannot be shown as a percentage"),
    Case("narrative-unclosed-placeholder",
         lambda r: narrative(r, "next.en.md", "a\nb {{ setup.gpu\n"), E, "narrative/next.en.md",
         2, "unclosed placeholder", "half a placeholder would be printed literally"),
    Case("narrative-not-utf8",
         lambda r: (r / "narrative" / "next.zh.md").write_bytes("显存".encode("gbk")), E,
         "narrative/next.zh.md", 1, "not UTF-8 (byte 0)", "mis-decoded prose would be garbage"),
    # --- llama-server log
    Case("log-without-print-timing", llama_log_without_blocks, E, "llamacpp/server.log", None,
         "has 0 print_timing blocks, but log_segments in round.toml for engine 'llamacpp' add "
         "up to 1359", "log_segments cannot split a log that has no blocks"),
    Case("log-without-print-timing-or-segments",
         lambda r: (drop_narrative(r), drop_log_segments(r), llama_log_without_blocks(r)), W, "",
         None, "round/llamacpp/server.log: no print_timing blocks found",
         "without segments nothing depends on the blocks; prefill/graph figures are left blank"),
    Case("log-truncated-mid-block", cut_mid_block, E, "llamacpp/server.log", None,
         "has 1358 print_timing blocks, but log_segments in round.toml for engine 'llamacpp' add "
         "up to 1359 (warmup 31 + tiers 1328); line 9546: print_timing block without a 'total "
         "time' line (log cut off?)", "one block short: every later segment boundary would shift"),
    Case("log-segments-sum-mismatch", lambda r: replace(r / TOML, "warmup = 31", "warmup = 30"),
         E, "llamacpp/server.log", None, "has 1359 print_timing blocks, but log_segments in "
         "round.toml for engine 'llamacpp' add up to 1358", "the split would be off by one"),
    Case("log-empty", lambda r: (r / "llamacpp" / "server.log").write_bytes(b""), E,
         "llamacpp/server.log", None, "has 0 print_timing blocks",
         "an empty log cannot be split by log_segments"),
    # --- vLLM log
    Case("vllm-log-not-utf8",
         lambda r: insert_line(r / "vllm" / "server.log", 5, b"junk \xff\xfe bytes"), W, "",
         None, "round/vllm/server.log: bytes that are not UTF-8 were replaced",
         "logs are read leniently; replaced bytes are flagged"),
    Case("vllm-log-empty",
         lambda r: (drop_narrative(r), (r / "vllm" / "server.log").write_bytes(b"")), W, "",
         None, "round/vllm/server.log: no vLLM start-up lines found",
         "engine facts and memory are left blank, and the page says why"),
    # --- fingerprint, gpu.csv, Prometheus scrapes
    Case("fingerprint-garbage",
         lambda r: (r / "vllm" / "fingerprint.txt").write_text("@@@@\n#### !!\n"), E,
         "vllm/fingerprint.txt", None, "expected verbatim nvidia-smi output",
         "a fingerprint that is not one would hide the driver/GPU facts silently"),
    Case("fingerprint-empty", lambda r: (r / "vllm" / "fingerprint.txt").write_bytes(b""), E,
         "vllm/fingerprint.txt", None, "lines; the file is empty",
         "an empty fingerprint holds nothing; delete it if none was taken"),
    Case("gpu-csv-bad-header",
         lambda r: replace(r / "vllm" / "gpu.csv", "timestamp, index, name,",
                           "timestamp; index; name;"), E, "vllm/gpu.csv", 1,
         "no header line before the first sample", "columns cannot be named"),
    Case("gpu-csv-empty", lambda r: (r / "vllm" / "gpu.csv").write_bytes(b""), E, "vllm/gpu.csv",
         None, "empty file", "no samples, no header"),
    Case("gpu-csv-short-row",
         lambda r: append_bytes(r / "vllm" / "gpu.csv", b"2026/11/18 14:06:40.000, 0, NVIDIA"),
         E, "vllm/gpu.csv", 918, "expected 9 fields separated by ', ', got 3",
         "a row with missing fields cannot be read"),
    Case("prometheus-garbage",
         lambda r: append_bytes(r / "vllm" / "metrics" / "c8-after.prom", b"%%% garbage\n"), E,
         "vllm/metrics/c8-after.prom", 295, "expected 'metric_name{labels} value [timestamp]'",
         "a scrape line that does not parse may be a counter the analysis needs"),
    Case("prometheus-empty",
         lambda r: (r / "vllm" / "metrics" / "c1-after.prom").write_bytes(b""), W, "", None,
         "round/vllm/metrics/c1-after.prom: no samples in this scrape",
         "the server-side prefill for that tier is left blank, and flagged"),
    Case("prometheus-unpaired",
         lambda r: (r / "vllm" / "metrics" / "c8-after.prom").unlink(), W, "", None,
         "no matching c8-after.prom; this scrape is ignored",
         "one scrape of a pair gives no delta; the tier just lacks server metrics"),
    # --- huge lines
    Case("huge-line-in-scrape",
         lambda r: append_bytes(r / "vllm" / "metrics" / "c8-after.prom", b"a" * (10 << 20)), E,
         "vllm/metrics/c8-after.prom", 295, "characters): expected 'name{labels} value",
         "a 10 MB junk line is not a sample; the message quotes only its start"),
    Case("huge-line-in-gpu-csv",
         lambda r: insert_line(r / "vllm" / "gpu.csv", 3, b"9" * (10 << 20)), E,
         "vllm/gpu.csv", 4, "expected 9 fields", "a 10 MB line is not a sample"),
]


# ------------------------------------------------------------------ running a case

@pytest.fixture
def workdir(tmp_path: Path) -> tuple[Path, Path]:
    """A fresh copy of the sample round and an out/ folder holding a previous report."""
    root = tmp_path / "round"
    shutil.copytree(SAMPLE, root)
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_bytes(PREVIOUS)
    return root, out


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def assert_no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}")
    assert "Traceback" not in result.stdout + result.stderr


def test_catalogue_is_large_and_covers_both_outcomes() -> None:
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)
    assert {c.outcome for c in CASES} == {E, W}


def logical_lines(text: str) -> list[str]:
    """`check` output with wrapped messages joined: a line indented 8 or more spaces
    continues the one above."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith(" " * 8) and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, workdir: tuple[Path, Path]) -> None:
    root, out = workdir
    case.mutate(root)
    report = out / "report.html"
    result = run("build", str(root), "-q", "-o", str(report))
    assert_no_traceback(result)

    if case.outcome == E:
        where = f"round/{case.where}" + ("" if case.line is None else f":{case.line}")
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"Error: {where}: "), result.stderr[:500]
        assert case.text in result.stderr, result.stderr[:500]
        assert len(result.stderr) < 1000  # never echoes a whole input file or line
        assert result.stdout == ""
        assert report.read_bytes() == PREVIOUS
        assert sorted(os.listdir(out)) == ["report.html"]  # no temp file left behind
        if not case.where.startswith("narrative/"):  # `check` reads no prose
            check = run("check", str(root))
            assert_no_traceback(check)
            assert (check.exit_code, check.stderr) == (2, result.stderr)
        return

    assert result.exit_code == 0, result.output
    check = run("check", str(root))
    assert_no_traceback(check)
    assert check.exit_code == case.check_exit, check.output
    flagged = [line for line in logical_lines(check.stdout)
               if line.startswith(case.status) and case.text in line]
    assert flagged, check.stdout
    page = html.unescape(SCRIPT.sub("", report.read_text(encoding="utf-8")))
    assert case.text in page
    assert sorted(os.listdir(out)) == ["report.html"]


def test_output_folder_missing(workdir: tuple[Path, Path]) -> None:
    root, out = workdir
    target = out / "missing" / "report.html"
    result = run("build", str(root), "-q", "-o", str(target))
    assert_no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {target}: cannot write: No such file or directory")
    assert sorted(os.listdir(out)) == ["report.html"]


def test_huge_line_in_llama_log_changes_no_figure(workdir: tuple[Path, Path]) -> None:
    """A 10 MB line without a newline at the end of the log (a crashed writer) is noise
    outside every print_timing block: the report is built and no figure moves."""
    root, out = workdir
    clean = out.parent / "clean" / root.name  # same folder name: file paths compare equal
    shutil.copytree(SAMPLE, clean)
    append_bytes(root / "llamacpp" / "server.log", b"x" * (10 << 20))
    result = run("build", str(root), "-q", "-o", str(out / "report.html"))
    assert_no_traceback(result)
    assert result.exit_code == 0, result.output
    same = run("diff", str(clean), str(root))
    assert same.exit_code == 0, same.output
    assert same.stdout.strip() == "no changes"


def test_previous_report_that_is_not_a_report(workdir: tuple[Path, Path]) -> None:
    root, out = workdir
    result = run("build", str(root), "-q", "-o", str(out / "new.html"), "--previous",
                 str(out / "report.html"))
    assert_no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {out / 'report.html'}: no report-data JSON found")
    assert sorted(os.listdir(out)) == ["report.html"]
