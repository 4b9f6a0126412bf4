"""Models read back from a file (:func:`optrees.load_model`): the prediction API of a fitted
estimator (``predict``, ``predict_proba``, ``score``, ``classes_``, ``feature_names_in_``,
``export_text``, ``plot``; trees also ``to_dot``) on raw tables with the fit-time columns;
survival trees their curves and C-index, policy trees ``predict_value``.

:func:`optrees.load_model` checks a file and builds these; this module reads no file itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import OptreesInputError, check_binary_matrix, check_frame
from .encoding.binarize import BinaryLiteral
from .estimators._base import warn_unseen
from .estimators.policy import policy_dot, policy_picture, policy_text
from .estimators.survival import (
    check_survival_target,
    concordance_index,
    cumulative_hazard,
    plot_survival_tree,
)
from .models import _schema as schema
from .models.binary_tree import BinaryTree
from .models.multiway_tree import MultiwayTree
from .models.regression_tree import RegressionTree
from .models.robust_tree import IntegerTree
from .models.rule_set import RuleSet
from .trees.problem.objectives.survival import Baseline


class _Columns:
    """Finds a loaded model's columns in new data: in a DataFrame by the fit-time label
    (else by its text, as in a CSV header), in an array by position."""

    def __init__(self, labels: list[Any] | None, categories: dict[str, list[Any]]) -> None:
        self.labels = labels
        self.label_of = {} if labels is None else {str(c): c for c in labels}
        self.categories = categories

    def frame(self, X: Any, needed: list[str]) -> pd.DataFrame:
        """The ``needed`` columns of X (checked), named by the text of their labels."""
        if isinstance(X, pd.DataFrame):
            return check_frame(X[self._find(X, needed)]).set_axis(needed, axis=1)
        df = check_frame(X)
        if self.labels is not None:  # an array: the fit-time columns, by position
            if df.shape[1] != len(self.labels):
                raise OptreesInputError(
                    f"X has {df.shape[1]} columns, but the model was fitted on "
                    f"{len(self.labels)}; pass the same columns (or a DataFrame)")
            df = df.set_axis(list(self.label_of), axis=1)
        return df[self._find(df, needed)].set_axis(needed, axis=1)

    def _find(self, df: pd.DataFrame, needed: list[str]) -> list[Any]:
        """The labels in ``df`` of the needed columns; one error listing the missing ones."""
        texts: dict[str, list[Any]] = {}
        for c in df.columns:
            texts.setdefault(str(c), []).append(c)
        found, missing = [], []
        for name in needed:
            label = self.label_of.get(name, name)
            if label in df.columns:
                found.append(label)
            elif len(texts.get(name, [])) == 1:
                found.append(texts[name][0])
            else:
                missing.append(label)
        if missing:
            raise OptreesInputError(f"input is missing columns the model needs: {missing[:10]}")
        return found

    def names_in(self, needed: list[str]) -> np.ndarray:
        """``feature_names_in_``: the fit-time column labels (else the columns read)."""
        return np.asarray(self.labels if self.labels is not None else needed, dtype=object)

    def warn_unseen(self, model: Any, df: pd.DataFrame) -> None:
        """UnseenCategoryWarning for categories of ``df`` not seen at fit time."""
        warn_unseen(model, df, {c: v for c, v in self.categories.items() if c in df.columns})


def _score(model: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
    """Accuracy of a classifier's predictions (R² of a regression tree's), as scikit-learn's
    ``score`` computes them."""
    from sklearn.metrics import accuracy_score, r2_score

    if getattr(model, "classes_", None) is None:
        return float(r2_score(y, model.predict(X), sample_weight=sample_weight))
    return float(accuracy_score(y, model.predict(X), sample_weight=sample_weight))


class LoadedTreeModel:
    """A tree read from JSON: predicts on raw tables with the same columns as at fit time.

    ``literals`` (0/1 tests of a binarizer), ``raw`` (raw numeric and one-hot columns of
    CGH and trees over every threshold) and ``inputs`` (0/1 columns read as they are) say
    how a raw table becomes the tree's input; :func:`optrees.load_model` has checked them."""

    def __init__(self, data: dict[str, Any], columns: _Columns,
                 literals: list[BinaryLiteral] | None = None,
                 raw: list[dict[str, Any]] | None = None,
                 inputs: list[str] | None = None) -> None:
        self.data = data
        self.columns = columns
        self.literals, self.raw, self.inputs = literals, raw, inputs
        tree = schema.mapping(data.get("tree"), "'tree'")
        if tree.get("kind") == "multiway_tree":
            self.tree: BinaryTree | MultiwayTree | RegressionTree | IntegerTree = \
                MultiwayTree.from_dict(tree)
            self.needed = [lv.name for lv in self.tree.levels]
        elif tree.get("kind") == "integer_tree":  # a robust tree reads integer columns
            self.tree = IntegerTree.from_dict(tree)
            self.needed = list(self.tree.feature_names)
        elif tree.get("kind") == "regression_tree":
            self.tree = RegressionTree.from_dict(tree, self._width())
            self.needed = self._binary_inputs()
        elif tree.get("kind") == "linear_leaf_tree":
            from .models.linear_leaf_tree import LinearLeafTree

            self.tree = LinearLeafTree.from_dict(tree, self._width())
            self.needed = self._binary_inputs()
        else:
            self.tree = BinaryTree.from_dict(tree, self._width())
            self.needed = self._binary_inputs()
        known = set(columns.label_of) if columns.labels is not None else None
        unknown = [c for c in self.needed if known is not None and c not in known]
        if unknown:
            schema.fail(f"the model reads columns {unknown[:5]} that are not among its "
                        f"columns {list(known)[:10]}")

    def _width(self) -> int | None:
        """Columns of the matrix the binary tree reads (None: unknown, old binary files)."""
        if self.literals is not None:
            return len(self.literals)
        if self.raw is not None:
            return max(1, sum(1 if s["kind"] == "num" else len(s["values"]) for s in self.raw))
        if self.inputs is not None:
            return len(self.inputs)
        return None if self.columns.labels is None else len(self.columns.labels)

    def _binary_inputs(self) -> list[str]:
        """The raw columns a binary tree's input is computed from."""
        if self.literals is not None:
            return list(dict.fromkeys(lit.column for lit in self.literals))
        if self.raw is not None:
            return list(dict.fromkeys(spec["column"] for spec in self.raw))
        if self.inputs is not None:
            return list(self.inputs)
        if self.columns.labels is not None:
            return list(self.columns.label_of)
        return list(self.tree.feature_names or [])

    # ------------------------------------------------------------------ as an estimator
    @property
    def classes_(self) -> np.ndarray | None:
        """The class labels (None for a regression tree)."""
        classes = getattr(self.tree, "classes", None)
        return None if classes is None else np.asarray(classes)

    @property
    def feature_names_in_(self) -> np.ndarray:
        """The column labels seen at fit time."""
        return self.columns.names_in(self.needed)

    @property
    def n_features_in_(self) -> int:
        """How many columns the model was fitted on."""
        return len(self.feature_names_in_)

    def _frame(self, X: Any) -> pd.DataFrame:
        """The columns the model reads, with a warning for categories unseen at fit time."""
        df = self.columns.frame(X, self.needed)
        self.columns.warn_unseen(self, df)
        return df

    def binary(self, df: pd.DataFrame) -> np.ndarray:
        """The feature matrix the binary tree was learned on (0/1 literals, or raw numeric
        columns and one-hot categories for CGH / raw-threshold trees)."""
        if self.literals is not None:
            return np.column_stack([lit.evaluate(df[lit.column]) for lit in self.literals])
        if self.raw is not None:
            parts = [np.zeros((len(df), 0))]
            for spec in self.raw:
                col = df[spec["column"]]
                if spec["kind"] == "num":
                    parts.append(_numeric(col, spec["column"])[:, None])
                else:
                    obj = col.astype(object).to_numpy()
                    parts += [(obj == v)[:, None].astype(float) for v in spec["values"]]
            Z = np.hstack(parts)
            return Z if Z.shape[1] else np.zeros((len(df), 1))
        return check_binary_matrix(df)

    def _input(self, X: Any) -> Any:
        df = self._frame(X)
        if isinstance(self.tree, IntegerTree):
            from .estimators.robust import integer_matrix

            return integer_matrix(df)
        return df if isinstance(self.tree, MultiwayTree) else self.binary(df)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted classes (regression trees: values) of the rows of X."""
        return self.tree.predict(self._input(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Training class frequencies at the leaf each row reaches (columns: ``classes_``)."""
        if self.classes_ is None:
            raise OptreesInputError("predict_proba needs a classifier; this is a "
                                    "regression tree")
        if isinstance(self.tree, IntegerTree):
            raise OptreesInputError("a robust tree gives no class probabilities (its leaves "
                                    "keep no class counts); use predict")
        return self.tree.predict_proba(self._input(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy on (X, y) (a regression tree: R²), as the estimator's ``score``."""
        return _score(self, X, y, sample_weight)

    def export_text(self) -> str:
        """Readable text of the tree."""
        return self.tree.export_text()

    def to_dot(self) -> str:
        """Graphviz DOT source of the tree (render with ``dot -Tpng``)."""
        return self.tree.to_dot()

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree (saved to ``path`` when given: PNG, SVG, PDF)."""
        return self.tree.plot(path=path, **kwargs)


class LoadedRuleSet(RuleSet):
    """A rule set read from JSON: finds its columns by their fit-time labels and warns about
    categories not seen at fit time; otherwise a :class:`RuleSet`, with the estimator's
    ``classes_``, ``feature_names_in_`` and ``score``."""

    def __init__(self, rules: RuleSet, columns: _Columns, data: dict[str, Any]) -> None:
        super().__init__(rules.rules, rules.classes, rules.feature_names, rules.default_class)
        self.columns = columns
        self.data = data
        known = set(columns.label_of)
        unknown = [c for c in self.feature_names if columns.labels is not None and c not in known]
        if unknown:
            schema.fail(f"the rules read columns {unknown[:5]} that are not among the model's "
                        f"columns {list(known)[:10]}")

    @property
    def classes_(self) -> np.ndarray:
        """The class labels."""
        return np.asarray(self.classes)

    @property
    def feature_names_in_(self) -> np.ndarray:
        """The column labels seen at fit time."""
        return self.columns.names_in(list(self.feature_names))

    @property
    def n_features_in_(self) -> int:
        """How many columns the model was fitted on."""
        return len(self.feature_names_in_)

    def _frame(self, X: Any) -> pd.DataFrame:
        if self.columns.labels is None and not isinstance(X, pd.DataFrame):
            return super()._frame(X)  # an old file: arrays by position as a RuleSet reads them
        df = self.columns.frame(X, self.feature_names)
        self.columns.warn_unseen(self, df)
        return df

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy on (X, y), as the estimator's ``score``."""
        return _score(self, X, y, sample_weight)


def _numeric(col: pd.Series, name: str) -> np.ndarray:
    """A column that was numeric at fit time, as floats (clear error if it is not now)."""
    try:
        return col.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(
            f"column {name!r} was numeric at fit time but has non-numeric values now") from exc


class LoadedSurvivalTree(LoadedTreeModel):
    """An :class:`~optrees.OptimalSurvivalTree` read from JSON: ``predict`` (the leaf's
    hazard ratio), ``predict_cumulative_hazard_function``, ``predict_survival_function`` and
    ``score`` (Harrell's C-index) as the estimator's, from the saved Nelson–Aalen baseline;
    ``baseline_``, ``unique_times_`` and ``leaf_kaplan_meier_`` as fitted."""

    def __init__(self, data: dict[str, Any], columns: _Columns, *parts: Any) -> None:
        super().__init__(data, columns, *parts)
        block = schema.mapping(data.get("survival"), "'survival'")
        base = schema.mapping(block.get("baseline"), "'survival.baseline'")
        times = _increasing(base.get("times"), "'survival.baseline.times'")
        values = schema.reals(schema.as_list(base.get("values"), "'survival.baseline.values'",
                                             len(times)), "'survival.baseline.values'")
        if values[0] < 0 or np.any(np.diff(values) < 0):
            schema.fail("'survival.baseline.values' must be >= 0 and never decrease")
        floor = schema.real(base.get("floor"), "'survival.baseline.floor'")
        self.baseline_ = Baseline(np.asarray(times), np.asarray(values), floor)
        self.unique_times_ = np.asarray(_increasing(block.get("unique_times"),
                                                    "'survival.unique_times'"))
        curves = schema.mapping(block.get("leaf_kaplan_meier", {}),
                                "'survival.leaf_kaplan_meier'")
        self.leaf_kaplan_meier_ = {
            _leaf(self.tree, key, "'survival.leaf_kaplan_meier'"): np.asarray(
                _shares(curve, f"'survival.leaf_kaplan_meier'[{key!r}]",
                        len(self.unique_times_)))
            for key, curve in curves.items()}

    def predict_cumulative_hazard_function(self, X: Any, times: Any = None) -> np.ndarray:
        """``(n_rows, n_times)``: ``theta * Lambda0(t)`` at ``times`` (default
        ``unique_times_``), as the estimator's."""
        return cumulative_hazard(self.predict(X), self.baseline_,
                                 self.unique_times_ if times is None else times)

    def predict_survival_function(self, X: Any, times: Any = None) -> np.ndarray:
        """``(n_rows, n_times)``: ``exp(-theta * Lambda0(t))`` at ``times``."""
        return np.exp(-self.predict_cumulative_hazard_function(X, times))

    def export_text(self) -> str:
        """Readable text of the tree: each leaf's hazard ratio."""
        return self.tree.export_text(value_name="hazard ratio")

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree with each leaf's Kaplan–Meier curve, as fitted."""
        return plot_survival_tree(self.tree, self.unique_times_, self.leaf_kaplan_meier_,
                                  path=path, **kwargs)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Not offered: a survival tree predicts a risk score and curves."""
        raise OptreesInputError("predict_proba needs a classifier; this is a survival tree "
                                "(predict_survival_function gives its curves)")

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Harrell's C-index of :meth:`predict` on ``(X, y)``, as the estimator's."""
        if sample_weight is not None:
            raise OptreesInputError("the C-index of a survival tree takes no sample_weight")
        target = check_survival_target(y, len(X))
        return concordance_index(target[:, 0], target[:, 1], self.predict(X))


class LoadedPolicyTree(LoadedTreeModel):
    """An :class:`~optrees.OptimalPolicyTree` read from JSON: ``predict`` (the recommended
    treatment), ``predict_value`` (the teacher's estimated outcome) and ``export_text`` as
    the estimator's; ``leaf_values_``, ``treatment_shares_`` (None in files written
    before it) and the ``treatment_budget`` (``{treatment: share}`` or None) as fitted."""

    def __init__(self, data: dict[str, Any], columns: _Columns, *parts: Any) -> None:
        super().__init__(data, columns, *parts)
        if not isinstance(self.tree, BinaryTree):
            schema.fail("a policy tree must be a binary tree")
        block = schema.mapping(data.get("policy"), "'policy'")
        values = schema.mapping(block.get("leaf_values"), "'policy.leaf_values'")
        self.leaf_values_ = {
            _leaf(self.tree, key, "'policy.leaf_values'"):
                schema.real(v, f"'policy.leaf_values'[{key!r}]") for key, v in values.items()}
        shares = block.get("treatment_shares")
        self.treatment_shares_ = None if shares is None else np.array(
            [schema.real(v, "'policy.treatment_shares'") for v in shares])
        budget = block.get("treatment_budget")
        budget = None if budget is None else schema.mapping(budget, "'policy.treatment_budget'")
        if budget is not None and not all(str(k).isdigit() for k in budget):
            schema.fail("'policy.treatment_budget' must map treatment codes to shares")
        self.treatment_budget = None if budget is None else {
            int(k): schema.real(v, "'policy.treatment_budget'") for k, v in budget.items()}

    def predict_value(self, X: Any) -> np.ndarray:
        """The teacher's estimated outcome of each row under the policy (nan for a leaf no
        training row reached), as the estimator's."""
        leaves = self.tree.apply(self._input(X))
        return np.array([self.leaf_values_.get(int(leaf), np.nan) for leaf in leaves])

    def predict_proba(self, X: Any) -> np.ndarray:
        """Not offered, as by the estimator: the historic treatments' shares at a leaf are
        no probability of anything the policy predicts."""
        raise OptreesInputError("a policy tree has no predict_proba: it recommends a "
                                "treatment (predict) with its estimated value (predict_value)")

    def export_text(self) -> str:
        """Indented text: each leaf's treatment, training weight and estimated outcome."""
        return policy_text(self.tree, self.leaf_values_)

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """The estimator's picture: each leaf's treatment and estimated outcome."""
        return policy_picture(self.tree, self.leaf_values_, path, **kwargs)

    def to_dot(self) -> str:
        """The estimator's DOT source: each leaf's treatment and estimated outcome."""
        return policy_dot(self.tree, self.leaf_values_)


def _increasing(values: Any, what: str) -> list[float]:
    """A non-empty list of finite numbers in increasing order."""
    out = schema.reals(schema.as_list(values, what), what)
    if not out or np.any(np.diff(out) <= 0):
        schema.fail(f"{what} must be a non-empty list of increasing numbers")
    return out


def _shares(values: Any, what: str, length: int) -> list[float]:
    """``length`` numbers in [0, 1]."""
    out = schema.reals(schema.as_list(values, what, length), what)
    if any(v < 0 or v > 1 for v in out):
        schema.fail(f"{what} must hold numbers in [0, 1]")
    return out


def _leaf(tree: Any, key: str, what: str) -> int:
    """A JSON object's key as the index of a leaf of ``tree``."""
    node = int(key) if isinstance(key, str) and key.isdigit() else -1
    if not 0 <= node < tree.n_nodes or tree.feature[node] >= 0:
        schema.fail(f"{what} has the key {key!r}, which is no leaf of the tree")
    return node
