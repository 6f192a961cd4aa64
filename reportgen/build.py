"""One report build with its files: read the previous report (``--previous``) and the baseline
(``--baseline`` or round.toml's ``[baseline] round``), hand them to reportgen.pipeline with the
round, and write the page atomically. The page itself is assembled by reportgen.pipeline (import
its names, ``render_analysis``, ``assemble_page``, ``Assembled`` …, from there).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.errors import InputError
from reportgen.pipeline import (
    Assembled,
    Progress,
    against_baseline,
    analyze_dir,
    assemble_page,
    figure_values,
    no_progress,
)
from reportgen.sources.diff import load_tables

if TYPE_CHECKING:
    from reportgen.analyze.compare import Missing, Source
    from reportgen.analyze.result import RoundAnalysis
    from reportgen.load.manifest import Manifest
    from reportgen.page.model import Revisions
    from reportgen.slo import Slo

__all__ = ["assemble_report", "build_report", "narrative_values", "render_dir", "resolve_baseline",
           "write_page"]


def narrative_values(round_dir: Path, baseline: Path | None = None) -> dict[str, object]:
    """Every name the narrative of ``round_dir`` (first workload) can use, baseline included."""
    done = analyze_dir(Path(round_dir))
    _, values, base = against_baseline(done.analysis.first,
                                       resolve_baseline(done.loaded.manifest, baseline))
    return values | figure_values(done.analysis, base)


def build_report(round_dir: Path, out: Path | str, lang: str | None = None,
                 progress: Progress | None = None, previous: Path | None = None,
                 baseline: Path | None = None,
                 slo: tuple[Slo | None, float | None] = (None, None),
                 price: float | None = None) -> Path | None:
    """Build the report for ``round_dir`` into ``out`` (written atomically; ``-`` is stdout)
    and return the file written (None for stdout).

    ``lang`` overrides round.toml's default_language (the language the page opens in when the
    reader has no stored or browser preference). ``baseline`` (a round folder, report.html or
    baseline.toml folder) overrides round.toml's ``[baseline] round``. Bad input raises
    InputError; the output file is then left exactly as it was. ``out`` follows the output-path
    policy of ``reportgen.files.write``, checked before anything is loaded and again when writing.
    """
    from reportgen.files.write import output_target

    say = progress or no_progress
    # refused before anything is loaded: no input of the round, nor --previous / --baseline
    avoid = [previous, baseline if baseline is not None and Path(baseline).is_file() else None]
    output_target(out, round_dir, avoid=avoid)
    html = assemble_report(round_dir, lang, say, previous, baseline, slo, price).html()
    return write_page(out, html, say, Path(round_dir), avoid)


def assemble_report(round_dir: Path, lang: str | None = None, progress: Progress | None = None,
                    previous: Path | None = None, baseline: Path | None = None,
                    slo: tuple[Slo | None, float | None] = (None, None),
                    price: float | None = None) -> Assembled:
    """``build_report`` up to the bytes: load, analyze, compare, assemble (nothing written).
    ``slo``: the command line's (objective, target share), replacing round.toml's; ``price``
    ($/GPU-hour) replaces round.toml's [cost] gpu_hour_usd."""
    say = progress or no_progress
    round_dir = Path(round_dir)
    old_tables = None
    if previous is not None:  # a bad previous report fails before the round is analysed
        say(f"read {previous}")
        old_tables = load_tables(Path(previous))  # through safe_read: no FIFO, no /dev/zero
    done = analyze_dir(round_dir, say, slo=slo[0], slo_target=slo[1], price=price)
    loaded, analysis = done.loaded, done.analysis
    revisions = None
    if previous is not None and old_tables is not None:
        say(f"compare with {previous}")
        revisions = _revisions(analysis, Path(previous), old_tables)
    base = resolve_baseline(loaded.manifest, baseline, say)
    return assemble_page(analysis, round_dir, lang, say, revisions, baseline=base)


def write_page(out: Path | str, html: str, say: Progress = no_progress,
               round_dir: Path | None = None,
               avoid: Iterable[Path | str | None] = ()) -> Path | None:
    """Write one page under the output-path policy (``-`` is stdout: None is returned)."""
    from reportgen.files.safe_read import printable
    from reportgen.files.write import write_output

    say(f"write {out}")
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:  # an undecodable file-name byte that reached the page: \xNN
        data = printable(html).encode("utf-8", "backslashreplace")
    return write_output(out, data, round_dir, avoid=avoid)


def resolve_baseline(manifest: Manifest, given: Path | None,
                     say: Progress = no_progress) -> Source | Missing | None:
    """The baseline to compare with: ``given`` (the command line) wins over round.toml's
    ``[baseline] round`` (relative to round.toml's folder). A round.toml baseline that is not
    there leaves a note on the page (a copied round keeps building); a given one must exist."""
    from reportgen.analyze.compare import Missing
    from reportgen.sources.baseline import open_baseline

    if given is not None:
        say(f"baseline {given}")
        return open_baseline(Path(given))
    if not manifest.baseline:
        return None
    path = manifest.path.parent / manifest.baseline
    if not within_parent_tree(path, manifest.path.parent):
        raise InputError(manifest.path, f"[baseline] round = {manifest.baseline!r} lies outside "
                                        "the folder that holds this round; round.toml alone "
                                        "cannot point there (give it with --baseline)",
                         manifest.line_of("baseline.round"))
    if not path.exists():
        say(f"baseline {manifest.baseline} not found")
        return Missing(manifest.baseline)
    say(f"baseline {path}")
    return open_baseline(path)


def within_parent_tree(path: Path, round_dir: Path) -> bool:
    """Whether ``path`` (links resolved) lies in the folder that holds ``round_dir`` (the
    round's siblings: ``../round1``), so round.toml cannot make a build walk the whole disk."""
    parent = Path(os.path.realpath(round_dir)).parent
    target = Path(os.path.realpath(path))
    return target == parent or parent in target.parents


def _revisions(analysis: RoundAnalysis, previous: Path, old: dict[str, Any]) -> Revisions:
    """What changed since a previously published report (or round), shown as a section."""
    from reportgen.analyze.changes import diff_tables, group_changes
    from reportgen.page.model import Revisions
    from reportgen.tables import to_json_dict

    new = to_json_dict(analysis)
    return Revisions(previous.name, group_changes(diff_tables(old, new), new, old))


def render_dir(round_dir: Path, lang: str | None = None) -> str:
    """The page of a round directory as HTML text, with the baseline its round.toml names (or
    the note that it is missing): what `build` writes, without writing it."""
    return assemble_report(Path(round_dir), lang).html()
