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

from reportgen.render import bundle_for, bundled_traces
from reportgen.resources import templates_dir
from tools import update_gold

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
