"""The claims audit (issue 31, Build 10): what a page says against what its tables hold.

``audit(page, parts)`` reads the generated Findings and the headline cards of every view, in
both languages, and returns one line per problem:
- a number that is not a number of the view's tables at the precision shown (tiers, crossovers,
  checks, the named values; a ratio of two configurations' output at one tier);
- a comparative word ("leads", "is faster", "above the runner-up", 领先, 更快, 高出) whose two
  figures, as printed, differ by no more than their noise (``analyze.claims``: the repeats'
  spread where the tiers show one, else the stated threshold), or an "on par (within x %)"
  whose figures differ by more than x;
- a crossing written as a ranking change ("curves cross at", "ranking changes at", 交叉点,
  易位) where no tier below it and one above it each show a lead beyond the noise (the
  view's ``crossover.ratio.c*`` values against the tiers' noise);
- a missing-value mark in the text: "—" or "–" not between two numbers, "nan", "?".
The audit reads only the page model and the analysis frames, never the code that wrote the
sentences, so an edited number or a tie written as a lead is caught whatever wrote it."""

from __future__ import annotations

import html
import itertools
import math
import re
from collections.abc import Iterable, Sequence

import pandas as pd

from reportgen.analyze import claims
from reportgen.analyze.result import Analysis
from reportgen.analyze.single_stream import MAX_IN_FLIGHT, in_flight
from reportgen.page.model import Block, Card, Cards, Page, Section

NUMBER = re.compile(r"(?<![\w.\-−])(\d[\d,]*(?:\.\d+)?)(\s*%)?")
# a dash standing for a number: before a unit or punctuation, or a card value alone (a dash
# between words is punctuation: "what was measured — to correct it")
MISSING = re.compile(r"[—–]\s*(?:ms\b|tok/s|req/s|%|×|[;,.)）；，。]|·|$)|^\s*[—–]|\bnan\b|\?|？",
                     re.IGNORECASE)
# "A tok/s against B", "a ms against b ms" and the zh forms: the leader first
LEADS = (re.compile(r"leads: ([\d,.]+) tok/s against ([\d,.]+)"),
         re.compile(r"领先：([\d,.]+) tok/s，对比 .*? 的 ([\d,.]+)"))
FASTER = (re.compile(r"is faster: .*? ([\d,.]+) ms against ([\d,.]+) ms"),
          re.compile(r"更快：.*? ([\d,.]+) ms，对比 .*? 的 ([\d,.]+) ms"))
ABOVE = (re.compile(r"([\d,.]+) tok/s, ([\d,.]+)% above the runner-up .*?\(([\d,.]+) tok/s\)"),
         re.compile(r"([\d,.]+) tok/s，比第二名 .*?（([\d,.]+) tok/s）高 ([\d,.]+)%"))
# a crossing stated as a ranking change, with the tier it is at ("≈ 3.2")
CROSS = (re.compile(r"(?:curves cross at · (?:C|rate) ≈ |ranking changes at (?:C )?≈ )([\d,.]+)"),
         re.compile(r"(?:吞吐曲线交叉点 · (?:C|速率) ≈ |排名在 (?:C )?≈ )([\d,.]+)"))
PAR = (re.compile(r"([\d,.]+) tok/s for .*? against ([\d,.]+) for .*? \(within ([\d.]+)%\)"),
       re.compile(r"输出吞吐不分高下：.*? ([\d,.]+) tok/s，.*? ([\d,.]+)（差距在 ([\d.]+)% 以内）"))


def _plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def texts(section: Section, lang: str) -> list[str]:
    """The Findings bullets (one line each) and the headline cards' text of a section."""
    out: list[str] = []
    for block in section.blocks:
        if isinstance(block, Block) and section.id == "findings":
            out += [line for line in _plain(block.html.get(lang)).splitlines() if line.strip()]
        elif isinstance(block, Cards):
            out += [" · ".join(_plain(str(getattr(c, k).get(lang))) for k in
                               ("label", "value", "sub")) for c in block.cards
                    if isinstance(c, Card)]
    return out


def reference(part: Analysis) -> list[float]:
    """Every number the view's tables hold, and the ratios of two configurations' figures at
    one tier (a lead is shown as 1.36×)."""
    out: list[float] = [claims.THRESHOLD]
    for frame in (part.tiers, part.crossovers, part.engines, part.checks):
        for column in frame.columns:
            values = pd.to_numeric(frame[column], errors="coerce")
            out += [float(v) for v in values if math.isfinite(v)]
    for message in part.checks.get("message", []):
        out += [float(n.replace(",", "")) for n, _ in NUMBER.findall(message.en)]
    for value in part.values.values():
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and math.isfinite(float(value)):
            out.append(float(value))
    for _, at in part.tiers.groupby("concurrency"):
        for a, b in itertools.permutations(at["output_tok_s"].astype(float), 2):
            if b > 0:
                out += [a / b, a / b - 1.0]   # "1.36×", "2.2 % above"
    # requests in flight on a rate axis (rate × mean E2E latency) and its single-stream bound
    out += [*list(in_flight(part.tiers, "request_rate").astype(float)), MAX_IN_FLIGHT]
    return out


def _shown(text: str, percent: bool, refs: Sequence[float]) -> bool:
    digits = len(text.split(".")[1]) if "." in text else 0
    value = float(text.replace(",", ""))
    scale = 100.0 if percent else 1.0
    return any(round(r * scale, digits) == value or round(r, digits) == value for r in refs
               if math.isfinite(r))


def _num(text: str) -> float:
    return float(text.replace(",", "").rstrip("."))


def _noise_of(part: Analysis, shown: Iterable[float]) -> float:
    """The noise of the tier rows whose output tok/s is printed as ``shown`` (0.1 dp)."""
    tiers = part.tiers
    spreads = []
    for value in shown:
        rows = tiers[(tiers["output_tok_s"].astype(float) - value).abs() < 0.051]
        for _, r in rows.iterrows():
            spreads.append(claims.spread(float(r["output_tok_s"]),
                                         float(r.get("output_tok_s_min", math.nan)),
                                         float(r.get("output_tok_s_max", math.nan)),
                                         float(r.get("repeats", math.nan))))
    return claims.noise(*spreads)


def _changes(part: Analysis, at: float) -> bool:
    """Whether the view's throughput ratios show a lead beyond the noise on each side of a
    crossing at ``at`` (the ratio a/b of the primary pair at each common tier)."""
    ratios = []
    for name, value in part.values.items():
        key = name.removeprefix("crossover.ratio.c")
        if key != name and isinstance(value, int | float) and not isinstance(value, bool):
            ratios.append((math.inf if key == "inf" else float(key.replace("_", ".")),
                           float(value)))
    frac = _noise_of(part, part.tiers["output_tok_s"].astype(float))
    below = any(t < at and claims.compare(r, 1.0, noise_frac=frac).leads for t, r in ratios)
    above = any(t > at and claims.compare(1.0, r, noise_frac=frac).leads for t, r in ratios)
    return below and above


def comparatives(line: str, part: Analysis) -> list[str]:
    """Problems with the comparative words of one line."""
    out = []
    for pattern in CROSS:
        for at in pattern.findall(line):
            if not _changes(part, _num(at)):
                out.append(f"a crossing within the noise written as a ranking change: {line}")
    for pattern in LEADS:
        for a, b in pattern.findall(line):
            x, y = _num(a), _num(b)
            if not claims.compare(x, y, noise_frac=_noise_of(part, (x, y))).leads:
                out.append(f"a tie written as a lead ({a} against {b}): {line}")
    for pattern in FASTER:
        for a, b in pattern.findall(line):
            if not claims.compare(_num(a), _num(b), higher_better=False).leads:
                out.append(f"'faster' within the noise ({a} against {b} ms): {line}")
    for i, pattern in enumerate(ABOVE):
        for groups in pattern.findall(line):
            a, pct, b = groups if i == 0 else (groups[0], groups[2], groups[1])
            x, y = _num(a), _num(b)
            if not claims.compare(x, y, noise_frac=_noise_of(part, (x, y))).leads \
                    or _num(pct) <= 0:
                out.append(f"'{pct}% above' within the noise: {line}")
    for pattern in PAR:
        for a, b, within in pattern.findall(line):
            x, y = _num(a), _num(b)
            if abs(max(x, y) / min(x, y) - 1.0) > _num(within) / 100 + 0.001:
                out.append(f"'on par within {within}%' but {a} against {b}: {line}")
    return out


def audit(page: Page, parts: Sequence[Analysis], labels_too: bool = True) -> list[str]:
    """Every problem of the page's Findings and headline cards (see the module docstring)."""
    views = [v.sections for v in page.views] if page.views else [page.sections]
    problems: list[str] = []
    for sections, part in zip(views, parts, strict=True):
        refs = reference(part)
        names = sorted({b.get(lang) for b in part.labels().values() for lang in ("zh", "en")},
                       key=len, reverse=True)
        for section in sections:
            if section.id not in ("findings", "headline"):
                continue
            for lang in ("en", "zh"):
                for line in texts(section, lang):
                    problems += comparatives(line, part)
                    bare = line
                    for name in names:   # names, not figures: "llama2-70b-4096"
                        bare = bare.replace(name, " ")
                    if MISSING.search(bare):
                        problems.append(f"a missing-value mark: {line}")
                    for number, percent in NUMBER.findall(bare):
                        if not _shown(number, bool(percent), refs):
                            problems.append(f"{number}{percent.strip()} is in no table: {line}")
    return problems
