"""The treatment budget of :class:`~optrees.estimators.policy.OptimalPolicyTree`: at most a
share of the rows (by weight) may be given a treatment.  Checked here; solved by
:mod:`optrees.trees.solve.budget`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import OptreesInputError


def check_budget(spec: Any, n_treatments: int, names: Any = None
                 ) -> dict[int, float] | None:
    """``treatment_budget`` (None, ``{treatment: share}`` or one share per treatment) as
    the binding budgets ``{treatment code: share}`` (shares below 1), None when there is
    none; one clear error for a bad budget.  ``names``: the treatments' text labels in code
    order, which the dict's keys are then (None: the keys are the codes 0..K-1)."""
    if spec is None:
        return None
    K = n_treatments
    if isinstance(spec, dict) and names is not None:
        labels = [str(v) for v in names]
        for key in spec:
            if str(key) not in labels:
                raise OptreesInputError(f"treatment_budget names treatment {key!r}; the "
                                        f"treatments are {labels}")
        items = [(labels.index(str(key)), share) for key, share in spec.items()]
    elif isinstance(spec, dict):
        items = list(spec.items())
    else:
        values = np.atleast_1d(np.asarray(spec, dtype=object))
        if values.ndim != 1 or len(values) != K:
            raise OptreesInputError(f"treatment_budget must be a dict {{treatment: share}} or "
                                    f"one share per treatment ({K}), got {spec!r}")
        items = list(enumerate(values.tolist()))
    shares = np.ones(K)
    for key, share in items:
        try:
            k = int(key)
        except (TypeError, ValueError):
            k = -1
        if isinstance(key, bool) or k != key or not 0 <= k < K:
            raise OptreesInputError(f"treatment_budget names treatment {key!r}; the "
                                    f"treatments are 0..{K - 1}")
        try:
            s = float(share)
        except (TypeError, ValueError):
            s = math.nan
        if not 0.0 <= s <= 1.0:  # (nan too)
            who = k if names is None else str(names[k])
            raise OptreesInputError(f"treatment_budget's share of treatment {who} must lie in "
                                    f"[0, 1] (a share of the rows' weight), got {share!r}")
        shares[k] = s
    if shares.sum() < 1.0 - 1e-12:
        raise OptreesInputError(f"treatment_budget makes every policy infeasible: each row "
                                f"gets one treatment, but the shares add up to "
                                f"{shares.sum():g} < 1")
    binding = np.flatnonzero(shares < 1.0)
    return {int(k): float(shares[k]) for k in binding} or None
