"""`reportgen index` at scale: unchanged rounds are neither analysed nor rewritten, a changed
round alone is rebuilt, a round that leaves is removed (only pages the index wrote), targets
are checked before anything is written, an error leaves the site as it was, and processes give
the same bytes as one."""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import tiny_rounds
from reportgen.cli import main
from reportgen.index.update import build_index


def stamps(site: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.glob("*.html")}


def figs(page: Path) -> dict:
    m = re.search(r'id="report-figs">(.*?)</script>', page.read_text(encoding="utf-8"), re.S)
    assert m
    return json.loads(m.group(1))


def nav(page: Path) -> list[str]:
    m = re.search(r'<nav class="series-nav".*?</nav>', page.read_text(encoding="utf-8"), re.S)
    assert m
    return [html.unescape(h) for h in re.findall(r'href="([^"]*)"', m.group(0))]


@pytest.fixture()
def rounds(tmp_path: Path) -> list[Path]:
    return tiny_rounds.generate(tmp_path / "rounds", 3)


def test_second_run_rewrites_nothing_and_one_change_rebuilds_one(rounds: list[Path],
                                                                 tmp_path: Path) -> None:
    site = tmp_path / "site"
    said: list[str] = []
    first = build_index(rounds, site, jobs=1)
    assert [p.name for p in first] == ["index.html", "nightly-0000.html", "nightly-0001.html",
                                       "nightly-0002.html"]
    before = stamps(site)
    again = build_index(rounds, site, jobs=1, progress=said.append)
    assert [p.name for p in again] == ["index.html"]
    assert stamps(site) == before                       # not even index.html rewritten
    assert "0 round(s) to build, 3 unchanged, 0 removed: the site is up to date" in said
    assert not any(s.startswith("[1/") for s in said)   # nothing analysed

    # one input changed: that round alone is built again, its card shows the new figure
    c1 = rounds[1] / "vllm" / "bench" / "c1.json"
    data = json.loads(c1.read_text())
    data["failed"], data["completed"] = 1, data["completed"] - 1
    c1.write_text(json.dumps(data))
    said.clear()
    third = build_index(rounds, site, jobs=1, progress=said.append)
    assert [p.name for p in third] == ["index.html", "nightly-0001.html"]
    after = stamps(site)
    assert after["nightly-0000.html"] == before["nightly-0000.html"]
    assert after["nightly-0002.html"] == before["nightly-0002.html"]
    assert after["nightly-0001.html"] != before["nightly-0001.html"]
    index = (site / "index.html").read_text(encoding="utf-8")
    card = index.split('<article class="round-card')[2]           # newest first: 0002, 0001
    assert "Nightly 0001" in card
    assert re.search(r'Failed requests</span>.*?<td class="num">1</td>', card, re.S)


def test_matches_a_fresh_build_and_parallel_builds_give_the_same_bytes(
        rounds: list[Path], tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    build_index(rounds, one, jobs=1)
    build_index(rounds, two, jobs=2)
    for name in ("index.html", "nightly-0000.html", "nightly-0002.html"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_nav_links_the_rounds_either_side_and_a_removed_round_goes(rounds: list[Path],
                                                                    tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_index(rounds, site, jobs=1)
    assert nav(site / "nightly-0001.html") == ["index.html", "nightly-0000.html",
                                               "nightly-0002.html"]
    assert nav(site / "nightly-0000.html") == ["index.html", "nightly-0001.html"]
    (site / "notes.html").write_text("<p>mine</p>")          # not the index's: never touched
    said: list[str] = []
    build_index(rounds[:2], site, jobs=1, progress=said.append)
    assert "0 round(s) to build, 2 unchanged, 1 removed" in said
    assert not (site / "nightly-0002.html").exists()
    assert not (site / ".reportgen-index" / "nightly-0002.json").exists()
    assert not (site / ".reportgen-index" / "tables" / "nightly-0002.json").exists()
    assert (site / "notes.html").read_text() == "<p>mine</p>"
    # the neighbour's nav was spliced (no analysis) and no link is left dangling
    assert nav(site / "nightly-0001.html") == ["index.html", "nightly-0000.html"]
    for page in site.glob("*.html"):
        for href in re.findall(r'href="([^"#][^"]*)"', page.read_text(encoding="utf-8")):
            assert (site / html.unescape(href)).is_file(), (page.name, href)
    assert not list(site.glob(".*.staged")) and not list(site.glob(".*/.*.staged"))


def test_a_failing_round_leaves_the_site_as_it_was(rounds: list[Path], tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_index(rounds[:2], site, jobs=1)
    before = {p.name: p.read_bytes() for p in site.glob("*.html")}
    (rounds[0] / "vllm" / "bench" / "c2.json").write_text("{not json")
    result = CliRunner().invoke(main, ["index", *map(str, rounds), "-o", str(site), "-q",
                                       "-j", "1"])
    assert result.exit_code == 2, result.output
    assert "c2.json" in result.output and "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in site.glob("*.html")} == before   # 0002 not there
    assert not list(site.rglob("*.staged"))


def test_hand_written_index_and_output_inside_a_round_are_refused(rounds: list[Path],
                                                                   tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<h1>our team's page</h1>")
    result = CliRunner().invoke(main, ["index", *map(str, rounds), "-o", str(site), "-q"])
    assert result.exit_code == 2
    assert "index.html: was not written by `reportgen index`" in result.output
    assert sorted(p.name for p in site.iterdir()) == ["index.html"]        # nothing written
    inside = rounds[0] / "site"
    result = CliRunner().invoke(main, ["index", *map(str, rounds), "-o", str(inside), "-q"])
    assert result.exit_code == 2 and "is inside the input round" in result.output
    assert not inside.exists()


def test_folder_names_reach_the_trend_figure_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "r<b>x&$<i>"
    tiny_rounds.write_round(folder, 0)
    toml = folder / "round.toml"     # no date: the x axis is the folder names
    toml.write_text(re.sub(r'date = "[^"]*"\n', "", toml.read_text()))
    site = tmp_path / "site"
    build_index([folder], site, jobs=1)
    fig = figs(site / "index.html")["figs"][0]["fig"]
    assert fig["layout"]["xaxis"]["type"] == "category"
    assert fig["data"][0]["x"] == ["r&lt;b&gt;x&amp;&#36;&lt;i&gt;"]
    assert fig["data"][0]["text"] == ["Nightly 0000 · H100"]


def test_dated_rounds_get_a_date_axis_and_cards_newest_first(rounds: list[Path],
                                                             tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_index(list(reversed(rounds)), site, jobs=1)   # given in any order: sorted by date
    fig = figs(site / "index.html")["figs"][0]["fig"]
    assert fig["layout"]["xaxis"]["type"] == "date"
    assert fig["data"][0]["x"] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'data-date="([^"]*)"', index) == ["2024-01-03", "2024-01-02",
                                                         "2024-01-01"]
    assert 'data-gpu="H100"' in index and '<option value="SGLang BF16">' in index


def test_a_deleted_cache_entry_or_page_is_rebuilt(rounds: list[Path], tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_index(rounds, site, jobs=1)
    (site / "nightly-0000.html").unlink()
    (site / ".reportgen-index" / "nightly-0001.json").write_text("{broken")
    again = build_index(rounds, site, jobs=1)
    assert sorted(p.name for p in again[1:]) == ["nightly-0000.html", "nightly-0001.html"]
    shutil.rmtree(site / ".reportgen-index")     # an older site: pages carry reportgen's tag
    assert len(build_index(rounds, site, jobs=1)) == 4
