"""Data on file shown (issue 30): GuideLLM's inter_token_latency_ms fills the ITL columns under
GuideLLM's own definition, and the advice for a missing latency names the client's own
setting, never vLLM's flag for another client's files."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.build import assemble_report
from reportgen.load.formats import guidellm
from tests.page_audit import _sections, _texts

DATA = Path(__file__).parent / "data"
GUIDELLM = DATA / "clients" / "guidellm-0.8.1" / "concurrent" / "benchmarks.json"


def test_guidellm_itl_columns_hold_its_inter_token_latency() -> None:
    data = json.loads(GUIDELLM.read_text(encoding="utf-8"))
    runs = guidellm.read(GUIDELLM.read_bytes(), "benchmarks.json")
    for run, bench in zip(runs, data["benchmarks"], strict=True):
        itl = bench["metrics"]["inter_token_latency_ms"]["successful"]
        assert run.record["median_itl_ms"] == itl["median"]
        assert run.record["p99_itl_ms"] == itl["percentiles"]["p99"]
        assert run.record["mean_itl_ms"] == itl["mean"]
        # GuideLLM's own definition: every statistic of it is its own, not recomputable
        assert any(e.metric == "itl" and not e.percentiles for e in run.not_recomputable)


def _texts_of(folder: Path) -> list[str]:
    return [t.en for _, s in _sections(assemble_report(folder).page) for _, t in _texts(s)]


def test_missing_itl_advice_names_the_clients_own_setting() -> None:
    texts = _texts_of(DATA / "llmperf")
    notes = [t for t in texts if t.startswith("Empty cells")]
    assert notes and all("llmperf records no ITL or TPOT" in t for t in notes)
    assert not any("--percentile-metrics" in t for t in texts)


def test_vllm_files_keep_vllms_advice(tmp_path: Path) -> None:
    src = json.loads((DATA / "inferencex" /
                      "minimax_m25_vllm_tep8_isl1024_osl128_conc16.json").read_text())
    # the same run as vLLM writes it, without its ITL: vLLM's flag is the advice
    run = {k: v for k, v in src.items() if not k.startswith(("median_", "p99_"))}
    run |= {"median_ttft_ms": 450.0, "median_tpot_ms": 28.5, "median_e2el_ms": 3869.0,
            "mean_ttft_ms": 460.0, "mean_tpot_ms": 28.6, "mean_e2el_ms": 3900.0,
            "backend": "vllm"}
    (tmp_path / "c16.json").write_text(json.dumps(run), encoding="utf-8")
    notes = [t for t in _texts_of(tmp_path) if t.startswith("Empty cells")]
    assert notes and all("vllm bench serve --percentile-metrics" in t for t in notes)
