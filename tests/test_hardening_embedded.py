"""Hardening catalogue 3, one checked reader for embedded report data: each case names the
promise it checks.

- types are validated against the tables schema before use (diff, --previous, --baseline);
- integers beyond float range and overflowing floats are refused;
- nesting is capped (the data block, and baseline.toml like round.toml);
- a packed block's unpacked size is capped absolutely and relative to its packed size;
- a round.toml baseline outside the round's parent folder needs --baseline.
"""

from __future__ import annotations

import base64
import json
import lzma
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.files import datablock
from reportgen.files.embedded import schema_problem
from reportgen.files.resources import sample_round_dir

BLOCK = re.compile(r'(<script[^>]*id="report-data"[^>]*>)(.*?)(</script>)', re.S)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert CliRunner().invoke(main, ["build", "-q", "-o", str(out)]).exit_code == 0
    return out


def crafted(report: Path, tmp_path: Path, mutate: Callable[[dict], None] | None = None,
            body: str | None = None) -> Path:
    html = report.read_text(encoding="utf-8")
    m = BLOCK.search(html)
    assert m is not None
    data = json.loads(m.group(2))
    if mutate is not None:
        mutate(data)
    text = body if body is not None else json.dumps(data).replace("<", "\\u003c")
    out = tmp_path / "crafted.html"
    out.write_text(html[:m.start(2)] + text + html[m.end(2):], encoding="utf-8")
    return out


def both_commands(path: Path, report: Path, tmp_path: Path) -> list[tuple[int, str]]:
    """diff and build --baseline on the crafted report: (exit code, stderr) of each."""
    out = []
    for args in (["diff", str(path), str(report)],
                 ["build", "-q", "-o", str(tmp_path / "b.html"), "--baseline", str(path)],
                 ["build", "-q", "-o", str(tmp_path / "p.html"), "--previous", str(path)]):
        result = CliRunner().invoke(main, args)
        assert ("Traceback" not in result.output and result.exception is None) or \
            isinstance(result.exception, SystemExit), result.output
        out.append((result.exit_code, result.stderr))
    return out


MUTATIONS: list[tuple[str, Callable[[dict], None], str]] = [
    ("workloads of numbers", lambda d: d["round"].__setitem__("workloads", [1]),
     "round.workloads[1]"),
    ("workload id a number", lambda d: d["round"].__setitem__("workloads", [{"id": 3}]),
     "round.workloads[1]"),
    ("numeric engine id", lambda d: d["engines"][0].__setitem__("id", 5),
     "engines row 1: id is 5, expected text"),
    ("tier engine a list", lambda d: d["tiers"][0].__setitem__("engine", ["x"]),
     "tiers row 1: engine"),
    ("concurrency text", lambda d: d["tiers"][0].__setitem__("concurrency", "eight"),
     "expected a number"),
    ("title a number", lambda d: d["round"].__setitem__("title", 7), "round.title"),
    ("label a list", lambda d: d["engines"][0].__setitem__("label", [1]),
     "engines row 1: label"),
    ("label with a number", lambda d: d["engines"][0].__setitem__("label", {"zh": 1}),
     "engines row 1: label"),
    ("cell an object", lambda d: d["tiers"][0].__setitem__("output_tok_s", {"a": 1}),
     "tiers row 1: output_tok_s"),
    ("tiers not a list", lambda d: d.__setitem__("tiers", {"a": 1}), "tiers is not a list"),
    ("values a list", lambda d: d.__setitem__("values", [1]), "values is not an object"),
    ("primary pair numbers", lambda d: d["round"].__setitem__("primary_pair", [1, 2]),
     "round.primary_pair"),
    ("concurrency list of text", lambda d: d["round"].__setitem__("concurrency", ["a"]),
     "round.concurrency"),
]


@pytest.mark.parametrize(("what", "mutate", "message"), MUTATIONS,
                         ids=[m[0] for m in MUTATIONS])
def test_wrong_types_are_refused_before_use(report: Path, tmp_path: Path, what: str,
                                            mutate: Callable[[dict], None],
                                            message: str) -> None:
    """promise: a wrong type is one `Error:` line with exit 2 in diff, --baseline and
    --previous, never a crash."""
    path = crafted(report, tmp_path, mutate)
    for code, err in both_commands(path, report, tmp_path):
        assert code == 2 and err.startswith(f"Error: {path}") and message in err, (what, err)
        assert err.count("\n") == 1


def _with_number(report: Path, tmp_path: Path, number: str) -> Path:
    """The report with a named value whose JSON text is ``number`` exactly."""
    path = crafted(report, tmp_path, lambda d: d["values"].__setitem__("big", "__BIG__"))
    path.write_text(path.read_text(encoding="utf-8").replace('"__BIG__"', number),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("number", ["9" * 401, "-" + "9" * 309, "1" + "0" * 309])
def test_integers_beyond_float_range_are_refused(report: Path, tmp_path: Path,
                                                 number: str) -> None:
    """promise: an integer no float holds is refused (a 401-digit one crashed diff)."""
    path = _with_number(report, tmp_path, number)
    for code, err in both_commands(path, report, tmp_path):
        assert code == 2 and ("beyond float range" in err or "too large" in err), err


@pytest.mark.parametrize("number", ["1e999", "-1e400"])
def test_overflowing_floats_are_refused(report: Path, tmp_path: Path, number: str) -> None:
    """promise: a float literal that overflows to infinity is refused."""
    path = _with_number(report, tmp_path, number)
    for code, err in both_commands(path, report, tmp_path):
        assert code == 2 and "beyond float range" in err, err


def test_integers_within_float_range_are_read(report: Path, tmp_path: Path) -> None:
    """promise: the range check can pass (a 300-digit integer is a float)."""
    path = crafted(report, tmp_path, lambda d: d["values"].__setitem__("big", 10**300))
    result = CliRunner().invoke(main, ["diff", str(report), str(path)])
    assert result.exit_code == 0 and "big" in result.stdout


@pytest.mark.parametrize("depth", [40, 5_000, 100_000])
def test_nesting_is_capped(report: Path, tmp_path: Path, depth: int) -> None:
    """promise: deep nesting is refused with one line at any depth."""
    body = '{"schema": "reportgen.tables/2", "values": ' + '{"a": ' * depth + "1" + \
        "}" * (depth + 1)
    path = crafted(report, tmp_path, body=body)
    for code, err in both_commands(path, report, tmp_path):
        assert code == 2 and "nested" in err, err


def _bomb(size: int) -> str:
    return base64.b64encode(lzma.compress(b" " * size, format=lzma.FORMAT_XZ)).decode()


def test_unpack_limit_is_relative_and_absolute() -> None:
    """promise: a block may unpack to at most 100× its packed size, and never past 256 MiB."""
    assert datablock.unpack_limit(10_000) == datablock.MIN_ALLOWED
    assert datablock.unpack_limit(1_000_000) == 100_000_000
    assert datablock.unpack_limit(10**9) == datablock.MAX_UNPACKED


def test_a_zip_bomb_block_is_refused(report: Path, tmp_path: Path) -> None:
    """promise: 10 KB packed that unpacks to 50 MB is refused without unpacking it all."""
    path = crafted(report, tmp_path, body=_bomb(50 << 20))
    assert path.stat().st_size < report.stat().st_size + 20_000
    for code, err in both_commands(path, report, tmp_path):
        assert code == 2 and "unpacks to more than" in err, err


def _peak_kib(*args: str) -> tuple[int, int]:
    """Exit status and peak resident memory (VmHWM, which starts afresh at exec) of a diff."""
    code = ("import sys; from reportgen.cli import main\n"
            "try:\n    main(['diff', *sys.argv[1:]])\nexcept SystemExit as e:\n"
            "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
            "    print(e.code, hwm.split()[1])\n")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)
    status, peak = done.stdout.splitlines()[-1].split()  # after diff's own output
    return int(status), int(peak)


def test_a_zip_bomb_costs_bounded_memory(report: Path, tmp_path: Path) -> None:
    """promise: memory stays bounded: diffing a 200 MB bomb peaks about where diffing two
    real reports does, far below the bomb's unpacked size."""
    path = crafted(report, tmp_path, body=_bomb(200 << 20))
    status, bomb = _peak_kib(str(path), str(report))
    _, normal = _peak_kib(str(report), str(report))
    assert status == 2 and bomb < normal + 64 * 1024, (bomb, normal)


def test_schema_problem_accepts_the_real_tables() -> None:
    """promise: the checked reader accepts what reportgen itself writes (no false alarm)."""
    done = CliRunner().invoke(main, ["tables"])
    assert schema_problem(json.loads(done.stdout)) is None


# ---- baseline.toml ---------------------------------------------------------------------

def _baseline_dir(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "baseline.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("text", [
    "a = " + "[" * 50_000 + "]" * 50_000 + "\n",
    "[baseline]\n" + "x = " + "{ a = " * 3000 + "1" + " }" * 3000 + "\n",
])
def test_baseline_toml_nested_deep_is_one_line(tmp_path: Path, text: str) -> None:
    """promise: baseline.toml has the nesting guard round.toml has."""
    folder = _baseline_dir(tmp_path, text)
    result = CliRunner().invoke(main, ["build", "-q", "-o", str(tmp_path / "r.html"),
                                       "--baseline", str(folder)])
    assert result.exit_code == 2 and result.stderr.startswith("Error: ")
    assert "nested" in result.stderr and result.stderr.count("\n") == 1


def test_baseline_toml_integer_beyond_float_range_is_refused(tmp_path: Path) -> None:
    """promise: a published figure no float holds is refused, not a crash."""
    folder = _baseline_dir(tmp_path, '[baseline]\ntitle = "Old"\nsource = "blog"\n[values]\n'
                                     f'"crossover.concurrency" = {"9" * 400}\n')
    result = CliRunner().invoke(main, ["build", "-q", "-o", str(tmp_path / "r.html"),
                                       "--baseline", str(folder)])
    assert result.exit_code == 2 and "beyond float range" in result.stderr


# ---- where a baseline may be -----------------------------------------------------------

def _round_with_baseline(tmp_path: Path, where: str) -> Path:
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "series" / "round2"))
    toml = root / "round.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('round = "../round1-rtx4090"', f'round = "{where}"'),
                    encoding="utf-8")
    return root


@pytest.mark.parametrize("where", ["/", "/usr", "../../../..", "../.."])
def test_round_toml_cannot_point_outside_the_parent_folder(tmp_path: Path, where: str) -> None:
    """promise: round.toml alone cannot make a build walk a tree outside the round's parent."""
    root = _round_with_baseline(tmp_path, where)
    result = CliRunner().invoke(main, ["build", str(root), "-q", "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2 and "--baseline" in result.stderr, result.output


def test_round_toml_may_point_at_a_sibling(tmp_path: Path) -> None:
    """promise: the usual ../round1 still works (the guard can pass)."""
    root = _round_with_baseline(tmp_path, "../round1")
    shutil.copytree(sample_round_dir(), tmp_path / "series" / "round1")
    result = CliRunner().invoke(main, ["build", str(root), "-q", "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output


def test_command_line_baseline_may_be_anywhere(tmp_path: Path) -> None:
    """promise: the command-line flag is how an outside baseline is chosen."""
    root = Path(shutil.copytree(sample_round_dir(), tmp_path / "a" / "round2"))
    other = Path(shutil.copytree(sample_round_dir(), tmp_path / "elsewhere" / "deep" / "r1"))
    result = CliRunner().invoke(main, ["build", str(root), "-q", "-o", str(tmp_path / "r.html"),
                                       "--baseline", str(other)])
    assert result.exit_code == 0, result.output
