"""The vendored plotly.js holds only the trace types the pages draw (tools/build_plotly.sh):
every figure of every gold case and of the index is drawn by it, and it registers what its
.TRACES file says. A figure that needs another trace type fails here, instead of a page
silently carrying plotly.py's 4.6 MB full bundle."""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reportgen.files.resources import templates_dir
from reportgen.render import bundle_for, bundled_traces
from tools import update_gold
from tools.step_plotly import HINT, MARK, step

VENDOR = templates_dir() / "static" / "vendor"


def test_bundle_registers_the_trace_types_its_list_names() -> None:
    traces = bundled_traces(templates_dir())
    js = gzip.decompress((VENDOR / "plotly-custom.min.js.gz").read_bytes()).decode("utf-8")
    registered = set(re.findall(r'moduleType:"trace",name:"(\w+)"', js))
    assert traces == registered == {"scatter", "bar"}


@pytest.mark.parametrize("case", list(update_gold.CASES))
def test_every_figure_is_drawn_by_the_vendored_bundle(case: str, tmp_path: Path) -> None:
    from reportgen.build import assemble_report

    given = update_gold.CASES[case](tmp_path)
    used = set(assemble_report(given.round_dir, previous=given.previous).figures.trace_types)
    missing = used - bundled_traces(templates_dir())
    assert not missing, (f"{case}: trace type(s) {sorted(missing)} are not in the vendored "
                         "plotly.js; rebuild it with tools/build_plotly.sh PYTHON scatter bar "
                         + " ".join(sorted(missing)))
    assert bundle_for(used, templates_dir()).kind == "custom"


def test_a_missing_trace_type_falls_back_visibly() -> None:
    assert bundle_for({"scatter", "violin"}, templates_dir()).kind == "full"


def test_vendored_bundle_runs_in_steps() -> None:
    """tools/step_plotly.py was applied: the bundle defines its modules and hands them to
    loader.js instead of running them all in one task (the browser tests draw with it)."""
    js = gzip.decompress((VENDOR / "plotly-custom.min.js.gz").read_bytes()).decode("utf-8")
    assert js.count(MARK) == 1 and "var Plotly=(()=>{" not in js
    assert len(re.findall(r"return\{steps:__steps,main:[\w$]+\};\}\)\(\);", js)) == 1
    assert js.count("__steps.push(f)") == 1
    assert js.startswith(HINT) and js.count(HINT) == 1   # compiled eagerly, off the main thread
    assert step(js) == js                       # applying it again changes nothing


ESBUILD = ('/** header */\nvar Plotly=(()=>{var a=1;var Z=(e,t)=>()=>{try{return t||e((t={exports:'
           '{}}).exports,t),t.exports}catch(r){throw t=0,r}};var m=Z(x=>{x.v=1});'
           'var n=Z((x,y)=>{y.exports=m()});return n();})();\n/* licences */\n')


def test_step_rewrites_the_three_spots_and_nothing_else() -> None:
    out = step(ESBUILD)
    assert out == (HINT + '/** header */\nvar __plotlySteps=(()=>{var a=1;var __steps=[],Z=(e,t)=>{'
                   'var f=()=>{try{return t||e((t={exports:{}}).exports,t),t.exports}catch(r)'
                   '{throw t=0,r}};__steps.push(f);return f};var m=Z(x=>{x.v=1});'
                   'var n=Z((x,y)=>{y.exports=m()});return{steps:__steps,main:n};})();\n'
                   '/* licences */\n')
    assert step(out) == out
    assert step(out[len(HINT):]) == out      # a bundle stepped before the hint gets it


@pytest.mark.parametrize("broken", [
    ESBUILD.replace("var Plotly=", "var P="),                      # no head
    ESBUILD.replace("return n();})();", "return n;})();"),         # no final call
    ESBUILD.replace("catch(r){throw t=0,r}", "catch(r){throw r}"),   # another helper
    ESBUILD + ESBUILD,                                             # two of each
])
def test_step_refuses_a_bundle_of_another_shape(broken: str) -> None:
    with pytest.raises(ValueError, match=r"expected shape|out of order"):
        step(broken)


def test_licence_header_is_found_after_the_compile_hint() -> None:
    from reportgen.render import _header

    assert _header(b"/**\n* plotly.js v1\n* MIT\n*/var a") == "plotly.js v1 MIT"
    assert _header(HINT.encode() + b"/**\n* plotly.js v1\n* MIT\n*/var a") == "plotly.js v1 MIT"
    assert _header(HINT.encode() + b"var a") == ""


def test_vendored_bundle_carries_no_attribute_descriptions() -> None:
    """tools/plotly_esbuild.js drops plotly.js's schema text (descriptions, roles) as plotly.js's
    own minified bundles do: the unbuilt sources hold ~590 descriptions; a few written in
    other shapes may stay."""
    js = gzip.decompress((VENDOR / "plotly-custom.min.js.gz").read_bytes()).decode("utf-8")
    assert js.count("description:") <= 40
    assert "Sets the legend background color." not in js
    assert len(js) < 1_000_000
