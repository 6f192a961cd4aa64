"""Hardening catalogue 3, every string from input made safe where it lands: each case names
the promise it checks.

- terminal lines show control characters, bidi overrides and newlines escaped (errors and
  `check`'s lists), through one function (`terminal_text.terminal_safe`);
- page labels are bidi-isolated (`<bdi>`);
- Plotly text, titles, hover templates and category arrays go through `figures.base.plotly_text`,
  baseline included (`%{y}` in a label cannot spoof hover values);
- duplicate labels are flagged by `check`; long skipped lists are summarised.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.figures.base import plotly_text
from reportgen.render import bi_html
from reportgen.text.bidi import isolate
from reportgen.text.bilingual import Bi
from reportgen.text.listing import MAX_LISTED, shorten
from reportgen.text.terminal import terminal_safe

sys.path.insert(0, str(Path(__file__).parent))
from hardening_rounds import sweep, write_result, payload  # noqa: I001

ESC = "\x1b"
HOSTILE = [
    ("ansi colour", f"{ESC}[31mred{ESC}[0m"),
    ("osc 8 link", f"{ESC}]8;;http://evil.example{ESC}\\click{ESC}]8;;{ESC}\\"),
    ("window title", f"{ESC}]0;owned\x07"),
    ("newline forging an error", "x\nError: forged"),
    ("carriage return", "x\rError: forged"),
    ("bidi override", "abc\u202edcba"),
    ("bidi isolate", "a\u2067b"),
    ("c1 csi", "a\x9b31mb"),
    ("del", "a\x7fb"),
    ("line separator", "a\u2028b"),
]
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("what", "text"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_terminal_safe_escapes_every_control_and_bidi_character(what: str, text: str) -> None:
    """promise: one terminal line, nothing the terminal would interpret."""
    safe = terminal_safe(text)
    assert "\n" not in safe and not CONTROL.search(safe), (what, safe)
    assert safe.replace("\\", "")  # something visible stays


def test_terminal_safe_keeps_ordinary_text_and_escapes_undecodable_bytes() -> None:
    """promise: plain text (CJK included) is unchanged; a non-UTF-8 byte shows as \\xNN."""
    assert terminal_safe("vLLM 吞吐 · C=8") == "vLLM 吞吐 · C=8"
    assert terminal_safe("bad\udcffname") == "bad\\xffname"


@pytest.mark.parametrize(("what", "text"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_error_line_from_a_hostile_folder_name_is_one_escaped_line(tmp_path: Path, what: str,
                                                                   text: str) -> None:
    """promise: the CLI error path escapes the message: one `Error:` line, no raw control."""
    code, _, err = run("check", str(tmp_path / f"missing{text}"))
    assert code == 2 and err.count("\n") == 1 and err.startswith("Error: ")
    assert not CONTROL.search(err[:-1]), (what, err)
    assert "Error:" not in err[len("Error: "):]  or "\\n" in err or "\\r" in err


@pytest.mark.parametrize(("what", "text"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_check_skipped_list_shows_hostile_file_names_escaped(tmp_path: Path, what: str,
                                                             text: str) -> None:
    """promise: check's list of files not read escapes control characters in names."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))
    (root / f"notes{text.replace('/', '_')}.txt").write_text("not a result", encoding="utf-8")
    code, out, err = run("check", str(root))
    assert code == 0, err
    assert "files not read" in out and not CONTROL.search(out), what
    assert not any(line.startswith("Error") for line in out.splitlines())


def test_hostile_label_in_check_tiers_table_is_escaped(tmp_path: Path) -> None:
    """promise: every console cell (labels in the tiers table) passes terminal_safe."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, f"sg{ESC}[2Jlang", tok_s=(90.0, 250.0, 500.0))
    code, out, _ = run("check", str(root))
    assert code == 0 and ESC not in out


# ---- the page --------------------------------------------------------------------------

def test_page_text_with_bidi_controls_is_a_bdi_run() -> None:
    """promise: page labels carrying bidi controls are isolated (<bdi>)."""
    assert bi_html(Bi.plain("evil\u202eabc")) == "<bdi>evil\u202eabc</bdi>"
    assert bi_html(Bi("甲\u202e", "a\u202e")).count("<bdi>") == 2
    assert bi_html(Bi.plain("plain <b>")) == "plain &lt;b&gt;"  # no bidi: unchanged bytes


def test_isolate_closes_what_the_text_opens_and_drops_stray_closers() -> None:
    """promise: a label's bidi effect ends where the label ends."""
    assert isolate("plain") == "plain"
    assert isolate("a\u202eb") == "\u2068a\u202eb\u2069"
    assert isolate("a\u2069b") == "\u2068ab\u2069"          # a stray PDI would close ours
    assert isolate("\u2067x") == "\u2068\u2067x\u2069\u2069"  # its own isolate closed too


def test_built_page_isolates_a_bidi_label(tmp_path: Path) -> None:
    """promise: a configuration label with an RLO reaches the page only inside <bdi>."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sg\u202elang", tok_s=(90.0, 250.0, 500.0))
    out = tmp_path / "r.html"
    code, _, err = run("build", str(root), "-q", "-o", str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    body = html.split("<script", 1)[0]
    for m in re.finditer("\u202e", body):
        before = body[:m.start()]
        assert before.rfind("<bdi>") > before.rfind("</bdi>"), body[m.start() - 80:m.start()]


@pytest.mark.parametrize("text", ["%{y}", "a%{customdata[0]}b", "<b>x</b>", "$x$", "&amp;"])
def test_plotly_text_makes_templates_and_markup_literal(text: str) -> None:
    """promise: the one escaper leaves no Plotly template field, tag or TeX delimiter."""
    safe = plotly_text(text)
    assert "%{" not in safe and "<" not in safe and "$" not in safe
    assert re.sub(r"&(#\d+|amp|lt|gt);", "", safe).count("&") == 0


def test_baseline_labels_cannot_spoof_hover_values(tmp_path: Path) -> None:
    """promise: a baseline's title and labels reach hovertemplate escaped (no %{y})."""
    import pandas as pd

    from reportgen.analyze.compare import Baseline
    from reportgen.figures.base import Fig
    from reportgen.figures.overlays import add_baseline_curves
    from reportgen.files.resources import templates_dir
    from reportgen.text.i18n import load_ui

    tiers = pd.DataFrame({"engine": ["e"], "concurrency": [1.0], "output_tok_s": [10.0],
                          "itl_p50_ms": [5.0], "wait_ratio": [0.1], "tpot_p50_ms": [5.0],
                          "excluded": [False]})
    base = Baseline(title=Bi.plain("T %{y}"), date="", as_published=False, source=None,
                    values={}, notes={}, labels={"e": Bi.plain("L %{y} <b>")}, tiers=tiers)

    class _A:
        engines = pd.DataFrame({"id": ["e"]})

    fig = Fig()
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    add_baseline_curves(fig, "throughput", base, _A(), ui, "en")
    trace = fig.data[0]
    assert "%{y}" not in trace["name"] and "<b>" not in trace["name"]
    hover = trace["hovertemplate"]
    assert "T %{y}" not in hover and "L %{y}" not in hover
    assert hover.count("%{y") <= json.dumps(ui.raw("fig.baseline.hover", "en", title="",
                                                   engine="")).count("%{y")


def test_category_arrays_and_names_in_figures_are_escaped(tmp_path: Path) -> None:
    """promise: figure JSON of a round with hostile labels carries no raw markup or field."""
    root = sweep(tmp_path / "r", "v%{y}llm")
    sweep(root, "sg<b>lang", tok_s=(90.0, 250.0, 500.0))
    out = tmp_path / "r.html"
    code, _, err = run("build", str(root), "-q", "-o", str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    figs = re.search(r'id="report-figs"[^>]*>(.*?)</script>', html, re.S)
    assert figs is not None
    text = figs.group(1)
    assert "v%{y}llm" not in text and "sg<b>lang" not in text and "sg\\u003cb" not in text


# ---- duplicate labels, long lists ------------------------------------------------------

def test_duplicate_labels_are_flagged_by_check(tmp_path: Path) -> None:
    """promise: two configurations sharing a label are a check warning naming both."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))
    (root / "round.toml").write_text(
        '[[engines]]\nid = "vllm"\nlabel = "Same"\n[[engines]]\nid = "sglang"\nlabel = "same"\n',
        encoding="utf-8")
    code, out, err = run("check", str(root))
    assert code == 0, err
    assert "labels.duplicate" in out and "vllm" in out and "sglang" in out


def test_distinct_labels_raise_no_duplicate_warning(tmp_path: Path) -> None:
    """promise: the duplicate check can pass (no false alarm)."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))
    _, out, _ = run("check", str(root))
    assert "labels.duplicate" not in out


def test_shorten_keeps_the_bound_and_counts_the_rest() -> None:
    """promise: a long list is cut at MAX_LISTED with a count and the commonest reasons."""
    entries = [(f"f{i}", "stray" if i % 3 else "binary") for i in range(MAX_LISTED + 50)]
    short = shorten(entries)
    assert len(short.shown) == MAX_LISTED and short.more == 50
    assert short.reasons[0][0] == "stray" and sum(n for _, n in short.reasons) == 50


def test_many_stray_files_give_a_bounded_check_and_page(tmp_path: Path) -> None:
    """promise: thousands of skipped files are summarised on the page and in check."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))
    junk = root / "junk"
    junk.mkdir()
    for i in range(3000):
        (junk / f"n{i}.txt").write_text("x", encoding="utf-8")
    code, out, _ = run("check", str(root))
    assert code == 0
    assert len(out.splitlines()) < MAX_LISTED * 3 + 200
    assert "2,900 more not listed" in out
    page = tmp_path / "r.html"
    assert run("build", str(root), "-q", "-o", str(page))[0] == 0
    html = page.read_text(encoding="utf-8")
    assert html.count("junk/n") < MAX_LISTED * 2 + 10
    assert "2,900 more files are not listed" in html


def test_data_block_of_a_page_keeps_every_skipped_file(tmp_path: Path) -> None:
    """promise: only the view is shortened; the tables data keeps the whole list."""
    root = sweep(tmp_path / "r", "vllm")
    sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))
    for i in range(MAX_LISTED + 5):
        (root / f"n{i}.txt").write_text("x", encoding="utf-8")
    code, out, _ = run("tables", str(root))
    assert code == 0 and len(json.loads(out)["skipped"]) == MAX_LISTED + 5


def test_a_result_file_named_like_an_escape_still_loads(tmp_path: Path) -> None:
    """promise: escaping is for display only: the file with a control character is read."""
    root = sweep(tmp_path / "r", "vllm")
    write_result(root / "sglang" / "c\x1b1.json", payload(1, 90.0, date="20250301-120000"))
    write_result(root / "sglang" / "c4.json", payload(4, 250.0, date="20250301-120001"))
    code, out, _ = run("check", str(root))
    assert code == 0 and ESC not in out and "sglang" in out
    shutil.rmtree(root)
