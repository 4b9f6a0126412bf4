"""A tree estimator's fit in the trees room: checked parameters and a raw table -> the
encoding, the engine (the numeric search over every threshold, or the 0/1 searches and the
MIP), fairness's threshold generation and certificate, the objectives' views -> one
:class:`FitResult` and the :class:`~optrees.encoding.binary.Encoding` predict needs."""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..._validation import (
    OptreesInputError,
    check_group_count,
    check_max_leaves,
    not_a_column,
    positive_class_index,
    small_weight_exponent,
)
from ...encoding.binary import (
    Encoding,
    binarize,
    every_threshold,
    has_numeric_column,
    is_binary_frame,
)
from ...encoding.bins import cart_cuts
from ...encoding.common import is_numeric
from ...encoding.thresholds import ThresholdColumns
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..mip.formulation import check_model_size
from ..problem.fairness import TreeFairness
from ..problem.objectives import ClassificationView, MisclassificationCosts, objective_class
from ..problem.tree_problem import TreeProblem
from ..search.binary.fair import MAX_FAIR_DEPTH
from ..search.fair_thresholds import MAX_CERTIFIED_DEPTH, Certificate, better_fair_stump
from ..search.threads import search_threads
from .binary import solve_tree
from .engines import Request, binary_search_off, every_threshold_off, numeric_search_off
from .feature_costs import solve_with_feature_costs
from .numeric import solve_numeric_tree
from .views import ViewObjective, solve_costs

FAIR_BINS = 20
"""Quantile cuts per numeric column of ``binarizer="auto"`` under fairness when the exact front
search takes the fit (depth <= 3, no max_leaves); the MIP fallback keeps the default 5.
Measured on adult (70 % for training, lam = 0, every fit proved; 2-core machine under load):
over sex / race, statistical parity, equal opportunity and equalized odds, depths 2 and 3,
20 cuts gained 0.4-3.7 test points (race, parity 0.05, depth 2: 0.7693 -> 0.7980; sex,
parity 0.05, depth 3: 0.8138 -> 0.8257) for 1-3x the time (race, depth 3: 41 s -> 129 s)."""

FAIR_EVERY_THRESHOLD = {1: 5_000, 2: 1_000, 3: 200}
"""Most 0/1 columns the exact front search gets under fairness at each depth.  Numeric
columns are cut at every threshold, those with the fewest values first, while the columns
stay within it (the others get FAIR_BINS quantile cuts and CART's); when all are, the
optimum holds over every threshold.  The front search's time grows with the square of the
columns at depth 2 and their cube at depth 3; at depth 1 the 0/1 matrix itself (rows x
columns bytes) is what the budget bounds.  Measured on adult (statistical parity by
sex, BendOCT, proved): depth 2, 22,621 rows, 490 columns, 1.0-2.1 s; depth 3, 30,162 rows,
148 / 163 columns 9-11 s / 16-20 s (beside a test run), 482 columns not proved in 300 s."""

CERTIFICATE_SECONDS = 10.0
"""Time the certificate over every threshold of a fair fit may take at least (else four
times the fit so far), within the time limit: a fit that cannot be certified keeps most of
its time.  Measured on adult (22,621 rows, ``fnlwgt`` coarse): depth 2, 1.5 s per
multiplier, 2-3 multipliers to certify.  Depth 3 searches every threshold of all trees per
multiplier (attrition, 1,102 rows: 12-14 s; adult: about 100 s), so its first attempt
takes this time only: an adult fit of 6.5 s then takes 16.5 s and stays over its quantile
cuts (with four times the fit: 31-34 s), while on attrition the first search, stopped,
finds a better fair tree and the repeated fit, given four times the fit, certifies it
(all four fits of bench/fair_every_threshold.py within 60 s)."""


def min_leaf_rows(value: float, n_rows: int) -> int:
    """``min_samples_leaf`` in rows: a count as given, a fraction of ``n_rows`` rounded up
    (scikit-learn's rule)."""
    return int(value) if isinstance(value, int) else max(1, math.ceil(value * n_rows))


def fair_cuts(df: pd.DataFrame, depth: int,
              cart: dict[str, np.ndarray] | None) -> dict[str, np.ndarray] | None:
    """The cuts added to FAIR_BINS quantiles for a fair fit of ``depth`` on ``df``: every
    value of the numeric columns with the fewest values within FAIR_EVERY_THRESHOLD
    columns, and CART's cuts ``cart`` on the other columns."""
    values = {str(c): np.unique(df[c].to_numpy(dtype=float)) for c in df.columns
              if is_numeric(df[c])}
    cats = sum(max(1, int(df[c].nunique()) - (int(df[c].nunique()) == 2))
               for c in df.columns if not is_numeric(df[c]))
    total = cats + sum(min(len(v) - 1, FAIR_BINS - 1) for v in values.values())
    cuts = dict(cart or {})
    for name, v in sorted(values.items(), key=lambda item: len(item[1])):
        more = (len(v) - 1) - min(len(v) - 1, FAIR_BINS - 1)
        if total + more > FAIR_EVERY_THRESHOLD[depth]:
            break
        if more:  # x >= v for each value v but the smallest: every threshold
            total += more
            cuts[name] = v[1:]
    return cuts or None


@dataclass(frozen=True)
class TreeMethod:
    """What distinguishes the tree estimators: their MIP (``formulation(problem)``), whether
    the exact searches run first, the penalty (``"splits"`` / ``"leaves"``) and a name for
    messages."""

    formulation: Callable[[TreeProblem], Any]
    search: bool
    penalty: str
    name: str


class TreeFit:
    """One fit of a tree estimator with its checked parameters ``p``; ``guard(deadline)``
    wraps each solver call (the estimators' Ctrl-C policy)."""

    def __init__(self, p: Any, method: TreeMethod,
                 guard: Callable[[Deadline], AbstractContextManager] = nullcontext) -> None:
        self.p, self.method, self.guard = p, method, guard
        self.groups: np.ndarray | None = None  # fit(groups=...): the sensitive groups
        self.numeric: tuple[pd.DataFrame, bool] | None = None  # a table, has_numeric_column
        self.columns: tuple[pd.DataFrame, list] | None = None  # a table, its dtypes

    # ------------------------------------------------------------------ entry
    def solve(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
              classes: np.ndarray, deadline: Deadline, groups: np.ndarray | None = None,
              objective: ViewObjective | None = None) -> tuple[FitResult, Encoding]:
        """The fit's tree for its objective: accuracy, a cost matrix, feature costs
        (``groups``: the sensitive group of each row, when not a column of ``df``), or
        ``objective``, another objective solved on its view (a policy's scores).  The 0/1
        search runs on ``n_jobs`` threads (or a Dask cluster's workers) when the parameters
        have one (:func:`~optrees.trees.search.threads.search_threads`)."""
        p = self.p
        self.groups = groups
        self.request(df).check()
        # tiny weights solved as weights of mean about 1 (a power of two: exact), where the
        # objective allows it: BendOCT's leaf penalty (a share of the weight) or no penalty
        # (the weight itself, scaled back below); the tree's counts stay the given weights
        linear = self.method.penalty == "splits"
        e = small_weight_exponent(w) if not linear or p.lam == 0 else 0
        w = w if e == 0 else np.ldexp(w, -e)
        with search_threads(p.get("n_jobs")):
            if objective is not None:
                done = self._costs(objective, df, y, w, classes, deadline)
            else:
                done = self._by_objective(df, y, w, classes, deadline)
        if e:
            result = done[0]
            if getattr(result.model, "counts", None) is not None:
                result.model.counts = np.ldexp(result.model.counts, e)
            if linear:
                result.objective = math.ldexp(result.objective, e)
                result.bound = math.ldexp(result.bound, e)
        return done

    def _by_objective(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                      classes: np.ndarray, deadline: Deadline) -> tuple[FitResult, Encoding]:
        """:meth:`solve` for the estimator's own objective: accuracy, a cost matrix or
        feature costs."""
        p = self.p
        costs = p.get("misclassification_costs")
        matrix = None if costs is None else MisclassificationCosts.from_spec(costs, classes)
        if p.get("feature_costs") is not None:
            return self._feature_costs(df, y, w, classes, deadline, matrix)
        if matrix is not None:
            return self._costs(matrix, df, y, w, classes, deadline)
        return self._accuracy(df, y, w, classes, deadline)

    def request(self, df: pd.DataFrame) -> Request:
        """What this fit asks of the engines (:mod:`.engines`), before encoding ``df``."""
        p = self.p
        max_leaves = p.get("max_leaves")
        if self.numeric is None or self.numeric[0] is not df:  # asked once per table
            self.numeric = (df, has_numeric_column(df, self.dtypes(df)))
        return Request(p.depth, self.method.search,
                       isinstance(p.binarizer, str) and p.binarizer == "auto",
                       self.numeric[1], p.get("fairness") is not None,
                       check_max_leaves(max_leaves, p.depth),
                       p.get("misclassification_costs") is not None,
                       p.get("feature_costs") is not None)

    def dtypes(self, df: pd.DataFrame) -> list:
        """``df.dtypes.tolist()``, read once per table in a fit (15-20 us a read)."""
        if self.columns is None or self.columns[0] is not df:
            self.columns = (df, df.dtypes.tolist())
        return self.columns[1]

    # ------------------------------------------------------------------ accuracy
    def _accuracy(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                  classes: np.ndarray, deadline: Deadline,
                  view: ClassificationView | None = None,
                  encoded: tuple[np.ndarray, Encoding] | None = None
                  ) -> tuple[FitResult, Encoding]:
        """Encode and solve (rows weighted by ``w``, None: 1); ``view``: the rows are an
        objective's pseudo-rows (:mod:`optrees.trees.problem.objectives`); ``encoded``: their
        0/1 matrix and its encoding when the caller has them (a 0/1 table kept as it is),
        ``df`` then being the table they repeat (asked for its columns only)."""
        p = self.p
        # side constraints (FlowOCT, BendersOCT, BendOCT; the OCT and BinOCT baselines have none)
        min_leaf = min_leaf_rows(p.get("min_samples_leaf", 1), len(y))
        fair = tree_fairness(df, classes, p, self.groups)
        columns = None
        if fair is not None and p.drop_sensitive and p.sensitive is not None:
            # the groups stay, the column goes
            df = df.drop(columns=[str(p.sensitive)])
            columns = list(df.columns)
        request = self.request(df)
        max_leaves = request.max_leaves  # None when every tree of the depth keeps within it
        every = every_threshold_off(request) is None
        if numeric_search_off(request) is None:  # it takes min_leaf and max_leaves
            encoding = every_threshold(df)
            encoding.matrix = encoding.transform(df)
            with self.guard(deadline):
                result = solve_numeric_tree(encoding.matrix, y, classes, p.depth, p.lam,
                                            self.method.penalty, deadline,
                                            (encoding.names, encoding.negated), w, min_leaf,
                                            max_leaves, view)
            return result, encoding
        cuts = self._cart_cuts(df, y, w, min_leaf, max_leaves)

        def binarized(n_bins: int | None, extra: Any = cuts) -> tuple[TreeProblem, Encoding]:
            """The problem over the 0/1 columns of ``n_bins`` cuts (None: the default) and
            ``extra`` ones (CART's)."""
            X, encoding = encoded if encoded is not None else \
                binarize(df, p.binarizer, w, n_bins, extra, self.dtypes(df))
            encoding.columns, encoding.matrix = columns, X
            return TreeProblem(X, y, len(classes), p.depth, p.lam, self.method.penalty, w,
                               min_leaf, max_leaves, fair, view), encoding

        fine = every and fair is not None and max_leaves is None and p.depth <= MAX_FAIR_DEPTH
        extra = fair_cuts(df, p.depth, cuts) if fine else None
        certificate: list[Certificate] = []  # built by the first round that needs it
        kept: tuple | None = None  # the round before: its result and encoding
        for _ in range(3):  # at depth 1 and 3, each round adds the cuts of a better fair tree
            problem, encoding = binarized(FAIR_BINS, extra) if fine else binarized(None)
            if fine and binary_search_off(problem) is not None:  # the MIP gets the default cuts
                problem, encoding = binarized(None)
            form = self.method.formulation(problem)
            check_model_size(form.model_size(), f"{self.method.name} at depth {p.depth} on "
                             f"{problem.n_samples} samples x {problem.n_features} binary "
                             "features")
            started = deadline.elapsed()
            with self.guard(deadline):
                result = solve_tree(problem, form, deadline, classes,
                                    (encoding.names, encoding.negated), p.random_state,
                                    p.verbose, p.warm_start, search=self.method.search)
            if kept and result.status != "optimal" and \
                    result.objective < kept[0].objective - 1e-12:
                # a repeat stopped by the time limit below the round before: keep that one
                result, encoding = kept
                encoding.thresholds = "binarized"
                break
            lossy = encoding.lossy(df)
            if every:  # the numeric search does not take fairness: the binarizer's thresholds
                result.stats["every_threshold"] = (
                    "off: fairness, over quantile cuts and CART's" if lossy
                    else "fairness: every threshold as 0/1 columns")
            if not (fine and lossy and result.status == "optimal"):
                break
            # the certificate's time, leaving this round's for a repeat (one stopped below
            # this round gives it back); depth 3's searches are long, so four times the fit
            # only once one found a better tree
            first = p.depth >= 3 and kept is None
            within = deadline.reserve(deadline.elapsed() - started).within(
                CERTIFICATE_SECONDS if first else max(CERTIFICATE_SECONDS,
                                                      4.0 * deadline.elapsed()))
            more = certify_thresholds(df, encoding, problem, result, certificate, within)
            if not more:
                break
            kept = (result, encoding)
            extra = dict(extra or {})
            for column, value in more:
                extra[column] = np.append(extra.get(column, []), value)
        return result, encoding

    def _cart_cuts(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                   min_leaf: int, max_leaves: int | None) -> dict[str, np.ndarray] | None:
        """Under ``binarizer="auto"``, the cuts of CART of the fit's depth, leaf size and leaf
        budget (:func:`~optrees.encoding.bins.cart_cuts`), added to the quantile cuts: the
        warm start (CART on the 0/1 columns) then finds CART's own tree, so the MIP's tree is
        never below CART's on training data (ties between equally good splits aside)."""
        p = self.p
        request = self.request(df)
        if not (request.auto_binarizer and request.numeric):
            return None
        return cart_cuts(df, y, p.depth, w, min_samples_leaf=min_leaf,
                         max_leaf_nodes=max_leaves if max_leaves is None or max_leaves > 1
                         else 2)

    # ------------------------------------------------------------------ other objectives
    def _costs(self, costs: ViewObjective, df: pd.DataFrame, y: np.ndarray,
               w: np.ndarray | None, classes: np.ndarray, deadline: Deadline
               ) -> tuple[FitResult, Encoding]:
        """The tree of least misclassification cost: the same solve on the cost objective's
        weighted-classification rows (:mod:`optrees.trees.problem.objectives`)."""
        p = self.p
        done: list[Encoding] = []
        # a 0/1 table kept as it is: encoded once, the pseudo-rows are rows of its matrix
        dtypes = self.dtypes(df)
        kept = binarize(df, None, dtypes=dtypes) if p.binarizer is None or (
            self.request(df).auto_binarizer and is_binary_frame(df, dtypes)) else None

        def solve(view: ClassificationView, lam: float, min_leaf: int) -> FitResult:
            inner = TreeFit(type(p)(p, lam=lam, min_samples_leaf=min_leaf), self.method,
                            self.guard)
            inner.numeric, inner.columns = self.numeric, self.columns
            if kept is None:  # the encoding depends on the rows: encode the pseudo-rows
                rows = df.iloc[view.rows].reset_index(drop=True)
                result, encoding = inner._accuracy(rows, view.labels, view.weights, classes,
                                                   deadline, view)
            else:
                result, encoding = inner._accuracy(df, view.labels, view.weights, classes,
                                                   deadline, view, (kept[0][view.rows], kept[1]))
            done.append(encoding)
            return result

        def features() -> np.ndarray:
            return kept[0] if kept is not None else done[-1].transform(df)

        result = solve_costs(costs, solve, features, y, w, p.lam, self.method.penalty,
                             min_leaf_rows(p.min_samples_leaf, len(y)))
        return result, done[-1]

    def _feature_costs(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                       classes: np.ndarray, deadline: Deadline,
                       matrix: MisclassificationCosts | None) -> tuple[FitResult, Encoding]:
        """The best tree when tests cost (:mod:`optrees.trees.problem.objectives.feature_costs`):
        the 0/1 subtree search, which carries a path's columns; numeric columns binarized
        (quantile and CART's cuts), no MIP (the search's bound)."""
        p = self.p
        costs = objective_class("feature_costs").from_spec(p.feature_costs, list(df.columns))
        min_leaf = min_leaf_rows(p.min_samples_leaf, len(y))
        X, encoding = binarize(df, p.binarizer, w, None,
                               self._cart_cuts(df, y, w, min_leaf, None), self.dtypes(df))
        with self.guard(deadline):
            result = solve_with_feature_costs(
                X, encoding.feature_columns(df), (encoding.names, encoding.negated), y, w,
                classes, p.depth, p.lam, self.method.penalty, min_leaf, costs, matrix,
                deadline)
        if encoding.lossy(df):
            result.stats["every_threshold"] = every_threshold_off(self.request(df))
        return result, encoding


def fit_groups(groups: Any, p: Any, n: int, w: np.ndarray | None) -> np.ndarray | None:
    """``fit(groups=...)`` checked: one group per row, not together with ``sensitive``, the
    rows of weight 0 left out as the fit leaves them out."""
    if groups is None:
        return None
    if p.get("fairness") is None:
        raise OptreesInputError("groups are the sensitive groups of a fair fit: set fairness= "
                                "too (without it they would be ignored)")
    if p.get("sensitive") is not None:
        raise OptreesInputError("give the sensitive attribute once: sensitive=<column of X> "
                                "or groups=<one group per row> in fit, not both")
    groups = np.asarray(groups, dtype=object)
    if groups.shape != (n,):
        raise OptreesInputError(f"groups must hold one group per row of X ({n}), got shape "
                                f"{groups.shape}")
    if pd.isna(pd.Series(groups)).any():
        raise OptreesInputError("groups has missing values; give every row a group")
    return groups if w is None or w.all() else groups[w > 0]


def tree_fairness(df: pd.DataFrame, classes: np.ndarray, p: Any,
                  groups: np.ndarray | None = None) -> TreeFairness | None:
    """The fairness constraint of the fit (None without ``fairness``); the groups are the
    ``sensitive`` column's or ``groups``; one clear error for a missing or unknown column, a
    single group or a class count it cannot take."""
    kind = p.get("fairness")
    for name in ("sensitive", "legitimate"):
        col = p.get(name)
        if col is not None and str(col) not in df.columns:
            raise not_a_column(name, col, df.columns)
    if kind is None:
        return None
    if p.sensitive is None and groups is None:
        raise OptreesInputError(f"fairness={kind!r} needs the sensitive attribute: set "
                                "sensitive=<column name of X> or pass groups= to fit")
    codes = pd.factorize(df[str(p.sensitive)] if groups is None else pd.Series(groups),
                         use_na_sentinel=False)[0]
    what = f"the sensitive column {p.sensitive!r}" if groups is None else "groups"
    if codes.max(initial=0) < 1:
        raise OptreesInputError(f"{what} has a single group; fairness compares two or more")
    check_group_count(int(codes.max()) + 1, what)
    legit = None
    if kind == "conditional_parity":
        if p.legitimate is None:
            raise OptreesInputError("fairness='conditional_parity' needs legitimate=<column "
                                    "name of X> (parity is asked within its values)")
        legit = pd.factorize(df[str(p.legitimate)], use_na_sentinel=False)[0]
    return TreeFairness(kind, float(p.epsilon), codes,
                        positive_class_index(p.positive_class, classes), legit)


def certify_thresholds(df: pd.DataFrame, encoding: Encoding, problem: TreeProblem,
                       result: FitResult, certificate: list[Certificate],
                       deadline: Deadline) -> list[tuple[str, float]]:
    """Whether a fair optimum over quantile cuts holds over every threshold (two classes,
    depth <= 3; :mod:`optrees.trees.search.fair_thresholds`): no fair tree (at depth <= 2: testing a
    coarse column) beats it; then ``encoding.thresholds`` becomes "all".  Returns the cuts
    ``(column, value)`` (rows with ``x >= value`` on the right) of a better fair tree found
    on the way (depth 1: every stump enumerated; depth 3: the certificate's searches), for
    the next round; ``certificate`` keeps the certificate across rounds.  It stops at
    ``deadline``."""
    fair = problem.fairness
    if problem.n_classes != 2 or problem.depth > MAX_CERTIFIED_DEPTH:
        return []
    encoder = ThresholdColumns(df, "onehot")
    coarse = set(encoding.binarizer.coarse_columns(df))
    column: list[str | None] = []  # per feature of the encoder: its coarse column
    for kind, c, values in encoder.specs:
        column += [str(c) if str(c) in coarse else None] if kind == "num" else \
            [None] * len(values)
    X = encoder.transform(df)
    coords, cells = fair.coordinates(problem.y, problem.weights)
    score = (result.objective - problem.split_cost) / problem.correct_weight
    args = (X, np.array([c is not None for c in column]), problem.y, problem.weights, coords,
            cells, fair.epsilon, fair.positive)
    if problem.depth == 1:
        better = better_fair_stump(*args, score, problem.leaf_penalty, problem.min_leaf)
        if better is not None:
            return [(encoder.names[better[0]], better[1])]
        how = "every stump on them enumerated"
    else:
        if not certificate:
            certificate.append(Certificate(*args, problem.depth, problem.leaf_penalty,
                                           problem.min_leaf))
        cert = certificate[0]
        done = cert.run(score, result.stats.get("search_multipliers"), deadline)
        if math.isfinite(cert.bound):  # over every threshold, in the fit's units
            top = min(cert.bound, float(problem.weights.sum()) - problem.leaf_penalty)
            result.stats["every_threshold_bound"] = (problem.split_cost +
                                                     problem.correct_weight * top)
        if not done:
            result.stats["every_threshold"] += "; not certified for every threshold"
            if cert.better is None or cert.better.score <= score + cert.tol:
                return []
            # x >= the value above t, for each test x <= t on a coarse column
            return [(column[f], float(X[X[:, f] > t, f].min()))
                    for f, t in cert.better.tests if column[f] is not None]
        how = "a Lagrangian bound"
    encoding.thresholds = "all"
    result.stats["every_threshold"] = ("fairness: over quantile cuts, certified optimal "
                                       f"for every threshold by {how}")
    return []
