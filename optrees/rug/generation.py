"""RUG's column generation ([RUG] §3.2): master LP (3) over a growing rule pool, priced by
trees (§3.4) or exactly (§3.3), until no rule prices out, the round limit or the deadline.

Every leaf rule of a pricing tree with negative reduced cost (5) enters the pool, with the
class that minimizes its reduced cost (the beta-weighted majority class of the samples it
covers), unless a pool rule already covers the same training samples: with tree pricing a
coverage is one column of (3), with one class (the paper's code and ruleopt label a leaf by
the class its dual-weighted tree predicts there; ruleopt keeps a conjunction once).  Else,
for K > 2, the same coverage with two classes k, l at weight 2 each meets the margin of (2)
of every covered sample of k or l (its own vote 2 minus the mean 1 of the others): the LP
pays nothing for these exact ties, and argmax gives them all to the first class
(hayes-roth, seed 3: training accuracy 0.62).

With ``majority_labels`` (the estimators' default for K > 2 with tree pricing) a leaf's class
is instead the heaviest class among the training samples it covers (ties: the one minimizing
(5)), and the rule enters only if that column prices out.  The margin of (2) for K > 2 is the
own class's vote minus the *mean* vote of the others, so two rules of classes k and l on
nearly the same rows, each at weight 7/6 (K = 8), give every covered sample of k and of l the
margin 1 (zero loss), while the vote can give those rows only one class.  The duals make this
cheap: once the rows of class k are met, the next leaf over them is labelled by its uncovered
minority l.  Seen on ecoli (seed 9 of ``optrees bench rug-multiclass``): a rule "then class 7"
covering 112 rows of class 0 and 40 of class 7, paired with a class-0 rule of weight 1.1660
against its 1.1666; the vote gave 162 of 268 training rows to class 7 (test accuracy 0.40).
A rule whose class is the majority of its own rows also reads true.  The price: a round
may add nothing while leaves still price out with their dual-weighted class (the pricing
tree sees only rows of positive dual, so its leaves can be pure in those and still hold more
met rows of another class).  The LP is then not optimal over the leaves offered.  Any split
of a cell's dual over its rows is an optimal dual of the per-sample LP, and the pricing tree
depends on which rows :func:`fill_duals` fills, so such a round prices again at up to
:data:`STALL_RETRIES` other fills (no LP is solved in between); if none adds a rule the run
ends ``"stalled"``, not ``"converged"``.  car-evaluation on ordinal codes, depth 3, seed 0,
without the retries: stopped after 3 LPs at LP value 264, where dual labels reach 23; over
10 splits (bench/rug_multiclass.py) the retries move it from -2.02 to +0.17 test points
against ruleopt (issue #42 item 7).

Exact pricing (§3.3, PSP (8) one class at a time) and any other pricer passed in (e.g.
exhaustive enumeration in the tests) price (rule, class) pairs: (3) over all of them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .._logging import progress, since_fit
from ..encoding.columns import RawColumns
from ..encoding.ranks import value_ranks
from ..models.rule_set import Literal, Rule
from ..solvers.deadline import Deadline
from .costs import ahat, class_scores, reduced_cost, rule_cost
from .exact import farley_bound
from .fairness import Fairness
from .master import RUGMaster
from .pricing import TreePricer
from .warmstart import LastLP, representatives, start_basis

RC_TOL = 1e-9
"""A rule enters the pool when its reduced cost is below ``-RC_TOL``."""
STALL_RETRIES = 5
"""With majority labels, how many more pricing trees a stalled round tries (see the module
doc), each at another optimal dual of the same LP (a new fill order of the cells' duals)."""

Pricer = Callable[[np.ndarray], Iterable[tuple[Literal, ...]]]


@dataclass
class RUGResult:
    """What :meth:`RuleGeneration.run` found (the best master LP solved)."""

    rules: list[Rule]  # every rule in the pool, with its LP weight (0 if unused)
    objective: float
    n_rmp_calls: int
    status: str  # "converged" | "stalled" | "iteration_limit" | "time_limit" | an LP failure
    lp_status: str
    v: np.ndarray
    beta: np.ndarray
    history: list[float]
    master: RUGMaster
    reduced_costs: np.ndarray | None = None  # HiGHS's own, for the rule columns
    lower_bound: float | None = None  # on the master over every pool rule (exact pricing only)


class RuleGeneration:
    """Column generation for the master LP (3); tree pricing by default (§3.4).

    Each round the master LP is rebuilt over *cells*: samples with the same label and group
    that every rule of the pool covers alike.  This aggregation is exact (see
    :class:`~optrees.rug.master.RUGMaster`) and keeps the LP small on large data sets (rules
    come from shallow trees, so the cells are few); a cold dual simplex solve of the small LP
    (of its dual, without fairness) is cheaper than warm re-solves of the per-sample LP with
    its dense rule columns.  With fairness the last round's basis, mapped onto the new cells,
    warm-starts it.  Cells are refined in place as rules enter (numbered in the order of
    their coverage keys).  ``deadline`` (None: none) ends the rounds; its stop flag
    (Ctrl-C) also ends a running LP.
    """

    def __init__(self, raw: RawColumns, y: np.ndarray, n_classes: int, *, max_depth: int = 3,
                 pen_par: float = 1.0, max_rmp_calls: int = 10, rule_length_cost: bool = True,
                 fairness: Fairness | None = None, random_state: int = 0,
                 pricer: Pricer | None = None, deadline: Deadline | None = None,
                 interior: bool = False, sample_weight: np.ndarray | None = None,
                 majority_labels: bool = False) -> None:
        self.raw = raw
        self.interior = interior
        self.majority_labels = majority_labels
        self.y = np.asarray(y, dtype=np.int64)
        # row weights: sample i's slack costs w_i in (3), so its dual lies in [0, w_i]
        self.weighted = sample_weight is not None
        self.w = (np.asarray(sample_weight, dtype=float) if self.weighted
                  else np.ones(len(self.y)))
        self.K = int(n_classes)
        self.pen_par = float(pen_par)
        self.max_rmp_calls = max_rmp_calls
        self.rule_length_cost = rule_length_cost
        self.fairness = fairness
        self.random_state = random_state
        self.pricer = pricer
        self.deadline = Deadline() if deadline is None else deadline
        self.tree_pricer = TreePricer(raw, self.y, max_depth, random_state, self.deadline)
        self._rng = np.random.default_rng(random_state)  # the orders of fill_duals
        self._ranks: np.ndarray | None = None  # per-column value ranks (_fill_key)
        # sample-level fairness sets (validated once, up front)
        self._fair_sets = None if fairness is None else [fam for _, fam in
                                                         fairness.sets(self.y, self.K)]
        base = self.y.copy()
        if fairness is not None:
            base = base * (int(fairness.groups.max()) + 1) + fairness.groups
        self._cell_key = np.unique(base, return_inverse=True)[1].astype(np.int64)
        self._n_cells = int(self._cell_key.max()) + 1 if len(base) else 0
        self._keys: set = set()  # (literals, class) of each pool rule
        self._covers: set[bytes] = set()  # training coverage of each pool rule
        self._masks: list[np.ndarray] = []
        self._literals: list[tuple[Literal, ...]] = []
        self._labels: list[int] = []
        self._costs: list[float] = []

    # ---------------------------------------------------------------- the rule pool
    def reduced_cost(self, cover: np.ndarray, label: int, cost: float,
                     beta: np.ndarray) -> float:
        """(5) of a rule covering samples ``cover``, for per-sample duals ``beta``."""
        score = float(beta[cover] @ ahat(self.y[cover], label, self.K))
        return reduced_cost(self.pen_par, cost, score)

    def _add_candidates(self, candidates: Iterable[tuple[Literal, ...]], beta: np.ndarray,
                        require_negative: bool) -> int:
        """Add each new rule (of its best class) to the pool; with ``require_negative`` only
        those of negative reduced cost.  Returns how many entered."""
        added = 0
        for lits in candidates:
            mask = self.raw.mask(lits)
            cover = np.flatnonzero(mask)
            if len(cover) == 0:
                continue
            cover_key = np.packbits(mask).tobytes()
            if self.pricer is None and cover_key in self._covers:
                continue  # tree pricing: one column (and class) per coverage, see module doc
            score = class_scores(self.y[cover], beta[cover], self.K)
            label = self._label(cover, score)
            key = (lits, label)
            if key in self._keys:
                continue
            c = rule_cost(len(lits), self.rule_length_cost)
            if (require_negative
                    and reduced_cost(self.pen_par, c, float(score[label])) >= -RC_TOL):
                continue
            self._keys.add(key)
            self._covers.add(cover_key)
            self._literals.append(lits)
            self._masks.append(mask)
            self._labels.append(label)
            self._costs.append(c)
            self._refine(mask)
            added += 1
        return added

    def _refused(self, candidates: list[tuple[Literal, ...]], beta: np.ndarray) -> int:
        """How many new candidates price out (5) with the class minimizing it but were
        refused, their label being another class (``majority_labels``; 0 without)."""
        if not self.majority_labels:
            return 0
        refused = 0
        for lits in candidates:
            mask = self.raw.mask(lits)
            cover = np.flatnonzero(mask)
            if len(cover) == 0 or (self.pricer is None
                                   and np.packbits(mask).tobytes() in self._covers):
                continue
            score = class_scores(self.y[cover], beta[cover], self.K)
            best = int(np.argmax(score))
            c = rule_cost(len(lits), self.rule_length_cost)
            if ((lits, best) not in self._keys
                    and reduced_cost(self.pen_par, c, float(score[best])) < -RC_TOL):
                refused += 1
        return refused

    def _label(self, cover: np.ndarray, score: np.ndarray) -> int:
        """The class of a new rule covering samples ``cover`` (``score``: its
        ``sum_i beta_i ahat_ik`` per class): the class minimizing (5), or with
        ``majority_labels`` the heaviest class of its samples (see the module doc)."""
        if not self.majority_labels:
            return int(np.argmax(score))
        mass = np.bincount(self.y[cover], weights=self.w[cover], minlength=self.K)
        heaviest = mass >= mass.max() * (1.0 - 1e-12)
        return int(np.argmax(np.where(heaviest, score, -np.inf)))

    def _refine(self, mask: np.ndarray) -> None:
        """Split every cell by a new rule's coverage (cells stay numbered in key order)."""
        key = self._cell_key * 2 + mask
        present = np.zeros(2 * self._n_cells, dtype=bool)
        present[key] = True
        ids = np.cumsum(present) - 1
        self._cell_key = ids[key]
        self._n_cells = int(ids[-1]) + 1

    def build_master(self) -> tuple[RUGMaster, np.ndarray]:
        """The master LP over the current cells; returns it and the cell of each sample."""
        cell = self._cell_key
        n_cells = self._n_cells
        first = representatives(cell, n_cells)
        counts = np.bincount(cell, weights=self.w, minlength=n_cells)  # weight of each cell
        fair_sets = None
        if self._fair_sets is not None:  # group sizes in weight, as the cells' counts
            fair_sets = [[(np.unique(cell[idx]), float(self.w[idx].sum())) for idx in fam]
                         for fam in self._fair_sets]
        master = RUGMaster(self.y[first], self.K, self.pen_par, self.fairness,
                           seed=self.random_state, counts=counts, fair_sets=fair_sets,
                           interior=self.interior)
        # a rule covers a whole cell or none of it: test the representatives
        for mask, label, c in zip(self._masks, self._labels, self._costs, strict=True):
            master.add(np.flatnonzero(mask[first]), label, c)
        return master, cell

    def _price(self, beta: np.ndarray | None) -> Iterable[tuple[Literal, ...]]:
        """Candidate rules for per-sample duals ``beta`` (None: the initial rules)."""
        if self.pricer is not None:
            return self.pricer(self.w if beta is None else beta)
        if beta is None and self.weighted:  # the initial tree sees the rows' weights
            beta = self.w
        return self.tree_pricer(beta)

    # ---------------------------------------------------------------- the loop
    def run(self) -> RUGResult:
        """Generate rules until convergence, ``max_rmp_calls`` master LPs or the deadline."""
        n = len(self.y)
        t0 = time.perf_counter()
        self._add_candidates(self._price(None), self.w, require_negative=False)
        calls = 0
        best = None  # (objective, w, v, beta, lp status, reduced costs, master)
        history: list[float] = []
        status = "iteration_limit"
        lower_bound = None
        prev: LastLP | None = None  # the last LP's cells and basis (a warm start)
        while True:
            if best is not None and self.deadline.expired():
                status = "time_limit"
                break
            master, cell = self.build_master()
            res = master.solve(self.deadline, basis=start_basis(prev, master, cell))
            calls += 1
            prev = None
            if "basis" in res.stats and "duals" in res.stats:
                frac = res.stats["duals"][: master.n] / master.counts
                prev = (cell, res.stats["basis"], len(master.cols), frac)
            if res.status != "optimal" or "duals" not in res.stats:
                if res.status == "no_solution" and self.deadline.expired():
                    res.status = "time_limit"        # the time was up before the LP began
                if best is None and res.status in ("time_limit", "interrupted"):
                    # no LP solution in time (or Ctrl-C during the first LP): the initial
                    # rules, each with weight 1
                    best = (math.nan, np.ones(len(self._masks)), np.full(n, math.nan),
                            np.zeros(n), res.status, None, master)
                if best is None:
                    raise RuntimeError(f"master LP failed with status {res.status!r}")
                status = "time_limit" if res.status == "time_limit" else res.status
                break
            vals = res.values
            cols = np.asarray(master.cols, dtype=int)
            w = vals[cols]
            v = vals[master.v_cols][cell]
            key = self._fill_key()
            beta = fill_duals(res.stats["duals"][: master.n], cell, self.w, key)
            rc = res.stats["reduced_costs"][cols]
            best = (float(res.objective), w, v, beta, res.status, rc, master)
            lp_bound = float(res.bound)  # certified: valid for approximate (interior) duals
            history.append(float(res.objective))
            # the model is the LP's weighted rules: its value is the incumbent; exact
            # pricing's Farley bound (of an earlier round) bounds the master over every rule
            progress("RUG", since_fit(t0), float(res.objective), lower_bound,
                     None if lower_bound is None
                     else (res.objective - lower_bound) / max(abs(res.objective), 1e-9),
                     round=calls, rules=len(self._masks))
            if calls >= self.max_rmp_calls:
                status = "iteration_limit"
                break
            if self.deadline.expired():
                status = "time_limit"
                break
            beta_pos = np.clip(beta, 0.0, None)
            if beta_pos.sum() <= 1e-12:  # every rc = lam * c_j >= 0: the LP optimum is reached
                status = "converged"
                break
            cands = self._price(beta_pos)
            if getattr(self.pricer, "exact", False):
                lb = farley_bound(lp_bound, self.pricer.last_min_rc, self.pen_par)
                if lb is not None and (lower_bound is None or lb > lower_bound):
                    lower_bound = lb
            cands = list(cands)
            added = self._add_candidates(cands, beta_pos, require_negative=True)
            retries = 0
            while (added == 0 and retries < STALL_RETRIES and not self.deadline.expired()
                   and self._refused(cands, beta_pos)):
                # a stall: price again at another optimal dual of the same LP (a new fill)
                retries += 1
                key = self._fill_key()
                beta_pos = np.clip(fill_duals(res.stats["duals"][: master.n], cell, self.w,
                                              key), 0.0, None)
                cands = list(self._price(beta_pos))
                added = self._add_candidates(cands, beta_pos, require_negative=True)
            if added == 0:
                # with majority labels a leaf may price out with another class only
                status = "stalled" if self._refused(cands, beta_pos) else "converged"
                break
        return self._result(best, calls, status, history, lower_bound)

    def _fill_key(self) -> np.ndarray:
        """The random row order of :func:`fill_duals`, new for each LP: a random projection
        of the rows' per-column value ranks, so equal rows get equal keys and the order (and
        so the rules) does not change with a column's units or any increasing transform of
        it, as the trees' splits do not (a projection of the raw values let a column in
        millimetres decide it)."""
        if self._ranks is None:
            self._ranks = np.column_stack(
                [value_ranks(col) for col in self.raw.matrix.T]).astype(float)
        return self._ranks @ self._rng.standard_normal(self._ranks.shape[1])

    def _result(self, best: tuple, calls: int, status: str, history: list[float],
                lower_bound: float | None) -> RUGResult:
        """The pool's rules with the weights of the best LP solved."""
        objective, w, v, beta, lp_status, rc, master = best
        rules = []
        for j, lits in enumerate(self._literals):
            weight = float(w[j]) if j < len(w) else 0.0
            rules.append(Rule(lits, self._labels[j], max(weight, 0.0), self._costs[j]))
        return RUGResult(rules, objective, calls, status, lp_status, v, beta, history,
                         master, rc, lower_bound)


def fill_duals(cell_dual: np.ndarray, cell: np.ndarray, w: np.ndarray,
               key: np.ndarray) -> np.ndarray:
    """Per-sample duals of (3) from each cell's dual ``cell_dual`` (at most the weight of its
    samples): in the order of ``key`` (random), a cell's samples take their whole weight
    ``w`` until the cell's dual is spent (the one that spends it takes the rest), as a vertex
    of the per-sample LP does and as the paper's code and ruleopt do (``fill_betas``, a new
    random order per LP).  Any split of the cell's dual is optimal; an even one shows the
    pricing trees every row of a partly met cell at a fraction of its weight, this one a
    random part of them at full weight, so successive trees differ.  Equal rows need equal
    keys (a random projection of the row): then a row of weight 2 and two copies of it get
    the same duals in total, and the same trees (scikit-learn's sample-weight check).  The
    per-sample LP of the paper is what this restores; measured against the even split
    (``optrees bench rug-multiclass``, splits 0-19, paired): +0.79 +- 0.61 test points over
    ecoli, glass, seeds and wine, within noise (bench/README.md)."""
    if not len(cell):
        return np.zeros(0)
    order = np.lexsort((key, cell))                           # by cell, then by key
    w_sorted, cell_sorted = w[order], cell[order]
    before = np.cumsum(w_sorted) - w_sorted                   # weight ahead of each sample
    first = np.r_[0, np.flatnonzero(cell_sorted[1:] != cell_sorted[:-1]) + 1]
    before -= np.repeat(before[first], np.diff(np.r_[first, len(order)]))  # ... in its cell
    beta = np.empty(len(cell))
    beta[order] = np.clip(cell_dual[cell_sorted] - before, 0.0, w_sorted)
    return beta
