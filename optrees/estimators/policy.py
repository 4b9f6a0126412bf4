"""OptimalPolicyTree: which treatment for whom, as a provably optimal tree learned from
observational data (historic treatment, outcome, propensity and outcome models)."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._params import (
    RANDOM_STATE,
    TIME_LIMIT,
    VERBOSE,
    Check,
    GeneratedInit,
    Integer,
    Options,
    Param,
    Params,
    Real,
    as_given,
    validate_params,
)
from .._validation import OptreesInputError, fit_weights
from ..export.nodes import count_text
from ..models.binary_tree import BinaryTree
from ..models.result import FitResult
from ..trees.mip.benders import BendersOCT
from ..trees.problem.objectives.policy import (
    NEEDS,
    TEACHERS,
    PolicyScores,
    cross_fit,
    teacher_scores,
)
from ..trees.solve.budget import solve_budgeted
from ..trees.solve.fit import TreeFit, TreeMethod
from ._base import (
    _BinaryInput,
    _TreePredictor,
    drop_weightless,
    fit_deadline,
    fit_frame,
    logged_fit,
    mark_numeric,
    stop_on_ctrl_c,
    store_result,
)
from .policy_budget import check_budget
from .tree_params import (
    BENDERS_DEFAULTS,
    BINARIZER,
    DEPTH,
    MAX_LEAVES,
    MIN_SAMPLES_LEAF,
    SIDE_DEFAULTS,
    WARM_START,
)

MODEL = Check("None or a scikit-learn estimator", as_given)
BUDGET = Check("None, {treatment: share} or one share per treatment", as_given)


class OptimalPolicyTree(GeneratedInit, _BinaryInput, _TreePredictor, BaseEstimator):
    """Optimal prescriptive (policy) tree: each leaf recommends one treatment, and the tree
    maximises the teacher's estimated mean outcome of its policy minus ``lam`` per leaf,

        objective = (1 / W) sum_i w_i Gamma[i, policy(x_i)] - lam * leaves,

    ``Gamma`` the ``teacher``'s scores (``"ipw"``, ``"dm"``, ``"dr"``, as in FlowOPT and
    pystreed; ``optrees.trees.problem.objectives.policy``), ``W`` the total weight.  The
    same exact engines as :class:`BendOCTClassifier` solve it (every threshold of numeric
    columns at depth <= 5, the 0/1 subtree search, the BendOCT MIP), on weighted-accuracy
    pseudo-rows: larger outcomes are better (negate a cost, with ``teacher="dr"`` or
    ``"dm"``: IPW scores 0 for every treatment but the observed one, so on negative
    outcomes its best policy avoids the observed treatments).

    ``fit(X, treatment, outcome, propensity=None, outcome_predictions=None,
    sample_weight=None)``: ``treatment`` integers ``0..K-1`` (K >= 2: from the columns of
    ``outcome_predictions`` or a propensity matrix when given, else the number of distinct
    treatments), or text labels (strings, a ``Categorical``), coded in sorted order: the
    tree then recommends and prints the labels, ``treatment_budget`` takes them as keys
    and ``treatments_`` lists them; ``propensity`` the probability of each row's own
    treatment (or an ``n x K`` matrix of all of them, columns in ``treatments_`` order), in
    (0, 1]; ``outcome_predictions`` ``n x K`` (a DataFrame whose columns name the
    treatments, codes or labels, is read by those names).  What the
    teacher needs and is not given is estimated by ``cv``-fold cross-fitting on X (one-hot
    categoricals): ``propensity_model`` (default logistic regression; estimates below 0.01
    are raised to it) and ``outcome_model`` per treatment (default gradient boosting); the
    estimates are ``propensity_`` and ``outcome_predictions_`` (None when not estimated;
    the models are fitted without weights, on the rows of positive weight; nan on the others).

    Fitted: ``tree_`` (leaf counts: historic treatments' weights), ``treatments_``,
    ``objective_`` (above, in the teacher's outcome units per unit of weight), ``bound_``
    (proven upper bound on it), ``gap_``, ``status_``, ``policy_value_`` (the first term
    alone), ``scores_`` (``Gamma``), ``leaf_values_`` and the timing attributes.
    ``predict(X)`` is the recommended treatment; ``predict_value(X)`` the teacher's estimated
    outcome under the policy: for a row reaching leaf ``l`` that recommends ``k``, the mean
    of ``Gamma[i, k]`` over the training rows ``i`` in ``l`` (weighted), an estimate of the
    leaf's mean outcome when treated with ``k``.

    ``treatment_budget``: at most a share of the rows' weight may get a treatment
    (``{k: share}``, any number of treatments; depth <= 3, over the 0/1 columns: the budget
    front search, ``optrees.trees.search.binary.budget``, certified under every budget);
    ``treatment_shares_`` are the fitted policy's shares on the training rows.

    Saved and loaded with :func:`optrees.save_model` / :func:`optrees.load_model`.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "depth": DEPTH,
        "lam": Param(Real(0.0), "penalty per leaf, in the teacher's outcome units per row"),
        "teacher": Param(Options(*TEACHERS), "the outcome estimate of each treatment: "
                         "'ipw', 'dm' or 'dr'"),
        "time_limit": TIME_LIMIT,
        "binarizer": BINARIZER,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "max_leaves": MAX_LEAVES,
        "cv": Param(Integer(2), "folds of the cross-fitted propensity and outcome models"),
        "propensity_model": Param(MODEL, "classifier of the treatment (None: logistic "
                                  "regression)", cli=""),
        "outcome_model": Param(MODEL, "regressor of the outcome, one per treatment (None: "
                               "gradient boosting)", cli=""),
        "treatment_budget": Param(BUDGET, "most share of the rows' weight per treatment: "
                                  "{treatment: share} or one share per treatment (None: "
                                  "no budget)"),
        "warm_start": WARM_START,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    _defaults: ClassVar[dict[str, Any]] = {
        "depth": 2, "lam": 0.0, "teacher": "dr", "time_limit": 60.0, "binarizer": "auto",
        "min_samples_leaf": 1, "max_leaves": None, "cv": 5, "propensity_model": None,
        "outcome_model": None, "treatment_budget": None, "warm_start": True,
        "random_state": None, "verbose": False}

    @logged_fit
    def fit(self, X: Any, treatment: Any, outcome: Any, propensity: Any = None,
            outcome_predictions: Any = None, sample_weight: Any = None) -> OptimalPolicyTree:
        """Estimate what the teacher needs, solve the tree within ``time_limit`` and set the
        fitted attributes (class docstring); returns ``self``."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        n = df.shape[0]
        t, y, mu, yhat, K, names = _check_inputs(treatment, outcome, propensity,
                                                 outcome_predictions, n)
        # the outcomes (and lam, in their units) divided by the power of two nearest their
        # largest size (exact): the engines' tolerances and scikit-learn's outcome models
        # are in units of about 1, so outcomes x 1e-9 gave other trees; values back below
        e = _outcome_exponent(y, yhat)
        y, yhat = np.ldexp(y, -e), None if yhat is None else np.ldexp(yhat, -e)
        p = Params({**p, "lam": math.ldexp(p.lam, -e)})
        budget = check_budget(p.treatment_budget, K, names)
        w = fit_weights(sample_weight, None, np.arange(K), t)
        need_mu, need_yhat = NEEDS[p.teacher]
        estimate_mu, estimate_yhat = need_mu and mu is None, need_yhat and yhat is None
        keep = np.ones(n, dtype=bool) if w is None else w > 0  # weight 0: as if not there
        _check_arms(p.teacher, t[keep], K, names)
        self.propensity_ = self.outcome_predictions_ = None
        if estimate_mu or estimate_yhat:
            features = pd.get_dummies(df, dtype=float).to_numpy(dtype=np.float64)
            mu_hat, yhat_hat = cross_fit(
                features[keep], t[keep], y[keep], K, p.cv,
                _default(p.propensity_model, "propensity") if estimate_mu else None,
                _default(p.outcome_model, "outcome", p.random_state) if estimate_yhat
                else None, p.random_state, deadline)
            if estimate_mu:
                mu = self.propensity_ = _spread(mu_hat, keep)
            if estimate_yhat:
                yhat = _spread(yhat_hat, keep)
                self.outcome_predictions_ = np.ldexp(yhat, e)
        gamma = np.full((n, K), np.nan)
        gamma[keep] = teacher_scores(p.teacher, t[keep], y[keep], K,
                                     None if mu is None else mu[keep],
                                     None if yhat is None else yhat[keep])
        self.scores_ = np.ldexp(gamma, e)
        gamma = gamma[keep]
        df, t, w = drop_weightless(df, t, w)
        scores = PolicyScores(gamma)
        result, treatments = self._solve(df, t, w, scores, K, p, deadline, budget, names)
        result = FitResult(result.model, result.status, math.ldexp(result.objective, e),
                           math.ldexp(result.bound, e), result.seconds, result.stats,
                           unit=math.ldexp(1.0, e))
        self.treatments_ = treatments if names is None else names
        self.tree_ = mark_numeric(result.model, getattr(self, "encoder_", None))
        self.tree_.classes = np.asarray(self.treatments_)  # predict gives the labels
        self.n_bb_nodes_ = result.stats.get("bb_nodes", 0)
        store_result(self, result, deadline, "returning the best policy tree found")
        predicted = self.tree_.predict_index(self._encode(df))
        total = float(len(t) if w is None else w.sum())
        self.policy_value_ = math.ldexp(scores.value(predicted, w) / total, e)
        self.leaf_values_ = _leaf_values(self.tree_.apply(self._encode(df)), predicted,
                                         np.ldexp(gamma, e), w)
        weights = np.ones(len(t)) if w is None else w
        self.treatment_shares_ = np.bincount(predicted, weights=weights, minlength=K) / total
        return self

    def _solve(self, df: pd.DataFrame, t: np.ndarray, w: np.ndarray | None,
               scores: PolicyScores, K: int, p: Params, deadline: Any,
               budget: dict[int, float] | None, names: np.ndarray | None = None
               ) -> tuple[FitResult, np.ndarray]:
        """The tree of least regret (the cost form of the policy's value) by the trees
        room's fit, its result turned into the value's units (the map is affine and
        decreasing: value / W = oracle / W - regret / W); under a treatment budget, the
        budget front search (:mod:`.policy_budget`)."""
        treatments = np.arange(K)
        if budget is not None:
            result, encoding = solve_budgeted(df, scores, t, w, budget, p, deadline,
                                              stop_on_ctrl_c, names)
            self._keep_encoding(encoding)
            return result, treatments
        full = Params({**SIDE_DEFAULTS, **BENDERS_DEFAULTS, **p, "class_weight": None})

        def formulation(problem: Any) -> BendersOCT:
            return BendersOCT(problem, polishing=True, path_bound_cuts="both",
                              split_bound_cuts=True)

        method = TreeMethod(formulation, True, "leaves", type(self).__name__)
        result, encoding = TreeFit(full, method, stop_on_ctrl_c).solve(
            df, t, w, treatments, deadline, objective=scores)
        self._keep_encoding(encoding)
        total = float(len(t) if w is None else w.sum())
        oracle = scores.oracle(w) / total
        stats = dict(result.stats, objective="policy value per unit of weight - lam * "
                     "leaves (higher is better)")
        return FitResult(result.model, result.status, oracle - result.objective,
                         oracle - result.bound, result.seconds, stats), treatments

    def _keep_encoding(self, encoding: Any) -> None:
        """The fitted attributes of the fit's column encoding."""
        self.binarizer_, self.encoder_ = encoding.binarizer, encoding.encoder
        self.feature_names_, self.negated_names_ = encoding.names, encoding.negated
        self._categories, self.thresholds_ = encoding.categories, encoding.thresholds

    @property
    def predict_proba(self) -> Any:
        """Raises AttributeError, as a policy tree recommends a treatment; the historic
        treatments' shares at its leaves are no probability of anything it predicts."""
        raise AttributeError("OptimalPolicyTree has no predict_proba: it recommends a "
                             "treatment (predict) with its estimated value (predict_value)")

    def export_text(self) -> str:
        """The fitted tree as indented text: one line per test; at each leaf the
        recommended treatment, its training rows (``n``; with sample weights also their
        ``weight``, as the regression trees print them) and
        the teacher's estimated mean outcome of that treatment for them
        (``leaf_values_``)."""
        check_is_fitted(self, "tree_")
        return policy_text(self.tree_, self.leaf_values_)

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the policy (``policy_picture``; saved to ``path`` when
        given: PNG, SVG, PDF)."""
        check_is_fitted(self, "tree_")
        return policy_picture(self.tree_, self.leaf_values_, path, **kwargs)

    def to_dot(self) -> str:
        """Graphviz DOT source of :meth:`plot`'s picture (each leaf's treatment, training
        weight and estimated outcome)."""
        check_is_fitted(self, "tree_")
        return policy_dot(self.tree_, self.leaf_values_)

    def predict_value(self, X: Any) -> np.ndarray:
        """The teacher's estimated outcome of each row of ``X`` under the policy: the
        weighted mean of ``Gamma[i, k]`` over the training rows ``i`` of the leaf the row
        reaches, ``k`` the leaf's treatment (nan for a leaf no training row reaches)."""
        check_is_fitted(self, "tree_")
        leaves = self.apply(X)
        return np.array([self.leaf_values_.get(int(leaf), np.nan) for leaf in leaves])


def policy_text(tree: BinaryTree, leaf_values: dict[int, float]) -> str:
    """A policy tree as indented text: at each leaf its treatment, training weight and
    estimated outcome (also a loaded policy tree's text, :mod:`optrees.loaded`)."""

    def leaf_text(n: int) -> str:
        value = leaf_values.get(n)
        worth = "" if value is None else f", estimated outcome {value:.6g}"
        return f"treatment: {tree.classes[tree.value[n]]}  ({leaf_size(tree, n)}{worth})"

    return tree.export_text(leaf_text=leaf_text)


def leaf_size(tree: BinaryTree, n: int) -> str:
    """Node ``n``'s training rows and, under sample weights, their weight, as the regression
    trees print them (``n=357, weight 3.57``): a weight is no count of rows.  A weighted
    tree without its rows (a file written before them) prints ``weight 3.57``."""
    weight = count_text(float(tree.counts[n].sum()))
    if not tree.weighted:
        return f"n={weight}"
    if tree.rows is None:
        return f"weight {weight}"
    return f"n={int(tree.rows[n])}, weight {weight}"


def policy_picture(tree: BinaryTree, leaf_values: dict[int, float], path: Any = None,
                   **kwargs: Any) -> Any:
    """A policy tree drawn: each leaf its treatment, training weight and estimated outcome,
    coloured by that outcome (darker = larger); inner boxes the historic treatments'
    weights (also a loaded policy tree's picture)."""
    from ..export import plot_tree

    return plot_tree(policy_nodes(tree, leaf_values), path=path, **kwargs)


def policy_dot(tree: BinaryTree, leaf_values: dict[int, float]) -> str:
    """Graphviz DOT source of the picture of :func:`policy_picture` (leaves name their
    treatment, not a "class"; also a loaded policy tree's)."""
    from ..export.dot import to_dot

    return to_dot(policy_nodes(tree, leaf_values))


def policy_nodes(tree: BinaryTree, leaf_values: dict[int, float]) -> Any:
    """The picture description of a policy tree (:func:`policy_picture`)."""
    from ..export import binary_tree_nodes
    from ..export.nodes import Prediction

    root = binary_tree_nodes(tree)

    def relabel(node: Any, n: int) -> None:
        if tree.is_leaf(n):
            value = leaf_values.get(n)
            worth = "" if value is None else f", est. outcome {value:.4g}"
            node.lines = [f"treatment = {tree.classes[tree.value[n]]}",
                          f"{leaf_size(tree, n)}{worth}"]
            node.prediction = None if value is None else Prediction(value=value)
            return
        node.lines[1] = node.lines[1].replace("samples:", "historic:")
        relabel(node.children[0][1], int(tree.left[n]))
        relabel(node.children[1][1], int(tree.right[n]))

    relabel(root, 0)
    return root


def _outcome_exponent(y: np.ndarray, yhat: np.ndarray | None) -> int:
    """The exponent e of the power of two nearest the largest outcome (or outcome
    prediction) in size; 0 when all are 0."""
    top = float(np.abs(y).max(initial=0.0))
    if yhat is not None:
        top = max(top, float(np.abs(yhat).max(initial=0.0)))
    return round(math.log2(top)) if top > 0 else 0


def _default(model: Any, kind: str, random_state: Any = None) -> Any:
    """The user's model, or the default one of ``kind``."""
    if model is not None:
        return model
    if kind == "propensity":
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression(max_iter=1000)
    from sklearn.ensemble import GradientBoostingRegressor
    return GradientBoostingRegressor(random_state=random_state)


def _spread(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Estimates of the rows ``keep`` as an array over all rows (nan elsewhere)."""
    out = np.full((len(keep), *values.shape[1:]), np.nan)
    out[keep] = values
    return out


def _leaf_values(leaves: np.ndarray, predicted: np.ndarray, gamma: np.ndarray,
                 w: np.ndarray | None) -> dict[int, float]:
    """Per leaf: the weighted mean of its rows' scores of its treatment."""
    v = gamma[np.arange(len(gamma)), predicted]
    w = np.ones(len(v)) if w is None else w
    return {int(leaf): float(v[leaves == leaf] @ w[leaves == leaf] / w[leaves == leaf].sum())
            for leaf in np.unique(leaves)}


def _check_arms(teacher: str, t: np.ndarray, K: int, names: np.ndarray | None = None
                ) -> None:
    """One clear error when the ``"ipw"`` teacher must score a treatment no row (of positive
    weight) received: its ``Gamma[:, k]`` would be 0 for every row, an estimate of nothing,
    and the tree would recommend it wherever the observed outcomes are negative."""
    if teacher != "ipw":
        return  # "dm" and "dr" score every treatment by its outcome predictions
    missing = np.flatnonzero(np.bincount(t, minlength=K) == 0)
    if missing.size:
        arm = (f"{int(missing[0])} of 0..{K - 1}" if names is None
               else f"{names[missing[0]]!r} of {list(names)[:10]}")
        raise OptreesInputError(
            f"treatment {arm} was given to no row (of positive "
            f"weight), so the 'ipw' teacher has no outcome of it to weigh (it would score it "
            f"0 for every row): give outcome_predictions with teacher='dr' or 'dm', or leave "
            f"that treatment out")


def _treatment_labels(treatment: Any, n: int
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(labels, codes)`` of a treatment given as text (strings, a ``Categorical``):
    the distinct labels sorted, each row's index among them; ``(None, None)`` for numbers
    (read as the codes themselves)."""
    values = treatment.to_numpy() if isinstance(treatment, pd.Series) else treatment
    if isinstance(values, pd.Categorical) or isinstance(
            getattr(values, "dtype", None), pd.CategoricalDtype):
        values = np.asarray(values, dtype=object)
    a = np.asarray(values)
    if a.dtype.kind not in "OUS":
        return None, None
    if a.shape != (n,):
        raise OptreesInputError(f"treatment must hold one label per row of X ({n}), got "
                                f"shape {a.shape}")
    if pd.isna(a).any():
        raise OptreesInputError("treatment has missing values")
    labels, codes = np.unique(a.astype(str), return_inverse=True)
    return labels.astype(object), codes


def _by_treatment(table: Any, names: np.ndarray | None = None, what: str = "") -> Any:
    """A DataFrame whose columns name the treatments (the codes 0..K-1 as numbers or text,
    or the text ``names``, in any order) with its columns in treatment order; anything else
    as it is (by position), except a frame ``what`` whose text columns are not the
    treatments' labels: one error naming the columns and labels that do not match (they
    were read by position: a column 'drugX' as the treatment 'drugB')."""
    if not isinstance(table, pd.DataFrame):
        return table
    if names is not None:
        given = [str(c) for c in table.columns]
        if sorted(given) == sorted(names):
            return table.iloc[:, [given.index(name) for name in names]]
    try:
        codes = [int(str(c)) for c in table.columns]
    except ValueError:
        if names is not None:
            unknown = [c for c in given if c not in set(names)]
            missing = [name for name in names if name not in set(given)]
            lack = f"; no column for {missing[:10]}" if missing else ""
            raise OptreesInputError(
                f"the columns {unknown[:10]} of {what} are not labels of treatment (its "
                f"labels: {list(names)[:10]}{lack}): name the columns by the labels, or "
                "give an array (columns in the labels' sorted order)") from None
        return table
    if sorted(codes) != list(range(len(codes))):
        return table
    return table.iloc[:, np.argsort(codes)]


def _vector(value: Any, name: str, n: int) -> np.ndarray:
    """A finite float vector of length ``n``, or one clear error."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise OptreesInputError(f"{name} must hold numbers") from None
    if a.shape != (n,):
        raise OptreesInputError(f"{name} must hold one number per row of X ({n}), got shape "
                                f"{a.shape}")
    if not np.isfinite(a).all():
        raise OptreesInputError(f"{name} has missing or infinite values")
    return a


def _check_inputs(treatment: Any, outcome: Any, propensity: Any, predictions: Any, n: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None,
                             int, np.ndarray | None]:
    """Treatment codes, outcome, propensity of each row's own treatment, ``n x K`` outcome
    predictions, and K; one clear error for each bad input."""
    names, t_raw = _treatment_labels(treatment, n)
    if names is not None and len(names) < 2:
        raise OptreesInputError(f"treatment has a single label ({names[0]!r}): a policy "
                                "tree chooses among at least two treatments")
    if names is None:
        t_raw = _vector(treatment, "treatment", n)
        bad = (t_raw != np.round(t_raw)) | (t_raw < 0)
        if bad.any():
            raise OptreesInputError("treatment must hold integer codes 0..K-1 or text labels "
                                    f"(found {np.unique(t_raw[bad])[:5].tolist()})")
    t = t_raw.astype(np.int64)
    y = _vector(outcome, "outcome", n)
    K = None
    yhat = None
    if predictions is not None:
        yhat = np.asarray(_by_treatment(predictions, names, "outcome_predictions"),
                          dtype=np.float64)
        if yhat.ndim != 2 or yhat.shape[0] != n or yhat.shape[1] < 2:
            raise OptreesInputError("outcome_predictions must be an n x K matrix (one column "
                                    f"per treatment, K >= 2, n = {n}), got shape {yhat.shape}")
        if not np.isfinite(yhat).all():
            raise OptreesInputError("outcome_predictions has missing or infinite values")
        K = yhat.shape[1]
    mu = None
    if propensity is not None:
        raw = np.asarray(_by_treatment(propensity, names, "propensity"), dtype=np.float64)
        if raw.ndim == 2:
            if raw.shape[0] != n or (K is not None and raw.shape[1] != K):
                raise OptreesInputError(f"a propensity matrix must be n x K ({n} x "
                                        f"{K or 'K'}), got shape {raw.shape}")
            K = raw.shape[1] if K is None else K
        else:
            mu = _vector(raw, "propensity", n)
        if raw.ndim == 2:
            if t.max() >= K:
                raise OptreesInputError(f"treatment must hold codes 0..{K - 1}, got {t.max()}")
            mu = raw[np.arange(n), t]
        if not np.isfinite(mu).all() or (mu <= 0).any() or (mu > 1).any():
            raise OptreesInputError("propensity must lie in (0, 1] (the probability of each "
                                    "row's own treatment)")
    if names is not None and K is not None and K != len(names):
        raise OptreesInputError(f"treatment has {len(names)} labels {list(names)[:10]}, but "
                                f"outcome_predictions / propensity have {K} columns")
    if K is None:
        K = int(t.max()) + 1
        if len(np.unique(t)) != K or K < 2:
            raise OptreesInputError("treatment must hold the codes 0..K-1 of K >= 2 treatments "
                                    f"(found {sorted(set(t.tolist()))[:10]})")
    if t.max() >= K:
        raise OptreesInputError(f"treatment must hold codes 0..{K - 1} (K = {K} columns of "
                                f"outcome_predictions / propensity), got {t.max()}")
    unseen = sorted(set(range(K)) - set(np.unique(t).tolist()))
    if unseen:  # allowed (a model may predict them), but a wrong matrix looks the same
        warnings.warn(f"treatments {unseen[:10]} of the K = {K} columns of "
                      "outcome_predictions / propensity have no rows: the tree may recommend "
                      "them on the predictions alone (teacher 'dm' / 'dr'; 'ipw' scores them "
                      "0)", UserWarning, stacklevel=4)
    return t, y, mu, yhat, K, names
