"""Row weights from their definition (the ``weights`` mutation group, ``bench/mutation.py``):
the weight of row i is ``sample_weight[i] * class_weight[y_i]``; "balanced" gives class k
``W / (K' W_k)`` with ``W_k`` the sample weight of class k, ``W`` their total and ``K'`` the
classes present (scikit-learn's ``n / (K n_k)`` when every weight is 1); a row of weight 0
is as if it were absent.  Every oracle here is plain numpy; each bad input is one
:class:`OptreesInputError` that names it."""

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.class_weight import compute_class_weight

from optrees import OptreesInputError
from optrees._validation import drop_weightless, fit_weights, positive_rows

CLASSES = np.array(["a", "b", "c"])
Y = np.array([0, 1, 1, 2, 2, 2, 0, 1])


def test_no_weights_is_none_and_a_number_weighs_every_row():
    assert fit_weights(None, None, CLASSES, Y) is None
    np.testing.assert_array_equal(fit_weights(2.5, None, CLASSES, Y), np.full(len(Y), 2.5))
    np.testing.assert_array_equal(fit_weights(3, None, CLASSES, Y), np.full(len(Y), 3.0))


def test_sample_weight_is_copied_as_floats():
    sw = np.arange(1, len(Y) + 1)
    w = fit_weights(sw, None, CLASSES, Y)
    assert w.dtype == float and w is not sw
    np.testing.assert_array_equal(w, sw.astype(float))
    fit_weights(pd.Series(sw), {"a": 2.0}, CLASSES, Y)
    np.testing.assert_array_equal(sw, np.arange(1, len(Y) + 1))  # the caller's is untouched


def test_a_class_weight_dict_multiplies_its_classes_only():
    sw = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 4.0, 1.0])
    w = fit_weights(sw, {"a": 3.0, "c": 0.5}, CLASSES, Y)
    per_class = np.array([3.0, 1.0, 0.5])  # "b" is not in the dict: weight 1
    np.testing.assert_allclose(w, sw * per_class[Y])
    w = fit_weights(None, {"b": 0}, CLASSES, Y)  # class weight 0 leaves its rows out
    np.testing.assert_array_equal(w, (Y != 1).astype(float))
    np.testing.assert_array_equal(fit_weights(None, {np.str_("a"): 2}, CLASSES, Y),
                                  np.where(Y == 0, 2.0, 1.0))
    ints = np.array([0, 1, 1, 2])
    np.testing.assert_array_equal(fit_weights(None, {1: 4.0}, np.array([0, 1, 2]), ints),
                                  [1.0, 4.0, 4.0, 1.0])


@pytest.mark.parametrize("sw", [None, [1, 2, 1, 1, 3, 1, 2, 5], [1, 0, 1, 1, 1, 1, 0, 1]])
def test_balanced_is_total_over_present_classes_times_class_total(sw):
    w = fit_weights(sw, "balanced", CLASSES, Y)
    s = np.ones(len(Y)) if sw is None else np.asarray(sw, dtype=float)
    totals = np.array([s[Y == k].sum() for k in range(3)])
    want = s * (s.sum() / (3 * totals))[Y]
    np.testing.assert_allclose(w, want)
    if sw is None:  # scikit-learn's n / (K n_k)
        sk = compute_class_weight("balanced", classes=np.arange(3), y=Y)
        np.testing.assert_allclose(w, sk[Y])


def test_balanced_counts_only_the_classes_present():
    """A class of weight 0 (all its rows weigh 0) is not one of the K' classes."""
    sw = np.where(Y == 2, 0.0, 1.0)
    w = fit_weights(sw, "balanced", CLASSES, Y)
    # classes a (2 rows) and b (3 rows): W = 5, K' = 2
    want = np.where(Y == 0, 5 / (2 * 2), np.where(Y == 1, 5 / (2 * 3), 0.0))
    np.testing.assert_allclose(w, want)
    assert (w[Y == 2] == 0).all()


@pytest.mark.parametrize("sw,match", [
    ([1, 1, -1, 1, 1, 1, 1, 1], r"must be >= 0 \(row 2 has -1\)"),
    ([1, 1, 1, 1, 1, 1, 1, -0.5], r"row 7 has -0.5"),
    ([1, 1, np.nan, 1, 1, 1, 1, 1], "NaN or infinite"),
    ([1, 1, 1, np.inf, 1, 1, 1, 1], "NaN or infinite"),
    ([1, 1, 1], r"shape \(3,\); expected \(8,\)"),
    (np.ones((8, 1)), r"shape \(8, 1\)"),
    ([True] * 8, "must hold numbers, got dtype bool"),
    (["1"] * 8, "must hold numbers"),
    ([1j] * 8, "real numbers, not complex"),
    (1j, "real numbers, not complex"),
    ([0] * 8, "zero for every row"),
    (0.0, "zero for every row"),
    ([[1, 2], [3]], "not a list of numbers"),
    ([1, None, 1, 1, 1, 1, 1, 1], "NaN or infinite"),
    (["a"] * 8, "must hold numbers"),
])
def test_bad_sample_weights_are_named(sw, match):
    with pytest.raises(OptreesInputError, match=match):
        fit_weights(sw, None, CLASSES, Y)


@pytest.mark.parametrize("cw,match", [
    ("even", "must be None, 'balanced' or a dict, got 'even'"),
    ([1, 2, 3], "must be None, 'balanced' or a dict"),
    ({"z": 1.0}, r"not classes of y: \['z'\]"),
    ({"a": -1.0}, r"class_weight\['a'\] must be a finite number >= 0, got -1.0"),
    ({"b": np.nan}, r"class_weight\['b'\] must be a finite"),
    ({"c": True}, r"class_weight\['c'\] must be a finite"),
    ({"c": "2"}, r"class_weight\['c'\] must be a finite"),
    ({"a": 0, "b": 0, "c": 0}, "zero for every row"),
])
def test_bad_class_weights_are_named(cw, match):
    with pytest.raises(OptreesInputError, match=match):
        fit_weights(None, cw, CLASSES, Y)


def test_class_weight_zero_on_the_only_weighted_rows_is_refused():
    sw = np.where(Y == 0, 1.0, 0.0)
    with pytest.raises(OptreesInputError, match="zero for every row"):
        fit_weights(sw, {"a": 0.0}, CLASSES, Y)


def test_positive_rows_and_drop_weightless():
    assert positive_rows(None) is None
    assert positive_rows(np.array([1.0, 0.5, 2.0])) is None
    np.testing.assert_array_equal(positive_rows(np.array([1.0, 0.0, 2.0, 0.0])),
                                  [True, False, True, False])
    df = pd.DataFrame({"x": [10, 11, 12, 13]}, index=[5, 6, 7, 8])
    y = np.array([0, 1, 0, 1])
    same = drop_weightless(df, y, None)
    assert same[0] is df and same[1] is y and same[2] is None
    w = np.array([1.0, 0.0, 3.0, 0.0])
    d, yy, ww = drop_weightless(df, y, w)
    assert list(d["x"]) == [10, 12] and list(d.index) == [0, 1]
    np.testing.assert_array_equal(yy, [0, 0])
    np.testing.assert_array_equal(ww, [1.0, 3.0])
    full = np.array([1.0, 2.0, 3.0, 4.0])
    d, yy, ww = drop_weightless(df, y, full)
    assert d is df and ww is full


# ------------------------------------------------------------------ the survivors' tests
@pytest.mark.parametrize("cw", ["auto", "Balanced", "BALANCED", "", "balanced "])
def test_only_the_exact_string_balanced_is_taken(cw):
    """Strings that sort before "balanced" are refused as well as those after it (the first
    run let ``class_weight != "balanced"`` become ``> "balanced"``)."""
    with pytest.raises(OptreesInputError, match="must be None, 'balanced' or a dict"):
        fit_weights(None, cw, CLASSES, Y)


def test_the_first_negative_row_is_named_past_zero_weights():
    """Weights of 0 and below 1 are allowed: the message names the first *negative* row
    (not the first of weight <= 0 or < 1)."""
    sw = [1.0, 0.0, 0.5, 2.0, -3.0, 1.0, -1.0, 1.0]
    with pytest.raises(OptreesInputError, match=r"row 4 has -3\)"):
        fit_weights(sw, None, CLASSES, Y)


@pytest.mark.parametrize("bad", [{}, [1, 2], object(), {1, 2}, "a", "1,5"])
def test_an_object_that_is_not_a_number_among_the_weights_is_named(bad):
    """An element ``float()`` cannot take, in an array of objects (numpy's cast raises a
    TypeError for a dict, a list, a set or an object, a ValueError for a string that is not
    a number), is one clear :class:`OptreesInputError`."""
    sw = np.empty(len(Y), dtype=object)
    sw[:] = 1.0
    sw[3] = bad
    with pytest.raises(OptreesInputError, match="must hold numbers"):
        fit_weights(sw, None, CLASSES, Y)
    if isinstance(bad, dict):  # in a list too
        with pytest.raises(OptreesInputError, match="must hold numbers"):
            fit_weights([1.0, 1.0, bad, 1.0, 1.0, 1.0, 1.0, 1.0], None, CLASSES, Y)


def test_unknown_labels_and_classes_are_listed_five_and_ten_at_most():
    classes = np.array([f"k{j:02d}" for j in range(12)])
    y = np.arange(12)
    unknown = {f"u{j}": 1.0 for j in range(7)}
    with pytest.raises(OptreesInputError) as info:
        fit_weights(None, unknown, classes, y)
    message = str(info.value)
    listed = message.split("not classes of y: ")[1].split(" (classes")[0]
    assert listed == str([f"u{j}" for j in range(5)])
    shown = message.split("(classes: ")[1].rstrip(")")
    assert shown == str([f"k{j:02d}" for j in range(10)])


def test_dropping_weightless_rows_keeps_the_columns_as_they_were():
    """The kept rows are renumbered 0..n-1 and the frame gains no column (the old index
    is dropped, not kept as a column named "index")."""
    df = pd.DataFrame({"x": [10, 11, 12, 13], "z": list("abcd")}, index=[5, 6, 7, 8])
    d, yy, ww = drop_weightless(df, np.array([0, 1, 0, 1]), np.array([0.0, 2.0, 1.0, 0.0]))
    assert list(d.columns) == ["x", "z"] and list(d.index) == [0, 1]
    assert d.to_dict("list") == {"x": [11, 12], "z": ["b", "c"]}
    np.testing.assert_array_equal(yy, [1, 0])
    np.testing.assert_array_equal(ww, [2.0, 1.0])
