"""The `shared` marker: a test that reads `../shared` (data not in the repository, see
tests/data/README.md) is skipped, with the reason, when that folder is missing, except in CI
(`CI` set), where a missing `../shared` is a failure."""

from __future__ import annotations

import os

import pytest
from data_paths import SHARED


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("shared") is None or SHARED.is_dir():
        return
    if in_ci():
        pytest.fail(f"{SHARED} is missing: CI runs the `shared` tests and must provide it",
                    pytrace=False)
    pytest.skip(f"needs {SHARED} (shared data not in the repository; see tests/data/README.md)")
