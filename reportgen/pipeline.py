"""Where the stages meet: a round directory → LoadedRound → RoundAnalysis for the commands that
print the analysis (check, tables); ``reportgen.build.build_report`` continues it to the page.
The CLI parses options and calls these; it does not assemble the stages itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reportgen.analyze.result import RoundAnalysis
from reportgen.load.records import LoadedRound
from reportgen.slo import Slo


@dataclass(frozen=True)
class Analyzed:
    """A round as loaded, and its analysis (one part per workload)."""

    loaded: LoadedRound
    analysis: RoundAnalysis


def analyze_dir(round_dir: Path, slo: Slo | None = None,
                slo_target: float | None = None) -> Analyzed:
    """Load and analyse a round directory. Bad input raises InputError. ``slo`` (the command
    line's) replaces round.toml's ``[slo]``; ``slo_target`` replaces the target share of
    whichever objective applies."""
    from reportgen.analyze.run import analyze_round
    from reportgen.load.round import load_round

    loaded = with_slo(load_round(Path(round_dir)), slo, slo_target)
    return Analyzed(loaded, analyze_round(loaded))


def with_slo(loaded: LoadedRound, slo: Slo | None, target: float | None) -> LoadedRound:
    """The round with the command line's objective in place of round.toml's."""
    import dataclasses

    chosen = slo if slo is not None else loaded.manifest.slo
    if chosen is None and target is None:
        return loaded
    if chosen is not None and target is not None:
        chosen = dataclasses.replace(chosen, target=target)
    elif chosen is None:  # a target alone: kept for the thresholds the results may carry
        return dataclasses.replace(loaded, manifest=dataclasses.replace(
            loaded.manifest, slo_target=target))
    return dataclasses.replace(loaded, manifest=dataclasses.replace(loaded.manifest,
                                                                   slo=chosen))


def render_dir(round_dir: Path, lang: str | None = None) -> str:
    """The page of a round directory as HTML text, with the baseline its round.toml names (or
    the note that it is missing): what `build` writes, without writing it."""
    from reportgen.build import assemble_report

    return assemble_report(Path(round_dir), lang).html()
