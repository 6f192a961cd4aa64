"""Links to the round's other reports."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.model import Links, PageBlock


def related(b: Builder) -> list[PageBlock]:
    """Links to the round's other reports: plain anchors (the page requests nothing)."""
    items = [(r.title, r.href) for r in b.d.round.related]
    return [Links(b.t("related.title"), items)] if items else []

