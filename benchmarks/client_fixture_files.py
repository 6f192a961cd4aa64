"""Time reading 2,000 result files of each client format (AIPerf, GenAI-Perf, GuideLLM).

    python benchmarks/client_fixture_files.py [--files 2000] [--budget 2.0]

Each format's files are copies of one file a real client wrote (tests/data/clients/), its
numbers varied per copy so that no two files are the same, written once into a temporary
folder. The time is what the load stage spends per format: every file's first 64 KiB offered
to every reader's ``sniff`` and the file read by the reader that claims it. GuideLLM's files
are written without their per-request lists (as with ``--sample-requests 0``): 2,000 copies of
a 300 KB file would measure the JSON parser, not the reader. Prints one line per format, wall
and CPU time (on a shared machine the wall time also counts the others' work), with the floor
(reading and parsing the same files whole, measured in the same run) and exits 1 when one
takes longer than the budget. ``benchmarks/run.py`` shows the same figures in its table.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `reportgen` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson

from reportgen.load.formats import READERS

CLIENTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "clients"
HEAD = 65536


def _first(pattern: str) -> Path:
    found = sorted(CLIENTS.glob(pattern))
    if not found:
        raise SystemExit(f"no fixture matches tests/data/clients/{pattern}")
    return found[0]


# the files spread over 40 configurations (as benchmarks/client_files.py lays out the others),
# each with its runs in folders of their own
CONFIGS = 40


def _config(i: int) -> str:
    return f"cfg{i % CONFIGS}"


def _run_dir(i: int) -> str:
    """AIPerf's and GenAI-Perf's own artifact folder name under the configuration's."""
    return f"{_config(i)}/m-openai-chat-concurrency{_concurrency(i)}"


def _concurrency(i: int) -> int:
    return i // CONFIGS + 1


def _state_concurrency(node: object, value: int) -> None:
    """Every ``concurrency`` setting in a client's stored settings set to ``value``: the file
    states the concurrency its folder names, as a real client's does."""
    if isinstance(node, dict):
        for key, child in node.items():
            if key == "concurrency" and isinstance(child, int):
                node[key] = value
            else:
                _state_concurrency(child, value)
    elif isinstance(node, list):
        for child in node:
            _state_concurrency(child, value)


def _aiperf_json(i: int) -> tuple[str, bytes]:
    data = json.loads(_first("aiperf-*/**/profile_export_aiperf.json").read_bytes())
    _state_concurrency(data["input_config"], _concurrency(i))
    # each file its own run, as in a real round: its own duration and TTFT (copies agree
    # within a printed half unit, and runs of one duration are compared pairwise)
    data["time_to_first_token"]["avg"] += i * 1e-2
    data["benchmark_duration"]["avg"] *= 1 + i / 1000
    return f"{_run_dir(i)}/profile_export_aiperf.json", json.dumps(data).encode()


def _aiperf_csv(i: int) -> tuple[str, bytes]:
    text = _first("aiperf-*/**/profile_export_aiperf.csv").read_text()
    # each file its own run (see _aiperf_json): its own duration and TTFT
    text = re.sub(r"(?m)^(Benchmark Duration \(sec\)),([\d.]+)",
                  lambda m: f"{m.group(1)},{float(m.group(2)) * (1 + i / 1000):.4f}", text)
    text = re.sub(r"(?m)^(Time to First Token \(ms\)),([\d.]+)",
                  lambda m: f"{m.group(1)},{float(m.group(2)) + i * 1e-2:.2f}", text)
    return (f"{_run_dir(i)}/profile_export_aiperf.csv",
            text.encode() + f"\n\nrun,{i}\n".encode())


def _genai_perf_json(i: int) -> tuple[str, bytes]:
    # the published summary (tests/data/genai-perf-real) with the request_count newer
    # GenAI-Perf writes (tests/data/clients/genai-perf-0.0.16 is the real client's own output)
    real = CLIENTS.parent / "genai-perf-real" / "profile_export_genai_perf.json"
    data = json.loads(real.read_bytes())
    data["request_count"] = {"unit": "count", "avg": 500}
    _state_concurrency(data["input_config"], _concurrency(i))
    data["time_to_first_token"]["avg"] += i * 1e-2   # each file its own run (see _aiperf_json)
    data["request_throughput"]["avg"] /= 1 + i / 1000
    return f"{_run_dir(i)}/profile_export_genai_perf.json", json.dumps(data).encode()


def _guidellm_json(i: int) -> tuple[str, bytes]:
    data = json.loads(_first("guidellm-0.8*/concurrent/benchmarks.json").read_bytes())
    for bench in data["benchmarks"]:
        bench["requests"] = {"successful": [], "incomplete": [], "errored": []}
        bench["start_time"] += i
        bench["end_time"] += i
    return f"{_config(i)}/run{i // CONFIGS}/benchmarks.json", json.dumps(data).encode()


FORMATS: dict[str, Callable[[int], tuple[str, bytes]]] = {
    "aiperf json": _aiperf_json, "aiperf csv": _aiperf_csv,
    "genai-perf json": _genai_perf_json, "guidellm json": _guidellm_json,
}


def write(root: Path, make: Callable[[int], tuple[str, bytes]], n: int,
          distinct: bool = False) -> list[Path]:
    """``n`` files; all but the first two are byte copies of the first (cheap to write) unless
    ``distinct``: then each is its own run, as a whole load (which counts copies once) needs."""
    template_name, template = make(0)
    paths = []
    for i in range(n):
        name, raw = make(i) if i < 2 or distinct else (
            template_name.replace("0", str(i), 1), template)
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        paths.append(path)
    return paths


def _floor_pass(paths: list[Path]) -> None:
    for path in paths:
        raw = path.read_bytes()
        if raw[:1] == b"{":
            orjson.loads(raw)
        else:
            list(csv.reader(io.StringIO(raw.decode())))


def time_floor(paths: list[Path]) -> float:
    """Reading each file and parsing it with orjson (JSON) or csv (CSV): what a reader that
    decodes the whole file spends, measured in the same run (the machine may be shared)."""
    t0 = time.perf_counter()
    _floor_pass(paths)
    return time.perf_counter() - t0


def _reading_pass(root: Path, paths: list[Path]) -> int:
    runs = 0
    for path in paths:
        raw = path.read_bytes()
        shown = path.relative_to(root).as_posix()
        head = raw[:HEAD]
        reader = next((r for r in READERS if r.sniff(shown, head)), None)
        if reader is None:
            raise SystemExit(f"{shown}: no reader claims it")
        runs += len(reader.read(raw, shown))
    return runs


def time_reading(root: Path, paths: list[Path]) -> tuple[float, int]:
    t0 = time.perf_counter()
    runs = _reading_pass(root, paths)
    return time.perf_counter() - t0, runs


@dataclass
class Timed:
    """One format's 2,000 files: wall and CPU seconds of sniffing + reading them, and of the
    floor (reading + parsing the same files whole), in this process."""

    fmt: str
    files: int
    runs: int
    wall_s: float
    cpu_s: float
    floor_wall_s: float
    floor_cpu_s: float


def measure(tmp: Path, files: int = 2000) -> list[Timed]:
    out = []
    for fmt, make in FORMATS.items():
        root = tmp / fmt.replace(" ", "_")
        paths = write(root, make, files)
        _floor_pass(paths)  # unmeasured: the page cache holds every file for both passes
        w, c = time.perf_counter(), time.process_time()
        _floor_pass(paths)
        floor_wall, floor_cpu = time.perf_counter() - w, time.process_time() - c
        w, c = time.perf_counter(), time.process_time()
        runs = _reading_pass(root, paths)
        out.append(Timed(fmt, files, runs, time.perf_counter() - w, time.process_time() - c,
                         floor_wall, floor_cpu))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=2000)
    p.add_argument("--budget", type=float, default=2.0, help="seconds per format")
    a = p.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for t in measure(Path(tmp), a.files):
            ok = t.wall_s <= a.budget
            failed |= not ok
            print(f"{t.fmt:16} {t.files} files  {t.runs:5} runs  {t.wall_s:6.3f} s "
                  f"(CPU {t.cpu_s:6.3f} s)  floor: read + orjson/csv of the whole files "
                  f"{t.floor_wall_s:6.3f} s (CPU {t.floor_cpu_s:6.3f} s)  "
                  f"{'ok' if ok else 'OVER'} (budget {a.budget:g} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
