"""The previous round a report compares itself with ("Since the previous round").

A baseline comes from one of three places, and all three end as the same ``Baseline`` record:

- a round folder: built and analysed like any round, then turned into the ``reportgen.tables``
  dict the page embeds (through JSON, so it equals what a report of that round carries);
- a report.html built by reportgen: its embedded ``report-data`` block (no raw files needed);
- a folder holding only ``baseline.toml``: the few headline figures an old round ever
  published, marked "as published" with a source note. Nothing else is invented: no curves.

``compare`` puts a baseline beside this round's analysis: setup rows that differ, headline
figures with deltas, and the ``baseline.*`` / ``since.*`` names narrative files can use. The
records and ``compare`` are pure and live below the page, in reportgen.analyze.compare
(imported from there); this module opens the files. reportgen.page.since turns a comparison into
page blocks and figures.overlays the baseline into dashed overlays.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pandas as pd

from reportgen.analyze.compare import (
    CURVE_COLUMNS,
    Baseline,
    Source,
    Value,
    engine_ids,
    is_text,
    known_value,
)
from reportgen.errors import InputError
from reportgen.files import embedded
from reportgen.files.safe_read import read_input
from reportgen.load.manifest import locate
from reportgen.sources import diff
from reportgen.text.bilingual import Bi

BASELINE_TOML = "baseline.toml"
FLOAT_MAX = 1.7976931348623157e308
__all__ = ["BASELINE_TOML", "from_published", "load_baseline", "open_baseline", "tables_from_round"]


def open_baseline(path: Path) -> Source:
    """A round folder, a folder with baseline.toml, a report.html (or round.toml /
    baseline.toml itself). Bad content raises InputError naming the file."""
    path = Path(path)
    if path.is_dir():
        if (path / BASELINE_TOML).is_file():
            return Source(published=from_published(path / BASELINE_TOML))
        return Source(tables=tables_from_round(path))
    if path.name == BASELINE_TOML:
        return Source(published=from_published(path))
    if path.name == "round.toml":
        return Source(tables=tables_from_round(path.parent))
    if not path.exists():
        raise InputError(path, "baseline not found (expected a round folder, a report.html or "
                               "a folder with baseline.toml)")
    return Source(tables=diff.tables_from_html(path))


def load_baseline(path: Path, workload: str | None = None) -> Baseline:
    return open_baseline(path).for_workload(workload)


def tables_from_round(path: Path) -> dict[str, object]:
    """The tables dict a report of this round embeds, through JSON exactly as the page does."""
    data = json.loads(json.dumps(diff.tables_from_round(path), ensure_ascii=False))
    return data if isinstance(data, dict) else {}


def from_published(path: Path) -> Baseline:
    """``baseline.toml``: headline figures of a round whose raw files are gone, as published.

    ```
    [baseline]
    title = { zh = "…", en = "…" }          # required
    date = "2025-…"                          # optional
    source = { zh = "…", en = "…" }          # required: where the figures were printed
    [engines.<id>]
    label = "…"                              # optional
    [values]                                 # names as `reportgen values` lists them
    "crossover.concurrency" = 21
    "engines.llamacpp.prompt_cache_hit_frac" = { value = 0.23, note = { zh = "…", en = "…" } }
    ```
    """
    shown = path
    raw = read_input(path, shown, "baseline.toml")   # the checks every input gets
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError(shown, f"not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(shown, f"invalid TOML: {exc}") from None
    except RecursionError:  # the same guard round.toml has
        raise InputError(shown, "invalid TOML: arrays or tables nested too deeply") from None
    except ValueError:  # an integer longer than Python's 4,300-digit limit
        raise InputError(shown, "invalid TOML: an integer of more than 4,300 digits") from None
    if embedded.too_deep(data):
        raise InputError(shown, f"nested more than {embedded.MAX_DEPTH} levels deep")

    def fail(where: str, message: str) -> InputError:
        quoted = next((i + 1 for i, line in enumerate(text.splitlines())
                       if line.lstrip().startswith((f'"{where}"', f"'{where}'"))), None)
        return InputError(shown, message, quoted or locate(text, where))

    unknown = set(data) - {"baseline", "engines", "values"}
    if unknown:
        key = sorted(unknown)[0]
        raise fail(key, f"unknown table [{key}] (expected [baseline], [engines.<id>], [values])")
    head = data.get("baseline")
    if not isinstance(head, dict):
        raise InputError(shown, "missing [baseline] table (title, source)")
    for key in set(head) - {"title", "date", "source"}:
        raise fail(f"baseline.{key}", f"unknown key '{key}' in [baseline]")
    for key in ("title", "source"):
        if not is_text(head.get(key)):
            raise fail(f"baseline.{key}", f"[baseline] {key}: expected text or {{ zh, en }}")
    engines_raw = data.get("engines", {})
    if not isinstance(engines_raw, dict):
        raise fail("engines", "[engines.<id>]: expected tables")
    labels: dict[str, Bi] = {}
    for eid, spec in engines_raw.items():
        if not isinstance(spec, dict) or set(spec) - {"label"} or \
                ("label" in spec and not is_text(spec["label"])):
            raise fail(f"engines.{eid}", f"[engines.{eid}]: expected only label = text")
        labels[eid] = Bi.read(spec.get("label"), eid)
    raw_values = data.get("values", {})
    if not isinstance(raw_values, dict) or not raw_values:
        raise fail("values", "[values]: expected at least one published figure")
    engines = list(dict.fromkeys(list(labels) + engine_ids(raw_values)))
    allowed = known_value(dict.fromkeys(raw_values, 0), engines)
    values: dict[str, Value] = {}
    notes: dict[str, Bi] = {}
    for name, raw in raw_values.items():
        if name not in allowed:
            raise fail(name, f"[values] '{name}': not a figure the comparison shows (one of "
                             "the names in reportgen/sources/baseline.py SETUP / FIGURES)")
        if isinstance(raw, dict):
            if set(raw) - {"value", "note"} or "value" not in raw:
                raise fail(name, f"[values] '{name}': expected a value or {{ value, note }}")
            if "note" in raw:
                if not is_text(raw["note"]):
                    raise fail(name, f"[values] '{name}': note must be text or {{ zh, en }}")
                notes[name] = Bi.read(raw["note"])
            raw = raw["value"]
        if isinstance(raw, bool) or not isinstance(raw, int | float | str) or \
                (isinstance(raw, float) and not math.isfinite(raw)):
            raise fail(name, f"[values] '{name}': expected a number or text")
        if isinstance(raw, int) and abs(raw) > FLOAT_MAX:
            raise fail(name, f"[values] '{name}': an integer beyond float range")
        values[name] = raw
    for eid in engines:
        labels.setdefault(eid, Bi.plain(eid))
    date = head.get("date", "")
    return Baseline(
        title=Bi.read(head["title"]), date=str(date), as_published=True,
        source=Bi.read(head["source"]), values=values, notes=notes, labels=labels,
        tiers=pd.DataFrame({c: pd.Series(dtype=bool if c == "excluded" else
                                         object if c == "engine" else float)
                            for c in CURVE_COLUMNS}))
