"""Which client measured each configuration, from the ``client`` column of the load stage's
summary (set by every reader from the file's format and keys), and what the round says about
them: the name per configuration and the metrics the clients define differently."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from reportgen.reference.clients import client, differing_metrics


def configuration_clients(summary: pd.DataFrame, order: Sequence[str]) -> dict[str, str]:
    """Configuration → client id (the most frequent among its runs; "" when unknown)."""
    if summary.empty or "client" not in summary.columns or "engine" not in summary.columns:
        return {e: "" for e in order}
    out: dict[str, str] = {}
    for engine in order:
        ids = summary.loc[summary["engine"] == engine, "client"].dropna().astype(str)
        ids = ids[ids != ""]
        out[engine] = str(ids.value_counts(sort=True).index[0]) if len(ids) else ""
    return out


@dataclass(frozen=True)
class ClientSummary:
    """The round's client facts: ``client`` (one name, or the names joined with · when the
    configurations differ; round.toml's own wording wins when one client measured them all),
    ``names`` (configuration → name) and ``differ`` (metrics defined differently: their
    figures are not comparable across configurations)."""

    client: str | None
    names: dict[str, str]
    differ: tuple[str, ...]


def client_summary(clients: Mapping[str, str], stated: str | None) -> ClientSummary:
    """What the round says about its clients (see ClientSummary)."""
    names = {e: client(i).name for e, i in clients.items() if i}
    distinct = list(dict.fromkeys(names.values()))
    if len(distinct) == 1 and stated:
        shown: str | None = stated
    elif distinct:
        shown = " · ".join(distinct)
    else:
        shown = stated or None
    return ClientSummary(shown, names, tuple(differing_metrics(clients.values())))
