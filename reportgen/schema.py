"""The tables schema, declared once: its name and history, and every table it holds.

One ``TableSpec`` line feeds every place that lists tables:
- the export (``tables.py``: JSON, CSV, one CSV file per table, markdown) and the page's data
  block (``tables.to_json_dict``): which tables, in which order, their count columns and
  bilingual columns;
- the checked reader of a report or tables JSON read back (``embedded.py``): the type of each
  key column, which tables are refused when malformed and which are dropped;
- ``reportgen diff`` (``analyze/changes.py``): how a row is identified, so that every table's
  cells are compared.

Consumers call the functions below when they run (never copy the tuples at import), so a
declaration added to ``TABLE_SPECS`` is the whole of the wiring (docs/CONTRIBUTING.md, "Add a
table"); tests/test_table_spec.py checks that a new line reaches the export and ``diff``.

Version 2 renamed the crossover table's ratios. Version 1 called them ``ratio_lower`` /
``ratio_upper``, like the headline values ``crossover.ratio_lower`` / ``crossover.ratio_upper``,
although the table's hold engine_a ÷ engine_b (manifest order) and the headline's pair.a ÷ pair.b
(the pair ahead at the lowest tier first): for the sample round one is the other's reciprocal.
"""

from __future__ import annotations

from dataclasses import dataclass

# The tables as plain data (``tables.to_json_dict``): what the page's data block, the tables
# JSON and ``diff`` carry between stages
Json = dict[str, "Json"] | list["Json"] | str | int | float | bool | None
JsonObject = dict[str, Json]


# the name of a point on the round's axis in the named values (``tiers.<engine>.c32.<column>``)
def tier_key(concurrency: float) -> str:
    """`c<value>` for a point on the round's axis: `c32`, `c0_5` (a rate of 0.5 req/s),
    `cinf` (every request sent at once)."""
    value = float(concurrency)
    if value == float("inf"):
        return "cinf"
    if value.is_integer():
        return f"c{int(value)}"
    return "c" + f"{value:g}".replace(".", "_")


SCHEMA = "reportgen.tables/2"
READABLE = (SCHEMA, "reportgen.tables/1")
# table → {analysis column: exported name}; also how a version-1 file is read as version 2
RENAMED = {"crossovers": {"ratio_lower": "a_over_b_at_lower",
                          "ratio_upper": "a_over_b_at_upper"}}

# where a table's rows come from
WORKLOAD = "workload"  # an ``Analysis`` frame of that name, stacked over the workloads (a
#                        ``workload`` column first with several); a rate sweep's tier split
ROUND = "round"        # the whole round's (``RoundAnalysis``: runs, skipped, inferred)
NAMED = "named"        # the named values and constants, each written in its own form
# the key columns that are a tier (shown ``C=8`` / ``2 req/s`` in diff)
POINT_KEYS = frozenset({"concurrency", "lower_tier"})


@dataclass(frozen=True)
class TableSpec:
    """One table of the export, the data block and ``diff``."""

    name: str
    keys: tuple[str, ...]             # row identity: diff matches a row's cells by these
    numbers: tuple[str, ...] = ()     # the keys that are numbers (the rest are text)
    source: str = WORKLOAD            # WORKLOAD, ROUND or NAMED (above)
    # present only when the round has it (an SLO, per-request arrays, samples, --load …):
    # absent from the export rather than empty, and dropped, not refused, when malformed on
    # reading back
    optional: bool = False
    counts: frozenset[str] = frozenset()  # whole-number columns: JSON integers, CSV Int64
    texts: tuple[str, ...] = ()       # bilingual (``Bi``) columns: ``x: {zh, en}`` in JSON
    slo: bool = False                 # said only where an SLO is asked for


def _t(name: str, *keys: str, numbers: tuple[str, ...] = (), source: str = WORKLOAD,
       optional: bool = False, counts: str = "", texts: tuple[str, ...] = (),
       slo: bool = False) -> TableSpec:
    return TableSpec(name, keys, numbers, source, optional, frozenset(counts.split()), texts,
                     slo)


_TIER = ("concurrency",)
# in export order (CSV blocks and files, markdown sections); a new table goes at the end.
# The tier metrics' own counts are added to the tiers' (``analyze/tier_metrics.py``).
TABLE_SPECS: list[TableSpec] = [
    _t("tiers", "engine", "concurrency", numbers=_TIER,
       counts="concurrency repeats requests_per_run failed_min failed_max"),
    _t("engines", "id", counts="c1 cmax kv_bytes_per_token weight_bytes_per_step step_bytes_c1",
       texts=("label",)),
    _t("crossovers", "engine_a", "engine_b", "lower_tier", numbers=("lower_tier",),
       counts="concurrency lower_tier upper_tier"),
    _t("graph_reuse", "engine", "concurrency", numbers=_TIER,
       counts="concurrency print_timing_lines expected_lines decode_steps graphs_reused_delta "
              "generated_tokens"),
    _t("memory", "engine", counts="kv_pool_tokens"),
    _t("prefill", "engine", "concurrency", numbers=_TIER, counts="concurrency server_samples"),
    _t("checks", "id", "engine", "concurrency", numbers=_TIER, counts="concurrency",
       texts=("message",)),
    _t("values", "key", source=NAMED),
    _t("constants", "name", source=NAMED),
    _t("runs", "engine", "concurrency", "request_rate", "repeat",
       numbers=("concurrency", "repeat"), source=ROUND, optional=True,
       counts="concurrency completed failed repeat"),
    _t("skipped", "file", source=ROUND),
    _t("inferred", "key", source=ROUND),
    _t("distributions", "engine", "concurrency", "metric", numbers=_TIER, optional=True,
       counts="concurrency count"),
    _t("goodput", "engine", "concurrency", numbers=_TIER, optional=True,
       counts="concurrency requests_sent requests_good runs"),
    _t("capacity_at_slo", "engine", optional=True,
       counts="lower_tier upper_tier undecided_tier gpus"),
    _t("no_per_request", "engine", optional=True, texts=("why",), slo=True),
    _t("load", "engine", optional=True, counts="replicas gpus_per_replica gpus"),
    _t("telemetry", "engine", "concurrency", numbers=_TIER, optional=True,
       counts="concurrency runs gpus samples preemptions"),
    _t("same_speed", "engine", "tok_s_per_user", numbers=("tok_s_per_user",), optional=True,
       counts="lower_tier upper_tier"),
    _t("cost", "engine", "concurrency", numbers=_TIER, optional=True,
       counts="concurrency gpus requests_completed requests_good output_tokens total_tokens "
              "good_output_tokens good_total_tokens"),
]
# the JSON (the data block, the ``tables`` JSON) has opened with the engines since version 1,
# which every other table names
JSON_FIRST = "engines"


def specs() -> tuple[TableSpec, ...]:
    return tuple(TABLE_SPECS)


def spec(name: str) -> TableSpec | None:
    return next((s for s in TABLE_SPECS if s.name == name), None)


def export_order() -> tuple[str, ...]:
    """Every table's name in CSV / markdown order."""
    return tuple(s.name for s in TABLE_SPECS)


def json_order() -> tuple[str, ...]:
    """Every table's name in the JSON's order."""
    return (JSON_FIRST, *(n for n in export_order() if n != JSON_FIRST))


def row_keys() -> dict[str, tuple[str, ...]]:
    """Table → the columns identifying a row, for every table of rows (``values`` is a dict)."""
    return {s.name: s.keys for s in TABLE_SPECS if s.name != "values"}


def required() -> tuple[str, ...]:
    """The tables every analysis has: a malformed one is refused on reading back (the others
    are dropped, as they always were)."""
    return tuple(s.name for s in TABLE_SPECS if s.source == WORKLOAD and not s.optional)


def number_keys(table: str) -> frozenset[str]:
    found = spec(table)
    return frozenset(found.numbers) if found is not None else frozenset()


def bilingual() -> dict[str, tuple[str, ...]]:
    """Table → its bilingual columns."""
    return {s.name: s.texts for s in TABLE_SPECS if s.texts}
