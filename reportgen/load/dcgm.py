"""DCGM exporter series (``load/series.py``) → the per-GPU sample frame the nvidia-smi loader
gives (``index``, ``power_draw_w``, ``utilization_gpu_pct``, ``memory_used_mib``,
``clocks_sm_mhz``, ``temperature_gpu_c``) plus what only DCGM measures: ``sm_active`` (ratio
0–1) and ``energy_mj`` (the board's energy counter since boot). Time is ``time_s``, seconds since
the epoch (UTC); the analysis converts it to the runs' local clock.

Names and units are dcgm-exporter's (``etc/default-counters.csv``: Prometheus name = DCGM field).
DCGM writes "blank" sentinels as huge integers (``9223372036854775794``): values ≥ 9.2e18 are
missing (NaN), never a reading.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reportgen.load.series import label

# DCGM field → the sample frame's column (nvidia-smi's names where nvidia-smi has the field)
FIELDS = {
    "DCGM_FI_DEV_POWER_USAGE": "power_draw_w",
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "energy_mj",
    "DCGM_FI_DEV_GPU_UTIL": "utilization_gpu_pct",
    "DCGM_FI_PROF_SM_ACTIVE": "sm_active",
    "DCGM_FI_DEV_FB_USED": "memory_used_mib",
    "DCGM_FI_DEV_SM_CLOCK": "clocks_sm_mhz",
    "DCGM_FI_DEV_GPU_TEMP": "temperature_gpu_c",
}
SENTINEL = 9.2e18
SAMPLE_COLUMNS = ("time_s", "index", *FIELDS.values())


def dcgm_samples(series: pd.DataFrame) -> pd.DataFrame:
    """SAMPLE_COLUMNS, one row per (timestamp, GPU) with any DCGM field; empty when the series
    hold none. The GPU is the ``gpu`` label (else ``UUID``, numbered in order of appearance)."""
    rows = series[series["name"].isin(FIELDS.keys()) & series["time_s"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=list(SAMPLE_COLUMNS))
    gpu = rows["labels"].map(lambda t: label(t, "gpu") or label(t, "UUID") or "0")
    numbered = {g: i for i, g in enumerate(dict.fromkeys(gpu))}
    index = gpu.map(lambda g: int(g) if g.isdigit() else numbered[g])
    value = rows["value"].where(rows["value"].abs() < SENTINEL)
    tidy = pd.DataFrame({"time_s": rows["time_s"], "index": index,
                         "column": rows["name"].map(FIELDS), "value": value})
    # several series of one field and GPU at one instant (pod labels …): their mean
    wide = tidy.groupby(["time_s", "index", "column"], sort=True)["value"].mean() \
        .unstack("column").reset_index()
    for column in FIELDS.values():
        if column not in wide.columns:
            wide[column] = np.nan
    wide = wide[list(SAMPLE_COLUMNS)].sort_values(["time_s", "index"], kind="stable")
    wide.columns.name = None
    return wide.reset_index(drop=True)
