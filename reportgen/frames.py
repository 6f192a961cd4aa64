"""Frame helpers shared by the figure and page stages."""

from __future__ import annotations

import pandas as pd

# the runs table's ``concurrency_note``: how a run's value on the axis was established when not
# as configured: "num_prompts" (the effective concurrency of an old client), "measured_rate"
# (a request rate the client measured: a GuideLLM sweep's benchmarks)
MEASURED_RATE = "measured_rate"


def use_python_strings() -> None:
    """Keep pandas' ``str`` columns in Python objects, not Arrow arrays. pandas 3 stores them
    in Arrow whenever pyarrow is installed (the ``dataset`` extra), which makes the many small
    frames of a build ~40 % slower (sample build 0.79 → 0.96 s) and ties the speed to an
    optional package; the values, and so the page's bytes, are the same either way. Set by
    ``pipeline.analyze_dir``, the one way every command reads a round, never on import."""
    pd.set_option("mode.string_storage", "python")


def rows_by_engine(frame: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    """Each engine's rows of ``frame`` sorted by concurrency (stable), as filtering then
    sorting per engine would give them, but with one sort and one split: a filter per engine
    made the figure and page stages grow with the square of the configuration count. A stable
    sort then a split keeps every engine's rows in that same order, with the same index."""
    if frame is None or frame.empty or "engine" not in frame.columns:
        return {}
    if "concurrency" in frame:
        frame = frame.sort_values("concurrency", kind="stable")
    return {str(engine): rows for engine, rows in frame.groupby("engine", sort=False)}


class ByEngine:
    """A frame's rows per engine, split once: ``by[engine]`` is ``frame[frame["engine"] ==
    engine]`` (same rows, order and index), without a full-frame filter per engine."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame
        self._parts = {str(engine): rows
                       for engine, rows in frame.groupby("engine", sort=False)}

    def __getitem__(self, engine: str) -> pd.DataFrame:
        rows = self._parts.get(engine)
        return self._frame.iloc[:0] if rows is None else rows
