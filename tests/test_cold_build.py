"""A cold sample build (new process) against the import floor of its libraries.

Target (benchmarks/run.py, median of 5 on an idle machine): ≤ 1.3 × `python -c "import pandas,
jinja2, markdown_it, click, orjson"`. Here the margin is generous (shared CI machines): the test
catches a build that starts importing something heavy again or re-parses its string table,
not the last tenth of a second."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

FLOOR = "import pandas, jinja2, markdown_it, click, orjson"
MARGIN = 2.5


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - began


def test_cold_build_stays_near_the_import_floor(tmp_path: Path) -> None:
    # bytecode cached as for an installed package (this shell may set PYTHONDONTWRITEBYTECODE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    cmds = {"floor": [sys.executable, "-c", FLOOR],
            "build": [sys.executable, "-m", "reportgen", "build", "-q", "-o",
                      str(tmp_path / "r.html")]}
    for cmd in cmds.values():
        _wall(cmd, env)  # warm the page cache and the .pyc files
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(5):
        for name, cmd in cmds.items():
            times[name].append(_wall(cmd, env))
    floor, build = (statistics.median(times[k]) for k in ("floor", "build"))
    assert build <= MARGIN * floor, f"build {build:.2f} s vs floor {floor:.2f} s"


def test_build_imports_no_plotly(tmp_path: Path) -> None:
    """plotly.py is needed only for a trace type outside the vendored bundle."""
    code = ("import sys; from pathlib import Path; from reportgen.build import build_report; "
            f"build_report(Path({str(tmp_path / 'src')!r}), Path({str(tmp_path / 'r.html')!r}))"
            "; print(sorted(m for m in sys.modules if m.split('.')[0] == 'plotly'))")
    import shutil

    from reportgen.files.resources import sample_round_dir

    shutil.copytree(sample_round_dir(), tmp_path / "src")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip() == "[]"
