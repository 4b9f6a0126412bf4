"""The bad-input contract: one table of bad inputs fed to every estimator of the shared matrix
(``estimator_matrix.SPECS``) and one fed to the CLI.  Each row names the exception (or warning)
type and the words of the message; the CLI rows also check the exit code, a one-line message
on stderr without traceback, and that no output file is left behind."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from estimator_matrix import SPEC_IDS, SPECS, integer_table
from sklearn.exceptions import DataConversionWarning, NotFittedError

from optrees import OptreesInputError
from optrees._validation import OptreesTypeError
from optrees.cli import main
from optrees.estimators import UnseenCategoryWarning

# the fast instances stop at 0.3 s time limits on purpose
pytestmark = pytest.mark.filterwarnings("ignore::optrees.TimeLimitWarning")


def _table(n=40, seed=0):
    """A small raw table: one categorical, two numeric columns, string labels."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n)
    age = rng.integers(18, 70, n).astype(float)
    score = rng.normal(size=n).round(2)
    label = np.where((color == "red") | (age > 50), "yes", "no")
    return pd.DataFrame({"color": color, "age": age, "score": score}), label


def _numeric(n=40):
    X, y = _table(n)
    return X[["age", "score"]].to_numpy(), y


def _with(X, i, j, value):
    X = X.astype(object) if isinstance(value, dict | complex) else X.astype(float)
    X[i, j] = value
    return X


# (id, make(spec) -> (estimator, X, y), exception type, message regex)
FIT_CASES = [
    ("nan", lambda s: (s.make(), _with(_numeric()[0], 3, 1, np.nan), _numeric()[1]),
     OptreesInputError, r"missing values \(NaN/None\) in columns \['x1'\]"),
    ("inf", lambda s: (s.make(), _with(_numeric()[0], 3, 0, np.inf), _numeric()[1]),
     OptreesInputError, r"infinite values in columns \['x0'\]"),
    ("nan in DataFrame", lambda s: (s.make(), _table()[0].assign(color=lambda d: d.color.where(
        d.index != 2)), _table()[1]), OptreesInputError, r"missing values .*\['color'\]"),
    ("no rows", lambda s: (s.make(), np.zeros((0, 2)), np.array([])),
     OptreesInputError, r"X is empty: .*0 sample\(s\)"),
    ("no columns", lambda s: (s.make(), np.zeros((5, 0)), np.arange(5) % 2),
     OptreesInputError, r"X is empty: .*0 feature\(s\)"),
    ("one class", lambda s: (s.make(), _numeric()[0], np.full(40, "yes")),
     OptreesInputError, r"y has a single class \('yes'\); a classifier needs more than one class"),
    ("length mismatch", lambda s: (s.make(), _numeric()[0], _numeric()[1][:-1]),
     OptreesInputError, "X and y have different numbers of rows: X has 40, y has 39"),
    ("y missing value", lambda s: (s.make(), _numeric()[0],
                                   np.where(np.arange(40) == 5, None, _numeric()[1])),
     OptreesInputError, r"y contains missing values"),
    ("y is None", lambda s: (s.make(), _numeric()[0], None),
     OptreesInputError, "requires y to be passed, but the target y is None"),
    ("continuous y", lambda s: (s.make(), _numeric()[0], np.linspace(0, 1, 40)),
     OptreesInputError, "Unknown label type: continuous"),
    ("mixed label types", lambda s: (s.make(), _numeric()[0],
                                     np.array(["a", 1] * 20, dtype=object)),
     OptreesInputError, r"Unknown label type: y mixes label types \['int', 'str'\]"),
    ("1-D X", lambda s: (s.make(), _numeric()[0][:, 0], _numeric()[1]),
     OptreesInputError, r"two-dimensional .*Reshape your data"),
    ("sparse X", lambda s: (s.make(), sp.csr_matrix(_numeric()[0]), _numeric()[1]),
     OptreesInputError, "sparse input is not supported"),
    ("dict in a cell", lambda s: (s.make(), _with(_numeric()[0], 0, 0, {"a": 1}), _numeric()[1]),
     OptreesTypeError, "type dict: argument must be a string or a number"),
    ("complex X", lambda s: (s.make(), _numeric()[0] + 1j, _numeric()[1]),
     OptreesInputError, "Complex data not supported"),
    ("time_limit 0", lambda s: (s.make(time_limit=0), *_numeric()),
     OptreesInputError, "time_limit must be a positive number of seconds or None, got 0"),
    ("time_limit < 0", lambda s: (s.make(time_limit=-5), *_numeric()),
     OptreesInputError, "time_limit must be a positive number of seconds or None, got -5"),
    ("time_limit nan", lambda s: (s.make(time_limit=float("nan")), *_numeric()),
     OptreesInputError, "time_limit must be a positive number"),
    ("depth 0", lambda s: (s.make(**{s.depth: 0}), *_numeric()),
     OptreesInputError, r"depth must be an integer (>= 1|in \[1, \d+\]), got 0"),
    ("depth 2.5", lambda s: (s.make(**{s.depth: 2.5}), *_numeric()),
     OptreesInputError, r"depth must be an integer (>= 1|in \[1, \d+\]), got 2.5"),
    ("random_state < 0", lambda s: (s.make(random_state=-1), *_numeric()),
     OptreesInputError, "random_state must be None or an integer >= 0, got -1"),
    ("random_state object", lambda s: (s.make(random_state=np.random.RandomState(0)),
                                       *_numeric()),
     OptreesInputError, "random_state must be None or an integer >= 0"),
]

# estimators that take raw tables through a Binarizer (binarizer=None: 0/1 data only)
_BINARIZED = [s for s in SPECS if "binarizer" in s.cls().get_params()]
BINARIZER_CASES = [
    ("strings without binarizer", lambda s: (s.make(binarizer=None), *_table()),
     OptreesInputError, "non-numeric columns; binary 0/1 data is required here"),
    ("non-binary without binarizer", lambda s: (s.make(binarizer=None), *_numeric()),
     OptreesInputError, r"X must be binary \(0/1\) here, but column 'x0' has value"),
    ("unknown binarizer", lambda s: (s.make(binarizer="quantiles"), *_numeric()),
     OptreesInputError, "binarizer must be 'auto', None or a Binarizer, got 'quantiles'"),
]


def _has(spec, name: str) -> bool:
    """Whether the estimator has the parameter or method ``name``."""
    return name in spec.cls().get_params() or hasattr(spec.cls, name)


def _fit_rows():
    rows = [pytest.param(s, *c[1:], id=f"{s.id}-{c[0]}") for s in SPECS for c in FIT_CASES
            if not c[0].startswith("random_state") or _has(s, "random_state")]
    rows += [pytest.param(s, *c[1:], id=f"{s.id}-{c[0]}")
             for s in _BINARIZED for c in BINARIZER_CASES]
    return rows


@pytest.mark.parametrize("spec,make,error,message", _fit_rows())
def test_bad_fit_input(spec, make, error, message):
    est, X, y = make(spec)
    with pytest.raises(error, match=message):
        est.fit(X, y)
    assert not hasattr(est, "classes_")  # nothing half-fitted is left behind


@pytest.fixture(scope="module")
def fitted():
    X, y = _table()
    return {s.id: s.make(random_state=0).fit(_input(s, X), y) for s in SPECS}


def _input(spec, X):
    """The table as the estimator takes it (integer columns for robust trees)."""
    return integer_table(X) if spec.integer_features else X


def _rename(X):
    return X.rename(columns={"age": "AGE"})


# (id, method, X at predict time, exception / warning type, message regex)
PREDICT_CASES = [
    ("missing column", "predict", lambda X: X[["color", "age"]],
     OptreesInputError, "Feature names seen at fit time, yet now missing:\n- score"),
    ("wrong number of columns (array)", "predict_proba", lambda X: X.to_numpy()[:, :2],
     OptreesInputError, r"X has 2 features, but \w+ is expecting 3 features as input"),
    ("renamed column", "predict", _rename,
     OptreesInputError, "The feature names should match those that were passed during fit"),
    ("reordered columns", "predict", lambda X: X[["age", "color", "score"]],
     OptreesInputError, "Feature names must be in the same order as they were in fit"),
    ("nan at predict", "predict", lambda X: X.assign(age=np.nan),
     OptreesInputError, r"missing values \(NaN/None\) in columns \['age'\]"),
    ("inf at predict", "predict_proba", lambda X: X.assign(score=-np.inf),
     OptreesInputError, r"infinite values in columns \['score'\]"),
    ("empty at predict", "predict", lambda X: X.iloc[:0],
     OptreesInputError, r"0 sample\(s\)"),
    ("1-D at predict", "predict", lambda X: X.to_numpy()[0],
     OptreesInputError, "Reshape your data"),
    ("unseen category", "predict", lambda X: X.assign(color="purple"),
     UnseenCategoryWarning, r"column 'color' has categories not seen in fit: \['purple'\]"),
]


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@pytest.mark.parametrize("case", PREDICT_CASES, ids=[c[0] for c in PREDICT_CASES])
def test_bad_predict_input(spec, case, fitted):
    name, method, change, error, message = case
    if spec.integer_features and name == "unseen category":
        pytest.skip("integer features have no categories")
    if not _has(spec, method):
        method = "predict"  # the same input check (robust trees give no probabilities)
    X, y = _table()
    X = _input(spec, X)
    est = fitted[spec.id]
    bad = change(X)
    if issubclass(error, Warning):
        with pytest.warns(error, match=message):
            pred = getattr(est, method)(bad)
        assert len(pred) == len(X)  # a prediction for every row, the warning says how
    else:
        with pytest.raises(error, match=message):
            getattr(est, method)(bad)


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_predict_before_fit(spec, method):
    if not _has(spec, method):
        pytest.skip(f"{spec.id} has no {method}")
    X, _ = _table()
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        getattr(spec.make(), method)(X)


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_column_vector_y_warns_and_works(spec):
    X, y = _table()
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        est = spec.make(random_state=0).fit(_input(spec, X), y.reshape(-1, 1))
    assert list(est.classes_) == ["no", "yes"]


# --------------------------------------------------------------------------- the CLI
@pytest.fixture()
def files(tmp_path):
    X, y = _table()
    good = tmp_path / "good.csv"
    X.assign(label=y).to_csv(good, index=False)
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "corrupt.json").write_text('{"format": "optrees-model-1", "tree": {')
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    (tmp_path / "truncated.json").write_text(json.dumps({"format": "optrees-model-1"}))
    X.assign(age=np.nan, label=y).to_csv(tmp_path / "nan.csv", index=False)
    X[["color"]].to_csv(tmp_path / "fewer.csv", index=False)
    model = tmp_path / "model.json"
    assert main(["fit", "--csv", str(good), "--target", "label", "--depth", "1",
                 "--time-limit", "5", "--out", str(model)]) == 0
    return tmp_path


OUT = "{tmp}/result"  # every row writes here; it must not exist afterwards

CLI_CASES = [
    ("unknown dataset", ["fit", "--dataset", "no-such-data", "--out", OUT + ".json"],
     "unknown dataset"),
    ("unknown method", ["fit", "--dataset", "monk1", "--method", "magic", "--out",
                        OUT + ".json"], "invalid choice: 'magic'"),
    ("missing csv", ["fit", "--csv", "{tmp}/nope.csv", "--target", "label", "--out",
                     OUT + ".json"], "CSV file not found"),
    ("empty csv", ["fit", "--csv", "{tmp}/empty.csv", "--target", "label", "--out",
                   OUT + ".json"], "cannot read CSV file"),
    ("missing target", ["fit", "--csv", "{tmp}/good.csv", "--target", "y", "--out",
                        OUT + ".json"], "target column 'y' not in"),
    ("csv without target", ["fit", "--csv", "{tmp}/good.csv", "--out", OUT + ".json"],
     "--csv needs --target"),
    ("nan in csv", ["fit", "--csv", "{tmp}/nan.csv", "--target", "label", "--out",
                    OUT + ".json"], "missing values"),
    ("depth 0", ["fit", "--dataset", "monk1", "--depth", "0", "--out", OUT + ".json"],
     "depth must be an integer >= 1"),
    ("time limit 0", ["fit", "--dataset", "monk1", "--time-limit", "0", "--out", OUT + ".json"],
     "time_limit must be a positive number"),
    ("negative time limit", ["fit", "--dataset", "monk1", "--time-limit", "-3", "--out",
                             OUT + ".json"], "time_limit must be a positive number"),
    ("lam out of range", ["fit", "--dataset", "monk1", "--lam", "1.5", "--out", OUT + ".json"],
     "lam must be a number in [0, 1)"),
    ("leaf penalty with flow", ["fit", "--dataset", "monk1", "--method", "flow", "--penalty",
                                "leaves", "--out", OUT + ".json"], "need --method benders"),
    ("depth not a number", ["fit", "--dataset", "monk1", "--depth", "two"],
     "invalid int value: 'two'"),
    ("out dir missing", ["fit", "--dataset", "monk1", "--depth", "1", "--time-limit", "5",
                         "--out", "{tmp}/out/result.json"], "cannot write"),
    ("missing model", ["predict", "--model", "{tmp}/nope.json", "--csv", "{tmp}/good.csv",
                       "--out", OUT + ".csv"], "model file not found"),
    ("corrupt model JSON", ["predict", "--model", "{tmp}/corrupt.json", "--csv",
                            "{tmp}/good.csv", "--out", OUT + ".csv"], "cannot read model file"),
    ("not a model", ["predict", "--model", "{tmp}/other.json", "--csv", "{tmp}/good.csv",
                     "--out", OUT + ".csv"], "is not an optrees model file"),
    ("truncated model", ["predict", "--model", "{tmp}/truncated.json", "--csv",
                         "{tmp}/good.csv", "--out", OUT + ".csv"],
     "is not a valid optrees model file"),
    ("missing columns", ["predict", "--model", "{tmp}/model.json", "--csv", "{tmp}/fewer.csv",
                         "--out", OUT + ".csv"], "missing columns the model needs"),
    ("nan at predict", ["predict", "--model", "{tmp}/model.json", "--csv", "{tmp}/nan.csv",
                        "--out", OUT + ".csv"], "missing values"),
    ("predict out dir missing", ["predict", "--model", "{tmp}/model.json", "--csv",
                                 "{tmp}/good.csv", "--out", "{tmp}/out/result.csv"],
     "cannot write"),
]


@pytest.mark.parametrize("argv,message", [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])
def test_cli_bad_input(argv, message, files, capsys):
    argv = [a.format(tmp=files) for a in argv]
    code = main(argv)
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2
    assert message in err
    assert len(err.splitlines()) == 1 and err.startswith("optrees")  # one line, no traceback
    assert "Traceback" not in captured.out + captured.err
    assert not (files / "out").exists()
    assert not list(files.glob("**/result*"))
    assert not list(files.glob("**/.*.tmp"))  # no temporary file of the atomic write
