"""Typed records at every stage boundary (issue 33): no ``Any`` in what one stage hands the
next — the records' fields and the stage functions' signatures (discover → load → analyze →
figures → page → render → write)."""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable

import pytest

from reportgen import build, pipeline, render
from reportgen.analyze import result, run
from reportgen.figures import built, registry
from reportgen.load import discover, records, round
from reportgen.page import assemble, model

ANY = re.compile(r"\bAny\b")
MODULES_OF_RECORDS = (records, result, built, model, discover)
STAGE_FUNCTIONS: tuple[Callable[..., object], ...] = (
    discover.discover, round.load_round, run.analyze_round, registry.figures_payload,
    assemble.build_page, pipeline.assemble_page, render.render_page, build.write_page)


def _records() -> list[type]:
    return [obj for module in MODULES_OF_RECORDS for obj in vars(module).values()
            if dataclasses.is_dataclass(obj) and isinstance(obj, type)
            and obj.__module__ == module.__name__] + [pipeline.Assembled, pipeline.Analyzed]


def any_fields(cls: type) -> list[str]:
    return [f"{cls.__name__}.{f.name}: {f.type}" for f in dataclasses.fields(cls)
            if ANY.search(str(f.type))]


def any_parameters(fn: Callable[..., object]) -> list[str]:
    return [f"{fn.__name__}({name}: {ann})" for name, ann in fn.__annotations__.items()
            if ANY.search(str(ann))]


@pytest.mark.parametrize("cls", _records(), ids=lambda c: c.__name__)
def test_no_any_in_a_stage_record(cls: type) -> None:
    assert any_fields(cls) == []


@pytest.mark.parametrize("fn", STAGE_FUNCTIONS, ids=lambda f: f.__name__)
def test_no_any_in_a_stage_function(fn: Callable[..., object]) -> None:
    assert inspect.isfunction(fn)
    assert any_parameters(fn) == []


def test_the_check_finds_an_any() -> None:
    @dataclasses.dataclass
    class Loose:
        value: dict[str, Any]   # noqa: F821 (a string annotation, never evaluated)

    def loose(x: Any) -> None:   # noqa: F821
        pass

    assert len(any_fields(Loose)) == 1
    assert any_parameters(loose) == ["loose(x: Any)"]
