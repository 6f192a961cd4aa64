"""Analysis → machine-readable tables (SPEC §3): JSON, CSV, markdown.

JSON (`reportgen.tables/2`, see schema.py): top-level `schema`, `round`, `engines`, `tiers`,
`crossovers` (`a_over_b_at_lower`/`_upper`: engine_a ÷ engine_b output tok/s at the tiers either
side; version 1 called them `ratio_lower`/`ratio_upper`),
`graph_reuse`, `memory`, `prefill`, `checks`, plus `values` (the dotted figures, sorted by name)
and `constants` (name, value, unit, provenance {zh, en}). Rows keep their meaningful order
(manifest engine order, ascending concurrency); a Bi column (a table spec's `texts`, schema.py)
becomes `x: {zh, en}`; NaN/±inf → null; counts are integers. Which tables, in which order:
schema.py's ``TABLE_SPECS`` (the JSON opens with `engines`, CSV and markdown with `tiers`).

The ``tables`` command (``to_json``, ``to_csv``, ``csv_tables``, ``to_markdown``) puts a rate
sweep's tier under ``request_rate`` (``"inf"`` when unbounded) beside an empty ``concurrency``;
``to_json_dict`` (the page's data block, what ``diff`` and baselines read) keeps it in
``concurrency`` (``embedded.joined_axis`` reads the command's form back the same way).

CSV: one file per table (``csv_tables``: ``-o DIR/``), or, to stdout, one block per table, each
introduced by a line `# <name>` and followed by a blank line:
tiers first, then engines, crossovers, graph_reuse, memory, prefill, checks, values (key,value),
constants. Numbers are written at full precision, missing values as empty fields.

Markdown: one `## <name>` section and one pipe table per table; `values` is split by its first
name segment (`## values: crossover`, …). Numbers read as in the terminal
(formatting.plain): whole numbers without `.0`, never scientific notation.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.analyze import tier_metrics
from reportgen.analyze.result import Analysis, RoundAnalysis
from reportgen.analyze.round_facts import RoundInfo
from reportgen.schema import RENAMED, SCHEMA, JsonObject
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import MISSING, plain

# Which tables, in which order, their count and bilingual columns: reportgen/schema.py's
# ``TABLE_SPECS``, read when the export runs. Optional tables are present only when some
# workload has them: per-request percentiles (a round with per-request arrays), goodput and
# capacity (an SLO given: --slo, round.toml [slo], --goodput in results), telemetry
# (nvidia-smi samples covering the runs), same_speed (tok/s per GPU at fixed per-user speeds,
# analyze/pareto.py), load (--load), cost ($ per 1M tokens: an SLO and
# a price given).


def _plain(value: Any, integer: bool = False) -> Any:
    """A JSON-safe Python value: NaN/inf → None, numpy → builtin, {zh, en} kept."""
    # Plain floats and strings first: nearly every cell is one (and the checks below are
    # the cost of a table of many configurations); both shortcuts give what the chain would.
    if type(value) is float:
        if not math.isfinite(value):
            return None
        return int(value) if integer and value.is_integer() else value
    if type(value) is str:
        return value
    if value is None:
        return None
    if isinstance(value, Bi):
        return value.as_dict()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        if not math.isfinite(f):
            return None
        return int(f) if integer and f.is_integer() else f
    if isinstance(value, str):
        return value
    if pd.isna(value):
        return None
    return str(value)


def int_columns(table: str) -> frozenset[str]:
    """The table's count columns (the tier metrics' counts among the tiers')."""
    found = schema.spec(table)
    counts = found.counts if found is not None else frozenset()
    return counts | tier_metrics.counts() if table == "tiers" else counts


def flat_texts(frame: pd.DataFrame, texts: tuple[str, ...]) -> pd.DataFrame:
    """The ``Bi`` columns ``texts`` as the export's pairs ``x_zh`` / ``x_en`` in their place
    (JSON then writes ``x: {zh, en}``): the one spot where a ``Bi`` becomes per-language
    columns."""
    if not any(c in frame.columns for c in texts):
        return frame
    out: dict[str, object] = {}
    for column in frame.columns:
        if column in texts:
            for lang in LANGS:
                out[f"{column}_{lang}"] = [v.get(lang) if isinstance(v, Bi) else v
                                           for v in frame[column]]
        else:
            out[column] = frame[column]
    return pd.DataFrame(out, index=frame.index)


UNBOUNDED = "inf"   # an unbounded request rate in the export: a stated value, never null


def _rate(value: Any) -> Any:
    """A ``request_rate`` cell: inf as ``"inf"``, else as any number."""
    if isinstance(value, float | np.floating) and math.isinf(value) and value > 0:
        return UNBOUNDED
    return _plain(value)


def _records(frame: pd.DataFrame, table: str) -> list[dict[str, Any]]:
    columns = list(frame.columns)
    counts = int_columns(table)
    paired = {c[:-3] for c in columns if c.endswith("_zh") and f"{c[:-3]}_en" in columns}
    out = []
    for row in frame.itertuples(index=False, name=None):
        record: dict[str, Any] = {}
        for column, value in zip(columns, row, strict=True):
            stem = column[:-3]
            if stem in paired and column.endswith(("_zh", "_en")):
                record.setdefault(stem, {})[column[-2:]] = _plain(value)
            elif column == "request_rate":
                record[column] = _rate(value)
            else:
                record[column] = _plain(value, column in counts)
        out.append(record)
    return out


def _many(ra: RoundAnalysis) -> bool:
    return len(ra.parts) > 1


def split_axis(frame: pd.DataFrame, axis: str) -> pd.DataFrame:
    """On a request-rate sweep, the tier key (the analysis keeps it in ``concurrency``) as
    ``request_rate`` beside an empty ``concurrency``: each column holds its own quantity only.
    An unbounded rate stays inf (written ``"inf"``)."""
    if axis != "request_rate" or "concurrency" not in frame.columns \
            or "request_rate" in frame.columns:
        return frame
    out = frame.copy()
    out.insert(list(out.columns).index("concurrency") + 1, "request_rate",
               pd.to_numeric(out["concurrency"], errors="coerce").astype(float))
    out["concurrency"] = np.nan
    return out


def frames(ra: RoundAnalysis, axis_columns: bool = False) -> dict[str, pd.DataFrame]:
    """Every table of rows the schema declares (``schema.TABLE_SPECS``), in export order: the
    per-workload tables stacked (a ``workload`` column first when the round has several; an
    optional one only when some workload has rows), then the round's (the runs used, the files
    skipped, the settings inferred). ``axis_columns`` (the ``tables`` command): a rate
    sweep's tier key under ``request_rate`` (``split_axis``); the page's data block keeps it
    in ``concurrency``, where ``diff`` and baselines read it. The named values and constants
    are written in their own forms (``to_json_dict``, ``_named_frames``)."""
    out: dict[str, pd.DataFrame] = {}

    def own(part: Analysis, frame: pd.DataFrame) -> pd.DataFrame:
        return split_axis(frame, part.round.axis) if axis_columns else frame

    for spec in schema.specs():
        if spec.source == schema.WORKLOAD:
            # an optional table only where it is asked for (no_per_request: with an SLO)
            parts = [_with_workload(ra, p, own(p, getattr(p, spec.name))) for p in ra.parts
                     if not spec.optional or (len(getattr(p, spec.name))
                                              and (not spec.slo or p.slo is not None))]
            if parts:
                out[spec.name] = parts[0] if len(parts) == 1 else \
                    pd.concat(parts, ignore_index=True)
        elif spec.source == schema.ROUND and (frame := _round_frame(ra, spec.name)) is not None:
            out[spec.name] = frame
    for name, columns in RENAMED.items():
        out[name] = out[name].rename(columns=columns)
    if renamed := tier_metrics.exported_names():
        out["tiers"] = out["tiers"].rename(columns=renamed)
    for name, texts in schema.bilingual().items():
        if name in out:
            out[name] = flat_texts(out[name], texts)
    return out


def _round_frame(ra: RoundAnalysis, name: str) -> pd.DataFrame | None:
    """A whole-round table (None: the round has none, as an analysis of one workload)."""
    if name == "skipped":
        return pd.DataFrame(ra.skipped, columns=["file", "reason"])
    if name == "inferred":
        return pd.DataFrame([(i.key, i.value, i.source) for i in ra.inferred],
                            columns=["key", "value", "source"])
    frame = getattr(ra, name)
    return frame if isinstance(frame, pd.DataFrame) else None


def _with_workload(ra: RoundAnalysis, part: Analysis, frame: pd.DataFrame) -> pd.DataFrame:
    if not _many(ra):
        return frame
    return frame.assign(workload=_workload_id(part))[
        ["workload", *frame.columns]]


def slo_info(ra: RoundAnalysis) -> dict[str, Any] | None:
    """The objective the goodput tables use (the same for every workload), or None."""
    slo = ra.first.slo
    if slo is None:
        return None
    return {"ttft_ms": slo.ttft_ms, "tpot_ms": slo.tpot_ms, "e2el_ms": slo.e2el_ms,
            "target": slo.target, "source": slo.source,
            "rule": "good = succeeded and every given threshold met inclusively (<=); "
                    "attainment = good / sent; goodput_rps = good / summed run duration",
            "percentiles": "numpy linear interpolation; ITL pooled over every chunk gap"}


def _workload_id(part: Analysis) -> str:
    return part.round.workload.id if part.round.workload is not None else ""


def _json_of(value: object) -> object:
    """A round record as the JSON it is written as: its fields in order, bilingual text as
    ``{zh, en}``, tuples as lists (numbers and NaN are left to ``_plain``)."""
    if isinstance(value, Bi):
        return value.as_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json_of(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _json_of(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_json_of(v) for v in value]
    return value


def round_json(info: RoundInfo) -> dict[str, Any]:
    """The tables JSON's ``round`` object of one workload (before ``_plain``); ``workload``
    only when the analysis holds one of the round's workloads."""
    return {f.name: _json_of(getattr(info, f.name)) for f in dataclasses.fields(info)
            if f.name != "workload" or info.workload is not None}


ROUND_COUNTS = ("requests_total", "completed_total", "failed_total")


def round_info(ra: RoundAnalysis) -> dict[str, Any]:
    """The round object: the first workload's facts, with counts summed over every workload
    (a round's totals count every run, whichever workload it ran); None where one is
    unknown."""
    info = round_json(ra.first.round)
    if _many(ra):
        info["workloads"] = [_json_of(p.round.workload) for p in ra.parts]
        for key in ROUND_COUNTS:
            counts = [getattr(p.round, key) for p in ra.parts]
            info[key] = None if any(c is None for c in counts) else sum(counts)
        # each configuration's requests over every workload: the same for all only when each
        # workload's is and every workload ran every configuration
        per_engine = [p.round.requests_per_engine for p in ra.parts]
        engines = {tuple(sorted(e.id for e in p.round.engines)) for p in ra.parts}
        info["requests_per_engine"] = sum(n for n in per_engine if n is not None) \
            if None not in per_engine and len(engines) == 1 else None
    return info


def all_values(ra: RoundAnalysis) -> dict[str, Any]:
    """Every named figure; with several workloads each name is prefixed ``<workload>/``."""
    if not _many(ra):
        return dict(ra.first.values)
    return {f"{_workload_id(p)}/{k}": v for p in ra.parts for k, v in p.values.items()}


def all_constants(ra: RoundAnalysis) -> list[Any]:
    seen: dict[tuple[str, str], Any] = {}
    for part in ra.parts:
        for c in part.constants:
            seen.setdefault((c.name, str(c.value)), c)
    return list(seen.values())


def _as_round(ra: RoundAnalysis | Analysis) -> RoundAnalysis:
    if isinstance(ra, Analysis):
        return RoundAnalysis(parts=[ra], runs=None, axis=ra.round.axis)
    return ra


def to_json_dict(ra: RoundAnalysis | Analysis, axis_columns: bool = False) -> JsonObject:
    """The tables as plain data; ``axis_columns``: as the ``tables`` command writes them (see
    ``frames``)."""
    ra = _as_round(ra)
    data: dict[str, Any] = {"schema": SCHEMA, "round": _plain(round_info(ra))}
    tables = frames(ra, axis_columns)
    for name in schema.json_order():
        if name == "values":
            values = all_values(ra)
            data["values"] = {k: _plain(values[k]) for k in sorted(values)}
        elif name == "constants":
            data["constants"] = [
                {"name": c.name, "value": _plain(c.value), "unit": c.unit,
                 "provenance": c.provenance.as_dict()}
                for c in all_constants(ra)
            ]
        elif name in tables:
            data[name] = _records(tables[name], name)
    if (slo := slo_info(ra)) is not None:
        data["slo"] = _plain(slo)
    return data


def to_json(ra: RoundAnalysis | Analysis) -> str:
    """Deterministic JSON text (same analysis → same bytes), as the ``tables`` command
    writes it (a rate sweep's tiers under ``request_rate``)."""
    return json.dumps(to_json_dict(ra, axis_columns=True), ensure_ascii=False, indent=1,
                      allow_nan=False) + "\n"


def _named_frames(ra: RoundAnalysis) -> dict[str, pd.DataFrame]:
    """The named values (key, value) and the constants as tables of rows."""
    named = all_values(ra)
    values = pd.DataFrame(
        [(k, _cell(named[k])) for k in sorted(named)], columns=["key", "value"])
    constants = pd.DataFrame(
        [(c.name, _cell(c.value), c.unit, c.provenance.zh, c.provenance.en)
         for c in all_constants(ra)],
        columns=["name", "value", "unit", "provenance_zh", "provenance_en"])
    return {"values": values, "constants": constants}


def _export_frames(ra: RoundAnalysis) -> dict[str, pd.DataFrame]:
    """Every table as rows, in export order (the ``tables`` command's CSV and markdown)."""
    tables = frames(ra, axis_columns=True) | _named_frames(ra)
    return {n: tables[n] for n in schema.export_order() if n in tables}


def _cell(value: Any) -> Any:
    """A value for one CSV/markdown cell: bilingual text as 'zh / en', missing as NaN."""
    if isinstance(value, Bi):
        return f"{value.zh} / {value.en}"
    return math.nan if value is None else value


def _whole_counts(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """Count columns as nullable integers when every value is whole (``40`` not ``40.0``)."""
    out = frame.copy()
    for column in int_columns(table) & set(out.columns):
        values = pd.to_numeric(out[column], errors="coerce")
        finite = values.dropna()
        if len(finite) and np.isfinite(finite).all() and (finite == finite.round()).all():
            out[column] = values.astype("Int64")
    return out


# what a spreadsheet takes for the start of a formula (OWASP, "CSV injection"): a text cell
# starting with one of these gets a leading apostrophe, so it is shown as the text it is
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutral_text(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs: text starting like a formula gets a leading
    ``'`` (a configuration named ``=cmd|' /C calc'!A0`` stays text); numbers unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _neutral(frame: pd.DataFrame) -> pd.DataFrame:
    text = [c for c in frame.columns
            if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]
    if not text:
        return frame
    out = frame.copy()
    for column in text:
        out[column] = out[column].map(neutral_text)
    out.columns = [neutral_text(str(c)) for c in out.columns]
    return out


def csv_tables(ra: RoundAnalysis | Analysis) -> dict[str, str]:
    """Every table as its own CSV text, in CSV order (``tables --format csv -o DIR`` writes
    each as ``DIR/<name>.csv``)."""
    out = {}
    for name, frame in _export_frames(_as_round(ra)).items():
        text = io.StringIO()
        _neutral(_whole_counts(frame, name)).to_csv(text, index=False, lineterminator="\n")
        out[name] = text.getvalue()
    return out


def to_csv(ra: RoundAnalysis | Analysis) -> str:
    """Every table in one text, each block introduced by ``# <name>`` (stdout, ``-o x.csv``)."""
    return "".join(f"# {name}\n{text}\n" for name, text in csv_tables(ra).items())


AXIS_COLUMNS = frozenset({"concurrency", "lower_tier", "upper_tier", "undecided_tier"})


def _fmt(value: Any, column: str) -> str:
    if column == "request_rate" and _rate(value) == UNBOUNDED:
        return UNBOUNDED
    if value is None or (isinstance(value, float | np.floating) and not math.isfinite(value)):
        return MISSING
    if isinstance(value, bool | np.bool_ | int | np.integer | float | np.floating):
        text = plain(value.item() if isinstance(value, np.generic) else value)
        return text.replace(",", "") if column in AXIS_COLUMNS else text
    return str(value).replace("|", "\\|").replace("\n", " ")


def _markdown_table(frame: pd.DataFrame) -> str:
    columns = list(frame.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame.itertuples(index=False, name=None):
        cells = [_fmt(v, c) for c, v in zip(columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _markdown_sections(ra: RoundAnalysis) -> dict[str, pd.DataFrame]:
    """Every table under its heading; the values, one table per first name segment."""
    out: dict[str, pd.DataFrame] = {}
    for name, frame in _export_frames(ra).items():
        if name != "values":
            out[name] = frame
            continue
        out |= _value_sections(frame)
    return out


def _value_sections(values: pd.DataFrame) -> dict[str, pd.DataFrame]:
    out = {}
    stem = values["key"].str.split("/").str[-1].str.split(".").str[0]
    prefix = values["key"].str.rpartition("/")[0]
    groups = (prefix.where(prefix == "", prefix + "/") + stem) if len(values) else stem
    for group in dict.fromkeys(groups):
        out[f"values: {group}"] = values[groups == group].reset_index(drop=True)
    return out


def to_markdown(ra: RoundAnalysis | Analysis) -> str:
    ra = _as_round(ra)
    title = ra.first.round.title
    heading = title.en if title is not None else ""
    parts = [f"# {heading or 'reportgen tables'}", ""]
    for name, frame in _markdown_sections(ra).items():
        parts += [f"## {name}", "", _markdown_table(frame) if len(frame) else "(none)", ""]
    return "\n".join(parts)
