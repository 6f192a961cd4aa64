"""Self-checks use each client's definitions (issue 30, item 8; issue 33, item 5): unmodified
output of every client passes ``check`` with no fail and no warn that is only a definitional
difference, and which of a client's statistics its own arrays do not reproduce is a typed
field of the run (``ClientRun.not_recomputable``), not a key hidden in ``units``."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from reportgen.analyze.checks import (
    arrays_vs_summary,
    identity_checks,
    not_recomputable,
)
from reportgen.load.formats import NotRecomputable
from reportgen.load.formats import inference_perf as ip
from reportgen.pipeline import analyze_dir
from reportgen.reference.clients import tpot_ties_e2el
from tests.data_paths import SHARED_ROUNDS

CLIENTS = Path(__file__).parent / "data" / "clients"
FOLDERS = sorted(p for p in CLIENTS.iterdir() if p.is_dir())
DEFINITIONAL = ("identity.e2el", "tpot.mean_skew", "plausibility.tpot_below_itl")


def _checks(folder: Path) -> pd.DataFrame:
    analysis = analyze_dir(folder).analysis
    return pd.concat([p.checks for p in analysis.parts], ignore_index=True)


def test_the_entries_cover_what_they_say() -> None:
    every_pct = (NotRecomputable("*", True, "another percentile method"),)
    assert not_recomputable(every_pct, "ttft_median_ms")
    assert not_recomputable(every_pct, "e2el_p99_ms")
    assert not not_recomputable(every_pct, "ttft_mean_ms")   # a mean is comparable
    tpot_all = (NotRecomputable("tpot", False, "weighted"),)
    assert not_recomputable(tpot_all, "tpot_mean_ms")
    assert not not_recomputable(tpot_all, "ttft_median_ms")
    assert not not_recomputable((), "tpot_mean_ms")
    assert not not_recomputable(None, "tpot_mean_ms")


def test_arrays_vs_summary_reads_the_typed_field_not_units() -> None:
    summary = pd.DataFrame({"source": ["f"], "record": [0], "engine": ["e"],
                            "concurrency": [1.0], "tpot_mean_ms": [10.0],
                            "units": [{"tpot_statistics": "a key in units is no longer read"}]})
    recomputed = pd.DataFrame({"source": ["f"], "record": [0], "tpot_mean_ms": [12.0]})
    [row] = arrays_vs_summary(summary, recomputed)
    assert row.status == "fail"
    summary["not_recomputable"] = [(NotRecomputable("tpot", False, "last token"),)]
    assert arrays_vs_summary(summary, recomputed) == []   # nothing compared


def test_a_client_whose_tpot_ends_at_its_last_token_is_not_held_to_the_identity() -> None:
    assert tpot_ties_e2el("vllm") and tpot_ties_e2el("aiperf") and tpot_ties_e2el("tidy")
    assert not tpot_ties_e2el("inference-perf") and not tpot_ties_e2el("guidellm")
    tiers = pd.DataFrame({"engine": ["a", "b"], "concurrency": [1.0, 1.0],
                          "mean_output_tokens": [65.0, 65.0], "ttft_mean_ms": [37.0, 37.0],
                          "tpot_mean_ms": [3.6, 3.6], "e2el_mean_ms": [508.0, 508.0]})
    rows = identity_checks(tiers, ["a", "b"], 65.0, {"b": "inference-perf"})
    by = {(r.engine, r.status, r.message) for r in rows}
    assert ("a", "fail", "off") in by                 # 37 + 64 × 3.6 = 267 vs 508
    assert ("b", "pass", "untied") in by and not any(r.engine == "b" and r.status != "pass"
                                                     for r in rows)


def test_inference_perf_states_its_tpot_is_not_recomputable() -> None:
    raw = (CLIENTS / "inference-perf-0.7.0" / "results" /
           "stage_0_lifecycle_metrics.json").read_bytes()
    [run] = ip.read(raw, "stage_0_lifecycle_metrics.json")
    assert [(e.metric, e.percentiles) for e in run.not_recomputable] == [("tpot", False)]
    assert not any(k.endswith(("_statistics", "_percentiles")) for k in run.units)


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_unmodified_client_output_has_no_fail(folder: Path) -> None:
    checks = _checks(folder)
    assert not (checks["status"] == "fail").any(), checks[checks["status"] == "fail"]


@pytest.mark.parametrize("name", ["inference-perf-0.7.0", "guidellm-0.4.0", "guidellm-0.8.1"])
def test_no_definitional_warn_for_clients_with_their_own_tpot(name: str) -> None:
    checks = _checks(CLIENTS / name)
    warned = checks[(checks["status"] != "pass") & checks["id"].isin(DEFINITIONAL)]
    assert warned.empty, warned
    # nor a summary key that differs from the arrays only by the client's percentile method
    keys = checks[(checks["id"] == "summary.keys") & (checks["status"] == "warn")]
    assert not keys["message"].map(lambda m: "per-request arrays" in m.en).any(), keys


@pytest.mark.shared
def test_the_real_inference_perf_round_has_no_fail() -> None:
    folder = SHARED_ROUNDS / "inference-perf-6-configs-rate-stages-h100"
    checks = _checks(folder)
    stages = sorted(folder.rglob("stage_*_lifecycle_metrics.json"))
    assert stages and all("time_per_output_token" in json.loads(p.read_text())[
        "successes"]["latency"] for p in stages)
    assert not (checks["status"] == "fail").any()
    untied = checks[(checks["id"] == "identity.e2el") & (checks["message"].map(
        lambda m: m.en.startswith("Not tested: inference-perf")))]
    assert len(untied) == len({p.parent.parent.name for p in stages})  # one per configuration


def test_tiers_with_arrays_are_not_judged_on_statistics() -> None:
    # means 100 + 15 × 10 = 250 against 300 (−16.7 %): judged where no arrays exist
    tiers = pd.DataFrame({"engine": ["a", "a"], "concurrency": [1.0, 2.0],
                          "mean_output_tokens": [16.0, 16.0], "ttft_mean_ms": [100.0, 100.0],
                          "tpot_mean_ms": [10.0, 10.0], "e2el_mean_ms": [300.0, 300.0]})
    rows = identity_checks(tiers, ["a"], 16.0, exact={("a", 2.0)})
    by = sorted((r.status, r.message, r.concurrency if r.status != "pass" else 0.0)
                for r in rows)
    assert by == [("pass", "arrays", 0.0), ("warn", "off", 1.0)]
    [arrays] = [r for r in rows if r.message == "arrays"]
    assert arrays.params["tested"] == 1


def test_aiperf_fixture_identity_is_left_to_its_arrays() -> None:
    checks = _checks(CLIENTS / "aiperf-0.13.0")
    identity = checks[checks["id"] == "identity.e2el"]
    assert (identity["status"] == "pass").all(), identity


def test_inferencex_medians_are_not_held_to_an_identity() -> None:
    folder = Path(__file__).parent / "data" / "inferencex"
    files = sorted(folder.glob("*.json"))
    # the files state medians and p99s only: no mean, no per-request array
    assert files and not any(k.startswith("mean_") or isinstance(v, list)
                             for p in files for k, v in json.loads(p.read_text()).items())
    checks = _checks(folder)
    assert not checks[checks["status"] != "pass"]["id"].isin(DEFINITIONAL).any()
    identity = checks[checks["id"] == "identity.e2el"]
    assert len(identity) and identity["message"].map(
        lambda m: "the files give medians only" in m.en).all()
