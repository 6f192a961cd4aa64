"""Hardening catalogue 3, init writes only what builds: each case names the promise it checks.

- TOML strings and comments are escaped correctly (control characters, DEL, quotes,
  backslashes, bidi controls, lone surrogates);
- ids and dirs round-trip for any folder name (control characters, surrogates, invalid UTF-8),
  in the zero-config layout and in the `<dir>/bench` layout;
- init then build succeeds on every round the tests use and on such names;
- round.toml is written under the output policy (FIFO refused, link written through).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.files.resources import sample_round_dir
from reportgen.init_toml import _c, _q

sys.path.insert(0, str(Path(__file__).parent))
from hardening_rounds import payload, sweep, write_result

NAMES = [
    ("control character", "ctl\x01x"),
    ("escape", "esc\x1b[31mx"),
    ("delete", "del\x7fx"),
    ("newline", "nl\nx"),
    ("carriage return", "cr\rx"),
    ("tab", "tab\tx"),
    ("quotes and backslash", 'q"b\\s\'x'),
    ("bidi override", "rlo\u202ex"),
    ("line separator", "ls\u2028x"),
    ("cjk", "引擎一"),
    ("invalid utf-8", os.fsdecode(b"bad\xff\xfeutf8")),
    ("lone surrogate bytes", os.fsdecode(b"\xed\xa0\x80x")),
    ("leading dash and spaces", "- a b -"),
    ("toml syntax", "]] [x]\n# y = 1"),
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def init_then_build(root: Path) -> str:
    code, out = run("init", str(root))
    assert code == 0, out
    text = (root / "round.toml").read_text(encoding="utf-8")
    tomllib.loads(text)  # valid TOML, whatever the names
    code, out = run("build", str(root), "-q", "-o", str(root.parent / "report.html"))
    assert code == 0, out
    return text


@pytest.mark.parametrize("text", [n for _, n in NAMES] + ["", "a\x00b", "\ud800", "😀"],
                         ids=[w for w, _ in NAMES] + ["empty", "nul", "surrogate", "emoji"])
def test_toml_string_reads_back(text: str) -> None:
    """promise: every string init writes is valid TOML and reads back as itself (an
    undecodable byte as its \\xNN form)."""
    value = tomllib.loads(f"v = {_q(text)}\n")["v"]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert "\\" in value and "\ud800" not in value  # shown escaped, never raw
    else:
        assert value == text


@pytest.mark.parametrize("text", [n for _, n in NAMES], ids=[w for w, _ in NAMES])
def test_toml_comment_stays_one_valid_comment(text: str) -> None:
    """promise: input text in a comment can neither end it nor make the file invalid."""
    doc = f"a = 1  # from {_c(text)}\nb = 2\n"
    assert tomllib.loads(doc) == {"a": 1, "b": 2}


@pytest.mark.parametrize(("what", "name"), NAMES, ids=[w for w, _ in NAMES])
def test_init_then_build_with_an_odd_configuration_folder(tmp_path: Path, what: str,
                                                          name: str) -> None:
    """promise: zero-config: init's ids round-trip, so the round still builds after init."""
    root = tmp_path / "round"
    sweep(root, name.replace("/", "_"))
    sweep(root, "other", tok_s=(90.0, 250.0, 500.0))
    init_then_build(root)


@pytest.mark.parametrize(("what", "name"), NAMES, ids=[w for w, _ in NAMES])
def test_init_then_build_in_the_bench_layout(tmp_path: Path, what: str, name: str) -> None:
    """promise: <dir>/bench layout: the dir init writes resolves to the folder, whatever
    bytes its name holds (a non-UTF-8 name as \\xNN, mapped back by the manifest)."""
    root = tmp_path / "round"
    folder = name.replace("/", "_")
    for conc, rate in ((1, 100.0), (4, 300.0)):
        write_result(root / folder / "bench" / f"c{conc}.json",
                     payload(conc, rate, date=f"20250301-1100{conc:02d}"))
        write_result(root / "other" / "bench" / f"c{conc}.json",
                     payload(conc, rate * 0.9, date=f"20250301-1200{conc:02d}"))
    text = init_then_build(root)
    assert text.count("[[engines]]") == 2


@pytest.mark.parametrize(("what", "model"), NAMES[:10], ids=[w for w, _ in NAMES[:10]])
def test_init_then_build_with_an_odd_model_id(tmp_path: Path, what: str, model: str) -> None:
    """promise: values read from the files (the model id) are escaped as TOML strings too."""
    root = tmp_path / "round"
    for config, scale in (("a", 1.0), ("b", 0.9)):
        for conc, rate in ((1, 100.0), (4, 300.0)):
            write_result(root / config / f"c{conc}.json",
                         payload(conc, rate * scale, model_id=f"org/{model}",
                                 date=f"20250301-1{int(scale * 9)}00{conc:02d}"))
    init_then_build(root)


def test_init_then_build_on_the_sample_files(tmp_path: Path) -> None:
    """promise: the bundled sample's files, with round.toml (and the prose that cites its
    settings) removed, init and build."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "round"))
    (root / "round.toml").unlink()
    shutil.rmtree(root / "narrative")
    init_then_build(root)


def test_init_then_build_on_a_round_with_a_bom_result_and_a_console_log(tmp_path: Path) -> None:
    """promise: init + build also on the discovery rounds this catalogue uses."""
    root = sweep(tmp_path / "round", "vllm")
    write_result(root / "sglang" / "c1.jsonl", payload(1, 90.0, date="20250301-130001"),
                 bom=True, jsonl=True)
    write_result(root / "sglang" / "c4.json", payload(4, 250.0, date="20250301-130004"))
    init_then_build(root)


def test_init_refuses_a_fifo_round_toml_without_blocking(tmp_path: Path) -> None:
    """promise: init's round.toml follows the output policy: a FIFO is refused."""
    root = sweep(tmp_path / "round", "vllm")
    os.mkfifo(root / "round.toml")
    code, out = run("init", str(root), "--force")
    assert code == 2 and "not a regular file" in out
    assert stat.S_ISFIFO((root / "round.toml").lstat().st_mode)


def test_init_writes_through_a_link_inside_the_round(tmp_path: Path) -> None:
    """promise: a round.toml link inside the round is written through (the link stays)."""
    root = sweep(tmp_path / "round", "vllm")
    (root / "conf").mkdir()
    (root / "conf" / "real.toml").write_text("# old\n", encoding="utf-8")
    (root / "round.toml").symlink_to("conf/real.toml")
    code, out = run("init", str(root), "--force")
    assert code == 0, out
    assert (root / "round.toml").is_symlink()
    assert "reportgen init" in (root / "conf" / "real.toml").read_text(encoding="utf-8")


def test_init_refuses_a_link_that_leads_out(tmp_path: Path) -> None:
    """promise: init never writes outside the round through a link."""
    root = sweep(tmp_path / "round", "vllm")
    outside = tmp_path / "outside.toml"
    outside.write_text("# mine\n", encoding="utf-8")
    (root / "round.toml").symlink_to(outside)
    code, _ = run("init", str(root), "--force")
    assert code == 2 and outside.read_text(encoding="utf-8") == "# mine\n"


def test_init_mode_follows_the_umask(tmp_path: Path) -> None:
    """promise: a new round.toml's mode follows the umask."""
    root = sweep(tmp_path / "round", "vllm")
    old = os.umask(0o027)
    try:
        assert run("init", str(root))[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "round.toml").stat().st_mode) == 0o640
