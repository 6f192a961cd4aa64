"""Benchmark clients: the name the page gives each and how it defines TTFT, ITL and TPOT
(rows of ``reportgen/data/clients.toml``), and which metrics two clients measure differently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from reportgen.files.resources import data_tables
from reportgen.text.bilingual import Bi

METRICS = ("ttft", "itl", "tpot")
KEYS = frozenset({"id", "name", "source", "throughput", "throughput_as_page", *METRICS,
                  *(f"{m}_basis" for m in METRICS)})


@dataclass(frozen=True)
class Client:
    """One client's row; a client the table does not know has only its id as name and no
    definitions (so none of its metrics is assumed comparable with another client's)."""

    id: str
    name: str
    definitions: dict[str, Bi] = field(default_factory=dict)   # metric → definition
    basis: dict[str, str] = field(default_factory=dict)        # metric → basis word
    source: str = ""
    # the time the client's own throughput divides by (None: the table does not say)
    throughput: Bi | None = None
    # that time is the page's own: a difference is an edited key, not a definition
    throughput_as_page: bool = False

    @property
    def own_throughput_time(self) -> bool:
        """Whether the client's own throughput divides by a time of its own definition."""
        return self.throughput is not None and not self.throughput_as_page


@cache
def _table() -> dict[str, Client]:
    rows = data_tables("clients.toml", {"client": KEYS})["client"]
    return {str(r["id"]): Client(
        id=str(r["id"]), name=str(r["name"]),
        definitions={m: Bi.read(r[m]) for m in METRICS if m in r},
        basis={m: str(r[f"{m}_basis"]) for m in METRICS if f"{m}_basis" in r},
        source=str(r.get("source", "")),
        throughput=Bi.read(r["throughput"]) if "throughput" in r else None,
        throughput_as_page=bool(r.get("throughput_as_page", False))) for r in rows}


def client(client_id: str) -> Client:
    """The table's row for ``client_id``, else a bare record named by the id."""
    return _table().get(client_id) or Client(id=client_id, name=client_id)


# ITL bases that are a gap between decode steps: one entry per streamed chunk, or a chunk's
# gap spread over its tokens. Other bases count the zero gaps of tokens that arrive together.
STEP_ITL_BASES = frozenset({"per-chunk", "per-token"})


def itl_is_step(client_id: str) -> bool | None:
    """Whether the client's ITL is a gap between decode steps; None when the table does not
    say how the client defines it."""
    basis = client(client_id).basis.get("itl")
    return None if basis is None else basis in STEP_ITL_BASES


# TPOT bases defined as (E2EL − TTFT) ÷ (output tokens − 1) per request, vLLM's formula: only
# for these does E2EL = TTFT + (n − 1)·TPOT hold by the client's own definitions
E2EL_TPOT_BASES = frozenset({"per-request"})


def tpot_ties_e2el(client_id: str) -> bool:
    """Whether the client's TPOT is (E2EL − TTFT) ÷ (n − 1); a client the table does not
    know is held to it (the identity then tests its units)."""
    basis = client(client_id).basis.get("tpot")
    return basis is None or basis in E2EL_TPOT_BASES


def differing_metrics(client_ids: Iterable[str]) -> tuple[str, ...]:
    """The metrics (of METRICS) the given clients do not define the same way; none when they
    are one client. A basis the table does not know counts as different."""
    ids = list(dict.fromkeys(i for i in client_ids if i))
    if len(ids) < 2:
        return ()
    rows = [client(i) for i in ids]
    return tuple(m for m in METRICS
                 if any(m not in r.basis for r in rows) or len({r.basis[m] for r in rows}) > 1)
