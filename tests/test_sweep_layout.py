"""`vllm bench sweep serve` output, built here exactly as vLLM's
``vllm/benchmarks/sweep/serve.py`` writes it (no published sweep output exists to copy):

* ``<out>/<experiment_name>/`` (default name ``%Y%m%d_%H%M%S``), one folder per combination named
  ``"-".join(("SERVE-", serve_name, "BENCH-", bench_name))``, each side absent when it has no
  parameters; a name is the ``k=v`` pairs joined by ``-`` (or ``_benchmark_name``);
* in it ``run=0.json`` … = the ``vllm bench serve --save-result`` payload (``--percentile-metrics
  ttft,tpot,itl,e2el``) plus ``run_number`` and the serve and bench parameters as top-level keys,
  ``json.dump(indent=4)``; ``summary.json`` = the list of those dicts; ``warmup.json``
  (``run_number`` -1, ``num_prompts`` = the warm-up count); ``run=N.failure.json`` for a run that
  raised (``--continue-on-error``), which then has no ``run=N.json`` and no summary entry;
* ``<experiment>/summary.csv`` (pandas ``to_csv`` of every run) and, for a server that failed,
  ``<experiment>/SERVE-<name>-failure.json``.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from reportgen.cli import main

EXPERIMENT = "20250301_101500"
SEQS = (32, 64)
CONCURRENCY = (1, 4, 16)
# output tok/s of run 0, 1, 2 per (max_num_seqs, max_concurrency): medians 45, 170, 400, 50,
# 200, 580; every request asks 1000 input and 100 output tokens
TOK_S: dict[tuple[int, int], tuple[float, float, float]] = {
    (32, 1): (50.0, 40.0, 45.0), (32, 4): (160.0, 180.0, 170.0), (32, 16): (400.0, 380.0, 420.0),
    (64, 1): (52.0, 48.0, 50.0), (64, 4): (190.0, 210.0, 200.0), (64, 16): (600.0, 560.0, 580.0),
}
MEDIAN = {k: statistics.median(v) for k, v in TOK_S.items()}
SAME_RUN = re.compile(r"^the same run as (\S+) \(same requests, duration and throughput\); "
                      r"that copy is used$")


def bench_payload(conc: int, tok_s: float, run: int, num_prompts: int | None = None
                  ) -> dict[str, Any]:
    """A `vllm bench serve --save-result` JSON with `--percentile-metrics ttft,tpot,itl,e2el`."""
    n = num_prompts or 8 * conc
    out_tokens = 100 * n
    duration = out_tokens / tok_s
    ttft = 100.0 + 10 * run + conc
    tpot = 10.0
    metrics: dict[str, float] = {}
    for name, median in (("ttft", ttft), ("tpot", tpot), ("itl", tpot),
                         ("e2el", ttft + 99 * tpot)):
        metrics |= {f"mean_{name}_ms": median, f"median_{name}_ms": median,
                    f"std_{name}_ms": 1.0, f"p99_{name}_ms": 1.5 * median}
    return {
        "date": "20250301-101500", "endpoint_type": "openai", "backend": "vllm", "label": None,
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
        "request_rate": "inf", "burstiness": 1.0, "max_concurrency": conc,
        "duration": duration, "completed": n, "failed": 0,
        "total_input_tokens": 1000 * n, "total_output_tokens": out_tokens,
        "request_throughput": n / duration, "request_goodput": None,
        "output_throughput": tok_s, "total_token_throughput": 1100 * n / duration,
        "max_output_tokens_per_s": tok_s * 1.2, "max_concurrent_requests": conc,
        **metrics,
    }


def comb_name(serve: dict[str, Any], bench: dict[str, Any]) -> str:
    """vLLM's _get_comb_base_path: ParameterSweepItem.name, then sanitize_filename."""
    def name(item: dict[str, Any]) -> str:
        if "_benchmark_name" in item:
            return str(item["_benchmark_name"])
        return "-".join(f"{k}={v}" for k, v in item.items())

    parts: list[str] = []
    if serve:
        parts += ["SERVE-", name(serve)]
    if bench:
        parts += ["BENCH-", name(bench)]
    return "-".join(parts).replace("/", "_").replace("..", "__")


def write_sweep(out: Path, serve_params: list[dict[str, Any]], bench_params: list[dict[str, Any]],
                *, num_runs: int = 3, warmup: bool = True, cli_concurrency: int = 8,
                failed: frozenset[tuple[int, int, int]] = frozenset(),
                failed_servers: tuple[str, ...] = ()) -> Path:
    """Write the files `vllm bench sweep serve` leaves behind; returns the experiment dir.
    ``failed`` holds (max_num_seqs, max_concurrency, run) triples whose run raised."""
    exp = out / EXPERIMENT
    exp.mkdir(parents=True)
    everything: list[dict[str, Any]] = []
    for serve in serve_params:
        for bench in bench_params:
            base = exp / comb_name(serve, bench)
            base.mkdir()
            seqs = int(serve.get("max_num_seqs", 32))
            conc = int(bench.get("max_concurrency", cli_concurrency))
            overrides = {k: v for k, v in serve.items()} | bench
            comb: list[dict[str, Any]] = []
            if warmup:
                data = bench_payload(conc, 999.0, 9, num_prompts=1) | {"run_number": -1} \
                    | overrides | {"num_prompts": 1}
                (base / "warmup.json").write_text(json.dumps(data, indent=4))
            for run in range(num_runs):
                if (seqs, conc, run) in failed:
                    (base / f"run={run}.failure.json").write_text(json.dumps({
                        "run_number": run, "error_type": "RuntimeError",
                        "error": "Server process exited with code 1",
                        "serve_overrides": dict(serve), "bench_overrides": dict(bench),
                    }, indent=2) + "\n", encoding="utf-8")
                    continue
                data = bench_payload(conc, TOK_S[(seqs, conc)][run], run) \
                    | {"run_number": run} | overrides
                (base / f"run={run}.json").write_text(json.dumps(data, indent=4))
                comb.append(data)
            if comb:
                (base / "summary.json").write_text(json.dumps(comb, indent=4))
            everything += comb
    for name in failed_servers:
        (exp / f"SERVE-{name}-failure.json").write_text(json.dumps({
            "error_type": "TimeoutError", "error": "Server failed to start in 300 s",
            "serve_overrides": {"max_num_seqs": 128}}, indent=2) + "\n", encoding="utf-8")
    pd.DataFrame.from_records(everything).to_csv(exp / "summary.csv")
    return exp


def tables(folder: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["tables", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


SERVE = [{"max_num_seqs": s} for s in SEQS]
BENCH = [{"max_concurrency": c} for c in CONCURRENCY]


@pytest.fixture(scope="module", params=["output dir", "experiment dir"])
def sweep(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> tuple[Path, str, dict[str, Any]]:
    """(round folder, prefix of each file's path inside it, tables JSON): the user may point
    reportgen at the sweep's output dir or at the experiment dir inside it."""
    out = tmp_path_factory.mktemp("sweep") / "sweep-out"
    exp = write_sweep(out, SERVE, BENCH)
    root, prefix = (out, f"{EXPERIMENT}/") if request.param == "output dir" else (exp, "")
    return root, prefix, tables(root)


def run_file(prefix: str, seqs: int, conc: int, run: int) -> str:
    return f"{prefix}SERVE--max_num_seqs={seqs}-BENCH--max_concurrency={conc}/run={run}.json"


def test_every_run_file_is_one_run(sweep: tuple[Path, str, dict[str, Any]]) -> None:
    _, prefix, data = sweep
    runs = data["runs"]
    assert len(runs) == 18
    by_source = {r["source"]: r for r in runs}
    assert len(by_source) == 18
    for (seqs, conc), values in TOK_S.items():
        for run, tok_s in enumerate(values):
            row = by_source[run_file(prefix, seqs, conc, run)]
            assert row["axis"] == "concurrency"
            assert row["concurrency"] == conc
            assert row["request_rate"] == "inf"   # as each file states it (line 61)
            assert row["repeat"] == run + 1
            assert row["completed"] == 8 * conc
            assert row["output_tok_s"] == pytest.approx(tok_s, rel=1e-9)
            assert row["ttft_p50_ms"] == 100.0 + 10 * run + conc
            assert row["e2el_p50_ms"] == 100.0 + 10 * run + conc + 990.0


def test_configurations_come_from_the_serve_part(sweep: tuple[Path, str, dict[str, Any]]
                                                  ) -> None:
    _, prefix, data = sweep
    engines = {r["engine"] for r in data["runs"]}
    assert len(engines) == 2
    labels = {e["id"]: e["label"]["en"] for e in data["engines"]}
    assert set(labels) == engines
    for seqs in SEQS:
        # every run of one SERVE folder is in one configuration, whatever its BENCH part
        ids = {r["engine"] for r in data["runs"]
               if r["source"].startswith(f"{prefix}SERVE--max_num_seqs={seqs}-")}
        assert len(ids) == 1
        label = labels[ids.pop()]
        assert f"={seqs}" in label
        assert "BENCH" not in label and "max_concurrency" not in label
    basis = {i["key"]: i["source"] for i in data["inferred"]}
    assert {basis[f"engines.{e}.label"] for e in engines} == {"runs told apart by folder"}


def test_configuration_labels_name_the_serve_parameter(
        sweep: tuple[Path, str, dict[str, Any]]) -> None:
    _, _, data = sweep
    labels = sorted({e["label"]["en"] for e in data["engines"]})
    assert labels == ["max_num_seqs=32", "max_num_seqs=64"]


def test_axis_is_concurrency_with_the_bench_points(sweep: tuple[Path, str, dict[str, Any]]
                                                   ) -> None:
    _, _, data = sweep
    assert data["round"]["axis"] == "concurrency"
    assert data["round"]["concurrency"] == [1, 4, 16]
    tiers = [(t["engine"], t["concurrency"]) for t in data["tiers"]]
    assert len(tiers) == 6
    for engine in {t[0] for t in tiers}:
        assert [c for e, c in tiers if e == engine] == [1, 4, 16]


def _in_round(name: str, root: Path) -> str:
    """A `skipped` file as a path inside the round. Duplicates are named by their shown path
    (the round folder's own name first), scanned files by their path inside the round: the
    inconsistency is pinned by test_real_rounds.test_skipped_files_are_paths_inside_the_round."""
    return name.removeprefix(f"{root.name}/")


def test_summary_json_entries_are_the_same_runs(sweep: tuple[Path, str, dict[str, Any]]
                                                ) -> None:
    root, prefix, data = sweep
    same = {_in_round(s["file"], root): s["reason"] for s in data["skipped"]
            if "summary.json" in s["file"]}
    assert len(same) == 18
    for (seqs, conc) in TOK_S:
        folder = f"{prefix}SERVE--max_num_seqs={seqs}-BENCH--max_concurrency={conc}"
        for k in (1, 2, 3):  # summary.json's k-th record is run=k-1
            reason = same[f"{folder}/summary.json#{k}"]
            m = SAME_RUN.match(reason)
            assert m is not None, reason
            assert _in_round(m.group(1), root) == f"{folder}/run={k - 1}.json"


def test_warmup_and_summary_csv_are_skipped(sweep: tuple[Path, str, dict[str, Any]]) -> None:
    _, prefix, data = sweep
    skipped = {s["file"]: s["reason"] for s in data["skipped"] if "summary.json" not in s["file"]}
    warm = "warm-up run (the file name says so); not a measured run"
    expected = {f"{prefix}summary.csv": "not a benchmark result, log or sample this tool reads"}
    for (seqs, conc) in TOK_S:
        expected[f"{prefix}SERVE--max_num_seqs={seqs}-BENCH--max_concurrency={conc}/"
                 "warmup.json"] = warm
    assert skipped == expected
    # the warm-up's 999 tok/s is nowhere in the runs
    assert all(r["output_tok_s"] < 999.0 for r in data["runs"])


def test_repeats_are_aggregated_by_the_median(sweep: tuple[Path, str, dict[str, Any]]) -> None:
    _, _, data = sweep
    engine_of = {}
    for r in data["runs"]:
        seqs = int(re.search(r"max_num_seqs=(\d+)", r["source"]).group(1))
        engine_of[r["engine"]] = seqs
    assert len(engine_of) == 2
    for t in data["tiers"]:
        key = (engine_of[t["engine"]], t["concurrency"])
        assert t["repeats"] == 3
        assert t["output_tok_s"] == pytest.approx(MEDIAN[key], rel=1e-9)
        assert t["output_tok_s_min"] == pytest.approx(min(TOK_S[key]), rel=1e-9)
        assert t["output_tok_s_max"] == pytest.approx(max(TOK_S[key]), rel=1e-9)


def _warnings(data: dict[str, Any]) -> list[str]:
    return [c["message"]["en"] for c in data["checks"] if c["status"] == "warn"]


def test_a_failed_run_is_reported_not_plotted(tmp_path: Path) -> None:
    out = tmp_path / "sweep-out"
    write_sweep(out, SERVE, BENCH, failed=frozenset({(64, 16, 1)}),
                failed_servers=("max_num_seqs=128",))
    data = tables(out)
    runs = data["runs"]
    assert len(runs) == 17
    cell = f"{EXPERIMENT}/SERVE--max_num_seqs=64-BENCH--max_concurrency=16"
    assert sorted((r["source"], r["repeat"]) for r in runs if r["source"].startswith(cell)) == [
        (f"{cell}/run=0.json", 1), (f"{cell}/run=2.json", 2)]
    failure = f"{out.name}/{cell}/run=1.failure.json"
    warnings = _warnings(data)
    said = "a failed run (the client saved a failure record); it has no results and is not plotted"
    assert sorted(w for w in warnings if "failure.json" in w) == [
        f"{failure}: {said}",
        f"{out.name}/{EXPERIMENT}/SERVE-max_num_seqs=128-failure.json: {said}",
    ]
    assert all("failure" not in s["file"] for s in data["skipped"])
    (tier,) = [t for t in data["tiers"] if t["concurrency"] == 16 and t["repeats"] == 2]
    assert tier["output_tok_s"] == pytest.approx((600.0 + 580.0) / 2, rel=1e-9)
    assert tier["output_tok_s_min"] == pytest.approx(580.0, rel=1e-9)
    assert tier["output_tok_s_max"] == pytest.approx(600.0, rel=1e-9)
    assert sum(t["repeats"] for t in data["tiers"]) == 17


def test_serve_only_sweep_takes_concurrency_from_the_json(tmp_path: Path) -> None:
    out = tmp_path / "sweep-out"
    exp = write_sweep(out, SERVE, [{}], cli_concurrency=4)
    assert sorted(p.name for p in exp.iterdir()) == [
        "SERVE--max_num_seqs=32", "SERVE--max_num_seqs=64", "summary.csv"]
    data = tables(out)
    runs = data["runs"]
    assert len(runs) == 6
    assert {r["concurrency"] for r in runs} == {4}
    assert data["round"]["axis"] == "concurrency"
    assert len({r["engine"] for r in runs}) == 2
    for seqs in SEQS:
        mine = [r for r in runs if f"SERVE--max_num_seqs={seqs}/" in r["source"]]
        assert [r["repeat"] for r in mine] == [1, 2, 3]
        assert len({r["engine"] for r in mine}) == 1
        assert [r["output_tok_s"] for r in mine] == pytest.approx(list(TOK_S[(seqs, 4)]),
                                                                  rel=1e-9)
    tiers = {t["engine"]: t for t in data["tiers"]}
    assert len(tiers) == 2
    assert sorted(t["output_tok_s"] for t in tiers.values()) == pytest.approx(
        [MEDIAN[(32, 4)], MEDIAN[(64, 4)]], rel=1e-9)


def test_bench_only_sweep_is_one_configuration(tmp_path: Path) -> None:
    out = tmp_path / "sweep-out"
    exp = write_sweep(out, [{}], BENCH)
    assert sorted(p.name for p in exp.iterdir()) == [
        "BENCH--max_concurrency=1", "BENCH--max_concurrency=16", "BENCH--max_concurrency=4",
        "summary.csv"]
    data = tables(out)
    assert len(data["runs"]) == 9
    assert len({r["engine"] for r in data["runs"]}) == 1
    assert [(t["concurrency"], t["repeats"]) for t in data["tiers"]] == [(1, 3), (4, 3), (16, 3)]
    assert [t["output_tok_s"] for t in data["tiers"]] == pytest.approx(
        [MEDIAN[(32, c)] for c in CONCURRENCY], rel=1e-9)


def test_named_serve_params_label_the_configurations(tmp_path: Path) -> None:
    out = tmp_path / "sweep-out"
    serve = [{"_benchmark_name": "baseline", "max_num_seqs": 32},
             {"_benchmark_name": "tuned", "max_num_seqs": 64}]
    exp = write_sweep(out, serve, BENCH[:2])
    assert (exp / "SERVE--baseline-BENCH--max_concurrency=4" / "run=2.json").is_file()
    data = tables(out)
    assert len(data["runs"]) == 12
    labels = {e["id"]: e["label"]["en"] for e in data["engines"]}
    assert sorted(set(labels.values())) == ["baseline", "tuned"]
    for r in data["runs"]:
        assert labels[r["engine"]] == ("baseline" if "SERVE--baseline-" in r["source"]
                                       else "tuned")


def test_sweep_builds(tmp_path: Path) -> None:
    out = tmp_path / "sweep-out"
    write_sweep(out, SERVE, BENCH)
    html = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", str(out), "-o", str(html), "-q"])
    assert result.exit_code == 0, result.output
    assert html.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")


def test_repeats_follow_the_run_number_past_ten(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TOK_S, (32, 4), tuple(100.0 + i for i in range(11)))
    out = tmp_path / "sweep-out"
    write_sweep(out, [{"max_num_seqs": 32}], [{"max_concurrency": 4}], num_runs=11)
    runs = tables(out)["runs"]
    assert len(runs) == 11
    assert {int(re.search(r"run=(\d+)\.json$", r["source"]).group(1)): r["repeat"]
            for r in runs} == {n: n + 1 for n in range(11)}
