"""FairRUG's repair: make the realised training gap of the rule set meet the cap.

The rows (11)-(16) cap group means of the slacks ``v`` of (3), which only approximate errors
([RUG] §3.5, after (12)): a sample with margin 0.6 has slack 0.4 and is predicted right, and
with more than two classes a sample can have zero slack and still lose the vote.  So the
LP's cap ``epsilon`` can hold while the predictions' gap is far above it (student, 5 classes,
DMC: 0.31 at an LP cap of 0.025, and still 0.31 at an LP cap of 0).

The repair looks for weights of the final rule pool (no new rules) whose rule set, pruned as
the estimator prunes it, meets ``epsilon`` on the training rows, and keeps the one of highest
weighted training accuracy among:

* the master LP re-solved with the cap tightened, ``epsilon * f`` for f in
  :data:`CAP_FACTORS` (the loosest that works);
* a greedy selection: from the fit's own weights, drop one rule at a time, each time the
  rule whose removal leaves the smallest ``excess + error rate`` (``excess``: the realised
  gap above ``epsilon``), until the cap is met.  Its last step is the rule set without
  rules (every row gets the default class).

Guaranteed: for DMC and EOP the repaired model meets the cap on the training rows, since the
empty rule set predicts one class for every row, so within a class every group's error rate
is 0 or 1 alike and the gap is 0.  Not guaranteed: for ODM the empty rule set's gap is the
difference between groups in the share of the non-default classes, which may exceed the
cap; if nothing found meets it, the fit is kept as it was and the estimator's warning gives
the number.  The repair stops at the fit's deadline and keeps the most accurate candidate
found by then that meets the cap, else the rule set without rules when it meets it (so the
guarantee holds under a time limit too); only when none does is the fit kept as it was.
Nothing is guaranteed on unseen data, nor that the accuracy kept is the best any weights of
the pool could reach under the cap (the greedy selection is a heuristic).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from .._logging import progress, since_fit
from ..models.rule_set import Rule
from ..solvers.deadline import Deadline
from .costs import ahat
from .generation import RUGResult, RuleGeneration

CAP_FACTORS = (0.5, 0.25, 0.1, 0.0)
"""The tightened LP caps tried, as fractions of the user's cap (the last: equal slack means)."""
TOL = 1e-9
"""A realised gap within this of the cap meets it."""
NO_RULES = "no rules (the default class)"
"""``chosen`` of the rule set without rules, kept when nothing better met the cap in time."""


class _Votes:
    """Training errors and the fairness gap of weights of the rule pool, computed from the
    pool's coverage (fast enough for the greedy selection; the verdict is always checked
    with the caller's ``realised``)."""

    def __init__(self, gen: RuleGeneration, default: int) -> None:
        fair = gen.fairness
        self.kind, self.positive = fair.kind, fair.positive
        self.y, self.w, self.K = gen.y, gen.w, gen.K
        self.default = default
        G = int(fair.groups.max()) + 1
        self.cell = self.y * G + fair.groups            # (class, group) of each row
        self.shape = (self.K, G)
        self.total = self._sums(np.ones(len(self.y), dtype=bool))
        self.cover = [np.flatnonzero(m) for m in gen._masks]
        self.labels = np.asarray(gen._labels, dtype=np.int64)

    def _sums(self, err: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Weighted ``err`` per (class, group) cell (of ``rows`` only, when given)."""
        cell = self.cell if rows is None else self.cell[rows]
        w = self.w if rows is None else self.w[rows]
        return np.bincount(cell, weights=w * err, minlength=self.shape[0] * self.shape[1]
                           ).reshape(self.shape)

    def votes(self, weights: np.ndarray) -> np.ndarray:
        V = np.zeros((len(self.y), self.K))
        for j in np.flatnonzero(weights > 0):
            V[self.cover[j], self.labels[j]] += weights[j]
        return V

    def errors(self, V: np.ndarray) -> np.ndarray:
        """Whether each row of votes ``V`` is misclassified (no vote: the default class)."""
        pred = np.where(V.sum(axis=1) > 1e-12, np.argmax(V, axis=1), self.default)
        return pred != self.y

    def gap(self, E: np.ndarray) -> float:
        """The notion's gap from weighted errors ``E`` per (class, group) cell."""
        if self.kind == "odm":
            E, T = E.sum(axis=0, keepdims=True), self.total.sum(axis=0, keepdims=True)
        else:
            T = self.total
            if self.kind == "equal_opportunity":
                E, T = E[[self.positive]], T[[self.positive]]
        gap = 0.0
        for e, t in zip(E, T, strict=True):
            rates = e[t > 0] / t[t > 0]
            if len(rates) >= 2:
                gap = max(gap, float(rates.max() - rates.min()))
        return gap

    def greedy(self, weights: np.ndarray, epsilon: float,
               accept: Callable[[np.ndarray], bool], deadline: Deadline
               ) -> np.ndarray | None:
        """Drop rules from ``weights`` one at a time (see the module docstring) until
        ``accept`` takes the weights; None if it never does or the deadline passes."""
        w = weights.copy()
        V = self.votes(w)
        err = self.errors(V)
        E = self._sums(err)
        mass = float(self.w.sum())
        dropped: list[int] = []
        while True:
            if self.gap(E) <= epsilon + TOL and accept(w):
                return self._restore(w, dropped[::-1], weights, epsilon, accept)
            active = np.flatnonzero(w > 0)
            if not len(active) or deadline.expired():
                return None
            best = None
            for j in active:
                rows = self.cover[j]
                Vj = V[rows].copy()
                Vj[:, self.labels[j]] -= w[j]
                pred = np.where(Vj.sum(axis=1) > 1e-12, np.argmax(Vj, axis=1), self.default)
                new_err = pred != self.y[rows]
                Ej = E + self._sums(new_err.astype(float) - err[rows], rows)
                score = max(self.gap(Ej) - epsilon, 0.0) + float(Ej.sum()) / mass
                if best is None or score < best[0] - 1e-12:
                    best = (score, j, Vj, new_err, Ej)
            _, j, Vj, new_err, E = best
            rows = self.cover[j]
            V[rows], err[rows], w[j] = Vj, new_err, 0.0
            dropped.append(j)

    def _restore(self, w: np.ndarray, dropped: list[int], weights: np.ndarray,
                 epsilon: float, accept: Callable[[np.ndarray], bool]) -> np.ndarray:
        """Give back each dropped rule (last dropped first) whose weight raises the
        training accuracy and keeps the cap (``weights``: the original weights)."""
        best = self.accuracy(w)
        for j in dropped:
            trial = w.copy()
            trial[j] = weights[j]
            err = self.errors(self.votes(trial))
            accuracy = 1.0 - float(self.w @ err) / float(self.w.sum())
            if accuracy > best + 1e-12 and self.gap(self._sums(err)) <= epsilon + TOL \
                    and accept(trial):
                w, best = trial, accuracy
        return w

    def lp_value(self, weights: np.ndarray, pen_par: float, costs: np.ndarray
                 ) -> tuple[float, np.ndarray]:
        """The objective of (3) at ``weights`` with their optimal slacks
        ``v_i = max(0, 1 - sum_j ahat_ij w_j)`` (the fairness rows aside), and ``v``."""
        margin = np.zeros(len(self.y))
        for j in np.flatnonzero(weights > 0):
            rows = self.cover[j]
            margin[rows] += weights[j] * ahat(self.y[rows], int(self.labels[j]), self.K)
        v = np.clip(1.0 - margin, 0.0, None)
        return float(pen_par * (costs @ weights) + self.w @ v), v

    def accuracy(self, weights: np.ndarray) -> float:
        err = self.errors(self.votes(weights))
        return 1.0 - float(self.w @ err) / float(self.w.sum())


def repair_fairness(gen: RuleGeneration, res: RUGResult,
                    realised: Callable[[list[Rule]], float], epsilon: float,
                    deadline: Deadline, default: int, threshold: float = 0.0
                    ) -> tuple[RUGResult, dict[str, Any]]:
    """``res`` with weights that meet ``epsilon`` on the training rows (see the module
    docstring) and what was tried: ``{"realised_before", "lp_caps", "realised", "chosen",
    "met", "stopped"}`` (``chosen``: "fit", "lp_cap=<cap>", "greedy from <start>, <k>
    rules dropped" or :data:`NO_RULES`; ``stopped``: the deadline ended the repair).  The
    result's ``objective`` and ``v`` are those of (3) at the kept weights, which may exceed
    the LP's own fairness caps (they are chosen for the predictions' gap, not the slacks').
    ``realised`` measures a list of weighted rules; ``default``: the class of rows no rule
    covers; ``threshold``: rules lighter than this times the heaviest are pruned from the
    model (as the estimator does)."""
    info = _first_info(realised(res.rules), epsilon, stopped=False)
    if info["met"]:
        return res, info
    votes = _Votes(gen, default)
    found: list[tuple[float, str, np.ndarray, Any]] = []  # accuracy, name, weights, LP
    starts = [("fit", _pruned(np.array([r.weight for r in res.rules]), threshold))]
    original = gen.fairness
    try:
        for factor in CAP_FACTORS:
            cap = epsilon * factor
            if info["lp_caps"] and cap == info["lp_caps"][-1]:
                continue  # epsilon = 0: every factor gives the same LP
            if deadline.expired():
                break
            gen.fairness = dataclasses.replace(original, epsilon=cap)
            master, cell = gen.build_master()
            sol = master.solve(deadline)
            if sol.status != "optimal":
                continue
            weights = _pruned(sol.values[np.asarray(master.cols, dtype=int)], threshold)
            gap = realised(_reweighted(res.rules, weights))
            info["lp_caps"].append(cap)
            info["realised"].append(gap)
            progress("repair", since_fit(), float(sol.objective), lp_cap=f"{cap:g}",
                     realised=f"{gap:.4g}", cap=f"{epsilon:g}")
            if gap <= epsilon + TOL:
                found.append((votes.accuracy(weights), f"lp_cap={cap:g}", weights,
                              (sol, master, cell)))
                break
            starts.append((f"lp_cap={cap:g}", weights))
    finally:
        gen.fairness = original
    for name, start in starts:
        chosen = votes.greedy(start, epsilon,
                              lambda w: realised(_reweighted(res.rules, w)) <= epsilon + TOL,
                              deadline)
        progress("repair", since_fit(), greedy_from=name, met=chosen is not None)
        if chosen is not None:
            dropped = int(((start > 0) & (chosen <= 0)).sum())
            found.append((votes.accuracy(chosen), f"greedy from {name}, {dropped} rules "
                          "dropped", chosen, None))
    info["stopped"] = deadline.expired()
    if not found:
        weights = _no_rules(res.rules, realised, epsilon, info)
        if weights is None:
            return res, info
        found.append((votes.accuracy(weights), NO_RULES, weights, None))
    accuracy, name, weights, lp = max(found, key=lambda f: f[0])
    info.update(chosen=name, met=True, accuracy_before=votes.accuracy(starts[0][1]),
                accuracy_after=accuracy)
    rules = _reweighted(res.rules, weights)
    if lp is None:  # the greedy selection: (3)'s value and slacks at these weights
        objective, v = votes.lp_value(weights, gen.pen_par, np.asarray(gen._costs))
        return dataclasses.replace(res, rules=rules, objective=objective, v=v), info
    sol, master, cell = lp
    return dataclasses.replace(res, rules=rules, objective=float(sol.objective),
                               v=sol.values[master.v_cols][cell]), info


def unsolved_repair(res: RUGResult, realised: Callable[[list[Rule]], float], epsilon: float
                    ) -> tuple[RUGResult, dict[str, Any]]:
    """The repair when no master LP was solved in time (``res``: the initial rules, weight
    1 each): they are kept if they meet ``epsilon``, else the rule set without rules when
    it does (DMC and EOP: always), else they stay; the dictionary as
    :func:`repair_fairness`'s, ``stopped`` True."""
    info = _first_info(realised(res.rules), epsilon, stopped=True)
    if info["met"]:
        return res, info
    weights = _no_rules(res.rules, realised, epsilon, info)
    if weights is None:
        return res, info
    info.update(chosen=NO_RULES, met=True)
    return dataclasses.replace(res, rules=_reweighted(res.rules, weights)), info


def _first_info(before: float, epsilon: float, stopped: bool) -> dict[str, Any]:
    """What a repair records before it tries anything: the fit's realised gap ``before``
    and whether it meets ``epsilon`` already."""
    return {"realised_before": before, "lp_caps": [], "realised": [], "chosen": "fit",
            "met": before <= epsilon + TOL, "stopped": stopped}


def _no_rules(rules: list[Rule], realised: Callable[[list[Rule]], float], epsilon: float,
              info: dict[str, Any]) -> np.ndarray | None:
    """The weights of the rule set without rules (every row the default class) when it
    meets ``epsilon``, else None; its gap goes to ``info["realised_after"]``.  Nothing else
    met the cap: the deadline cut the search short (DMC, EOP) or the cap is out of reach
    (ODM)."""
    weights = np.zeros(len(rules))
    info["realised_after"] = realised(_reweighted(rules, weights))
    return None if info["realised_after"] > epsilon + TOL else weights


def _pruned(weights: np.ndarray, threshold: float) -> np.ndarray:
    """``weights`` with those the model would prune (below ``threshold`` times the largest,
    or ~0) set to 0, so later removals never bring a pruned rule back."""
    w = np.clip(np.asarray(weights, dtype=float), 0.0, None)
    if not len(w):
        return w
    top = float(w.max())
    keep = (w > 1e-9) & (w >= threshold * top - 1e-12 * max(1.0, top))
    return np.where(keep, w, 0.0)


def _reweighted(rules: list[Rule], weights: np.ndarray) -> list[Rule]:
    """The rules with new weights (pool rules beyond ``weights`` get 0)."""
    return [dataclasses.replace(r, weight=float(weights[j]) if j < len(weights) else 0.0)
            for j, r in enumerate(rules)]
