"""Mutation score of the critical modules (issue #42 item 9), with cosmic-ray.

Per module group: cosmic-ray plants one small change at a time (an operator, a comparison, a
number, a ``not``, a loop that runs zero times, ...) into the module's file, runs a targeted
fast test command, and counts the mutant *killed* when that command fails.  The score is
killed / all mutants.  Too slow for CI (one pytest process per mutant): run it by hand.

    pip install cosmic-ray
    OPTREES_DATA=/work/shared/datasets PYTHONPATH=$PWD python bench/mutation.py fairness
    python bench/mutation.py fairness --report-only      # the last session's score again
    python bench/mutation.py fairness --rerun-survivors  # after adding tests: survivors only
    python bench/mutation.py numeric-search --max 8      # 8 more mutants of the sample, in pieces
    python bench/mutation.py numeric-search --max 6 --path optrees/trees/search/numeric/budget.py

Sessions and survivors go to ``bench/results/mutation/<group>.sqlite`` / ``.survivors.txt``.
cosmic-ray edits the files *in place* and restores them after each mutant: do not interrupt
it, and check ``git status`` afterwards.

Operators: cosmic-ray's core set, with the replacement targets cut to the ones that are a
plausible slip, so one site does not count twelve times: a binary operator becomes ``+ - *
/`` (not bit operations, shifts, ``**``, ``//``, ``%``, ``@``); a comparison becomes another
comparison (not ``is`` / ``is not``); ``~`` is not planted; variable insertion/replacement
are not run.  Everything else (numbers +-1, ``not``, ``and``/``or``, ``True``/``False``,
``break``/``continue``, zero-iteration loops, removed decorators, exceptions) is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results" / "mutation"

PYTEST = "python -m pytest -x -q -n 0 -p no:cacheprovider"
SLOW_FAIR = [  # minutes of MIP fits that add no mutant kill over the fast ones
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[1]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[3]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[5]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[7]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[9]",
    "tests/test_tree_fairness.py::test_fair_fit_over_every_threshold_equals_enumeration[5]",
    "tests/test_tree_fairness.py::test_fairness_needs_two_groups_and_takes_any_class_count",
    "tests/test_fair_oracles.py::test_a_weighted_fair_fit_certified_over_every_threshold_is_that_optimum",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[4]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[6]",
    "tests/test_tree_fairness.py::test_certified_optimum_equals_exhaustive_search[8]",
] + [
    "tests/test_fair_oracles.py::test_every_threshold_certificate_never_certifies"
    f"_below_a_fair_tree[{c}-{k}]" for c in ("coarse0", "coarse1")
    for k in ("statistical_parity", "equal_opportunity", "equalized_odds")]

FAST_FAIR = ["tests/test_fair_oracles.py", "tests/test_fair_report.py"]
GROUPS: dict[str, dict] = {
    "fairness": {  # the realised measure and the fairness_ report
        "modules": ["optrees/fairness.py"],
        "tests": ["tests/test_mutants_fairness.py", *FAST_FAIR],
        "deselect": SLOW_FAIR,
    },
    "tree-fairness": {  # the notions' rows of the tree MIPs and searches
        "modules": ["optrees/trees/problem/fairness.py", "optrees/trees/mip/fairness_rows.py"],
        "tests": ["tests/test_mutants_fairness_rows.py", "tests/test_mutants_fairness.py",
                  *FAST_FAIR, "tests/test_tree_fairness.py"],
        "deselect": SLOW_FAIR,
        # the MIP rows and their lazy cuts: 203 mutants, 5-30 s each on the shared 2-core
        # machine; run with ``--all`` in pieces (``--max``) on 2026-11-29
        "defer": ["add_fairness_rows", "__init__", "complete", "_short", "violated",
                  "separate", "_rows", "predicted", "_wrong"],
    },
    "costs": {  # the cost-sensitive view of the tree objectives
        "modules": ["optrees/trees/problem/objectives/costs.py",
                    "optrees/trees/problem/objectives/view.py"],
        "tests": ["tests/test_mutants_costs.py", "tests/test_cost_sensitive.py",
                  "tests/test_feature_costs.py"],
        "deselect": [],
    },
    "side-constraints": {  # min leaf size and leaf budget of the binary-tree MIPs
        "modules": ["optrees/trees/mip/side_constraints.py"],
        # the MIP fits only (the search tests and pystreed's data sets never load the
        # module); test_side_constraints.py's 12 random certified fits (15 s a mutant) killed
        # nothing the targeted file does not in the first 65 mutants: left out
        "tests": ["tests/test_mutants_side_constraints.py",
                  "tests/test_side_constraints.py::test_unsatisfiable_min_leaf_gives_the_root_leaf"],
        "deselect": [],
        "timeout": 120.0,  # a mutant that never ends its walk over the tree (~40 s a run)
    },
    "rug-master": {  # RUG's restricted master LP, its duals and its certified bound
        "modules": ["optrees/rug/master.py"],
        "tests": ["tests/test_mutants_rug_master.py"],
        "deselect": [],
    },
    "subtree-search": {  # bounds and pruning of the 0/1 subtree search, the depth-2 counts
        "modules": ["optrees/trees/search/binary/search.py",
                    "optrees/trees/search/binary/counts.py"],
        "tests": ["tests/test_mutants_subtree_search.py", "tests/test_subtrees.py",
                  "tests/test_side_constraints.py::test_search_equals_exhaustive_search",
                  "tests/test_feature_costs.py"],  # the kernel's split costs
        "deselect": ["tests/test_subtrees.py::test_matches_pystreed"],
        # 1144 mutants: the search's bounds and pruning and the depth-2 kernel (numpy
        # backend; the numba one is not mutated), a random sample of 100 of those
        "only": ["solve", "_branch", "_branch_budget", "_prior", "_feasible_splits", "depth2",
                 "depth2_numpy"],
        "sample": 100,
    },
    "subtree-roots": {  # the root loop of a search node: its bounds, one step, threads
        "modules": ["optrees/trees/search/binary/roots.py",
                    "optrees/trees/search/binary/search.py"],
        "tests": ["tests/test_mutants_subtree_search.py", "tests/test_parallel_search.py",
                  "tests/test_subtrees.py",
                  "tests/test_side_constraints.py::test_search_equals_exhaustive_search"],
        "deselect": ["tests/test_subtrees.py::test_matches_pystreed"],
        # roots.py's functions (``work`` and ``publish`` are nested in ``parallel_roots``)
        # and the serial loop left in search.py
        "only": ["prepare", "step", "parallel_roots", "work", "publish", "_worker",
                 "merge_steps", "_branch_roots"],
        "sample": 120,  # of 410 mutants
    },
    "numeric-search": {  # bounds and pruning of the search over every threshold
        "modules": ["optrees/trees/search/numeric/search.py",
                    "optrees/trees/search/numeric/budget.py"],
        "tests": ["tests/test_mutants_numeric_search.py", "tests/test_numeric_subtrees.py",
                  "tests/test_numeric_deep.py"],
        "deselect": [],
        "sample": 60,  # of 1077 mutants
    },
    "fair-search": {  # the front search of fair trees and the notions' gap coordinates
        "modules": ["optrees/trees/problem/fairness.py", "optrees/trees/search/binary/fair.py",
                    "optrees/trees/search/binary/fair_fronts.py"],
        "tests": ["tests/test_mutants_fairness.py", "tests/test_fair_search.py",
                  "tests/test_fair_oracles.py"],
        "deselect": [*SLOW_FAIR,
                     "tests/test_fair_search.py::test_bendoct_depth3_front_search_agrees_with_the_mip",
                     "tests/test_mutants_fairness.py::test_two_class_fair_mips_equal_the_"
                     "enumeration_from_the_definition"],
        "sample": 60,
    },
    "feature-costs": {  # the feature-cost objective and its subtree search
        "modules": ["optrees/trees/problem/objectives/feature_costs.py",
                    "optrees/trees/solve/feature_costs.py",
                    "optrees/trees/search/binary/feature_costs.py"],
        "tests": ["tests/test_mutants_feature_costs.py", "tests/test_feature_costs.py"],
        "deselect": [],
        "sample": 60,  # of 574 mutants
    },
    "path-fronts": {  # issue #44's accuracy-size front on 0/1 features (the λ-path)
        # the numba kernels (front_kernels.py) are not mutated: each mutant recompiles them
        "modules": ["optrees/trees/search/binary/front.py",
                    "optrees/trees/search/binary/leaf_fronts.py",
                    "optrees/trees/search/binary/front_bounds.py"],
        "tests": ["tests/test_mutants_path.py", "tests/test_path.py"],
        "deselect": [],
        "sample": 80,
        "timeout": 60.0,  # a loop over budgets that never ends (6-10 s a normal run)
    },
    "weights": {  # the row weights every estimator fits with (issue #42 item 9)
        "modules": ["optrees/_validation.py"],
        "tests": ["tests/test_mutants_weights.py"],
        "deselect": [],
        "only": ["positive_rows", "drop_weightless", "fit_weights", "_sample_weight_array",
                 "_class_weights"],
    },
    "regression-search": {  # the search over every threshold of regression trees (squared error)
        # the compiled kernels (kernels.py) are not mutated; segments.py's programme is (numba
        # recompiles it for each of its mutants)
        "modules": ["optrees/trees/search/regression/search.py",
                    "optrees/trees/search/regression/depth2_front.py",
                    "optrees/trees/search/regression/segments.py",
                    "optrees/trees/search/regression/stump.py",
                    "optrees/trees/search/regression/dense.py"],
        "tests": ["tests/test_mutants_regression_search.py", "tests/test_regression_trees.py",
                  "tests/test_regression_kmeans.py", "tests/test_regression_path.py"],
        "deselect": ["tests/test_regression_trees.py::test_check_estimator"],  # slow
        "sample": 60,
        "timeout": 120.0,
    },
    "regression-deep": {  # regression trees of depth 5-8: stacked pieces, CART floor, bound
        "modules": ["optrees/trees/search/regression/stacked.py",
                    "optrees/trees/solve/regression_deep.py"],
        "tests": ["tests/test_regression_deep.py", "tests/test_mutants_regression_deep.py"],
        "deselect": [],
        "sample": 120,  # of 816 mutants (about 8 s each)
        "timeout": 60.0,
    },
    "rule-bounds": {  # RUX's certified bound: duals made feasible, unread trees, fair scaling
        "modules": ["optrees/rug/certificate.py", "optrees/rug/rux_unread.py",
                    "optrees/rug/rux_fair.py"],
        "tests": ["tests/test_mutants_rule_bounds.py", "tests/test_rule_bounds.py",
                  "tests/test_rux_stopped_fair.py"],
        "deselect": [],
        "sample": 80,
        "timeout": 60.0,
    },
}

KEEP_BINARY = ("Add", "Sub", "Mul", "Div")
NOT_TARGETS = ("Is", "IsNot")


def excluded_operators() -> list[str]:
    """Regexes of the operator names cosmic-ray should not plant (see the docstring)."""
    return [
        rf"core/ReplaceBinaryOperator_\w+_(?!({'|'.join(KEEP_BINARY)})$)\w+",
        rf"core/ReplaceComparisonOperator_\w+_({'|'.join(NOT_TARGETS)})$",
        r"core/ReplaceUnaryOperator_\w+_Invert$",
        r"core/VariableInserter", r"core/VariableReplacer",
    ]


def config(group: str) -> str:
    spec = GROUPS[group]
    # a new file may not exist yet; "file::test" selects one test of a file
    tests = [t for t in spec["tests"] if (ROOT / t.split("::")[0]).exists()]
    command = " ".join([PYTEST, *tests, *(f"'--deselect={d}'" for d in spec["deselect"])])
    modules = ", ".join(json.dumps(m) for m in spec["modules"])
    excluded = ", ".join(json.dumps(e) for e in excluded_operators())
    return (f"[cosmic-ray]\nmodule-path = [{modules}]\ntimeout = {spec.get('timeout', 300.0)}\n"
            f"excluded-modules = []\ntest-command = {json.dumps(command)}\n\n"
            f"[cosmic-ray.distributor]\nname = \"local\"\n\n"
            f"[cosmic-ray.filters.operators-filter]\nexclude-operators = [{excluded}]\n")


def _stable_key(path: str, name: str, operator: str, row: int, col: int, end_col: int,
                lines: dict[str, list[str]]) -> str:
    """A mutant's place that an edit elsewhere in its file does not move: its function, its
    operator and the text of its line and columns (cosmic-ray's job ids are random uuids,
    its occurrence numbers and rows shift with every site or line added above)."""
    text = lines.setdefault(path, (ROOT / path).read_text().splitlines())
    line = text[row - 1] if 0 < row <= len(text) else ""
    return hashlib.sha1(f"{path}|{name}|{operator}|{line}|{col}|{end_col}".encode()).hexdigest()


def deferred_jobs(con: sqlite3.Connection, spec: dict, run_all: bool,
                  most: int | None = None, path: str | None = None) -> list[str]:
    """Jobs not to run: those of the group's ``defer`` functions, those outside its ``only``
    functions, and, with ``sample`` = N, all but N of the rest: the N with the smallest hash
    of their place (:func:`_stable_key`), so the same code gives the same sample after every
    ``init`` and an edit elsewhere in a file keeps the rest of its sample.  ``most``: of the
    sample, run at most this many not run yet in this call (a run in pieces).  ``path``: run
    only the sample's mutants of this file (the sample is still drawn over the group)."""
    if run_all and most is None:
        return []
    query = ("SELECT job_id, definition_name, module_path, operator_name, start_pos_row,"
             " start_pos_col, end_pos_col FROM mutation_specs WHERE job_id ")
    rows = con.execute(query + "NOT IN (SELECT job_id FROM work_results WHERE output != "
                       "'deferred')").fetchall()
    rows += con.execute(query + "IN (SELECT job_id FROM work_results WHERE worker_outcome "
                        "= 'NORMAL')").fetchall()  # already run: part of the sample
    lines: dict[str, list[str]] = {}
    rows.sort(key=lambda r: (_stable_key(r[2], r[1], *r[3:], lines), r[4], r[0]))
    only, defer = spec.get("only"), spec.get("defer", [])
    keep = [r[0] for r in rows if run_all or (
        r[1] not in defer and (only is None or r[1] in only))]
    if not run_all and spec.get("sample"):
        keep = keep[:spec["sample"]]
    if path is not None:
        path_of = {r[0]: r[2] for r in rows}
        keep = [j for j in keep if path_of[j] == path]
    ran = {j for (j,) in con.execute("SELECT job_id FROM work_results WHERE "
                                     "worker_outcome = 'NORMAL'")}
    if most is not None:
        keep = [j for j in keep if j in ran] + [j for j in keep if j not in ran][:most]
    return sorted({r[0] for r in rows} - set(keep) - ran)


def run(*args: str) -> str:
    return subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def report(group: str, db: Path) -> None:
    """Killed / total per module, and the survivors' diffs in ``<group>.survivors.txt``."""
    per: dict[str, list[int]] = {}
    deferred: dict[str, int] = {}
    survivors = []
    for line in run("cosmic-ray", "dump", str(db)).splitlines():
        item, result = json.loads(line)
        if item.get("job_id") and result is None:
            continue  # not run yet
        mutation = item["mutations"][0]
        path = mutation["module_path"]
        if result is not None and result.get("output") == "deferred":
            deferred[path] = deferred.get(path, 0) + 1
            continue
        if result is None or result.get("worker_outcome") == "skipped":
            continue  # filtered out
        counts = per.setdefault(path, [0, 0])
        counts[1] += 1
        if result["test_outcome"] == "killed":
            counts[0] += 1
        else:
            survivors.append(f"### {path} {mutation['operator_name']} "
                             f"occurrence {mutation['occurrence']} [{item['job_id']}]\n"
                             f"{result.get('diff') or ''}")
    (OUT / f"{group}.survivors.txt").write_text("\n".join(survivors))
    total = [sum(c[0] for c in per.values()), sum(c[1] for c in per.values())]
    for path, (killed, n) in sorted(per.items()) + [("all", total)]:
        print(f"{group:11s} {path:45s} {killed:4d}/{n:<4d} killed  "
              f"{100 * killed / max(n, 1):5.1f} %"
              + (f"  ({deferred[path]} deferred, not run)" if path in deferred else ""))
    print(f"survivors: {OUT / (group + '.survivors.txt')}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--all", action="store_true", help="run the deferred functions too")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="run the surviving mutants again (after adding tests)")
    parser.add_argument("--max", type=int, default=None,
                        help="run at most this many mutants not run yet (a run in pieces)")
    parser.add_argument("--path", default=None,
                        help="run only the sample's mutants of this module file")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    toml, db = OUT / f"{args.group}.toml", OUT / f"{args.group}.sqlite"
    if not args.report_only:
        toml.write_text(config(args.group))
        if not db.exists():
            run("cosmic-ray", "init", str(toml), str(db))
            run("cr-filter-operators", str(db), str(toml))
        if args.rerun_survivors:
            with sqlite3.connect(db) as con:
                con.execute("DELETE FROM work_results WHERE worker_outcome = 'NORMAL' "
                            "AND test_outcome != 'KILLED'")
        with sqlite3.connect(db) as con:  # deferred mutants: marked, not run
            con.execute("DELETE FROM work_results WHERE output = 'deferred'")
            con.executemany("INSERT INTO work_results (worker_outcome, output, job_id) "
                            "VALUES ('SKIPPED', 'deferred', ?)",
                            [(j,) for j in deferred_jobs(con, GROUPS[args.group], args.all,
                                                         args.max, args.path)])
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        subprocess.run(["cosmic-ray", "exec", str(toml), str(db)], cwd=ROOT, env=env,
                       check=True)
    report(args.group, db)


if __name__ == "__main__":
    sys.exit(main())
