"""A dual solution of (3) made from approximate duals: what RUG's and RUX's bounds rest on.

The dual of (3) with FairRUG's rows ``F' v <= eps`` (duals ``mu >= 0``) is::

    max  sum_i beta_i - eps * sum_r mu_r
    s.t. sum_i ahat_ij beta_i <= lam c_j        (w_j)   for every rule j
         beta_i - (F mu)_i <= counts_i          (v_i)
         beta >= 0, mu >= 0

so by weak duality its value at any point meeting these rows is a lower bound on (3).  A
solver's duals meet them only to its tolerances (a stopped solve's not at all).
:func:`fair_duals` puts ``mu`` and ``beta`` within the ``v`` rows and signs;
:func:`feasible_duals` then shrinks ``beta`` into every rule's row.  Shrinking ``beta``
keeps the ``v`` rows and signs, so the result is a dual solution.

One common scale ``theta = min_j c_j / load_j`` does that too, but one cheap rule a little
over its row (Gini costs: a pure leaf costs about 2e-8 and its reduced cost is optimal at
-1e-7 by HiGHS's default tolerance) took the whole bound down by its ratio: adult, ODM, the
LP optimal at 11032.0, bound 2574.6.  The passes first shrink ``beta`` only on the rows of
the rules over their row, by that rule's ratio, which costs the bound about what the rule
is over by.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

REPAIR_PASSES = 10
"""Passes of :func:`feasible_duals` that shrink the duals of rows where rules are over their
dual row, before one scale fixes the rest (with Gini costs a pure leaf costs about 1e-8,
and one scale alone left almost nothing of the duals: breast-cancer, 30 trees, bound 0 ->
1.3 with the LP's optimum at 2.9)."""

SAFETY = 1.0 - 1e-12
"""Scales of ``mu`` are taken this much smaller, so rounding cannot leave a ``v`` row over."""


def fair_duals(beta: np.ndarray, mu: np.ndarray, F: sp.spmatrix, counts: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """``(beta, mu)`` of a solver made to meet the ``v`` rows and signs of the dual of (3):
    both clipped at 0, ``mu`` scaled down until ``counts + F mu >= 0`` (else no
    ``beta_i >= 0`` meets row ``v_i``; a stopped solve's ``mu`` may be anything), then
    ``beta_i <= counts_i + (F mu)_i``."""
    beta = np.maximum(np.asarray(beta, dtype=float), 0.0)
    mu = np.maximum(np.asarray(mu, dtype=float), 0.0)
    if len(mu) == 0:
        return np.minimum(beta, counts), mu
    push = F @ mu
    low = counts + push < 0
    if low.any():
        mu = mu * (float(np.min(counts[low] / -push[low])) * SAFETY)
        push = F @ mu
    return np.clip(beta, 0.0, np.maximum(counts + push, 0.0)), mu


def feasible_duals(ahat: sp.spmatrix, c: np.ndarray, beta: np.ndarray,
                   passes: int = REPAIR_PASSES) -> np.ndarray:
    """``beta >= 0`` shrunk so that every rule's dual row ``ahat_j' beta <= c_j`` holds
    (``ahat``: rules x rows, the entries of (3); ``c``: lam * c_j): ``passes`` rounds scale the
    rows a rule over its row covers with its own class (``ahat_ij > 0``) by that rule's
    ``c_j / load_j`` (the least over a row's rules), then one ``theta`` scales what is left."""
    ahat = sp.csr_matrix(ahat, dtype=float)
    beta = np.maximum(np.asarray(beta, dtype=float), 0.0)
    coo = ahat.tocoo()
    right = coo.data > 0
    rules, rows = coo.row[right], coo.col[right]
    for repair in range(passes + 1):
        load = ahat @ beta
        over = load > c
        if not over.any():
            return beta
        if repair == passes:
            break
        factor = np.ones(ahat.shape[0])
        factor[over] = c[over] / load[over]
        least = np.ones(len(beta))
        np.minimum.at(least, rows, factor[rules])
        beta = beta * least
    return float(np.min(c[over] / load[over])) * beta
