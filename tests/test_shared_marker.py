"""The `shared` marker (tests/conftest.py): without ../shared a marked test is skipped with the
reason, except in CI, where it fails; with it, the test runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARKED = "tests/test_vendored_data.py::test_vendored_folder_is_a_verbatim_copy"


def pytest_run(shared: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["REPORTGEN_SHARED"] = str(shared)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           f"{MARKED}[seed]"], cwd=REPO, env=env, text=True,
                          capture_output=True, check=False)


def test_missing_shared_skips_with_the_reason(tmp_path: Path) -> None:
    done = pytest_run(tmp_path / "no-shared", ci=None)
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout
    assert f"needs {tmp_path / 'no-shared'}" in done.stdout


def test_missing_shared_fails_in_ci(tmp_path: Path) -> None:
    for ci in ("true", "1"):
        done = pytest_run(tmp_path / "no-shared", ci=ci)
        assert done.returncode == 1, done.stdout
        assert "CI runs the `shared` tests and must provide it" in done.stdout
        assert "skipped" not in done.stdout


def test_ci_false_is_not_ci(tmp_path: Path) -> None:
    assert pytest_run(tmp_path / "no-shared", ci="false").returncode == 0


def test_present_shared_runs_the_test(tmp_path: Path) -> None:
    """A stand-in ../shared holding the seed folder: the marked test runs (and passes)."""
    seed = tmp_path / "shared" / "seed"
    seed.mkdir(parents=True)
    name = "000_e020b4688c98be5e.txt"
    (seed / name).write_bytes((REPO / "tests" / "data" / "seed" / name).read_bytes())
    done = pytest_run(tmp_path / "shared", ci="true")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout
