"""[RUG] §4: RUG (fixed or tuned by 5-fold CV) against CART, and FairRUG against RUG, on one
stratified 70/30 split (``optrees bench rug``, ``bench/rug.py``, ``bench/rug_vs_ruleopt.py``);
:class:`PaperRUG`: RUGClassifier with the paper's parameter units (Tables 2 and 4)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from .._validation import OptreesInputError
from .tasks import Task, _f1, load_data
from .timing import fastest

SPLIT = "70/30"

Grouping = Callable[[pd.Series], np.ndarray] | None
FAIR: dict[str, tuple[str, Grouping, tuple[str, ...]]] = {
    "adult": ("sex", None, ("dmc", "eop")),
    "compas": ("Race", None, ("dmc", "eop")),
    "default-credit": ("SEX", None, ("dmc", "eop")),
    "attrition": ("WorkLifeBalance", None, ("dmc", "odm")),
    "nursery": ("parents", None, ("dmc", "odm")),
    "student": ("address", None, ("dmc", "odm")),
    # law.csv's columns are undocumented; a1 (5 values, 84 % zeros) is taken as race, with the
    # paper's two groups "White" (a1 = 0, assumed) and "Other"
    "law": ("a1", lambda col: np.where(col.to_numpy() == 0, "a1=0", "a1>0"), ("dmc", "odm")),
}
"""The fairness data sets of the paper's Table 7: sensitive column, its grouping (None: one
group per value) and the fairness kinds run (Table 3: DMC / EOP for the two-class data sets
with two groups; Table 4: DMC / ODM for the others)."""

EPSILONS = (0.0, 0.01, 0.025, 0.05)
"""The paper's grid of FairRUG's epsilon."""


class PaperRUG(ClassifierMixin, BaseEstimator):
    """RUGClassifier with the parameters in the units of the paper's code (and ruleopt), for
    its grid (:data:`optrees.bench.tasks.RUG_PAPER_GRID`): ``pen_par`` scaled by 1 / (largest
    rule cost of the first tree), ``max_rmp_calls`` pricing rounds after the first LP, rule
    cost = length, rules lighter than ``threshold`` times the largest weight dropped;
    ``rule_labels`` as RUGClassifier's ('duals': the paper's)."""

    def __init__(self, max_depth: int = 3, pen_par: float = 1.0, max_rmp_calls: int = 10,
                 threshold: float = 0.05, random_state: int | None = None,
                 time_limit: float | None = None, rule_labels: str = "auto") -> None:
        self.max_depth = max_depth
        self.pen_par = pen_par
        self.max_rmp_calls = max_rmp_calls
        self.threshold = threshold
        self.random_state = random_state
        self.time_limit = time_limit
        self.rule_labels = rule_labels

    def fit(self, X: pd.DataFrame, y: Any) -> PaperRUG:
        """Fit RUGClassifier with ``pen_par / depth of the first (unweighted) tree`` (its
        longest rule) and ``max_rmp_calls + 1`` master LPs."""
        from ..encoding.columns import RawColumns
        from ..estimators.rules import RUGClassifier

        longest = max(1, _first_tree_depth(RawColumns(X).matrix, np.asarray(y),
                                           self.max_depth, self.random_state))
        self.model_ = RUGClassifier(max_depth=self.max_depth, pen_par=self.pen_par / longest,
                                    max_rmp_calls=self.max_rmp_calls + 1,
                                    threshold=self.threshold, rule_length_cost=True,
                                    random_state=self.random_state, time_limit=self.time_limit,
                                    rule_labels=self.rule_labels)
        self.model_.fit(X, y)
        self.classes_ = self.model_.classes_
        self.rules_ = self.model_.rules_
        self.status_ = self.model_.status_
        self.n_rmp_calls_ = self.model_.n_rmp_calls_
        return self

    def _frame(self, X: Any) -> pd.DataFrame:
        return self.model_._frame(X)

    def predict(self, X: Any) -> np.ndarray:
        """The fitted RUGClassifier's prediction."""
        return self.model_.predict(X)


def _first_tree_depth(X: np.ndarray, y: np.ndarray, max_depth: int,
                      random_state: int | None) -> int:
    """Depth of the unweighted greedy tree of ``max_depth`` on ``X``: RUG's first pricing
    tree, grown compiled (:mod:`optrees.rug.greedy_tree`, scikit-learn's tree without its
    per-fit checks: 1-2 ms less per fit, most of a fit on the Table 2 sets) when ``X`` is
    finite, else by scikit-learn."""
    if not np.isfinite(X).all():
        first = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state)
        return int(first.fit(X, y).get_depth())
    from ..rug.greedy_tree import Presorted, grow_tree

    classes = np.unique(y, return_inverse=True)[1]
    tree = grow_tree(Presorted.of(X), classes, np.ones(len(y)), int(classes.max()) + 1,
                     max_depth, np.arange(X.shape[1]))
    depth = np.zeros(len(tree.children_left), dtype=np.int64)
    for node in range(len(depth)):  # children come after their parent
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    return int(depth.max())


def rug_task(dataset: str, seed: int, *, grid: bool = False, depth: int = 3,
             pen_par: float = 1.0, calls: int = 10, protocol: str = "rug",
             time_limit: float | None = None, data_dir: str | None = None) -> Task:
    """RUG with fixed parameters, or (``grid``) tuned by 5-fold CV on the training part."""
    params: dict[str, Any] = ({"tune": "cv5"} if grid else
                              {"max_depth": depth, "pen_par": pen_par, "max_rmp_calls": calls})
    return Task.make(protocol, "test", "rug-cv" if grid else "rug", dataset, seed,
                     {"split": SPLIT, **params}, time_limit, data_dir)


def cart_task(dataset: str, seed: int, depth: int, *, protocol: str = "rug",
              time_limit: float | None = None, data_dir: str | None = None) -> Task:
    """CART of ``depth`` on the columns RUG's pricing trees see."""
    return Task.make(protocol, "test", "cart", dataset, seed,
                     {"split": SPLIT, "depth": depth, "features": "onehot"}, time_limit,
                     data_dir)


def split(dataset: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """``Xtr, Xte, ytr, yte`` of the stratified 70/30 split (labels as arrays)."""
    X, y = load_data(dataset)
    y = y.to_numpy()
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def _fit_timed(params: dict[str, Any], Xtr: pd.DataFrame, ytr: np.ndarray,
               groups: Any, repeat: int) -> tuple[Any, float]:
    """``(model, seconds)`` of the fastest of ``repeat`` fits of ``RUGClassifier(**params)``,
    warnings off."""
    from ..estimators.rules import RUGClassifier

    def fit() -> tuple[Any, float]:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = RUGClassifier(**params).fit(Xtr, ytr, groups=groups)
        return model, time.perf_counter() - t0

    model, seconds = fastest(fit, repeat)
    return model, seconds


def pick_epsilon(Xtr: pd.DataFrame, ytr: np.ndarray, kind: str, groups: np.ndarray,
                 base: dict[str, Any], seed: int) -> float:
    """The paper's choice of epsilon: best mean validation fairness score in 3-fold CV."""
    from .. import metrics

    folds = StratifiedKFold(3, shuffle=True, random_state=seed).split(Xtr, ytr)
    scores: dict[float, list[float]] = {eps: [] for eps in EPSILONS}
    for fit_idx, val_idx in folds:
        for eps in EPSILONS:
            m, _ = _fit_timed({**base, "fairness": kind, "epsilon": eps}, Xtr.iloc[fit_idx],
                              ytr[fit_idx], groups[fit_idx], 1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = m.predict(Xtr.iloc[val_idx])
            y_v, g_v = ytr[val_idx], groups[val_idx]
            scores[eps].append(metrics.dmc_score(y_v, p, g_v) if kind == "dmc" else
                               metrics.eop_score(y_v, p, g_v, positive=base["positive_class"]))
    best = max(EPSILONS, key=lambda e: (np.mean(scores[e]), -EPSILONS.index(e)))
    return best


def fair_fits(dataset: str, sensitive: str, kinds: tuple[str, ...], seed: int, *,
              depth: int = 3, pen_par: float = 1.0, calls: int = 10, grouping: Grouping = None,
              epsilon: float = 0.025, tune_epsilon: bool = False, repeat: int = 1,
              same_settings: bool = True) -> list[dict[str, Any]]:
    """RUG, then FairRUG with each fairness kind (threshold 0, rule cost 1, the last class
    positive; the RUG fit too when ``same_settings``) on one split: test accuracy, F1, DMC /
    ODM / EOP (%; EOP for two classes), rules, seconds and their ratio to the unconstrained
    fit's; ``error`` when not run. ``tune_epsilon``: epsilon by :func:`pick_epsilon`."""
    from .. import metrics

    Xtr, Xte, ytr, yte = split(dataset, seed)
    group_of = grouping or (lambda col: col.astype(str).to_numpy())
    gtr, gte = group_of(Xtr[sensitive]), group_of(Xte[sensitive])
    classes = sorted(np.unique(np.concatenate([ytr, yte])))
    pos = classes[-1]
    plain = dict(max_depth=depth, pen_par=pen_par, max_rmp_calls=calls, random_state=seed)
    base = dict(plain, threshold=0.0, rule_length_cost=False, positive_class=pos)
    rows: list[dict[str, Any]] = []
    base_s = np.nan
    for fairness in (None, *kinds):
        row: dict[str, Any] = {"dataset": dataset, "seed": seed, "fairness": str(fairness),
                               "epsilon": np.nan, "error": ""}
        params = dict(base)
        if fairness is None:
            params = dict(base) if same_settings else dict(plain)
            params.pop("positive_class", None)
        else:
            row["epsilon"] = (pick_epsilon(Xtr, ytr, fairness, gtr, base, seed)
                              if tune_epsilon else epsilon)
            params.update(fairness=fairness, epsilon=row["epsilon"])
        try:
            m, secs = _fit_timed(params, Xtr, ytr, None if fairness is None else gtr, repeat)
        except OptreesInputError as exc:
            rows.append({**row, "error": str(exc)})
            continue
        base_s = secs if fairness is None else base_s
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # categories unseen in training
            p = m.predict(Xte)
        rows.append({**row, "acc": accuracy_score(yte, p), "f1": _f1(yte, p),
                     "dmc": 100 * metrics.dmc_score(yte, p, gte),
                     "odm": 100 * metrics.odm_score(yte, p, gte),
                     "eop": (100 * metrics.eop_score(yte, p, gte, positive=pos)
                             if len(classes) == 2 else np.nan),
                     "rules": len(m.rules_), "seconds": secs, "ratio": secs / base_s})
    return rows


def fair_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, fairness): mean accuracy, DMC, EOP, time ratio (mean, max), and for the
    constrained fits on how many splits their own score beat the unconstrained fit's."""
    ok = rows[rows["error"] == ""]
    out = []
    for (name, fairness), g in ok.groupby(["dataset", "fairness"], sort=False):
        r = {"dataset": name, "fairness": fairness, "splits": len(g), "acc": g["acc"].mean(),
             "dmc": g["dmc"].mean(), "eop": g["eop"].mean(), "ratio": g["ratio"].mean(),
             "max_ratio": g["ratio"].max(), "better": np.nan}
        if fairness != "None":
            base = ok[(ok["dataset"] == name) & (ok["fairness"] == "None")]
            mine = g.set_index("seed")[fairness]
            r["better"] = int((mine > base.set_index("seed")[fairness].reindex(mine.index)).sum())
        out.append(r)
    return pd.DataFrame(out)
