"""templates/i18n/ui.compiled.json: up to date with ui.toml, and byte-for-byte what parsing
every string on each use gives, for any slot value."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from reportgen.files.resources import templates_dir
from reportgen.text.i18n import COMPILED_NAME, UI, compiled_text, load_ui

UI_TOML = templates_dir() / "i18n" / "ui.toml"
TOOL = Path(__file__).resolve().parents[1] / "tools" / "compile_ui.py"
SLOT = re.compile(r"(?<!%)\{([a-z][a-z0-9_]*)\}")
HOSTILE = '<b>&"\'</b> *x* `y` {z} [l](javascript:a) \\ _u_'


def test_compiled_file_is_up_to_date() -> None:
    """Fails after an edit of ui.toml until `python tools/compile_ui.py` is run."""
    current = (UI_TOML.parent / COMPILED_NAME).read_text(encoding="utf-8")
    assert current == compiled_text(UI_TOML.read_bytes(), UI_TOML), \
        "run: python tools/compile_ui.py"


def test_build_uses_the_compiled_table() -> None:
    load_ui.cache_clear()
    assert load_ui(UI_TOML)._compiled


@pytest.mark.parametrize("value", ["12.5", HOSTILE, ""])
def test_compiled_equals_parsing_each_time(value: str) -> None:
    data = json.loads((UI_TOML.parent / COMPILED_NAME).read_text(encoding="utf-8"))
    compiled = UI(data["strings"], compiled=data["compiled"])
    live = UI(data["strings"])
    for key in data["strings"]:
        slots = {n: value for lang in ("zh", "en")
                 for n in SLOT.findall(data["strings"][key][lang])}
        assert compiled.t(key, **slots) == live.t(key, **slots), key
        assert compiled.block(key, **slots) == live.block(key, **slots), key
    for axis in ("concurrency", "request_rate"):
        assert compiled.for_axis(axis).t("data.col_c") == live.for_axis(axis).t("data.col_c")


def test_missing_slot_is_an_error_in_both() -> None:
    ui = load_ui(UI_TOML)
    with pytest.raises(KeyError, match="slot 'n' not given"):
        ui.t("views.note")


def test_stale_compiled_file_is_ignored(tmp_path: Path) -> None:
    """An edited ui.toml works before it is recompiled (strings parsed as used)."""
    toml = tmp_path / "ui.toml"
    toml.write_text('[a]\nb = { zh = "**甲** {x}", en = "**A** {x}" }\n', encoding="utf-8")
    (tmp_path / COMPILED_NAME).write_text(compiled_text(toml.read_bytes(), toml),
                                          encoding="utf-8")
    assert load_ui(toml)._compiled
    toml.write_text('[a]\nb = { zh = "**乙** {x}", en = "**B** {x}" }\n', encoding="utf-8")
    fresh = load_ui.__wrapped__(toml)
    assert not fresh._compiled and fresh.t("a.b", x="<1>").en == "<strong>B</strong> &lt;1&gt;"


def test_tool_check_mode() -> None:
    import subprocess

    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
