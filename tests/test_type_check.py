"""Types are checked: tools/test.sh (what CI runs) runs mypy on reportgen/ with pandas-stubs,
both are test dependencies, and every per-module ignore in pyproject.toml says why in a comment
line right above it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = REPO / "pyproject.toml"


def test_mypy_and_pandas_stubs_are_test_dependencies() -> None:
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["test"]
    names = {re.split(r"[<>=!~ ]", e, maxsplit=1)[0] for e in extras}
    assert {"mypy", "pandas-stubs"} <= names


def test_ci_runs_mypy_on_reportgen() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["reportgen"]
    assert config["strict"] is True   # `mypy --strict` stays at 0 errors on reportgen/
    script = (REPO / "tools" / "test.sh").read_text(encoding="utf-8")
    assert re.search(r"^\.venv/bin/mypy\b", script, re.M)
    assert script.index(".venv/bin/mypy") < script.index("pytest")


def test_every_ignore_has_a_reason() -> None:
    lines = PYPROJECT.read_text(encoding="utf-8").splitlines()
    sections = [i for i, line in enumerate(lines) if line == "[[tool.mypy.overrides]]"]
    assert sections
    for i in sections:
        body = []
        for line in lines[i + 1:]:
            if line.startswith("["):
                break
            body.append(line)
        ignores = any(re.match(r"(ignore_errors|ignore_missing_imports) = true", b) for b in body)
        if ignores:
            assert body[0].startswith("# ") and len(body[0]) > 20, f"line {i + 2}: no reason"
