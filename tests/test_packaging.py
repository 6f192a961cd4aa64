"""The wheel carries templates and the sample round, and works from outside the checkout."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(ROOT)],
        check=True,
    )
    (found,) = dist.glob("reportgen-*.whl")
    return found


def test_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "reportgen/templates/report.html.j2" in names
    assert "reportgen/sample_runs/round2-rtx4090/round.toml" in names
    # the built-in GPU and model tables are data files read at run time
    assert "reportgen/data/gpus.toml" in names
    assert "reportgen/data/models.toml" in names
    assert any(n.startswith("reportgen/sample_runs/round2-rtx4090/llamacpp/bench/") for n in names)
    assert not any("__pycache__" in n for n in names)


def test_wheel_runs_outside_checkout(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    version = subprocess.run([str(py), "-m", "reportgen", "--version"], cwd=work,
                             capture_output=True, text=True, check=True)
    assert "reportgen" in version.stdout
    # the installed package reads its own table files: same answers as the checkout
    lookups = ("from reportgen.reference.gpus import lookup_gpu; "
               "from reportgen.reference.models import bytes_per_param, lookup_model; "
               "print(lookup_gpu('NVIDIA H100 80GB HBM3'), lookup_model('Qwen/Qwen3-8B'), "
               "bytes_per_param('x-Q4_K_M.gguf'))")
    installed = subprocess.run([str(py), "-c", lookups], cwd=work, capture_output=True,
                               text=True, check=True)
    checkout = subprocess.run([sys.executable, "-c", lookups], cwd=ROOT, capture_output=True,
                              text=True, check=True)
    assert "Qwen3-8B" in installed.stdout and installed.stdout == checkout.stdout
    out = subprocess.run([str(env_dir / "bin" / "reportgen"), "build", "-q", "-o", "r.html"],
                         cwd=work, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    html = (work / "r.html").read_text(encoding="utf-8")
    assert 'id="report-data"' in html
    assert "RTX 4090" in html
