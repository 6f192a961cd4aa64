"""Wave accounting: does the run's wall time equal (number of full batches) × one request's E2EL?

With N requests at concurrency C the client admits ceil(N / C) waves. If the engine refilled
slots continuously, duration / waves would fall below one request's E2EL; a gap near zero means
requests entered in lock-step batches. Caveat (why it is not proof on its own): a fixed-length,
synchronized workload makes every request finish together, so a continuous-batching engine also
shows a small gap — compare engines on the same load, never read one engine's gap alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def add_waves(tiers: pd.DataFrame) -> pd.DataFrame:
    """Add waves = ceil(requests / C), duration_per_wave_s and wave_gap
    (= duration_per_wave / (E2EL p50 / 1000) − 1; 0.007: a wave lasts 0.7 % longer than one
    request)."""
    out = tiers.copy()
    conc = out["concurrency"].astype(float)
    # repeats: ``requests`` counts every run's requests, a wave belongs to one run
    sent = out["requests_per_run"] if "requests_per_run" in out.columns else out["requests"]
    waves = np.ceil(sent.astype(float) / conc.where(conc > 0))
    out["waves"] = waves.where(waves > 0)  # type: ignore[attr-defined]  # a Series: np.ceil keeps it
    out["duration_per_wave_s"] = out["duration_s"] / out["waves"]
    e2el_s = out["e2el_p50_ms"].where(out["e2el_p50_ms"] > 0) / 1000.0
    out["wave_gap"] = out["duration_per_wave_s"] / e2el_s - 1.0
    return out
