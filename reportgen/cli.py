"""Command line: thin click commands over the pipeline. The only module that imports click.

In the sqlite-utils style: every command parses its options and calls one library function;
the round argument and --lang are declared once (`round_argument`, `lang_option`); errors are
`click.ClickException`s with one-line messages; every command's help ends with an example.
Heavy imports (pandas, plotly) happen inside the commands so `reportgen --help` stays instant.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from reportgen import __version__
from reportgen.errors import InputError
from reportgen.text.terminal import terminal_safe

EXIT_INPUT = 2
EXIT_CHECK_FAILED = 1
EXIT_NO_MATCH = 1
MAX_MESSAGE = 2000  # a message quoting a megabyte-long input line must not flood the terminal


F = TypeVar("F", bound=Callable[..., Any])


class BadInput(click.ClickException):
    """Bad input: `Error: <file>[:line]: ...` on stderr and exit 2, never a traceback."""

    exit_code = EXIT_INPUT

    def __init__(self, error: InputError) -> None:
        text = terminal_safe(str(error))  # one line, whatever a file name carries
        if len(text) > MAX_MESSAGE:
            text = f"{text[:MAX_MESSAGE]}… ({len(text) - MAX_MESSAGE:,} more characters)"
        super().__init__(text)


@contextmanager
def _input_errors() -> Iterator[None]:
    try:
        yield
    except InputError as exc:
        raise BadInput(exc) from None


def _sample() -> Path:
    from reportgen.files.resources import sample_round_dir

    return sample_round_dir()


def _round_path(value: str) -> Path:
    path = Path(value)
    if path.is_file() and path.name == "round.toml":
        return path.parent
    if not path.is_dir():
        raise BadInput(InputError(path, "not a round directory (expected a folder of "
                                        "benchmark results)"))
    return path


def round_argument(required: bool = False, *, or_pattern: bool = False,
                   may_create: bool = False) -> Callable[[F], F]:
    """The ROUND argument, passed to the command as `round_dir: Path`: a round folder (or its
    round.toml); when optional and absent, the bundled sample. `or_pattern` (for `values`):
    a value that names nothing on disk is passed on as text, the command's PATTERN.
    `may_create`: the folder need not exist yet (the command checks it)."""

    def convert(_: click.Context, __: click.Parameter, value: str | None) -> Path | str:
        if value is None:
            return _sample()
        if or_pattern and not Path(value).exists():
            return value
        if may_create:  # checked by the command: `init --example-csv` creates the folder
            return Path(value)
        return _round_path(value)

    return click.argument("round_dir", required=required, callback=convert,
                          metavar="ROUND" if required else "[ROUND]")


def lang_option(default: str | None = None,
                help: str = "Language the page opens in for a reader with no ?lang= or stored "
                            "choice (default: round.toml default_language, else the browser's "
                            "language).") -> Callable[[F], F]:
    """--lang zh|en, declared once for every command."""
    return click.option("--lang", type=click.Choice(["zh", "en"]), default=default,
                        show_default=default is not None, help=help)


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
    # Missing values are NaN by design, so an empty or all-NaN slice is a normal case the
    # analysis handles; numpy's RuntimeWarnings about it must never reach the terminal.
    warnings.filterwarnings("ignore", category=RuntimeWarning)


@main.command()
@round_argument()
@click.option("-o", "--output", default="report.html", show_default=True,
              type=click.Path(dir_okay=False, allow_dash=True),
              help="Where to write the HTML file ('-': stdout). A symlink is written through; "
                   "a FIFO, device or an input of the round is refused.")
@lang_option()
@click.option("--previous", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The last published report.html: adds a 'revisions' section listing changes.")
@click.option("--baseline", type=click.Path(exists=True), default=None,
              metavar="DIR|report.html",
              help="The previous round (a round folder, a report.html it produced, or a folder "
                   "with baseline.toml): adds 'Since the previous round'. Overrides round.toml "
                   "[baseline] round.")
@click.option("--pdf", "pdf", type=click.Path(dir_okay=False), default=None,
              help="Also print the page to this PDF with headless Chromium (exit 2 if none).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="Paper size of the --pdf print.")
@click.option("--pdf-without-namespace", "pdf_unisolated", is_flag=True,
              help="Print even where the browser cannot be given a network namespace of its "
                   "own (refused by default: Chromium probes the network on start); its offline "
                   "flags alone then keep it from fetching.")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages.")
@click.option("--slo", "slo_text", default=None, metavar="ttft_ms=500,tpot_ms=50[,e2el_ms=…]",
              help="The page's default SLO thresholds (ms, inclusive); the reader can change "
                   "them in the page. Default: round.toml [slo], else a --goodput argument "
                   "saved in the results. E.g. --slo ttft_ms=500,tpot_ms=50")
@click.option("--slo-target", type=float, default=None, metavar="SHARE",
              help="Default share of requests that must meet the SLO (default 0.99). "
                   "E.g. --slo-target 0.95")
@click.option("--price", type=float, default=None, metavar="USD",
              help="The price of one GPU for an hour (US dollars): the page's "
                   "default for $ per 1M tokens (all and good requests); the reader can change "
                   "it in the page. "
                   "Default: round.toml [cost] gpu_hour_usd. E.g. --price 2.5")
def build(round_dir: Path, output: str, lang: str | None, previous: str | None,
          baseline: str | None, pdf: str | None, paper: str, pdf_unisolated: bool, quiet: bool,
          slo_text: str | None, slo_target: float | None, price: float | None) -> None:
    """Build the report for ROUND (default: the bundled Round 2 sample).

    \b
    Example: reportgen build runs/round3 -o round3.html --baseline runs/round2
             reportgen build runs/round3 --slo ttft_ms=500,tpot_ms=50 --price 2.5
    """
    from reportgen.build import build_report

    slo = _slo_option(slo_text, slo_target)
    _price_option(price)
    with _input_errors():
        browser = None
        if pdf is not None:   # before building: no browser, no work done
            from reportgen.pdf import find_browser

            browser = find_browser()
        report = _progress(quiet)
        kwargs: dict[str, Any] = {"progress": report}
        if slo is not None or slo_target is not None:
            kwargs["slo"] = (slo, slo_target)
        if price is not None:
            kwargs["price"] = price
        if previous is not None:
            kwargs["previous"] = Path(previous)
        if baseline is not None:
            kwargs["baseline"] = Path(baseline)
        if pdf is not None and output == "-":
            raise InputError("--pdf", "prints the page from a file: give -o FILE, not -o -")
        if pdf is not None:  # both outputs checked before anything is built
            from reportgen.files.write import output_target

            output_target(pdf, round_dir, kind="pdf", avoid=[output, previous, baseline])
            from reportgen.pdf import require_isolation

            require_isolation(pdf_unisolated)   # refused before anything is built
        out = build_report(round_dir, output, lang, **kwargs)
        if pdf is not None and out is not None:
            from reportgen.pdf import print_pdf

            report(f"print {pdf}")
            printed = print_pdf(out, Path(pdf), lang, browser, round_dir, [previous, baseline],
                                paper=paper, unisolated=pdf_unisolated)
    if out is not None:
        click.echo(f"wrote {terminal_safe(str(out))} ({out.stat().st_size / 1e6:.2f} MB)")
    if pdf is not None:
        click.echo(f"wrote {terminal_safe(str(printed))} ({printed.stat().st_size / 1e6:.2f} MB)")


@main.command()
@click.argument("rounds", nargs=-1, required=True, metavar="DIR...")
@click.option("-o", "--output", "out_dir", default="site", show_default=True,
              type=click.Path(file_okay=False), help="Folder for index.html and the reports.")
@lang_option(help="Language the pages open in for a reader with no ?lang= or stored choice "
                  "(default: the first round's default_language, else the browser's).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Rounds built in parallel processes (default: the number of cores).")
@click.option("--self-contained", is_flag=True,
              help="Each report carries plotly.js and its scripts itself (one file to copy "
                   "out), instead of sharing the site's _static/ copy.")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages.")
def index(rounds: tuple[str, ...], out_dir: str, lang: str | None, jobs: int | None,
          self_contained: bool, quiet: bool) -> None:
    """Build every round's report plus one index.html linking them (relative links).

    Incremental: a round whose files are unchanged since the last run is not built again
    (cache in OUT/.reportgen-index/). Rounds keep the order given (by date when every round
    has one); the index lists the newest first. A folder with only baseline.toml (figures as
    published, no raw files) gets a card and a place in the trend figure, but no report.
    The reports share one copy of plotly.js and of the page's scripts, OUT/_static/*.js
    (content-hashed names, relative links); --self-contained makes each report one file.

    \b
    Example: reportgen index runs/round1 runs/round2 runs/round3 -o site/
    """
    from reportgen.index.update import build_index

    with _input_errors():
        written = build_index([Path(r) for r in rounds], Path(out_dir), lang, _progress(quiet),
                              jobs, self_contained=self_contained)
    if written.up_to_date:
        click.echo(f"nothing to rebuild: {written[0]} and its {len(rounds)} round(s) are "
                   "up to date")
        return
    reports = ", ".join(p.name for p in written[1:]) or "none"
    click.echo(f"wrote {written[0]} ({len(rounds)} round(s); reports: {reports})")
    from reportgen.dataset import SKIPPED, available

    if not available():
        click.echo(SKIPPED)


@main.command()
@round_argument()
def check(round_dir: Path) -> None:
    """Load ROUND (default: the bundled sample), print its tiers and self-checks, and end with
    one line `N pass · N warn · N fail`; exit 1 if a check fails.

    \b
    Example: reportgen check runs/round3
    """
    from reportgen.console import check_report
    from reportgen.pipeline import analyze_dir

    with _input_errors():
        done = analyze_dir(round_dir)
    text, counts = check_report(done.loaded.findings, done.analysis)
    click.echo(text)
    if counts["fail"]:
        sys.exit(EXIT_CHECK_FAILED)


@main.command()
@round_argument(required=True, may_create=True)  # --example-csv may create the folder
@click.option("--force", is_flag=True,
              help="Replace an existing round.toml (kept as round.toml.bak).")
@click.option("--example-csv", is_flag=True,
              help="Write FOLDER/runs.csv, a commented example of the tidy import for results "
                   "of your own harness, instead of round.toml.")
def init(round_dir: Path, force: bool, example_csv: bool) -> None:
    """Write ROUND/round.toml from what its files say, with TODOs for the rest.

    \b
    Example: reportgen init runs/round3
    """
    from reportgen.init_toml import write_round_toml

    if example_csv:
        from reportgen.init_toml import write_example_csv

        with _input_errors():
            path = write_example_csv(round_dir)
        click.echo(f"wrote {terminal_safe(str(path))} (example values: replace its rows with "
                   "your runs)")
        return
    with _input_errors():
        result, path, backup = write_round_toml(_round_path(str(round_dir)), force)
    click.echo(f"wrote {terminal_safe(str(path))}"
               + (f" (the previous one is {terminal_safe(str(backup))})" if backup else ""))
    if result.open_keys:
        click.echo("left open (fill these in to enable more of the report):")
        for key in result.open_keys:
            click.echo(f"  {terminal_safe(key)}")
    else:
        click.echo("nothing left open")


@main.command()
@round_argument()
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "markdown", "parquet"]),
              default="json", show_default=True,
              help="parquet: -o DIR gets DIR/<table>/<round>.parquet (runs, tiers, goodput, "
                   "values, round; docs/DATASET.md), needs reportgen[dataset].")
@click.option("-o", "--output", type=click.Path(allow_dash=True), default=None,
              help="Write to a file (atomically) instead of stdout (same policy as build -o). "
                   "With --format csv, a folder (existing, or named with a trailing /) gets "
                   "one file per table, <name>.csv; a folder for --format parquet.")
@click.option("--slo", "slo_text", default=None, metavar="ttft_ms=500,tpot_ms=50[,e2el_ms=…]",
              help="Latency objective per request (ms, inclusive): adds the goodput, "
                   "capacity_at_slo (with 95 % intervals and a verdict) and no_per_request "
                   "tables. Default: round.toml [slo], else a --goodput argument saved in the "
                   "results. E.g. --slo ttft_ms=500,tpot_ms=50,e2el_ms=20000")
@click.option("--slo-target", type=float, default=None, metavar="SHARE",
              help="Share of requests that must meet the objective for a tier to count "
                   "within it (default 0.99). E.g. --slo-target 0.95")
@click.option("--load", "load_text", default=None, metavar="N{req/s|tok/s}",
              help="A load to carry within the SLO (requests or output tokens per second): "
                   "adds the `load` table, replicas and GPUs per configuration from its "
                   "capacity at SLO. Needs an SLO. E.g. --load 20req/s")
@click.option("--price", type=float, default=None, metavar="USD",
              help="The price of one GPU for an hour (US dollars): with an SLO "
                   "adds the `cost` table, $ per 1M output and total tokens per tier over all "
                   "completed requests and over good ones (the cost of goodput); with --load "
                   "the load table's $ an hour and its cheapest configuration. "
                   "Default: round.toml [cost] gpu_hour_usd. E.g. --price 2.5")
def tables(round_dir: Path, fmt: str, output: str | None, slo_text: str | None,
           slo_target: float | None, load_text: str | None, price: float | None) -> None:
    """Print every derived table of ROUND (default: the bundled sample; JSON schema
    reportgen.tables/2). With per-request arrays: `distributions` (p50 … p99.9 per tier);
    with an SLO: `goodput` and `capacity_at_slo`; with an SLO and --price: `cost`.

    On a request-rate sweep the tier is under `request_rate` (req/s; an unbounded rate is
    "inf") and `concurrency` is empty: each column holds its own quantity.

    \b
    Example: reportgen tables runs/round3 --slo ttft_ms=500,tpot_ms=50 --format markdown
             reportgen tables runs/round3 --format csv -o tables/
             reportgen tables runs/round3 --slo ttft_ms=500,tpot_ms=50 --price 2.5
             reportgen tables runs/round3 --slo tpot_ms=50 --load 20req/s --price 2.5
    """
    from reportgen import tables as tbl
    from reportgen.files.write import output_target, write_output
    from reportgen.pipeline import analyze_dir

    slo = _slo_option(slo_text, slo_target)
    if fmt == "parquet":
        _tables_parquet(round_dir, output, slo, slo_target)
        return
    folder = None
    if fmt == "csv" and output is not None and output != "-" and (
            output.endswith(("/", os.sep)) or Path(output).is_dir()):
        folder = Path(output)
    with _input_errors():
        root = round_dir
        if folder is not None:
            if folder.exists() and not folder.is_dir():
                raise InputError(terminal_safe(str(folder)), "not a folder")
        elif output is not None:
            output_target(output, root, kind="tables")  # refused before anything is loaded
        load = _load_option(load_text)
        _price_option(price)
        analysis = analyze_dir(root, slo=slo, slo_target=slo_target, load=load,
                               price=price).analysis
        if load is not None and all(p.slo is None for p in analysis.parts):
            raise BadInput(InputError("--load", "needs an SLO: --slo, round.toml [slo] or a "
                                      "--goodput argument in the results"))
    notes = [why.en for part in analysis.parts if part.slo is not None
             for why in part.no_per_request["why"]]
    for note in dict.fromkeys(notes):   # goodput tables left out: say for which and why
        click.echo(f"note: no goodput table: {note}", err=True)
    if folder is not None:
        with _input_errors():
            texts = tbl.csv_tables(analysis)
            for name in texts:   # every target checked before the first write
                output_target(folder / f"{name}.csv", root, kind="tables")
            folder.mkdir(parents=True, exist_ok=True)
            for name, body in texts.items():
                write_output(folder / f"{name}.csv", body.encode("utf-8"), root, kind="tables")
        click.echo(f"wrote {len(texts)} tables to {terminal_safe(str(folder))}")
        return
    text = {"json": tbl.to_json, "csv": tbl.to_csv, "markdown": tbl.to_markdown}[fmt](analysis)
    if output is None or output == "-":
        click.echo(text, nl=not text.endswith("\n"))
    else:
        with _input_errors():
            write_output(output, text.encode("utf-8"), root, kind="tables")


def _price_option(price: float | None) -> None:
    """``--price``: a positive, finite $/GPU-hour; anything else exits 2."""
    if price is not None and not (math.isfinite(price) and 0 < price <= 1e6):
        raise BadInput(InputError("--price", "expected $ per GPU-hour, a number > 0 (e.g. 2.5)"))


def _load_option(text: str | None) -> tuple[float, str] | None:
    """``--load`` → (value, unit) (None without it); a bad value exits 2."""
    from reportgen.slo import SloError, parse_load

    if text is None:
        return None
    try:
        return parse_load(text)
    except SloError as exc:
        raise BadInput(InputError("--load", str(exc))) from None


def _tables_parquet(round_dir: Path, output: str | None, slo: Any,
                    slo_target: float | None) -> None:
    """``tables --format parquet -o DIR``: the round's dataset files (reportgen/dataset.py)."""
    import os

    from reportgen import dataset
    from reportgen import tables as tbl
    from reportgen.pipeline import analyze_dir

    with _input_errors():
        if output is None or output == "-":
            raise InputError("--format parquet", "needs -o DIR (the dataset's folder)")
        if not dataset.available():
            raise InputError("--format parquet", "needs pyarrow: pip install "
                                                 "'reportgen[dataset]'")
        out = Path(output)
        root = round_dir.parent if round_dir.is_file() else round_dir
        real, inside = os.path.realpath(out), os.path.realpath(root)
        if real == inside or real.startswith(inside + os.sep):
            raise InputError(str(out), "is inside the round folder; refused (the files would "
                                       "become inputs of the round: choose another -o)")
        if out.exists() and not out.is_dir():
            raise InputError(str(out), "is not a folder; --format parquet writes a folder")
        analysis = analyze_dir(round_dir, slo=slo, slo_target=slo_target).analysis
        name = Path(inside).name
        written = dataset.write_round(out, name, tbl.to_json_dict(analysis))
    click.echo(f"wrote {len(written)} file(s) under {terminal_safe(str(out))} (round {name})")


def _slo_option(text: str | None, target: float | None) -> Any:
    """``--slo`` / ``--slo-target`` → Slo (None without --slo); a bad value exits 2."""
    from reportgen.slo import CLI_SOURCE, DEFAULT_TARGET, SloError, check_target, parse_slo

    try:
        if target is not None:
            check_target(target)
        if text is None:
            return None
        return parse_slo(text, DEFAULT_TARGET if target is None else target, CLI_SOURCE)
    except SloError as exc:
        raise BadInput(InputError("--slo", str(exc))) from None


@main.command()
@round_argument(or_pattern=True)
@click.argument("pattern", required=False)
@lang_option(default="en", help="Language of bilingual text values.")
def values(round_dir: Path | str, pattern: str | None, lang: str) -> None:
    """List the {{ placeholder }} names narrative files can use, with their values as the
    page's tables show them. ROUND defaults to the bundled sample.

    PATTERN keeps names that contain it, or match it as a glob (e.g. 'tiers.*.c64.*'); exit 1
    when it matches nothing. A ROUND argument that is not a folder is taken as the PATTERN.

    \b
    Example: reportgen values runs/round3 'tiers.*.c64.*'
    """
    from reportgen.build import narrative_values
    from reportgen.console import matching_names, values_text

    note = ""
    if isinstance(round_dir, str):   # names nothing on disk
        if pattern is not None:
            raise BadInput(InputError(Path(round_dir), "not a round directory (expected a "
                                                       "folder of benchmark results)"))
        pattern, round_dir = round_dir, _sample()  # `reportgen values 'crossover.*'`
        note = " in the bundled sample (and no folder has that name)"
    with _input_errors():
        named = narrative_values(round_dir)   # baseline.* and since.* included
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

    \b
    Example: reportgen diff published/round3.html runs/round3 --format markdown
    """
    from reportgen.analyze.changes import as_json
    from reportgen.console import diff_markdown, diff_text
    from reportgen.sources.diff import diff_sources

    with _input_errors():
        changes = diff_sources(Path(old), Path(new))
    if fmt == "json":
        import json

        click.echo(json.dumps(as_json(changes), ensure_ascii=False, indent=1))
    else:
        click.echo((diff_markdown if fmt == "markdown" else diff_text)(changes))


@main.command()
@round_argument()
@click.option("-p", "--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port on 127.0.0.1; the next free one when it is taken (0: any).")
@lang_option()
def serve(round_dir: Path, port: int, lang: str | None) -> None:
    """Preview ROUND at http://127.0.0.1:PORT/ while writing: every change to its files
    rebuilds the page and reloads it in the browser; a broken edit shows its error there.

    \b
    Example: reportgen serve runs/round3 -p 8001
    """
    from reportgen.serve import Server

    with _input_errors():
        root = round_dir
        server = Server(root, port, lang,
                        say=lambda m: click.echo(terminal_safe(m), err=True)).start()
    click.echo(f"serving {terminal_safe(str(root))} at {server.url} (Ctrl+C to stop)", err=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
