"""Regenerate templates/i18n/ui.compiled.json from templates/i18n/ui.toml.

    python tools/compile_ui.py [--check]

The compiled file holds every UI string already rendered from markdown, so a build only fills
slots in (tests/test_ui_compiled.py fails while it is out of date; a stale file is ignored at
run time, never wrong). Run this after every edit of ui.toml.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.text.i18n import COMPILED_NAME, compiled_text  # noqa: E402

UI_TOML = ROOT / "templates" / "i18n" / "ui.toml"


def main(argv: list[str]) -> int:
    target = UI_TOML.parent / COMPILED_NAME
    text = compiled_text(UI_TOML.read_bytes(), UI_TOML)
    if "--check" in argv:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{target} is out of date: run python tools/compile_ui.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({len(text.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
