"""Hardening, fourth catalogue (issue 34): one test per class, each able to fail.

Every input gives exit 0 with sane numbers, or exit 2 with one line naming the file (and
line): no traceback, no hang, nothing half-written, no number from nothing.

- readers are total over their fields' value range (hostile values fed to every field a
  reader reads, through the same path a round takes);
- YAML aliases are bounded; the index reads its own files through the checked reader; the
  tidy CSV keeps quoted ``#`` lines and gives physical lines; duplicate ``--slo`` keys and
  empty client files are named; CSV export neutralises formulas; input text is isolated and
  wraps; ``--pdf`` is bounded and isolated.
"""

from __future__ import annotations

import copy
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.load.client_files import LARGEST_VALUE, read_client_files
from reportgen.load.formats import sniff
from reportgen.load.formats.metric_keys import LARGEST_WHOLE
from reportgen.load.scanned import ScannedFile

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
SAMPLE = REPO / "sample_runs" / "round2-rtx4090"
sys.path.insert(0, str(REPO))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_line_error(result: Result, names: str) -> str:
    """exit 2, one stderr line ``Error: …`` that names ``names``; no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr,
                                   result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert names in lines[0], lines[0]
    assert "Traceback" not in result.stdout + result.stderr
    return lines[0]


# ------------------------------------------------------------------ 1. readers are total

# one file of each reader, and the fields it reads (a path into the file's JSON)
READER_FIELDS: dict[str, tuple[Path, list[tuple[Any, ...]]]] = {
    "guidellm": (DATA / "clients/guidellm-0.8.1/concurrent/benchmarks.json", [
        ("benchmarks", 0, "start_time"), ("benchmarks", 0, "end_time"),
        ("benchmarks", 0, "duration"),
        ("benchmarks", 0, "metrics", "request_totals", "successful"),
        ("benchmarks", 0, "metrics", "request_totals", "errored"),
        ("benchmarks", 0, "metrics", "output_token_count", "successful", "total_sum"),
        ("benchmarks", 0, "metrics", "prompt_token_count", "successful", "total_sum"),
        ("benchmarks", 0, "metrics", "time_to_first_token_ms", "successful", "median"),
        ("benchmarks", 0, "metrics", "time_to_first_token_ms", "successful", "count"),
        ("benchmarks", 0, "config", "strategy", "streams"),
        ("benchmarks", 0, "config", "backend", "model"),
    ]),
    "llmperf": (DATA / "llmperf/lepton_70b_summary.json", [
        ("timestamp",), ("results_num_completed_requests",), ("results_number_errors",),
        ("results_num_completed_requests_per_min",), ("results_num_requests_started",),
        ("results_mean_output_throughput_token_per_s",),
        ("results_number_output_tokens_mean",), ("num_concurrent_requests",),
        ("results_ttft_s_quantiles_p50",), ("mean_input_tokens",), ("model",),
    ]),
    "guidellm_yaml": (DATA / "guidellm-real/benchmarks_stripped.yaml", [
        ("benchmarks", 0, "start_time"), ("benchmarks", 0, "end_time"),
        ("benchmarks", 0, "duration"), ("benchmarks", 0, "request_totals", "successful"),
        ("benchmarks", 0, "request_totals", "incomplete"),
        ("benchmarks", 0, "metrics", "output_token_count", "successful", "total_sum"),
        ("benchmarks", 0, "metrics", "request_latency", "successful", "median"),
        ("benchmarks", 0, "args", "strategy", "type_"),
        ("benchmarks", 0, "worker", "backend_model"),
    ]),
    "inference_perf": (DATA / "clients/inference-perf-0.7.0/results/"
                              "stage_0_lifecycle_metrics.json", []),
    "aiperf": (DATA / "clients/aiperf-0.8.0/stub-model-openai-chat-concurrency1/"
                      "profile_export_aiperf.json", []),
    "genai_perf": (DATA / "clients/genai-perf-0.0.16/artifacts/c1/"
                          "stub-model-openai-chat-concurrency1/profile_export_genai_perf.json",
                   []),
    "inferencex": (DATA / "inferencex/minimax_m25_vllm_tep8_isl1024_osl128_conc16.json", []),
}
HOSTILE: list[Any] = [math.nan, math.inf, -math.inf, 1e300, -1e300, -1, 1e20, 2 ** 70,
                      10 ** 400, "x", None, [], {}, "\ud800", ...]  # ... = the key removed


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every scalar's path (the first item of each list only)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return _leaves(value[0], (*path, 0)) if value else [path]
    return [path]


def _load(path: Path) -> Any:
    if path.suffix == ".yaml":
        import yaml

        return yaml.safe_load(path.read_text(encoding="utf-8"))
    return json.loads(path.read_text(encoding="utf-8"))


def _fields(client: str) -> list[tuple[Any, ...]]:
    path, named = READER_FIELDS[client]
    if named:
        return named
    data = _load(path)
    return [p for p in _leaves(data) if len(p) <= 4][:24]   # flat schemas: every field


def _set(data: Any, path: tuple[Any, ...], value: Any) -> bool:
    cur = data
    for key in path[:-1]:
        try:
            cur = cur[key]
        except (KeyError, IndexError, TypeError):
            return False
    if value is ...:
        if isinstance(cur, dict):
            cur.pop(path[-1], None)
        return True
    cur[path[-1]] = value
    return True


def _read(path: Path, raw: bytes) -> tuple[Exception | None, list[dict[str, Any]]]:
    path.write_bytes(raw)
    claimed = sniff(path.name, raw[:65536])
    if claimed is None:
        return None, []     # no longer this client's file: listed, never read as a run
    f = ScannedFile(path, f"round/{path.name}", path.name, "client", claimed[1], claimed[0])
    try:
        out = read_client_files([f])
    except InputError as exc:
        return exc, []
    return None, [row for got in out.rows.values() for row in got.rows]


@pytest.mark.parametrize("client", sorted(READER_FIELDS))
def test_every_reader_is_total_over_hostile_values(client: str, tmp_path: Path) -> None:
    """NaN, ±inf, 1e300, negative, wrong type, a lone surrogate or a missing key in any field
    a reader reads: the file is read with sane numbers (finite or NaN, never beyond any
    measurement) or refused with one line naming it — never another exception."""
    source, _ = READER_FIELDS[client]
    yaml_file = source.suffix == ".yaml"
    data = _load(source)
    target = tmp_path / source.name
    cases = 0
    for field in _fields(client):
        for value in HOSTILE:
            broken = copy.deepcopy(data)
            if not _set(broken, field, value):
                continue
            if yaml_file:
                import yaml

                raw = yaml.safe_dump(broken, allow_unicode=False).encode()
            else:
                raw = json.dumps(broken).encode("utf-8", "surrogatepass")
            cases += 1
            error, rows = _read(target, raw)
            if error is not None:
                text = str(error)
                assert "\n" not in text and text.startswith(f"round/{source.name}"), text
                continue
            for row in rows:
                for key, v in row.items():
                    if isinstance(v, float | int) and not isinstance(v, bool):
                        if key == "request_rate" and v == math.inf:
                            continue    # an unbounded rate (a throughput test) is stated
                        assert math.isnan(v) or abs(v) <= max(LARGEST_VALUE, LARGEST_WHOLE), \
                            (field, value, key, v)
                    if isinstance(v, str):
                        v.encode("utf-8")   # no lone surrogate left in any text
    assert cases >= 60


@pytest.mark.parametrize(("client", "edit", "outcome"), [
    ("guidellm", ("benchmarks", 0, "metrics", "output_token_count", "successful",
                  "total_sum"), 0),
    ("guidellm", ("benchmarks", 0, "start_time"), 0),
    ("llmperf", ("timestamp",), 0),
    ("llmperf", ("model",), 0),
])
def test_catalogue_examples_end_to_end(client: str, edit: tuple[Any, ...], outcome: int,
                                       tmp_path: Path) -> None:
    """The seen examples through the command line: a missing total_sum, a start_time or a
    timestamp of 1e300 / 1e20 give an unknown value (no date, no token total), a lone
    surrogate in a model id a replacement character."""
    source, _ = READER_FIELDS[client]
    data = json.loads(source.read_text(encoding="utf-8"))
    value: Any = {"total_sum": ..., "start_time": 1e300, "timestamp": 1e20,
                  "model": "m\ud800x"}[edit[-1]]
    _set(data, edit, value)
    root = tmp_path / "round"
    root.mkdir()
    (root / source.name).write_bytes(json.dumps(data).encode("utf-8", "surrogatepass"))
    if client == "llmperf":
        shutil.copy(source.parent / "lepton_70b_individual_responses.json", root)
    result = run("tables", str(root))
    assert result.exit_code == outcome, (result.stderr, result.exception)
    assert "Traceback" not in result.stdout + result.stderr
    tables = json.loads(result.stdout)
    runs = tables["runs"]
    assert runs
    if edit[-1] == "total_sum":
        # that benchmark's tokens ÷ duration rests on the sum: unknown, so the run keeps only
        # GuideLLM's own figure (its output_tokens_per_second mean), never a number from
        # nothing; the other benchmarks keep theirs
        own = data["benchmarks"][0]["metrics"]["output_tokens_per_second"]["successful"]["mean"]
        assert runs[0]["output_tok_s"] == pytest.approx(own)
        assert all(isinstance(r["output_tok_s"], float) for r in runs[1:])
    if edit[-1] == "model":
        assert "\ufffd" in json.dumps(tables, ensure_ascii=False)


def test_impossible_counts_and_values_are_refused_naming_the_file(tmp_path: Path) -> None:
    source, _ = READER_FIELDS["llmperf"]
    data = json.loads(source.read_text(encoding="utf-8"))
    data["num_concurrent_requests"] = 1e19    # a whole number no run can have
    root = tmp_path / "round"
    root.mkdir()
    (root / source.name).write_text(json.dumps(data), encoding="utf-8")
    line = one_line_error(run("check", str(root)), source.name)
    assert "no possible value" in line


def test_input_error_crosses_a_process_boundary_whole() -> None:
    error = InputError("round/a.json", "broken", 7)
    again = pickle.loads(pickle.dumps(error))
    assert (again.path, again.message, again.line, str(again)) == \
        ("round/a.json", "broken", 7, "round/a.json:7: broken")


# ------------------------------------------------------------------ 2. bounded YAML

BILLION_LAUGHS = "\n".join(
    ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    + ["benchmarks:", "- type_: generative_benchmark", "  metrics:",
       "    time_to_first_token_ms: *a9", "    request_totals: {successful: 1}"]) + "\n"


@pytest.mark.parametrize("text", [BILLION_LAUGHS,
                                  "benchmarks: &b\n- type_: generative_benchmark\n  x: *b\n"
                                  "  metrics:\n    request_totals:\n      successful: 1\n"])
def test_yaml_aliases_are_bounded(text: str, tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "benchmarks.yaml").write_text(text, encoding="utf-8")
    began = time.monotonic()
    result = run("check", str(root))
    assert time.monotonic() - began < 20
    line = one_line_error(result, "benchmarks.yaml")
    assert "alias" in line


# ------------------------------------------------------------------ 3. the index's own files

@pytest.fixture()
def site_rounds(tmp_path: Path) -> tuple[list[Path], Path]:
    from benchmarks import tiny_rounds

    return tiny_rounds.generate(tmp_path / "rounds", 2), tmp_path / "site"


def _index(rounds: list[Path], site: Path, *more: str) -> Result:
    return run("index", *map(str, rounds), "-o", str(site), "-q", *more)


@pytest.mark.parametrize("bad", ["card-list", "files-list", "not-json", "devzero", "fifo"])
def test_a_bad_cache_entry_means_build_this_round_again(
        bad: str, site_rounds: tuple[list[Path], Path]) -> None:
    rounds, site = site_rounds
    assert _index(rounds, site).exit_code == 0
    entry = site / ".reportgen-index" / f"{rounds[0].name}.json"
    data = json.loads(entry.read_text(encoding="utf-8"))
    entry.unlink()
    if bad == "card-list":
        entry.write_text(json.dumps({**data, "card": []}), encoding="utf-8")
    elif bad == "files-list":
        entry.write_text(json.dumps({**data, "files": []}), encoding="utf-8")
    elif bad == "not-json":
        entry.write_text("[", encoding="utf-8")
    elif bad == "devzero":
        entry.symlink_to("/dev/zero")
    else:
        os.mkfifo(entry)
    said: list[str] = []
    from reportgen.index.update import build_index

    build_index(rounds, site, jobs=1, progress=said.append)   # a hang fails the run's timeout
    assert "1 round(s) to build, 1 unchanged, 0 removed" in said
    assert json.loads(entry.read_text(encoding="utf-8"))["card"]["round"]


@pytest.mark.parametrize("bad", ["[]", "null", "fifo", "devzero"])
def test_a_bad_site_manifest_never_blocks_or_crashes(
        bad: str, site_rounds: tuple[list[Path], Path]) -> None:
    rounds, site = site_rounds
    assert _index(rounds, site).exit_code == 0
    manifest = site / ".reportgen-index" / ".manifest.json"
    manifest.unlink()
    if bad == "fifo":
        os.mkfifo(manifest)
    elif bad == "devzero":
        manifest.symlink_to("/dev/zero")
    else:
        manifest.write_text(bad, encoding="utf-8")
    result = _index(rounds, site)
    if bad in ("fifo", "devzero"):   # in the way of the index's cache: refused, not replaced
        one_line_error(result, ".manifest.json")
    else:
        assert result.exit_code == 0, (result.stderr, result.exception)
        assert json.loads(manifest.read_text(encoding="utf-8"))["files"]


def test_a_round_named_manifest_is_not_rebuilt_every_run(tmp_path: Path) -> None:
    from benchmarks import tiny_rounds
    from reportgen.index.update import build_index

    (folder,) = tiny_rounds.generate(tmp_path / "a", 1)
    named = folder.rename(tmp_path / "manifest")
    site = tmp_path / "site"
    build_index([named], site, jobs=1)
    said: list[str] = []
    build_index([named], site, jobs=1, progress=said.append)
    assert any("the site is up to date" in s for s in said), said


def test_index_with_workers_reports_what_one_process_reports(
        site_rounds: tuple[list[Path], Path], tmp_path: Path) -> None:
    rounds, _ = site_rounds
    bad = rounds[1] / "vllm" / "bench"
    victim = next(p for p in sorted(bad.rglob("*.json")))
    victim.write_text("{broken", encoding="utf-8")
    one = one_line_error(_index(rounds, tmp_path / "s1", "-j", "1"), victim.name)
    two = one_line_error(_index(rounds, tmp_path / "s2", "-j", "2"), victim.name)
    assert one == two


# ------------------------------------------------------------------ 4. the tidy CSV

HEAD = "configuration,concurrency,output_tok_s,completed,notes\n"


def _tidy(tmp_path: Path, text: str) -> tuple[Result, Path]:
    root = tmp_path / "round"
    root.mkdir(exist_ok=True)
    (root / "runs.csv").write_text(text, encoding="utf-8")
    return run("tables", str(root)), root


def test_a_quoted_cell_with_a_hash_line_is_not_a_comment(tmp_path: Path) -> None:
    text = HEAD + "".join(f'{c},{n},{10 * n},100,"first\n# not a comment\nlast"\n'
                          for c in ("a", "b") for n in (1, 2, 4))
    result, _ = _tidy(tmp_path, "# a comment\n" + text)
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["runs"]) == 6


def test_tidy_errors_give_the_physical_line(tmp_path: Path) -> None:
    text = HEAD + 'a,1,10,100,"two\nlines"\n' + "a,2,20,100\n"   # the short row: line 4
    line = one_line_error(_tidy(tmp_path, text)[0], "runs.csv:4:")
    assert "cells" in line
    comments = "".join(f"# comment {i}\n" for i in range(10))
    header = "configuration,concurrency,output_tok_s,ttft_p50\n"   # the header: line 11
    one_line_error(_tidy(tmp_path, comments + header + "a,1,10,5\n")[0], "runs.csv:11:")


def test_tidy_json_errors_give_the_object_line(tmp_path: Path) -> None:
    root = tmp_path / "round"
    root.mkdir()
    (root / "runs.json").write_text(
        '{"runs": [\n {"configuration": "a", "concurrency": 1, "output_tok_s": 10},\n'
        ' {"configuration": "a", "concurrency": 2,\n  "output_tok_s": -5}\n]}\n',
        encoding="utf-8")
    line = one_line_error(run("check", str(root)), "runs.json:3:")
    assert "output_tok_s" in line


def test_tidy_counts_are_whole_numbers(tmp_path: Path) -> None:
    line = one_line_error(_tidy(tmp_path, HEAD + "a,1,10,100.7,\n")[0], "runs.csv:2:")
    assert "completed" in line and "whole" in line


def test_an_unclosed_quote_loses_no_rows_silently(tmp_path: Path) -> None:
    text = HEAD + 'a,1,10,100,"open\n' + "a,2,20,100,\n" * 3
    line = one_line_error(_tidy(tmp_path, text)[0], "runs.csv:2:")
    assert "end of data" in line


def test_a_huge_tidy_cell_is_one_line(tmp_path: Path) -> None:
    text = HEAD + 'a,1,10,100,"' + "x" * 2_000_000 + '"\n'
    one_line_error(_tidy(tmp_path, text)[0], "runs.csv:2:")


# ------------------------------------------------------------------ 5. keys and empty files

def test_a_duplicate_slo_key_is_an_error() -> None:
    result = run("tables", str(SAMPLE), "--slo", "ttft_ms=500,ttft_ms=60")
    assert result.exit_code == 2
    assert "twice" in result.stderr and "Traceback" not in result.stderr


def test_an_empty_client_file_is_named_with_what_it_held(tmp_path: Path) -> None:
    source = DATA / "clients/guidellm-0.8.1/concurrent/benchmarks.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["benchmarks"] = []
    root = tmp_path / "round"
    root.mkdir()
    (root / "benchmarks.json").write_text(json.dumps(data), encoding="utf-8")
    line = one_line_error(run("check", str(root)), "benchmarks.json")
    assert "holding no run" in line and "folder is empty" not in line


# ------------------------------------------------------------------ 6. CSV export, page text

def test_csv_export_neutralises_formulas(tmp_path: Path) -> None:
    names = ["=cmd|' /C calc'!A0", "+1+1", "-2", "@SUM(A1)", "\tx", "plain"]
    rows = ["configuration,concurrency,output_tok_s"]
    rows += [f'"{n}",{c},{10 + i}' for i, n in enumerate(names) for c in (1, 2)]
    root = tmp_path / "round"
    root.mkdir()
    (root / "runs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = run("tables", str(root), "--format", "csv")
    assert result.exit_code == 0, result.stderr
    import csv
    import io

    cells = [c for row in csv.reader(io.StringIO(result.stdout)) for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")
                or (c.startswith("-") and not c[1:2].isdigit())]
    assert "'=cmd|' /C calc'!A0" in cells and "plain" in cells


def test_input_text_is_isolated_in_title_and_sentences(tmp_path: Path) -> None:
    import re

    rows = ["configuration,concurrency,output_tok_s"]
    rows += [f"{n},{c},{v}" for n, v in (("ab\u202ecd", 30), ("plain", 10)) for c in (1, 4)]
    root = tmp_path / "round"
    root.mkdir()
    (root / "runs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (root / "round.toml").write_text('[round]\ntitle = "T\u202eitle"\n', encoding="utf-8")
    out = tmp_path / "report.html"
    result = run("build", str(root), "-q", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    page = re.sub(r"<script\b.*?</script>", "", out.read_text(encoding="utf-8"), flags=re.S)
    naked = [page[max(0, m.start() - 60):m.end()] for m in re.finditer("\u202e", page)
             if "\u2068" not in page[max(0, m.start() - 60):m.start()]
             and "<bdi" not in page[max(0, m.start() - 60):m.start()]]
    assert not naked, naked


def test_a_long_word_wraps_in_table_cells() -> None:
    from reportgen.render import bi_html
    from reportgen.text.bilingual import Bi

    assert bi_html(Bi.plain("x" * 500)) == f'<span class="long">{"x" * 500}</span>'
    assert bi_html(Bi.plain("vllm C=8")) == "vllm C=8"
    css = (REPO / "templates" / "static" / "style.css").read_text(encoding="utf-8")
    assert ".long { white-space: normal; overflow-wrap: anywhere; }" in css


# ------------------------------------------------------------------ 8. --pdf

def _fake_browser(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "chromium"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def test_pdf_browser_that_never_exits_is_killed_with_its_group(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    browser = _fake_browser(tmp_path, f"sleep 300 & echo $! > {marker}\nsleep 300")
    env = {**os.environ, "REPORTGEN_CHROMIUM": str(browser), "REPORTGEN_PDF_TIMEOUT": "2",
           "PYTHONPATH": str(REPO)}
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "reportgen", "build", str(SAMPLE), "-q",
                           "-o", str(tmp_path / "r.html"), "--pdf", str(tmp_path / "r.pdf"),
                           "--pdf-without-namespace"], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 2, done.stderr
    assert "did not finish within 2 s" in done.stderr and "Traceback" not in done.stderr
    assert time.monotonic() - began < 200
    assert not (tmp_path / "r.pdf").exists()
    child = int(marker.read_text().strip())
    time.sleep(0.5)
    status = Path(f"/proc/{child}/status")
    if status.exists():   # the helper it left went with the group (at most a zombie, unreaped
        assert "State:\tZ" in status.read_text()   # by a container's init)


def test_pdf_is_refused_without_a_network_namespace(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from reportgen import pdf

    monkeypatch.setattr(pdf, "network_isolation", lambda: ())
    monkeypatch.delenv(pdf.UNISOLATED_ENV, raising=False)
    monkeypatch.setenv("REPORTGEN_CHROMIUM", str(_fake_browser(tmp_path, "exit 1")))
    result = run("build", str(SAMPLE), "-q", "-o", str(tmp_path / "r.html"),
                 "--pdf", str(tmp_path / "r.pdf"))
    line = one_line_error(result, "--pdf")
    assert "--pdf-without-namespace" in line
    assert not (tmp_path / "r.html").exists()   # refused before anything was built


def test_print_is_a4_unless_letter_is_asked(tmp_path: Path) -> None:
    from reportgen import pdf

    css = (REPO / "templates" / "static" / "style.css").read_text(encoding="utf-8")
    assert "@page { size: A4;" in css
    js = (REPO / "templates" / "static" / "app.js").read_text(encoding="utf-8")
    assert "paper=letter" in js and "size: letter" in js
    assert pdf.PAPERS == ("a4", "letter")
    result = run("build", str(SAMPLE), "-q", "-o", str(tmp_path / "r.html"), "--pdf",
                 str(tmp_path / "r.pdf"), "--paper", "legal")
    assert result.exit_code == 2 and "legal" in result.stderr


def test_a_lone_surrogate_in_any_json_text_is_replaced(tmp_path: Path) -> None:
    """A result's model id and a metadata file's GPU name with a lone UTF-16 surrogate escape:
    the page is written (U+FFFD in its place), not a UnicodeEncodeError."""
    root = tmp_path / "round"
    shutil.copytree(SAMPLE, root)
    bench = next((root / "vllm" / "bench").glob("*-concurrency1-*.json"))
    text = bench.read_text(encoding="utf-8")
    data = json.loads(text)
    data["model_id"] = "Qwen\ud800x"
    bench.write_bytes(json.dumps(data).encode("utf-8", "surrogatepass"))
    (root / "vllm" / "meta.json").write_text('{"gpu_name": "RTX\\udc80 4090"}', encoding="utf-8")
    out = tmp_path / "report.html"
    result = run("build", str(root), "-q", "-o", str(out))
    assert result.exit_code == 0, (result.stderr, result.exception)
    out.read_text(encoding="utf-8")   # valid UTF-8 throughout
    checked = run("check", str(root))
    assert "Traceback" not in checked.stdout + checked.stderr and checked.exit_code in (0, 1)
