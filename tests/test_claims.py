"""Every sentence true (issue 31): a comparison is a claim only beyond its noise
(``analyze.claims``), on tiny hand-checkable rounds; and the claims audit
(tests/claims_audit.py) over every fixture round in both languages, shown to fail on an edited
Findings number and on a tie written as a lead."""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from claims_audit import audit
from data_paths import DATA, REAL_ROUNDS, SHARED_ROUNDS
from factories import ROUND_SHAPES, result_json, write_round

from reportgen.analyze import claims
from reportgen.analyze.checks import monotonic_throughput
from reportgen.build import assemble_report
from reportgen.files.resources import sample_round_dir
from reportgen.page.model import Block, Page
from reportgen.pipeline import analyze_dir
from reportgen.text.bilingual import Bi

# ------------------------------------------------------------------------------ the rule itself


def test_a_margin_within_the_threshold_is_no_lead() -> None:
    tie = claims.compare(255.0, 254.2)            # 0.31 % apart: the GuideLLM/TPU case
    assert not tie.leads and tie.noise == 0.02
    assert math.isclose(tie.margin, 255.0 / 254.2 - 1)
    lead = claims.compare(100.0, 103.0)           # 3 % beyond 2 %: the second value leads
    assert lead.leads and lead.first == 1 and lead.best == 103.0
    faster = claims.compare(90.0, 100.0, higher_better=False)   # 10 % less latency
    assert faster.leads and faster.first == 0 and math.isclose(faster.margin, 0.1)
    assert not claims.compare(37.0, 37.0).leads


def test_the_noise_is_the_repeats_spread_where_there_are_repeats() -> None:
    assert claims.spread(100.0, 95.0, 105.0, 3) == pytest.approx(0.10)
    assert math.isnan(claims.spread(100.0, 100.0, 100.0, 1))    # one run: no spread known
    assert math.isnan(claims.spread(100.0))
    assert claims.noise(math.nan, math.nan) == claims.THRESHOLD
    assert claims.noise(0.10, 0.01) == pytest.approx(0.10)
    # 6 % apart is a lead under 2 %, a tie under a 10 % run-to-run spread
    assert claims.compare(106.0, 100.0).leads
    assert not claims.compare(106.0, 100.0, noise_frac=0.10).leads


def test_steps_are_up_flat_or_down_beyond_the_noise() -> None:
    assert claims.steps([100.0, 150.0, 151.0, 140.0]) == ["up", "flat", "down"]
    assert claims.steps([100.0, math.nan, 98.5]) == ["flat"]      # −1.5 %: within 2 %


# ------------------------------------------------------------------------------ check's wording

def _tiers(tok_s: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"engine": "a", "concurrency": [1.0, 2.0, 4.0, 8.0][:len(tok_s)],
                         "output_tok_s": tok_s})


def test_rises_with_every_step_only_when_every_step_rises() -> None:
    [rising] = monotonic_throughput(_tiers([100.0, 190.0, 300.0]), ["a"])
    assert (rising.status, rising.message) == ("pass", "pass")
    [flat] = monotonic_throughput(_tiers([100.0, 190.0, 191.0]), ["a"])   # +0.5 %: flat
    assert (flat.status, flat.message) == ("pass", "flat")
    assert (flat.params["previous"], flat.params["tier"]) == (2.0, 4.0)
    rows = monotonic_throughput(_tiers([100.0, 190.0, 150.0, 151.0]), ["a"])
    assert [(r.status, r.message) for r in rows] == [("warn", "drop")]   # no "pass" besides


# ------------------------------------------------------------------------- Findings on tiny rounds

def _write(path: Path, record: dict) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))


def _findings(folder: Path) -> dict[str, str]:
    page = assemble_report(folder).page
    [section] = [s for s in page.sections if s.id == "findings"]
    [block] = [b for b in section.blocks if isinstance(b, Block)]
    return {lang: re.sub(r"<[^>]+>", "", block.html.get(lang)) for lang in ("en", "zh")}


def test_a_tie_is_written_on_par_and_a_real_lead_as_a_lead(tmp_path: Path) -> None:
    # C=1: 101.0 against 100.0 tok/s (1 %: a tie); C=4: 400.0 against 300.0 (a lead)
    for cfg, tok, n in (("alpha", (100.0, 300.0), 64), ("beta", (101.0, 400.0), 68)):
        for c, t in zip((1, 4), tok, strict=True):
            _write(tmp_path / cfg / f"result-c{c}.json", result_json(t, concurrency=c, n=n))
    text = _findings(tmp_path)
    assert "At the lowest common tier, C=1, output throughput is on par: 101.0 tok/s for " \
           "beta against 100.0 for alpha (within 2.0%)." in text["en"]
    assert "C=1" in text["zh"] and "不分高下" in text["zh"] and "领先：101.0" not in text["zh"]
    assert "At the highest common tier, C=4, beta leads: 400.0 tok/s against 300.0 for " \
           "alpha (1.33×)." in text["en"]


def test_an_open_loop_rate_both_sustain_compares_latency(tmp_path: Path) -> None:
    # 1 req/s: both deliver 128.0 / 127.5 tok/s; E2EL p50 = TTFT + 127 × 10 ms:
    # alpha 50 + 1270 = 1320 ms, beta 150 + 1270 = 1420 ms (7 % slower)
    for cfg, tok, ttft, n in (("alpha", 128.0, 50.0, 64), ("beta", 127.5, 150.0, 68)):
        for r, t in ((1, tok), (4, tok * 3)):
            _write(tmp_path / cfg / f"result-rate{r}.json",
                   result_json(t, rate=r, n=n, ttft_ms=ttft))
    text = _findings(tmp_path)["en"]
    assert "At the lowest common rate, 1 req/s, alpha and beta both deliver the offered load " \
           "(128.0 and 127.5 tok/s, within 2.0%): throughput there is the offered rate and " \
           "ranks nothing. alpha is faster: E2E latency p50 1,320.0 ms against 1,420.0 ms for " \
           "beta." in text
    assert "1 req/s, alpha leads" not in text


def test_a_count_stated_as_completed_and_failed_is_counted(tmp_path: Path) -> None:
    record = result_json(100.0, concurrency=4, n=64) | {"completed": 63, "failed": 1}
    del record["num_prompts"]
    _write(tmp_path / "alpha" / "result-c4.json", record)
    _write(tmp_path / "alpha" / "result-c1.json", result_json(40.0, concurrency=1, n=64))
    checks = analyze_dir(tmp_path).analysis.first.checks
    [failed] = checks[checks["id"] == "requests.failed"]["message"]
    assert failed.en.startswith("C=4: 1 of 64 requests failed") and "?" not in failed.en


# --------------------------------------------------------------------------------- the audit

def _rounds() -> list[object]:
    own = [sample_round_dir() / "round2-rtx4090" if (sample_round_dir() / "round2-rtx4090"
                                                      ).is_dir() else sample_round_dir()]
    own += sorted(p for p in REAL_ROUNDS.iterdir() if p.is_dir())
    own += sorted(p for p in (DATA / "clients").iterdir() if p.is_dir())
    own += [DATA / n for n in ("genai-perf-real", "guidellm-real", "inference_perf",
                               "inferencex", "llmperf")]
    out: list[object] = [pytest.param(p, id=p.name) for p in own]
    names = {p.name for p in own}
    if SHARED_ROUNDS.is_dir():
        out += [pytest.param(p, id=p.name, marks=pytest.mark.shared)
                for p in sorted(SHARED_ROUNDS.iterdir()) if p.is_dir() and p.name not in names]
    return out


@pytest.mark.parametrize("folder", _rounds())
def test_every_fixture_round_says_only_what_its_tables_carry(folder: Path) -> None:
    page = assemble_report(folder).page
    assert audit(page, analyze_dir(folder).analysis.parts) == []


@pytest.mark.parametrize("shape", ROUND_SHAPES)
def test_every_round_shape_says_only_what_its_tables_carry(tmp_path: Path, shape: str) -> None:
    folder = write_round(tmp_path / shape, shape)
    assert audit(assemble_report(folder).page, analyze_dir(folder).analysis.parts) == []


def _edit_findings(page: Page, edit: dict[str, tuple[str, str]]) -> Page:
    """The page with its Findings text edited: ``{lang: (old, new)}``."""
    sections = []
    for s in page.sections:
        if s.id == "findings":
            blocks = [dataclasses.replace(b, html=Bi(*(
                type(b.html.get(lang))(str(b.html.get(lang)).replace(*edit[lang]))
                if lang in edit else b.html.get(lang) for lang in ("zh", "en"))))
                if isinstance(b, Block) else b for b in s.blocks]
            s = dataclasses.replace(s, blocks=blocks)
        sections.append(s)
    return dataclasses.replace(page, sections=sections)


def test_the_audit_fails_on_an_edited_findings_number() -> None:
    folder = REAL_ROUNDS / "rtxpro6000-maxq-vs-ws-concurrency-repeats"
    page = assemble_report(folder).page
    parts = analyze_dir(folder).analysis.parts
    assert audit(page, parts) == []
    views = page.views
    assert views, "the vendored repeats round has two workloads"
    first = views[0]
    edited_sections = _edit_findings(dataclasses.replace(page, sections=first.sections, views=[]),
                                     {"en": ("63.5 tok/s", "64.4 tok/s")}).sections
    edited = dataclasses.replace(page, views=[dataclasses.replace(first, sections=edited_sections),
                                              *views[1:]])
    problems = audit(edited, parts)
    assert problems and all("64.4 is in no table" in p for p in problems)


def test_the_audit_fails_on_a_tie_written_as_a_lead(tmp_path: Path) -> None:
    for cfg, tok, n in (("alpha", (100.0, 300.0), 64), ("beta", (101.0, 400.0), 68)):
        for c, t in zip((1, 4), tok, strict=True):
            _write(tmp_path / cfg / f"result-c{c}.json", result_json(t, concurrency=c, n=n))
    page = assemble_report(tmp_path).page
    parts = analyze_dir(tmp_path).analysis.parts
    assert audit(page, parts) == []
    lead = _edit_findings(page, {"en": (
        "output throughput is on par: 101.0 tok/s for beta against 100.0 for alpha "
        "(within 2.0%)", "beta leads: 101.0 tok/s against 100.0 for alpha (1.01×)")})
    problems = audit(lead, parts)
    assert len(problems) == 1 and "a tie written as a lead (101.0 against 100.0)" in problems[0]


# ------------------------------------------------------------------------------------ check

def test_check_fits_100_columns_names_rates_as_rates_and_warns_nothing(tmp_path: Path) -> None:
    import shutil
    import warnings

    from click.testing import CliRunner

    from reportgen.cli import main

    # a mixed-client round (four clients' fixtures in one folder) and a rate sweep whose
    # configuration name is longer than the terminal
    for name in ("guidellm-0.8.1", "aiperf-0.8.0", "inference-perf-0.7.0", "genai-perf-0.0.16"):
        shutil.copytree(DATA / "clients" / name, tmp_path / "mixed" / name)
    long = "a-configuration-" + "x" * 120
    for r, tok, failed in ((1.5, 190.0, 1), (4, 400.0, 0)):   # one failure at 1.5 req/s
        _write(tmp_path / "rate" / long / f"result-rate{r}.json",
               result_json(tok, rate=r, n=64, model="org/" + long)
               | {"completed": 64 - failed, "failed": failed})
    for folder in (tmp_path / "mixed", tmp_path / "rate"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # a library warning fails the test
            result = CliRunner().invoke(main, ["check", str(folder)])
        assert result.exit_code in (0, 1), result.output
        lines = result.output.splitlines()
        assert max(len(line) for line in lines) <= 100
        assert not any(re.search(r"\bC=1\.5\b|\bC=4\b", line) for line in lines) \
            or folder.name == "mixed"
    assert re.search(r"x+ 1\.5 req/s\s+1\.5 req/s: 1 of 64 requests failed", result.output), \
        result.output


# ------------------------------------------------------------------------ index and init

def test_index_says_nothing_to_rebuild_when_nothing_changed(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from reportgen.cli import main

    folder = write_round(tmp_path / "r1", "bare")
    site = tmp_path / "site"
    first = CliRunner().invoke(main, ["index", str(folder), "-o", str(site), "-q", "-j", "1"])
    assert first.exit_code == 0 and first.output.startswith("wrote ")
    again = CliRunner().invoke(main, ["index", str(folder), "-o", str(site), "-q", "-j", "1"])
    assert again.exit_code == 0 and again.output.startswith("nothing to rebuild: ")
    assert "wrote" not in again.output


def test_init_writes_the_gpu_each_configuration_names(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from reportgen.cli import main

    for cfg, gpu, n in (("a", "NVIDIA H100 80GB HBM3", 64), ("b", "NVIDIA A100-SXM4-80GB", 68)):
        for c in (1, 4):
            _write(tmp_path / cfg / f"result-c{c}.json", result_json(100.0 * c, concurrency=c,
                                                                     n=n))
        (tmp_path / cfg / "meta.json").write_text(json.dumps({"gpu_name": gpu}))
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "round.toml").read_text()
    assert "no file names the GPU" not in text and "hardware.gpu" not in result.output
    assert 'gpu = "NVIDIA H100 80GB HBM3"  # from ' in text
    assert 'gpu = "NVIDIA A100-SXM4-80GB"  # from ' in text


# ----------------------------------------------------------------------------------- diff

def test_diff_tags_each_change_inside_or_outside_the_repeats_spread() -> None:
    from reportgen.analyze.changes import as_json, diff_tables, group_changes
    from reportgen.console import diff_markdown, diff_text

    def tables(tok_s: float, itl: float) -> dict:
        # three repeats at C=8: output 100, 102, 104 tok/s (spread 4 / 102 = 3.92 %),
        # ITL p50 10.0, 10.05, 10.1 ms (spread 0.1 / 10.05 = 1.0 %)
        runs = [{"engine": "a", "concurrency": 8, "repeat": i, "output_tok_s": t,
                 "itl_p50_ms": m, "source": f"r/a/c8-{i}.json"}
                for i, (t, m) in enumerate(((100.0, 10.0), (102.0, 10.05), (104.0, 10.1)))]
        return {"round": {"axis": "concurrency"}, "runs": runs,
                "tiers": [{"engine": "a", "concurrency": 8, "output_tok_s": tok_s,
                           "itl_p50_ms": itl}]}

    old, new = tables(102.0, 10.05), tables(103.0, 10.55)
    diff = group_changes(diff_tables(old, new), new, old)
    figures = {f.name: f for f in diff.figures}
    tok, itl = figures["tiers.output_tok_s"], figures["tiers.itl_p50_ms"]
    assert tok.noise == pytest.approx(4 / 102) and tok.within_noise is True    # +0.98 %
    assert itl.noise == pytest.approx(0.1 / 10.05) and itl.within_noise is False   # +5.0 %
    text = diff_text(diff)
    assert "within 3.9% spread" in text and re.search(r"beyond 1\.0+% spread", text)
    assert "| within 3.9% spread |" in diff_markdown(diff)
    [group] = as_json(diff)["groups"]
    tags = {f["name"]: (f["within_noise"], round(f["noise"], 4)) for f in group["figures"]}
    assert tags == {"tiers.output_tok_s": (True, 0.0392), "tiers.itl_p50_ms": (False, 0.01)}
    # a round without repeats says nothing of noise (no column, null in JSON)
    single = {k: v for k, v in new.items() if k != "runs"}
    plain = group_changes(diff_tables({k: v for k, v in old.items() if k != "runs"}, single),
                          single)
    assert "spread" not in diff_text(plain)
    assert all(f["within_noise"] is None for g in as_json(plain)["groups"] for f in g["figures"])


# ---------------------------------------------------------------------------------- tables

def test_tables_put_rates_under_request_rate_and_state_the_unbounded_one(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from reportgen.cli import main

    folder = write_round(tmp_path / "rate", "rate")   # 1, 2, 4, 8, 16 req/s and inf
    result = CliRunner().invoke(main, ["tables", str(folder)])
    assert result.exit_code == 0
    tiers = json.loads(result.output)["tiers"]
    assert {r["concurrency"] for r in tiers} == {None}
    assert [r["request_rate"] for r in tiers if r["engine"] == tiers[0]["engine"]] == \
        [1, 2, 4, 8, 16, "inf"]
    # CSV: one file per table in a folder; the stdout form keeps its `# name` blocks
    out = tmp_path / "csv"
    result = CliRunner().invoke(main, ["tables", str(folder), "--format", "csv", "-o", f"{out}/"])
    assert result.exit_code == 0, result.output
    assert {"tiers.csv", "checks.csv", "values.csv"} <= {p.name for p in out.iterdir()}
    rows = (out / "tiers.csv").read_text().splitlines()
    head = rows[0].split(",")
    at = head.index("request_rate")
    assert head[at - 1] == "concurrency"
    assert [r.split(",")[at] for r in rows[1:7]] == ["1.0", "2.0", "4.0", "8.0", "16.0", "inf"]
    assert all(r.split(",")[at - 1] == "" for r in rows[1:])
    # the runs table states the unbounded rate too, in JSON and CSV
    runs = json.loads(CliRunner().invoke(main, ["tables", str(folder)]).output)["runs"]
    assert "inf" in [r["request_rate"] for r in runs] and None not in \
        [r["request_rate"] for r in runs]
    runs_csv = (out / "runs.csv").read_text().splitlines()
    at = runs_csv[0].split(",").index("request_rate")
    assert "inf" in [r.split(",")[at] for r in runs_csv[1:]]
    blocks = CliRunner().invoke(main, ["tables", str(folder), "--format", "csv"]).output
    assert blocks.startswith("# tiers\n")
    # diff reads the tables JSON back: the same round, no changes
    (tmp_path / "t.json").write_text(CliRunner().invoke(main, ["tables", str(folder)]).output)
    same = CliRunner().invoke(main, ["diff", str(tmp_path / "t.json"), str(folder)])
    assert same.exit_code == 0 and same.output.strip() == "no changes"


# --------------------------------------------------------------------------------- figures

def test_the_ranking_of_many_long_named_configurations_stays_legible(tmp_path: Path) -> None:
    from reportgen.figures.margins import FIGURE_WIDTH_PX, text_px
    from reportgen.figures.ranking import ranking_figure, short_labels
    from reportgen.files.resources import templates_dir
    from reportgen.text.i18n import load_ui

    # 8 characters: the first 5, "…", the last 2 (where these differ)
    assert short_labels(["abcdefghij-1", "abcdefghij-2"], 8) == ["abcde…-1", "abcde…-2"]
    # at 5 and 6 both would read "ab-…1" / "ab-…-1": the limit grows until they differ
    assert short_labels(["ab-xxxx-1", "ab-yyyy-1"], 5) == ["ab-x…-1", "ab-y…-1"]
    # 19 configurations at one rate, each folder named by a long provider path
    for i in range(19):
        _write(tmp_path / f"provider_{i % 3}-togethercomputer-llama-2-{7 + i}b-chat-hf"
               / "result-rate4.json",
               result_json(100.0 + 7 * i, rate=4, n=60 + i, ttft_ms=50.0 + i, itl_ms=10.0 + i))
    part = analyze_dir(tmp_path).analysis.first
    ui = load_ui(templates_dir() / "i18n" / "ui.toml").for_axis(part.round.axis)
    for lang in ("en", "zh"):
        fig = ranking_figure(part, ui, lang)
        assert fig is not None
        names = fig.data[0]["y"]
        assert len(set(names)) == 19 and max(len(n) for n in names) <= 28
        assert sorted(fig.data[0]["customdata"]) == sorted(
            b.get(lang) for b in part.labels().values())   # the full name in the hover
        axes = [a for k, a in sorted(fig.layout.items()) if k.startswith("xaxis")]
        left = max(text_px(n) for n in names)
        for axis in axes:   # every title line fits its panel: no two titles overprint
            lo, hi = axis["domain"]
            panel = (FIGURE_WIDTH_PX - left - 60) * (hi - lo)
            assert all(text_px(line) <= panel + 1 for line in axis["title"]["text"].split("<br>"))


# ------------------------------------------------------------------------- small samples

def test_a_percentile_on_too_few_values_is_marked_with_its_n() -> None:
    from reportgen.analyze.distributions import few_samples, needed

    assert (needed(99.0), needed(99.9), needed(95.0), needed(50.0)) == (100, 1000, 20, 2)
    assert few_samples(32) == "p99, p99.9"        # the p99 of 32 requests
    assert few_samples(200) == "p99.9"            # and p99.9 of 200
    assert few_samples(1000) == "" and few_samples(0) == ""
    assert few_samples(8) == "p90, p95, p99, p99.9"
    folder = DATA / "clients" / "guidellm-0.8.1"   # 8 requests per tier
    part = analyze_dir(folder).analysis.parts[0]
    dist = part.distributions
    assert (dist.loc[dist["count"] == 8, "few_samples"] == "p90, p95, p99, p99.9").all()
    page = assemble_report(folder).page
    sections = page.views[0].sections if page.views else page.sections
    [section] = [s for s in sections if s.id == "distributions"]
    from reportgen.page.model import Table

    [table] = [b for b in section.blocks if isinstance(b, Table)]
    row = [c.text.en for c in table.rows[0].cells]
    assert row[3] == "8" and row[4].endswith(("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))
    assert all(cell.endswith(" *") for cell in row[5:])     # p90 … p99.9 of 8 values
    assert "A percentile marked * rests on fewer values" in table.caption.en


def test_a_ttft_p99_of_fewer_than_100_requests_is_marked_in_the_tiers_table() -> None:
    from reportgen.page.model import Table

    page = assemble_report(DATA / "clients" / "guidellm-0.8.1").page   # 8 requests a tier
    sections = page.views[0].sections if page.views else page.sections
    [section] = [s for s in sections if s.id == "data"]
    table = next(b for b in section.blocks if isinstance(b, Table))
    at = [c.label.en for c in table.columns].index("TTFT p99")
    done = [c.label.en for c in table.columns].index("Done")
    for row in table.rows:
        cells = [c.text.en for c in row.cells]
        assert cells[done] == "8" and cells[at].endswith(" *")
    assert table.caption is not None and "fewer than 100 completed requests" in table.caption.en


def test_the_lowest_rate_is_the_lowest_and_a_lone_rate_the_only_one() -> None:
    folder = REAL_ROUNDS / "sglang-jsonl-h200-request-rate"
    page = assemble_report(folder).page
    parts = analyze_dir(folder).analysis.parts
    for view, part in zip(page.views, parts, strict=True):
        rates = sorted(set(part.tiers["concurrency"].astype(float)))
        [headline] = [s for s in view.sections if s.id == "headline"]
        text = " ".join(t for t in _card_texts(headline) if "single-stream" in t)
        if len(rates) == 1:
            assert "the only rate, ∞ req/s" in text or "the only rate, " in text
        else:
            low = f"{rates[0]:g}"
            assert f"the lowest rate, {low} req/s" in text, text


def _card_texts(section: object) -> list[str]:
    from reportgen.page.model import Cards

    return [str(c.sub.en) for b in getattr(section, "blocks", []) if isinstance(b, Cards)
            for c in b.cards]


def test_curves_that_meet_within_the_noise_are_no_ranking_change(tmp_path: Path) -> None:
    # alpha / beta = 101 / 100 at C=1 and 199 / 200 at C=4: a crossing, both sides within 2 %
    for cfg, tok, n in (("alpha", (101.0, 199.0), 64), ("beta", (100.0, 200.0), 68)):
        for c, t in zip((1, 4), tok, strict=True):
            _write(tmp_path / cfg / f"result-c{c}.json", result_json(t, concurrency=c, n=n))
    values = analyze_dir(tmp_path).analysis.first.values
    assert values["crossover.count"] == 1 and values["findings.crossover_claim"] == "par"
    text = _findings(tmp_path)["en"]
    assert "but no tier on either side shows a lead beyond the noise (2.0%)" in text
    assert "The throughput ranking changes" not in text
    # the sample's crossing is a change: llama.cpp leads 2.61× at C=1, vLLM 1.24× at C=16
    sample = analyze_dir(sample_round_dir()).analysis.first.values
    assert sample["findings.crossover_claim"] == "change"


def test_a_crossing_within_the_noise_is_no_crossing_card(tmp_path: Path) -> None:
    # the same round as above: the headline card says the curves are on par near the crossing
    for cfg, tok, n in (("alpha", (101.0, 199.0), 64), ("beta", (100.0, 200.0), 68)):
        for c, t in zip((1, 4), tok, strict=True):
            _write(tmp_path / cfg / f"result-c{c}.json", result_json(t, concurrency=c, n=n))
    page = assemble_report(tmp_path).page
    parts = analyze_dir(tmp_path).analysis.parts
    [headline] = [s for s in page.sections if s.id == "headline"]
    from reportgen.page.model import Cards

    cards = [c for b in headline.blocks if isinstance(b, Cards) for c in b.cards]
    values = [str(c.value.en) for c in cards]
    assert not any("cross at" in str(c.label.en) for c in cards)
    [par] = [c for c in cards if str(c.value.en).startswith("on par near C ≈")]
    assert "leads beyond the noise (2.0%)" in str(par.sub.en), values
    assert "不分高下" in str(par.value.zh)
    assert audit(page, parts) == []
    # the audit catches the card written as a crossing
    crossing = dataclasses.replace(par, label=Bi("吞吐曲线交叉点", "Throughput curves cross at"),
                                   value=Bi("C ≈ 2.0", "C ≈ 2.0"))
    edited = [dataclasses.replace(b, cards=[crossing if c is par else c for c in b.cards])
              if isinstance(b, Cards) else b for b in headline.blocks]
    page = dataclasses.replace(page, sections=[
        dataclasses.replace(s, blocks=edited) if s is headline else s for s in page.sections])
    problems = audit(page, parts)
    assert len(problems) == 2 and all("written as a ranking change" in p for p in problems)


def test_a_cell_marked_both_ways_reads_the_same_in_both_tables(tmp_path: Path) -> None:
    """† (synthetic input) and * (a percentile on too few values) on one cell: one order on
    every table (`108.95† *`), both marks explained under it, in both languages."""
    from reportgen.page.model import Table

    folder = tmp_path / "r"
    shutil.copytree(DATA / "clients" / "guidellm-0.8.1", folder)   # 8 requests a tier
    (folder / "round.toml").write_text('[provenance]\nstatus = "synthetic"\n', encoding="utf-8")
    page = assemble_report(folder).page
    sections = page.views[0].sections if page.views else page.sections
    seen = 0
    for section in sections:
        for table in (b for b in section.blocks if isinstance(b, Table)):
            texts = [c.text for row in table.rows for c in row.cells]
            both = [t for t in texts if "*" in t.en and "†" in t.en]
            if not both:
                continue
            seen += 1
            for t in both:
                for lang in ("zh", "en"):
                    assert re.fullmatch(r"[\d,.]+† \*", t.get(lang)), t.get(lang)
            for lang in ("zh", "en"):
                note = str(table.note.get(lang)) if table.note else ""
                caption = str(table.caption.get(lang)) if table.caption else ""
                assert "†" in note + caption and "*" in note + caption, (lang, note, caption)
                assert "。 " not in note + caption    # zh notes join without a space
    assert seen == 2    # the tiers table's TTFT p99 and the percentile table
