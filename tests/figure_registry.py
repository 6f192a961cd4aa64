"""Figure counts and ids for tests, derived from the figure registry (``figures.registry.BUILDERS``)
rather than typed in: a new figure in the registry changes them without touching any test."""

from __future__ import annotations

from reportgen.figures.ranking import PARETO_MIN_CONFIGURATIONS
from reportgen.figures.registry import BUILDERS

# drawn only for a round of PARETO_MIN_CONFIGURATIONS configurations or more
MANY_ONLY = frozenset({"pareto"})
# drawn only when a round has what they need: configurations that share one tier (ranking),
# per-request arrays (distributions), GPU samples in the run windows (telemetry)
OPTIONAL = frozenset({"ranking", "distributions", "telemetry"})


def drawn_kinds(configurations: int = 2, missing: frozenset[str] = frozenset(),
                extra: frozenset[str] = frozenset()) -> list[str]:
    """The kinds, in page order, of the figures a round draws; ``missing``: kinds whose data
    the round lacks; ``extra``: OPTIONAL kinds it has."""
    return [kind for _, kind, _ in BUILDERS if kind not in missing
            and (kind not in MANY_ONLY or configurations >= PARETO_MIN_CONFIGURATIONS)
            and (kind not in OPTIONAL or kind in extra)]


def drawn_ids(configurations: int = 2, missing: frozenset[str] = frozenset(),
              extra: frozenset[str] = frozenset()) -> list[str]:
    kinds = set(drawn_kinds(configurations, missing, extra))
    return [fig_id for fig_id, kind, _ in BUILDERS if kind in kinds]


# the bundled sample: vLLM's per-request arrays at C=1 and nvidia-smi samples
SAMPLE_EXTRA = frozenset({"distributions", "telemetry"})
