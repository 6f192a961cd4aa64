"""The report's Plotly figures, built from the Analysis once per language.

Figures are built directly as the plain dicts ``plotly.graph_objects.Figure.to_dict()`` returns
(numeric arrays as ``bdata``, keys in plotly's order), without plotly.py's per-property
validation, which cost a third of a sample build; tests/test_figures_plotly_schema.py runs every
figure through ``go.Figure`` instead, so an attribute typo still fails — in the suite. The layout
template is sent once for all figures; see ``figures_payload``. Ids are fixed by kind, so a figure
keeps its id whether or not another one is present:

    fig-1 output throughput vs concurrency (log–log, crossover marked)
    fig-2 measured ITL p50 vs roofline floor per engine
    fig-3 memory split per engine against GPU memory
    fig-4 wait ratio per tier
    fig-5 CUDA-graph reuse (both step bases) vs roofline attainment
    fig-6 latency–throughput: tok/s per user (1000 / TPOT p50) vs output tok/s
    fig-7 Pareto view (rounds of PARETO_MIN_CONFIGURATIONS or more): tok/s per user (1000 /
          TPOT p50, as fig-6) vs tok/s per GPU for every tier, the frontier drawn

Tiers excluded from conclusions are drawn with open markers and say so in the hover text and in
a legend entry. Every label comes from the UI string table; every number from the Analysis;
every string from the input (engine labels) passes ``plotly_text``, as Plotly renders markup.
"""
