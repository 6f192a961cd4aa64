"""DCGM samples and engine gauges as time series (issue 21): a generated round with known
answers (benchmarks/slo_round.py: two GPUs at 150 W for 10 s and 1,000 output tokens per tier,
vLLM KV usage peaking at 0.87 in C=2, 3 preemptions there), in both saved forms, and every
way the alignment can fail said on the page rather than guessed."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from benchmarks.slo_round import (
    TELEMETRY_DURATION_S,
    TELEMETRY_END,
    telemetry_samples,
    write_telemetry_round,
)
from reportgen.analyze.telemetry import window_counter
from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.load.dcgm import dcgm_samples
from reportgen.load.engine_series import engine_series
from reportgen.load.scan import classify
from reportgen.pipeline import analyze_dir


def _round(tmp_path: Path, form: str = "text", offset: str | None = "+08:00") -> Path:
    root = tmp_path / f"round-{form}"
    root.mkdir()
    write_telemetry_round(root, form, offset)
    return root


def _window(c: int) -> tuple[float, float]:
    """Tier C's window in epoch seconds, computed here from the result date (local, +08:00)."""
    end = dt.datetime.strptime(TELEMETRY_END[c], "%Y%m%d-%H%M%S").replace(
        tzinfo=dt.timezone(dt.timedelta(hours=8))).timestamp()
    return end - TELEMETRY_DURATION_S, end


@pytest.mark.parametrize("form", ["text", "json"])
def test_known_answers(tmp_path: Path, form: str) -> None:
    tele = analyze_dir(_round(tmp_path, form)).analysis.first.telemetry
    rows = {int(r["concurrency"]): r for r in tele.to_dict("records")}
    assert set(rows) == {1, 2}
    for c, r in rows.items():
        # two GPUs × 150 W = 300 W; × 10 s = 3,000 J; ÷ 1,000 output tokens = 3 J/tok
        assert r["source"] == "DCGM" and r["status"] == "ok" and r["gpus"] == 2
        assert r["mean_power_w"] == pytest.approx(300.0)
        assert r["energy_j"] == pytest.approx(3000.0)
        assert r["energy_per_output_token_j"] == pytest.approx(3.0)
        assert r["sm_active_pct"] == pytest.approx(60.0)
        assert r["mean_running"] == pytest.approx(c)
        assert r["mean_waiting"] == 0
    assert rows[2]["peak_kv_usage"] == pytest.approx(0.87)
    assert rows[1]["peak_kv_usage"] == pytest.approx(0.40)
    assert (rows[1]["preemptions"], rows[2]["preemptions"]) == (0, 3)
    # the peak again, straight from the generated samples and the window computed here
    for c in (1, 2):
        lo, hi = _window(c)
        kv = [v for n, _, t, v in telemetry_samples()
              if n == "vllm:kv_cache_usage_perc" and lo <= t <= hi]
        assert rows[c]["peak_kv_usage"] == pytest.approx(max(kv))


def test_page_shows_the_columns_and_the_offset(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", "-q", str(_round(tmp_path)), "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    for text in ("Peak KV usage", "SM active", "Preemptions", "offset +08:00",
                 "DCGM_FI_PROF_SM_ACTIVE"):
        assert text in page


def test_no_offset_is_said_not_guessed(tmp_path: Path) -> None:
    analysis = analyze_dir(_round(tmp_path, offset=None)).analysis.first
    assert analysis.telemetry.empty
    assert [n.kind for n in analysis.telemetry_notes] == ["no_offset"]
    out = tmp_path / "r.html"
    CliRunner().invoke(main, ["build", "-q", str(tmp_path / "round-text"), "-o", str(out)])
    assert "gives no <code>[telemetry] utc_offset</code>" in out.read_text(encoding="utf-8")


def test_untimed_scrapes_are_named(tmp_path: Path) -> None:
    analysis = analyze_dir(_round(tmp_path, "untimed")).analysis.first
    assert analysis.telemetry.empty
    (note,) = analysis.telemetry_notes
    assert note.kind == "untimed" and note.files.endswith("series.prom")


def test_a_wrong_offset_leaves_every_sample_outside(tmp_path: Path) -> None:
    analysis = analyze_dir(_round(tmp_path, offset="+06:00")).analysis.first
    assert analysis.telemetry.empty
    assert [n.kind for n in analysis.telemetry_notes] == ["outside"]


def test_counter_reset_falls_back() -> None:
    t = np.array([0.0, 1.0, 2.0, 3.0])
    assert window_counter(t, np.array([0.0, 100e3, 200e3, 300e3]), 0.5, 2.5) \
        == pytest.approx(200.0)     # 100 J/s between the interpolated edges
    assert math.isnan(window_counter(t, np.array([0.0, 100e3, 5.0, 105e3]), 0.5, 2.5))
    assert math.isnan(window_counter(t, np.array([0.0, 1.0, 2.0, 3.0]), -1.0, 2.0))


def _series(rows: list[tuple[str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["name", "labels", "time_s", "value"])


def test_dcgm_sentinel_and_gpu_labels() -> None:
    frame = dcgm_samples(_series([
        ("DCGM_FI_DEV_POWER_USAGE", 'UUID="GPU-b",gpu="1"', 10.0, 250.0),
        ("DCGM_FI_DEV_FB_USED", 'UUID="GPU-b",gpu="1"', 10.0, 9223372036854775794.0),
        ("DCGM_FI_DEV_POWER_USAGE", 'UUID="GPU-a",gpu="0"', 10.0, 200.0),
        ("DCGM_FI_DEV_GPU_TEMP", 'UUID="GPU-a",gpu="0"', 11.0, 60.0),
    ]))
    assert frame["index"].tolist() == [0, 1, 0]
    assert frame["power_draw_w"].iloc[:2].tolist() == [200.0, 250.0]
    assert math.isnan(frame["memory_used_mib"].iloc[1])     # the blank sentinel, not a reading
    assert frame["temperature_gpu_c"].iloc[2] == 60.0


def test_engine_names_of_each_engine() -> None:
    sglang = engine_series(_series([
        ("sglang:num_running_reqs", 'model_name="m"', 1.0, 7.0),
        ("sglang:num_queue_reqs", 'model_name="m"', 1.0, 2.0),
        ("sglang:token_usage", 'model_name="m"', 1.0, 0.5),
        ("sglang:num_retracted_requests_total", 'model_name="m"', 1.0, 4.0)]))
    assert sglang.iloc[0][["running", "waiting", "kv_usage", "preemptions_total"]].tolist() \
        == [7.0, 2.0, 0.5, 4.0] and sglang["engine_kind"].iloc[0] == "sglang"
    llama = engine_series(_series([("llamacpp:requests_processing", "", 1.0, 3.0),
                                   ("llamacpp:requests_deferred", "", 1.0, 1.0)]))
    assert llama.iloc[0][["running", "waiting"]].tolist() == [3.0, 1.0]
    assert math.isnan(llama["kv_usage"].iloc[0])            # not exported: missing, not 0
    # vLLM before 0.9.2: the old KV name; two data-parallel engines: summed, peak = max
    old = engine_series(_series([
        ("vllm:gpu_cache_usage_perc", 'engine="0"', 1.0, 0.3),
        ("vllm:gpu_cache_usage_perc", 'engine="1"', 1.0, 0.6),
        ("vllm:num_requests_running", 'engine="0"', 1.0, 5.0),
        ("vllm:num_requests_running", 'engine="1"', 1.0, 6.0)]))
    assert old.iloc[0][["running", "kv_usage"]].tolist() == [11.0, 0.6]


def test_bad_series_file_exits_2_naming_it(tmp_path: Path) -> None:
    root = _round(tmp_path, "json")
    bad = root / "alpha" / "telemetry" / "series.json"
    bad.write_text(json.dumps({"status": "success", "data": {"resultType": "matrix",
                   "result": [{"metric": {"__name__": "DCGM_FI_DEV_POWER_USAGE"},
                               "values": [[1.0, 300]]}]}}), encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "-q", str(root), "-o", str(tmp_path / "o.html")])
    assert result.exit_code == 2 and "series.json" in result.stderr
    assert "[time, \"value\"]" in result.stderr and not (tmp_path / "o.html").exists()
    assert "Traceback" not in result.output


@pytest.mark.parametrize("value", ["8", "+25:00", 8])
def test_bad_utc_offset_names_round_toml(tmp_path: Path, value: object) -> None:
    root = _round(tmp_path)
    toml = root / "round.toml"
    shown = json.dumps(value)
    toml.write_text(toml.read_text().replace('"+08:00"', shown), encoding="utf-8")
    with pytest.raises(InputError, match=r"round\.toml.*utc_offset"):
        analyze_dir(root)


def test_scan_takes_series_by_content(tmp_path: Path) -> None:
    answer = b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
    assert classify(tmp_path / "x.json", answer)[0] == "series"
    stamped = b"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1 1733270400000\n"
    assert classify(tmp_path / "m.prom", stamped)[0] == "series"
    plain = b"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n"
    assert classify(tmp_path / "m.prom", plain)[0] == "metrics"


def test_any_layout_reads_series_next_to_results(tmp_path: Path) -> None:
    root = _round(tmp_path)
    (root / "round.toml").write_text('[telemetry]\nutc_offset = "+08:00"\n', encoding="utf-8")
    tele = analyze_dir(root).analysis.first.telemetry
    assert tele["peak_kv_usage"].tolist() == pytest.approx([0.40, 0.87])


def test_nvidia_smi_far_from_every_run_is_named(tmp_path: Path) -> None:
    root = _round(tmp_path, "untimed")
    (root / "alpha" / "telemetry" / "series.prom").unlink()
    lines = ["timestamp, index, power.draw [W]"] + [
        f"2026/11/30 12:00:{s:02d}.000, 0, 100.00 W" for s in range(20)]   # a day early
    (root / "alpha" / "gpu.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    analysis = analyze_dir(root).analysis.first
    assert analysis.telemetry.empty
    (note,) = analysis.telemetry_notes
    assert note.kind == "outside" and note.files == "round-untimed/alpha/gpu.csv"
    # a day later the same samples cover C=1 (12:00:00–12:00:10): 100 W × 10 s ÷ 1,000 tok
    (root / "alpha" / "gpu.csv").write_text("\n".join(lines).replace("11/30", "12/01") + "\n",
                                            encoding="utf-8")
    tele = analyze_dir(root).analysis.first.telemetry
    row = tele[tele["concurrency"] == 1].iloc[0]
    assert row["source"] == "nvidia-smi" and row["energy_per_output_token_j"] == \
        pytest.approx(1.0)


def test_results_without_a_date_cannot_be_aligned(tmp_path: Path) -> None:
    root = _round(tmp_path)
    for bench in (root / "alpha" / "bench").glob("*.json"):
        record = json.loads(bench.read_text())
        del record["date"]          # as SGLang's JSONL: no wall-clock time at all
        bench.write_text(json.dumps(record), encoding="utf-8")
    analysis = analyze_dir(root).analysis.first
    assert analysis.telemetry.empty
    assert [(n.kind, n.files) for n in analysis.telemetry_notes] == [
        ("no_window", "round-text/alpha/telemetry/series.prom")]


def test_timeline_with_kv_axis_passes_plotly_validation(tmp_path: Path) -> None:
    import plotly.graph_objects as go

    from reportgen.figures.registry import build_figures
    from reportgen.text.i18n import load_ui

    ui = load_ui(Path(__file__).resolve().parents[1] / "templates" / "i18n" / "ui.toml")
    analysis = analyze_dir(_round(tmp_path)).analysis.first
    for lang in ("zh", "en"):
        (spec,) = [s for s in build_figures(analysis, ui, lang) if s.id == "fig-10"]
        fig = spec.figure.to_dict()
        out = go.Figure(fig).to_dict()
        out["layout"].pop("template", None)
        assert out == fig
        kv = [t for t in fig["data"] if t.get("yaxis") == "y2"]
        assert len(kv) == 1 and fig["layout"]["yaxis2"]["tickformat"] == ".0%"


def test_init_asks_for_the_offset(tmp_path: Path) -> None:
    from reportgen.init_toml import init_text
    from reportgen.load.round import load_round

    root = _round(tmp_path, offset=None)
    (root / "round.toml").unlink()
    result = init_text(load_round(root))
    assert any(t.startswith("telemetry.utc_offset") for t in result.open_keys)
    filled = result.text.replace('# TODO utc_offset = "+00:00"', 'utc_offset = "+08:00"')
    (root / "round.toml").write_text(filled, encoding="utf-8")
    tele = analyze_dir(root).analysis.first.telemetry
    assert tele["energy_per_output_token_j"].tolist() == pytest.approx([3.0, 3.0])
