"""The column names of the data sets ``load_dataset`` reads without a header row, and the
value orders of its ordered categoricals: facts copied from each source's documentation
(the UCI ``.names`` files unless noted), used by the descriptions in
:mod:`optrees.datasets._registry`.

The bundled files carry a header row; ``HOUSE_VOTES``, ``TIC_TAC_TOE`` and ``KR_VS_KP`` are
those files' column names as documented (no description uses them).
"""

from __future__ import annotations


def seq(prefix: str, n: int, start: int = 1) -> tuple[str, ...]:
    """``('a1', 'a2', ...)``-style names for datasets whose documentation gives none."""
    return tuple(f"{prefix}{i}" for i in range(start, start + n))


# --- column names (from the UCI .names files unless noted) ---------------------------------

HOUSE_VOTES = (
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
TIC_TAC_TOE = tuple(
    f"{row}-{col}-square"
    for row in ("top", "middle", "bottom")
    for col in ("left", "middle", "right")
)
KR_VS_KP = (
    "bkblk", "bknwy", "bkon8", "bkona", "bkspr", "bkxbq", "bkxcr", "bkxwp", "blxwp",
    "bxqsq", "cntxt", "dsopp", "dwipd", "hdchk", "katri", "mulch", "qxmsq", "r2ar8",
    "reskd", "reskr", "rimmx", "rkxwp", "rxmsq", "simpl", "skach", "skewr", "skrxp",
    "spcop", "stlmt", "thrsk", "wkcti", "wkna8", "wknck", "wkovl", "wkpos", "wtoeg",
)  # fmt: skip
WINE = (
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
WDBC = tuple(
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
SPAMBASE = (
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
SEISMIC_BUMPS = (
    "seismic", "seismoacoustic", "shift", "genergy", "gpuls", "gdenergy", "gdpuls",
    "ghazard", "nbumps", "nbumps2", "nbumps3", "nbumps4", "nbumps5", "nbumps6", "nbumps7",
    "nbumps89", "energy", "maxenergy",
)  # fmt: skip
BREAST_CANCER = (
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
SOYBEAN = (
    "date", "plant-stand", "precip", "temp", "hail", "crop-hist", "area-damaged",
    "severity", "seed-tmt", "germination", "plant-growth", "leaves", "leafspots-halo",
    "leafspots-marg", "leafspot-size", "leaf-shread", "leaf-malf", "leaf-mild", "stem",
    "lodging", "stem-cankers", "canker-lesion", "fruiting-bodies", "external-decay",
    "mycelium", "int-discolor", "sclerotia", "fruit-pods", "fruit-spots", "seed",
    "mold-growth", "seed-discolor", "seed-size", "shriveling", "roots",
)  # fmt: skip
MAGIC = (
    "fLength", "fWidth", "fSize", "fConc", "fConc1", "fAsym", "fM3Long", "fM3Trans",
    "fAlpha", "fDist",
)  # fmt: skip
ADULT = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
)  # fmt: skip
DEFAULT_CREDIT = (
    ("LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE")
    + ("PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6")
    + seq("BILL_AMT", 6)
    + seq("PAY_AMT", 6)
)
HTRU2 = (
    "profile_mean",
    "profile_std",
    "profile_kurtosis",
    "profile_skewness",
    "dm_snr_mean",
    "dm_snr_std",
    "dm_snr_kurtosis",
    "dm_snr_skewness",
)
LETTER = (
    "x-box", "y-box", "width", "high", "onpix", "x-bar", "y-bar", "x2bar", "y2bar",
    "xybar", "x2ybr", "xy2br", "x-ege", "xegvy", "y-ege", "yegvx",
)  # fmt: skip
MUSHROOM = (
    "cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment",
    "gill-spacing", "gill-size", "gill-color", "stalk-shape", "stalk-root",
    "stalk-surface-above-ring", "stalk-surface-below-ring", "stalk-color-above-ring",
    "stalk-color-below-ring", "veil-type", "veil-color", "ring-number", "ring-type",
    "spore-print-color", "population", "habitat",
)  # fmt: skip
NURSERY = ("parents", "has_nurs", "form", "children", "housing", "finance", "social", "health")
STUDENT = (
    "school", "sex", "age", "address", "famsize", "Pstatus", "Medu", "Fedu", "Mjob",
    "Fjob", "reason", "guardian", "traveltime", "studytime", "failures", "schoolsup",
    "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic", "famrel",
    "freetime", "goout", "Dalc", "Walc", "health", "absences", "G1", "G2",
)  # fmt: skip
STUDENT_NOMINAL = (
    "school", "sex", "address", "famsize", "Pstatus", "Mjob", "Fjob", "reason", "guardian",
    "schoolsup", "famsup", "paid", "activities", "nursery", "higher", "internet", "romantic",
)  # fmt: skip
ATTRITION_NOMINAL = (
    "BusinessTravel",
    "Department",
    "EducationField",
    "JobRole",
    "MaritalStatus",
    "Over18",
    "OverTime",
)
ANN_THYROID = (
    # UCI gives no names for the ann-thyroid files; these follow the thyroid0387 order.
    "age", "sex", "on_thyroxine", "query_on_thyroxine", "on_antithyroid_medication",
    "sick", "pregnant", "thyroid_surgery", "I131_treatment", "query_hypothyroid",
    "query_hyperthyroid", "lithium", "goitre", "tumor", "hypopituitary", "psych", "TSH",
    "T3", "TT4", "T4U", "FTI",
)  # fmt: skip
PIMA = (
    "pregnancies",
    "glucose",
    "blood_pressure",
    "skin_thickness",
    "insulin",
    "bmi",
    "diabetes_pedigree",
    "age",
)
SATELLITE = tuple(f"p{pixel}_b{band}" for pixel in range(1, 10) for band in range(1, 5))
HEART = (
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
    "oldpeak", "slope", "ca", "thal",
)  # fmt: skip
BANK = (
    "age", "job", "marital", "education", "default", "balance", "housing", "loan",
    "contact", "day", "month", "duration", "campaign", "pdays", "previous", "poutcome",
)  # fmt: skip
ILPD = ("age", "gender", "TB", "DB", "alkphos", "sgpt", "sgot", "TP", "ALB", "A/G_ratio")
BUPA = ("mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks")


# value orders from the UCI .names files
LOW_VHIGH = ("low", "med", "high", "vhigh")
CAR_ORDER = (
    ("buying", LOW_VHIGH),
    ("maint", LOW_VHIGH),
    ("doors", ("2", "3", "4", "5more")),
    ("persons", ("2", "4", "more")),
    ("lug_boot", ("small", "med", "big")),
    ("safety", ("low", "med", "high")),
)
BREAST_CANCER_ORDER = (
    ("age", tuple(f"{a}-{a + 9}" for a in range(10, 100, 10))),
    ("tumor-size", tuple(f"{a}-{a + 4}" for a in range(0, 60, 5))),
    ("inv-nodes", (*(f"{a}-{a + 2}" for a in range(0, 36, 3)), "36-39")),
)
