"""Smoke test of the benchmark's synthetic-round generator at a tiny scale."""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

# benchmarks/ is a folder of scripts next to the package, not installed with it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import linefmt, make_round, synth
from reportgen.load.manifest import parse_manifest

PREFIX = re.compile(rb"^\d+\.\d\d\.\d\d\d\.\d\d\d [IWED] ")


@pytest.fixture(scope="module")
def tiny_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "round"
    make_round.generate(out, itl_samples=20_000, log_mb=1.5, seed=7, jobs=1)
    return out


def _blocks_per_segment(log: Path) -> list[int]:
    """print_timing blocks between `all slots are idle` lines (warm-up, then one per tier)."""
    counts, current = [], 0
    for line in log.read_bytes().splitlines():
        if b"|    graphs reused = " in line:
            current += 1
        elif line.endswith(b"all slots are idle"):
            counts.append(current)
            current = 0
    return counts


def test_linefmt_matches_printf() -> None:
    v = np.array([0, 7, 42, 12345])
    f = np.array([0.0, 3.14159, 1234.5678, 98765.4])
    parts = [b"a=", linefmt.Int(v), b" b=", linefmt.Int(v, 5), b" c=", linefmt.Int(v, 3, True),
             b" f=", linefmt.Fixed(f, 10, 2), b" ", linefmt.Pick(v % 2, [b"x", b"yy"])]
    got = linefmt.join_rows(linefmt.render(parts, v.size)).decode().splitlines()
    want = [f"a={a} b={a:5d} c={a:03d} f={x:10.2f} {'x' if a % 2 == 0 else 'yy'}"
            for a, x in zip(v.tolist(), f.tolist(), strict=True)]
    assert got == want


def test_log_segments_match_the_logs(tiny_round: Path) -> None:
    manifest = parse_manifest(tiny_round / "round.toml")
    llama = [e for e in manifest.engines if e.kind == "llamacpp"]
    assert len(manifest.engines) == 4 and len(llama) == 2
    for spec in llama:
        seg = spec.log_segments
        assert seg is not None and len(seg.tiers) == len(synth.TIERS)
        assert _blocks_per_segment(tiny_round / spec.dir / "server.log") == [seg.warmup, *seg.tiers]
        # One block per successful request of the tier's bench file.
        for c, blocks in zip(synth.TIERS, seg.tiers, strict=True):
            (path,) = (tiny_round / spec.dir / "bench").glob(f"*-concurrency{c}-*.json")
            assert json.loads(path.read_text())["completed"] == blocks


def test_log_lines_use_the_mid_2026_format(tiny_round: Path) -> None:
    lines = (tiny_round / "llamacpp-q4" / "server.log").read_bytes().splitlines()
    assert all(PREFIX.match(line) for line in lines)
    graphs = [int(line.rsplit(b"=", 1)[1]) for line in lines if b"graphs reused =" in line]
    assert graphs == sorted(graphs) and graphs[0] > 0  # cumulative counter
    assert any(b" D slot process_toke:" in line for line in lines)  # the size knob is in use


def test_bench_files_hold_consistent_detail(tiny_round: Path) -> None:
    files = sorted(tiny_round.glob("*/bench/*.json"))
    assert len(files) == 4 * len(synth.TIERS)
    plan = synth.plan_requests(20_000)
    itl_total = 0
    for path in files:
        rec = json.loads(path.read_text())
        n = rec["num_prompts"]
        assert n == plan[synth.TIERS.index(rec["max_concurrency"])]
        assert len(rec["itls"]) == len(rec["ttfts"]) == len(rec["errors"]) == n
        assert rec["completed"] + rec["failed"] == n
        ok = [i for i, e in enumerate(rec["errors"]) if not e]
        assert all(len(rec["itls"][i]) == synth.OUTPUT_TOKENS - 1 for i in ok)
        # Summary statistics are computed from the arrays, in ms.
        itl = np.concatenate([rec["itls"][i] for i in ok])
        assert rec["median_itl_ms"] == pytest.approx(np.median(itl) * 1000)
        itl_total += itl.size
    assert itl_total == sum(plan) * 4 * (synth.OUTPUT_TOKENS - 1) - 255  # one failed request


def test_generation_is_deterministic(tiny_round: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    make_round.generate(again, itl_samples=20_000, log_mb=1.5, seed=7, jobs=1)
    names = sorted(p.relative_to(tiny_round) for p in tiny_round.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((tiny_round / n).read_bytes() == (again / n).read_bytes() for n in names)


def test_generated_round_loads(tiny_round: Path) -> None:
    from reportgen.load.round import load_round

    loaded = load_round(tiny_round)
    manifest = parse_manifest(tiny_round / "round.toml")
    assert len(loaded.summary) == 4 * len(synth.TIERS)
    plan = synth.plan_requests(20_000)
    assert len(loaded.itls) == sum(plan) * 4 * (synth.OUTPUT_TOKENS - 1) - 255
    for spec in manifest.engines:
        if spec.kind == "llamacpp":
            timings = loaded.engines[spec.id].llama_log.timings
            assert len(timings) == spec.log_segments.warmup + sum(spec.log_segments.tiers)


def test_longest_array_decodes_plotly_bdata() -> None:
    from benchmarks.run import longest_array

    five = base64.b64encode(np.arange(5, dtype="f8").tobytes()).decode()
    page = {"figs": [{"y": [1, 2, 3], "x": {"dtype": "f8", "bdata": five}}], "checks": [0] * 4}
    assert longest_array(page) == (5, ".figs[0].x")
