"""Narrative markdown: placeholder formats, safe rendering, file naming and error reporting."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.narrative import SECTIONS, load_narrative, render_markdown
from reportgen.text.bilingual import Bi
from reportgen.text.formatting import format_value

VALUES = {
    "crossover.concurrency": 8.2849,
    "requests.total": 1332,
    "mbu": 0.8912,
    "shortfall": 0.013514,
    "ratio": 2.7106,
    "memory.mib": 19089.4,
    "missing": math.nan,
    "label": "llama.cpp *Q4* <b>x</b>",
    "pair.a_label": Bi("甲引擎", "Engine A"),
    # a baseline's text (read back from its tables JSON through Bi.read)
    "baseline.title": Bi("上一轮", "Last round"),
}


@pytest.mark.parametrize(("value", "spec", "expected"), [
    (1332, "", "1,332"),
    (1387.8, "", "1,388"),
    (22.5, "", "22.5"),
    (5.84, "", "5.84"),
    (0.0655, "", "0.0655"),
    (0.0, "", "0.00"),
    (8.2849, ".1f", "8.3"),
    (1387.84, ".1f", "1,387.8"),
    (19089.4, "d", "19,089"),
    (0.81, "pct", "81%"),
    (0.088, "pct", "8.8%"),
    (0.0135, ".2pct", "1.35%"),
    (-0.0003, ".1pct", "0.0%"),  # never a negative zero
    (-0.004, ".2f", "0.00"),
    (12345678901234567890123, "", "12,345,678,901,234,567,890,123"),
    (2.7106, "x", "2.71×"),
    (3.24, ".1x", "3.2×"),
    (math.nan, ".2f", "—"),
    (None, "", "—"),
    ("0.27.1", "s", "0.27.1"),
    (math.inf, "", "∞"),
])
def test_format_value(value: object, spec: str, expected: str) -> None:
    assert format_value(value, spec) == expected


@pytest.mark.parametrize(("value", "spec"), [
    (1.0, "%"), (1.0, ".2"), (1.0, "s"), ("text", ".1f"), (1.0, ".1d"), (True, ""), ([1], ""),
])
def test_format_value_rejects_bad_specs(value: object, spec: str) -> None:
    with pytest.raises(ValueError):
        format_value(value, spec)


def render(src: str, lang: str = "en") -> tuple[str, str]:
    title, body = render_markdown(src, VALUES, Path("narrative/crossover.en.md"), lang)
    return str(title), str(body)


def test_placeholders_in_text_code_and_fences() -> None:
    _, body = render("Cross at **C ≈ {{ crossover.concurrency:.1f }}** of "
                     "{{requests.total}} requests, `MBU {{ mbu:pct }}`.\n\n"
                     "```\nratio = {{ ratio:.2x }}\n```\n")
    assert "<strong>C ≈ 8.3</strong> of 1,332 requests" in body
    assert "<code>MBU 89%</code>" in body
    assert "<pre><code>ratio = 2.71×\n</code></pre>" in body


def test_substituted_values_never_become_markup() -> None:
    _, body = render("Engine {{ label }} here.")
    assert "llama.cpp *Q4* &lt;b&gt;x&lt;/b&gt;" in body
    assert "<em>" not in body and "<b>" not in body


def test_raw_html_in_the_prose_is_escaped() -> None:
    _, body = render('<img src=x onerror=alert(2)>\n\n</script><script>alert(1)</script>\n\n'
                     "[x](javascript:alert(3))")
    assert "<img" not in body and "<script>" not in body
    assert "&lt;img src=x onerror=alert(2)&gt;" in body
    assert 'href="javascript' not in body


def test_bilingual_values_follow_the_file_language() -> None:
    assert "甲引擎" in render("{{ pair.a_label }}", "zh")[1]
    assert "Engine A" in render("{{ pair.a_label }}", "en")[1]
    assert "上一轮" in render("{{ baseline.title }}", "zh")[1]
    assert "Last round" in render("{{ baseline.title }}", "en")[1]


def test_missing_value_prints_a_dash() -> None:
    assert "gap —" in render("gap {{ missing:.1pct }}")[1]


def test_leading_h1_becomes_the_section_headline() -> None:
    title, body = render("\n# Curves cross at C≈{{ crossover.concurrency:.1f }}\n\nBody.\n")
    assert title == "Curves cross at C≈8.3"
    assert "<h1>" not in body and "<p>Body.</p>" in body


def test_unknown_name_names_file_line_and_a_suggestion() -> None:
    with pytest.raises(InputError) as err:
        render("first line\n\nsee {{ crossover.concurency }} here\n")
    assert err.value.line == 3
    assert str(err.value).startswith("narrative/crossover.en.md:3: ")
    assert "crossover.concurency" in str(err.value)
    assert "did you mean 'crossover.concurrency'" in str(err.value)


@pytest.mark.parametrize(("src", "line", "fragment"), [
    ("ok\n{{ 1 + 2 }}", 2, "malformed placeholder"),
    ("{{ mbu", 1, "unclosed placeholder"),
    ("a\nb\n{{ mbu:bogus }}", 3, "unknown format"),
    ("{{ label:.1f }}", 1, "needs a number"),
])
def test_bad_placeholders(src: str, line: int, fragment: str) -> None:
    with pytest.raises(InputError) as err:
        render(src)
    assert err.value.line == line
    assert fragment in err.value.message


def write(root: Path, name: str, text: str | bytes) -> None:
    folder = root / "narrative"
    folder.mkdir(exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    (folder / name).write_bytes(data)


def test_load_narrative_reads_both_languages(tmp_path: Path) -> None:
    write(tmp_path, "crossover.zh.md", "交叉在 C≈{{ crossover.concurrency:.1f }}。")
    write(tmp_path, "crossover.en.md", "Crossing at C≈{{ crossover.concurrency:.1f }}.")
    write(tmp_path, ".DS_Store", b"\x00\xff")
    prose = load_narrative(tmp_path, VALUES)
    assert set(prose) == {"crossover"}
    assert "交叉在 C≈8.3。" in prose["crossover"].body.zh
    assert "Crossing at C≈8.3." in prose["crossover"].body.en
    assert prose["crossover"].source_lang == {"zh": "zh", "en": "en"}


def test_one_language_is_shown_in_both(tmp_path: Path) -> None:
    write(tmp_path, "next.en.md", "- rerun C=32")
    prose = load_narrative(tmp_path, VALUES)["next"]
    assert prose.body.zh == prose.body.en
    assert prose.source_lang == {"zh": "en", "en": "en"}


def test_no_narrative_folder_means_no_prose(tmp_path: Path) -> None:
    assert load_narrative(tmp_path, VALUES) == {}


@pytest.mark.parametrize("name", ["crosover.zh.md", "crossover.de.md", "crossover.md",
                                  "README.md", "crossover.zh.markdown"])
def test_unknown_section_file_is_an_input_error(tmp_path: Path, name: str) -> None:
    write(tmp_path, name, "text")
    with pytest.raises(InputError) as err:
        load_narrative(tmp_path, VALUES)
    assert err.value.path == f"{tmp_path.name}/narrative/{name}"  # round-relative, as elsewhere
    assert "headline" in err.value.message


def test_non_utf8_file(tmp_path: Path) -> None:
    write(tmp_path, "memory.zh.md", "显存".encode("gbk"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_narrative(tmp_path, VALUES)


def test_placeholder_error_inside_a_round_names_the_relative_file(tmp_path: Path) -> None:
    write(tmp_path, "waves.zh.md", "第一行\n{{ nope }}")
    with pytest.raises(InputError) as err:
        load_narrative(tmp_path, VALUES)
    assert str(err.value).startswith(f"{tmp_path.name}/narrative/waves.zh.md:2: ")


def test_section_ids_are_the_documented_ones() -> None:
    assert SECTIONS[0] == "setup" and SECTIONS[-1] == "next"
    assert len(set(SECTIONS)) == len(SECTIONS) == 19   # + findings, distributions, telemetry


def test_a_figure_the_corrected_data_no_longer_has_is_named_as_such() -> None:
    # VALUES has no throughput_drop.* at all: no engine's throughput dips in this data
    with pytest.raises(InputError) as err:
        render("the dip: {{ throughput_drop.llamacpp.ratio_to_previous:pct }}\n")
    assert "has no value in this round's data (no engine's output throughput falls" in str(
        err.value)
    assert "update the narrative" in str(err.value)
