"""The README is the front door and docs/ the reference: every relative link between them, and
to files of the project, leads to a file that exists (a moved section leaves no dead link)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def relative_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)    # code blocks hold no links,
    text = re.sub(r"`[^`\n]*`", "", text)                  # nor do code spans
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t) and
            not t.startswith("#")]


def test_every_relative_link_leads_to_a_file() -> None:
    dead = [f"{page.relative_to(ROOT)}: {target}" for page in PAGES
            for target in relative_links(page)
            if not (page.parent / target.split("#", 1)[0]).exists()]
    assert not dead, dead


def test_the_readme_is_a_front_door_linking_every_docs_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    linked = set(relative_links(ROOT / "README.md"))
    missing = [p.name for p in PAGES[1:] if f"docs/{p.name}" not in linked]
    assert not missing, missing


def test_the_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("see [x](nowhere.md) and [y](https://example.org) and [z](#here), "
                    "`![a](code.png)`\n",
                    encoding="utf-8")
    assert relative_links(page) == ["nowhere.md"]
