"""The baseline round ("Since the previous round"): the sample's Round 1 as published, a round
folder and its report giving the same page, baseline.toml validation, escaping, and a missing
baseline leaving a note rather than breaking a copied round."""

from __future__ import annotations

import html
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from data_paths import REFERENCE as REFERENCE_DIR
from data_paths import SEED

from reportgen.build import build_report
from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.sources.baseline import from_published, load_baseline
from reportgen.sources.diff import tables_from_html

HERE = Path(__file__).resolve()
SAMPLES = HERE.parents[1] / "sample_runs"
SAMPLE = SAMPLES / "round2-rtx4090"
REFERENCE = REFERENCE_DIR / "published_figures.toml"
HOSTILE = "<img src=x onerror=alert(1)>"


def section(page: str, sid: str, lang: str) -> str:
    """A section's visible text in one language (the other language's spans removed)."""
    start = page.index(f'<section id="{sid}"')
    body = page[start:page.index("</section>", start)]
    other = "en" if lang == "zh" else "zh"
    body = re.sub(rf'<(div|span)[^>]*data-l="{other}"[^>]*>.*?</\1>', "", body, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def table_rows(page: str, sid: str, lang: str) -> list[list[str]]:
    start = page.index(f'<section id="{sid}"')
    body = page[start:page.index("</section>", start)]
    other = "en" if lang == "zh" else "zh"
    body = re.sub(rf'<(div|span)[^>]*data-l="{other}"[^>]*>.*?</\1>', "", body, flags=re.S)
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, flags=re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return rows


def figs(page: str) -> dict:
    raw = re.search(r'<script type="application/json" id="report-figs">(.*?)</script>', page,
                    re.S)
    assert raw
    return json.loads(raw.group(1))


# ----------------------------------------------------------------- the sample: Round 1 published

def published_round1() -> dict[str, float | str]:
    """What the published Round 2 report says about Round 1, parsed from its text."""
    seed = SEED.read_text(encoding="utf-8")
    ref = tomllib.loads(REFERENCE.read_text(encoding="utf-8"))
    crossover = re.search(r"不是第一轮估计的 C≈(\d+)", seed)
    hits = re.search(r"(\d+)% 的请求白拿了 prefill", seed)
    failed = re.search(r"掉了 (\d+) 条请求。本轮只掉 (\d+) 条", seed)
    tiers = re.search(r"只测了 ([\d /]+?) 三个点", seed)
    assert crossover and hits and failed and tiers, "the seed report changed shape"
    assert float(crossover.group(1)) == ref["crossover"]["round1_crossover_concurrency"]
    return {
        "crossover_old": float(crossover.group(1)),
        "crossover_new": ref["crossover"]["crossover_concurrency"],
        "hits": float(hits.group(1)) / 100,
        "failed_old": float(failed.group(1)), "failed_new": float(failed.group(2)),
        "tiers_old": " · ".join(t.strip() for t in tiers.group(1).split("/")),
        "tier_count_old": len(tiers.group(1).split("/")),
        "tier_count_new": len(ref["setup"]["concurrency"]),
        "tiers_new": " · ".join(str(c) for c in ref["setup"]["concurrency"]),
    }


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = build_report(SAMPLE, tmp_path_factory.mktemp("sample") / "report.html")
    return out.read_text(encoding="utf-8")


def _num(text: str) -> float:
    return float(text.replace(",", "").replace("%", "").replace("pp", "").strip())


def test_sample_baseline_section_shows_the_published_deltas(sample_page: str) -> None:
    p = published_round1()
    rows = {r[0]: r[1:] for r in table_rows(sample_page, "baseline", "en") if r}
    crossover = rows["Throughput crossover C"]
    assert _num(crossover[0]) == p["crossover_old"]
    assert crossover[1] == f"{p['crossover_new']:.1f}"
    assert _num(crossover[2]) == pytest.approx(p["crossover_new"] - p["crossover_old"], abs=0.06)
    assert _num(crossover[3]) / 100 == pytest.approx(
        p["crossover_new"] / p["crossover_old"] - 1, abs=0.01)
    failed = rows["Failed requests"]
    assert _num(failed[0].split("(")[0]) == p["failed_old"] and _num(failed[1]) == p["failed_new"]
    assert _num(failed[2]) == p["failed_new"] - p["failed_old"]
    assert rows["Tiers"] == [p["tiers_old"], p["tiers_new"]]
    assert [_num(x) for x in rows["Number of tiers"]] == [p["tier_count_old"],
                                                          p["tier_count_new"]]
    hits = rows["llama.cpp Q4_K_M prompt-cache hits"]
    assert _num(hits[0].split("(")[0]) / 100 == pytest.approx(p["hits"])
    assert hits[1] == "—"                      # never measured in Round 2: not made up
    assert rows["llama.cpp Q4_K_M prompt cache"][0].startswith("on")
    assert rows["llama.cpp Q4_K_M prompt cache"][1] == "off"
    text = section(sample_page, "baseline", "en")
    assert "as published" in text and "no data was made up" in text
    assert "no figure overlays its curves" in text
    zh = section(sample_page, "baseline", "zh")
    assert "按原文发表值" in zh and "与上一轮相比" in zh


def test_sample_narrative_states_the_comparison_from_placeholders(sample_page: str) -> None:
    p = published_round1()
    en = section(sample_page, "baseline", "en")
    zh = section(sample_page, "baseline", "zh")
    old, new = int(p["crossover_old"]), f"{p['crossover_new']:.1f}"
    assert f"near C≈{old}" in en and f"sits at C≈{new}" in en
    assert f"C≈{old}" in zh and f"C≈{new}" in zh
    hits = f"{p['hits']:.0%}"
    assert f"{hits} of the requests" in en and f"{hits} 的请求" in zh
    assert f"from {int(p['failed_old'])} to {int(p['failed_new'])}" in en
    assert f"从 {int(p['failed_old'])} 条降到 {int(p['failed_new'])} 条" in zh
    assert f"from {p['tier_count_old']} tiers ({p['tiers_old']}) to {p['tier_count_new']}" in en


def test_round1_is_declared_as_published() -> None:
    b = from_published(SAMPLES / "round1-rtx4090" / "baseline.toml")
    assert b.as_published and b.tiers.empty
    assert "Round 2 report" in b.source.en          # type: ignore[union-attr]
    assert not any((SAMPLES / "round1-rtx4090").glob("**/*.json"))   # no raw data invented


# ------------------------------------------------------------- a folder and its report agree

def older_round(root: Path, label: str = "vLLM BF16") -> Path:
    """The sample with vLLM's C=64 run left out and a new title: a round to compare with."""
    older = root / "older"
    shutil.copytree(SAMPLE, older, ignore=shutil.ignore_patterns("narrative"))
    for f in (older / "vllm" / "bench").glob("*concurrency64-*"):
        f.unlink()
    for f in (older / "vllm" / "metrics").glob("c64-*"):
        f.unlink()
    text = (older / "round.toml").read_text(encoding="utf-8")
    text = text.split("\n[baseline]")[0]
    text = re.sub(r'^title = .*$', f'title = {{ zh = "较早一轮 {HOSTILE}", en = "Older '
                  f'round {HOSTILE}" }}', text, count=1, flags=re.M)
    text = text.replace('label = "vLLM BF16"', f'label = "{label}"')
    (older / "round.toml").write_text(text, encoding="utf-8")
    return older


@pytest.fixture(scope="module")
def older(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return older_round(tmp_path_factory.mktemp("older"), f"vLLM {HOSTILE}")


def test_report_html_gives_the_same_page_as_the_round_folder(older: Path, tmp_path: Path) -> None:
    report = build_report(older, tmp_path / "older.html")
    from_dir = build_report(SAMPLE, tmp_path / "a.html", baseline=older).read_bytes()
    from_report = build_report(SAMPLE, tmp_path / "b.html", baseline=report).read_bytes()
    assert from_dir == from_report
    page = from_dir.decode("utf-8")
    rows = {r[0]: r[1:] for r in table_rows(page, "baseline", "en") if r}
    assert "vLLM <img src=x onerror=alert(1)> efficiency" not in rows  # this round's label wins
    slope = rows["vLLM BF16 marginal cost per slot, ms"]
    tables = tables_from_html(report)
    old = tables["values"]["engines.vllm.ms_per_slot"]
    assert slope[0] == f"{old:.3f}" and slope[0] != slope[1]
    assert _num(slope[2]) == pytest.approx(_num(slope[1]) - old, abs=0.0011)
    assert rows["Requests in all"] == [f"{tables['values']['setup.requests_total']:,}", "2,664"]
    assert rows["Failed requests"][2:] == ["±0", "±0%"]
    for cells in rows.values():                              # never "-0.0" or "+0%"
        assert not any(re.fullmatch(r"[-+]0(\.0+)?( pp|%)?", c) for c in cells[2:]), cells
    assert "the baseline's curves, dashed" in section(page, "baseline", "en")


def test_baseline_curves_are_dashed_in_one_legend_group(older: Path, tmp_path: Path) -> None:
    page = build_report(SAMPLE, tmp_path / "a.html", baseline=older).read_text(encoding="utf-8")
    data = figs(page)
    overlaid = {}
    for f in data["figs"]:
        base = [t for t in f["fig"]["data"] if t.get("legendgroup") == "baseline"]
        overlaid[f["id"]] = base
        for t in base:
            assert t["line"]["dash"] == "dash"
    assert {k for k, v in overlaid.items() if v} == {"fig-1", "fig-2", "fig-4", "fig-6"}
    assert len(overlaid["fig-1"]) == 2
    # vLLM's C=64 is absent from the older round: its dashed curve stops at C=32
    vllm = next(t for t in overlaid["fig-1"] if "vLLM" in t["name"])
    assert "&lt;img" in vllm["name"] and "<img" not in vllm["name"]
    group = overlaid["fig-1"][0]["legendgrouptitle"]["text"]
    assert "&lt;img src=x" in group and "<img" not in group
    assert HOSTILE not in page


def test_without_a_baseline_the_page_has_no_section(tmp_path: Path) -> None:
    copy = tmp_path / "round"
    shutil.copytree(SAMPLE, copy)
    toml = copy / "round.toml"
    toml.write_text(toml.read_text(encoding="utf-8").split("\n[baseline]")[0], encoding="utf-8")
    (copy / "narrative" / "baseline.en.md").unlink()
    (copy / "narrative" / "baseline.zh.md").unlink()
    page = build_report(copy, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="baseline"' not in page
    assert not any(t.get("legendgroup") == "baseline"
                   for f in figs(page)["figs"] for t in f["fig"]["data"])


def test_missing_baseline_from_round_toml_leaves_a_note(tmp_path: Path) -> None:
    copy = tmp_path / "round"            # ../round1-rtx4090 is not beside the copy
    shutil.copytree(SAMPLE, copy)
    page = build_report(copy, tmp_path / "r.html").read_text(encoding="utf-8")
    text = section(page, "baseline", "en")
    assert "../round1-rtx4090" in text and "no previous round was found" in text
    assert "The first round placed" not in text     # prose about a baseline not there is left out


# ------------------------------------------------------------------------- bad input

def write(path: Path, text: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "baseline.toml").write_text(text, encoding="utf-8")
    return path


GOOD = '''[baseline]
title = "Old"
source = "a blog post"
[values]
"crossover.concurrency" = 12
'''


@pytest.mark.parametrize("text, message, line", [
    (GOOD.replace('"crossover.concurrency"', '"crossover.concurency"'),
     "'crossover.concurency': not a figure", 5),
    (GOOD.replace('source = "a blog post"\n', ""), "[baseline] source", None),
    (GOOD.replace("= 12", "= [1, 2]"), "expected a number or text", 5),
    (GOOD + "[extra]\n", "unknown table [extra]", 6),
    (GOOD.replace("[values]", "[values"), "invalid TOML", None),
])
def test_bad_baseline_toml(tmp_path: Path, text: str, message: str, line: int | None) -> None:
    folder = write(tmp_path / "old", text)
    with pytest.raises(InputError) as err:
        load_baseline(folder)
    assert message in str(err.value)
    assert "baseline.toml" in str(err.value)
    if line is not None:
        assert err.value.line == line


def test_cli_baseline_errors_exit_2(tmp_path: Path) -> None:
    not_report = tmp_path / "x.html"
    not_report.write_text("<html>hello</html>", encoding="utf-8")
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(out), "-q",
                                       "--baseline", str(not_report)])
    assert result.exit_code == 2
    assert "x.html: no report-data JSON found" in result.output
    assert not out.exists()
    result = CliRunner().invoke(main, ["build", "-o", str(out), "--baseline",
                                       str(tmp_path / "nope")])
    assert result.exit_code == 2 and not out.exists()


def test_published_baseline_from_cli(tmp_path: Path) -> None:
    folder = write(tmp_path / "old", GOOD.replace('title = "Old"', f'title = "{HOSTILE}"'))
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-o", str(out), "-q",
                                       "--baseline", str(folder)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert HOSTILE not in page and html.escape(HOSTILE, quote=False) in page
    rows = {r[0]: r[1:] for r in table_rows(page, "baseline", "en") if r}
    assert _num(rows["Throughput crossover C"][0]) == 12
    # the sample's prose names figures this baseline did not publish: shown as missing
    assert "near C≈12" in section(page, "baseline", "en")
    assert "— of the requests" in section(page, "baseline", "en")
