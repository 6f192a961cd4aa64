"""Long lists shortened the same way on the page and in `check`: the first ``MAX_LISTED``
entries, then how many more and their commonest reasons (a folder of 50,000 stray files must
not give 50,000 lines or a page of megabytes)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

MAX_LISTED = 100
TOP_REASONS = 3


@dataclass(frozen=True)
class Shortened:
    shown: list[tuple[str, str]]
    more: int                         # entries not shown
    reasons: list[tuple[str, int]]    # the commonest reasons among them, with counts

    def reasons_text(self) -> str:
        return "; ".join(f"{why} ×{n:,}" for why, n in self.reasons)


def shorten(entries: list[tuple[str, str]], limit: int = MAX_LISTED) -> Shortened:
    """``entries`` (name, reason) cut to ``limit``, with a summary of the rest."""
    rest = entries[limit:]
    reasons = Counter(why for _, why in rest).most_common(TOP_REASONS)
    return Shortened(entries[:limit], len(rest), reasons)
