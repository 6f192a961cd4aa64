"""Command line: thin click commands over the pipeline. The only module that imports click.

Heavy imports (pandas, plotly) happen inside the commands so `reportgen --help` stays instant.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.safe_read import printable

EXIT_INPUT = 2
EXIT_CHECK_FAILED = 1
MAX_MESSAGE = 2000  # a message quoting a megabyte-long input line must not flood the terminal


@contextmanager
def _input_errors() -> Iterator[None]:
    """Bad input → `Error: <file>[:line]: ...` on stderr and exit 2, never a traceback."""
    try:
        yield
    except InputError as exc:
        text = str(exc)
        if len(text) > MAX_MESSAGE:
            text = f"{text[:MAX_MESSAGE]}… ({len(text) - MAX_MESSAGE:,} more characters)"
        click.echo(f"Error: {text}", err=True)
        sys.exit(EXIT_INPUT)


def _round_arg(value: str | None) -> Path:
    if value is None:
        from reportgen.resources import sample_round_dir

        return sample_round_dir()
    path = Path(value)
    if not path.is_dir():
        if path.is_file() and path.name == "round.toml":
            return path.parent
        raise InputError(path, "not a round directory (expected a folder of benchmark results)")
    return path


def _progress(quiet: bool) -> Callable[[str], None]:
    start = time.perf_counter()

    def report(stage: str) -> None:
        if not quiet:
            click.echo(f"[{time.perf_counter() - start:6.2f}s] {stage}", err=True)

    return report


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main() -> None:
    """Turn a benchmark round directory into one offline, bilingual HTML report."""


@main.command()
@click.argument("round_dir", required=False, metavar="[ROUND]")
@click.option("-o", "--output", default="report.html", show_default=True,
              type=click.Path(dir_okay=False, allow_dash=True),
              help="Where to write the HTML file ('-': stdout). A symlink is written through; "
                   "a FIFO, device or an input of the round is refused.")
@click.option("--lang", type=click.Choice(["zh", "en"]), default=None,
              help="Language the page opens in (default: round.toml default_language).")
@click.option("--previous", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The last published report.html: adds a 'revisions' section listing changes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages.")
def build(round_dir: str | None, output: str, lang: str | None, previous: str | None,
          quiet: bool) -> None:
    """Build the report for ROUND (default: the bundled Round 2 sample)."""
    from reportgen.build import build_report

    with _input_errors():
        kwargs: dict[str, Any] = {"progress": _progress(quiet)}
        if previous is not None:
            kwargs["previous"] = Path(previous)
        out = build_report(_round_arg(round_dir), output, lang, **kwargs)
    if out is not None:
        click.echo(f"wrote {printable(str(out))} ({out.stat().st_size / 1e6:.2f} MB)")


@main.command()
@click.argument("round_dir", metavar="ROUND")
def check(round_dir: str) -> None:
    """Load ROUND, print its tiers and self-checks; exit 1 if a check fails."""
    from reportgen.analyze.run import analyze_round
    from reportgen.console import checks_text, inputs_text, tiers_text
    from reportgen.load.round import load_round

    with _input_errors():
        loaded = load_round(_round_arg(round_dir))
        ra = analyze_round(loaded)
    for part in ra.parts:
        workload = part.round.get("workload")
        if len(ra.parts) > 1 and workload:
            click.echo(f"\nworkload {workload['id']}: {workload['label']['en']}")
        click.echo(tiers_text(part))
    if loaded.findings:
        click.echo("\ninput warnings:")
        for finding in loaded.findings:
            click.echo(f"  warn  {finding}")
    extra = inputs_text(ra.inferred, ra.skipped)
    if extra:
        click.echo("\n" + extra)
    failed = 0
    for part in ra.parts:
        click.echo("")
        click.echo(checks_text(part))
        failed += int((part.checks["status"] == "fail").sum()) if len(part.checks) else 0
    if failed:
        click.echo(f"\n{failed} check(s) failed", err=True)
        sys.exit(EXIT_CHECK_FAILED)


@main.command()
@click.argument("round_dir", metavar="FOLDER")
@click.option("--force", is_flag=True,
              help="Replace an existing round.toml (kept as round.toml.bak).")
def init(round_dir: str, force: bool) -> None:
    """Write FOLDER/round.toml from what its files say, with TODOs for the rest."""
    from reportgen.init_toml import write_round_toml

    with _input_errors():
        result, path, backup = write_round_toml(_round_arg(round_dir), force)
    click.echo(f"wrote {path}" + (f" (the previous one is {backup})" if backup else ""))
    if result.open_keys:
        click.echo("left open (fill these in to enable more of the report):")
        for key in result.open_keys:
            click.echo(f"  {key}")
    else:
        click.echo("nothing left open")


@main.command()
@click.argument("round_dir", metavar="ROUND")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown"]), default="json",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write to a file (atomically) instead of stdout (same policy as build -o).")
def tables(round_dir: str, fmt: str, output: str | None) -> None:
    """Print every derived table of ROUND (schema reportgen.tables/1)."""
    from reportgen import tables as tbl
    from reportgen.analyze.run import analyze_round
    from reportgen.load.round import load_round

    with _input_errors():
        root = _round_arg(round_dir)
        if output is not None:
            from reportgen.write import output_target

            output_target(output, root)  # refused before anything is loaded
        analysis = analyze_round(load_round(root))
    text = {"json": tbl.to_json, "csv": tbl.to_csv, "markdown": tbl.to_markdown}[fmt](analysis)
    if output is None or output == "-":
        click.echo(text, nl=not text.endswith("\n"))
    else:
        from reportgen.write import write_output

        with _input_errors():
            write_output(output, text.encode("utf-8"), root)


@main.command()
@click.argument("round_dir", metavar="ROUND")
@click.argument("pattern", required=False)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="en", show_default=True,
              help="Language of bilingual text values.")
def values(round_dir: str, pattern: str | None, lang: str) -> None:
    """List the {{ placeholder }} names narrative files can use, with their values.

    PATTERN keeps names that contain it, or match it as a glob (e.g. 'tiers.*.c64.*').
    """
    from reportgen.analyze.run import analyze
    from reportgen.console import values_text
    from reportgen.load.round import load_round

    with _input_errors():
        analysis = analyze(load_round(_round_arg(round_dir)))
    click.echo(values_text(analysis.values, pattern, lang))


@main.command()
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True)
def diff(old: str, new: str, fmt: str) -> None:
    """List every headline figure and table cell that changed from OLD to NEW.

    OLD and NEW are report.html files or round directories, in any mix.
    """
    from reportgen.diff import diff_sources, format_changes

    with _input_errors():
        changes = diff_sources(Path(old), Path(new))
    click.echo(format_changes(changes, fmt))


if __name__ == "__main__":  # pragma: no cover
    main()
