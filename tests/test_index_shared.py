"""`reportgen index` shares plotly.js and the page's scripts once per site (_static/), and
--self-contained keeps single-file reports."""

from __future__ import annotations

import hashlib
import re
from html import unescape as html_unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.render import PAGE_SCRIPTS, STATIC

ROUND = str(Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090")
PAGE = "round2-rtx4090.html"


def run_index(out: Path, *extra: str) -> list[str]:
    result = CliRunner().invoke(main, ["index", ROUND, "-o", str(out), "-q", *extra])
    assert result.exit_code == 0, result.output
    if result.output.startswith("nothing to rebuild: "):
        return ["none"]
    return result.output.split("reports: ")[1].rstrip(")\n").split(", ")


def csp(html: str) -> str:
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert found
    return html_unescape(found.group(1))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shared") / "site"
    run_index(out)
    return out


def test_reports_reference_the_sites_one_copy(site: Path) -> None:
    static = sorted(p.name for p in (site / STATIC).iterdir())
    stems = sorted(re.sub(r"-[0-9a-f]{16}\.js$", "", name) for name in static)
    assert stems == sorted(["plotly-custom", *(s[:-3] for s in PAGE_SCRIPTS)])
    html = (site / PAGE).read_text(encoding="utf-8")
    plotly = next(n for n in static if n.startswith("plotly-"))
    assert 'id="plotly-gz" data-bundle="custom"' in html
    assert f'data-src="{STATIC}/{plotly}"></script>' in html
    # the page's scripts in page order, deferred, relative; none of them inlined
    srcs = re.findall(r'<script defer src="([^"]+)"></script>', html)
    assert [s.split("/")[1].split("-")[0] for s in srcs] == ["loader", "app", "slo"]
    for src in srcs:
        body = (site / src).read_text(encoding="utf-8")
        assert body[:200] not in html
    assert "'self'" in csp(html) and "connect-src 'none'" in csp(html)
    index = (site / "index.html").read_text(encoding="utf-8")   # the index shares them too
    assert f'data-src="{STATIC}/{plotly}"></script>' in index and "H4sI" not in index
    assert [s.split("/")[1].split("-")[0]
            for s in re.findall(r'<script defer src="([^"]+)"></script>', index)] == \
        ["loader", "app"]
    for name in static:      # the name is the content's hash
        digest = hashlib.sha256((site / STATIC / name).read_bytes()).hexdigest()[:16]
        assert name.endswith(f"-{digest}.js"), name


def test_shared_reports_are_smaller_and_deterministic(site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    run_index(again)
    assert (again / PAGE).read_bytes() == (site / PAGE).read_bytes()
    for path in (site / STATIC).iterdir():
        assert (again / STATIC / path.name).read_bytes() == path.read_bytes()
    single = tmp_path / "single"
    run_index(single, "--self-contained")
    shared_size = (site / PAGE).stat().st_size
    plotly = next((site / STATIC).glob("plotly-*.js")).stat().st_size
    assert shared_size < (single / PAGE).stat().st_size - plotly / 4   # ≥ the gzip'd bundle


def test_self_contained_is_one_file_and_switching_rebuilds(tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert run_index(out, "--self-contained") == [PAGE]
    html = (out / PAGE).read_text(encoding="utf-8")
    assert not (out / STATIC).exists()
    assert "H4sI" in (out / "index.html").read_text(encoding="utf-8")
    assert not re.search(r'\bsrc="', html) and "'self'" not in csp(html)
    assert re.search(r'id="plotly-gz"[^>]*data-integrity="sha256-[^"]+">H4sI', html)
    assert run_index(out, "--self-contained") == ["none"]        # nothing changed
    assert run_index(out) == [PAGE]                              # the mode changed: rebuilt
    assert f'data-src="{STATIC}/' in (out / PAGE).read_text(encoding="utf-8")


def test_the_key_covers_every_shared_script() -> None:
    from reportgen import render
    from reportgen.index import update as index

    assert index.SHARED_SOURCES[:-1] == render.PAGE_SCRIPTS
    assert index.SHARED_SOURCES[-1] == f"vendor/{render.VENDOR}.min.js.gz"
    assert index.STATIC_DIR == render.STATIC


def test_a_deleted_static_folder_is_made_again(tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "site"
    run_index(out)
    before = sorted(p.name for p in (out / STATIC).iterdir())
    shutil.rmtree(out / STATIC)
    assert run_index(out) == ["none"]                  # no page rebuilt …
    assert sorted(p.name for p in (out / STATIC).iterdir()) == before   # … the scripts back
