"""Tests that kill mutants of the cost-sensitive objective (problem/objectives/costs.py, view.py)
which the other cost tests let live (``bench/mutation.py costs``, docs/testing.md).  The
oracle is the definition: a leaf predicting ``k`` costs ``sum_i w_i C[y_i, k]``."""

from __future__ import annotations

import numpy as np
import pytest

from optrees import BendOCTClassifier
from optrees._validation import OptreesInputError
from optrees.trees.problem.objectives.costs import MisclassificationCosts

# one class gains on two labels, every label is a gain of at most one class: the view needs
# two pseudo-rows per row (counted per class, not per label)
TWO_GAINS = np.array([[3.0, 0.0, 5.0], [4.0, 4.0, 0.0], [1.0, 1.0, 1.0]])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("penalty", ["leaves", "splits"])
def test_the_views_objective_maps_back_to_the_cost_objective(seed, penalty):
    """For any partition of the rows into leaves, each predicting its cheapest class, the
    view's objective (correct pseudo-weight, with the view's penalty weight) maps through
    ``bound`` to the cost objective of the definition: cost / W + lam * leaves (leaf
    penalty) or (1 - lam) * cost + lam * splits (split penalty).  Kills ``lam * W / W'``
    -> ``lam / W / W'`` in ``lam``, the operator mutants of ``bound`` and, with
    ``TWO_GAINS``, ``positive.sum(axis=1)`` -> ``axis=0`` in ``of_gains``."""
    rng = np.random.default_rng(seed)
    n, K, L, lam = 14, 3, 1 + seed % 4, 0.07
    y = rng.integers(0, K, n)
    w = rng.uniform(0.5, 3.0, n)
    C = TWO_GAINS if seed == 4 else rng.integers(0, 6, (K, K)).astype(float)
    if seed == 4:
        y[:3] = 0                          # class 0 rows, which gain most on label 2
    leaf = rng.integers(0, L, n)
    W = w.sum()
    cost = sum(min((w[leaf == t] * C[y[leaf == t], k]).sum() for k in range(K))
               for t in range(L))
    want = cost / W + lam * L if penalty == "leaves" else (1 - lam) * cost + lam * (L - 1)

    view = MisclassificationCosts(C).view(y, w)
    pseudo_leaf = leaf[view.rows]
    correct = sum(max(view.weights[(pseudo_leaf == t) & (view.labels == k)].sum()
                      for k in range(K)) for t in range(L))
    lam_view = view.lam(lam, penalty, W)
    if penalty == "leaves":
        value = correct / view.weights.sum() - lam_view * L
    else:
        assert lam_view == lam
        value = (1 - lam) * correct - lam * (L - 1)
    assert view.bound(value, lam, penalty, W) == pytest.approx(want, abs=1e-9)


def test_a_class_whose_every_prediction_costs_the_same_has_zero_unit_gains():
    """Gains are ``max_j C[c, j] - C[c, k]``, scaled to at most 1 per class; a class with a
    constant row of costs gains nothing anywhere (not 0/0).  Kills ``where=gmax > 0`` ->
    ``>= 0`` in ClassificationView.of_gains."""
    C = np.array([[0.0, 2.0, 4.0], [3.0, 3.0, 3.0], [1.0, 5.0, 0.0]])
    y = np.array([0, 1, 2, 1])
    view = MisclassificationCosts(C).view(y, None)
    G = C.max(axis=1, keepdims=True) - C
    want = np.array([G[0] / G[0].max(), np.zeros(3), G[2] / G[2].max()])
    np.testing.assert_array_equal(view.unit_gains, want)


@pytest.mark.parametrize("costs, words", [
    ([[0, 1, 1], [1, 0, 1]], "square"),                 # 2 x 3: more columns than rows
    ({("a", "b"): "dear"}, "must be a number"),          # a cost that is not a number
    ({("a",): 2.0}, "pairs"),                            # a key of one label
    ({("a", "b", "a"): 2.0}, "pairs"),                   # a key of three labels
    ([[0, 1], [1, 0]], "2 x 2 but y has 3 classes"),     # fewer classes than y has
])
def test_bad_costs_named(costs, words):
    """Kills ``shape[0] != shape[1]`` -> ``>`` in the square check, the dropped
    ValueError of the dict spelling and ``len(pair) == 2`` -> ``<= 2``."""
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array(["a", "b", "c", "a", "b", "c", "a", "b"] if "3 classes" in words
                 else ["a", "b"] * 4)
    with pytest.raises(OptreesInputError, match=words):
        BendOCTClassifier(depth=1, misclassification_costs=costs).fit(X, y)


def test_dict_keys_find_numeric_classes_by_value():
    """A cost keyed ``(1.0, 0)`` or ``(np.int64(1), "0")`` names the integer classes 1 and 0
    (labels read from a CSV file); missing pairs cost 0 on the diagonal and 1 off it.  Kills
    ``not isinstance(label, bool)`` in ``_key`` (numbers then compared as text)."""
    classes = np.array([0, 1, 2])
    for key in ((1.0, 0), (np.int64(1), "0"), ("1", 0.0)):
        C = MisclassificationCosts.from_spec({key: 3.0}, classes).matrix
        want = 1.0 - np.eye(3)
        want[1, 0] = 3.0
        np.testing.assert_array_equal(C, want)


@pytest.mark.parametrize("matrix", [[[0.0]], [0.0, 1.0], np.zeros((2, 2, 2))])
def test_a_cost_matrix_is_square_and_at_least_2_by_2(matrix):
    """One clear error for a 1 x 1 matrix, a vector and a 3-d array.  Kills ``shape[0] < 2``
    -> ``< 1`` and ``ndim != 2`` -> ``>`` / ``<``."""
    with pytest.raises(OptreesInputError, match="square matrix"):
        MisclassificationCosts(matrix)
