"""Hardening catalogue 3, discovery never changes data silently: each case names the promise
it checks.

- a byte-order mark is accepted (JSON and JSONL);
- a copy (backup folders, __MACOSX, "(1)" / "- Copy" names) never wins over the original
  and never makes a configuration;
- a JSON result and its console log are the same run within the console's printed precision;
- conflicting results for the same run are a warning naming both files;
- the folder walk is iterative; unreadable folders are reported;
- a run whose requests all failed stays in its workload, with no numpy warning;
- non-finite or absurd values are refused by the checks;
- a provenance glob that matches no input is a warning.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.files.resources import sample_round_dir
from reportgen.load.copies import copy_reason, original_name
from reportgen.load.walk import walk

sys.path.insert(0, str(Path(__file__).parent))
from hardening_rounds import console, payload, sweep, write_result

CONFIG = re.compile(r"^(?:pass|warn|fail)\s+\S+\s+(\S+)", re.M)


def check(root: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", str(root)])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def configs(out: str) -> set[str]:
    return set(CONFIG.findall(out))


def tables(root: Path) -> dict:
    result = CliRunner().invoke(main, ["tables", str(root)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def two(tmp_path: Path) -> Path:
    root = sweep(tmp_path / "r", "vllm")
    return sweep(root, "sglang", tok_s=(90.0, 250.0, 500.0))


# ---- byte-order marks ------------------------------------------------------------------

@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_result_with_a_bom_is_read(two: Path, jsonl: bool) -> None:
    """promise: a UTF-8 BOM is accepted, for JSON and for JSON Lines."""
    (two / "sglang" / "c16.json").unlink()
    name = "c16.jsonl" if jsonl else "c16.json"
    write_result(two / "sglang" / name, payload(16, 500.0, date="20250301-150016"), bom=True,
                 jsonl=jsonl)
    data = tables(two)
    assert not any(name in row["file"] for row in data["skipped"] if "file" in row)
    assert {(r["engine"], r["concurrency"]) for r in data["tiers"]} >= {("sglang", 16)}


def test_jsonl_of_several_records_with_a_bom(two: Path) -> None:
    """promise: the BOM only precedes the first line: every record is read."""
    shutil.rmtree(two / "sglang")
    lines = "".join(json.dumps(payload(c, r, date=f"20250301-1600{c:02d}")) + "\n"
                    for c, r in ((1, 90.0), (4, 250.0), (16, 500.0)))
    (two / "sglang").mkdir()
    (two / "sglang" / "all.jsonl").write_bytes(b"\xef\xbb\xbf" + lines.encode())
    data = tables(two)
    assert sorted(r["concurrency"] for r in data["tiers"] if r["engine"] == "sglang") == \
        [1, 4, 16]


# ---- copies ----------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "original"), [
    ("c8 (1).json", "c8.json"), ("c8 - Copy.json", "c8.json"), ("c8 - Copy (2).json", "c8.json"),
    ("Copy of c8.json", "c8.json"), ("c8 copy.json", "c8.json"), ("c8.json.bak", "c8.json"),
    ("c8.json~", "c8.json"), ("c8.orig.json", "c8.json"), ("vllm (2)", "vllm"),
    ("c8.json", None), ("run=1.json", None), ("c (x).json", None), ("copy.json", None),
])
def test_copy_names(name: str, original: str | None) -> None:
    """promise: the usual copy names are recognised, and ordinary names are not."""
    assert original_name(name) == original


def test_copy_reason_needs_the_original_except_for_backup_folders() -> None:
    """promise: a lone "(1)" file is read; backup folders and __MACOSX never are."""
    present = frozenset({"vllm", "vllm/c8.json", "vllm/c8 (1).json", "x", "x/c1 (1).json"})
    assert copy_reason("vllm/c8 (1).json", present) is not None
    assert copy_reason("x/c1 (1).json", present) is None
    assert copy_reason("backup/vllm/c8.json", present) is not None
    assert copy_reason("__MACOSX/vllm/c8.json", present) is not None


@pytest.mark.parametrize("copy_dir", ["backup", "Backups", "bak", "__MACOSX", "vllm (1)",
                                      "vllm - Copy"])
def test_a_copied_folder_never_makes_a_configuration(two: Path, copy_dir: str) -> None:
    """promise: a copied folder neither wins over the original nor adds a configuration."""
    target = two / copy_dir / "vllm" if copy_dir.lower() in ("backup", "backups", "bak",
                                                               "__macosx") else two / copy_dir
    shutil.copytree(two / "vllm", target)
    code, out, _ = check(two)
    assert code == 0 and configs(out) == {"vllm", "sglang"}, out
    data = tables(two)
    used = {r["source"] for r in data["runs"]}
    assert all(not s.startswith(copy_dir) for s in used), used


@pytest.mark.parametrize("copy_name", ["c4 (1).json", "c4 - Copy.json", "Copy of c4.json",
                                       "c4.json.bak", "c4.json~", "c4 copy.json"])
def test_a_copied_file_never_wins_over_the_original(two: Path, copy_name: str) -> None:
    """promise: the original is the file used, and the copy is listed as a copy."""
    shutil.copy(two / "sglang" / "c4.json", two / "sglang" / copy_name)
    data = tables(two)
    used = {r["source"] for r in data["runs"]}
    assert "sglang/c4.json" in used and f"sglang/{copy_name}" not in used
    why = {s["file"]: s["reason"] for s in data["skipped"]}
    assert "copy" in why[f"sglang/{copy_name}"]


def test_an_edited_copy_sorting_first_is_still_not_used(two: Path) -> None:
    """promise: even a copy with other numbers (stale backup) never replaces the original."""
    d = payload(4, 999.0, date="20250301-090000")
    write_result(two / "backup" / "sglang" / "c4.json", d)
    data = tables(two)
    tok = [r["output_tok_s"] for r in data["tiers"]
           if r["engine"] == "sglang" and r["concurrency"] == 4]
    assert tok == [250.0]


# ---- JSON result + console log ---------------------------------------------------------

@pytest.mark.parametrize("jitter", [0.0, 0.0049, -0.0049, 0.001234])
def test_json_and_its_console_log_are_one_run(two: Path, jitter: float) -> None:
    """promise: a console log of a run saved as JSON is that run (within its two printed
    decimals), not a second configuration nor a second repeat."""
    for conc in (1, 4, 16):
        d = json.loads((two / "vllm" / f"c{conc}.json").read_text())
        d["duration"] = round(d["duration"], 2) + jitter  # the JSON's own, unrounded value
        (two / "vllm" / f"c{conc}.json").write_text(json.dumps(d))
        printed = dict(d)
        printed["duration"] = float(f"{d['duration']:.2f}")
        (two / "vllm" / f"c{conc}.log").write_text(console(printed))
    code, out, _ = check(two)
    assert code == 0 and configs(out) == {"vllm", "sglang"}, out
    data = tables(two)
    assert all(r["repeat"] == 1 for r in data["runs"])
    skipped = {s["file"]: s["reason"] for s in data["skipped"]}
    assert all("the same run as" in skipped[f"vllm/c{c}.log"] for c in (1, 4, 16))


def test_a_console_log_of_another_run_is_kept(two: Path) -> None:
    """promise: the tolerance is the printed precision, not more: 1 % off is another run."""
    d = json.loads((two / "vllm" / "c4.json").read_text())
    other = dict(d, duration=d["duration"] * 1.01,
                 output_throughput=d["output_throughput"] / 1.01)
    (two / "vllm" / "c4.log").write_text(console(other))
    data = tables(two)
    assert sum(1 for r in data["runs"] if r["engine"] == "vllm" and r["concurrency"] == 4) == 2


def test_console_without_a_model_joins_its_folder(two: Path) -> None:
    """promise: naming comes from runs; a console's missing model never splits a folder."""
    (two / "vllm" / "c16.json").unlink()
    (two / "vllm" / "c16.log").write_text(console(payload(16, 600.0)))
    code, out, _ = check(two)
    assert code == 0 and configs(out) == {"vllm", "sglang"}, out


# ---- conflicting results ---------------------------------------------------------------

def test_same_start_time_different_results_is_a_warning_naming_both(two: Path) -> None:
    """promise: two different results claiming one run are flagged, naming both files."""
    d = json.loads((two / "vllm" / "c4.json").read_text())
    d["duration"] *= 1.5
    d["output_throughput"] /= 1.5
    (two / "vllm" / "c4-rerun.json").write_text(json.dumps(d))
    _, out, _ = check(two)
    warning = out[out.index("input warnings"):]
    assert "same start time" in warning
    assert "c4.json" in warning and "c4-rerun.json" in warning


def test_distinct_start_times_raise_no_conflict(two: Path) -> None:
    """promise: the conflict warning does not fire on ordinary repeats."""
    d = json.loads((two / "vllm" / "c4.json").read_text())
    d["date"] = "20250301-235959"
    d["duration"] *= 1.01
    (two / "vllm" / "c4-rerun.json").write_text(json.dumps(d))
    _, out, _ = check(two)
    assert "same start time" not in out


# ---- walking the folder ----------------------------------------------------------------

def test_a_1100_level_folder_chain_does_not_crash(two: Path) -> None:
    """promise: the walk is iterative (no recursion limit)."""
    path = str(two / "deep")
    os.mkdir(path)
    for _ in range(1100):
        path += "/d"
        os.mkdir(path)
    with open(path + "/note.txt", "w", encoding="utf-8") as f:
        f.write("deep")
    try:
        code, out, err = check(two)
        assert code == 0, err
        assert configs(out) == {"vllm", "sglang"}
    finally:
        subprocess.run(["rm", "-rf", str(two / "deep")], check=True)


def test_walk_reports_unreadable_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: a folder that cannot be listed is reported to the caller."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    real = os.scandir

    def scandir(path: object) -> object:
        if str(path).endswith("/b"):
            raise PermissionError(13, "Permission denied")
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    seen: list[str] = []
    folders = [str(f) for f, _, _ in walk(tmp_path, lambda f, e: seen.append(f.name))]
    assert seen == ["b"] and str(tmp_path / "a") in folders


def test_an_unreadable_configuration_folder_is_a_warning(two: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """promise: an unreadable configuration folder never vanishes with a clean check."""
    real = os.scandir

    def scandir(path: object) -> object:
        if str(path).endswith("/sglang"):
            raise PermissionError(13, "Permission denied")
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    _, out, _ = check(two)
    assert "cannot be read" in out and "sglang" in out
    assert not out.rstrip().endswith("0 warn · 0 fail")


# ---- failed runs, numpy, absurd values -------------------------------------------------

def _all_failed(conc: int) -> dict:
    d = payload(conc, 500.0, completed=0, failed=4 * conc, total_output_tokens=0,
                total_input_tokens=0, output_throughput=0.0, request_throughput=0.0,
                total_token_throughput=0.0, date=f"20250301-1700{conc:02d}")
    return {k: (0.0 if k.endswith("_ms") else v) for k, v in d.items()}


def test_a_run_whose_requests_all_failed_stays_in_its_workload(two: Path) -> None:
    """promise: no phantom workload from a run with no completed request."""
    write_result(two / "sglang" / "c64.json", _all_failed(64))
    data = tables(two)
    assert len(data["round"].get("workloads") or [None]) == 1
    assert any(r["engine"] == "sglang" and r["concurrency"] == 64 for r in data["tiers"])


def test_no_numpy_warning_reaches_stderr(two: Path) -> None:
    """promise: numpy never prints warnings (a real process, so warnings are not captured)."""
    write_result(two / "sglang" / "c64.json", _all_failed(64))
    done = subprocess.run([sys.executable, "-W", "default", "-m", "reportgen", "check",
                           str(two)], capture_output=True, text=True, timeout=300)
    assert "Warning" not in done.stderr and "warn(" not in done.stderr, done.stderr


@pytest.mark.parametrize("duration", [5e-324, 1e-9])
def test_absurd_duration_fails_the_checks(two: Path, duration: float) -> None:
    """promise: a duration that gives an infinite or absurd throughput fails `check`."""
    write_result(two / "sglang" / "c16.json",
                 payload(16, 500.0, duration=duration, date="20250301-180016"))
    code, out, _ = check(two)
    assert code == 1 and "plausibility.absurd" in out


def test_ordinary_round_passes_the_absurd_check(two: Path) -> None:
    """promise: the check can pass."""
    code, out, _ = check(two)
    assert code == 0 and "plausibility.absurd" not in out


# ---- provenance globs ------------------------------------------------------------------

def test_a_provenance_glob_matching_nothing_is_a_warning(tmp_path: Path) -> None:
    """promise: a [[provenance.files]] glob that matches no input warns (marks not lost
    silently)."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    toml = root / "round.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('files = ["*/bench/*.json"]',
                                 'files = ["*/bench/*.json", "vllm/bnech/*.json"]', 1),
                    encoding="utf-8")
    _, out, _ = check(root)
    assert "provenance.unmatched" in out and "vllm/bnech/*.json" in out


def test_the_sample_globs_all_match() -> None:
    """promise: no false alarm on the bundled sample's provenance."""
    _, out, _ = check(sample_round_dir())
    assert "provenance.unmatched" not in out
