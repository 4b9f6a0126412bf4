"""The data side of ``optrees fit / predict / plot``: CSV files read as a person wrote them
(separator given or sniffed, decimal commas read as numbers, duplicate headers and date
columns refused, a bad row named by its line in the file), the options that pick the
target, weights and split, and the output paths checked before any work.  Errors are
:class:`UsageError` lines (exit code 2)."""

from __future__ import annotations

import argparse
import codecs
import csv
import itertools
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_base import _UsageError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

SEPARATORS = (",", ";", "\t", "|")
"""What sniffing chooses from (:func:`sniff_separator`)."""

_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?"
                   r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}( \d{1,2}:\d{2}(:\d{2})?)?")
"""A date (ISO, or day/month/year with / or .), optionally with a time."""


# ------------------------------------------------------------------------------- output paths
def check_out(path: str | None, what: str = "--out") -> None:
    """Fail before any work when ``path`` cannot be written: missing or read-only folder, a
    folder in its place, a read-only file."""
    if path is None:
        return
    target = Path(path)
    folder = target.resolve().parent
    if not folder.is_dir():
        raise _UsageError(f"{what}: cannot write {path}: folder {folder} does not exist")
    if target.is_dir():
        raise _UsageError(f"{what}: cannot write {path}: it is a folder")
    try:  # a real probe: permissions, a read-only file system, root's rights alike
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as exc:
        raise _UsageError(f"{what}: cannot write {path}: folder {folder} is not writable "
                          f"({exc.strerror})") from exc
    if target.exists() and not os.access(target, os.W_OK):
        raise _UsageError(f"{what}: cannot write {path}: the file is read-only")


def check_picture(path: str | None, what: str = "--plot") -> None:
    """:func:`check_out` and a picture format matplotlib writes (by the extension)."""
    if path is None:
        return
    check_out(path, what)
    from .export import check_picture_path

    try:
        check_picture_path(path)
    except (OSError, ValueError) as exc:
        raise _UsageError(f"{what}: {exc}") from exc


# ------------------------------------------------------------------------------- CSV files
def single_byte_encoding(path: str) -> str:
    """The encoding of a file at ``path`` that is not UTF-8: Windows-1252 (what spreadsheet
    programs in Western Europe write: ``ö`` as one byte) when it decodes as it, else Latin-1
    (every byte a character)."""
    decoder = codecs.getincrementaldecoder("cp1252")()
    try:
        with open(path, "rb") as fh:  # in chunks: no second copy of a large file
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "latin-1"
    return "cp1252"


SNIFF_LINES = 8
"""Records sniffing reads: the header and the data lines after it."""


def sniff_separator(path: str, encoding: str = "utf-8-sig") -> str:
    """The separator of the CSV file at ``path``: of :data:`SEPARATORS`, the one that splits
    the header and the next data lines (read with quotes honoured) into the same number of
    fields (> 1), the most fields when several do; when none does, the one that splits the
    header into the most fields (a comma when none splits it)."""
    try:
        samples = {sep: _first_records(path, sep, encoding) for sep in SEPARATORS}
    except (OSError, UnicodeDecodeError, csv.Error):
        return ","  # pandas reports the problem
    steady = {sep: len(rows[0]) for sep, rows in samples.items()
              if rows and len(rows[0]) > 1 and all(len(r) == len(rows[0]) for r in rows)}
    if steady:  # ties: the earlier one (comma first)
        return max(SEPARATORS, key=lambda s: steady.get(s, 0))
    counts = {sep: len(rows[0]) if rows else 0 for sep, rows in samples.items()}
    best = max(SEPARATORS, key=lambda s: counts[s])
    return best if counts[best] > 1 else ","


def _first_records(path: str, sep: str, encoding: str) -> list[list[str]]:
    """The first :data:`SNIFF_LINES` non-blank records of the file, split by ``sep``."""
    with open(path, newline="", encoding=encoding) as fh:
        records = (r for r in csv.reader(fh, delimiter=sep) if r)
        return list(itertools.islice(records, SNIFF_LINES))


def _header(path: str, sep: str, encoding: str) -> list[str]:
    with open(path, newline="", encoding=encoding) as fh:
        return next(csv.reader(fh, delimiter=sep), [])


def file_lines(path: str, sep: str, encoding: str = "utf-8-sig", header: bool = True
               ) -> list[int]:
    """The line in the file (1 = the header, if it has one) of each data row as pandas reads
    them (blank lines skipped; a quoted field over several lines counts from its first)."""
    lines = []
    with open(path, newline="", encoding=encoding) as fh:
        reader = csv.reader(fh, delimiter=sep)
        start = 1
        for record in reader:
            if record:  # pandas skips blank lines
                lines.append(start)
            start = reader.line_num + 1
    return lines[1:] if header else lines  # the header is the first record


def csv_of(args: Any) -> pd.DataFrame:
    """The ``--csv`` file of a command, read with its ``--sep`` and ``--na`` (:func:`read_csv`)."""
    names = getattr(args, "names", None)
    return read_csv(args.csv, args.sep, getattr(args, "na", None),
                    None if names is None else [n.strip() for n in names.split(",")])


def no_header_hint(df: pd.DataFrame) -> str:
    """For an error about a column not found: the file's first line looked like data (it has
    no header row; :func:`read_csv` warned), so say how to name the columns."""
    return ("; line 1 looks like data, not names: name the columns with --names a,b,..."
            if df.attrs.get("csv_header_is_data") else "")


def read_csv(path: str, sep: str | None = None, na: list[str] | None = None,
             names: list[str] | None = None) -> pd.DataFrame:
    """The CSV file at ``path`` (header row + at least one data row), separated by ``sep``
    (None: sniffed); an empty cell, pandas' usual markers ('NA', 'nan', ...) and each
    marker of ``na`` (``--na``, e.g. UCI's '?') are missing values.  ``names``
    (``--names``): the file has no header row, these are its columns' names, one per field.
    Duplicate column names and columns of dates are refused; the frame keeps its file and
    separator in ``attrs`` (for :func:`line_of`)."""
    import pandas as pd

    if not Path(path).exists():
        raise _UsageError(f"CSV file not found: {path}")
    twice = sorted({c for c in names or [] if names.count(c) > 1})
    if twice:
        raise _UsageError(f"--names gives {twice[:5]} more than once; give every column its "
                          "own name")
    def read(encoding: str) -> tuple[pd.DataFrame, list[str], str]:
        found = sniff_separator(path, encoding) if sep is None else sep
        first = _header(path, found, encoding)
        if names is None:
            return (pd.read_csv(path, sep=found, encoding=encoding, na_values=na), first,
                    found)
        if len(names) != len(first):  # pandas would take the extra fields as an index
            raise _UsageError(f"--names gives {len(names)} names, and line 1 of {path} has "
                              f"{len(first)} fields (separator {found!r})")
        return (pd.read_csv(path, sep=found, encoding=encoding, na_values=na, header=None,
                            names=names), names, found)

    encoding = "utf-8-sig"
    try:
        try:
            df, header, sep = read(encoding)
        except UnicodeDecodeError:  # not UTF-8: then one pass over the file finds which
            encoding = single_byte_encoding(path)
            print(f"optrees: note: {path} is not UTF-8: read as {encoding}", file=sys.stderr)
            df, header, sep = read(encoding)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError,
            csv.Error) as exc:
        raise _UsageError(f"cannot read CSV file {path}: {exc}") from exc
    dup = sorted({c for c in header if header.count(c) > 1})
    data = _header_is_data(header, df) if names is None else ""
    if dup and data:
        raise _UsageError(f"line 1 of {path} is data, not a header ({data}): add a first "
                          "line naming the columns, or name them with --names a,b,...")
    if dup:
        raise _UsageError(f"CSV file {path} has duplicate column names {dup[:5]} in its "
                          "header (line 1); give every column its own name")
    if df.empty:
        raise _UsageError(f"CSV file {path} has no data rows (only a header: {list(df.columns)})")
    if data:
        print(f"optrees: warning: line 1 of {path} looks like data, not a header ({data}): a "
              "file without a header row loses its first data row to the header; add a line "
              "naming the columns, or name them with --names a,b,...", file=sys.stderr)
    _refuse_dates(df, path)
    if sep != ",":  # with commas between the fields, a decimal comma would be quoted
        _decimal_commas(df, path)
    df.attrs.update(csv_path=str(path), csv_sep=sep, csv_encoding=encoding,
                    csv_header=names is None, csv_header_is_data=bool(data))
    return df


def _decimal_commas(df: pd.DataFrame, path: str) -> None:
    """Text columns whose every value is a number, some written with a decimal comma
    (``171,3``: a file from a locale that separates its fields by ``;``), become numbers;
    a note on stderr names them.  Without this each value was a category."""
    import numpy as np

    from .estimators._columns import as_numbers

    read = []
    for c in _text_columns(df):
        numbers, comma = as_numbers(df[c])
        if comma and not np.isnan(numbers[df[c].notna().to_numpy()]).any():
            df[c] = numbers
            read.append(str(c))
    if read:
        print(f"optrees: note: {len(read)} column(s) of {path} hold numbers with a decimal "
              f"comma ({', '.join(repr(c) for c in read[:8])}"
              f"{', ...' if len(read) > 8 else ''}): read as numbers", file=sys.stderr)


def _text_columns(df: pd.DataFrame) -> list[Any]:
    """The columns of ``df`` that pandas read as text (object or string dtype)."""
    import pandas as pd

    return [c for c in df.columns
            if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype)]


def _header_is_data(header: list[str], df: pd.DataFrame) -> str:
    """Why line 1 looks like a data row ("" if it does not): more than half of its cells, and
    at least two, are numbers or values of their own column (``Female`` above a column of
    ``Male`` and ``Female``)."""
    if len(header) < 2 or len(header) != df.shape[1]:
        return ""
    head = df.head(1000)
    number = [_is_number(cell) for cell in header]
    value = [not n and cell.strip() in set(head.iloc[:, j].dropna().astype(str).str.strip())
             for j, (cell, n) in enumerate(zip(header, number, strict=True))]
    if 2 * (sum(number) + sum(value)) <= len(header):
        return ""
    if all(number):
        return f"every cell is a number, {', '.join(header[:3])}, ..."
    shown = [repr(c) for c, v in zip(header, value, strict=True) if v][:2]
    return (f"of its {len(header)} cells, numbers: {sum(number)}, values of their own "
            f"column: {sum(value)}, e.g. {', '.join(shown)}")


def _is_number(text: str) -> bool:
    """Whether a header cell reads as a number (a data value, not a column name)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _refuse_dates(df: pd.DataFrame, path: str) -> None:
    """A text column whose every value is a date is refused, as the estimators refuse a
    date column (each date would be its own category)."""
    import pandas as pd

    for c in _text_columns(df):
        values = df[c].dropna().astype(str).str.strip()
        if len(values) and values.head(100).str.fullmatch(_DATE).all() \
                and values.str.fullmatch(_DATE).all():  # the head first: cheap on big files
            parsed = pd.to_datetime(values, errors="coerce", format="mixed", dayfirst=False)
            if parsed.notna().all():
                raise _UsageError(
                    f"column {c!r} of {path} holds dates (e.g. {values.iloc[0]!r}): dates and "
                    "times are not supported (cells must be strings, numbers or booleans); "
                    "convert the column to a number first, e.g. days since a fixed date")


def line_of(df: pd.DataFrame, row: int) -> str:
    """``"line 7 of data.csv"`` for row ``row`` (position) of a frame read by
    :func:`read_csv`; ``"row 6"`` for other frames (a bundled dataset)."""
    import pandas as pd

    path, sep = df.attrs.get("csv_path"), df.attrs.get("csv_sep")
    if path is not None:  # the index holds each row's position in the file (--dropna)
        lines = file_lines(path, sep, df.attrs.get("csv_encoding", "utf-8-sig"),
                           df.attrs.get("csv_header", True))
        at = df.index[row]
        if pd.api.types.is_integer(at) and 0 <= at < len(lines):
            return f"line {lines[at]} of {path}"
    return f"row {row}"


def first_bad_row(df: pd.DataFrame, bad: np.ndarray, what: str, hint: str = "") -> None:
    """Refuse the first row where ``bad`` holds, by its line in the file (then ``hint``)."""
    import numpy as np

    rows = np.flatnonzero(bad)
    if len(rows):
        more = f" (and {len(rows) - 1} more rows)" if len(rows) > 1 else ""
        raise _UsageError(f"{line_of(df, int(rows[0]))}: {what}{more}"
                          + (f"; {hint}" if hint else ""))


def check_rows(df: pd.DataFrame, dropna: bool = False,
               hint: str = "--dropna leaves such rows out") -> pd.DataFrame:
    """``df`` checked for missing and infinite values, the first bad row named by its line
    in the file (with ``hint``).  ``dropna`` (``--dropna``): rows with a missing value are
    left out instead, with a note of how many; an error if none is left."""
    import numpy as np
    import pandas as pd

    missing = df.isna().to_numpy()
    if missing.any() and dropna:
        bad = missing.any(axis=1)
        if bad.all():
            raise _UsageError(f"every row has a missing value (an empty cell), e.g. "
                              f"{line_of(df, 0)}: --dropna leaves no row to fit")
        print(f"optrees: note: --dropna left out {int(bad.sum())} of {len(df)} rows with a "
              f"missing value (the first: {line_of(df, int(np.flatnonzero(bad)[0]))})",
              file=sys.stderr)
        df, missing = df[~bad], missing[~bad]
    if missing.any():
        row = int(np.flatnonzero(missing.any(axis=1))[0])
        cols = [c for c, m in zip(df.columns, missing[row], strict=True) if m]
        first_bad_row(df, missing.any(axis=1), f"missing values (an empty cell) in column "
                      f"{cols[0]!r}", hint)
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])
               and not pd.api.types.is_bool_dtype(df[c])]
    if numeric:
        inf = np.isinf(df[numeric].to_numpy(dtype=float))
        if inf.any():
            row = int(np.flatnonzero(inf.any(axis=1))[0])
            col = numeric[int(np.flatnonzero(inf[row])[0])]
            first_bad_row(df, inf.any(axis=1), f"infinite values in column {col!r}")
    return df


def row_weights(df: pd.DataFrame, column: str) -> np.ndarray:
    """``--weight-column``: numbers >= 0, finite, a bad one named by its line."""
    import numpy as np
    import pandas as pd

    values = pd.to_numeric(df[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        cell = df[column].iloc[int(np.flatnonzero(bad)[0])]
        first_bad_row(df, bad, f"--weight-column {column!r} holds {cell!r}, not a finite "
                               "number")
    negative = values < 0
    if negative.any():
        first_bad_row(df, negative, f"--weight-column {column!r} holds a negative weight "
                                    f"({values[negative][0]:g}); weights must be >= 0")
    return values


# ------------------------------------------------------------------------------- fit data
def dataset_task(name: str) -> str:
    """The task of the registered dataset ``name`` (unknown names: the loader's error)."""
    from .datasets import _get_spec

    return _get_spec(name).task


def check_sources(args: argparse.Namespace) -> None:
    """The data options of ``fit``, checked before anything is read."""
    if (args.dataset is None) == (args.csv is None):
        raise _UsageError("give exactly one of --dataset NAME or --csv FILE")
    if args.csv is not None and args.target is None:
        raise _UsageError("--csv needs --target COLUMN")
    if args.dataset is not None and args.target is not None:
        raise _UsageError("--target is for --csv; a dataset has its own target column")
    if not 0 <= args.test_size < 1:
        raise _UsageError(f"--test-size must be in [0, 1), got {args.test_size}")


def label(text: str, y: pd.Series, flag: str) -> Any:
    """The label of ``y`` that prints as ``text`` (a CSV's labels may be numbers)."""
    labels = {str(v): v for v in y.unique()}
    if text not in labels:
        raise _UsageError(f"{flag}: {text!r} is not a label of the target "
                          f"(labels: {sorted(labels)[:10]})")
    return labels[text]


def class_weight(text: str, y: pd.Series) -> Any:
    """``--class-weight``: "balanced", or "LABEL=W,LABEL=W" with labels as y prints them."""
    if text == "balanced":
        return "balanced"
    weights = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        if not eq:
            raise _UsageError(f"--class-weight takes 'balanced' or LABEL=WEIGHT,...; got {text!r}")
        key = label(name.strip(), y, "--class-weight")
        try:
            weights[key] = float(value)
        except ValueError as exc:
            raise _UsageError(f"--class-weight: weight {value!r} of {name!r} is not a "
                              "number") from exc
    return weights


COSTS_LAYOUTS = ("a matrix (true labels as first column, predicted labels as header) or "
                 "three columns true,predicted,cost")
LONG_COSTS = ["true", "predicted", "cost"]


def costs(path: str, y: pd.Series) -> dict[tuple[Any, Any], float]:
    """``--costs FILE.csv``: a matrix with the true labels as first column and the predicted
    labels as header, or one pair per line under the header ``true,predicted,cost`` (labels
    as the target prints them); costs >= 0, pairs not given 0 on the diagonal, else 1."""
    table = read_csv(path)
    if [str(c).strip().lower() for c in table.columns] == LONG_COSTS:
        cells = [(t, p, c) for t, p, c in table.itertuples(index=False)]
        where = ("first column", "second column")
    else:
        table = table.set_index(table.columns[0])
        cells = [(t, p, table.loc[t, p]) for t in table.index for p in table.columns]
        where = ("first column", "header")
    out = {}
    for true, pred, cell in cells:
        try:
            value = float(cell)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value) or value < 0:
            raise _UsageError(f"--costs {path}: the cost of predicting {pred!r} for "
                              f"{true!r} is {cell!r}, not a number >= 0 (the file is "
                              f"{COSTS_LAYOUTS})")
        out[(label(str(true).strip(), y, f"--costs ({where[0]})"),
             label(str(pred).strip(), y, f"--costs ({where[1]})"))] = value
    if not out:
        raise _UsageError(f"--costs {path}: no costs in it (the file is {COSTS_LAYOUTS})")
    return out


def feature_costs(text: str, X: pd.DataFrame) -> dict[str, float]:
    """``--feature-costs COL=COST,...``: columns of the data, costs >= 0."""
    out = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in X.columns:
            raise _UsageError(f"--feature-costs takes COLUMN=COST,... with columns of the data; "
                              f"got {part!r} (columns: {list(X.columns)[:10]})")
        try:
            cost = float(value)
        except ValueError:
            cost = math.nan
        if not math.isfinite(cost) or cost < 0:
            raise _UsageError(f"--feature-costs: the cost of {name!r} is {value!r}, not a "
                              "number >= 0")
        out[name] = cost
    return out


def pop_weights(args: argparse.Namespace, parts: list[Any]) -> list[Any] | None:
    """``--weight-column``: the training and test rows' weights (None: no test part), the
    column removed from X."""
    column = args.weight_column
    if column is None:
        return None
    if column not in parts[0].columns:
        raise _UsageError(f"--weight-column {column!r} is not a column of the data "
                          f"(columns: {list(parts[0].columns)})")
    weights = [None if X is None else X[column].to_numpy() for X in parts[:2]]
    parts[:2] = [None if X is None else X.drop(columns=[column]) for X in parts[:2]]
    return weights


def split_rows(X: pd.DataFrame, y: Any, test_size: float, seed: int,
               stratify: bool = False) -> list[Any]:
    """scikit-learn's ``train_test_split(X, y, ...)`` (the same rows: its split depends only
    on the number of rows, the seed and the labels), drawn on row positions: given tables,
    scikit-learn imports its dataframe layer (narwhals' pandas modules, 0.1-0.3 s of a CLI
    call)."""
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(len(y)), test_size=test_size, random_state=seed,
                                   stratify=np.asarray(y) if stratify else None)
    rows = (lambda a, r: a.iloc[r]) if isinstance(y, pd.Series) else (lambda a, r: a[r])
    return [X.iloc[train], X.iloc[test], rows(y, train), rows(y, test)]


def split(X: pd.DataFrame, y: pd.Series, test_size: float, seed: int,
          task: str = "classification") -> list[Any]:
    """``[X_train, X_test, y_train, y_test]`` (test part None when ``test_size`` is 0)."""
    from ._validation import check_target

    if test_size == 0:
        return [X, None, y, None]
    try:
        parts = split_rows(X, y, test_size, seed)
    except ValueError as exc:  # too few rows for this test size
        raise _UsageError(f"cannot split {len(y)} rows with --test-size {test_size}: {exc}"
                          ) from exc
    if task == "classification":
        _one_class_left(parts[2], y, test_size)
        check_target(parts[2], len(parts[2]))
    if len(parts[2]) < len(parts[3]):
        print(f"optrees: warning: --test-size {test_size} leaves {len(parts[2])} of the "
              f"{len(y)} rows to fit on (fewer than the {len(parts[3])} tested): a test size "
              "of 0.2-0.3 is usual", file=sys.stderr)
    return parts


def _one_class_left(y_train: pd.Series, y: pd.Series, test_size: float) -> None:
    """Refuse a training part of the hold-out split with a single class (the file has
    more), naming the split and ``--test-size``, not the file's target."""
    import pandas as pd

    classes = pd.Series(y_train).unique()
    if len(classes) == 1 and pd.Series(y).nunique() > 1:
        only = classes[0].item() if hasattr(classes[0], "item") else classes[0]
        raise _UsageError(f"the training part of the split ({len(y_train)} of the {len(y)} "
                          f"rows, --test-size {test_size:g} held out) has a single class "
                          f"{only!r}; use more rows, another --seed, or --test-size 0 (fit on "
                          "every row)")


def check_target_of(task: str, y: pd.Series, n_rows: int) -> None:
    """The target checked as the fit of ``task`` checks it (labels, or finite numbers)."""
    from ._validation import check_regression_target, check_target

    if task == "regression":
        check_regression_target(y, n_rows)
    else:
        check_target(y, n_rows)


def drop_columns(df: pd.DataFrame, text: str | None, needed: dict[str, str] | str
                 ) -> pd.DataFrame:
    """``--drop COL,...``: the file without those columns (an identifier, a leak), each
    checked to be a column the task does not need: ``needed`` maps a column to what it is
    (a name alone: the target)."""
    if text is None:
        return df
    if isinstance(needed, str):
        needed = {needed: "the target column"}
    names = [c.strip() for c in text.split(",") if c.strip()]
    for name in names:
        if name not in df.columns:
            raise _UsageError(f"--drop column {name!r} is not in the file (columns: "
                              f"{list(df.columns)})")
        if name in needed:
            raise _UsageError(f"--drop {name!r} is {needed[name]}")
    return df.drop(columns=names)


def load_data(args: argparse.Namespace, task: str | None = "classification"
              ) -> tuple[pd.DataFrame, pd.Series]:
    """X and y of --dataset or --csv, checked as ``fit`` checks them (missing values in any
    row, infinite values, labels or numbers by ``task``, weights), so that no finished fit is
    thrown away over the test part; a bad row is named by its line in the file.  ``task``
    None: the target is not checked yet (the caller decides the task from it)."""
    from ._validation import check_frame

    if args.dataset is not None:
        from .datasets import load_dataset

        X, y = load_dataset(args.dataset)
        frame = X
    else:
        df = csv_of(args)
        if args.target not in df.columns:
            raise _UsageError(f"target column {args.target!r} not in {args.csv} (columns: "
                              f"{list(df.columns)}; separator {df.attrs['csv_sep']!r})"
                              f"{no_header_hint(df)}")
        df = drop_columns(df, getattr(args, "drop", None), args.target)
        df = check_rows(df, getattr(args, "dropna", False))
        frame, X, y = df, df.drop(columns=[args.target]), df[args.target]
    if args.weight_column is not None and args.weight_column in frame.columns:
        row_weights(frame, args.weight_column)
    check_frame(X)
    if task is not None:
        check_target_of(task, y, len(X))
    for flag in ("--sensitive", "--legitimate"):  # method options: absent unless given
        column = getattr(args, flag[2:], None)
        if column is not None and column not in X.columns:
            raise _UsageError(f"{flag} column {column!r} is not a feature column "
                              f"(columns: {list(X.columns)})")
    return X, y
