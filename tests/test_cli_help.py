"""The CLI in one style: every command has help that ends with an `Example:` line running that
command, the ROUND argument and --lang are declared once (`round_argument`, `lang_option`), and
a bad ROUND is one `Error:` line with exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reportgen import cli
from reportgen.cli import main

COMMANDS = sorted(main.commands)
SOURCE = Path(cli.__file__).read_text(encoding="utf-8")


def test_there_are_commands() -> None:
    assert {"build", "check", "diff", "index", "init", "serve", "tables", "values"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_and_an_example(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    command = main.commands[name]
    assert command.help and command.help.strip().splitlines()[0].strip()
    assert command.get_short_help_str().strip()
    examples = re.findall(r"^\s*Example: (.+)$", result.stdout, re.M)
    assert len(examples) == 1, result.stdout
    assert examples[0].startswith(f"reportgen {name} ")
    # the example parses: every option it uses exists on the command
    used = re.findall(r"(?<!\S)(--?[a-z][\w-]*)", examples[0])
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    assert set(used) <= known, set(used) - known


def test_main_help_lists_every_command_with_its_summary() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s+\S", result.stdout, re.M), name


@pytest.mark.parametrize("name", COMMANDS)
def test_round_argument_is_the_one_declaration(name: str) -> None:
    params = [p for p in main.commands[name].params if p.name == "round_dir"]
    for param in params:
        assert isinstance(param, click.Argument)
        assert param.callback is not None
        assert param.callback.__qualname__ == "round_argument.<locals>.convert"


def test_lang_is_declared_once() -> None:
    assert SOURCE.count('"--lang"') == 1   # inside lang_option
    langs = [p for c in main.commands.values() for p in c.params if p.name == "lang"]
    assert len(langs) >= 4
    for param in langs:
        assert isinstance(param.type, click.Choice) and list(param.type.choices) == ["zh", "en"]
    # build and serve open a page: the same words
    helps = {name: next(p.help for p in main.commands[name].params if p.name == "lang")
             for name in ("build", "serve")}
    assert helps["build"] == helps["serve"]


def test_no_hand_validation_of_the_round_left() -> None:
    assert "_round_arg(" not in SOURCE
    assert SOURCE.count("def _round_path") == 1


@pytest.mark.parametrize("name", ["check", "tables", "values", "init"])
def test_a_missing_round_is_one_error_line_exit_2(name: str, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    args = [name, str(missing)] + (["x"] if name == "values" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: {missing}: not a round directory (expected a folder of " \
                            "benchmark results)\n"


def test_round_toml_stands_for_its_folder(tmp_path: Path) -> None:
    sample = Path(cli.__file__).resolve().parents[1] / "sample_runs" / "round2-rtx4090"
    by_file = CliRunner().invoke(main, ["values", str(sample / "round.toml"), "setup.gpu"])
    by_dir = CliRunner().invoke(main, ["values", str(sample), "setup.gpu"])
    assert by_file.exit_code == by_dir.exit_code == 0
    assert by_file.stdout == by_dir.stdout and "RTX 4090" in by_dir.stdout
