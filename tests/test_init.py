"""`reportgen init`: the written round.toml carries what the files say (each value checked
against the raw files here), never overwrites by accident, and builds the same report."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from data_paths import REAL_ROUNDS as REAL
from data_paths import SHARED_ROUNDS

from reportgen.cli import main
from reportgen.reference.gpus import lookup_gpu

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"


def _bare_sample(tmp_path: Path) -> Path:
    """The sample with its round.toml moved aside (and its narrative, which names values a
    bare folder cannot have, such as the log segments)."""
    root = tmp_path / "round2"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("round.toml", "narrative"))
    return root


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_init_recovers_every_value_the_sample_files_carry(tmp_path: Path) -> None:
    root = _bare_sample(tmp_path)
    code, out, err = _invoke("init", str(root))
    assert code == 0, err
    written = tomllib.loads((root / "round.toml").read_text(encoding="utf-8"))
    original = tomllib.loads((SAMPLE / "round.toml").read_text(encoding="utf-8"))

    # the GPU, as the fingerprint names it, is the original's GPU
    fingerprint = (SAMPLE / "vllm" / "fingerprint.txt").read_text(encoding="utf-8")
    assert written["hardware"]["gpu"] in fingerprint
    assert lookup_gpu(written["hardware"]["gpu"]) == lookup_gpu(original["hardware"]["gpu"])
    # the workload: mean tokens per completed request in the bench files
    first = json.loads(next((SAMPLE / "vllm" / "bench").glob("*concurrency1-*.json"))
                       .read_text(encoding="utf-8"))
    assert written["workload"]["input_tokens"] == first["total_input_tokens"] // first[
        "completed"] == original["workload"]["input_tokens"]
    assert written["workload"]["output_tokens"] == original["workload"]["output_tokens"]
    # the date of the earliest result file
    dates = sorted(json.loads(p.read_text(encoding="utf-8"))["date"][:8]
                   for p in SAMPLE.glob("*/bench/*.json"))
    assert written["round"]["date"].replace("-", "") == dates[0]
    # engines: the same ids, folders and kinds; versions as the server logs print them
    by_id = {e["id"]: e for e in written["engines"]}
    assert {(e["id"], e["dir"], e["kind"]) for e in original["engines"]} == {
        (i, e["dir"], e["kind"]) for i, e in by_id.items()}
    vllm_log = (SAMPLE / "vllm" / "server.log").read_text(encoding="utf-8")
    assert by_id["vllm"]["version"] == re.search(r"vLLM API server version (\S+)",
                                                 vllm_log).group(1)
    llama_log = (SAMPLE / "llamacpp" / "server.log").read_text(encoding="utf-8")
    assert re.search(r"\bb(\d+)\b", by_id["llamacpp"]["version"]).group(1) in llama_log
    assert original["model"]["name"] in written["model"]["name"]
    assert "nothing left open" in out or "left open" in out


def test_building_with_the_written_file_keeps_every_run(tmp_path: Path) -> None:
    root = _bare_sample(tmp_path)
    bare = json.loads(_invoke("tables", str(root), "--format", "json")[1])
    assert _invoke("init", str(root))[0] == 0
    after = json.loads(_invoke("tables", str(root), "--format", "json")[1])
    key = [(r["engine"], r["concurrency"], r["output_tok_s"]) for r in bare["runs"]]
    assert sorted(key) == sorted((r["engine"], r["concurrency"], r["output_tok_s"])
                                 for r in after["runs"])
    assert len(key) == 14
    assert [t["output_tok_s"] for t in bare["tiers"]] == [t["output_tok_s"]
                                                         for t in after["tiers"]]


def test_init_never_overwrites_and_force_keeps_a_backup(tmp_path: Path) -> None:
    root = _bare_sample(tmp_path)
    (root / "round.toml").write_text("# mine\n", encoding="utf-8")
    code, _, err = _invoke("init", str(root))
    assert code == 2 and "round2/round.toml: already exists" in err and "--force" in err
    assert (root / "round.toml").read_text(encoding="utf-8") == "# mine\n"
    code, out, err = _invoke("init", str(root), "--force")
    assert code == 0, err
    assert (root / "round.toml.bak").read_text(encoding="utf-8") == "# mine\n"
    assert "round.toml.bak" in out
    assert "[hardware]" in (root / "round.toml").read_text(encoding="utf-8")
    assert _invoke("init", str(root), "--force")[0] == 0
    assert (root / "round.toml.bak.2").exists()  # the first backup is not lost


def test_filling_a_todo_enables_the_roofline(tmp_path: Path) -> None:
    """rtxpro: the served model name is not in the model table, so the weight bytes are left
    TODO; filling them in gives the bytes-per-step figures."""
    root = tmp_path / "rtx"
    shutil.copytree(REAL / "rtxpro6000-maxq-vs-ws-concurrency-repeats", root)
    code, out, err = _invoke("init", str(root))
    assert code == 0, err
    text = (root / "round.toml").read_text(encoding="utf-8")
    assert "# TODO weight_bytes_per_step" in text and "weight_bytes_per_step" in out
    before = json.loads(_invoke("tables", str(root), "--format", "json")[1])
    assert all(e["weight_bytes_per_step"] is None for e in before["engines"])
    filled = text.replace("# TODO weight_bytes_per_step = ?", "weight_bytes_per_step = 23e9 #")
    filled = filled.replace("# TODO kv_bytes_per_token = ?", "kv_bytes_per_token = 131072 #")
    (root / "round.toml").write_text(filled, encoding="utf-8")
    after = json.loads(_invoke("tables", str(root), "--format", "json")[1])
    assert {e["weight_bytes_per_step"] for e in after["engines"]} == {23e9}
    assert len(after["runs"]) == len(before["runs"]) == 48


def _init_then_build(folder: Path, tmp_path: Path) -> None:
    root = tmp_path / folder.name
    shutil.copytree(folder, root)
    assert _invoke("init", str(root))[0] == 0
    tomllib.loads((root / "round.toml").read_text(encoding="utf-8"))  # valid TOML
    code, _, err = _invoke("build", str(root), "-q", "-o", str(tmp_path / f"{folder.name}.html"))
    assert code == 0, f"{folder.name}: {err}"


@pytest.mark.parametrize("name", sorted(p.name for p in REAL.iterdir() if p.is_dir()))
def test_init_then_build_on_every_real_folder(tmp_path: Path, name: str) -> None:
    _init_then_build(REAL / name, tmp_path)


@pytest.mark.shared
def test_init_then_build_on_the_larger_shared_real_folders(tmp_path: Path) -> None:
    """The real rounds not vendored in tests/data (too large to copy)."""
    vendored = {p.name for p in REAL.iterdir()}
    others = sorted(p for p in SHARED_ROUNDS.iterdir() if p.is_dir() and p.name not in vendored)
    assert others
    for folder in others:
        _init_then_build(folder, tmp_path)
