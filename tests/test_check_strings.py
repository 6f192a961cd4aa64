"""Self-check messages and constant sources live in the analysis string table
(templates/i18n/analysis.toml), not in Python: checks return an id, a message id and parameters,
and the table's text is filled once into the checks frame."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from reportgen.analyze import checks as chk
from reportgen.text.bilingual import LANGS

ANALYZE = Path(__file__).resolve().parents[1] / "reportgen" / "analyze"
HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]")


def _constant(node: ast.expr | None) -> list[str]:
    """The string(s) an argument can be: a literal, or either branch of `a if c else b`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _constant(node.body) + _constant(node.orelse)
    return []


def _message_keys() -> set[str]:
    """Every `check(id, status, message, …)` call in analyze/ with literal ids, plus the
    counters run.py passes to counter_increase_check (which add `rose` / `pass`)."""
    keys = set()
    for path in sorted(ANALYZE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name == "check" and len(node.args) >= 3:
                ids, messages = _constant(node.args[0]), _constant(node.args[2])
                if getattr(node.args[0], "id", "") == "id":  # counter_increase_check's own
                    continue
                assert ids and messages, f"{path.name}:{node.lineno}: a check with no literal id"
                keys |= {f"checks.{i}.{m}" for i in ids for m in messages}
            elif name == "counter_increase_check":
                [counter] = _constant(node.args[1]) or [None]
                if counter is not None:
                    keys |= {f"checks.{counter}.rose", f"checks.{counter}.pass"}
    return keys


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_check_message_is_in_the_table_in_both_languages() -> None:
    table = chk.strings()
    used = _message_keys()
    assert len(used) >= 25  # the AST walk found the checks (not a vacuous pass)
    missing = sorted(k for k in used if k not in table)
    assert not missing, f"check messages missing from analysis.toml: {missing}"
    names = table.keys()
    # `<key>_rate` is the same message worded for a request-rate sweep (checks_frame)
    unused = sorted(k for k in names if k.startswith("checks.") and k not in used
                    and k.removesuffix("_rate") not in used)
    assert not unused, f"analysis.toml messages no check produces: {unused}"


@pytest.mark.parametrize("key", chk.strings().keys())
def test_both_languages_fill_the_same_fields(key: str) -> None:
    raw = chk.strings()._strings[key]
    assert set(raw) == set(LANGS) and all(raw[lang].strip() for lang in LANGS)
    assert _fields(raw["zh"]) == _fields(raw["en"]), key
    assert not HAN.search(raw["en"]), f"{key}: Chinese in the English text"


# Chinese text or full-width punctuation (page text lives in templates/i18n, not in Python)
CJK = re.compile("[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
# lines that match input, not page text: each file's reason
CJK_ALLOWED = {"load/copies.py": "Windows names a copy `name - 副本` in Chinese"}


def test_no_chinese_text_remains_in_python() -> None:
    package = ANALYZE.parent
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() in CJK_ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not CJK.search(line), f"{path.name}:{number}: {line.strip()}"


def test_a_check_renders_from_the_table_for_the_rounds_axis() -> None:
    row = chk.check("requests.failed", "warn", "some", {"tier": 4.0, "failed": 2.0,
                                                       "requests": float("nan")}, "e", 4.0, 2.0)
    frame = chk.checks_frame([row], "request_rate")
    assert frame.loc[0, "message"].en == ("4 req/s: 2 of ? requests failed; throughput counts "
                                          "completed requests only.")
    assert frame.loc[0, "message"].zh.startswith("4 req/s 失败 2 / ? 条请求")
    assert chk.checks_frame([row]).loc[0, "message"].en.startswith("C=4: 2 of ?")
