"""The generated "Findings" section (issue 19, item 6): bullet sentences written from the
round's ``findings.*`` (and ``crossover.*``) values, every number a ``{{ placeholder }}``
rendered as narrative is, so corrected data rewrites the sentences. A round with author
narrative keeps the author's words: the section gives way (its placeholders stay listed by
`reportgen values`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from reportgen.analyze.values import Value
from reportgen.narrative import render_markdown
from reportgen.page.builder import Builder
from reportgen.page.model import Block, PageBlock, Para
from reportgen.text.bilingual import LANGS, Bi

_NAMES = re.compile(r"\{\{\s*([A-Za-z0-9_.\-]+)")
_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")


def _known(values: Mapping[str, Value], name: str) -> bool:
    value = values.get(name)
    if value is None:
        return False
    if isinstance(value, float):
        return not math.isnan(value)
    return value != ""


def lines(b: Builder) -> list[str]:
    """The ui keys of the sentences this round supports, in order, with ENGINE filled in."""
    values = b.d.values
    # analyze.findings says whether a lead carries a claim (analyze.claims): a tie within the
    # noise is written "on par", an open-loop rate both sustain compares latency
    suffix = {"lead": "", "par": "_par", "latency_lead": "_latency",
              "latency_par": "_latency_par"}
    out = [f"{end}{suffix.get(str(values.get(f'findings.{end}.claim', 'lead')), '')}"
           for end in ("low", "high")]
    count = values.get("crossover.count")
    # "holds at every common tier" needs at least two common tiers
    if isinstance(count, int | float) and not math.isnan(float(count)) and \
            _known(values, "findings.high.tier"):
        change = values.get("findings.crossover_claim", "change") == "change"
        out += ["no_crossover" if count <= 0 else "crossover" if change else "crossover_par"]
        low, high = values.get("crossover.range_low"), values.get("crossover.range_high")
        if count > 0 and change and isinstance(low, float) and isinstance(high, float) \
                and low != high:
            out.append("crossover_range")
    for e in b.d.order:
        if _ID.match(e):
            out += [f"saturation:{e}", f"saturation_latency:{e}"]
    for e in b.d.order:     # capacity at the round's SLO, with its verdict (goodput.py)
        status = values.get(f"capacity.{e}.status")
        if _ID.match(e) and isinstance(status, str):
            out.append(f"capacity_{status}:{e}")
    failed = values.get("findings.failed")
    out.append("failed" if isinstance(failed, int) and failed > 0 else "no_failed")
    if _known(values, "findings.top_check"):
        out.append("checks")
    return out


def _source(b: Builder, item: str, lang: str) -> str | None:
    key, _, engine = item.partition(":")
    text = b.ui.raw(f"every.findings.{key}", lang).replace("ENGINE", engine)
    names = _NAMES.findall(text)
    return text if all(_known(b.d.values, n) for n in names) else None


def findings(b: Builder) -> list[PageBlock]:
    if b.narrative:   # the author's words come first; the placeholders stay available
        return []
    # a latency line continues the saturation bullet above it (zh needs no space after its
    # full-width stop)
    source = Bi(*("\n".join(s for s in (_source(b, i, lang) for i in lines(b)) if s).replace(
        "\n  ", "" if lang == "zh" else " ") for lang in LANGS))
    if not source.en.strip():
        return []
    return [Para(b.t("every.findings.lead"), "note"),
            Block(Bi(*(render_markdown(source.get(lang), b.d.values, "findings", lang)[1]
                       for lang in LANGS)))]
