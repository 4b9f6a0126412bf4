"""Synthetic data sets with a known truth, bundled for tasks no small public set with a clear
licence covers: ``synthetic-survival`` (:func:`make_survival`) and ``policy-trial``
(:func:`policy_trial`, a confounded observational study of three treatments whose every
counterfactual mean outcome is stored; issue #45).  Each bundled CSV is its generator's
output for the defaults (``python -m optrees.datasets.synthetic`` writes both again)."""

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


TREATMENTS = ("none", "drug", "surgery")
"""Treatment codes 0, 1, 2 of ``policy-trial``."""


def policy_trial(n: int = 600, seed: int = 45) -> pd.DataFrame:
    """``n`` patients: ``age`` (20-79), ``smoker`` (0/1), ``bmi`` (18-40, one decimal),
    ``sex`` (f/m); the historic ``treatment`` (0 none, 1 drug, 2 surgery) drawn with the
    confounded probabilities ``softmax(0, 0.04 (age - 50), 1.2 smoker - 0.6)``, its
    ``propensity`` (the probability of the row's own treatment), the true mean outcome of
    each treatment ``mu_0``, ``mu_1``, ``mu_2`` and the observed ``outcome`` = ``mu_t`` +
    N(0, 1) (larger is better).  The truth: ``mu_0 = 1 - 0.05 (bmi - 25)``; the drug adds
    1.0 from age 55 and costs 0.5 below; surgery adds 1.5 to smokers with bmi < 30 and costs
    1.0 to everyone else, so the best policy is a depth-3 tree (surgery for smokers with bmi
    < 30, else the drug from age 55, else none)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 80, n)
    smoker = rng.integers(0, 2, n)
    bmi = np.round(rng.uniform(18.0, 40.0, n), 1)
    sex = rng.choice(["f", "m"], n)
    mu0 = 1.0 - 0.05 * (bmi - 25.0)
    mu = np.column_stack([mu0, mu0 + np.where(age >= 55, 1.0, -0.5),
                          mu0 + np.where((smoker == 1) & (bmi < 30.0), 1.5, -1.0)])
    logits = np.column_stack([np.zeros(n), 0.04 * (age - 50), 1.2 * smoker - 0.6])
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    t = (rng.uniform(size=n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    outcome = mu[np.arange(n), t] + rng.normal(size=n)
    return pd.DataFrame({
        "age": age, "smoker": smoker, "bmi": bmi, "sex": sex, "treatment": t,
        "propensity": np.round(p[np.arange(n), t], 6), "outcome": np.round(outcome, 4),
        "mu_0": np.round(mu[:, 0], 4), "mu_1": np.round(mu[:, 1], 4),
        "mu_2": np.round(mu[:, 2], 4)})


if __name__ == "__main__":  # pragma: no cover - regenerates the bundled files
    folder = Path(__file__).parent / "data"
    make_survival().to_csv(folder / "synthetic-survival.csv", index=False)
    policy_trial().to_csv(folder / "policy-trial.csv", index=False)
    print(f"wrote {folder}/synthetic-survival.csv and policy-trial.csv")
