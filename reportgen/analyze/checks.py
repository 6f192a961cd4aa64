"""Self-checks: ``Check`` records of (id, status, engine, concurrency, value) and a message
id with its parameters; the text lives in templates/i18n/analysis.toml, filled once by
``checks_frame`` into the checks table's ``message`` (a ``Bi``; the tables export writes it as
``{zh, en}``).

Status rules (documented in docs/ARCHITECTURE.md):
- fail: a figure the report shows would be wrong or meaningless (no completed request in a tier,
  summary keys contradicting the per-request arrays, an identity off by more than 25 %, which
  means mixed units or a corrupt file). `reportgen check` exits 1 on any fail.
- warn: the data is shown honestly but a reader must know (failed requests — they are counted
  and throughput only uses completed tokens —, throughput dropping as concurrency rises,
  output-token parity broken, excluded tiers, log segments not matching the requests, hot GPU).
- pass: the check ran and found nothing; one row per engine rather than one per tier.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.analyze import claims
from reportgen.errors import Finding
from reportgen.files.resources import templates_dir
from reportgen.frames import ByEngine
from reportgen.load.formats import NotRecomputable
from reportgen.text.bilingual import Bi, Strings, load_strings
from reportgen.text.formatting import tier_label

CHECK_COLUMNS = ("id", "status", "engine", "concurrency", "value", "message")

# E2EL = TTFT + (n − 1)·TPOT holds exactly per request (TPOT's definition). Averaged over
# requests it gives mean(E2EL) = mean(TTFT) + mean((n − 1)·TPOT), which is mean(TTFT) +
# (n − 1)·mean(TPOT) only when every request produced the same n: so the test runs on means
# (1 %, rounding) where n is provably constant. No identity ties medians (the median of a sum is
# not the sum of medians: InferenceX's fixed 128-token runs are 5 % off either way), nor means
# when n varies (a few early-stopped requests with a huge per-request TPOT lift mean TPOT without
# moving E2EL): those tiers are not tested, and the check says why.
IDENTITY_TOL_MEAN = 0.01
IDENTITY_FAIL = 0.25
# vLLM writes the summary from the same arrays at full float precision; anything beyond
# rounding noise is a real disagreement.
ARRAYS_REL_TOL = 1e-3
ARRAYS_ABS_TOL_MS = 1e-3
# NVIDIA consumer and datacenter parts start slowing their clocks in the mid-80s °C.
TEMPERATURE_WARN_C = 85.0


@dataclass(frozen=True)
class Check:
    """One self-check result. Its message is ``[checks.<id>.<message>]`` of the analysis
    string table, filled with ``params``."""

    id: str
    status: str  # pass | warn | fail
    message: str
    params: Mapping[str, Any] = field(default_factory=dict)
    engine: str | None = None
    concurrency: float = math.nan
    value: float = math.nan

    @property
    def key(self) -> str:
        return f"checks.{self.id}.{self.message}"


def check(id: str, status: str, message: str, params: Mapping[str, Any] | None = None,
          engine: str | None = None, concurrency: float = np.nan,
          value: float = np.nan) -> Check:
    assert status in ("pass", "warn", "fail"), status
    return Check(id, status, message, dict(params or {}), engine, float(concurrency),
                 float(value))


def strings() -> Strings:
    """The analysis string table (templates/i18n/analysis.toml)."""
    return load_strings(templates_dir() / "i18n" / "analysis.toml")


def _n(value: float) -> str:
    return f"{int(value)}" if np.isfinite(value) else "?"


def checks_frame(rows: Sequence[Check], axis: str = "concurrency") -> pd.DataFrame:
    """The checks table, each message rendered in both languages from the string table."""
    table = strings()
    specials = {"tier": lambda v: tier_label(v, axis), "n": _n}
    records = []
    for r in rows:
        # a rate sweep's own wording ("rate step", not "concurrency step") where it differs
        key = f"{r.key}_rate" if axis == "request_rate" and f"{r.key}_rate" in table else r.key
        text = table.bi(key, specials, **r.params)
        records.append({"id": r.id, "status": r.status, "engine": r.engine,
                        "concurrency": r.concurrency, "value": r.value,
                        "message": text})
    frame = pd.DataFrame(records, columns=list(CHECK_COLUMNS))
    frame["engine"] = frame["engine"].astype(object)
    return frame


def _step_noise(prev: Mapping[Any, Any], cur: Mapping[Any, Any]) -> float:
    """The noise a step between two tiers is judged under (``analyze.claims``)."""
    return claims.noise(*(claims.spread(
        float(r["output_tok_s"]), float(r.get("output_tok_s_min", np.nan)),
        float(r.get("output_tok_s_max", np.nan)), float(r.get("repeats", np.nan)))
        for r in (prev, cur)))


Record = dict[Hashable, Any]   # one row of a frame, as ``to_dict('records')`` gives it


def throughput_steps(own: pd.DataFrame) -> list[tuple[Record, Record, str, float]]:
    """Each step between consecutive tiers with a throughput of one engine's rows ``own``:
    (previous tier, tier, "up" / "flat" / "down", the noise it was judged under)."""
    columns = [c for c in ("concurrency", "output_tok_s", "output_tok_s_min",
                           "output_tok_s_max", "repeats") if c in own.columns]
    pts = own[columns].sort_values("concurrency")
    measured = pts[np.isfinite(pts["output_tok_s"].astype(float))].to_dict("records")
    out = []
    for prev, cur in itertools.pairwise(measured):
        frac = _step_noise(prev, cur)
        [step] = claims.steps([prev["output_tok_s"], cur["output_tok_s"]], frac)
        out.append((prev, cur, step, frac))
    return out


def throughput_drops(own: pd.DataFrame) -> tuple[list[tuple[Record, Record]], int]:
    """(previous tier, tier) pairs where output throughput falls beyond the noise as the
    tier rises, and how many tiers with a throughput there are, among one engine's rows."""
    steps = throughput_steps(own)
    measured = len(steps) + 1 if steps else int(
        np.isfinite(own["output_tok_s"].astype(float)).sum())
    return [(p, c) for p, c, step, _ in steps if step == "down"], measured


def monotonic_throughput(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[Check]:
    """Output throughput should not fall when concurrency rises (excluded tiers included: the
    drop is usually why a tier was excluded). "Rises with every step" is said only when every
    step rises beyond the noise; flat steps are named (issue 31)."""
    rows: list[Check] = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        steps = throughput_steps(by_engine[engine])
        for prev, cur, step, _ in steps:
            if step != "down":
                continue
            ratio = cur["output_tok_s"] / prev["output_tok_s"]
            rows.append(check(
                "throughput.monotonic", "warn", "drop",
                {"tier": cur["concurrency"], "tok_s": cur["output_tok_s"],
                 "previous": prev["concurrency"], "previous_tok_s": prev["output_tok_s"]},
                engine, cur["concurrency"], ratio))
        if not steps or any(step == "down" for *_, step, _ in steps):
            continue
        flat = [(p, c, f) for p, c, step, f in steps if step == "flat"]
        if not flat:
            rows.append(check("throughput.monotonic", "pass", "pass", engine=engine))
            continue
        prev, cur, _frac = flat[0]
        rows.append(check("throughput.monotonic", "pass", "flat" if len(flat) == 1 else "flat_many",
                          {"tier": cur["concurrency"], "previous": prev["concurrency"],
                           "steps": len(flat), "noise": max(f for *_, f in flat)},
                          engine=engine))
    return rows


def failed_requests(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[Check]:
    """Failed requests are a warning: the report counts them and throughput only uses completed
    tokens, so nothing shown is overstated. A tier with nothing completed is a failure."""
    rows: list[Check] = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        own = by_engine[engine]
        bad = own[own["failed"] > 0]
        for _, t in own[own["completed"] <= 0].iterrows():
            rows.append(check("requests.completed", "fail", "none", {"tier": t["concurrency"]},
                              engine, t["concurrency"], t["completed"]))
        for _, t in bad.iterrows():
            # a count no file states is left out of the sentence, never printed as "?"
            rows.append(check(
                "requests.failed", "warn",
                "some" if np.isfinite(float(t["requests"])) else "some_of_unknown",
                {"tier": t["concurrency"], "failed": t["failed"], "requests": t["requests"]},
                engine, t["concurrency"], t["failed"]))
            low, high = t.get("failed_min", np.nan), t.get("failed_max", np.nan)
            if np.isfinite(low) and np.isfinite(high) and low != high:
                rows.append(check(
                    "requests.failed_repeats", "warn", "disagree",
                    {"tier": t["concurrency"], "repeats": t["repeats"], "low": low,
                     "high": high, "failed": t["failed"]},
                    engine, t["concurrency"], high - low))
        # a client that does not count failures (SGLang) proves nothing either way
        if bad.empty and len(own) and own["failed"].notna().all():
            rows.append(check("requests.failed", "pass", "pass", engine=engine))
    return rows


def output_token_parity(tiers: pd.DataFrame, engine_order: Sequence[str],
                        output_tokens: float) -> pd.DataFrame:
    """Generated vs requested output tokens per engine (requested = completed × output_tokens).

    Throughput is tokens / wall time, so an engine that stops early is under-counted by
    shortfall_frac relative to one that honours ignore-eos."""
    rows: list[dict[str, object]] = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        own = by_engine[engine]
        completed = own["completed"].sum(min_count=1)
        total = own["total_output_tokens"].sum(min_count=1)
        requested = completed * output_tokens
        shortfall = requested - total
        rows.append({"engine": engine, "completed": completed, "total": total,
                     "requested": requested, "shortfall": shortfall,
                     "shortfall_frac": shortfall / requested if requested > 0 else np.nan,
                     "per_request": total / completed if completed > 0 else np.nan})
    return pd.DataFrame(rows, columns=["engine", "completed", "total", "requested", "shortfall",
                                       "shortfall_frac", "per_request"])


def output_token_checks(parity: pd.DataFrame) -> list[Check]:
    rows: list[Check] = []
    for _, p in parity.iterrows():
        if not np.isfinite(p["shortfall"]):
            continue
        if p["shortfall"] == 0:
            rows.append(check("output_tokens.parity", "pass", "exact", {"total": int(p["total"])},
                              p["engine"], value=0.0))
            continue
        rows.append(check(
            "output_tokens.parity", "warn", "short" if p["shortfall"] > 0 else "over",
            {"total": int(p["total"]), "requested": int(p["requested"]),
             "tokens": abs(int(p["shortfall"])), "frac": abs(p["shortfall_frac"])},
            p["engine"], value=p["shortfall_frac"]))
    return rows


# A per-tier judge: None when the tier cannot be tested, False when it passes, else the Check
# that flags it.
Judge = Callable[[str, pd.Series], "Check | Literal[False] | None"]


def _tier_checks(tiers: pd.DataFrame, engine_order: Sequence[str], judge: Judge,
                 passed: Callable[[str, int], Check]) -> list[Check]:
    """Every flagged tier of every engine, plus ``passed(engine, tested)`` for each engine whose
    tested tiers all passed."""
    rows: list[Check] = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        flagged, tested = 0, 0
        for _, t in by_engine[engine].iterrows():
            verdict = judge(engine, t)
            if verdict is None:
                continue
            tested += 1
            if verdict is not False:
                flagged += 1
                rows.append(verdict)
        if tested and not flagged:
            rows.append(passed(engine, tested))
    return rows


def _tier_list(values: Sequence[float]) -> str:
    """Tier values as one list, `4, 16, ∞` (the message names the axis)."""
    return ", ".join("∞" if np.isinf(v) else f"{v:g}" for v in sorted(set(values)))


def identity_checks(tiers: pd.DataFrame, engine_order: Sequence[str],
                    output_tokens: float, untied: Mapping[str, str] | None = None,
                    exact: Collection[tuple[str, float]] = ()) -> list[Check]:
    """E2EL = TTFT + (n − 1)·TPOT on means where every request produced exactly `output_tokens`
    (outputs never exceed the request's max_tokens, so a mean equal to it means all are equal):
    there it is exact. Tiers without means or with n varying are not tested (one pass row per
    configuration says why: no identity ties medians, nor means of varying n). Configurations in
    ``untied`` (their client's TPOT is defined otherwise:
    reportgen.reference.clients.tpot_ties_e2el) are not tested. Tiers in ``exact`` ((configuration,
    tier) whose runs carry per-request arrays) need no test on statistics: per request it holds by
    TPOT's definition, and ``summary.arrays`` checks the file's TPOT against the arrays exactly. A
    tier whose requests produced no output token at all but which states a TPOT contradicts itself
    (TPOT is the time between output tokens): that fails."""
    untied = untied or {}
    exact_tiers = {(str(e), float(c)) for e, c in exact}
    by_arrays: dict[str, int] = {}
    # per configuration: tiers not tested because only medians exist / n varies
    medians_only: dict[str, list[float]] = {}
    n_varies: dict[str, list[float]] = {}

    def judge(engine: str, t: pd.Series) -> Check | Literal[False] | None:
        if (engine, float(t["concurrency"])) in exact_tiers:
            by_arrays[engine] = by_arrays.get(engine, 0) + 1
            return None
        n = float(t["mean_output_tokens"])
        ttft, tpot, e2el = (float(t.get(f"{m}_mean_ms", np.nan)) for m in ("ttft", "tpot", "e2el"))
        tpot_any = tpot if np.isfinite(tpot) else float(t.get("tpot_p50_ms", np.nan))
        if n == 0 and np.isfinite(tpot_any) and tpot_any > 0:
            return check("identity.e2el", "fail", "no_tokens",
                         {"tier": t["concurrency"], "tpot": tpot_any},
                         engine, t["concurrency"], tpot_any)
        if not (np.isfinite([ttft, tpot, e2el, n]).all() and e2el > 0):
            if np.isfinite([float(t.get(f"{m}_p50_ms", np.nan))
                            for m in ("ttft", "tpot", "e2el")]).all():
                medians_only.setdefault(engine, []).append(float(t["concurrency"]))
            return None
        if n != output_tokens:
            n_varies.setdefault(engine, []).append(float(t["concurrency"]))
            return None
        predicted = ttft + (n - 1) * tpot
        error = predicted / e2el - 1.0
        if abs(error) <= IDENTITY_TOL_MEAN:
            return False
        status = "fail" if abs(error) > IDENTITY_FAIL else "warn"
        return check("identity.e2el", status, "off",
                     {"tier": t["concurrency"], "predicted": predicted, "e2el": e2el,
                      "error": error, "tolerance": IDENTITY_TOL_MEAN},
                     engine, t["concurrency"], error)

    tested = [e for e in engine_order if e not in untied]
    rows = _tier_checks(tiers, tested, judge, lambda engine, tested: check(
        "identity.e2el", "pass", "pass" if tested > 1 else "pass_one", {"tested": tested}, engine))
    return [*rows,
            *(check("identity.e2el", "pass", "arrays", {"tested": by_arrays[e]}, e)
              for e in tested if e in by_arrays),
            *(check("identity.e2el", "pass", "medians", {"tiers": _tier_list(medians_only[e])}, e)
              for e in tested if e in medians_only),
            *(check("identity.e2el", "pass", "n_varies", {"tiers": _tier_list(n_varies[e])}, e)
              for e in tested if e in n_varies),
            # not tested where the client's TPOT is no (E2EL − TTFT) ÷ (n − 1): no
            # definition of its own ties them
            *(check("identity.e2el", "pass", "untied", {"client": untied[e]}, e)
              for e in engine_order if e in untied)]


# Mean TPOT against tpot_implied_ms, the mean TPOT that mean E2EL and TTFT imply (tiers.py).
# The two agree when every request produced the same n; a few requests stopped early carry a
# huge per-request TPOT and lift the mean without moving E2EL. Beyond 5 % the wait ratio, which
# uses mean TPOT, measures that skew as much as stalls.
TPOT_SKEW_TOL = 0.05


def tpot_skew_checks(tiers: pd.DataFrame, engine_order: Sequence[str],
                     untied: Mapping[str, str] | None = None) -> list[Check]:
    untied = untied or {}
    def judge(engine: str, t: pd.Series) -> Check | Literal[False] | None:
        tpot, implied = t["tpot_mean_ms"], t["tpot_implied_ms"]
        if not (np.isfinite([tpot, implied]).all() and implied > 0):
            return None
        skew = tpot / implied - 1.0
        if abs(skew) <= TPOT_SKEW_TOL:
            return False
        return check("tpot.mean_skew", "warn", "skew",
                     {"tier": t["concurrency"], "tpot": tpot, "implied": implied, "skew": skew},
                     engine, t["concurrency"], skew)

    tested = [e for e in engine_order if e not in untied]
    return [*_tier_checks(tiers, tested, judge, lambda engine, n: check(
        "tpot.mean_skew", "pass", "pass" if n > 1 else "pass_one", {"tested": n}, engine)),
        *(check("tpot.mean_skew", "pass", "untied", {"client": untied[e]}, e)
          for e in engine_order if e in untied)]


STAT_COLUMN = re.compile(r"^(?P<metric>.+)_(?P<stat>mean|std|median|p\d+(?:_\d+)?)_ms$")


def not_recomputable(entries: object, column: str) -> bool:
    """Whether summary column ``column`` (``tpot_median_ms`` …) is a statistic the client
    computes otherwise than reportgen does from its arrays: one of the run's
    ``ClientRun.not_recomputable`` entries (the summary's ``not_recomputable`` cell) covers
    it. A median is a percentile."""
    m = STAT_COLUMN.match(column)
    if m is None or not isinstance(entries, tuple):
        return False
    percentile = m["stat"] not in ("mean", "std")
    return any(isinstance(e, NotRecomputable) and e.metric in ("*", m["metric"])
               and (percentile or not e.percentiles) for e in entries)


def own_statistics(summary: pd.DataFrame) -> list[object]:
    """Each summary row's ``not_recomputable`` cell (an empty tuple without the column)."""
    if "not_recomputable" not in summary.columns:
        return [()] * len(summary)
    return list(summary["not_recomputable"])


def arrays_vs_summary(summary: pd.DataFrame, recomputed: pd.DataFrame) -> list[Check]:
    """Summary keys must agree with statistics recomputed from the per-request arrays."""
    rows: list[Check] = []
    if recomputed.empty:
        return rows
    merged = summary.merge(recomputed, on=["source", "record"], suffixes=("", "__arrays"))
    # the columns compared, once (not per row); rows as dicts, not a Series each
    compare = [c for c in recomputed.columns
               if c not in ("source", "record") and c in summary.columns]
    for r in merged.to_dict("records"):
        worst, worst_col = 0.0, ""
        compared = 0
        # what the client computes otherwise than the recomputation (numpy's linear
        # percentiles of the unweighted per-request values) is not compared: the run's
        # ClientRun.not_recomputable says which statistics and why
        own = r.get("not_recomputable")
        for column in compare:
            if not_recomputable(own, column):
                continue
            file_value, array_value = r[column], r[f"{column}__arrays"]
            if not (np.isfinite(file_value) and np.isfinite(array_value)):
                continue
            compared += 1
            diff = abs(file_value - array_value)
            if diff > ARRAYS_ABS_TOL_MS + ARRAYS_REL_TOL * abs(array_value):
                rel = diff / abs(array_value) if array_value else np.inf
                if rel >= worst:
                    worst, worst_col = rel, column
        if not compared:
            continue
        where = f"{r['source']}#{int(r['record'])}"
        engine, conc = r.get("engine"), r.get("concurrency", np.nan)
        if worst_col:
            rows.append(check("summary.arrays", "fail", "differs",
                              {"where": where, "column": worst_col, "off": worst},
                              engine, conc, worst))
        else:
            rows.append(check("summary.arrays", "pass", "pass",
                              {"where": where, "compared": compared}, engine, conc))
    return rows


# per-request time column → the metric a check names
UNKNOWN_COLUMNS = {"ttft_s": "TTFT", "latency_s": "E2EL"}


def unknown_values(requests: pd.DataFrame) -> list[Check]:
    """One warning per file and metric whose successful requests have a value that is
    unknown (a client's reader writes NaN for a missing, negative or non-finite time): left
    out of the distributions and never good at any SLO. A record whose array is absent
    altogether (every value NaN) is not counted: nothing was stated."""
    rows: list[Check] = []
    if requests.empty or "success" not in requests.columns:
        return rows
    ok = requests[requests["success"].fillna(False).astype(bool)]
    for column, metric in UNKNOWN_COLUMNS.items():
        if column not in ok.columns or ok.empty:
            continue
        missing = ok[column].isna()
        stated = ~missing.groupby([ok["source"], ok["record"]]).transform("all")
        counted = ok[missing & stated]
        if counted.empty:
            continue
        for source, group in counted.groupby("source", sort=False):
            total = int((ok["source"] == source).sum())
            engine = group["engine"].iloc[0] if "engine" in group.columns else None
            rows.append(check("requests.unknown", "warn", "unknown",
                              {"where": str(source), "n": len(group), "total": total,
                               "metric": metric}, engine, value=len(group)))
    return rows


def excluded_tiers(tiers: pd.DataFrame, reason: Bi | None) -> list[Check]:
    rows: list[Check] = []
    for _, t in tiers[tiers["excluded"].astype(bool)].iterrows():
        rows.append(check("tiers.excluded", "warn", "excluded",
                          {"tier": t["concurrency"], "reason": reason or Bi.plain("")},
                          t["engine"], t["concurrency"]))
    return rows


def segment_checks(engine: str, blocks_in_log: int, warmup: int, counts: Sequence[int],
                   graph_reuse: pd.DataFrame, tiers: pd.DataFrame) -> list[Check]:
    """log_segments must account for the log's print_timing blocks and roughly match each tier's
    completed requests (a block is printed per finished request). A different number of
    segments than tiers is already a loader finding, so it is not repeated here."""
    rows: list[Check] = []
    expected = warmup + sum(counts)
    own = tiers[tiers["engine"] == engine]
    if blocks_in_log != expected:
        rows.append(check("log_segments.total", "warn", "differs",
                          {"blocks": blocks_in_log, "expected": expected},
                          engine, value=blocks_in_log - expected))
    else:
        rows.append(check("log_segments.total", "pass", "pass", {"blocks": blocks_in_log},
                          engine, value=0.0))
    completed = own.set_index("concurrency")["completed"]
    mismatched = 0
    for _, g in graph_reuse.iterrows():
        done = completed.get(g["concurrency"], np.nan)
        if np.isfinite(done) and g["print_timing_lines"] != done:
            mismatched += 1
            rows.append(check(
                "log_segments.requests", "warn", "differs",
                {"tier": g["concurrency"], "blocks": int(g["print_timing_lines"]),
                 "completed": int(done)},
                engine, g["concurrency"], g["print_timing_lines"] - done))
    if len(graph_reuse) and not mismatched:
        rows.append(check("log_segments.requests", "pass", "pass", engine=engine))
    return rows


def temperature_check(max_by_engine: Mapping[str, float]) -> list[Check]:
    finite = {e: t for e, t in max_by_engine.items() if np.isfinite(t)}
    if not finite:
        return []
    engine = max(finite, key=lambda e: finite[e])
    peak = finite[engine]
    status = "warn" if peak >= TEMPERATURE_WARN_C else "pass"
    return [check("gpu.temperature", status, "peak",
                  {"peak": peak, "limit": TEMPERATURE_WARN_C}, engine, value=peak)]


def counter_increase_check(engine: str, id: str, deltas: Mapping[int, float]) -> list[Check]:
    """Warn for each tier where a counter that should stay at zero (e.g. preemptions) rose;
    ``id`` names the counter's messages (``rose`` / ``pass``) in the string table."""
    rows: list[Check] = []
    for conc, delta in sorted(deltas.items()):
        if np.isfinite(delta) and delta > 0:
            rows.append(check(id, "warn", "rose", {"tier": conc, "delta": delta},
                              engine, conc, delta))
    if deltas and not rows:
        rows.append(check(id, "pass", "pass", engine=engine, value=0.0))
    return rows


def finding_checks(findings: Sequence[Finding]) -> list[Check]:
    """Problems the loaders tolerated become warnings."""
    return [check("load.finding", "warn", "finding", {"finding": str(f)}, f.engine)
            for f in findings]


# ----------------------------------------------------------------------------- plausibility
# Figures that cannot be true of a real run point at a wrong input rather than at the engine.

ABOVE_ONE = 1.0 + 1e-6
TPOT_BELOW_ITL = -0.05      # mean TPOT this far below ITL p50: ITL counts chunks, not tokens
SUPERLINEAR = 1.05          # throughput may not grow faster than the concurrency (5 % noise)


def plausibility_checks(tiers: pd.DataFrame, engines: pd.DataFrame,
                        engine_order: Sequence[str], axis: str = "concurrency",
                        step_basis: Mapping[str, str] | None = None) -> list[Check]:
    """Warnings for figures a real run cannot produce, each with its likely cause.
    ``step_basis``: configuration → its decode step's basis (tiers.decode_step); mean TPOT
    below the step is impossible only against an ITL step."""
    rows: list[Check] = []
    by_engine = ByEngine(tiers)
    # each configuration's first mbu_c1, read once (a filter of the engines frame per
    # configuration grew with the square of their count)
    mbus: dict[object, float] = {}
    if "mbu_c1" in engines and "id" in engines:
        for eid, value in zip(engines["id"], engines["mbu_c1"], strict=True):
            mbus.setdefault(eid, float(value))
    for engine in engine_order:
        own = by_engine[engine].sort_values("concurrency")
        worst = own["roofline_attainment"].max() if "roofline_attainment" in own else np.nan
        mbu = mbus.get(engine, np.nan)
        if (np.isfinite(worst) and worst > ABOVE_ONE) or (np.isfinite(mbu) and mbu > ABOVE_ONE):
            value = max(v for v in (worst, mbu) if np.isfinite(v))
            rows.append(check("plausibility.roofline", "warn", "above_one", {"value": value},
                              engine, value=value))
        # the first row matching each mask, read by position (a filtered copy of every
        # column per engine was the cost at many configurations)
        itl_step = step_basis is None or step_basis.get(engine, "itl") == "itl"
        below = (own["wait_ratio"] < TPOT_BELOW_ITL).to_numpy() \
            if "wait_ratio" in own and itl_step else np.zeros(len(own), dtype=bool)
        if below.any():
            r = own.iloc[int(below.argmax())]
            rows.append(check("plausibility.tpot_below_itl", "warn", "below",
                              {"tier": r["concurrency"], "below": -r["wait_ratio"]},
                              engine, r["concurrency"], r["wait_ratio"]))
        if axis == "concurrency" and "requests" in own:
            sent = own["requests_per_run"] if "requests_per_run" in own else own["requests"]
            over = (sent < own["concurrency"]).to_numpy()
            if over.any():
                r = own.iloc[int(over.argmax())]
                rows.append(check("plausibility.concurrency_above_prompts", "warn", "few",
                                  {"tier": r["concurrency"], "requests": sent.iloc[
                                      int(over.argmax())]},
                                  engine, r["concurrency"], sent.iloc[int(over.argmax())]))
        if axis == "concurrency":
            keep = ["concurrency", "output_tok_s", *(["excluded"] if "excluded" in own else [])]
            pts = own[keep]  # to_dict of every column was the cost
            pts = pts[np.isfinite(pts["output_tok_s"]) & (pts["concurrency"] > 0)]
            for prev, cur in itertools.pairwise(pts.to_dict("records")):
                grow = cur["output_tok_s"] / prev["output_tok_s"] if prev["output_tok_s"] else 0
                limit = cur["concurrency"] / prev["concurrency"]
                if grow > limit * SUPERLINEAR:
                    # a tier round.toml already excludes as an anomaly is a known exception:
                    # the jump says that tier was disturbed, not that the files are mixed up
                    known = bool(prev.get("excluded")) or bool(cur.get("excluded"))
                    rows.append(check(
                        "plausibility.superlinear", "warn",
                        "grows_excluded" if known else "grows",
                        {"previous": prev["concurrency"], "tier": cur["concurrency"],
                         "grow": grow, "limit": limit},
                        engine, cur["concurrency"], grow))
                    break
    return rows


# Beyond these a figure is not a measurement: a 5e-324 s duration gives an infinite rate.
ABSURD_TOK_S = 1e9          # output tokens per second of one configuration
MIN_DURATION_S = 1e-3       # no benchmark of at least one request runs this fast
FINITE_COLUMNS = ("duration_s", "output_tok_s", "total_tok_s")


def absurd_values(tiers: pd.DataFrame, engine_order: Sequence[str]) -> list[Check]:
    """A fail per configuration whose tiers hold a non-finite or impossible rate or duration
    (each figure after it would be meaningless)."""
    rows: list[Check] = []
    by_engine = ByEngine(tiers)
    for engine in engine_order:
        own = by_engine[engine]
        bad = np.zeros(len(own), dtype=bool)
        for col in FINITE_COLUMNS:
            if col in own:
                values = pd.to_numeric(own[col], errors="coerce").to_numpy(dtype=float)
                with np.errstate(invalid="ignore"):
                    bad |= np.isinf(values) | (values < 0)
                    if col == "duration_s":
                        bad |= (values > 0) & (values < MIN_DURATION_S)
                    else:
                        bad |= values > ABSURD_TOK_S
        if bad.any():
            r = own.iloc[int(bad.argmax())]
            rows.append(check("plausibility.absurd", "fail", "value",
                              {"tier": r["concurrency"],
                               "duration": float(r.get("duration_s", np.nan))},
                              engine, r["concurrency"]))
    return rows


def duplicate_labels(labels: Mapping[str, Bi]) -> list[Check]:
    """A warning when two configurations share a label: the page and figures could not tell
    them apart."""
    seen: dict[str, str] = {}
    rows: list[Check] = []
    for engine, label in labels.items():
        key = " ".join(label.en.split()).casefold()
        if key in seen:
            rows.append(check("labels.duplicate", "warn", "same",
                              {"label": label.en, "first": seen[key], "second": engine},
                              engine))
        else:
            seen[key] = engine
    return rows


def unmatched_provenance(globs: Sequence[str]) -> list[Check]:
    """A warning per round.toml provenance glob that matches no input (its marks are lost)."""
    return [check("provenance.unmatched", "warn", "glob", {"glob": g}) for g in globs]
