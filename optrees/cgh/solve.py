"""CGH: column-generation math-heuristic for classification trees ([CGH]).

Pipeline: threshold sampling (§5, :mod:`.sampling`) -> restricted master LP over decision
paths (§4.1, eq. 1-6, :mod:`.master`) grown by pricing (§4.2, :mod:`.pricing`) -> integer
master over the generated columns when the LP is fractional (§6) -> :class:`BinaryTree`
(:mod:`.tree`).  The paths of the CART tree on 100 % of the data are the first columns, so the
master is feasible from the start and the tree returned is never worse than CART on the
training data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._logging import progress, since_fit
from ..models.result import FitResult
from ..solvers.deadline import Deadline, TimeUp
from .master import INT_TOL, Master, choice_from_paths, round_lp
from .paths import PathSpace
from .pricing import RandomPathPricer, enumerate_pricing, enumeration_size, milp_pricing
from .sampling import SplitSets, threshold_sampling
from .tree import build_tree

__all__ = ["CGH_DEPTH_WHY", "MAX_CGH_DEPTH", "CGHSettings", "solve_cgh"]

# Largest depth: the master has a row per leaf and per (leaf, level, candidate split), and
# setting it up loops over the 2^depth - 1 nodes in Python.  kr-vs-kp with a 5 s limit: depth
# 12 finishes in 5.0 s; depth 14 needed 10.7 s to set up the first master LP, depth 20 ran
# minutes, depth 50 ended in a MemoryError.
MAX_CGH_DEPTH = 12
CGH_DEPTH_WHY = ("CGH's master has 2^depth leaves, each with a row per level and candidate "
                 "split, and is set up node by node")


@dataclass(frozen=True)
class CGHSettings:
    """The knobs of CGH (§5, §7.2; see :class:`~optrees.CGHClassifier` for their meaning).

    ``exact_pricing``: "enumerate", "milp", "none" or "auto" (enumeration when it costs at most
    ``max_enumeration`` path-group evaluations, else the MILP when there are at most
    ``max_milp_groups`` row groups and at most ``large_rows`` training rows, else none: the
    paper's switch for its large data sets, §7.3: over 10,000 rows, so over 5,000 training
    rows in its 50 % training splits).  Without exact pricing the column generation stops when
    the heuristic finds nothing ``heuristic_retries`` times in a row (status "heuristic").
    Sampling may use ``sampling_fraction`` of the time and column generation stops at
    ``1 - mip_fraction`` of it, so that the master MIP over the generated paths (§6) always
    gets time (before, a column generation that ran to the limit left none: the LP rounding
    was returned).
    """

    alpha: float = 90.0
    tau: int = 300
    q_root: int | None = None
    q_node: int | None = None
    max_rounds: int | None = None
    all_splits: bool = False
    pool_size: int = 500
    n_leaves_sampled: int = 200
    n_columns: int = 100
    local_search: int = 20
    heuristic_retries: int = 5
    exact_pricing: str = "auto"
    max_enumeration: int = 20_000_000
    max_milp_groups: int = 2_000
    large_rows: int = 5_000
    max_iterations: int = 10_000
    sampling_fraction: float = 0.3
    mip_fraction: float = 0.2


def solve_cgh(X: np.ndarray, y: np.ndarray, classes: np.ndarray, depth: int,
              deadline: Deadline, settings: CGHSettings = CGHSettings(), *,
              names: list[str] | None = None, negated: list[str] | None = None,
              seed: int = 0, verbose: int = 0,
              sample_weight: np.ndarray | None = None) -> FitResult:
    """CGH on numeric ``X`` (n x F) and class indices ``y`` within ``deadline``.

    The model is a :class:`BinaryTree` (features named ``names`` / ``negated``); ``objective``
    is the number (with ``sample_weight``: the weight) of training rows it classifies
    correctly, ``bound`` the last master LP
    value (an upper bound over the sampled splits when ``status == "converged"``).  When the
    deadline passes before the first master LP, CGH's start tree (CART on all rows) is
    returned with ``stats["stop"] == "setup"``."""
    t0 = time.perf_counter()
    s = settings
    cg_deadline = deadline.share(1.0 - s.mip_fraction)
    rng = np.random.default_rng(seed)

    def result(choice: dict[int, int], sets: SplitSets, status: str, objective: float | None,
               bound: float, stats: dict) -> FitResult:
        """The tree of ``choice``; it must classify ``objective`` training rows correctly
        (None: CART's start tree, whose count is taken from the tree)."""
        tree = build_tree(choice, sets, X, y, classes, names, negated, sample_weight)
        right = tree.predict_index(X) == y
        correct = float(right.sum() if sample_weight is None else sample_weight[right].sum())
        if objective is None:
            objective = stats["cart_objective"] = correct
        elif abs(correct - objective) > 1e-9 * max(1.0, abs(objective)):
            raise RuntimeError(f"CGH internal error: tree classifies {correct} training rows "
                               f"correctly, the master reported {objective}")
        stats["seconds"] = time.perf_counter() - t0
        return FitResult(tree, status, objective, bound, stats["seconds"], stats)

    sets = threshold_sampling(X, y, depth, alpha=s.alpha, tau=s.tau, q_root=s.q_root,
                              q_node=s.q_node, max_rounds=s.max_rounds,
                              deadline=deadline.share(s.sampling_fraction), seed=seed,
                              all_splits=s.all_splits, sample_weight=sample_weight)
    # Until the first master LP is solved, the CART start is the only tree: past the
    # deadline return it rather than finish setting up (depth 12: seconds).
    try:
        deadline.check()
        space = PathSpace(sets, y, len(classes), sample_weight, deadline)
        deadline.check()
        cart_choice = {j: space.position(j, sid) for j, sid in sets.cart.items()}
        t_eval = time.perf_counter()
        cart_objective = space.tree_objective(cart_choice)
        # what scoring one tree costs (depth 12: about 0.3 s); kept back from the master MIP
        t_eval = time.perf_counter() - t_eval
        deadline.check()
        master = Master(space, deadline, seed=seed, verbose=int(verbose) >= 2)
        master.add_paths(np.arange(space.n_leaves), space.tree_paths(cart_choice))
        pricer = RandomPathPricer(space, rng, s.pool_size, s.n_leaves_sampled, s.n_columns,
                                  s.local_search)
        deadline.check()
    except TimeUp:
        return result(dict(sets.cart), sets, "time_limit", None, np.nan,
                      {**sets.stats, "stop": "setup", "lp_integral": False})
    stats: dict = dict(sets.stats)
    stats["n_groups"] = space.n_groups
    progress("CGH", since_fit(t0), cart_objective, step="sampling",
             rounds=sets.stats["sampling_rounds"], splits=sets.stats["n_splits"],
             groups=space.n_groups)
    stats["cart_objective"] = cart_objective
    stats["exact_pricing"] = exact = _exact_pricing(space, len(y), s)

    status, stop = _generate_columns(space, master, pricer, exact, cg_deadline, rng, s, seed,
                                     stats, t0)
    stats.update(stop=stop, n_paths=master.n_paths, cg_seconds=time.perf_counter() - t0)

    # -------- §6: integer solution
    lp = master.lp_solution()
    lp_values, lp_objective, current = lp if lp is not None else (None, cart_objective, True)
    candidates = [cart_choice]
    lp_integral = False
    if lp_values is not None:
        x = master.path_values(lp_values)
        integral = bool(np.all(np.minimum(x, 1 - x) <= INT_TOL))
        # an integral LP over fewer paths than the master now has does not end the search
        lp_integral = integral and current
        if integral:
            candidates.append(choice_from_paths(space, master, x))
        else:
            rounded = round_lp(space, master, lp_values)
            master.add_paths(np.arange(space.n_leaves), space.tree_paths(rounded))
            candidates.append(rounded)
    progress("CGH", since_fit(t0), cart_objective, step="cg-end", stop=stop,
             integral=lp_integral, **{"LP over generated paths": f"{lp_objective:.6g}"})
    scores = {0: cart_objective}  # candidate index -> objective: each tree is scored once

    def score(i: int) -> float:
        if i not in scores:
            scores[i] = space.tree_objective(candidates[i])
        return scores[i]

    best = candidates[max(range(len(candidates)), key=score)]
    mip_status = None
    if not lp_integral and lp_values is not None:
        # after the MIP one more tree is scored and the fitted tree built: keep time for it
        mip_deadline = deadline.reserve(2.0 * t_eval)
        if not mip_deadline.expired():
            master.make_integer(best, mip_deadline.remaining())
            mres = master.solve(mip_deadline)
            mip_status = mres.status
            if mres.values is not None:
                candidates.append(choice_from_paths(space, master,
                                                    master.path_values(mres.values)))
            if mres.status != "optimal":
                status = "time_limit"
            stats["mip_bound"] = mres.bound
        else:
            status = "time_limit"
    stats["mip_status"] = mip_status
    stats["lp_integral"] = lp_integral
    i_best = max(range(len(candidates)), key=score)
    progress("CGH MIP", since_fit(t0), score(i_best), status=mip_status or "skipped")
    choice_ids = {j: int(space.node_ids[j][p]) for j, p in candidates[i_best].items()}
    return result(choice_ids, sets, status, score(i_best), lp_objective, stats)


def _exact_pricing(space: PathSpace, n_rows: int, s: CGHSettings) -> str:
    """The exact pricing that proves the LP optimum (see :class:`CGHSettings`)."""
    if s.exact_pricing != "auto":
        return s.exact_pricing
    if enumeration_size(space) <= s.max_enumeration:
        return "enumerate"
    if space.n_groups <= s.max_milp_groups and n_rows <= s.large_rows:
        return "milp"
    return "none"


def _generate_columns(space: PathSpace, master: Master, pricer: RandomPathPricer, exact: str,
                      deadline: Deadline, rng: np.random.Generator, s: CGHSettings, seed: int,
                      stats: dict, t0: float) -> tuple[str, str]:
    """Column generation (§4) until pricing finds nothing or ``deadline``; returns
    (status, why it stopped) and counts its iterations in ``stats`` (a progress line per
    master LP: the incumbent is CART's tree, the only integer one until the master MIP)."""
    res = master.solve(deadline)
    status = "heuristic"
    iterations = fails = exact_calls = 0
    timed_out = res.status != "optimal"
    stop = "master" if timed_out else "max_iterations"
    while not timed_out and iterations < s.max_iterations:
        iterations += 1
        if deadline.expired():
            timed_out, stop = True, "deadline"
            break
        duals = master.duals()
        leaf, pos, rc = pricer.price(duals, master.keys)
        if len(leaf) == 0:
            fails += 1
            if fails < s.heuristic_retries:
                continue
            if exact == "none":
                stop = "heuristic"
                break
            exact_calls += 1
            if exact == "enumerate":
                found = enumerate_pricing(space, duals, s.n_columns, deadline)
            else:
                order = rng.permutation(space.n_leaves)
                found = milp_pricing(space, duals, s.n_columns, deadline, leaves=order,
                                     seed=seed, stop_early=True)
            if found is None:
                timed_out, stop = True, "exact_pricing"
                break
            leaf, pos, rc, best = found
            progress("CGH", since_fit(t0), stats["cart_objective"], step=f"exact {exact}",
                     best_rc=f"{best:.4g}", columns=len(leaf))
            if len(leaf) == 0:
                stop = status = "converged"
                break
            pricer.clear()
        fails = 0
        pricer.set_priority(leaf)
        master.add_paths(leaf, pos)
        res = master.solve(deadline)
        if res.status != "optimal":
            timed_out, stop = True, f"master {res.status}"
            break
        progress("CGH", since_fit(t0), stats["cart_objective"], round=iterations,
                 paths=master.n_paths, **{"LP over generated paths": f"{res.objective:.6g}"})
    stats.update(iterations=iterations, exact_calls=exact_calls)
    return ("time_limit" if timed_out else status), stop
