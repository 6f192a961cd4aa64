"""Which workload each run of a folder with no fixed layout belongs to: the lengths (or the
dataset) the runs were asked for, else their measured mean lengths clustered at gaps
(``load/placement.py`` places the rest: configurations, the axis, repeats, copies).

Pure functions over the run-level summary frame; nothing here reads a file.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from reportgen.load.placement import (
    ID_CHARS,
    LENGTH_TOLERANCE,
    SYNTHETIC,
    Workload,
    name_lengths,
    name_tokens,
    run_folder,
)


def _mean_per_request(total: pd.Series, completed: pd.Series) -> pd.Series:
    return (total / completed).where(completed > 0)


def workloads(summary: pd.DataFrame) -> tuple[pd.Series, list[Workload]]:
    """Runs with other input/output lengths or another dataset are other workloads. Lengths
    come from the client's settings when the file carries them, else from the run's name
    (``name_lengths``), else from the mean tokens per completed request, clustered where no
    gap over 10 % parts them (``_group_lengths``). A dataset, trace or scenario that is not
    generated from lengths (ShareGPT, an agentic trace) is one workload per dataset."""
    if summary.empty:
        return pd.Series([], dtype=object), []
    rels = [str(r) for r in summary["rel"]] if "rel" in summary.columns else [""] * len(summary)
    mean_in = _mean_per_request(summary["total_input_tokens"], summary["completed"])
    mean_out = _mean_per_request(summary["total_output_tokens"], summary["completed"])
    exact = [_exact_lengths(c, r) for c, r in zip(
        summary["client"] if "client" in summary.columns else [None] * len(summary),
        summary["range_ratio_setting"], strict=True)]
    rows: list[tuple[int, str | None, float, float, bool]] = []
    wanted = ["dataset", "sharegpt_output_len_setting", "output_len_setting",
              "input_len_setting", *(["rel"] if "rel" in summary.columns else [])]
    means_in, means_out = mean_in.to_numpy(dtype=float), mean_out.to_numpy(dtype=float)
    by_name: dict[int, str] = {}  # runs whose lengths only their name states
    for i, r in enumerate(summary[wanted].to_dict("records")):  # .loc per row: 1 ms each
        dataset = r["dataset"] if isinstance(r["dataset"], str) else None
        if dataset and dataset.startswith("sharegpt"):
            # prompts come from the dataset (no fixed input length); the output is fixed only
            # with --sharegpt-output-len
            rows.append((i, dataset, math.nan, float(r["sharegpt_output_len_setting"]), True))
            continue
        fixed_out = r["output_len_setting"]
        fixed_in = r["input_len_setting"]
        if not (math.isfinite(fixed_in) and math.isfinite(fixed_out)) and "rel" in r:
            named = name_lengths(str(r["rel"]))  # `…_isl1024_osl128_…`: stated, not measured
            if all(math.isfinite(x) for x in named):
                fixed_in, fixed_out = named
                by_name[i] = str(r["rel"])
        settings = math.isfinite(fixed_in) and math.isfinite(fixed_out)
        if not settings and dataset and not SYNTHETIC.match(dataset):
            # a dataset, trace or agentic scenario is the workload: each run's measured mean
            # lengths are its own (the runs table), never a workload of their own
            rows.append((i, dataset, math.nan, math.nan, True))
            continue
        rows.append((i, dataset, fixed_in if settings else float(means_in[i]),
                     fixed_out if settings else float(means_out[i]), settings))
    # a run whose requests all failed states no lengths: it joins its folder's workload
    # below instead of becoming a workload of its own
    unknown = [r for r in rows if not r[4] and math.isnan(r[2]) and math.isnan(r[3])]
    groups = _group_lengths([r for r in rows if r not in unknown])
    # shortest first (input + output per request); lengths unknown (a dataset) last
    groups.sort(key=lambda g: (_length_key(g), min(x[0] for x in g)))
    _place_unknown(unknown, groups, [run_folder(str(x)) for x in summary["rel"]]
                   if "rel" in summary.columns else [""] * len(rows))
    out = [""] * len(rows)
    specs: list[Workload] = []
    ids: set[str] = set()
    for group in groups:
        with_settings = [g for g in group if g[4]]
        pick = with_settings or group
        dataset = next((g[1] for g in group if g[1]), None)
        inp, outp = _middle_run(pick)
        from_settings = bool(with_settings)
        if not from_settings and math.isfinite(inp) and math.isfinite(outp):
            inp, outp = round(inp), round(outp)
        base = "-".join(x for x in (dataset or "", _len_id(inp), _len_id(outp)) if x) or "runs"
        wid, k = ID_CHARS.sub("-", base.lower()), 2
        while wid in ids:
            wid, k = f"{base}-{k}", k + 1
        ids.add(wid)
        members = [g[0] for g in group]
        vary = any(not exact[m] for m in members)
        name_rels = [by_name[g[0]] for g in with_settings if g[0] in by_name]
        specs.append(Workload(wid, dataset, inp, outp, from_settings, vary,
                              _finite_median(mean_in.iloc[members]),
                              _finite_median(mean_out.iloc[members]),
                              _workload_name([rels[m] for m in members]),
                              named_by=name_rels[0] if name_rels
                              and len(name_rels) == len(with_settings) else None))
        for g in group:
            out[g[0]] = wid
    return pd.Series(out, index=summary.index, dtype=object), specs


Row = tuple[int, str | None, float, float, bool]


def _group_lengths(rows: list[Row]) -> list[list[Row]]:
    """Runs that state their lengths (or dataset) exactly: one workload per stated value.
    Runs whose lengths are measured means: one workload per cluster of the means' joint
    distribution, cut only where a gap wider than LENGTH_TOLERANCE separates two clusters on
    input or output, so runs whose lengths vary per request (means spread around one value)
    stay one workload, however far its lowest and highest runs are apart."""
    stated: dict[tuple[str | None, float, float], list[Row]] = {}
    measured: dict[str, list[Row]] = {}
    # a dataset's runs first: a run that does not record its dataset (a vLLM JSON) then joins
    # the stated workload of its lengths, whichever dataset that states
    for row in sorted(rows, key=lambda r: (r[1] is None, r[0])):
        if not row[4]:
            measured.setdefault(row[1] or "", []).append(row)
            continue
        key = (row[1], _sortable(row[2]), _sortable(row[3]))
        if row[1] is None:
            key = next((k for k in stated if k[1:] == key[1:]), key)
        stated.setdefault(key, []).append(row)
    groups = list(stated.values())
    for _, members in sorted(measured.items()):
        # a measured run whose means fall in a stated workload (a console log beside JSON
        # that states its settings) is that workload's
        for cluster in _split_gaps(members):
            home = next((g for g in groups
                         if all(_same_workload(g[0], r) for r in cluster)), None)
            if home is None:
                groups.append(cluster)
            else:
                home.extend(cluster)
    return groups


def _split_gaps(rows: list[Row]) -> list[list[Row]]:
    """Clusters of runs by measured (input, output) means: sorted on one coordinate, cut
    where two neighbours are not close; repeated on the other coordinate inside each part
    until nothing is cut."""
    parts, done = [rows], False
    while not done:
        done = True
        out: list[list[Row]] = []
        for part in parts:
            for axis in (2, 3):
                cut = _cut_at_gaps(part, axis)
                if len(cut) > 1:
                    out += cut
                    done = False
                    break
            else:
                out.append(part)
        parts = out
    return parts


def _cut_at_gaps(rows: list[Row], axis: int) -> list[list[Row]]:
    def value(r: Row) -> float:
        return r[2] if axis == 2 else r[3]

    ordered = sorted(rows, key=lambda r: (_sortable(value(r)), r[0]))
    out: list[list[Row]] = [[ordered[0]]]
    for prev, row in itertools.pairwise(ordered):
        if _near(value(prev), value(row)):
            out[-1].append(row)
        else:
            out.append([row])
    return out


def _middle_run(group: list[tuple[int, str | None, float, float, bool]]) -> tuple[float, float]:
    """(input, output) lengths of the group's middle run by lengths (the lower middle of an
    even count): a workload is labelled with lengths one of its runs used, never a mean of
    two runs' lengths that none used."""
    known = sorted((g for g in group if math.isfinite(g[2]) or math.isfinite(g[3])),
                   key=lambda g: (_sortable(g[2]), _sortable(g[3])))
    if not known:
        return math.nan, math.nan
    mid = known[(len(known) - 1) // 2]
    return mid[2], mid[3]


def _finite_median(values: Iterable[float]) -> float:
    """The median of the finite values; NaN (and no numpy warning) when there are none."""
    finite = [float(v) for v in values if math.isfinite(float(v))]
    return float(np.median(finite)) if finite else math.nan


def _place_unknown(unknown: list[tuple[int, str | None, float, float, bool]],
                   groups: list[list[tuple[int, str | None, float, float, bool]]],
                   folders: list[str]) -> None:
    """Each run of unknown lengths joins the largest workload holding a run of its folder,
    else the main workload; only a round of nothing but such runs makes a group of them."""
    for row in unknown:
        home = next((g for g in groups if any(folders[m[0]] == folders[row[0]] for m in g)),
                    max(groups, key=len) if groups else None)  # else the main workload
        if home is None:
            groups.append(home := [])
        home.append(row)

# words a file name uses for a workload's size
WORKLOAD_NAMES = ("tiny", "short", "medium", "long", "small", "large", "chat", "summarization",
                  "summarize", "code", "rag", "reasoning")


def _workload_name(rels: list[str]) -> str | None:
    """The one workload word every file of the group carries (`result-short-rate1` → short)."""
    names = {w for r in rels for w in name_tokens(r) if w in WORKLOAD_NAMES}
    if len(names) != 1:
        return None
    name = names.pop()
    return name if all(name in name_tokens(r) for r in rels) else None


def _length_key(group: list[tuple[int, str | None, float, float, bool]]) -> tuple[int, float]:
    total = float(np.median([g[2] + g[3] for g in group]))
    return (0, total) if math.isfinite(total) else (1, 0.0)


def _exact_lengths(client: object, ratio: float) -> bool:
    """Whether every request had exactly the set lengths. vLLM's --random-range-ratio r draws
    from [L(1−r), L(1+r)] (0 = exact, its default); SGLang's draws from [L·r, L] (1 = exact;
    its default 0 means anything up to L)."""
    if not math.isfinite(ratio):
        return True  # no range set: exact (both clients then use the lengths as given)
    return ratio == 1.0 if client == "sglang" else ratio == 0.0


def _sortable(x: float) -> float:
    return x if math.isfinite(x) else -1.0


def _len_id(x: float) -> str:
    return f"{x:.0f}" if math.isfinite(x) else ""


def _close(a: float, b: float) -> bool:
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= LENGTH_TOLERANCE * max(abs(a), abs(b), 1.0)


def _near(a: float, b: float) -> bool:
    """Neighbouring means of one cluster: within LENGTH_TOLERANCE of the smaller one."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= LENGTH_TOLERANCE * max(min(abs(a), abs(b)), 1.0)


def _same_workload(a: tuple[int, str | None, float, float, bool],
                   b: tuple[int, str | None, float, float, bool]) -> bool:
    if a[1] != b[1] and a[1] is not None and b[1] is not None:
        return False  # an unknown dataset (a JSON result does not record it) joins any
    if a[4] and b[4]:  # both from settings: exact (NaN: a dataset without fixed lengths)
        return all(x == y or (math.isnan(x) and math.isnan(y))
                   for x, y in ((a[2], b[2]), (a[3], b[3])))
    return _close(a[2], b[2]) and _close(a[3], b[3])
