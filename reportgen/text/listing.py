"""Long lists shortened the same way on the page and in `check`: the first ``MAX_LISTED``
entries, then how many more and their commonest reasons (a folder of 50,000 stray files must
not give 50,000 lines or a page of megabytes)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from reportgen.schema import JsonObject

MAX_LISTED = 100
TOP_REASONS = 3


@dataclass(frozen=True)
class Shortened:
    shown: Sequence[tuple[str, str]]
    more: int                         # entries not shown
    reasons: list[tuple[str, int]]    # the commonest reasons among them, with counts

    def reasons_text(self) -> str:
        return "; ".join(f"{why} ×{n:,}" for why, n in self.reasons)


def shorten(entries: Sequence[tuple[str, str]], limit: int = MAX_LISTED) -> Shortened:
    """``entries`` (name, reason) cut to ``limit``, with a summary of the rest."""
    rest = entries[limit:]
    reasons = Counter(why for _, why in rest).most_common(TOP_REASONS)
    return Shortened(entries[:limit], len(rest), reasons)


def shorten_data(data: JsonObject, limit: int = MAX_LISTED) -> JsonObject:
    """A tables dict for a page's data block: its ``skipped`` list cut to ``limit`` rows with
    ``skipped_not_listed`` counting the rest (``reportgen tables`` keeps every row; no reader
    of a page's block compares that list)."""
    rows = data.get("skipped")
    if not isinstance(rows, list) or len(rows) <= limit:
        return data
    return {**data, "skipped": rows[:limit], "skipped_not_listed": len(rows) - limit}
