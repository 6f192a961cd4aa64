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
EXIT_NO_MATCH = 1
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
              help="Language the page opens in for a reader with no ?lang= or stored choice "
                   "(default: round.toml default_language, else the browser's language).")
@click.option("--previous", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The last published report.html: adds a 'revisions' section listing changes.")
@click.option("--baseline", type=click.Path(exists=True), default=None,
              metavar="DIR|report.html",
              help="The previous round (a round folder, a report.html it produced, or a folder "
                   "with baseline.toml): adds 'Since the previous round'. Overrides round.toml "
                   "[baseline] round.")
@click.option("--pdf", "pdf", type=click.Path(dir_okay=False), default=None,
              help="Also print the page to this PDF with headless Chromium (exit 2 if none).")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages.")
def build(round_dir: str | None, output: str, lang: str | None, previous: str | None,
          baseline: str | None, pdf: str | None, quiet: bool) -> None:
    """Build the report for ROUND (default: the bundled Round 2 sample)."""
    from reportgen.build import build_report

    with _input_errors():
        browser = None
        if pdf is not None:   # before building: no browser, no work done
            from reportgen.pdf import find_browser

            browser = find_browser()
        report = _progress(quiet)
        kwargs: dict[str, Any] = {"progress": report}
        if previous is not None:
            kwargs["previous"] = Path(previous)
        if baseline is not None:
            kwargs["baseline"] = Path(baseline)
        if pdf is not None and output == "-":
            raise InputError("--pdf", "prints the page from a file: give -o FILE, not -o -")
        out = build_report(_round_arg(round_dir), output, lang, **kwargs)
        if pdf is not None and out is not None:
            from reportgen.pdf import print_pdf

            report(f"print {pdf}")
            printed = print_pdf(out, Path(pdf), lang, browser)
    if out is not None:
        click.echo(f"wrote {printable(str(out))} ({out.stat().st_size / 1e6:.2f} MB)")
    if pdf is not None:
        click.echo(f"wrote {printable(str(printed))} ({printed.stat().st_size / 1e6:.2f} MB)")


@main.command()
@click.argument("rounds", nargs=-1, required=True, metavar="DIR...")
@click.option("-o", "--output", "out_dir", default="site", show_default=True,
              type=click.Path(file_okay=False), help="Folder for index.html and the reports.")
@click.option("--lang", type=click.Choice(["zh", "en"]), default=None,
              help="Language the pages open in (default: the first round's default_language).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Rounds built in parallel processes (default: the number of cores).")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages.")
def index(rounds: tuple[str, ...], out_dir: str, lang: str | None, jobs: int | None,
          quiet: bool) -> None:
    """Build every round's report plus one index.html linking them (relative links).

    Incremental: a round whose files are unchanged since the last run is not built again
    (cache in OUT/.reportgen-index/). Rounds keep the order given (by date when every round
    has one); the index lists the newest first. A folder with only baseline.toml (figures as
    published, no raw files) gets a card and a place in the trend figure, but no report.
    """
    from reportgen.index import build_index

    with _input_errors():
        written = build_index([Path(r) for r in rounds], Path(out_dir), lang, _progress(quiet),
                              jobs)
    reports = ", ".join(p.name for p in written[1:]) or "none"
    click.echo(f"wrote {written[0]} ({len(rounds)} round(s); reports: {reports})")


@main.command()
@click.argument("round_dir", required=False, metavar="[ROUND]")
def check(round_dir: str | None) -> None:
    """Load ROUND (default: the bundled sample), print its tiers and self-checks, and end with
    one line `N pass · N warn · N fail`; exit 1 if a check fails."""
    from reportgen.console import (
        checks_text,
        findings_text,
        inputs_text,
        status_counts,
        summary_line,
        tiers_text,
    )
    from reportgen.pipeline import analyze_dir

    with _input_errors():
        done = analyze_dir(_round_arg(round_dir))
    loaded, ra = done.loaded, done.analysis
    for part in ra.parts:
        workload = part.round.get("workload")
        if len(ra.parts) > 1 and workload:
            click.echo(f"\nworkload {workload['id']}: {workload['label']['en']}")
        click.echo(tiers_text(part))
    if loaded.findings:
        click.echo("\ninput warnings:")
        click.echo(findings_text(loaded.findings))
    extra = inputs_text(ra.inferred, ra.skipped)
    if extra:
        click.echo("\n" + extra)
    statuses = ["warn"] * len(loaded.findings)
    for part in ra.parts:
        click.echo("")
        click.echo(checks_text(part))
        statuses += [str(s) for s in part.checks["status"]] if len(part.checks) else []
    counts = status_counts(statuses)
    click.echo("\n" + summary_line(counts))
    if counts["fail"]:
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
@click.argument("round_dir", required=False, metavar="[ROUND]")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown"]), default="json",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write to a file (atomically) instead of stdout (same policy as build -o).")
def tables(round_dir: str | None, fmt: str, output: str | None) -> None:
    """Print every derived table of ROUND (default: the bundled sample; JSON schema
    reportgen.tables/2)."""
    from reportgen import tables as tbl
    from reportgen.pipeline import analyze_dir

    with _input_errors():
        root = _round_arg(round_dir)
        if output is not None:
            from reportgen.write import output_target

            output_target(output, root)  # refused before anything is loaded
        analysis = analyze_dir(root).analysis
    text = {"json": tbl.to_json, "csv": tbl.to_csv, "markdown": tbl.to_markdown}[fmt](analysis)
    if output is None or output == "-":
        click.echo(text, nl=not text.endswith("\n"))
    else:
        from reportgen.write import write_output

        with _input_errors():
            write_output(output, text.encode("utf-8"), root)


@main.command()
@click.argument("round_dir", required=False, metavar="[ROUND]")
@click.argument("pattern", required=False)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="en", show_default=True,
              help="Language of bilingual text values.")
def values(round_dir: str | None, pattern: str | None, lang: str) -> None:
    """List the {{ placeholder }} names narrative files can use, with their values as the
    page's tables show them. ROUND defaults to the bundled sample.

    PATTERN keeps names that contain it, or match it as a glob (e.g. 'tiers.*.c64.*'); exit 1
    when it matches nothing. A ROUND argument that is not a folder is taken as the PATTERN.
    """
    from reportgen.build import narrative_values
    from reportgen.console import matching_names, values_text

    note = ""
    if round_dir is not None and pattern is None and not Path(round_dir).exists():
        round_dir, pattern = None, round_dir  # `reportgen values 'crossover.*'`
        note = " in the bundled sample (and no folder has that name)"
    with _input_errors():
        named = narrative_values(_round_arg(round_dir))   # baseline.* and since.* included
    names = matching_names(named, pattern)
    if not names:
        click.echo(f"no value name matches '{pattern}'{note}", err=True)
        sys.exit(EXIT_NO_MATCH)
    click.echo(values_text(named, names, lang))


@main.command()
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True)
def diff(old: str, new: str, fmt: str) -> None:
    """List every figure that changed from OLD to NEW: old, new, delta and relative change,
    grouped by the input (configuration and tier) it belongs to, then a one-line summary.

    OLD and NEW are report.html files, `reportgen tables` JSON files or round directories, in
    any mix.
    """
    from reportgen.console import diff_markdown, diff_text
    from reportgen.diff import as_json, diff_sources

    with _input_errors():
        changes = diff_sources(Path(old), Path(new))
    if fmt == "json":
        import json

        click.echo(json.dumps(as_json(changes), ensure_ascii=False, indent=1))
    else:
        click.echo((diff_markdown if fmt == "markdown" else diff_text)(changes))


@main.command()
@click.argument("round_dir", required=False, metavar="[ROUND]")
@click.option("-p", "--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port on 127.0.0.1; the next free one when it is taken (0: any).")
@click.option("--lang", type=click.Choice(["zh", "en"]), default=None,
              help="Language the page opens in (default: round.toml default_language).")
def serve(round_dir: str | None, port: int, lang: str | None) -> None:
    """Preview ROUND at http://127.0.0.1:PORT/ while writing: every change to its files
    rebuilds the page and reloads it in the browser; a broken edit shows its error there."""
    from reportgen.serve import Server

    with _input_errors():
        root = _round_arg(round_dir)
        server = Server(root, port, lang, say=lambda m: click.echo(m, err=True)).start()
    click.echo(f"serving {root} at {server.url} (Ctrl+C to stop)", err=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
