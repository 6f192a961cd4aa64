"""Links to the round's other reports."""

from __future__ import annotations

from collections.abc import Mapping

from reportgen.page.builder import Builder
from reportgen.page.cells import bi_text
from reportgen.page.model import Links, PageBlock


def related(b: Builder) -> list[PageBlock]:
    """Links to the round's other reports: plain anchors (the page requests nothing)."""
    items = []
    for entry in b.d.round.get("related") or []:
        title = bi_text(entry.get("title")) if isinstance(entry, Mapping) else None
        href = entry.get("href") if isinstance(entry, Mapping) else None
        if title is not None:
            items.append((title, href if isinstance(href, str) else ""))
    return [Links(b.t("related.title"), items)] if items else []

