"""Figure counts and ids for tests, derived from the figure registry (``figures.BUILDERS``)
rather than typed in: a new figure in the registry changes them without touching any test."""

from __future__ import annotations

from reportgen.figures import BUILDERS, MANY_CONFIGURATIONS

# drawn only for a round of more than MANY_CONFIGURATIONS configurations
MANY_ONLY = frozenset({"pareto"})


def drawn_ids(configurations: int = 2, missing: frozenset[str] = frozenset()) -> list[str]:
    """The ids, in page order, of the figures a round with data for every figure draws;
    ``missing``: kinds whose data the round lacks."""
    return [fig_id for fig_id, kind, _ in BUILDERS if kind not in missing
            and (kind not in MANY_ONLY or configurations > MANY_CONFIGURATIONS)]


def drawn_kinds(configurations: int = 2) -> list[str]:
    return [kind for _, kind, _ in BUILDERS
            if kind not in MANY_ONLY or configurations > MANY_CONFIGURATIONS]
