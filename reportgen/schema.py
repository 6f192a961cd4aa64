"""The tables schema's name and history: what `reportgen tables` writes and `diff` reads.

Version 2 renamed the crossover table's ratios. Version 1 called them ``ratio_lower`` /
``ratio_upper``, like the headline values ``crossover.ratio_lower`` / ``crossover.ratio_upper``,
although the table's hold engine_a ÷ engine_b (manifest order) and the headline's pair.a ÷ pair.b
(the pair ahead at the lowest tier first): for the sample round one is the other's reciprocal.
"""

from __future__ import annotations

SCHEMA = "reportgen.tables/2"
READABLE = (SCHEMA, "reportgen.tables/1")
# table → {analysis column: exported name}; also how a version-1 file is read as version 2
RENAMED = {"crossovers": {"ratio_lower": "a_over_b_at_lower",
                          "ratio_upper": "a_over_b_at_upper"}}
