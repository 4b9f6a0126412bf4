"""Synthetic data sets with a known truth, bundled for tasks no small public set with a clear
licence covers: ``synthetic-survival`` (:func:`make_survival`).  The bundled CSV is this
generator's output for its defaults (``python -m optrees.datasets.synthetic`` writes it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

TRUE_HAZARD_RATIOS = {"stage III": 4.0, "stage I-II, age > 65": 2.0, "stage I-II, age <= 65": 1.0,
                      "treated": 0.5}
"""The hazard of :func:`make_survival`, relative to an untreated patient of stage I-II aged at
most 65 (the treatment halves every group's hazard)."""


def make_survival(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """``n`` patients: ``age`` (35-85), ``stage`` (I, II, III), ``marker`` and ``noise`` (no
    effect), ``treated`` (0/1), and the observed ``event`` (1: died) and ``time`` (months).

    Event times are exponential with mean 24 months divided by the hazard ratio of
    :data:`TRUE_HAZARD_RATIOS`; a patient drops out at a uniform time in [0, 120] months, and
    follow-up ends at 60 months (censored: ``event`` 0).  Times are rounded to 0.1 month."""
    rng = np.random.default_rng(seed)
    age = rng.integers(35, 86, n)
    stage = rng.choice(np.array(["I", "II", "III"]), n, p=[0.4, 0.35, 0.25])
    marker = np.round(rng.lognormal(0.0, 0.5, n), 2)
    treated = rng.integers(0, 2, n)
    noise = np.round(rng.normal(0.0, 1.0, n), 2)
    ratio = np.where(stage == "III", 4.0, np.where(age > 65, 2.0, 1.0))
    ratio = ratio * np.where(treated == 1, 0.5, 1.0)
    event_time = rng.exponential(24.0 / ratio)
    end = np.minimum(rng.uniform(0.0, 120.0, n), 60.0)
    return pd.DataFrame({"age": age, "stage": stage, "marker": marker, "treated": treated,
                         "noise": noise, "event": (event_time <= end).astype(int),
                         "time": np.round(np.maximum(np.minimum(event_time, end), 0.1), 1)})


if __name__ == "__main__":  # pragma: no cover - regenerates the bundled file
    out = Path(__file__).parent / "data" / "synthetic-survival.csv"
    make_survival().to_csv(out, index=False)
    print(f"wrote {out}")
