"""OMT's default binning, ``n_bins="auto"``: quantile bins that grow with the rows plus the
thresholds of a CART tree, so a planted threshold is found exactly; an explicit ``n_bins``
is kept as given; weights bin as duplicated rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optrees import OMTClassifier, OMTRegressor
from optrees._validation import OptreesInputError
from optrees.encoding.bins import AUTO_MAX_BINS, AUTO_MIN_BINS, auto_bins, quantile_cuts
from optrees.omt.graph import build_graph


def planted(n: int = 3000, t: float = 0.2, seed: int = 0):
    """Two uniform columns; the label is x0 > t (no noise)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.random(n), "x1": rng.random(n)})
    return X, (X["x0"] > t).astype(int).to_numpy()


def gap_around(x: np.ndarray, t: float) -> tuple[float, float]:
    """The neighbouring training values on either side of t."""
    return float(x[x <= t].max()), float(x[x > t].min())


def test_auto_bin_count_grows_with_the_rows_within_bounds():
    counts = [auto_bins(n) for n in (0, 10, 100, 1024, 4096, 16_384, 10**6, 10**9)]
    assert counts == sorted(counts)
    assert counts[0] == counts[3] == AUTO_MIN_BINS == 8
    assert counts[4] == 16
    assert counts[5] == counts[-1] == AUTO_MAX_BINS


def test_auto_graph_has_the_auto_count_of_quantile_bins():
    X, _ = planted(5000)
    g = build_graph(X)  # no thresholds: the quantile bins alone
    for lv in g.levels:
        assert lv.n_codes == auto_bins(5000) > AUTO_MIN_BINS
        np.testing.assert_array_equal(lv.cuts, quantile_cuts(X[lv.name].to_numpy(),
                                                             auto_bins(5000)))


def gap_cut(cuts: np.ndarray, lo: float, hi: float) -> float:
    """The one cut in ``[lo, hi)``, within 1e-9 (relative) of their midpoint."""
    inside = cuts[(cuts >= lo) & (cuts < hi)]
    assert len(inside) == 1
    assert inside[0] == pytest.approx((lo + hi) / 2.0, rel=1e-9, abs=0)
    return float(inside[0])


@pytest.mark.parametrize("t", [0.2, 0.637])
def test_planted_threshold_is_reproduced_exactly(t):
    """The cut is the midpoint between the training values on either side of the planted
    threshold (rounded to 10 significant digits inside the gap, so that it prints short),
    and every training row is classified right; 8 quantile bins (the former default) cannot
    do it."""
    X, y = planted(t=t)
    clf = OMTClassifier(depth=2, time_limit=60, random_state=0).fit(X, y)
    lo, hi = gap_around(X["x0"].to_numpy(), t)
    cut = gap_cut(clf.graph_.levels[0].cuts, lo, hi)
    assert clf.score(X, y) == 1.0
    probe = pd.DataFrame({"x0": [lo, np.nextafter(cut, -1.0), cut, hi], "x1": 0.5})
    np.testing.assert_array_equal(clf.predict(probe), [0, 0, 1, 1])
    old = OMTClassifier(depth=2, n_bins=8, time_limit=60, random_state=0).fit(X, y)
    assert old.score(X, y) < 1.0


def test_planted_threshold_regression():
    X, _ = planted(2000)
    y = np.where(X["x0"] > 0.2, 3.0, -1.0)
    reg = OMTRegressor(depth=1, time_limit=60, random_state=0).fit(X, y)
    lo, hi = gap_around(X["x0"].to_numpy(), 0.2)
    gap_cut(reg.graph_.levels[0].cuts, lo, hi)
    np.testing.assert_array_equal(reg.predict(X), y)


@pytest.mark.parametrize("n_bins", [2, 5, 40])
def test_explicit_n_bins_is_honoured_exactly(n_bins):
    """Exactly the quantile cuts of n_bins bins: no rule-of-rows count, no CART thresholds
    (40 is above the auto maximum)."""
    X, y = planted(5000)
    clf = OMTClassifier(depth=1, n_bins=n_bins, time_limit=60, random_state=0).fit(X, y)
    for lv in clf.graph_.levels:
        assert lv.n_codes == n_bins
        np.testing.assert_array_equal(lv.cuts, quantile_cuts(X[lv.name].to_numpy(), n_bins))


def test_n_bins_values_checked():
    X, y = planted(100)
    for bad in ("many", 1, 2.5, True):
        with pytest.raises(OptreesInputError, match="n_bins"):
            OMTClassifier(n_bins=bad).fit(X, y)
    with pytest.raises(OptreesInputError, match="n_bins"):
        build_graph(X, n_bins="many")


def test_auto_bins_of_integer_weights_equal_duplicated_rows():
    """The auto count follows the total weight and the CART thresholds use the weights, so
    the graph and the tree are those of the duplicated rows."""
    rng = np.random.default_rng(3)
    X, y = planted(800, seed=3)
    y = np.where(rng.random(len(y)) < 0.1, 1 - y, y)  # noise: the trees have to choose
    w = rng.integers(1, 4, len(y))
    weighted = OMTClassifier(depth=2, time_limit=60, random_state=0).fit(X, y, sample_weight=w)
    repeated = OMTClassifier(depth=2, time_limit=60, random_state=0).fit(
        X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert auto_bins(w.sum()) > auto_bins(len(y))
    for a, b in zip(weighted.graph_.levels, repeated.graph_.levels, strict=True):
        np.testing.assert_array_equal(a.cuts, b.cuts)
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


def test_ordinal_columns_get_no_tree_thresholds():
    """Ordered categories are binned over their positions only (at most one cut between
    neighbouring categories), with the auto count."""
    rng = np.random.default_rng(0)
    sizes = pd.Categorical(rng.choice(list("SMLX"), 400), categories=list("SMLX"), ordered=True)
    X = pd.DataFrame({"size": sizes, "x": rng.random(400)})
    y = (X["size"] >= "L").astype(int).to_numpy()
    clf = OMTClassifier(depth=1, time_limit=60, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.graph_.levels[0].cuts, [0.5, 1.5, 2.5])
    assert clf.score(X, y) == 1.0
