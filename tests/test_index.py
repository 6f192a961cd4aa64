"""`reportgen index`: the sample series (Round 1 as published, Round 2 built), relative links
that resolve, reports that link back, deterministic bytes, no network, clear errors."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from reportgen.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "sample_runs"
ROUNDS = sorted(str(p) for p in SAMPLES.iterdir() if p.is_dir())


def run_index(out: Path, *extra: str) -> str:
    result = CliRunner().invoke(main, ["index", *ROUNDS, "-o", str(out), "-q", *extra])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    run_index(out)
    return out


def hrefs(text: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'\bhref="([^"]*)"', text)]


def test_index_lists_every_round_and_builds_the_reports(site: Path) -> None:
    assert sorted(p.name for p in site.iterdir()) == [".reportgen-index", "_static", "dataset",
                                                      "index.html", "round2-rtx4090.html"]
    page = (site / "index.html").read_text(encoding="utf-8")
    assert page.count('<article class="round-card') == len(ROUNDS) == 2
    assert page.count("round-card round-card-published") == 1   # Round 1: as published
    assert "as published" in page and "按原文发表值" in page
    assert "Round 2 report" in page                          # its source note
    figs = re.search(r'id="report-figs">(.*?)</script>', page, re.S)
    assert figs and '"id":"trend-plot"' in figs.group(1)


def test_links_are_relative_and_resolve(site: Path) -> None:
    for name in ("index.html", "round2-rtx4090.html"):
        page = (site / name).read_text(encoding="utf-8")
        links = [h for h in hrefs(page) if not h.startswith("#")]
        assert links, name
        for link in links:
            assert "://" not in link and not link.startswith("/"), link
            assert (site / unquote(link)).is_file(), (name, link)
        for src in re.findall(r'\bsrc="(?!data:)([^"]*)"', page):   # the site's own scripts
            assert src.startswith("_static/") and (site / src).is_file(), (name, src)
    report = (site / "round2-rtx4090.html").read_text(encoding="utf-8")
    assert 'class="series-index" href="index.html"' in report
    assert 'aria-current="page"' in report                   # itself, not a link


def test_index_is_deterministic(site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    run_index(again)
    for name in ("index.html", "round2-rtx4090.html"):
        assert (again / name).read_bytes() == (site / name).read_bytes(), name


def test_card_figures_come_from_the_rounds(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    cards = page.split('<article class="round-card')[1:][::-1]   # newest first
    # Round 1 lists what baseline.toml published, at the printed precision
    assert re.search(r"Throughput crossover C</span>.*?<td class=\"num\">21</td>", cards[0], re.S)
    report = (site / "round2-rtx4090.html").read_text(encoding="utf-8")
    data = re.search(r'id="report-data">(.*?)</script>', report, re.S)
    assert data
    import json

    values = json.loads(data.group(1))["values"]
    c = f"{values['crossover.concurrency']:.1f}"
    assert re.search(rf"Throughput crossover C</span>.*?<td class=\"num\">{c}</td>", cards[1],
                     re.S)
    assert "RTX 4090" in cards[1] and "vLLM BF16" in cards[1]


def test_index_errors_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["index", str(tmp_path / "missing"), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    twin = tmp_path / "a" / "round2-rtx4090"
    shutil.copytree(SAMPLES / "round2-rtx4090", twin)
    result = CliRunner().invoke(main, ["index", ROUNDS[1], str(twin), "-o", str(out)])
    assert result.exit_code == 2
    assert "two rounds named 'round2-rtx4090'" in result.output
    assert not out.exists()


def test_the_card_in_the_cache_gives_the_entry_the_full_tables_give(site: Path) -> None:
    """The index reads each round's card (a slice of its tables), not the tables: both must
    give the same card and trend points."""
    import json

    from reportgen.index.update import entry_from_tables

    cache = site / ".reportgen-index"
    tables = json.loads((cache / "tables" / "round2-rtx4090.json").read_text(encoding="utf-8"))
    head = json.loads((cache / "round2-rtx4090.json").read_text(encoding="utf-8"))
    full = entry_from_tables("round2-rtx4090", site, tables)
    assert entry_from_tables("round2-rtx4090", site, head["card"]) == full
    assert len(full.metrics) >= 5 and full.date and full.gpu == "RTX 4090"
    assert len(json.dumps(head["card"])) < 2000 < len(json.dumps(tables))
