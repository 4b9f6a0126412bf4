"""The commands on a saved model: ``optrees predict`` and ``optrees plot``."""

from __future__ import annotations

import argparse
import sys
import warnings

from . import cli_data as data
from .cli_base import _UsageError


def cmd_predict(args: argparse.Namespace) -> int:
    """Predict every row of ``--csv`` with a saved model (with ``--proba``, each class's
    probability too); to ``--out`` or stdout.  The accuracy (a regression tree: R²) is
    printed when the file has the
    target column (``--target``, else the one the model was fitted on), to stderr when the
    predictions go to stdout."""
    import pandas as pd

    from .io import load_model, write_atomic

    data.check_out(args.out)
    model = load_model(args.model)
    df = data.csv_of(args)
    target = args.target if args.target is not None else model.data.get("target")
    if args.target is not None and args.target not in df.columns:
        raise _UsageError(f"--target column {args.target!r} is not in {args.csv} "
                          f"(columns: {list(df.columns)}){data.no_header_hint(df)}")
    X = df.drop(columns=[target]) if target in df.columns else df
    # a row the model cannot predict, named by its line (every row gets a prediction)
    data.check_rows(X, hint="fill it in or remove the row")
    out = pd.DataFrame({"prediction": model.predict(X)})
    if args.proba:
        if model.classes_ is None:
            raise _UsageError("--proba needs a classifier; this model is a regression tree")
        proba = model.predict_proba(X)
        for k, c in enumerate(model.classes_):
            out[f"proba_{c}"] = proba[:, k]
    if args.out:
        write_atomic(args.out, out.to_csv(index=False))
        print(f"{len(out)} predictions written to {args.out}")
    else:
        out.to_csv(sys.stdout, index=False)
    if target in df.columns:
        print(_score_line(model, X, df[target], args.csv, target),
              file=sys.stdout if args.out else sys.stderr)
    return 0


def _score_line(model: object, X: object, y: object, csv: str, target: str) -> str:
    """The line of the model's accuracy (R²) on the rows whose ``target`` cell holds a
    value (a number for a regression tree); the others are counted, not scored."""
    import pandas as pd

    from .estimators._base import UnseenCategoryWarning

    regression = model.classes_ is None
    values = pd.to_numeric(y, errors="coerce") if regression else y
    known = values.notna().to_numpy()
    metric = "R²" if regression else "accuracy"
    skipped = int((~known).sum())
    note = f"; {skipped} row(s) without a {'numeric ' if regression else ''}target " \
        "skipped" if skipped else ""
    if known.sum() < (2 if regression else 1):
        return f"{metric} on {csv}: not computed (no rows with a target in column " \
            f"{target!r}{note})"
    with warnings.catch_warnings():  # predict warned of unseen categories already
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        score = model.score(X[known], values[known])
    return f"{metric} on {csv}: {score:.4f} (n={int(known.sum())}, target column " \
        f"{target!r}{note})"


def cmd_plot(args: argparse.Namespace) -> int:
    """Draw a saved model: a tree's boxes, a rule set's rule weights."""
    from .io import load_model

    data.check_picture(args.out, "--out")
    model = load_model(args.model)
    kwargs = {} if args.max_rules is None else {"max_rules": args.max_rules}
    if args.max_rules is not None and not hasattr(model, "rules"):
        raise _UsageError("--max-rules is for rule sets; this model is a tree")
    model.plot(path=args.out, **kwargs)
    print(f"picture written to {args.out}")
    return 0
