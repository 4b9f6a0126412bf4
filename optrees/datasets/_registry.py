"""Declarative descriptions of every dataset ``load_dataset`` knows.

One :class:`DatasetSpec` per dataset says how to read its file(s); the single generic reader
in ``optrees.datasets`` does the rest. Bundled datasets live (already cleaned, with a header
row) in ``optrees/datasets/data/``; the others are read from a data directory laid out like the
project's ``shared/datasets`` folder.

(Over 400 lines: one table entry per data set, with its source, columns and cleaning.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


def _seq(prefix: str, n: int, start: int = 1) -> tuple[str, ...]:
    """``('a1', 'a2', ...)``-style names for datasets whose documentation gives none."""
    return tuple(f"{prefix}{i}" for i in range(start, start + n))


# --- column names (from the UCI .names files unless noted) ---------------------------------

_HOUSE_VOTES = (
    "handicapped-infants",
    "water-project-cost-sharing",
    "adoption-of-the-budget-resolution",
    "physician-fee-freeze",
    "el-salvador-aid",
    "religious-groups-in-schools",
    "anti-satellite-test-ban",
    "aid-to-nicaraguan-contras",
    "mx-missile",
    "immigration",
    "synfuels-corporation-cutback",
    "education-spending",
    "superfund-right-to-sue",
    "crime",
    "duty-free-exports",
    "export-administration-act-south-africa",
)
_TIC_TAC_TOE = tuple(
    f"{row}-{col}-square"
    for row in ("top", "middle", "bottom")
    for col in ("left", "middle", "right")
)
_KR_VS_KP = (
    "bkblk", "bknwy", "bkon8", "bkona", "bkspr", "bkxbq", "bkxcr", "bkxwp", "blxwp",
    "bxqsq", "cntxt", "dsopp", "dwipd", "hdchk", "katri", "mulch", "qxmsq", "r2ar8",
    "reskd", "reskr", "rimmx", "rkxwp", "rxmsq", "simpl", "skach", "skewr", "skrxp",
    "spcop", "stlmt", "thrsk", "wkcti", "wkna8", "wknck", "wkovl", "wkpos", "wtoeg",
)  # fmt: skip
_WINE = (
    "alcohol",
    "malic_acid",
    "ash",
    "alcalinity_of_ash",
    "magnesium",
    "total_phenols",
    "flavanoids",
    "nonflavanoid_phenols",
    "proanthocyanins",
    "color_intensity",
    "hue",
    "od280/od315_of_diluted_wines",
    "proline",
)
_WDBC = tuple(
    f"{feature}_{stat}"
    for stat in ("mean", "se", "worst")
    for feature in (
        "radius",
        "texture",
        "perimeter",
        "area",
        "smoothness",
        "compactness",
        "concavity",
        "concave_points",
        "symmetry",
        "fractal_dimension",
    )
)
_SPAMBASE = (
    tuple(
        f"word_freq_{w}"
        for w in (
            "make address all 3d our over remove internet order mail receive will people "
            "report addresses free business email you credit your font 000 money hp hpl "
            "george 650 lab labs telnet 857 data 415 85 technology 1999 parts pm direct cs "
            "meeting original project re edu table conference"
        ).split()
    )
    + tuple(f"char_freq_{c}" for c in ";([!$#")
    + (
        "capital_run_length_average",
        "capital_run_length_longest",
        "capital_run_length_total",
    )
)
_SEISMIC_BUMPS = (
    "seismic", "seismoacoustic", "shift", "genergy", "gpuls", "gdenergy", "gdpuls",
    "ghazard", "nbumps", "nbumps2", "nbumps3", "nbumps4", "nbumps5", "nbumps6", "nbumps7",
    "nbumps89", "energy", "maxenergy",
)  # fmt: skip
_BREAST_CANCER = (
    "age",
    "menopause",
    "tumor-size",
    "inv-nodes",
    "node-caps",
    "deg-malig",
    "breast",
    "breast-quad",
    "irradiat",
)
_SOYBEAN = (
    "date", "plant-stand", "precip", "temp", "hail", "crop-hist", "area-damaged",
    "severity", "seed-tmt", "germination", "plant-growth", "leaves", "leafspots-halo",
    "leafspots-marg", "leafspot-size", "leaf-shread", "leaf-malf", "leaf-mild", "stem",
    "lodging", "stem-cankers", "canker-lesion", "fruiting-bodies", "external-decay",
    "mycelium", "int-discolor", "sclerotia", "fruit-pods", "fruit-spots", "seed",
    "mold-growth", "seed-discolor", "seed-size", "shriveling", "roots",
)  # fmt: skip
_MAGIC = (
    "fLength", "fWidth", "fSize", "fConc", "fConc1", "fAsym", "fM3Long", "fM3Trans",
    "fAlpha", "fDist",
)  # fmt: skip
_ADULT = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
)  # fmt: skip
_DEFAULT_CREDIT = (
    ("LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE")
    + ("PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6")
    + _seq("BILL_AMT", 6)
    + _seq("PAY_AMT", 6)
)
_HTRU2 = (
    "profile_mean",
    "profile_std",
    "profile_kurtosis",
    "profile_skewness",
    "dm_snr_mean",
    "dm_snr_std",
    "dm_snr_kurtosis",
    "dm_snr_skewness",
)
_LETTER = (
    "x-box", "y-box", "width", "high", "onpix", "x-bar", "y-bar", "x2bar", "y2bar",
    "xybar", "x2ybr", "xy2br", "x-ege", "xegvy", "y-ege", "yegvx",
)  # fmt: skip
_MUSHROOM = (
    "cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment",
    "gill-spacing", "gill-size", "gill-color", "stalk-shape", "stalk-root",
    "stalk-surface-above-ring", "stalk-surface-below-ring", "stalk-color-above-ring",
    "stalk-color-below-ring", "veil-type", "veil-color", "ring-number", "ring-type",
    "spore-print-color", "population", "habitat",
)  # fmt: skip
_NURSERY = ("parents", "has_nurs", "form", "children", "housing", "finance", "social", "health")
_STUDENT = (
    "school", "sex", "age", "address", "famsize", "Pstatus", "Medu", "Fedu", "Mjob",
    "Fjob", "reason", "guardian", "traveltime", "studytime", "failures", "schoolsup",
    "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic", "famrel",
    "freetime", "goout", "Dalc", "Walc", "health", "absences", "G1", "G2",
)  # fmt: skip
_STUDENT_NOMINAL = (
    "school", "sex", "address", "famsize", "Pstatus", "Mjob", "Fjob", "reason", "guardian",
    "schoolsup", "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic",
)  # fmt: skip
_ATTRITION_NOMINAL = (
    "BusinessTravel",
    "Department",
    "EducationField",
    "JobRole",
    "MaritalStatus",
    "Over18",
    "OverTime",
)
_ANN_THYROID = (
    # UCI gives no names for the ann-thyroid files; these follow the thyroid0387 order.
    "age", "sex", "on_thyroxine", "query_on_thyroxine", "on_antithyroid_medication",
    "sick", "pregnant", "thyroid_surgery", "I131_treatment", "query_hypothyroid",
    "query_hyperthyroid", "lithium", "goitre", "tumor", "hypopituitary", "psych", "TSH",
    "T3", "TT4", "T4U", "FTI",
)  # fmt: skip
_PIMA = (
    "pregnancies",
    "glucose",
    "blood_pressure",
    "skin_thickness",
    "insulin",
    "bmi",
    "diabetes_pedigree",
    "age",
)
_SATELLITE = tuple(f"p{pixel}_b{band}" for pixel in range(1, 10) for band in range(1, 5))
_HEART = (
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
    "oldpeak", "slope", "ca", "thal",
)  # fmt: skip
_BANK = (
    "age", "job", "marital", "education", "default", "balance", "housing", "loan",
    "contact", "day", "month", "duration", "campaign", "pdays", "previous", "poutcome",
)  # fmt: skip
_ILPD = ("age", "gender", "TB", "DB", "alkphos", "sgpt", "sgot", "TP", "ALB", "A/G_ratio")
_BUPA = ("mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks")


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


# value orders from the UCI .names files
_LOW_VHIGH = ("low", "med", "high", "vhigh")
_CAR_ORDER = (
    ("buying", _LOW_VHIGH),
    ("maint", _LOW_VHIGH),
    ("doors", ("2", "3", "4", "5more")),
    ("persons", ("2", "4", "more")),
    ("lug_boot", ("small", "med", "big")),
    ("safety", ("low", "med", "high")),
)
_BREAST_CANCER_ORDER = (
    ("age", tuple(f"{a}-{a + 9}" for a in range(10, 100, 10))),
    ("tumor-size", tuple(f"{a}-{a + 4}" for a in range(0, 60, 5))),
    ("inv-nodes", (*(f"{a}-{a + 2}" for a in range(0, 36, 3)), "36-39")),
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
    _bundled("car-evaluation", (1728, 6, 4), aliases=("car",), ordered=_CAR_ORDER),
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
                columns=("class", *_WINE), target="class"),
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
        columns=(*_seq("a", 34), "class"),
        target="class",
    ),
    DatasetSpec(
        name="wdbc",
        shape=(569, 30, 2),
        files=("wdbc.data",),
        columns=("id", "diagnosis", *_WDBC),
        target="diagnosis",
        drop=("id",),
    ),
    DatasetSpec(
        name="spambase",
        shape=(4601, 57, 2),
        files=("spambase.data",),
        columns=(*_SPAMBASE, "class"),
        target="class",
    ),
    DatasetSpec(
        name="seismic-bumps",
        shape=(2584, 18, 2),
        files=("seismic-bumps.arff",),  # plain CSV despite the extension
        columns=(*_SEISMIC_BUMPS, "class"),
        target="class",
        categorical=("seismic", "seismoacoustic", "shift", "ghazard"),
    ),
    DatasetSpec(
        name="breast-cancer",
        shape=(277, 9, 2),
        files=("breast-cancer.data",),
        columns=("class", *_BREAST_CANCER),
        target="class",
        categorical=tuple(c for c in _BREAST_CANCER if c != "deg-malig"),
        ordered=_BREAST_CANCER_ORDER,
    ),
    DatasetSpec(
        name="soybean-small",
        shape=(47, 35, 4),
        files=("soybean-small.data",),
        columns=(*_SOYBEAN, "class"),
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
        columns=("class", *_seq("F", 22)),
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
                columns=(*_MAGIC, "class"), target="class"),
    DatasetSpec(
        name="adult",
        shape=(30162, 14, 2),
        files=("adult.csv",),  # UCI adult.data (train part); sex is coded 1/0 in this copy
        columns=(*_ADULT, "income"),
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
        columns=(*_DEFAULT_CREDIT, "default_payment_next_month"),
        target="default_payment_next_month",
        categorical=("SEX", "EDUCATION", "MARRIAGE"),
    ),
    DatasetSpec(
        name="htru2",
        shape=(17898, 8, 2),
        files=("HTRU_2.csv",),
        header=True,
        sep=";",
        columns=(*_HTRU2, "class"),
        target="class",
        aliases=("htru-2",),
    ),
    DatasetSpec(
        name="shuttle",
        shape=(43500, 9, 7),
        files=("shuttle.trn",),
        sep=r"\s+",
        columns=(*_seq("a", 9), "class"),
        target="class",
    ),
    DatasetSpec(
        name="letter",
        shape=(20000, 16, 26),
        files=("letter.csv",),  # letters coded 1..26 in this copy
        header=True,
        columns=(*_LETTER, "lettr"),
        target="lettr",
    ),
    DatasetSpec(
        name="mushroom",
        shape=(5644, 22, 2),
        files=("mushroom.csv",),
        columns=("class", *_MUSHROOM),
        target="class",
        categorical=ALL,
    ),
    DatasetSpec(
        name="nursery",
        shape=(12960, 8, 5),
        files=("nursery.csv",),  # integer-coded
        sep=";",
        columns=(*_NURSERY, "class"),
        target="class",
        categorical=ALL,
    ),
    DatasetSpec(
        name="student",
        shape=(649, 32, 5),
        files=("student.csv",),  # student-por, integer-coded, grades binned into 5 levels
        sep=";",
        columns=(*_STUDENT, "G3"),
        target="G3",
        categorical=_STUDENT_NOMINAL,
    ),
    DatasetSpec(
        name="law",
        shape=(22386, 5, 4),
        files=("law.csv",),  # pre-processed copy without column documentation
        sep=";",
        columns=(*_seq("a", 5), "class"),
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
        categorical=_ATTRITION_NOMINAL,
    ),
    DatasetSpec(
        name="mammography",
        shape=(11183, 6, 2),
        files=("mammography.csv",),
        columns=(*_seq("a", 6), "class"),
        target="class",
    ),
    DatasetSpec(
        name="oilspill",
        shape=(937, 48, 2),
        files=("oilspill.csv",),
        columns=("batch", *_seq("f", 48), "class"),
        target="class",
        drop=("batch",),  # first column is a batch number, not a measurement
    ),
    DatasetSpec(
        name="phoneme",
        shape=(5404, 5, 2),
        files=("phoneme.csv",),
        columns=(*_seq("harmonic", 5), "class"),
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
        columns=(*_ANN_THYROID, "class"),
        target="class",
    ),
    DatasetSpec(
        name="pima-diabetes",
        shape=(768, 8, 2),
        files=("extras/diabetes_pima.csv",),
        columns=(*_PIMA, "outcome"),
        target="outcome",
    ),
    DatasetSpec(
        name="statlog-satellite",
        shape=(4435, 36, 6),
        files=("extras/Statlog_satellite.csv",),
        header=True,
        sep=";",
        columns=(*_SATELLITE, "class"),
        target="class",
    ),
    DatasetSpec(
        name="heart",
        shape=(303, 13, 2),
        files=("extras/hearts.csv",),  # Cleveland, Kaggle "heart.csv" coding
        columns=(*_HEART, "target"),
        target="target",
        categorical=("cp", "restecg", "slope", "thal"),
    ),
    DatasetSpec(
        name="bank-marketing",
        shape=(11162, 16, 2),
        files=("extras/bank_mkt.csv",),
        columns=(*_BANK, "deposit"),
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
        columns=(*_ILPD, "selector"),
        target="selector",
        categorical=("gender",),
    ),
    DatasetSpec(
        name="bupa",
        shape=(345, 6, 2),
        # UCI notes that "selector" is a train/test split field, not a diagnosis; it is
        # used as the label here only because the rule-learning literature does so.
        files=("extras/bupa.csv",),
        columns=(*_BUPA, "selector"),
        target="selector",
    ),
)
