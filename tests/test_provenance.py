"""Declared provenance: round.toml [provenance] → the values computed from synthetic input →
the † mark in the narrative, tables and figures; the banner and the footer."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reportgen.analyze.run import analyze, analyze_round
from reportgen.build import narrative_values, render_dir
from reportgen.errors import InputError
from reportgen.load.manifest import parse_manifest
from reportgen.load.round import load_round
from reportgen.narrative import SYNTHETIC_MARK, format_value, load_narrative

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.\-]+)\s*(?::\s*([^}\s]*))?\s*\}\}")


@pytest.fixture(scope="module")
def sample():  # type: ignore[no-untyped-def]
    return analyze(load_round(SAMPLE))


def test_sample_declares_its_reconstructed_detail(sample) -> None:  # type: ignore[no-untyped-def]
    synthetic = sample.synthetic
    assert synthetic.declared.status == "reconstructed"
    # the glossary example of issue 11: TPOT p50 at C=8 was never published (12.66 is
    # synthetic); ITL p50 and mean at C=8 were (10.30 / 18.33 and 16.63 / 18.25)
    assert "tiers.llamacpp.c8.tpot_p50_ms" in synthetic
    for name in ("tiers.llamacpp.c8.itl_p50_ms", "tiers.llamacpp.c8.itl_mean_ms",
                 "tiers.vllm.c8.itl_p50_ms", "tiers.vllm.c8.itl_mean_ms"):
        assert name not in synthetic, name
    # TPOT p50 at C=1 and C=64 is published; prefill timings above C=1 are not
    assert "tiers.llamacpp.c1.tpot_p50_ms" not in synthetic
    assert "tiers.vllm.c64.tpot_p50_ms" not in synthetic
    assert "prefill.vllm.c1.server_ms" not in synthetic
    assert "prefill.llamacpp.c1.server_ms" not in synthetic
    assert {f"prefill.{e}.c{c}.server_ms" for e in ("vllm", "llamacpp")
            for c in (2, 4, 8, 16, 32, 64)} <= synthetic.names
    # the graph-reuse figure: batch-aware points rest on generated token counts
    assert {f"graph_reuse.llamacpp.c{c}.reuse_batched" for c in (1, 2, 4, 8, 16, 32, 64)} \
        <= synthetic.names
    assert "graph_reuse.llamacpp.c32.reuse" not in synthetic
    # vLLM's measured memory total (a reconstructed nvidia-smi snapshot); llama.cpp's is exact
    assert "memory.vllm.measured_total_mib" in synthetic
    assert "memory.llamacpp.measured_total_mib" not in synthetic
    # the headline figures rest on published numbers only
    for name in ("crossover.concurrency", "step_ratio.measured", "engines.vllm.efficiency_cmax",
                 "batching.slope_difference_ms", "prefill.server_side_gap"):
        assert name not in synthetic, name


def test_narrative_marks_every_synthetic_placeholder(sample) -> None:  # type: ignore[no-untyped-def]
    """Fails when a placeholder of the sample narrative resolves to a synthetic value and the
    rendered prose does not carry the mark right after it."""
    values = narrative_values(SAMPLE)   # the analysis values plus baseline.* and since.*
    prose = load_narrative(SAMPLE, values, sample.synthetic.names)
    cited = 0
    for path in sorted((SAMPLE / "narrative").glob("*.md")):
        section, lang = path.name.split(".")[:2]
        rendered = prose[section].title.get(lang) + prose[section].body.get(lang)
        for m in PLACEHOLDER.finditer(path.read_text(encoding="utf-8")):
            name, spec = m.group(1), m.group(2) or ""
            cited += 1
            if name in sample.synthetic:
                text = format_value(values[name], spec)
                assert text + SYNTHETIC_MARK in rendered, (path.name, name, text)
    assert cited > 100


def _with_glossary_example(tmp_path: Path) -> Path:
    """The sample with the glossary's old C=8 example (TPOT p50, never published) restored."""
    round_dir = tmp_path / "r"
    shutil.copytree(SAMPLE, round_dir)
    (round_dir / "narrative" / "glossary.en.md").write_text(
        "# Terms\n\nAt C=8 llama.cpp: {{ tiers.llamacpp.c8.tpot_p50_ms:.2f }} / "
        "{{ tiers.llamacpp.c8.itl_mean_ms:.2f }} ms.\n", encoding="utf-8")
    return round_dir


def test_a_synthetic_placeholder_is_marked_on_the_page(tmp_path: Path) -> None:
    round_dir = _with_glossary_example(tmp_path)
    a = analyze(load_round(round_dir))
    tpot = format_value(a.values["tiers.llamacpp.c8.tpot_p50_ms"], ".2f")
    itl = format_value(a.values["tiers.llamacpp.c8.itl_mean_ms"], ".2f")
    values = narrative_values(round_dir)
    marked = load_narrative(round_dir, values, a.synthetic.names)["glossary"].body.en
    assert f"{tpot}† / {itl} ms" in marked          # the published ITL mean stays bare
    bare = load_narrative(round_dir, values)["glossary"].body.en
    assert f"{tpot} / {itl} ms" in bare               # what the old page showed, unmarked
    html = render_dir(round_dir)
    assert f"{tpot}† / {itl} ms" in html


def test_page_banner_marks_and_footer(tmp_path: Path) -> None:
    html = render_dir(SAMPLE)
    assert 'class="notice"' in html and "Reconstructed data." in html
    assert "重建的数据" in html
    # the footer no longer claims every number is a measurement
    assert "numbers marked † come from synthetic input" in html
    assert "every number on this page is computed from them. Charts" not in html
    # a marked table cell, with its legend under the table
    assert re.search(r'<td class="num synthetic">[\d.,]+†</td>', html)
    assert 'class="tbl-note"' in html
    # excluded tiers take the second mark
    assert "32 ‡" in html


def test_measured_round_keeps_the_plain_footer(tmp_path: Path) -> None:
    round_dir = tmp_path / "r"
    shutil.copytree(SAMPLE, round_dir)
    toml = round_dir / "round.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text[:text.index("\n[provenance]\n")] + text[text.index("\n[baseline]\n"):],
                    encoding="utf-8")
    ra = analyze_round(load_round(round_dir))
    assert not ra.first.synthetic.names
    html = render_dir(round_dir)
    assert 'class="notice"' not in html and 'synthetic">' not in html
    assert "every number on this page is computed from them" in html


def test_whole_round_declared_synthetic_marks_everything(tmp_path: Path) -> None:
    round_dir = tmp_path / "r"
    shutil.copytree(SAMPLE, round_dir)
    toml = round_dir / "round.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text[:text.index("\n[provenance]\n")] + '[provenance]\nstatus = "synthetic"\n',
                    encoding="utf-8")
    a = analyze(load_round(round_dir))
    assert "tiers.vllm.c1.output_tok_s" in a.synthetic
    assert "crossover.concurrency" in a.synthetic


@pytest.mark.parametrize(("snippet", "message"), [
    ('[provenance]\nstatus = "made up"\n', "[provenance.status]: expected"),
    ('[provenance]\n[[provenance.files]]\nkeys = ["x"]\n', "provenance.files[0].files"),
    ('[provenance]\n[[provenance.files]]\nfiles = ["a"]\ntiers = ["x"]\n', "tiers"),
    ('[provenance]\n[[provenance.files]]\nfiles = ["a"]\nwhat = 1\n', "unknown key 'what'"),
    ('[[related]]\ntitle = "t"\nhref = "javascript:alert(1)"\n', "relative link or an https"),
    ('[[related]]\ntitle = "t"\nhref = "//evil.example/x"\n', "relative link or an https"),
    ('[[related]]\ntitle = "t"\nhref = "http://example.com/x"\n', "relative link or an https"),
    ('[[related]]\nhref = "a.html"\n', "missing key 'title'"),
])
def test_bad_provenance_and_related_keys(tmp_path: Path, snippet: str, message: str) -> None:
    path = tmp_path / "round.toml"
    path.write_text('[round]\ntitle = "t"\n' + snippet, encoding="utf-8")
    with pytest.raises(InputError) as err:
        parse_manifest(path)
    assert message in str(err.value)


def test_related_links_are_escaped_plain_anchors(tmp_path: Path) -> None:
    round_dir = tmp_path / "r"
    shutil.copytree(SAMPLE, round_dir)
    toml = round_dir / "round.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + (
        '\n[[related]]\ntitle = "<b>x</b>"\nhref = "a b.html?x=1&y=<2>"\n'), encoding="utf-8")
    with pytest.raises(InputError):   # whitespace in a link is refused
        load_round(round_dir)
    toml.write_text(toml.read_text(encoding="utf-8").replace('"a b.html', '"ab.html'),
                    encoding="utf-8")
    html = render_dir(round_dir)
    assert '<a href="ab.html?x=1&amp;y=&lt;2&gt;" rel="noopener noreferrer">&lt;b&gt;x&lt;/b&gt;' \
        in html
    # the sample's sibling reports are named without a link (not bundled with it)
    assert 'href="https://' not in html
    assert '<li><span data-l="zh" lang="zh-CN">选型指南：vLLM 与 llama.cpp</span>' in html
