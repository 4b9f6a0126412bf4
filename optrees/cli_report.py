"""What ``optrees fit`` and ``optrees demo`` print after a fit (the model, its status line,
accuracies, time) and the saved model file."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


THRESHOLDS = {"all": "over every threshold", "binarized": "over the binarizer's thresholds"}
"""What ``thresholds_`` says about the optimum, in the status line."""


def mip_summary(est: Any) -> list[str]:
    """Status lines of the exact tree MIPs (FlowOCT, BendersOCT, BendOCT, OCT, BinOCT); an
    optimum says over which thresholds it holds (``thresholds_``)."""
    where = THRESHOLDS.get(getattr(est, "thresholds_", None), "")
    if where and getattr(est, "_categories", None):  # one-hot: no split groups categories
        where += " (categorical columns: one test x = v per category)"
    status = f"{est.status_} {where}" if est.status_ == "optimal" and where else est.status_
    if "side_constraints" in est.stats_:
        status = f"{status} under {est.stats_['side_constraints']}"
    lines = [f"status          : {status}",
             f"objective       : {est.objective_:g}   bound: {est.bound_:g}   "
             f"gap: {est.gap_:.2%}"]
    if "objective" in est.stats_:  # not accuracy: say what the numbers are
        side = "a lower" if "lower is better" in est.stats_["objective"] else "an upper"
        lines.append(f"objective is    : {est.stats_['objective']}; the bound is {side} bound")
    if getattr(est, "thresholds_", None) == "binarized" and \
            "every_threshold_bound" in est.stats_:
        lines.append(f"every threshold : objective at most "
                     f"{est.stats_['every_threshold_bound']:g} (not certified)")
    if getattr(est, "fairness_", None):
        lines.append(fairness_line(est))
    return lines


def _proof(est: Any, over: str) -> tuple[str, str]:
    """(status with what it proves, "bound: ...   gap: ..." or why there is none) of a
    column-generation fit; ``over``: the set of models its bound holds over."""
    if math.isfinite(est.bound_):
        gap = f"{est.gap_:.2%}" if math.isfinite(est.gap_) else "inf"
        return est.status_, f"bound: {est.bound_:g} over {over}   gap: {gap}"
    return f"{est.status_} (not proved optimal)", f"no bound over {over}, no gap"


def fairness_line(est: Any) -> str:
    """The realised training gap of a fair fit against its cap (``fairness_``), and what
    FairRUG's repair did to reach it."""
    from ._validation import positive_class_index
    from .fairness import _plain, summary_line

    summary = est.fairness_
    line = (f"fairness        : {summary_line(summary)}, {len(summary['groups'])} groups "
            f"of {est.sensitive!r}")
    if summary["notion"] not in ("dmc", "odm"):  # rates of one class: say which
        chosen = getattr(est, "positive_class", None)
        positive = _plain(est.classes_[positive_class_index(chosen, est.classes_)])
        default = "" if chosen is not None else " (the last class: set positive_class)"
        line += f", positive class {positive!r}{default}"
    repair = est.stats_.get("fairness_repair")
    if repair and repair.get("chosen", "fit") != "fit":
        line += (f"\n                  repaired ({repair['chosen']}): training accuracy "
                 f"{repair['accuracy_before']:.4f} -> {repair['accuracy_after']:.4f}, gap "
                 f"{repair['realised_before']:.4f} -> {est.fairness_['realised']:.4f}")
    return line


def cgh_summary(est: Any) -> list[str]:
    """Status lines of CGH (a binary tree with real thresholds on the raw columns): the LP
    value bounds the trees over the sampled splits only (see ``CGHClassifier.bound_``)."""
    status, bound = _proof(est, "every tree")
    lp = ""
    if math.isfinite(est.lp_bound_):  # a bound over the sampled splits only once converged
        lp = (f"   LP over the sampled splits: {est.lp_bound_:g}" if est.status_ == "converged"
              else f"   last master LP: {est.lp_bound_:g} (not converged: no bound)")
    return [f"status          : {status}  (LP integral: {est.lp_integral_}, "
            f"CART {est.cart_objective_:g} correct)",
            f"objective       : {est.objective_:g} correct   {bound}{lp}"]


def omt_summary(est: Any) -> list[str]:
    """Status lines of OMT (a multiway-split tree from a path MIP and column generation);
    the bound over generated rules when the bound over all rule sets was not proven; the
    leaf penalty when not 0, with its validation accuracy when chosen by "auto"."""
    # OMT's graph cuts numeric columns into bins: a tree on finer thresholds may beat it
    status, bound = _proof(est, "every rule set on its bins")
    lp = ""
    if not math.isfinite(est.bound_) and math.isfinite(est.lp_bound_):
        lp = f"   bound over generated rules: {est.lp_bound_:g}"
    lines = [f"status          : {status}",
             f"objective       : {est.objective_:g}   {bound}{lp}"]
    if getattr(est, "loss", None) == "f1" and getattr(est, "f1_", None) is not None:
        gammas = est.stats_.get("dinkelbach_gammas") or [float("nan")]
        lines.append(f"F1 (train)      : {est.f1_:.4f}; the objective is the loss of the last "
                     f"parametric step of Dinkelbach's method (gamma {float(gammas[-1]):.4g}), "
                     f"not the F1")
    if est.validation_scores_:
        score = est.validation_scores_[est.leaf_penalty_]
        lines.append(f"leaf penalty    : {est.leaf_penalty_:g} per rule (auto: best validation "
                     f"score {score:.4f} of {len(est.validation_scores_)} candidates)")
    elif est.leaf_penalty_:
        lines.append(f"leaf penalty    : {est.leaf_penalty_:g} per rule")
    return lines


def regression_summary(est: Any) -> list[str]:
    """Status lines of a regression tree: the proof (over every threshold), the objective
    with its bound and gap, and what the objective is."""
    lines = mip_summary(est)
    if getattr(est, "leaf_model", "constant") == "linear":
        lines.append("objective is    : (squared error + leaf_ridge x |leaf coefficients|^2) / "
                     "(total weight x variance of y) + lam x leaves; each leaf a ridge "
                     f"regression on the numeric columns; splits at "
                     f"{est.stats_.get('thresholds_per_column')} quantile thresholds a "
                     "numeric column; bound: a lower bound")
        return lines
    lines.append("objective is    : squared error / (total weight x variance of y) + lam x "
                 "leaves; bound: a lower bound")
    return lines


def robust_summary(est: Any) -> list[str]:
    """Status lines of a robust tree: the proof, the worst-case objective with its bound and
    gap, and what they are."""
    lines = mip_summary(est)
    penalty = f" - {est.lam:g} x branch nodes" if est.lam else ""
    lines.append(f"objective is    : worst-case training accuracy when an adversary shifts "
                 f"features within budget {est.budget:g}{penalty}; the bound is an upper bound")
    return lines


SUMMARIES: dict[str, Callable[[Any], list[str]]] = {"cgh": cgh_summary, "omt": omt_summary,
                                                     "omt-reg": omt_summary,
                                                     "regtree": regression_summary,
                                                     "robust": robust_summary}


def fit_quietly(est: Any, X: pd.DataFrame, y: pd.Series, sample_weight: Any = None) -> None:
    """Fit (with row weights when given); a time limit is reported in the status line
    rather than as a warning."""
    from .estimators import TimeLimitWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        if sample_weight is None:
            est.fit(X, y)
        else:
            est.fit(X, y, sample_weight=sample_weight)


def accuracy_line(name: str, est: Any, X: pd.DataFrame, y: Any, w: Any = None) -> str:
    """``train accuracy  : 0.9123  (n=300)``, with the weighted accuracy when the rows have
    weights ``w`` (what the weighted fit maximizes); a regressor's line is its R² with the
    root mean squared error: ``train R²        : 0.4123  (n=258, RMSE 2.91)``."""
    import numpy as np
    from sklearn.base import is_regressor

    y = np.asarray(y)  # (as a Series, scikit-learn's scores import its dataframe layer)
    defined = True
    if is_regressor(est):
        target = np.asarray(y, dtype=float)
        residual = target - est.predict(X)  # one prediction: one warning of unseen values
        spread = float(np.sum((target - target.mean()) ** 2))
        # R² divides by the spread of y: none here (scikit-learn would print 1 or 0)
        defined = spread > 0
        r2 = f"{1.0 - float(np.sum(residual ** 2)) / spread:.4f}" if defined else \
            "undefined (y is constant)"
        line = (f"{name + ' R²':<16}: {r2}  (n={len(y)}, RMSE "
                f"{np.sqrt(np.mean(residual ** 2)):.4g}")
    else:
        line = f"{name + ' accuracy':<16}: {est.score(X, y):.4f}  (n={len(y)}"
    if w is not None and defined:
        line += f"; weighted {est.score(X, y, sample_weight=w):.4f}"
    return line + ")"


def report_tree(est: Any, parts: list[Any], summary: Callable[[Any], list[str]],
                weights: list[Any] | None = None) -> None:
    """Print the tree, the ``summary`` lines, accuracies (``weights``: of the training and
    test rows) and time."""
    X_tr, X_te, y_tr, y_te = parts
    w_tr, w_te = weights or (None, None)
    print(est.tree_.export_text())
    print()
    print("\n".join(summary(est)))
    print(accuracy_line("train", est, X_tr, y_tr, w_tr))
    if X_te is not None and len(y_te):
        print(accuracy_line("test", est, X_te, y_te, w_te))
    detail = ""
    if hasattr(est, "n_bb_nodes_"):  # branch-and-bound methods
        detail = f" (solver {est.solve_seconds_:.2f}s, {est.n_bb_nodes_} B&B nodes)"
    print(f"time            : {est.fit_seconds_:.2f}s{detail}")


def report_rug(est: Any, parts: list[Any], sensitive: str | None,
               weights: list[Any] | None = None) -> None:
    """RUG / FairRUG: print the rules, accuracies (``weights``: of the training and test
    rows), interpretability metrics and fairness scores."""
    from . import metrics

    X_tr, X_te, y_tr, y_te = parts
    w_tr, w_te = weights or (None, None)
    print(est.export_text())
    print()
    print(f"status          : {est.status_}  ({est.n_rmp_calls_} master LPs, "
          f"{est.fit_seconds_:.2f}s)")
    if getattr(est, "fairness_", None):
        print(fairness_line(est))
    named = [("train", X_tr, y_tr, w_tr)] + ([("test", X_te, y_te, w_te)]
                                             if X_te is not None else [])
    for name, X, y, w in named:
        print(accuracy_line(name, est, X, y, w))
        info = metrics.interpretability(est, X)
        print("                  " + "  ".join(f"{k} {v:.2f}" for k, v in info.items()))
        if sensitive is not None:
            pred, groups = est.predict(X), X[sensitive].to_numpy()
            print("                  fairness scores (1 - gap): "
                  f"DMC {metrics.dmc_score(y, pred, groups):.3f}  "
                  f"ODM {metrics.odm_score(y, pred, groups):.3f}  "
                  f"EOP {metrics.eop_score(y, pred, groups):.3f}")


def finish(est: Any, args: Any) -> int:
    """The last lines of a task's fit (its time), the model file and the picture when asked
    for; the command's exit code."""
    print(f"time            : {est.fit_seconds_:.2f}s")
    save(est, args.out)
    if args.plot:
        est.plot(path=args.plot)
        print(f"picture written to {args.plot}")
    return 0


def save(est: Any, out: str | None, target: str | None = None) -> None:
    """Write the model to ``out`` (atomically) when given, with the name of its ``target``."""
    if out:
        from .io import save_model

        save_model(est, out, target)
        print(f"model written to {out}")
