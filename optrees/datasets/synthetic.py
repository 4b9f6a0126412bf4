"""Synthetic data with a known truth: the generator of the bundled ``policy-trial`` set (a
confounded observational study of three treatments whose every counterfactual mean outcome
is stored), for policy trees (issue #45).  ``policy_trial()`` gives the bundled file's rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
