"""Plain-text views for the terminal (`reportgen check`, `values`, `diff`).

Every view fits WIDTH columns: long texts wrap in their own column, rules are as wide as their
column. Numbers come from reportgen.text.formatting, so they read as on the page. Every cell and
wrapped text passes ``terminal_safe`` (control, bidi and newline characters from input shown
escaped), and a long list of skipped files is summarised past ``MAX_LISTED`` rows.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

import pandas as pd

from reportgen.analyze import tier_metrics
from reportgen.analyze.changes import Diff
from reportgen.text.bilingual import Bi
from reportgen.text.formatting import MISSING, change_texts, fmt, is_missing, plain, tier_label
from reportgen.text.listing import shorten
from reportgen.text.terminal import terminal_safe

WIDTH = 100
GAP = "  "

if TYPE_CHECKING:
    from reportgen.analyze.result import Analysis, RoundAnalysis

STATUSES = ("pass", "warn", "fail")


def _cell(value: Any, spec: str) -> str:
    if spec == "yes":
        return "yes" if value is True else ""
    if spec == "g":
        return plain(value)
    if spec == "s":
        return MISSING if is_missing(value) else str(value)
    return fmt(value, spec)


def table_text(rows: list[list[str]], header: list[str], right: set[int] | None = None,
               wrap: int | None = None, width: int = WIDTH) -> str:
    """Columns padded to their widest cell. Column ``wrap`` (a text column) takes the width
    the others leave and wraps there, so the table fits ``width`` characters; when the others
    leave less than MIN_WRAP, each row's ``wrap`` text goes on indented lines below it."""
    right = right or set()
    rows = [[terminal_safe(c) for c in r] for r in rows]
    header = [terminal_safe(c) for c in header]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    if wrap is not None:
        others = sum(w for i, w in enumerate(widths) if i != wrap) + len(GAP) * (len(widths) - 1)
        if width - others < min(widths[wrap], MIN_WRAP):
            return _records(rows, header, right, wrap, widths, width)
        widths[wrap] = min(widths[wrap], width - others)

    def lines(cells: list[str]) -> list[str]:
        parts = [textwrap.wrap(c, widths[i], break_on_hyphens=False) or [""]
                 if i == wrap else [c] for i, c in enumerate(cells)]
        out = []
        for k in range(max(len(p) for p in parts)):
            row = [p[k] if k < len(p) else "" for p in parts]
            out.append(_line(row, widths, right))
        return out

    body = [line for r in rows for line in lines(r)]
    return "\n".join([*lines(header), GAP.join("-" * w for w in widths), *body])


MIN_WRAP = 30
RECORD_INDENT = "    "


def _line(cells: list[str], widths: list[int], right: set[int]) -> str:
    padded = (c.rjust(w) if i in right else c.ljust(w)
              for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    return GAP.join(padded).rstrip()


def _records(rows: list[list[str]], header: list[str], right: set[int], wrap: int,
             widths: list[int], width: int) -> str:
    """The narrow form of a table: the other columns on one line, the ``wrap`` text below."""
    keep = [i for i in range(len(header)) if i != wrap]
    sub = [widths[i] for i in keep]
    moved = {k for k, i in enumerate(keep) if i in right}

    def block(cells: list[str]) -> list[str]:
        text = textwrap.wrap(cells[wrap], width - len(RECORD_INDENT), break_on_hyphens=False)
        head = [_line([cells[i] for i in keep], sub, moved)]
        if len(head[0]) > width:   # the other columns alone are too wide: they wrap too
            head = textwrap.wrap(GAP.join(cells[i] for i in keep if cells[i]), width,
                                 subsequent_indent=RECORD_INDENT, break_on_hyphens=False,
                                 break_long_words=True) or [""]
        return [*head, *(RECORD_INDENT + t for t in text)]

    rule = GAP.join("-" * w for w in sub)[:width]
    return "\n".join([*block(header), rule, *(line for r in rows for line in block(r))])


def wrapped(text: str, first: str, width: int = WIDTH) -> str:
    """``first`` then ``text``, wrapped under itself."""
    text = terminal_safe(text)
    return textwrap.fill(text, width, initial_indent=first, subsequent_indent=" " * len(first),
                         break_on_hyphens=False)


# ----------------------------------------------------------------------------- check

def tiers_text(analysis: Analysis, width: int = WIDTH) -> str:
    """The tiers as the page's data table shows them. A column no file reported is left out
    and named below; the engine column wraps if the rest still does not fit."""
    tiers: pd.DataFrame = analysis.tiers
    # the row keys, the tier metrics that name a terminal heading, the excluded flag
    cols = [("engine", "engine", "s"), ("concurrency", "C", "g"),
            *((m.column, m.terminal, m.spec) for m in tier_metrics.in_terminal()),
            ("excluded", "excl", "yes")]
    cols = [c for c in cols if c[0] in tiers.columns]
    if analysis.round.axis == "request_rate":
        cols = [("concurrency", "req/s", "g") if c[0] == "concurrency" else c for c in cols]
    if "repeats" in tiers.columns:
        cols.insert(2, ("repeats", "runs", "d"))
    records = tiers.to_dict("records")
    empty = [c for c in cols if c[2] not in ("s", "yes") and records
             and all(is_missing(rec[c[0]]) for rec in records)]
    cols = [c for c in cols if c not in empty]
    rows = [[_cell(rec[key], spec) for key, _, spec in cols] for rec in records]
    right = {i for i, (key, _, _) in enumerate(cols) if key not in ("engine", "excluded")}
    text = table_text(rows, [title for _, title, _ in cols], right, wrap=0, width=width)
    if empty:
        text += "\n" + wrapped(", ".join(title for _, title, _ in empty),
                               "not in these files: ", width)
    return text


def checks_text(analysis: Analysis, lang: str = "en") -> str:
    checks: pd.DataFrame = analysis.checks
    if not len(checks):
        return "no self-checks"
    rows = []
    for rec in checks.to_dict("records"):
        message = rec.get("message")
        text = message.get(lang) if isinstance(message, Bi) else ""
        engine = rec.get("engine")  # NaN (a float) for round-wide rows
        c = rec.get("concurrency")
        where = " ".join(part for part in (
            engine if isinstance(engine, str) else "",
            "" if c is None or is_missing(c) else tier_label(float(c), analysis.round.axis))
            if part)
        rows.append([rec["status"], rec["id"], where, text])
    return table_text(rows, ["status", "check", "where", "message"], wrap=3)


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return counts


def summary_line(counts: Mapping[str, int]) -> str:
    """``12 pass · 10 warn · 0 fail``: the last line of ``check``."""
    return " · ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)


def check_report(findings: Sequence[object],
                 analysis: RoundAnalysis) -> tuple[str, dict[str, int]]:
    """What `reportgen check` prints, and its pass/warn/fail counts (input warnings count as
    warn): the tiers per workload, input warnings, inferred settings and files not read, the
    self-checks, and last the line ``N pass · N warn · N fail``."""
    blocks: list[str] = []
    for part in analysis.parts:
        workload = part.round.workload
        if len(analysis.parts) > 1 and workload is not None:
            blocks.append(f"\nworkload {terminal_safe(workload.id)}: "
                          f"{terminal_safe(workload.label.en)}")
        blocks.append(tiers_text(part))
    if findings:
        blocks += ["\ninput warnings:", findings_text(findings)]
    extra = inputs_text(analysis.inferred, analysis.skipped)
    if extra:
        blocks.append("\n" + extra)
    statuses = ["warn"] * len(findings)
    for part in analysis.parts:
        blocks.append("")
        workload = part.round.workload
        # each workload's checks under its own heading
        if len(analysis.parts) > 1 and workload is not None:
            blocks.append(f"self-checks · workload {terminal_safe(workload.id)}: "
                          f"{terminal_safe(workload.label.en)}")
        blocks.append(checks_text(part))
        statuses += [str(s) for s in part.checks["status"]] if len(part.checks) else []
    counts = status_counts(statuses)
    blocks.append("\n" + summary_line(counts))
    return "\n".join(blocks), counts


def findings_text(findings: Iterable[Any]) -> str:
    return "\n".join(wrapped(str(f), "  warn  ") for f in findings)


def inputs_text(inferred: list[Any], skipped: list[tuple[str, str]]) -> str:
    """What `check` says about the folder: settings read from the files, files not read."""
    parts = []
    if inferred:
        rows = [[i.key, str(i.value), i.source,
                 f"overridden: {i.stated}" if i.status == "overridden" else i.status]
                for i in inferred]
        parts.append("inferred settings (round.toml can confirm or override each):\n"
                     + table_text(rows, ["key", "value", "read from", "status"], wrap=2))
    if skipped:
        short = shorten(skipped)
        rows = [[f, why] for f, why in short.shown]
        text = f"files not read ({len(skipped):,}):\n" + table_text(rows, ["file", "why"], wrap=1)
        if short.more:
            text += "\n" + wrapped(f"{short.more:,} more not listed ({short.reasons_text()})",
                                   "  … ")
        parts.append(text)
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------- values

def matching_names(values: Mapping[str, Any], pattern: str | None) -> list[str]:
    """Names containing ``pattern``, or matching it as a glob when it has * ? or [."""
    if not pattern:
        return sorted(values)
    if any(c in pattern for c in "*?["):
        return sorted(n for n in values if fnmatchcase(n, pattern))
    return sorted(n for n in values if pattern in n)


def values_text(values: Mapping[str, Any], names: list[str], lang: str = "en") -> str:
    """Placeholder names usable in narrative files, each with its value as the page's tables
    show it (8, 16, 121.61). Bilingual text in ``lang``."""
    rows = []
    for name in names:
        value = values[name]
        if isinstance(value, Bi):
            value = value.get(lang)
        rows.append([name, plain(value)])
    return table_text(rows, ["name", "value"], wrap=1)


# ----------------------------------------------------------------------------- diff

CELL_LIMITS = (0, 16, 16, 16, 10)  # figure (takes the rest), old, new, delta, change
DIFF_HEADER = ["figure", "old", "new", "delta", "change"]
INDENT = "  "


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def diff_summary(diff: Diff) -> str:
    counts = diff.counts()
    if not any(counts.values()):
        return "no changes"
    inputs = len(diff.groups)
    return (f"{counts['changed']} changed · {counts['added']} added · {counts['removed']} "
            f"removed, in {inputs} input{'s' if inputs != 1 else ''}")


def _noisy(diff: Diff) -> bool:
    """Whether the round has repeats that give some changed figure a run-to-run spread."""
    return any(f.noise is not None for f in diff.figures)


def noise_text(within: bool | None, noise: float | None) -> str:
    """A change against its figure's run-to-run spread (max − min of the repeats over their
    median): "within 4.2% spread" / "beyond 4.2% spread"."""
    if within is None or noise is None:
        return ""
    return f"{'within' if within else 'beyond'} {fmt(noise, 'pct')} spread"


def _diff_cells(diff: Diff) -> list[list[list[str]]]:
    """Per group, per figure: [name, old, new, delta, change] as text, plus the noise tag
    when the round has repeats."""
    noisy = _noisy(diff)
    return [[[f.name, *change_texts(f.old, f.new, f.delta, f.relative),
              *([noise_text(f.within_noise, f.noise)] if noisy else [])] for f in g.figures]
            for g in diff.groups]


def _header(diff: Diff) -> list[str]:
    return [*DIFF_HEADER, *(["noise"] if _noisy(diff) else [])]


def diff_text(diff: Diff, width: int = WIDTH) -> str:
    """One block per input (headed by its label and source file), one row per changed figure,
    the summary line last. A text that does not fit its cell follows the row in full."""
    if not diff.groups:
        return "no changes"
    cells = [[[terminal_safe(c) for c in row] for row in group] for group in _diff_cells(diff)]
    header = _header(diff)
    limits = (*CELL_LIMITS, 20)   # the noise tag: "beyond 12.5% spread"
    every = [header, *(row for group in cells for row in group)]
    widths = [min(max(len(r[i]) for r in every), limits[i] or width)
              for i in range(len(header))]
    rest = width - len(INDENT) - sum(widths[1:]) - len(GAP) * (len(widths) - 1)
    widths[0] = max(min(widths[0], rest), 12)

    def line(row: list[str]) -> str:
        clipped = [_clip(c, w) for c, w in zip(row, widths, strict=True)]
        padded = [clipped[0].ljust(widths[0])] + [c.rjust(w) for c, w in
                                                 zip(clipped[1:], widths[1:], strict=True)]
        return (INDENT + GAP.join(padded)).rstrip()

    out: list[str] = []
    for group, rows in zip(diff.groups, cells, strict=True):
        title = terminal_safe(diff.input_label(group.input))
        if group.input.source:
            title += f"  ({terminal_safe(group.input.source)})"
        out += [*([""] if out else []), _clip(title, width), line(header),
                INDENT + GAP.join("-" * w for w in widths)]
        for row in rows:
            out.append(line(row))
            if len(row[1]) > widths[1] or len(row[2]) > widths[2]:
                out += [wrapped(" ".join(row[1].split()), INDENT * 3 + "old: ", width),
                        wrapped(" ".join(row[2].split()), INDENT * 3 + "new: ", width)]
    out += ["", diff_summary(diff)]
    return "\n".join(out)


def diff_markdown(diff: Diff) -> str:
    if not diff.groups:
        return "no changes"
    header = _header(diff)
    lines = ["| input | " + " | ".join(header) + " |", "|" + "---|" * (len(header) + 1)]
    for group, rows in zip(diff.groups, _diff_cells(diff), strict=True):
        label = diff.input_label(group.input)
        for row in rows:
            lines.append("| " + " | ".join(terminal_safe(" ".join(c.split())).replace("|", "\\|")
                                           for c in [label, *row]) + " |")
    return "\n".join([*lines, "", diff_summary(diff)])
