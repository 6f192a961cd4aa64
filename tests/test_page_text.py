"""Reader-facing text of the page: Chinese punctuation, no internal ids in prose, no repeated
notes, figure numbering, the opening-language attributes and `build --pdf` errors."""

from __future__ import annotations

import re
import shutil
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from figure_registry import SAMPLE_EXTRA, drawn_ids

from reportgen.build import render_dir
from reportgen.cli import main

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_runs" / "round2-rtx4090"
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
# a half-width , ; : ( ) touching a CJK character (or full-width punctuation)
HALF_WIDTH = re.compile(rf"[{CJK}][,;:()]|[,;:()][{CJK}]")
CODE = re.compile(r"`[^`]*`|%\{[^}]*\}|<[^>]*>|\{\{.*?\}\}")


def half_width(text: str) -> list[str]:
    text = CODE.sub(" ", text)
    return [text[max(0, m.start() - 12):m.end() + 12] for m in HALF_WIDTH.finditer(text)]


@pytest.fixture(scope="module")
def html() -> str:
    return render_dir(SAMPLE)


class ZhText(HTMLParser):
    """Text the Chinese page shows: inside data-l="zh" elements, or in elements without a
    language switch; code, scripts and styles left out."""

    SKIP = frozenset({"script", "style", "code", "pre"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.chunks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "meta", "link", "img", "input", "hr"):
            return
        hidden = dict(attrs).get("data-l") == "en" or tag in self.SKIP
        self.stack.append((tag, hidden))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not any(hidden for _, hidden in self.stack):
            self.chunks.append(data)


def test_chinese_text_uses_full_width_punctuation(html: str) -> None:
    found: list[str] = []
    ui = tomllib.loads((REPO / "templates" / "i18n" / "ui.toml").read_text(encoding="utf-8"))

    def walk(table: dict, path: str = "") -> None:
        for key, value in table.items():
            if isinstance(value, dict) and isinstance(value.get("zh"), str):
                text = re.sub(r"```.*?```", " ", value["zh"], flags=re.S)
                found.extend(f"ui.toml {path}{key}: {h}" for h in half_width(text))
            elif isinstance(value, dict):
                walk(value, f"{path}{key}.")

    walk(ui)
    for path in sorted((SAMPLE / "narrative").glob("*.zh.md")):
        text = re.sub(r"```.*?```", " ", path.read_text(encoding="utf-8"), flags=re.S)
        found.extend(f"{path.name}: {h}" for h in half_width(text))
    page = ZhText()
    page.feed(html)
    found.extend(f"page: {h}" for h in half_width(" ".join(page.chunks)))
    assert not found, "\n".join(found[:20])


def test_the_scan_catches_half_width_punctuation() -> None:
    assert half_width("显存(实测)")
    assert half_width("吞吐下降,原因未定")
    assert not half_width("显存（实测），`a,b`")


def test_no_internal_ids_or_jargon_in_prose(html: str) -> None:
    prose = re.sub(r'<td class="mono">.*?</td>', "", html)   # the checks table's id column
    prose = prose.split('<script type="application/json"')[0]
    for phrase in ("tpot.mean_skew", "published basis", "已发表的算法", "the caveat above",
                   "上面的提醒", "Client overhead", "客户端开销"):
        assert phrase not in prose, phrase


def test_notes_appear_once(html: str) -> None:
    # the text of the page, without its JSON data blocks (figures, the SLO panel's data)
    page = re.sub(r'<script type="application/json".*?</script>', "", html, flags=re.DOTALL)
    assert page.count("Tiers marked ‡") == 1
    # every warning is one row of the grouped anomaly list and one message in the checks
    assert page.count("C=16: mean TPOT 34.28 ms") == 1
    assert page.count("Mean TPOT disagrees with what mean E2EL and TTFT imply") == 1


def test_figures_are_numbered_in_page_order(html: str) -> None:
    numbers = re.findall(r'<div class="fig-no"><span data-l="zh" lang="zh-CN">图 (\d+)', html)
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)]
    assert len(numbers) == len(drawn_ids(extra=SAMPLE_EXTRA))


def test_roofline_table_is_headed_by_what_it_holds(html: str) -> None:
    i = html.index("Roofline attainment per tier = floor ÷ measured ITL p50")
    head = html[i:html.index("</thead>", i)]
    assert "attainment" in head and "mean TPOT" not in head


def test_opening_language_attributes(tmp_path: Path) -> None:
    stated = render_dir(SAMPLE)            # round.toml says zh
    assert 'data-default-lang="zh" data-fallback-lang="zh"' in stated
    forced = render_dir(SAMPLE, "en")      # --lang en wins over round.toml
    assert 'data-default-lang="en"' in forced
    round_dir = tmp_path / "r"
    shutil.copytree(SAMPLE, round_dir)
    toml = round_dir / "round.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('default_language = "zh"\n', ""),
                    encoding="utf-8")
    unstated = render_dir(round_dir)
    assert 'data-default-lang="" data-fallback-lang="zh"' in unstated   # the browser decides


def test_pdf_without_a_browser_is_a_clear_error(tmp_path: Path) -> None:
    out, pdf = tmp_path / "r.html", tmp_path / "r.pdf"
    result = CliRunner().invoke(main, ["build", "-q", "-o", str(out), "--pdf", str(pdf)],
                                env={"REPORTGEN_CHROMIUM": str(tmp_path / "no-browser")})
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith("Error: --pdf: REPORTGEN_CHROMIUM=")
    assert not out.exists() and not pdf.exists()


def test_pdf_without_chromium_on_path(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["build", "-q", "-o", str(tmp_path / "r.html"), "--pdf", str(tmp_path / "r.pdf")],
        env={"PATH": str(tmp_path), "REPORTGEN_CHROMIUM": ""})
    assert result.exit_code == 2
    assert "needs headless Chromium, and none was found" in result.output
    assert list(tmp_path.iterdir()) == []


def test_missing_settings_are_named_once_each_in_plain_code(tmp_path: Path) -> None:
    """A round with several settings no file states (no GPU, no weight or KV bytes) names the
    first and counts the rest, instead of one code span with backticks inside it."""
    from click.testing import CliRunner

    from reportgen.cli import main

    fixture = Path(__file__).parent / "data" / "llmperf"
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["build", str(fixture), "-o", str(out), "--lang", "en"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert not [c for c in re.findall(r"<code>(.*?)</code>", page, flags=re.S) if "`" in c]
    assert "need <code>hardware.gpu</code> and 2 more settings that no file states" in page
