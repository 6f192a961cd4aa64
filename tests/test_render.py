"""The rendered page: structure, escaping, CSP, bundle choice, language, determinism."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from figure_registry import drawn_ids
from page_fixture import make_analysis

from reportgen.analyze.round_facts import RoundInfo
from reportgen.errors import InputError
from reportgen.files.resources import templates_dir
from reportgen.page.model import Cell, Row
from reportgen.pipeline import page_date, render_analysis
from reportgen.render import environment, plotly_bundle, script_json, table_rows
from reportgen.tables import to_json_dict
from reportgen.text.bilingual import Bi

REPO = Path(__file__).resolve().parents[1]
HOSTILE_SCRIPT = "</script><script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def html(tmp_path_factory: pytest.TempPathFactory) -> str:
    return render_analysis(make_analysis(), tmp_path_factory.mktemp("round"))


def script(html: str, script_id: str) -> str:
    found = re.search(rf'<script type="application/[a-z-]+" id="{script_id}"[^>]*>(.*?)</script>',
                      html, re.DOTALL)
    assert found, script_id
    return found.group(1)


def test_script_json_escapes_everything_that_could_end_the_script() -> None:
    data = {"t": HOSTILE_SCRIPT + " & <!-- \u2028\u2029", "n": float("nan"), "z": "中文"}
    text = str(script_json(data))
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert "中文" in text   # UTF-8 kept, not \u-escaped
    back = json.loads(text)
    assert back["t"] == data["t"] and back["n"] is None


def test_environment_escapes_and_refuses_unknown_names() -> None:
    env = environment(templates_dir())
    assert env.from_string("{{ x }}").render(x=HOSTILE_IMG) == "&lt;img src=x onerror=alert(2)&gt;"
    with pytest.raises(Exception, match="undefined"):
        env.from_string("{{ nope }}").render()


# The template loop table_rows replaced (kept here to pin that both print the same bytes).
ROWS_AS_MACROS = """{%- macro bi(x) -%}
{%- if x.same -%}{{ x.zh }}{%- else -%}<span data-l="zh" lang="zh-CN">{{ x.zh }}</span>\
<span data-l="en" lang="en">{{ x.en }}</span>{%- endif -%}
{%- endmacro -%}
{%- for r in rows %}
<tr{% if r.cls %} class="{{ r.cls }}"{% endif %}>{% for cell in r.cells %}<td\
{% if cell.num or cell.cls %} class="{{ 'num' if cell.num }}{{ ' ' if cell.num and cell.cls }}\
{{ cell.cls }}"{% endif %}>{{ bi(cell.text) }}</td>{% endfor %}</tr>
{%- endfor %}"""


def test_table_rows_prints_what_the_template_loop_printed() -> None:
    hostile = Bi(HOSTILE_SCRIPT + "&'\"", HOSTILE_IMG)
    cells = [Cell(Bi("1.5", "1.5"), num=True), Cell(hostile), Cell(Bi("—", "—"), cls="x<y"),
             Cell(Bi("中", "en"), num=True, cls="excluded"), Cell(Bi("", ""))]
    rows = [Row(cells), Row(cells[::-1], cls='has-"excluded'), Row([])]
    env = environment(templates_dir())
    expected = env.from_string(ROWS_AS_MACROS).render(rows=rows)
    assert "&lt;script&gt;" in expected and "&#34;" in expected
    assert str(table_rows(rows)) == expected


def test_page_skeleton(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>\n<html lang=\"zh-CN\" data-lang=\"zh\"")
    assert '<meta name="referrer" content="no-referrer">' in html
    for i in range(1, 7):
        assert html.count(f'id="fig-{i}"') == 1
    for section in ("setup", "glossary", "headline", "crossover", "bytes", "prefill", "batching",
                    "waves", "stalls", "anomalies", "memory", "data", "checks", "constants"):
        assert f'<section id="{section}"' in html
    assert '<section id="next"' not in html   # narrative-only section without narrative
    for variant in ("glossary", "wide", "checks", "constants"):
        assert f'<table class="t t-{variant}">' in html
    assert "1 request failed." in html and "round.toml: small model file size" in html
    assert "<script src" not in html and "<link" not in html and "<iframe" not in html
    assert html.count('id="plotly-gz"') == 1


def test_embedded_tables_json_is_the_tables_output(html: str) -> None:
    data = json.loads(script(html, "report-data"))
    expected = json.loads(json.dumps(to_json_dict(make_analysis())))
    assert data == expected
    assert data["schema"] == "reportgen.tables/2"


def test_figures_json(html: str) -> None:
    figs = json.loads(script(html, "report-figs"))
    assert [f["id"] for f in figs["figs"]] == drawn_ids()
    assert figs["defaultLang"] == "zh"
    assert "template" in figs and all("template" not in f["fig"]["layout"] for f in figs["figs"])


def test_csp_allows_exactly_the_inline_scripts_and_plotly(html: str) -> None:
    import html as html_lib

    csp = html_lib.unescape(
        re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1))
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp
    assert "unsafe-eval" not in csp and "script-src 'unsafe-inline'" not in csp
    inline = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    assert len(inline) == 4   # lang.js, loader.js, app.js, slo.js
    allowed = set(re.findall(r"'(sha256-[^']+)'", csp))
    for body in inline:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"sha256-{digest}" in allowed
    packed = base64.b64decode(script(html, "plotly-gz"))
    js = gzip.decompress(packed)
    plotly_hash = "sha256-" + base64.b64encode(hashlib.sha256(js).digest()).decode()
    assert plotly_hash in allowed
    assert len(allowed) == 5
    # loader.js loads plotly.js as a blob: script with this integrity, allowed by that hash
    assert re.search(r'id="plotly-gz"[^>]* data-integrity="([^"]+)"', html).group(1) == plotly_hash


def test_custom_bundle_is_used_for_scatter_and_bar(html: str) -> None:
    from plotly.offline import get_plotlyjs_version

    assert 'data-bundle="custom"' in html
    js = gzip.decompress(base64.b64decode(script(html, "plotly-gz")))
    # V8's compile hint first (tools/step_plotly.py), then plotly.js's own header
    assert js.startswith(b"//# allFunctionsCalledOnLoad\n"
                         b"/**\n* plotly.js (custom: scatter,bar - minified) v" +
                         get_plotlyjs_version().encode())
    assert "Licensed under the MIT license" in html   # licence header kept in the page


def test_vendored_bundle_version_matches_plotly_py() -> None:
    """A build reads the version stored beside the vendored bundle instead of importing
    plotly; it must still be plotly.py's (rebuild with tools/build_plotly.sh)."""
    from plotly.offline import get_plotlyjs_version

    vendor = templates_dir() / "static" / "vendor"
    assert (vendor / "plotly-custom.VERSION").read_text().strip() == get_plotlyjs_version()
    assert plotly_bundle(True, templates_dir()).version == get_plotlyjs_version()


def test_full_bundle_when_a_trace_type_is_outside_the_partial_set() -> None:
    bundle = plotly_bundle(False, templates_dir())
    assert bundle.kind == "full"
    js = gzip.decompress(base64.b64decode(bundle.b64))
    assert b"treemap" in js and len(js) > 3_000_000
    assert gzip.decompress(base64.b64decode(plotly_bundle(False, templates_dir()).b64)) == js


def test_languages_side_by_side(html: str) -> None:
    both = '<span data-l="zh" lang="zh-CN">交叉</span><span data-l="en" lang="en">Crossover</span>'
    assert both in html
    assert 'html[data-lang="zh"] [data-l="en"], html[data-lang="en"] [data-l="zh"]' in html
    assert '<title data-zh="小测试轮" data-en="Small test round">小测试轮</title>' in html


def test_numbers_are_identical_in_both_languages(html: str) -> None:
    pairs = re.findall(r'<span data-l="zh" lang="zh-CN">(.*?)</span><span data-l="en" '
                       r'lang="en">(.*?)</span>', html)
    assert len(pairs) > 100
    number = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?(?:%|×)?")
    checked = 0
    for zh, en in pairs:
        a, b = number.findall(zh), number.findall(en)
        if a and b:
            assert sorted(a) == sorted(b), (zh, en)
            checked += 1
    assert checked > 20


def test_lang_override_sets_the_default(tmp_path: Path) -> None:
    page = render_analysis(make_analysis(), tmp_path, "en")
    assert '<html lang="en" data-lang="en" data-default-lang="en" data-fallback-lang="zh">' \
        in page
    assert json.loads(script(page, "report-figs"))["figs"][0]["fig"]["layout"]["title"]["text"] \
        == "Output throughput vs concurrency (log–log)"
    with pytest.raises(InputError):
        render_analysis(make_analysis(), tmp_path, "de")


def test_every_number_comes_from_the_analysis(tmp_path: Path) -> None:
    a = make_analysis()
    a.tiers.loc[(a.tiers["engine"] == "big") & (a.tiers["concurrency"] == 64),
                "output_tok_s"] = 4321.5
    page = render_analysis(a, tmp_path)
    assert ">4,321.5<" in page
    assert ">2,000.0<" not in page


def test_hostile_strings_are_escaped(tmp_path: Path) -> None:
    a = make_analysis()
    a = dataclasses.replace(a, round=dataclasses.replace(
        a.round, title=Bi(HOSTILE_SCRIPT, HOSTILE_IMG)))
    a.engines["label"] = [Bi(HOSTILE_IMG, HOSTILE_SCRIPT), *a.engines["label"][1:]]
    (tmp_path / "narrative").mkdir()
    (tmp_path / "narrative" / "next.en.md").write_text(f"{HOSTILE_SCRIPT}\n\n{HOSTILE_IMG}\n")
    page = render_analysis(a, tmp_path)
    assert HOSTILE_IMG not in page
    # + slo.js and the same-speed table's data block
    assert page.count("<script") == page.count("</script>") == 8
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_narrative_is_placed_in_its_section(tmp_path: Path) -> None:
    (tmp_path / "narrative").mkdir()
    (tmp_path / "narrative" / "crossover.zh.md").write_text(
        "# 曲线在 C≈{{ crossover.concurrency:.1f }} 换位\n\n正文。", encoding="utf-8")
    (tmp_path / "narrative" / "crossover.en.md").write_text(
        "# Curves swap at C≈{{ crossover.concurrency:.1f }}\n\nBody.", encoding="utf-8")
    (tmp_path / "narrative" / "next.zh.md").write_text("1. 重跑", encoding="utf-8")
    page = render_analysis(make_analysis(), tmp_path)
    crossover = page[page.index('<section id="crossover"'):page.index('<section id="bytes"')]
    claim = '<span class="claim"><span data-l="zh" lang="zh-CN">曲线在 C≈11.8 换位</span>'
    assert claim in crossover
    assert '<div class="prose md" data-l="en" lang="en"><p>Body.</p>' in crossover
    nxt = page[page.index('<section id="next"'):]
    assert '<div class="prose md" lang="zh-CN"><ol>' in nxt


def test_narrative_error_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "narrative").mkdir()
    (tmp_path / "narrative" / "memory.en.md").write_text("ok\n\n{{ memory.nope }}\n")
    with pytest.raises(InputError) as err:
        render_analysis(make_analysis(), tmp_path)
    assert str(err.value).startswith(f"{tmp_path.name}/narrative/memory.en.md:3:")


def test_date_comes_from_the_round_or_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert page_date(RoundInfo(date="2026-11-20")) == "2026-11-20"
    assert page_date(RoundInfo()) == ""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert page_date(RoundInfo()) == "2023-11-14"
    assert page_date(RoundInfo(date="2026-11-20")) == "2026-11-20"


def test_no_date_line_without_a_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    a = make_analysis()
    a = dataclasses.replace(a, round=dataclasses.replace(a.round, date=""))
    assert 'class="meta"' not in render_analysis(a, tmp_path)


def test_excluded_tiers_are_flagged_in_tables(html: str) -> None:
    assert '<td class="num excluded">450.0 ‡</td>' in html
    assert "C=16 反常" in html and "C=16 is anomalous" in html


def test_sections_survive_missing_optional_frames(tmp_path: Path) -> None:
    import pandas as pd

    a = dataclasses.replace(make_analysis(), graph_reuse=pd.DataFrame(columns=["engine"]),
                            memory=pd.DataFrame(columns=["engine"]),
                            prefill=pd.DataFrame(columns=["engine", "concurrency"]))
    page = render_analysis(a, tmp_path)
    assert 'id="fig-5"' not in page and 'id="fig-3"' not in page and 'id="fig-6"' in page
    assert "No server-side prefill timing this round" in page


BUILD = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from page_fixture import make_analysis
from reportgen.pipeline import render_analysis
sys.stdout.buffer.write(render_analysis(make_analysis(), Path({round!r})).encode())
"""


def test_byte_identical_across_processes(tmp_path: Path) -> None:
    code = BUILD.format(tests=str(REPO / "tests"), round=str(tmp_path))
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env.pop("SOURCE_DATE_EPOCH", None)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env,
                              cwd=REPO, check=True, timeout=300)
        outputs.append(done.stdout)
    assert len(outputs[0]) > 500_000
    assert outputs[0] == outputs[1]


SAMPLE = REPO / "sample_runs" / "round2-rtx4090"
SAMPLE_BUILD = """
import sys
from pathlib import Path
from reportgen.build import build_report
build_report(Path({round!r}), Path(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def sample_builds(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """The bundled sample built twice, in separate processes with different hash seeds."""
    out = tmp_path_factory.mktemp("sample")
    code = SAMPLE_BUILD.format(round=str(SAMPLE))
    pages = []
    for seed in ("0", "12345"):
        target = out / f"report-{seed}.html"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env.pop("SOURCE_DATE_EPOCH", None)
        subprocess.run([sys.executable, "-c", code, str(target)], env=env, cwd=REPO, check=True,
                       timeout=300, capture_output=True)
        pages.append(target.read_bytes())
    return pages


def test_sample_report_is_byte_identical_across_processes(sample_builds: list[bytes]) -> None:
    assert sample_builds[0] == sample_builds[1]
    assert len(sample_builds[0]) < 1_000_000   # the custom bundle, gzip+base64


def test_sample_report_shows_the_published_headline_figures(sample_builds: list[bytes]) -> None:
    page = sample_builds[0].decode("utf-8")
    for text in ("C ≈ 8.3", "5.84 ms", ">25%<", "vLLM BF16 81%", "0.47 ms", "443.7 tok/s",
                 "<strong>2.99×</strong>", "<strong>2.71×</strong>", "1.010", "0.804",
                 "99.22%", "1.35%", "<strong>2.18×</strong>", "0.0655", "580.159.03 · CUDA 13.0",
                 "b9741 · eab8ee41f · Q4_K_M", "0.27.1 · bfloat16", "1 / 2,664(2 × 1,332)"):
        assert text in page, text
