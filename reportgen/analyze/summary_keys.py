"""A result file's own summary keys against what reportgen computes from the raw figures.

The page computes throughput from counts (tokens ÷ duration, completed ÷ duration) and, where
the per-request arrays exist, may compute latency medians from them. A key that disagrees with
that computation by more than ``TOLERANCE`` was edited, or was written from other data; either
way the reader must hear of it, so each such key is a warning naming the file, the key, both
values and the value the page uses. The rule the page follows: the value computed from the raw
figures wins (a summary key is derived from them, and a correction of the counts or arrays must
not be hidden behind a stale key); within ``TOLERANCE`` the file's key is kept (rounding).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reportgen.analyze.checks import Check, check, not_recomputable, own_statistics
from reportgen.reference.clients import client

# 0.5 %: far above the rounding of a console printout (2 decimals) or a JSON float, far below
# any correction worth making.
TOLERANCE = 0.005

# summary column → (the file's key, the summary columns it is computed from)
THROUGHPUT_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "output_throughput_tok_s": ("output_throughput", ("total_output_tokens",)),
    "request_throughput_req_s": ("request_throughput", ("completed",)),
    "total_token_throughput_tok_s": ("total_token_throughput",
                                     ("total_input_tokens", "total_output_tokens")),
}
# summary column → the file's key, for the medians recomputed from per-request arrays
MEDIAN_KEYS: dict[str, str] = {f"{m}_median_ms": f"median_{m}_ms"
                               for m in ("ttft", "tpot", "itl", "e2el")}
KEYS = ["source", "record"]


def _float(frame: pd.DataFrame, name: str) -> pd.Series:
    if name in frame.columns:
        return pd.to_numeric(frame[name], errors="coerce").astype(float)
    return pd.Series(np.nan, index=frame.index, dtype=float)


def computed_throughputs(summary: pd.DataFrame) -> dict[str, pd.Series]:
    """Per summary row, each throughput key as reportgen computes it (NaN without a duration)."""
    duration = _float(summary, "duration_s")
    ok = duration > 0
    out: dict[str, pd.Series] = {}
    for column, (_key, parts) in THROUGHPUT_KEYS.items():
        amount = sum((_float(summary, p) for p in parts[1:]), _float(summary, parts[0]))
        out[column] = (amount / duration).where(ok)
    return out


def _off(file_value: float, computed: float) -> float:
    """(file − computed) / computed; NaN when either is missing or computed is 0."""
    if not (np.isfinite(file_value) and np.isfinite(computed)) or computed == 0:
        return np.nan
    return (file_value - computed) / abs(computed)


def _where(summary: pd.DataFrame) -> list[str]:
    """The file, with the record index only when the file holds several records."""
    many = summary.groupby("source")["record"].transform("size") > 1
    return [f"{s}#{int(r)}" if m else str(s)
            for s, r, m in zip(summary["source"], summary["record"], many, strict=True)]


def _merged_medians(summary: pd.DataFrame, recomputed: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in MEDIAN_KEYS if c in recomputed.columns]
    return summary[KEYS].merge(recomputed[[*KEYS, *columns]], on=KEYS, how="left")


def key_checks(summary: pd.DataFrame, recomputed: pd.DataFrame) -> list[Check]:
    """One warning per summary key that disagrees by more than TOLERANCE with its
    computation from counts (throughputs) or per-request arrays (latency medians)."""
    rows: list[Check] = []
    if summary.empty or "source" not in summary.columns:
        return rows
    where = _where(summary)
    engine = summary["engine"] if "engine" in summary.columns else pd.Series(
        None, index=summary.index, dtype=object)
    conc = _float(summary, "concurrency")
    candidates: list[tuple[str, str, pd.Series, pd.Series]] = [
        ("counts", key, _float(summary, column), computed)
        for (column, (key, _)), computed in zip(
            THROUGHPUT_KEYS.items(), computed_throughputs(summary).values(), strict=True)]
    if not recomputed.empty:
        merged = _merged_medians(summary, recomputed)
        candidates += [("arrays", key, _float(summary, column),
                        pd.Series(merged[column].to_numpy(float), index=summary.index))
                       for column, key in MEDIAN_KEYS.items() if column in merged.columns]
    own = own_statistics(summary)
    columns = {key: column for column, key in MEDIAN_KEYS.items()}
    clients = summary["client"].fillna("").astype(str) if "client" in summary.columns \
        else pd.Series("", index=summary.index)
    for basis, key, file_values, computed in candidates:
        # a client's own throughput differs from the computed one by its own definition of the
        # time (every run alike): one warning per client and key, naming the worst run
        grouped: dict[str, list[tuple[int, float]]] = {}
        for i, (a, b) in enumerate(zip(file_values, computed, strict=True)):
            # a statistic the client computes its own way differs by definition, not by error
            if basis == "arrays" and not_recomputable(own[i], columns[key]):
                continue
            off = _off(a, b)
            if np.isfinite(off) and abs(off) > TOLERANCE:
                if basis == "counts":
                    grouped.setdefault(clients.iloc[i], []).append((i, off))
                    continue
                rows.append(check("summary.keys", "warn", "arrays",
                                  {"where": where[i], "field": key, "file": a, "computed": b,
                                   "off": off},
                                  engine.iloc[i], conc.iloc[i], off))
        for client_id, runs in grouped.items():
            i, off = max(runs, key=lambda r: abs(r[1]))
            a, b = file_values.iloc[i], computed.iloc[i]
            params = {"where": where[i], "field": key, "file": a, "computed": b, "off": off,
                      "client": client(client_id).name if client_id else "",
                      "n": len(runs), "runs": int((clients == client_id).sum())}
            # one run of a client that divides by a time of its own is still that definition,
            # not an edit; a client whose time is the page's (vLLM) gets the edited-key wording
            known = bool(client_id) and client(client_id).own_throughput_time
            rows.append(check("summary.keys", "warn", "counts_client" if len(runs) > 1
                              else "counts_client_one" if known else "counts", params,
                              engine.iloc[i] if len(runs) == 1 else None,
                              conc.iloc[i] if len(runs) == 1 else np.nan, off))
    return rows


def prefer_arrays(summary: pd.DataFrame, recomputed: pd.DataFrame) -> pd.DataFrame:
    """Latency medians that disagree with the per-request arrays by more than TOLERANCE are
    replaced by the arrays' median (what ``key_checks`` says the page uses)."""
    if recomputed.empty or summary.empty:
        return summary
    merged = _merged_medians(summary, recomputed)
    out = summary.copy()
    for column in MEDIAN_KEYS:
        if column not in merged.columns or column not in out.columns:
            continue
        current = _float(out, column).to_numpy(float)
        arrays = merged[column].to_numpy(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            off = np.abs(current - arrays) / np.abs(arrays)
        # the client's own statistic where it is defined otherwise (ClientRun.not_recomputable)
        own = np.array([not_recomputable(e, column) for e in own_statistics(out)], dtype=bool)
        out[column] = np.where(np.isfinite(off) & (off > TOLERANCE) & ~own, arrays, current)
    return out
