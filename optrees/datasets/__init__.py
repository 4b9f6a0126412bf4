"""Benchmark datasets for optimal classification trees, rule sets and regression trees.

Ten small datasets ship with the package (see ``BUNDLED``): eight UCI classification sets,
one UCI regression set (``liver-disorders``, target ``drinks``) and a synthetic policy set
with known counterfactuals (``policy-trial``, :mod:`optrees.datasets.synthetic`). The others
are read from a data directory, given as ``data_dir=`` or by the ``OPTREES_DATA``
environment variable, laid out like the project's ``shared/datasets`` folder (e.g.
``iris.data``, ``extras/bupa.csv``).
How each file is parsed is declared in ``optrees.datasets._registry``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from optrees._validation import OptreesInputError
from optrees.datasets._registry import ALL, SPECS, DatasetSpec

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["BUNDLED", "ENV_VAR", "available_names", "list_datasets", "load_dataset"]

ENV_VAR = "OPTREES_DATA"
"""Environment variable naming the folder that holds the non-bundled dataset files."""

BUNDLED: tuple[str, ...] = tuple(spec.name for spec in SPECS if spec.bundled)
"""Datasets shipped inside the package; they load without any data directory."""


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-")


_LOOKUP: dict[str, DatasetSpec] = {
    _normalise(alias): spec for spec in SPECS for alias in (spec.name, *spec.aliases)
}


def available_names() -> list[str]:
    """Canonical names ``load_dataset`` accepts, sorted (bundled or not, file present or not).

    ``list_datasets()`` tells which of them can be loaded right now.
    """
    return sorted(spec.name for spec in SPECS)


def _get_spec(name: object) -> DatasetSpec:
    if not isinstance(name, str):
        raise OptreesInputError(f"dataset name must be a string, got {name!r}")
    spec = _LOOKUP.get(_normalise(name))
    if spec is None:
        raise OptreesInputError(
            f"unknown dataset {name!r}; available: {', '.join(available_names())}"
        )
    return spec


def _resolve_data_dir(data_dir: str | os.PathLike[str] | None) -> Path | None:
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else None


def _source_files(spec: DatasetSpec, data_dir: str | os.PathLike[str] | None) -> list[Traversable]:
    """The file(s) to read for ``spec``; raises FileNotFoundError naming what was looked for."""
    if spec.bundled:
        root = resources.files(__name__).joinpath("data")
        return [root.joinpath(f) for f in spec.files]
    folder = _resolve_data_dir(data_dir)
    hint = f"set {ENV_VAR} (or pass data_dir=) to the dataset folder"
    if folder is None:
        raise FileNotFoundError(
            f"dataset {spec.name!r} is not bundled and needs {', '.join(spec.files)}, "
            f"but no data directory is set: {hint}"
        )
    paths = [folder / f for f in spec.files]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"dataset {spec.name!r}: looked for {path}, not found; {hint}")
    return list(paths)


def _read(source: Traversable, spec: DatasetSpec) -> pd.DataFrame:
    with source.open("rb") as handle:
        return pd.read_csv(
            handle,
            sep=spec.sep,
            header=0 if spec.header else None,
            names=list(spec.columns) if spec.columns is not None else None,
            encoding="utf-8-sig",  # several copies start with a byte-order mark
            skipinitialspace=True,
            keep_default_na=False,
            na_values=[*spec.na_values, ""],
        )


def _ordered(s: pd.Series, order: tuple[str, ...], dataset: str) -> pd.Series:
    """Column as an ordered categorical with the declared order (unused values dropped)."""
    values = s.astype(str)
    unknown = sorted(set(values) - set(order))
    if unknown:
        raise ValueError(f"dataset {dataset!r}: column {s.name!r} has values {unknown} "
                         f"outside its declared order {list(order)}")
    cat = pd.Categorical(values, categories=list(order), ordered=True)
    return pd.Series(cat, index=s.index, name=s.name).cat.remove_unused_categories()


def _clean(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """Drop id columns and rows with missing values; strip text; fix numeric dtypes."""
    frame = frame.drop(columns=list(spec.drop))
    features = [c for c in frame.columns if c != spec.target]
    categorical = features if spec.categorical == ALL else list(spec.categorical)
    unknown = sorted(set(categorical) - set(features))
    if unknown:
        raise ValueError(f"dataset {spec.name!r}: categorical columns {unknown} not found")
    for col in frame.columns:
        if pd.api.types.is_string_dtype(frame[col]):
            stripped = frame[col].str.strip()
            frame[col] = stripped.mask(stripped.isin(spec.na_values))
    had_missing = frame.isna().any()
    frame = frame.dropna().reset_index(drop=True)
    ordered = dict(spec.ordered)
    for col in features:
        if col in ordered:
            frame[col] = _ordered(frame[col], ordered[col], spec.name)
            continue
        if col in categorical:
            frame[col] = frame[col].astype("category")
            continue
        if pd.api.types.is_string_dtype(frame[col]):
            try:
                frame[col] = pd.to_numeric(frame[col])
            except ValueError as exc:  # the registry entry should list it as categorical
                raise ValueError(
                    f"dataset {spec.name!r}: column {col!r} is neither numeric nor categorical"
                ) from exc
    for col in frame.columns:  # integers read as floats only because of the dropped NaNs
        if had_missing[col] and frame[col].dtype.kind == "f":
            values = frame[col].to_numpy()
            if np.array_equal(values, np.round(values)):
                frame[col] = frame[col].astype("int64")
    return frame


def load_dataset(
    name: str, data_dir: str | os.PathLike[str] | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Load a benchmark dataset as raw features ``X`` and labels ``y``.

    Args:
        name: dataset name, case-insensitive, ``_`` and ``-`` interchangeable
            (``"Car_Evaluation"`` == ``"car-evaluation"``); see ``available_names()``.
        data_dir: folder holding the non-bundled files; defaults to ``$OPTREES_DATA``.
            Ignored for bundled datasets, which always load from the package.

    Returns:
        ``X``: one column per attribute, named as in the UCI documentation where it gives
        names; categorical attributes (also integer-coded ones such as monk's) have
        ``category`` dtype, the rest are int or float. ``y``: labels as stored in the file
        (strings or integers; a regression set's numbers, e.g. ``liver-disorders``'s
        ``drinks``), a Series named after the target column; a survival set's (event, time)
        as a structured array with those two fields, as scikit-survival takes it
        (``synthetic-survival``).

    Rows with a missing value (``?`` or an empty field) are dropped, as the FlowOCT
    benchmarks do: e.g. house-votes-84 keeps 232 of 435 rows, breast-cancer 277 of 286,
    adult 30162 of 32561, mushroom 5644 of 8124, ilpd 579 of 583.

    Raises:
        OptreesInputError: unknown name.
        FileNotFoundError: a non-bundled dataset whose file is not in the data directory.
    """
    spec = _get_spec(name)
    parts = [_read(source, spec) for source in _source_files(spec, data_dir)]
    frame = _clean(pd.concat(parts, ignore_index=True), spec)
    if spec.task == "survival":
        y = np.empty(len(frame), dtype=[(spec.event, "?"), (spec.target, "f8")])
        y[spec.event] = frame[spec.event].to_numpy() == 1
        y[spec.target] = frame[spec.target].to_numpy(dtype=float)
        return frame.drop(columns=[spec.event, spec.target]), y
    y = frame[spec.target].rename(spec.target)
    return frame.drop(columns=[spec.target]), y


def list_datasets(data_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """One row per registered dataset: name, task, rows, features, classes (<NA> for a
    regression or survival target), bundled, available.

    ``available`` says whether the dataset can be loaded (bundled, or its files are in
    ``data_dir`` / ``$OPTREES_DATA``). The shapes of the available datasets are those
    ``load_dataset`` returns for the reference copies of the files (after dropping rows with
    missing values), stored in the registry so that listing reads no data file (loading all
    of them took about 7 s); they are missing (``<NA>``) for the unavailable ones.
    """
    folder = _resolve_data_dir(data_dir)
    records = []
    for spec in SPECS:
        available = spec.bundled or (
            folder is not None and all((folder / f).is_file() for f in spec.files)
        )
        rows, features, classes = (spec.shape if available else None) or (None, None, None)
        if spec.task != "classification":
            classes = None
        records.append(
            {
                "name": spec.name,
                "task": spec.task,
                "rows": rows,
                "features": features,
                "classes": classes,
                "bundled": spec.bundled,
                "available": available,
            }
        )
    table = pd.DataFrame.from_records(records)
    return table.astype({"rows": "Int64", "features": "Int64", "classes": "Int64"})
