"""Declarative descriptions of every dataset ``load_dataset`` knows.

One :class:`DatasetSpec` per dataset says how to read its file(s); the single generic reader
in ``optrees.datasets`` does the rest. Bundled datasets live (already cleaned, with a header
row) in ``optrees/datasets/data/``; the others are read from a data directory laid out like the
project's ``shared/datasets`` folder.  The column names and value orders the entries cite
are in :mod:`optrees.datasets._columns`.

(Over 400 lines: one table entry per data set, with its source, files and cleaning.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._columns import (
    ADULT,
    ANN_THYROID,
    ATTRITION_NOMINAL,
    BANK,
    BREAST_CANCER,
    BREAST_CANCER_ORDER,
    BUPA,
    CAR_ORDER,
    DEFAULT_CREDIT,
    HEART,
    HTRU2,
    ILPD,
    LETTER,
    MAGIC,
    MUSHROOM,
    NURSERY,
    PIMA,
    SATELLITE,
    SEISMIC_BUMPS,
    SOYBEAN,
    SPAMBASE,
    STUDENT,
    STUDENT_NOMINAL,
    WDBC,
    WINE,
    seq,
)

ALL: Literal["all"] = "all"
"""Value of ``DatasetSpec.categorical`` meaning "every feature column is categorical"."""


@dataclass(frozen=True)
class DatasetSpec:
    """How to read one dataset.

    Attributes:
        name: canonical name (lower case, words joined by ``-``).
        files: file paths relative to the data directory; several files are concatenated.
        target: name of the label column (after naming).
        columns: names for all columns in file order; ``None`` keeps the header row's names.
        header: the file starts with a header row (skipped when ``columns`` is given).
        sep: field separator (``r"\\s+"`` for whitespace-separated files).
        drop: columns removed after reading (ids, row numbers).
        categorical: feature columns returned with ``category`` dtype, or ``ALL``.
        ordered: ``(column, categories in order)`` pairs: these categorical columns are
            returned as ordered categoricals (categories absent from the file are dropped).
        na_values: cell values that mean "missing"; rows holding any of them are dropped.
        bundled: the file ships inside the package (``files`` relative to ``data/``).
        aliases: other accepted names (normalised like the canonical one).
        shape: ``(rows, features, classes)`` that ``load_dataset`` returns for the reference
            copy of the file(s) (after dropping rows with missing values), so that listing
            the datasets needs no loading (classes 0 for a regression target); ``None`` when
            unknown.
        task: "classification" (the target holds class labels), "regression" (a number
            to predict), "survival" (``target`` the time, ``event`` the event indicator) or
            "policy" (the outcome of a historic treatment, for a policy tree).
        event: a survival set's event column (1: the event was observed, 0: censored).
    """

    name: str
    files: tuple[str, ...]
    target: str
    columns: tuple[str, ...] | None = None
    header: bool = False
    sep: str = ","
    drop: tuple[str, ...] = ()
    categorical: tuple[str, ...] | Literal["all"] = ()
    ordered: tuple[tuple[str, tuple[str, ...]], ...] = ()
    na_values: tuple[str, ...] = ("?",)
    bundled: bool = False
    aliases: tuple[str, ...] = ()
    shape: tuple[int, int, int] | None = None
    task: str = "classification"
    event: str | None = None


def _bundled(
    name: str,
    shape: tuple[int, int, int],
    categorical: tuple[str, ...] | Literal["all"] = ALL,
    aliases: tuple[str, ...] = (),
    ordered: tuple[tuple[str, tuple[str, ...]], ...] = (),
) -> DatasetSpec:
    """Bundled datasets: cleaned CSV with a header row, label column named ``class``."""
    return DatasetSpec(
        name=name,
        files=(f"{name}.csv",),
        target="class",
        header=True,
        categorical=categorical,
        ordered=ordered,
        bundled=True,
        aliases=aliases,
        shape=shape,
    )




SPECS: tuple[DatasetSpec, ...] = (
    # --- bundled (optrees/datasets/data/*.csv) ---
    _bundled("monk1", (124, 6, 2)),
    _bundled("monk2", (169, 6, 2)),
    _bundled("monk3", (122, 6, 2)),
    _bundled("house-votes-84", (232, 16, 2)),
    # categorical as in the FlowOCT paper's Table 1 (one-hot: 20 binary features)
    _bundled("balance-scale", (625, 4, 3)),
    _bundled("tic-tac-toe", (958, 9, 2)),
    _bundled("car-evaluation", (1728, 6, 4), aliases=("car",), ordered=CAR_ORDER),
    _bundled("kr-vs-kp", (3196, 36, 2)),
    # UCI Liver Disorders with the target its UCI page recommends: "drinks" (half-pint
    # equivalents of alcohol per day), predicted from five blood tests; the "selector"
    # column (a train/test split, not a diagnosis: the non-bundled "bupa" keeps it) dropped
    DatasetSpec(name="liver-disorders", files=("liver-disorders.csv",), target="drinks",
                header=True, bundled=True, shape=(345, 5, 0), task="regression"),
    DatasetSpec(name="synthetic-survival", files=("synthetic-survival.csv",), target="time",
                event="event", header=True, bundled=True, categorical=("stage",),
                shape=(400, 5, 0), task="survival"),
    # synthetic, known counterfactuals (optrees.datasets.synthetic.policy_trial, seed 45):
    # X holds the features age, smoker, bmi, sex and the study's treatment, propensity and
    # true mean outcome of each treatment mu_0..mu_2; the target is the observed outcome
    DatasetSpec(name="policy-trial", files=("policy-trial.csv",), target="outcome",
                header=True, bundled=True, shape=(600, 9, 0), task="policy",
                categorical=("sex",)),
    # --- read from the data directory ---
    DatasetSpec(
        name="iris",
        shape=(150, 4, 3),
        files=("iris.data",),
        columns=("sepal_length", "sepal_width", "petal_length", "petal_width", "class"),
        target="class",
    ),
    DatasetSpec(name="wine", shape=(178, 13, 3), files=("wine.data",),
                columns=("class", *WINE), target="class"),
    DatasetSpec(
        name="banknote",
        shape=(1372, 4, 2),
        files=("banknote.txt",),
        columns=("variance", "skewness", "curtosis", "entropy", "class"),
        target="class",
    ),
    DatasetSpec(
        name="ionosphere",
        shape=(351, 34, 2),
        files=("ionosphere.data",),
        columns=(*seq("a", 34), "class"),
        target="class",
    ),
    DatasetSpec(
        name="wdbc",
        shape=(569, 30, 2),
        files=("wdbc.data",),
        columns=("id", "diagnosis", *WDBC),
        target="diagnosis",
        drop=("id",),
    ),
    DatasetSpec(
        name="spambase",
        shape=(4601, 57, 2),
        files=("spambase.data",),
        columns=(*SPAMBASE, "class"),
        target="class",
    ),
    DatasetSpec(
        name="seismic-bumps",
        shape=(2584, 18, 2),
        files=("seismic-bumps.arff",),  # plain CSV despite the extension
        columns=(*SEISMIC_BUMPS, "class"),
        target="class",
        categorical=("seismic", "seismoacoustic", "shift", "ghazard"),
    ),
    DatasetSpec(
        name="breast-cancer",
        shape=(277, 9, 2),
        files=("breast-cancer.data",),
        columns=("class", *BREAST_CANCER),
        target="class",
        categorical=tuple(c for c in BREAST_CANCER if c != "deg-malig"),
        ordered=BREAST_CANCER_ORDER,
    ),
    DatasetSpec(
        name="soybean-small",
        shape=(47, 35, 4),
        files=("soybean-small.data",),
        columns=(*SOYBEAN, "class"),
        target="class",
        categorical=ALL,
    ),
    DatasetSpec(
        name="hayes-roth",
        shape=(132, 4, 3),
        files=("hayes-roth.data",),  # the .test file (no id column) is not used
        columns=("name", "hobby", "age", "educational-level", "marital-status", "class"),
        target="class",
        drop=("name",),
        categorical=ALL,
    ),
    DatasetSpec(
        name="spect",
        shape=(267, 22, 2),
        files=("spect.train", "spect.test"),
        columns=("class", *seq("F", 22)),
        target="class",
    ),
    DatasetSpec(
        name="transfusion",
        shape=(748, 4, 2),
        files=("transfusion.data",),
        header=True,
        columns=(
            "recency_months",
            "frequency_times",
            "monetary_cc",
            "time_months",
            "donated_march_2007",
        ),
        target="donated_march_2007",
    ),
    DatasetSpec(name="magic", shape=(19020, 10, 2), files=("magic.csv",),
                columns=(*MAGIC, "class"), target="class"),
    DatasetSpec(
        name="adult",
        shape=(30162, 14, 2),
        files=("adult.csv",),  # UCI adult.data (train part); sex is coded 1/0 in this copy
        columns=(*ADULT, "income"),
        target="income",
        categorical=(
            "workclass",
            "education",
            "marital-status",
            "occupation",
            "relationship",
            "race",
            "sex",
            "native-country",
        ),
    ),
    DatasetSpec(
        name="compas",
        shape=(3518, 7, 2),
        files=("compas.csv",),
        header=True,
        sep=";",
        target="Two_yr_Recidivism",
    ),
    DatasetSpec(
        name="default-credit",
        shape=(30000, 23, 2),
        # This copy keeps the UCI header and coding; default-credit.csv recodes SEX.
        files=("alternates/default-credit.colgen.csv",),
        header=True,
        sep=";",
        columns=(*DEFAULT_CREDIT, "default_payment_next_month"),
        target="default_payment_next_month",
        categorical=("SEX", "EDUCATION", "MARRIAGE"),
    ),
    DatasetSpec(
        name="htru2",
        shape=(17898, 8, 2),
        files=("HTRU_2.csv",),
        header=True,
        sep=";",
        columns=(*HTRU2, "class"),
        target="class",
        aliases=("htru-2",),
    ),
    DatasetSpec(
        name="shuttle",
        shape=(43500, 9, 7),
        files=("shuttle.trn",),
        sep=r"\s+",
        columns=(*seq("a", 9), "class"),
        target="class",
    ),
    DatasetSpec(
        name="letter",
        shape=(20000, 16, 26),
        files=("letter.csv",),  # letters coded 1..26 in this copy
        header=True,
        columns=(*LETTER, "lettr"),
        target="lettr",
    ),
    DatasetSpec(
        name="mushroom",
        shape=(5644, 22, 2),
        files=("mushroom.csv",),
        columns=("class", *MUSHROOM),
        target="class",
        categorical=ALL,
    ),
    DatasetSpec(
        name="nursery",
        shape=(12960, 8, 5),
        files=("nursery.csv",),  # integer-coded
        sep=";",
        columns=(*NURSERY, "class"),
        target="class",
        categorical=ALL,
    ),
    DatasetSpec(
        name="student",
        shape=(649, 32, 5),
        files=("student.csv",),  # student-por, integer-coded, grades binned into 5 levels
        sep=";",
        columns=(*STUDENT, "G3"),
        target="G3",
        categorical=STUDENT_NOMINAL,
    ),
    DatasetSpec(
        name="law",
        shape=(22386, 5, 4),
        files=("law.csv",),  # pre-processed copy without column documentation
        sep=";",
        columns=(*seq("a", 5), "class"),
        target="class",
    ),
    DatasetSpec(
        name="attrition",
        shape=(1470, 33, 2),
        files=("attrition.csv",),
        header=True,
        sep=";",
        target="Attrition",
        drop=("EmployeeNumber",),
        categorical=ATTRITION_NOMINAL,
    ),
    DatasetSpec(
        name="mammography",
        shape=(11183, 6, 2),
        files=("mammography.csv",),
        columns=(*seq("a", 6), "class"),
        target="class",
    ),
    DatasetSpec(
        name="oilspill",
        shape=(937, 48, 2),
        files=("oilspill.csv",),
        columns=("batch", *seq("f", 48), "class"),
        target="class",
        drop=("batch",),  # first column is a batch number, not a measurement
    ),
    DatasetSpec(
        name="phoneme",
        shape=(5404, 5, 2),
        files=("phoneme.csv",),
        columns=(*seq("harmonic", 5), "class"),
        target="class",
    ),
    DatasetSpec(
        name="ecoli",
        shape=(336, 7, 8),
        files=("ecoli.csv",),
        columns=("mcg", "gvh", "lip", "chg", "aac", "alm1", "alm2", "class"),
        target="class",
    ),
    DatasetSpec(
        name="glass",
        shape=(214, 9, 6),
        files=("glass.csv",),
        columns=("RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe", "class"),
        target="class",
    ),
    DatasetSpec(
        name="seeds",
        shape=(210, 7, 3),
        files=("alternates/seeds.ruled.csv",),  # clean copy; seeds.txt has ragged rows
        sep="\t",
        columns=(
            "area",
            "perimeter",
            "compactness",
            "kernel_length",
            "kernel_width",
            "asymmetry_coefficient",
            "groove_length",
            "class",
        ),
        target="class",
    ),
    DatasetSpec(name="skin", shape=(245057, 3, 2), files=("skin.csv",),
                columns=("B", "G", "R", "class"), target="class"),
    DatasetSpec(
        name="ann-thyroid",
        shape=(7200, 21, 3),
        files=("ann-thyroid.train", "ann-thyroid.test"),
        sep=r"\s+",
        columns=(*ANN_THYROID, "class"),
        target="class",
    ),
    DatasetSpec(
        name="pima-diabetes",
        shape=(768, 8, 2),
        files=("extras/diabetes_pima.csv",),
        columns=(*PIMA, "outcome"),
        target="outcome",
    ),
    DatasetSpec(
        name="statlog-satellite",
        shape=(4435, 36, 6),
        files=("extras/Statlog_satellite.csv",),
        header=True,
        sep=";",
        columns=(*SATELLITE, "class"),
        target="class",
    ),
    DatasetSpec(
        name="heart",
        shape=(303, 13, 2),
        files=("extras/hearts.csv",),  # Cleveland, Kaggle "heart.csv" coding
        columns=(*HEART, "target"),
        target="target",
        categorical=("cp", "restecg", "slope", "thal"),
    ),
    DatasetSpec(
        name="bank-marketing",
        shape=(11162, 16, 2),
        files=("extras/bank_mkt.csv",),
        columns=(*BANK, "deposit"),
        target="deposit",
        categorical=(
            "job",
            "marital",
            "education",
            "default",
            "housing",
            "loan",
            "contact",
            "month",
            "poutcome",
        ),
    ),
    DatasetSpec(
        name="ilpd",
        shape=(579, 10, 2),
        files=("extras/ILPD.csv",),
        columns=(*ILPD, "selector"),
        target="selector",
        categorical=("gender",),
    ),
    DatasetSpec(
        name="bupa",
        shape=(345, 6, 2),
        # UCI notes that "selector" is a train/test split field, not a diagnosis; it is
        # used as the label here only because the rule-learning literature does so.
        files=("extras/bupa.csv",),
        columns=(*BUPA, "selector"),
        target="selector",
    ),
)
