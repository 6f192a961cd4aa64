"""The reader's service-level objective: latency thresholds per request and the target share.

Where it comes from, first found wins: ``tables --slo`` / ``build --slo`` on the command line,
round.toml ``[slo]``, a ``--goodput KEY:VALUE …`` argument found in the results (vLLM does not
store its ``--goodput`` thresholds in the result JSON, only ``request_goodput``; a record's
``--metadata goodput=…`` pair carries them), else none. Thresholds are milliseconds and
inclusive (a request meets ``ttft_ms = 500`` at exactly 500 ms), as in vLLM.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

METRICS = ("ttft", "tpot", "e2el")
DEFAULT_TARGET = 0.99
CLI_SOURCE = "--slo"  # the source of an objective given on the command line (diff reads it)
# "ttft:500 tpot:50" (vLLM --goodput) or "ttft_ms=500,tpot_ms=50" (reportgen --slo)
_PAIR = re.compile(r"(ttft|tpot|e2el)(?:_ms)?\s*[:=]\s*([0-9][0-9.eE+-]{0,30})")


@dataclass(frozen=True)
class Slo:
    """Thresholds in ms (NaN: that metric is not part of the objective), the share of requests
    that must meet them (``target``), and where they were read (shown on the page)."""

    ttft_ms: float = math.nan
    tpot_ms: float = math.nan
    e2el_ms: float = math.nan
    target: float = DEFAULT_TARGET
    source: str = ""

    def threshold(self, metric: str) -> float:
        return float(getattr(self, f"{metric}_ms"))

    @property
    def given(self) -> bool:
        """At least one threshold is set (an objective with none is no objective)."""
        return any(math.isfinite(self.threshold(m)) for m in METRICS)


class SloError(ValueError):
    """A threshold string that cannot be read (the caller names where it came from)."""


def parse_slo(text: str, target: float = DEFAULT_TARGET, source: str = "") -> Slo:
    """``ttft_ms=500,tpot_ms=50[,e2el_ms=…]`` (also ``ttft:500 tpot:50``) → Slo; a metric
    named twice is an error."""
    found: dict[str, float] = {}
    rest = text
    for m in _PAIR.finditer(text):
        try:
            value = float(m[2])
        except ValueError:
            raise SloError(f"'{m[0]}': not a number of milliseconds") from None
        if not math.isfinite(value) or value <= 0:
            raise SloError(f"'{m[0]}': a threshold must be a number of ms > 0")
        if m[1] in found:  # which one was meant cannot be told: never the last silently
            raise SloError(f"'{m[1]}_ms' given twice ({found[m[1]]:g} and {value:g}); give "
                           "each threshold once")
        found[m[1]] = value
        rest = rest.replace(m[0], "", 1)
    if rest.strip(" ,;") or not found:
        raise SloError(f"'{text[:80]}': expected ttft_ms=…,tpot_ms=…[,e2el_ms=…] (ms, > 0)")
    check_target(target)
    return Slo(found.get("ttft", math.nan), found.get("tpot", math.nan),
               found.get("e2el", math.nan), target, source)


_LOAD = re.compile(r"^\s*([0-9][0-9.eE+]{0,30})\s*(req/s|tok/s)\s*$")


def parse_load(text: str) -> tuple[float, str]:
    """``20req/s`` / ``5000 tok/s`` (output tokens) → (value > 0, unit)."""
    m = _LOAD.match(text)
    try:
        value = float(m[1]) if m else math.nan
    except ValueError:
        value = math.nan
    if m is None or not (math.isfinite(value) and value > 0):
        raise SloError(f"'{text[:80]}': expected a load such as 20req/s or 5000tok/s (> 0)")
    return value, m[2]


def check_target(target: float) -> None:
    if not (isinstance(target, int | float) and 0 < target <= 1):
        raise SloError(f"target share {target!r}: expected a fraction in (0, 1]")


def goodput_arguments(text: str) -> Slo | None:
    """The thresholds of a vLLM ``--goodput ttft:500 tpot:50`` argument list (or a metadata
    value holding them), None when the text names none."""
    try:
        return parse_slo(text.replace("'", " ").replace('"', " ").strip(" []"))
    except SloError:
        return None
