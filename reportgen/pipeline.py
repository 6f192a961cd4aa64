"""Where the stages meet: a round directory → LoadedRound → RoundAnalysis for the commands that
print the analysis (check, tables); ``reportgen.build.build_report`` continues it to the page.
The CLI parses options and calls these; it does not assemble the stages itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reportgen.analyze.result import RoundAnalysis
from reportgen.load.records import LoadedRound


@dataclass(frozen=True)
class Analyzed:
    """A round as loaded, and its analysis (one part per workload)."""

    loaded: LoadedRound
    analysis: RoundAnalysis


def analyze_dir(round_dir: Path) -> Analyzed:
    """Load and analyse a round directory. Bad input raises InputError."""
    from reportgen.analyze.run import analyze_round
    from reportgen.load.round import load_round

    loaded = load_round(Path(round_dir))
    return Analyzed(loaded, analyze_round(loaded))


def render_dir(round_dir: Path, lang: str | None = None) -> str:
    """The page of a round directory as HTML text, with the baseline its round.toml names (or
    the note that it is missing): what `build` writes, without writing it."""
    from reportgen.build import assemble_report

    return assemble_report(Path(round_dir), lang).html()
