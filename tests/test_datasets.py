"""Tests for optrees.datasets: bundled data, name handling, data-directory loading."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from data_dir import DATA_DIR as SHARED
from data_dir import needs_data as needs_shared

from optrees._validation import OptreesInputError
from optrees.datasets import (
    BUNDLED,
    ENV_VAR,
    available_names,
    list_datasets,
    load_dataset,
)
from optrees.datasets._registry import ALL, SPECS

BUNDLED_SHAPES = {
    "monk1": (124, 6),
    "monk2": (169, 6),
    "monk3": (122, 6),
    "house-votes-84": (232, 16),  # 435 rows in the raw file; rows with '?' dropped
    "balance-scale": (625, 4),
    "tic-tac-toe": (958, 9),
    "car-evaluation": (1728, 6),
    "kr-vs-kp": (3196, 36),
    "liver-disorders": (345, 5),  # regression: target drinks
    "synthetic-survival": (400, 5),  # survival: (event, time)
    "policy-trial": (600, 9),  # synthetic policy set: target outcome
}

# Rows as in shared/datasets/INVENTORY.md, except where rows with missing values are
# dropped: breast-cancer 286 -> 277, adult 32561 -> 30162, mushroom 8124 -> 5644 ('?' in
# stalk-root), ilpd 583 -> 579 (empty A/G ratio). spect and ann-thyroid are train + test.
SHARED_SHAPES = {
    "iris": (150, 4),
    "wine": (178, 13),
    "banknote": (1372, 4),
    "ionosphere": (351, 34),
    "wdbc": (569, 30),
    "spambase": (4601, 57),
    "seismic-bumps": (2584, 18),
    "breast-cancer": (277, 9),
    "soybean-small": (47, 35),
    "hayes-roth": (132, 4),
    "spect": (80 + 187, 22),
    "transfusion": (748, 4),
    "magic": (19020, 10),
    "adult": (30162, 14),
    "compas": (3518, 7),
    "default-credit": (30000, 23),
    "htru2": (17898, 8),
    "shuttle": (43500, 9),
    "letter": (20000, 16),
    "mushroom": (5644, 22),
    "nursery": (12960, 8),
    "student": (649, 32),
    "law": (22386, 5),
    "attrition": (1470, 33),
    "mammography": (11183, 6),
    "oilspill": (937, 48),
    "phoneme": (5404, 5),
    "ecoli": (336, 7),
    "glass": (214, 9),
    "seeds": (210, 7),
    "skin": (245057, 3),
    "ann-thyroid": (3772 + 3428, 21),
    "pima-diabetes": (768, 8),
    "statlog-satellite": (4435, 36),
    "heart": (303, 13),
    "bank-marketing": (11162, 16),
    "ilpd": (579, 10),
    "bupa": (345, 6),
}


@pytest.fixture
def no_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)


def _check_frame(X: pd.DataFrame, y: pd.Series) -> None:
    assert len(X) == len(y)
    assert not X.isna().any().any()
    assert not y.isna().any()
    assert y.nunique() >= 2
    for col in X.columns:
        dtype = X[col].dtype
        assert isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_numeric_dtype(dtype), (
            col,
            dtype,
        )


# --- bundled ---------------------------------------------------------------------------------


def test_bundled_names() -> None:
    assert BUNDLED == tuple(BUNDLED_SHAPES)


@pytest.mark.parametrize("name", BUNDLED_SHAPES)
def test_bundled_shape_without_data_dir(name: str, no_data_dir: None) -> None:
    X, y = load_dataset(name)
    assert X.shape == BUNDLED_SHAPES[name]
    if name == "synthetic-survival":
        assert y.dtype.names == ("event", "time")
        return
    assert y.name == {"liver-disorders": "drinks", "policy-trial": "outcome"}.get(name, "class")
    _check_frame(X, y)


def test_the_bundled_survival_set_is_its_generators_output(no_data_dir: None) -> None:
    """synthetic-survival: the file is make_survival()'s, and its truth shows in the data:
    events censored only before 60 months, and stage III dying sooner than stage I-II."""
    from optrees.datasets.synthetic import make_survival

    X, y = load_dataset("synthetic-survival")
    made = make_survival()
    pd.testing.assert_frame_equal(X.astype({"stage": str}), made.drop(columns=["event", "time"]),
                                  check_dtype=False)
    assert np.array_equal(y["event"], made["event"] == 1)
    assert np.array_equal(y["time"], made["time"])
    assert isinstance(X["stage"].dtype, pd.CategoricalDtype)
    assert y["time"].max() <= 60.0 and y["time"].min() > 0 and 0.5 < y["event"].mean() < 1
    late = X["stage"] == "III"
    assert np.median(y["time"][late & y["event"]]) < np.median(y["time"][~late & y["event"]])
    row = list_datasets().set_index("name").loc["synthetic-survival"]
    assert row["task"] == "survival" and pd.isna(row["classes"])


def test_the_bundled_regression_set_is_numbers_from_the_uci_file(no_data_dir: None) -> None:
    """liver-disorders: UCI's five blood tests and its recommended target, drinks."""
    X, y = load_dataset("liver-disorders")
    assert list(X.columns) == ["mcv", "alkphos", "sgpt", "sgot", "gammagt"]
    assert all(pd.api.types.is_integer_dtype(d) for d in X.dtypes)
    assert y.dtype == float and y.nunique() == 16 and (y.min(), y.max()) == (0.0, 20.0)
    assert X.iloc[0].tolist() == [85, 92, 45, 27, 31] and y.iloc[0] == 0.0  # UCI's first row
    row = list_datasets().set_index("name").loc["liver-disorders"]
    assert row["task"] == "regression" and pd.isna(row["classes"])


def test_the_policy_set_is_its_generators_output_with_its_truth(no_data_dir: None) -> None:
    """policy-trial: the bundled file is the generator's output (seed 45), its propensity is
    the probability of the row's own treatment under the stated softmax, and its mu columns
    follow the stated truth (written here from the generator's docstring)."""
    from optrees.datasets.synthetic import policy_trial

    X, y = load_dataset("policy-trial")
    pd.testing.assert_frame_equal(pd.concat([X, y], axis=1)[policy_trial().columns],
                                  policy_trial(), check_dtype=False, check_categorical=False)
    age, smoker, bmi = (X[c].to_numpy(float) for c in ("age", "smoker", "bmi"))
    mu0 = 1 - 0.05 * (bmi - 25)
    assert np.allclose(X["mu_0"], mu0, atol=1e-4)
    assert np.allclose(X["mu_1"], mu0 + np.where(age >= 55, 1.0, -0.5), atol=1e-4)
    assert np.allclose(X["mu_2"], mu0 + np.where((smoker == 1) & (bmi < 30), 1.5, -1.0),
                       atol=1e-4)
    logits = np.column_stack([np.zeros(len(X)), 0.04 * (age - 50), 1.2 * smoker - 0.6])
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    t = X["treatment"].to_numpy()
    assert np.allclose(X["propensity"], p[np.arange(len(X)), t], atol=1e-6)
    row = list_datasets().set_index("name").loc["policy-trial"]
    assert row["task"] == "policy" and pd.isna(row["classes"])


def test_monk_columns_are_categorical() -> None:
    for name in ("monk1", "monk2", "monk3"):
        X, y = load_dataset(name)
        assert list(X.columns) == ["a1", "a2", "a3", "a4", "a5", "a6"]
        assert all(isinstance(d, pd.CategoricalDtype) for d in X.dtypes)
        assert list(X["a5"].cat.categories) == [1, 2, 3, 4]
        assert set(y) == {0, 1}


def test_bundled_column_names_and_values() -> None:
    X, y = load_dataset("balance-scale")
    assert list(X.columns) == ["left-weight", "left-distance", "right-weight", "right-distance"]
    assert all(isinstance(d, pd.CategoricalDtype) for d in X.dtypes)  # one-hot as in the paper
    assert set(y) == {"L", "B", "R"}

    X, y = load_dataset("car-evaluation")
    assert list(X.columns) == ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
    assert set(X["safety"]) == {"low", "med", "high"}  # the raw copy merges med and high
    assert y.value_counts().to_dict() == {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}

    assert X["safety"].cat.ordered and list(X["safety"].cat.categories) == ["low", "med", "high"]
    assert list(X["doors"].cat.categories) == ["2", "3", "4", "5more"]

    X, y = load_dataset("house-votes-84")
    assert X.columns[0] == "handicapped-infants"
    assert set(X.stack()) == {"y", "n"}
    assert set(y) == {"democrat", "republican"}

    X, _ = load_dataset("tic-tac-toe")
    assert X.columns[0] == "top-left-square" and X.columns[-1] == "bottom-right-square"

    X, y = load_dataset("kr-vs-kp")
    assert list(X.columns[:3]) == ["bkblk", "bknwy", "bkon8"] and X.columns[-1] == "wtoeg"
    assert set(y) == {"won", "nowin"}


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("car_evaluation", "car-evaluation"),
        ("Car-Evaluation", "car-evaluation"),
        ("car", "car-evaluation"),
        ("MONK1", "monk1"),
        (" kr_vs_kp ", "kr-vs-kp"),
        ("House_Votes_84", "house-votes-84"),
    ],
)
def test_name_normalisation(alias: str, canonical: str) -> None:
    X_a, y_a = load_dataset(alias)
    X_c, y_c = load_dataset(canonical)
    pd.testing.assert_frame_equal(X_a, X_c)
    pd.testing.assert_series_equal(y_a, y_c)


@pytest.mark.parametrize("alias", ["HTRU_2", "htru2", "htru-2", "Seismic_Bumps", "ILPD"])
def test_non_bundled_aliases_resolve(alias: str, no_data_dir: None) -> None:
    # A known name gets as far as looking for its file.
    with pytest.raises(FileNotFoundError):
        load_dataset(alias)


def test_unknown_name_lists_available() -> None:
    with pytest.raises(OptreesInputError, match="unknown dataset 'no-such-set'") as info:
        load_dataset("no-such-set")
    for name in ("monk1", "iris", "kr-vs-kp"):
        assert name in str(info.value)


def test_non_string_name() -> None:
    with pytest.raises(OptreesInputError, match="string"):
        load_dataset(3)  # type: ignore[arg-type]


def test_available_names() -> None:
    names = available_names()
    assert names == sorted(names)
    assert set(BUNDLED) <= set(names)
    assert set(SHARED_SHAPES) <= set(names)
    assert len(names) == len(SPECS)


def test_registry_entries_are_well_formed() -> None:
    keys = []
    for spec in SPECS:
        assert spec.name == spec.name.strip().lower().replace("_", "-")
        assert spec.columns is not None or spec.header, spec.name
        if spec.columns is not None:
            assert len(set(spec.columns)) == len(spec.columns), spec.name
            assert spec.target in spec.columns, spec.name
        keys += [spec.name, *spec.aliases]
        for col, order in spec.ordered:  # ordered columns are categorical, orders distinct
            assert spec.categorical == ALL or col in spec.categorical, (spec.name, col)
            assert len(set(order)) == len(order), (spec.name, col)
    assert len(keys) == len(set(keys))


# --- data directory --------------------------------------------------------------------------


def test_missing_data_dir_message(no_data_dir: None) -> None:
    with pytest.raises(FileNotFoundError, match=ENV_VAR) as info:
        load_dataset("iris")
    assert "iris.data" in str(info.value)


def test_missing_file_message(tmp_path: Path, no_data_dir: None) -> None:
    with pytest.raises(FileNotFoundError, match=ENV_VAR) as info:
        load_dataset("spect", data_dir=tmp_path)
    assert str(tmp_path / "spect.train") in str(info.value)


def _copy_iris(folder: Path) -> None:
    if SHARED is not None:
        shutil.copy(SHARED / "iris.data", folder / "iris.data")
    else:  # a few rows in the UCI format are enough for the directory logic
        rows = ["5.1,3.5,1.4,0.2,Iris-setosa", "7.0,3.2,4.7,1.4,Iris-versicolor"]
        (folder / "iris.data").write_text("\n".join(rows) + "\n")


def test_env_var_and_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy_iris(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    X_env, y_env = load_dataset("iris")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "elsewhere"))
    X_arg, y_arg = load_dataset("iris", data_dir=str(tmp_path))  # argument wins
    pd.testing.assert_frame_equal(X_env, X_arg)
    pd.testing.assert_series_equal(y_env, y_arg)
    assert list(X_env.columns) == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    assert y_env.name == "class" and y_env.iloc[0] == "Iris-setosa"


def test_list_datasets_without_data_dir(no_data_dir: None) -> None:
    table = list_datasets()
    assert list(table.columns) == ["name", "task", "rows", "features", "classes", "bundled",
                                   "available"]
    assert list(table["name"]) == [spec.name for spec in SPECS]
    bundled = table[table["bundled"]]
    assert list(bundled["name"]) == list(BUNDLED)
    assert bundled["available"].all()
    shapes = {r.name: (r.rows, r.features) for r in bundled.itertuples()}
    assert shapes == BUNDLED_SHAPES
    assert bundled.set_index("name").loc["car-evaluation", "classes"] == 4
    others = table[~table["bundled"]]
    assert not others["available"].any()
    assert others["rows"].isna().all()


def test_list_datasets_partial_dir(tmp_path: Path) -> None:
    _copy_iris(tmp_path)
    table = list_datasets(data_dir=tmp_path).set_index("name")
    assert table.loc["iris", "available"] and not table.loc["iris", "bundled"]
    assert table.loc["iris", "features"] == 4
    assert not table.loc["wine", "available"]


# --- shared/datasets -------------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize("name", SHARED_SHAPES)
def test_shared_dataset_shapes(name: str, no_data_dir: None) -> None:
    X, y = load_dataset(name, data_dir=SHARED)
    assert X.shape == SHARED_SHAPES[name]
    _check_frame(X, y)


@needs_shared
def test_shared_dataset_details() -> None:
    X, y = load_dataset("adult", data_dir=SHARED)
    assert y.name == "income" and set(y) == {"<=50K", ">50K"}  # leading spaces stripped
    assert isinstance(X["workclass"].dtype, pd.CategoricalDtype)
    assert "?" not in set(X["workclass"])
    assert pd.api.types.is_integer_dtype(X["age"])

    X, y = load_dataset("wdbc", data_dir=SHARED)
    assert "id" not in X.columns and y.name == "diagnosis" and set(y) == {"M", "B"}

    X, _ = load_dataset("nursery", data_dir=SHARED)  # integer-coded categorical
    assert all(isinstance(d, pd.CategoricalDtype) for d in X.dtypes)

    X, y = load_dataset("spect", data_dir=SHARED)  # label is the first column of the files
    assert list(X.columns) == [f"F{i}" for i in range(1, 23)] and set(y) == {0, 1}

    X, y = load_dataset("HTRU_2", data_dir=SHARED)
    assert y.value_counts().to_dict() == {0: 16259, 1: 1639}

    table = list_datasets(data_dir=SHARED).set_index("name")
    assert table["available"].all()
    assert table.loc["letter", "classes"] == 26
