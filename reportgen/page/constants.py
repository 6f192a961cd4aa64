"""Constants: every constant the analysis used, with where it came from."""

from __future__ import annotations

from reportgen.page.builder import Builder
from reportgen.page.cells import tcell
from reportgen.page.model import Column, PageBlock, Para, Row, Table
from reportgen.text.formatting import exact, fmt

# one precision per unit: sizes in GiB/GB as the memory and byte tables show them; counts and
# bytes whole; anything else at six significant digits
_CONSTANT_SPEC = {"GiB": ".2f", "GB": ".2f"}
_MEMORY_CONSTANT = {"weights": "weights_gib", "kv_pool": "kv_pool_gib",
                    "kv_pool_tokens": "kv_pool_tokens", "measured": "measured_total_mib"}


def constants(b: Builder) -> list[PageBlock]:
    if not b.d.a.constants:
        return []
    rows = []
    for c in b.d.a.constants:
        rows.append(Row([tcell(c.name, "mono"),
                         b.named_cell(_constant_value_name(c.name),
                                      _constant_value(c.value, c.unit)),
                         tcell(c.unit), tcell(c.provenance, "source")]))
    cols = [Column(b.t("constants.col_name")), Column(b.t("constants.col_value"), True),
            Column(b.t("constants.col_unit")), Column(b.t("constants.col_source"))]
    return [Para(b.t("constants.lead")), Table(cols, rows, None, variant="constants")]


def _constant_value(value: object, unit: str) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and unit in _CONSTANT_SPEC:
        return fmt(value, _CONSTANT_SPEC[unit])
    return exact(value)


def _constant_value_name(name: str) -> str:
    """The `values` name a constant feeds (`vllm.memory.measured` → memory.vllm.…)."""
    engine, _, rest = name.partition(".memory.")
    return f"memory.{engine}.{_MEMORY_CONSTANT[rest]}" if rest in _MEMORY_CONSTANT else ""

