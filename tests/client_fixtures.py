"""Helpers for the tests on files written by real clients (tests/data/clients/)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from reportgen.load.formats import READERS, ClientRun

DATA = Path(__file__).resolve().parent / "data"
CLIENTS = DATA / "clients"
HEAD = 65536  # what a reader's sniff sees
# every fixture folder tools/make_client_fixtures.py wrote; a missing one fails, never skips
FIXTURES = ("aiperf-0.3.0", "aiperf-0.8.0", "aiperf-0.13.0", "genai-perf-0.0.16",
            "guidellm-0.4.0", "guidellm-0.8.1", "inference-perf-0.7.0",
            "inference-perf-0.7.0-concurrent")


@dataclass
class Claimed:
    path: Path
    shown: str
    reader: ModuleType
    runs: list[ClientRun]


def claim(path: Path, root: Path) -> ModuleType | None:
    head = path.read_bytes()[:HEAD]
    shown = path.relative_to(root).as_posix()
    return next((r for r in READERS if r.sniff(shown, head)), None)


def read_folder(root: Path) -> list[Claimed]:
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "README.md"):
        reader = claim(path, root)
        if reader is not None:
            shown = path.relative_to(root).as_posix()
            out.append(Claimed(path, shown, reader, reader.read(path.read_bytes(), shown)))
    return out


def stub_settings(folder: Path) -> dict[str, float]:
    """The stub's timing model, as the fixture's README states it (the JSON block)."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert m, f"{folder}/README.md has no JSON block with the stub's settings"
    return json.loads(m.group(1))
