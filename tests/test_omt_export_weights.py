"""OMT's text said "[rule 0, 149 training samples]" for a leaf of 76 rows whose sample weights
summed to 149 (and truncated fractional weights).  A weighted fit now prints the leaf's
training weight; an unweighted one still counts rows.  Oracles: rows and weights per leaf
counted from the tree's own predictions of the training rows, in plain numpy."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import OMTClassifier
from optrees.io import load_model, save_model


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    n = 120
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v", "w"], n)})
    y = np.where(X["a"] > 0.3, 1, 0) ^ (rng.random(n) < 0.1)
    w = np.round(rng.uniform(0.2, 3.0, n), 2)  # fractional: truncation shows too
    return X, y, w


def _leaves(text: str) -> list[tuple[str, float]]:
    """(prediction, number) of each leaf line of export_text."""
    return [(m[0], float(m[1])) for m in
            re.findall(r"class: (\S+)\s+\[rule \d+, (?:training weight )?([\d.]+)", text)]


def _per_leaf(model: OMTClassifier, X: pd.DataFrame, values: np.ndarray) -> list[float]:
    node = model.tree_.apply(X)
    leaves = [n for n in range(model.tree_.n_nodes) if model.tree_.feature[n] < 0]
    return sorted(float(values[node == n].sum()) for n in leaves
                  if (node == n).any())


def test_weighted_leaves_print_their_weight(data, tmp_path) -> None:
    X, y, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = OMTClassifier(depth=2, random_state=0).fit(X, y, sample_weight=w)
    text = m.export_text()
    assert "training samples" not in text and "training weight" in text
    printed = sorted(v for _, v in _leaves(text))
    assert printed == pytest.approx(_per_leaf(m, X, w), abs=1e-6)
    path = tmp_path / "omt.json"
    save_model(m, path)
    assert load_model(path).tree.export_text() == m.tree_.export_text()


def test_unweighted_leaves_count_rows(data) -> None:
    X, y, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = OMTClassifier(depth=2, random_state=0).fit(X, y)
    text = m.export_text()
    assert "training weight" not in text
    printed = sorted(v for _, v in _leaves(text))
    assert printed == _per_leaf(m, X, np.ones(len(y)))
