"""When a comparison may be written as a claim (issue 31, rule 1): "leads", "above", "faster",
"rises" between two values needs a margin larger than their noise. The noise is the spread of
their repeats where the round has repeats (max − min over the median, the larger of the two),
else the stated threshold ``THRESHOLD``. Below it the page says "on par (within x %)" and
``check`` says "flat". Every comparative sentence of the page, ``check`` and ``diff`` asks
these functions; nothing else decides."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

THRESHOLD = 0.02   # the noise assumed when a value has no repeats to measure it


def spread(value: float, low: float = math.nan, high: float = math.nan,
           repeats: float = math.nan) -> float:
    """The run-to-run spread of a value as a fraction of it: (high − low) / value; NaN when
    there are no repeats to show it (fewer than two runs, no low/high, a value ≤ 0)."""
    if not all(math.isfinite(x) for x in (value, low, high, repeats)) or value <= 0 \
            or repeats < 2:
        return math.nan
    return (high - low) / value


def noise(*spreads: float) -> float:
    """The noise two (or more) values are compared under: the largest of their repeats'
    spreads where any is known, else ``THRESHOLD``."""
    known = [s for s in spreads if math.isfinite(s)]
    return max(known) if known else THRESHOLD


@dataclass(frozen=True)
class Claim:
    """``first`` is the better value (higher, or lower when lower is better), ``margin`` how
    much better as a fraction of ``second`` (best/second − 1, or 1 − best/second), ``noise``
    the margin it must exceed. ``leads`` is False on a tie within the noise."""
    first: int          # index (0 or 1) of the better of the two values given
    best: float
    second: float
    margin: float
    noise: float

    @property
    def leads(self) -> bool:
        return math.isfinite(self.margin) and self.margin > self.noise


def margin_of(best: float, second: float, higher_better: bool = True) -> float:
    """How much better ``best`` is than ``second``, as a fraction of ``second``."""
    if not (math.isfinite(best) and math.isfinite(second)) or second == 0:
        return math.nan
    return best / second - 1.0 if higher_better else 1.0 - best / second


def compare(a: float, b: float, *, higher_better: bool = True,
            noise_frac: float = THRESHOLD) -> Claim:
    """Which of ``a`` and ``b`` is better and whether the margin carries a claim."""
    first = 0 if (a >= b if higher_better else a <= b) or not math.isfinite(b) else 1
    best, second = (a, b) if first == 0 else (b, a)
    return Claim(first, best, second, margin_of(best, second, higher_better), noise_frac)


def steps(values: Sequence[float], noise_frac: float = THRESHOLD) -> list[str]:
    """Each step of a series in order: "up" (a rise beyond the noise), "down" (a fall beyond
    it) or "flat" (within it). Non-finite values are skipped."""
    known = [v for v in values if math.isfinite(v)]
    out = []
    for prev, cur in itertools.pairwise(known):
        change = cur / prev - 1.0 if prev > 0 else math.nan
        out.append("up" if change > noise_frac else "down" if change < -noise_frac
                   else "flat")
    return out
