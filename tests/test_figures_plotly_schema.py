"""Figures are built as plain dicts; plotly.py's validators check them here instead of at build
time: every property must exist and every value must be accepted unchanged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest
from page_fixture import make_analysis

from reportgen.analyze.round_facts import RoundInfo
from reportgen.figures.base import Bar, Fig, Scatter, template
from reportgen.figures.registry import build_figures, figures_payload
from reportgen.text.i18n import load_ui

UI_PATH = Path(__file__).resolve().parents[1] / "templates" / "i18n" / "ui.toml"


@pytest.fixture(scope="module")
def ui():
    return load_ui(UI_PATH)


def validated(fig: dict) -> dict:
    """The figure after a round trip through go.Figure (raises on an unknown property or a
    bad value), template dropped."""
    out = go.Figure(fig).to_dict()
    out["layout"].pop("template", None)
    return out


def analyses():
    full = make_analysis()
    bare = dataclasses.replace(full, graph_reuse=pd.DataFrame(columns=["engine"]),
                               memory=pd.DataFrame(columns=["engine"]), round=RoundInfo())
    return {"full": full, "bare": bare}


@pytest.mark.parametrize("case", ["full", "bare"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_figure_passes_plotly_validation_unchanged(ui, case: str, lang: str) -> None:
    specs = build_figures(analyses()[case], ui, lang)
    assert specs
    for spec in specs:
        fig = spec.figure.to_dict()
        assert validated(fig) == fig, spec.id


def test_shared_template_is_a_valid_plotly_template() -> None:
    assert go.layout.Template(template()).to_plotly_json() == template()


def test_typo_is_caught_by_validation() -> None:
    fig = Fig()
    fig.add_trace(Scatter(x=[1], y=[2], makrer=dict(size=3)))
    with pytest.raises(ValueError, match="makrer"):
        validated(fig.to_dict())


def test_dict_form_matches_plotly_key_order_and_arrays() -> None:
    import numpy as np

    ours = Fig()
    ours.add_trace(Bar(y=np.array([1.5, 2.0]), x=["a", "b"], marker=dict(color="#fff")))
    ours.add_hline(3.0, line=dict(color="red", width=2), text="cap", font=dict(size=12))
    ours.update_layout(barmode="stack", yaxis=dict(rangemode="tozero", title=dict(text="y")))
    theirs = go.Figure()
    theirs.add_trace(go.Bar(y=np.array([1.5, 2.0]), x=["a", "b"], marker=dict(color="#fff")))
    theirs.add_hline(y=3.0, line=dict(color="red", width=2),
                     annotation=dict(text="cap", font=dict(size=12)),
                     annotation_position="top left")
    theirs.update_layout(barmode="stack", yaxis=dict(rangemode="tozero", title=dict(text="y")))
    expected = theirs.to_dict()
    expected["layout"].pop("template")
    got = ours.to_dict()
    assert got == expected
    # same order too, so the page's bytes do not depend on which builder made them
    assert repr(got) == repr(expected)
    assert got["data"][0]["y"]["dtype"] == "f8"


def test_payload_carries_plain_json_only(ui) -> None:
    import json

    payload = figures_payload(make_analysis(), ui, "en").payload()
    json.dumps(payload, allow_nan=False)   # no numpy values, no NaN outside typed arrays
